#!/bin/sh
# SPDX-License-Identifier: MIT
# Connection faults that need network namespaces (root; exits 77 otherwise), both at once:
#  noroute   an agent in a namespace with only loopback up dials an address it has no
#            route to (ENETUNREACH at once); it logs the errno text, lives past the
#            handshake deadline, and joins once the address is there;
#  linkdown  the agent's link goes down in the middle of a campaign and comes back: it
#            loses the coordinator, its dials fail with ENETUNREACH, it lives past the
#            handshake deadline, rejoins when the link is up, completes a campaign.
# The agent once died (SIGSEGV) 5 s after its first connect that failed at once.
[ "$(id -u)" -eq 0 ] || exit 77
ip netns list > /dev/null 2>&1 || exit 77
. "$(dirname "$0")/lib.sh"

NR=ioc-h19conn-$$-r
NA=ioc-h19conn-$$-a
NB=ioc-h19conn-$$-b
VA=icA$$
VB=icB$$
conn_cleanup() {
	[ -f "$T/pids" ] && PIDS="$PIDS $(cat "$T/pids")"
	cleanup
	for ns in "$NR" "$NA" "$NB"; do ip netns del "$ns" 2> /dev/null || true; done
}
trap conn_cleanup EXIT
ip netns add "$NR" || exit 77
ip netns add "$NA"
ip netns add "$NB"
ip link add "$VA" type veth peer name "$VB"
ip link set "$VA" netns "$NA"
ip link set "$VB" netns "$NB"
ip -n "$NA" addr add 10.213.8.1/30 dev "$VA"
ip -n "$NB" addr add 10.213.8.2/30 dev "$VB"
for ns in "$NR:lo" "$NA:$VA" "$NB:$VB"; do
	ip -n "${ns%%:*}" link set lo up
	ip -n "${ns%%:*}" link set "${ns#*:}" up
done

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" noroute linkdown > /dev/null
mkdir -p "$T/data"

cok() { echo "ok - $CASE: $*" >> "$T/$CASE.res"; }
cfail() {
	echo "not ok - $CASE: $*" >> "$T/$CASE.res"
	tail -8 "$T/$CASE.log" | sed 's/^/# /' >> "$T/$CASE.res"
	exit 1
}
bg() { # bg CMD...: in the background, ended by the cleanup
	"$@" &
	echo "$!" >> "$T/pids"
}

# yaml NAME MEASURE: one step of one agent on the simulated device.
yaml() {
	cat > "$T/$1.yaml" <<YAML
campaign: $1
agents: {select: {count: 1}, wait: 30s}
target: {sim: {servers: 4, service_time: 500us}}
interval: 200ms
warmup: 200ms
measure: $2
workloads:
  - {name: rr, rw: randread, load: {steps: [500]}}
YAML
}

# point DIR: the campaign's one point is the agent's, without errors.
point() {
	python3 - "$1/curve-rr.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1 and rows[0]["agents"] == "1" and rows[0]["errors"] == "0", rows
assert float(rows[0]["achieved_ops"]) > 0, rows
PY
}

# past_deadline PATTERN: the agent is alive more than 5 s (the handshake deadline) after
# the first log line matching PATTERN.
past_deadline() {
	wait_for "$T/$CASE.log" "$1" 30 || cfail "it logs the errno text ($1)"
	cok "it logs the errno text: $(grep -m1 -o -- "$1.*" "$T/$CASE.log")"
	sleep 6
	kill -0 "$AGENT" 2> /dev/null || cfail "the agent is alive 6 s after its first connect failed"
	cok "the agent is alive 6 s after its first connect failed" \
		"($(grep -c 'cannot connect to' "$T/$CASE.log") attempts so far)"
}

