#!/bin/sh
# SPDX-License-Identifier: MIT
# No client starves the daemon. `serve` runs as nobody under a 256-descriptor limit while
# 300 clients trickle requests to /metrics and 300 trickle TLS handshakes to the agent
# port, from several loopback addresses, reconnecting whenever dropped. A small sim
# campaign submitted meanwhile completes (its results files open), `status` answers,
# /metrics answers a real scrape, and a new real agent is welcomed before the campaign
# ends; 40 control clients trickling a frame are dropped too. STARVE_SECONDS stretches
# the flood before the campaign (the 'long' suite); STARVE_KINDS=tls (or metrics) runs one
# flood alone.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "# needs root (runs the daemon as nobody)"; exit 77; }
id nobody > /dev/null 2>&1 || { echo "# no user nobody"; exit 77; }
NOGROUP=$(id -gn nobody)
N=${STARVE_CLIENTS:-300}

chmod 755 "$T"
"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" a1 a2 > /dev/null
mkdir -p "$T/data" "$T/results" "$T/run"
chown -R nobody "$T/ca" "$T/results" "$T/run"
PORT=$(free_port)
MPORT=$(free_port)
SOCK=$T/run/ctl.sock
(ulimit -n 256 && exec setpriv --reuid=nobody --regid="$NOGROUP" --clear-groups \
	"$IOCURVE" serve --listen "127.0.0.1:$PORT" --tls "$T/ca" --control "$SOCK" \
	--results "$T/results" --metrics "127.0.0.1:$MPORT") 2> "$T/serve.log" &
SERVE=$!
PIDS="$PIDS $SERVE"
wait_for "$T/serve.log" "control socket" 10 || { cat "$T/serve.log"; fail "serve starts"; }
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name a1 --allow "$T/data" \
	2> "$T/a1.log" &
PIDS="$PIDS $!"
wait_for "$T/serve.log" "agent a1: clock offset" 15 || fail "agent a1 joins"

cpu() { awk '{print $14 + $15}' "/proc/$SERVE/stat"; }
CPU0=$(cpu)
T0=$(date +%s.%N)
python3 "$(dirname "$0")/starve.py" "$MPORT" "$PORT" "$N" 5 "$T/stop" "$SOCK" \
	"${STARVE_KINDS:-metrics,tls}" > "$T/flood.out" &
FLOOD=$!
PIDS="$PIDS $FLOOD"
# Long enough for every flood connection to be open and trickling, and for the old
# daemon's 5 s idle timer to have been restarted by a byte of each.
sleep "${STARVE_SECONDS:-8}"
echo "# daemon descriptors with the flood on: $(ls /proc/$SERVE/fd | wc -l) (limit 256)"

cat > "$T/small.yaml" <<YAML
campaign: small
agents: {select: {count: 1}, wait: 10s}
target: {sim: {servers: 4, service_time: 500us}}
interval: 500ms
warmup: 500ms
measure: 2s
workloads:
  - {name: rr, rw: randread, load: {steps: [500, 1000, 1500, 2000]}}
YAML
"$IOCURVE" run "$T/small.yaml" --coordinator "$SOCK" > "$T/run.out" 2>&1 &
RUN=$!
PIDS="$PIDS $RUN"

# status answers (its time is printed, not judged: a busy machine must pass).
t0=$(date +%s.%N)
"$IOCURVE" status --coordinator "$SOCK" > "$T/status.out" 2>&1 ||
	{ cat "$T/status.out"; fail "status answers during the flood"; }
echo "# status answered in $(echo "$(date +%s.%N) - $t0" | bc) s"
ok "status answers during the flood"

# A real scrape from its own address gets its answer.
python3 - "$MPORT" <<'PY' || fail "/metrics answers a real scrape during the flood"
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=30)
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
data = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    data += d
assert data.startswith(b"HTTP/1.1 200"), data[:100]
assert b"iocurve_agents_connected 1" in data, data[:400]
print("ok - /metrics answers a real scrape during the flood")
PY

# A new real agent is welcomed while the campaign runs.
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name a2 --allow "$T/data" \
	2> "$T/a2.log" &
PIDS="$PIDS $!"
wait_for "$T/serve.log" "agent a2 joined" 60 || { tail -20 "$T/serve.log"; fail "a new agent is welcomed during the flood"; }
kill -0 "$RUN" 2> /dev/null && echo "# a2 was welcomed while the campaign still ran"
ok "a new agent is welcomed during the flood"

wait_exit "$RUN" 120 || { cat "$T/run.out"; tail -20 "$T/serve.log"; fail "the campaign completes during the flood"; }
ok "the campaign completes during the flood"
"$IOCURVE" status --coordinator "$SOCK" > "$T/status2.out" 2>&1 || fail "status after the campaign"
check "status shows it complete" grep -q "^1 .*small .*complete" "$T/status2.out"
check "its results were written" sh -c "test \$(tail -n +2 '$T'/results/small-*/curve.csv | wc -l) -ge 1"
check "no 'Too many open files' in the daemon's log" sh -c "! grep -q 'Too many open files' '$T/serve.log'"
touch "$T/stop"
wait "$FLOOD" || true
echo "# flood: $(cat "$T/flood.out")"
echo "# daemon CPU over the flood: $(echo "scale=1; ($(cpu) - $CPU0) / $(getconf CLK_TCK) * 100 / ($(date +%s.%N) - $T0)" | bc)% of one core (printed, not judged)"
closed() { sed -n "s/.*closed_$1=\([0-9]*\).*/\1/p" "$T/flood.out"; }
case ${STARVE_KINDS:-metrics,tls} in *metrics*)
	check "the daemon dropped trickling /metrics clients" test "$(closed metrics)" -gt 0 ;;
esac
case ${STARVE_KINDS:-metrics,tls} in *tls*)
	check "the daemon dropped slow TLS handshakes" test "$(closed tls)" -gt 0 ;;
esac
check "the daemon dropped control clients that sent no complete request" \
	test "$(closed control)" -gt 0
grep -E "dropping the oldest|still to say Hello" "$T/serve.log" | head -3 | sed 's/^/# /'
echo "# starve: all passed"
