#!/bin/sh
# SPDX-License-Identifier: MIT
# The daemon itself frozen (SIGSTOP 3 s, four times the 750 ms it lets an agent be
# silent) mid-campaign: woken, it names its own stall, gives the agents a fresh grace
# period and blames none; the campaign completes with every agent. An agent that gave
# up on the frozen daemon is lost, and its loss says whose stall it was. Then the daemon
# SIGKILLed under `iocurve run --coordinator` (a watch): the client names the campaign
# and the command that carries it on.
. "$(dirname "$0")/lib.sh"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" a1 a2 > /dev/null
PORT=$(free_port)
SOCK=$T/ctl.sock
"$IOCURVE" serve --listen "127.0.0.1:$PORT" --tls "$T/ca" --control "$SOCK" \
	--results "$T/results" --heartbeat 250ms 2> "$T/serve.log" &
SERVE=$!
PIDS="$PIDS $SERVE"
wait_for "$T/serve.log" "control socket" 10 || { cat "$T/serve.log"; fail "serve starts"; }
mkdir -p "$T/data"
# The daemon's heartbeat is 250 ms (x 3 misses: an agent silent 750 ms is lost, a stall
# of the daemon over 250 ms is its own). The agents outlast the frozen coordinator
# (their own misses, 60 x 250 ms, and dead-man): only the daemon's side is under test.
for a in a1 a2; do
	"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name $a --allow "$T/data" \
		--heartbeat-misses 60 --dead-man 60s 2> "$T/$a.log" &
	PIDS="$PIDS $!"
done
for a in a1 a2; do
	wait_for "$T/serve.log" "agent $a: clock offset" 15 || fail "agent $a joins"
done
campaign() { # campaign NAME MEASURE
	cat <<YAML
campaign: $1
agents: {select: {count: 2}, wait: 30s}
target: {sim: {servers: 4, service_time: 1ms}}
workers: 1
queue_depth: 16
interval: 200ms
warmup: 200ms
measure: $2
workloads:
  - {name: a, rw: randread, load: {steps: [500, 1000]}}
YAML
}

# 1. SIGSTOP the daemon for 3 s in step 1 (past its end: 900 ms).
campaign frozen 600ms > "$T/frozen.yaml"
"$IOCURVE" run "$T/frozen.yaml" --coordinator "$SOCK" > "$T/frozen.out" 2> "$T/frozen.err" &
RUN=$!
PIDS="$PIDS $RUN"
wait_for "$T/frozen.out" "step 1:" 20 || { cat "$T/frozen.out" "$T/frozen.err"; fail "step 1 starts"; }
kill -STOP "$SERVE"
sleep 3
kill -CONT "$SERVE"
set +e
wait_exit "$RUN" 60
RC=$?
set -e
[ "$RC" -eq 0 ] || { cat "$T/frozen.out" "$T/frozen.err" "$T/serve.log"; fail "the campaign completes after the daemon's stall ($RC)"; }
ok "the campaign completes with both agents after the daemon's 3 s stall"
check "the daemon names its own stall" \
	grep -Eq "the coordinator itself was stalled for [0-9.]+ s" "$T/serve.log"
grep -o "the coordinator itself was stalled for [0-9.]* s" "$T/serve.log" | sed 's/^/# /'
check "no agent is blamed for the daemon's stall" sh -c "! grep -Eq 'silent|lost' '$T/serve.log'"
check "no agent lost, no degraded end" sh -c "! grep -Eq 'lost|degraded' '$T/frozen.out' '$T/frozen.err'"

# 2. An agent of the daemon's patience (3 heartbeats) gives up on the frozen daemon: its loss
#    says whose stall it was.
"$IOCURVE" certs agent "$T/ca" a3 > /dev/null
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name a3 --allow "$T/data" \
	--label role=plain 2> "$T/a3.log" &
PIDS="$PIDS $!"
wait_for "$T/serve.log" "agent a3: clock offset" 15 || fail "agent a3 joins"
campaign plain 600ms | sed 's/count: 2}/count: 1, labels: {role: plain}}/' > "$T/plain.yaml"
"$IOCURVE" run "$T/plain.yaml" --coordinator "$SOCK" > "$T/plain.out" 2> "$T/plain.err" &
RUN=$!
PIDS="$PIDS $RUN"
wait_for "$T/a3.log" "step 1:" 20 || { cat "$T/plain.out" "$T/plain.err"; fail "a3 starts step 1"; }
kill -STOP "$SERVE"
wait_for "$T/a3.log" "connection to coordinator .* lost" 20 || { kill -CONT "$SERVE"; fail "a3 gives up on the frozen daemon"; }
kill -CONT "$SERVE"
wait_exit "$RUN" 60 || true
check "a3's loss names the coordinator's own stall" \
	grep -Eq "agent a3 .*lost: .*, just after the coordinator itself was stalled for [0-9.]+ s" "$T/serve.log"

# 3. The daemon SIGKILLed under a client following the campaign.
campaign killed 20s > "$T/killed.yaml"
"$IOCURVE" run "$T/killed.yaml" --coordinator "$SOCK" > "$T/killed.out" 2> "$T/killed.err" &
RUN=$!
PIDS="$PIDS $RUN"
wait_for "$T/killed.out" "step 1:" 20 || { cat "$T/killed.out" "$T/killed.err"; fail "step 1 starts"; }
ID=$(sed -n 's/^campaign \([0-9]*\) submitted.*/\1/p' "$T/killed.out")
kill -KILL "$SERVE"
set +e
wait_exit "$RUN" 20
RC=$?
set -e
check "the client fails ($RC)" test "$RC" -eq 1
check "the client names the campaign and how to resume it" \
	grep -q "the daemon closed the connection while campaign $ID ran; after restarting it: iocurve resume $ID" \
	"$T/killed.err"
echo "# daemon-stall: all passed"