case_noroute() {
	CASE=noroute
	# A coordinator on every address of the namespace; the agent's is not one yet.
	yaml noroute 200ms
	ip netns exec "$NR" "$IOCURVE_AGENT" --coordinator 10.213.9.1:7071 --tls "$T/ca" \
		--name noroute --allow "$T/data" 2> "$T/noroute.log" &
	AGENT=$!
	echo "$AGENT" >> "$T/pids"
	past_deadline "cannot connect to 10.213.9.1:7071: Network is unreachable"
	bg ip netns exec "$NR" "$IOCURVE" run "$T/noroute.yaml" --coordinator-listen 0.0.0.0:7071 \
		--tls "$T/ca" --out "$T/noroute-out" > "$T/noroute-run.out" 2>&1
	RUN=$!
	t0=$(date +%s.%N)
	ip -n "$NR" addr add 10.213.9.1/32 dev lo
	wait "$RUN" || { cat "$T/noroute-run.out" >> "$T/noroute.res"; cfail "the campaign completes"; }
	cok "it joins once the address is there and completes a campaign" \
		"($(echo "$(date +%s.%N) - $t0" | bc | cut -c1-4) s after the address came)"
	point "$T/noroute-out" || cfail "the campaign's point is the agent's, without errors"
	cok "the campaign's point is the agent's, without errors"
	kill -0 "$AGENT" 2> /dev/null || cfail "the agent is alive after the campaign"
	cok "the agent is alive after the campaign"
}

case_linkdown() {
	CASE=linkdown
	SOCK=$T/ctl.sock
	# Liveness as in faults_netns.sh: each side misses the other after 1 s.
	bg ip netns exec "$NA" "$IOCURVE" serve --listen 10.213.8.1:7070 --tls "$T/ca" \
		--control "$SOCK" --results "$T/results" --heartbeat 250ms --heartbeat-misses 4 \
		2> "$T/serve.log"
	wait_for "$T/serve.log" "control socket" 10 || cfail "serve starts"
	ip netns exec "$NB" "$IOCURVE_AGENT" --coordinator 10.213.8.1:7070 --tls "$T/ca" \
		--name linkdown --allow "$T/data" 2> "$T/linkdown.log" &
	AGENT=$!
	echo "$AGENT" >> "$T/pids"
	wait_for "$T/linkdown.log" "welcomed by the coordinator" 15 || cfail "the agent joins"
	yaml long 60s
	bg "$IOCURVE" run "$T/long.yaml" --coordinator "$SOCK" > "$T/long.out" 2>&1
	LONG=$!
	wait_for "$T/linkdown.log" "step 1:" 30 || cfail "the campaign starts a step"
	ip -n "$NB" link set "$VB" down
	cok "link down in the middle of a step"
	wait_for "$T/linkdown.log" "lost: peer silent" 15 || cfail "it loses the coordinator"
	cok "it loses the coordinator: $(grep -m1 -o 'lost: peer silent.*' "$T/linkdown.log")"
	past_deadline "cannot connect to 10.213.8.1:7070: Network is unreachable"
	wait_exit "$LONG" 30 || [ $? -ne 124 ] || cfail "the campaign that lost its agent ends" # how is not this test's
	t0=$(date +%s.%N)
	ip -n "$NB" link set "$VB" up
	n=0
	while [ "$(grep -c 'welcomed by the coordinator' "$T/linkdown.log")" -lt 2 ]; do
		n=$((n + 1))
		[ "$n" -le 300 ] || cfail "it rejoins once the link is up"
		sleep 0.1
	done
	cok "it rejoins once the link is up ($(echo "$(date +%s.%N) - $t0" | bc | cut -c1-4) s)"
	yaml after 200ms
	"$IOCURVE" run "$T/after.yaml" --coordinator "$SOCK" > "$T/after.out" 2>&1 ||
		{ cat "$T/after.out" >> "$T/linkdown.res"; cfail "a campaign completes after"; }
	point "$(sed -n 's/^results: //p' "$T/after.out")" ||
		cfail "the campaign's point is the agent's, without errors"
	cok "a campaign completes after, its point the agent's, without errors"
	kill -0 "$AGENT" 2> /dev/null || cfail "the agent is alive after the campaign"
	cok "the agent is alive after the campaign"
}

CASES="noroute linkdown"
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
echo "# conn-faults-netns: all passed"
