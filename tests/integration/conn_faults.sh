#!/bin/sh
# SPDX-License-Identifier: MIT
# Connections that cannot crash the agent: a route that is gone (ENETUNREACH), a closed
# port (ECONNREFUSED), a silent peer (the TLS handshake never ends), a reset in the middle
# of the handshake, a peer that closes or resets after the agent's Hello (six times in a
# row: more than the 5 certificate failures that make the agent give up; a reset there
# was once taken for the coordinator rejecting the certificate). Each fault runs against
# its own agent, all at once: the agent logs the cause, is still alive past the
# handshake deadline, and, once a real coordinator listens where the fault was, joins it
# and completes a campaign. The faults that need a network namespace are in
# conn_faults_netns.sh.
. "$(dirname "$0")/lib.sh"
FAULTPEER="$(dirname "$0")/faultpeer.py"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" unreach refused silent rst hello hellorst > /dev/null
mkdir -p "$T/data"
# Processes started inside the cases' subshells, for the cleanup to end.
conn_cleanup() {
	[ -f "$T/pids" ] && PIDS="$PIDS $(cat "$T/pids")"
	cleanup
}
trap conn_cleanup EXIT

# agent NAME ADDR: an agent dialling ADDR, logging to $T/NAME.log; sets AGENT.
agent() {
	"$IOCURVE_AGENT" --coordinator "$2" --tls "$T/ca" --name "$1" --allow "$T/data" \
		2> "$T/$1.log" &
	AGENT=$!
	echo "$AGENT" >> "$T/pids"
}

# Inside a case: a failure is written down for the main script, and ends the case.
cok() { echo "ok - $CASE: $*" >> "$T/$CASE.res"; }
cfail() {
	echo "not ok - $CASE: $*" >> "$T/$CASE.res"
	exit 1
}

# A real coordinator at PORT, for one campaign of one agent (on the simulated device).
campaign() { # campaign PORT
	cat > "$T/$CASE.yaml" <<YAML
campaign: $CASE
agents: {select: {count: 1}, wait: 30s}
target: {sim: {servers: 4, service_time: 500us}}
interval: 100ms
warmup: 100ms
measure: 300ms
workloads:
  - {name: rr, rw: randread, load: {steps: [500]}}
YAML
	t0=$(date +%s.%N)
	if "$IOCURVE" run "$T/$CASE.yaml" --coordinator-listen "127.0.0.1:$1" --tls "$T/ca" \
		--out "$T/$CASE-out" > "$T/$CASE-run.out" 2>&1; then
		cok "it joins the coordinator then listening there and completes a campaign" \
			"($(echo "$(date +%s.%N) - $t0" | bc | cut -c1-4) s from the coordinator's start)"
	else
		cat "$T/$CASE-run.out" "$T/$CASE.log" | tail -20 | sed 's/^/# /' >> "$T/$CASE.res"
		cfail "it joins the coordinator then listening there and completes a campaign"
	fi
	grep -q "welcomed by the coordinator as '$CASE'" "$T/$CASE.log" ||
		cfail "the agent's log says it was welcomed"
	python3 - "$T/$CASE-out/curve-rr.csv" <<'PY' || cfail "the campaign's point is the agent's, without errors"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1 and rows[0]["agents"] == "1" and rows[0]["errors"] == "0", rows
assert float(rows[0]["achieved_ops"]) > 0, rows
PY
	cok "the campaign's point is the agent's, without errors"
	kill -0 "$AGENT" 2> /dev/null || cfail "the agent is still alive after the campaign"
	cok "the agent is still alive after the campaign"
}

# alive WHAT: the agent has not died (the fault's cause is already in its log).
alive() {
	kill -0 "$AGENT" 2> /dev/null || {
		tail -5 "$T/$CASE.log" | sed 's/^/# /' >> "$T/$CASE.res"
		cfail "the agent is alive $1"
	}
	cok "the agent is alive $1"
}

# cause PATTERN WHAT: the agent's log names the cause.
cause() {
	wait_for "$T/$CASE.log" "$1" 30 || {
		tail -5 "$T/$CASE.log" | sed 's/^/# /' >> "$T/$CASE.res"
		cfail "it logs $2"
	}
	cok "it logs $2: $(grep -m1 -o -- "$1.*" "$T/$CASE.log")"
}

