#!/bin/sh
# SPDX-License-Identifier: MIT
# Daemon memory: 20 campaigns back to back against `serve`; each finished campaign's
# events go to its results directory (events.jsonl) and leave memory, a watcher of a
# finished campaign replays them from the file, and the daemon's RSS after 20
# campaigns is within 10% of its RSS after the first. IOCURVE_MEM_CAMPAIGNS sets the count.
. "$(dirname "$0")/lib.sh"

# Under AddressSanitizer freed memory waits in its quarantine: RSS measures the
# sanitizer, not the daemon (LeakSanitizer checks leaks in that build instead).
if ldd "$IOCURVE" 2>/dev/null | grep -q libasan; then
	echo "# sanitizer build: RSS is not the daemon's; skipped"
	exit 77
fi

N=${IOCURVE_MEM_CAMPAIGNS:-20}
"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" a1 a2 a3 > /dev/null
PORT=$(free_port)
SOCK=$T/ctl.sock
"$IOCURVE" serve --listen "127.0.0.1:$PORT" --tls "$T/ca" --control "$SOCK" \
	--results "$T/results" 2> "$T/serve.log" &
SERVE=$!
PIDS="$PIDS $SERVE"
wait_for "$T/serve.log" "control socket" 10 || { cat "$T/serve.log"; fail "serve starts"; }
for a in a1 a2 a3; do
	"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name $a --allow "$T" \
		2> "$T/$a.log" &
	PIDS="$PIDS $!"
done
for a in a1 a2 a3; do
	wait_for "$T/serve.log" "agent $a: clock offset" 15 || fail "agent $a joins"
done
cat > "$T/m.yaml" <<YAML
campaign: mem
agents: {select: {count: 3}, wait: 20s}
target: {sim: {servers: 4, service_time: 500us}}
interval: 100ms
warmup: 100ms
measure: 3s
workloads:
  - {name: rr, rw: randread, load: {steps: [300, 600]}}
YAML
rss() { awk '/^VmRSS/ {print $2}' "/proc/$SERVE/status"; }
i=0
while [ "$i" -lt "$N" ]; do
	i=$((i + 1))
	"$IOCURVE" run "$T/m.yaml" --coordinator "$SOCK" --json > "$T/c$i.out" 2>&1 ||
		{ cat "$T/c$i.out"; fail "campaign $i completes"; }
	sleep 0.2 # the daemon releases a campaign on its next loop turn
	[ "$i" -eq 1 ] && FIRST=$(rss)
done
LAST=$(rss)
echo "# VmRSS after campaign 1: $FIRST kB, after campaign $N: $LAST kB"
check "RSS after $N campaigns is within 10% of after the first ($FIRST -> $LAST kB)" \
	test "$LAST" -le $((FIRST + FIRST / 10))
D=$(ls -d "$T"/results/mem-*-1)
check "a finished campaign's events are in its results directory" test -s "$D/events.jsonl"
check "events.jsonl ends with the done event" sh -c "tail -1 '$D/events.jsonl' | grep -q '\"event\":\"done\",\"status\":0'"
"$IOCURVE" watch 1 --coordinator "$SOCK" --json > "$T/w1.out" 2>&1 || { cat "$T/w1.out"; fail "watch a finished campaign"; }
check "a watcher of a finished campaign gets every event from the file" \
	test "$(grep -c '"event":"interval"' "$T/w1.out")" -eq "$(grep -c '"event":"interval"' "$D/events.jsonl")"
check "... the same events the first watcher saw" \
	test "$(grep -c '"event":"interval"' "$T/w1.out")" -eq "$(grep -c '"event":"interval"' "$T/c1.out")"
check "... up to the done event" grep -q '"event":"done"' "$T/w1.out"
