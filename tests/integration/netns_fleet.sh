#!/bin/sh
# SPDX-License-Identifier: MIT
# Many hosts on one machine: the coordinator in one network namespace, 4 agents in 4
# others, each over its own veth pair and address, 2.5 ms each way (RTT 5 ms) and 1 ms
# of jitter on two links: with `tc netem` where the kernel has it, else through a
# delaying TCP relay in each agent's namespace (delayrelay.py). A campaign end to end;
# each step's start on every agent, converted to the coordinator's clock, must be within
# 1 ms of the others'. Root only (77 elsewhere).
[ "$(id -u)" -eq 0 ] || exit 77
ip netns list > /dev/null 2>&1 || exit 77
. "$(dirname "$0")/lib.sh"

C=iocC$$
netns_cleanup() {
	cleanup
	for i in 1 2 3 4; do ip netns del "iocN$i$$" 2> /dev/null || true; done
	ip netns del "$C" 2> /dev/null || true
}
trap netns_cleanup EXIT
ip netns add "$C" || exit 77
ip -n "$C" link set lo up
NETEM=no
for i in 1 2 3 4; do
	N=iocN$i$$
	ip netns add "$N"
	ip link add "vc$i$$" type veth peer name "va$i$$"
	ip link set "vc$i$$" netns "$C"
	ip link set "va$i$$" netns "$N"
	ip -n "$C" addr add "10.214.$i.1/24" dev "vc$i$$"
	ip -n "$N" addr add "10.214.$i.2/24" dev "va$i$$"
	ip -n "$C" link set "vc$i$$" up
	ip -n "$N" link set lo up
	ip -n "$N" link set "va$i$$" up
	ip -n "$N" route add default via "10.214.$i.1"
	jitter=""
	[ "$i" -gt 2 ] && jitter="1ms"
	if ip netns exec "$C" tc qdisc add dev "vc$i$$" root netem delay 2.5ms $jitter 2> /dev/null &&
		ip netns exec "$N" tc qdisc add dev "va$i$$" root netem delay 2.5ms $jitter 2> /dev/null; then
		NETEM=yes
	fi
done
echo "# netem delay (2.5 ms each way): $NETEM"
DELAY=netem
if [ "$NETEM" = no ]; then
	# No sch_netem in this kernel: each agent dials a relay in its own namespace that
	# holds every chunk 2.5 ms each way (and up to 1 ms more on links 3 and 4).
	DELAY=relay
	for i in 1 2 3 4; do
		jitter=0
		[ "$i" -gt 2 ] && jitter=1
		ip netns exec "iocN$i$$" python3 "$(dirname "$0")/delayrelay.py" 7071 \
			"10.214.$i.1" 7070 2.5 "$jitter" > "$T/relay$i.log" 2>&1 &
		PIDS="$PIDS $!"
	done
	for i in 1 2 3 4; do
		wait_for "$T/relay$i.log" relaying 10 || { cat "$T/relay$i.log"; fail "relay $i starts"; }
	done
fi

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" h1 h2 h3 h4 > /dev/null
SOCK=$T/ctl.sock
# The coordinator listens on every address of its namespace: each agent dials its own link.
ip netns exec "$C" "$IOCURVE" serve --listen 0.0.0.0:7070 --tls "$T/ca" --control "$SOCK" \
	--results "$T/results" 2> "$T/serve.log" &
PIDS="$PIDS $!"
wait_for "$T/serve.log" "control socket" 10 || { cat "$T/serve.log"; fail "serve starts"; }
for i in 1 2 3 4; do
	addr="10.214.$i.1:7070"
	[ "$DELAY" = relay ] && addr="127.0.0.1:7071"
	ip netns exec "iocN$i$$" "$IOCURVE_AGENT" --coordinator "$addr" --tls "$T/ca" \
		--name "h$i" --allow "$T" 2> "$T/h$i.log" &
	PIDS="$PIDS $!"
done
for i in 1 2 3 4; do
	wait_for "$T/serve.log" "agent h$i: clock offset" 20 || { cat "$T/h$i.log"; fail "h$i joins from its namespace"; }
done
ok "4 agents join, each from its own namespace and address"
check "they are seen from 4 addresses" \
	test "$(grep -o 'TLS session from 10\.214\.[1-4]\.2' "$T/serve.log" | sort -u | wc -l)" -eq 4

cat > "$T/fleet.yaml" <<YAML
campaign: fleet
agents: {select: {count: 4}, wait: 20s}
target: {sim: {servers: 8, service_time: 500us}}
workers: 2
interval: 500ms
warmup: 500ms
measure: 2500ms
workloads:
  - {name: rr, rw: randread, load: {steps: [2000, 4000, 8000, 12000]}}
YAML
"$IOCURVE" run "$T/fleet.yaml" --coordinator "$SOCK" > "$T/run.out" 2>&1 ||
	{ cat "$T/run.out"; fail "the campaign runs across the namespaces"; }
ok "the campaign runs across the namespaces"
J=$(ls "$T"/results/fleet-*/intervals.jsonl)
python3 - "$J" "$DELAY" > "$T/skew.out" <<'PY' || { cat "$T/skew.out"; fail "step starts within 1 ms of each other"; }
import collections, json, sys
# The namespaces share one clock: an agent's start on its own clock is its start on
# the coordinator's, and the true offset is 0.
by = collections.defaultdict(dict)
rtt, outside = [], []
import ivlines
for r in ivlines.lines(sys.argv[1]):
    if "clock" in r:
        c = r["clock"]
        by[(r["workload"], r["step"])][r["agent"]] = c["start_agent_ns"]
        rtt.append(c["rtt_ns"])
        if abs(c["offset_ns"]) > c["uncertainty_ns"]:
            outside.append((r["step"], r["agent"], c["offset_ns"], c["uncertainty_ns"]))
skews = [max(v.values()) - min(v.values()) for v in by.values()]
assert len(by) == 4 and all(len(v) == 4 for v in by.values()), dict(by)
print(f"# steps {len(skews)}, agents 4, delay by {sys.argv[2]}, median RTT {sorted(rtt)[len(rtt)//2]/1e6:.2f} ms; "
      f"start skew per step (us): {', '.join(f'{s/1e3:.0f}' for s in skews)}; max {max(skews)/1e3:.0f} us")
med = sorted(rtt)[len(rtt) // 2]
assert 4.5e6 < med < 12e6, f"median RTT {med / 1e6:.2f} ms: the links should take about 5 ms"
assert not outside, f"offsets outside their stated uncertainty (step, agent, ns, ns): {outside}"
assert max(skews) < 1e6, f"skew {max(skews)} ns over 1 ms"
PY
cat "$T/skew.out"
ok "every step starts on all 4 agents within 1 ms of each other, over links of ~5 ms RTT, each offset within its stated uncertainty"
echo "# netns-fleet: all passed"
