#!/bin/sh
# SPDX-License-Identifier: MIT
# Faults that need root: a partition (the coordinator in one network namespace, the agent
# in another, over a veth pair whose link goes down mid-step) with liveness set on serve
# and carried to the agent in Welcome; a slow layout (write-throttled through the blkio
# cgroup) whose progress reaches the coordinator as layout events. Exits 77 without root.
[ "$(id -u)" -eq 0 ] || exit 77
ip netns list > /dev/null 2>&1 || exit 77
. "$(dirname "$0")/lib.sh"
IOWATCH="$(dirname "$0")/iowatch.py"

NA=iocA$$
NB=iocB$$
VA=ivA$$
VB=ivB$$
CG=/sys/fs/cgroup/blkio/iocurve-test-$$
netns_cleanup() {
	[ -z "${LAY:-}" ] || wait "$LAY" 2> /dev/null || true
	cleanup
	ip netns del "$NA" 2> /dev/null || true
	ip netns del "$NB" 2> /dev/null || true
	rmdir "$CG" 2> /dev/null || true
}
trap netns_cleanup EXIT
ip netns add "$NA" || exit 77
ip netns add "$NB"
ip link add "$VA" type veth peer name "$VB"
ip link set "$VA" netns "$NA"
ip link set "$VB" netns "$NB"
ip -n "$NA" addr add 10.213.7.1/30 dev "$VA"
ip -n "$NB" addr add 10.213.7.2/30 dev "$VB"
for ns in "$NA:$VA" "$NB:$VB"; do
	ip -n "${ns%%:*}" link set lo up
	ip -n "${ns%%:*}" link set "${ns#*:}" up
done

# 2. A layout slowed to 4 MB/s: LayoutProgress reaches the coordinator as layout events.
#    It runs in the background, beside 1 (its own run and agent); its lines are told after 1's.
layout() {
	if ! mkdir "$CG" 2> /dev/null; then
		echo "# no blkio cgroup: the layout part is skipped"
		return 0
	fi
	dev=$(stat -c '%Hd:%Ld' "$T")
	echo "$dev 4194304" > "$CG/blkio.throttle.write_bps_device"
	cat > "$T/lay.yaml" <<YAML
campaign: layout
agents: {local: 1}
target: {path: $T/lay, size: 12MiB, direct: true}
workers: 1
queue_depth: 4
interval: 100ms
warmup: 100ms
measure: 100ms
workloads:
  - {name: rr, rw: randread, load: {steps: [100]}}
YAML
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CG" \
		"$IOCURVE" run "$T/lay.yaml" --json --out "$T/r-lay" > "$T/lay.out" 2> "$T/lay.err" ||
		{ cat "$T/lay.err"; echo "not ok - the throttled campaign runs"; return 1; }
	python3 - "$T/lay.out" <<'PY' || { echo "not ok - layout events with growing progress"; return 1; }
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
lay = [e for e in ev if e["event"] == "layout"]
print("# layout events:", [(e["done"], e["total"]) for e in lay])
assert len(lay) >= 2, lay
assert all(e["total"] == 12 << 20 and e["agent"] == "local-0" for e in lay)
assert lay[-1]["done"] > lay[0]["done"]
PY
	echo "ok - layout events with growing progress"
}
layout > "$T/lay.res" 2>&1 &
LAY=$!

# 1. Partition: heartbeat 250 ms x 4 misses (the coordinator detects in 1 s), dead-man 1 s.
"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" p1 > /dev/null
SOCK=$T/ctl.sock
ip netns exec "$NA" "$IOCURVE" serve --listen 10.213.7.1:7070 --tls "$T/ca" --control "$SOCK" \
	--results "$T/results" --heartbeat 250ms --heartbeat-misses 4 --dead-man 1s 2> "$T/serve.log" &
PIDS="$PIDS $!"
wait_for "$T/serve.log" "control socket" 10 || { cat "$T/serve.log"; fail "serve starts"; }
mkdir -p "$T/data"
ip netns exec "$NB" "$IOCURVE_AGENT" --coordinator 10.213.7.1:7070 --tls "$T/ca" --name p1 \
	--allow "$T/data" 2> "$T/p1.log" &
PIDS="$PIDS $!"
wait_for "$T/serve.log" "agent p1: clock offset" 15 || { cat "$T/p1.log"; fail "p1 joins across the veth"; }
check "the agent takes the liveness of the coordinator's Welcome" \
	grep -q "heartbeat every 250 ms, coordinator lost after 4 missed, dead-man 1000 ms" "$T/p1.log"
cat > "$T/part.yaml" <<YAML
campaign: partition
agents: {select: {count: 1}, wait: 10s}
target: {path: $T/data, size: 16MiB, direct: true}
workers: 2
queue_depth: 4
interval: 1s
warmup: 1s
measure: 30s
workloads:
  - {name: rr, rw: randread, load: {steps: [1000]}}
YAML
"$IOCURVE" run "$T/part.yaml" --coordinator "$SOCK" > "$T/part.out" 2>&1 &
PIDS="$PIDS $!"
wait_for "$T/p1.log" "step 1:" 30 || { cat "$T/part.out"; fail "the campaign starts a step"; }
A=$(pgrep -o -f "iocurve-agent .*--name p1 --allow $T/data")
m=$(python3 "$IOWATCH" --agent "$A" --action "ip -n $NB link set $VB down" \
	--detect "$T/serve.log" "agent p1 (10.213.7.2" --watch 4)
echo "# partition: $m"
stopped=$(echo "$m" | sed 's/.*io_stopped_after=\([0-9.]*\).*/\1/')
detected=$(echo "$m" | sed 's/.*detected_after=\([-0-9.]*\).*/\1/')
check "every worker stops within the dead-man + 1 s ($stopped s)" \
	awk "BEGIN { exit !(0 < $stopped && $stopped <= 2.0) }"
check "the coordinator detects the loss within 250 ms x 4 + 1 s ($detected s)" \
	awk "BEGIN { exit !(0.5 < $detected && $detected <= 2.0) }"
check "the loss is a silent peer" grep -q "agent p1 (10.213.7.2.*) lost: peer silent" "$T/serve.log"
# The agent's own loss detection (250 ms x 4) and the dead-man (1 s) end together: either stops them.
check "the workers stopped on their dead-man or the agent's loss of the coordinator" \
	grep -q "dead-man: the agent had not heard\|stopping workers (lost the coordinator)" "$T/p1.log"

if wait "$LAY"; then LRC=0; else LRC=$?; fi
LAY=""
cat "$T/lay.res"
[ "$LRC" -eq 0 ] || fail "the layout part ($LRC)"
echo "# faults-netns: all passed"