# peer MODE PORT: the fault peer at PORT, its lines in $T/CASE.peer; sets PEER.
peer() {
	python3 "$FAULTPEER" "$1" "$2" "$T/ca" > "$T/$CASE.peer" 2>&1 &
	PEER=$!
	echo "$PEER" >> "$T/pids"
	wait_for "$T/$CASE.peer" "listening" 10 || cfail "the $1 peer starts"
}

# Only a real process can take the fault peer's port back.
peer_stop() {
	kill "$PEER"
	wait "$PEER" 2> /dev/null || true
}

# case_port: PORT, the case's port of PORTS ("CASE:PORT ...", taken before the cases start).
case_port() {
	for cp in $PORTS; do
		if [ "${cp%%:*}" = "$CASE" ]; then PORT=${cp#*:}; fi
	done
}

# No route: a TCP connect to the broadcast address fails at once with ENETUNREACH.
# The agent once died 5 s later (the handshake deadline of the freed connection fired).
case_unreach() {
	CASE=unreach
	agent unreach 255.255.255.255:9
	cause "cannot connect to 255.255.255.255:9: Network is unreachable" "the errno text"
	sleep 6 # past the 5 s handshake deadline the failed connect once left armed
	alive "6 s after its first connect failed at once"
	test "$(grep -c 'cannot connect to' "$T/unreach.log")" -ge 3 || cfail "it keeps trying"
	cok "it keeps trying ($(grep -c 'cannot connect to' "$T/unreach.log") attempts)"
}

case_refused() {
	CASE=refused
	case_port
	agent refused "127.0.0.1:$PORT"
	cause "nothing listens at 127.0.0.1:$PORT (Connection refused)" "the refusal"
	campaign "$PORT"
}

case_silent() {
	CASE=silent
	case_port
	peer silent "$PORT"
	agent silent "127.0.0.1:$PORT"
	cause "lost: TLS handshake not done in time (5 s deadline)" "the handshake deadline"
	alive "after its handshake deadline"
	peer_stop
	campaign "$PORT"
}

case_rst() {
	CASE=rst
	case_port
	peer rst "$PORT"
	agent rst "127.0.0.1:$PORT"
	cause "lost: TLS handshake failed: Connection reset by peer" "the reset"
	wait_for "$T/rst.peer" "connection 3: reset" 30 || cfail "the peer resets it 3 times"
	alive "after 3 resets"
	peer_stop
	campaign "$PORT"
}

# hello_case MODE WORD: the peer completes the handshake, reads the Hello, then closes
# (or resets); 6 times, while 5 certificate failures in a row make the agent give up.
hello_case() {
	case_port
	peer "$1" "$PORT"
	agent "$CASE" "127.0.0.1:$PORT"
	wait_for "$T/$CASE.peer" "connection 6: Hello of [0-9]* bytes from $CASE; $2" 60 || {
		tail -3 "$T/$CASE.peer" "$T/$CASE.log" | sed 's/^/# /' >> "$T/$CASE.res"
		cfail "the peer reads the agent's Hello and $2 the connection, 6 times"
	}
	cok "the peer read the agent's Hello and $2 the connection, 6 times"
	cause "the coordinator at 127.0.0.1:$PORT closed the connection before welcoming this agent" \
		"the close before Welcome"
	grep -q "giving up\|does not accept this agent's certificate" "$T/$CASE.log" &&
		cfail "it does not take the close for a certificate problem"
	cok "it does not take the close for a certificate problem"
	alive "after 6 of them"
	peer_stop
	campaign "$PORT"
}

case_hello() {
	CASE=hello
	hello_case hello-close closed
}

case_hellorst() {
	CASE=hellorst
	hello_case hello-rst reset
}

CASES="unreach refused silent rst hello hellorst"
# Their ports, taken together (so they differ) by one process rather than one each.
PORTS=$(python3 -c '
import socket, sys
ss = [socket.socket() for _ in sys.argv[1:]]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(f"{c}:{s.getsockname()[1]}" for c, s in zip(sys.argv[1:], ss)))' refused silent rst hello hellorst)
for c in $CASES; do
	(case_$c) &
	echo "$!" >> "$T/pids"
done
wait
for c in $CASES; do
	cat "$T/$c.res" 2> /dev/null || echo "not ok - $c: no result"
	grep -q "^not ok" "$T/$c.res" 2> /dev/null && FAILED=1
	[ -f "$T/$c.res" ] || FAILED=1
done
[ "$FAILED" -eq 0 ] || exit 1
echo "# conn-faults: all passed"
