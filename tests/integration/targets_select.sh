#!/bin/sh
# SPDX-License-Identifier: MIT
# targets: with select.labels per target: agents that dial in, two labelled class=fast and
# one class=slow, each allowed only its own class's directory; each (test, target) pair
# runs only on the agents of its target (intervals.jsonl names them), the campaign claims
# a slot for every target, and a target whose agents carry the labels but not its path
# fails with the agent and the path named.
. "$(dirname "$0")/lib.sh"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" f1 f2 f3 s1 > /dev/null
mkdir -p "$T/fast" "$T/slow"
PORT=$(free_port)
cat > "$T/sel.yaml" <<YAML
campaign: sel
agents: {select: {count: 3}, wait: 30s}
targets:
  - {name: fast, path: $T/fast, size: 4MiB, direct: false, select: {labels: {class: fast}}}
  - {name: slow, path: $T/slow, size: 4MiB, direct: false, select: {labels: {class: slow}}}
interval: 100ms
warmup: 100ms
measure: 200ms
workloads:
  - {name: rr, rw: randread, queue_depth: 2, load: {steps: [200, 400]}}
  - {name: peak, rw: randread, queue_depth: 2, load: {max: true}}
YAML
"$IOCURVE" check "$T/sel.yaml" > "$T/check.out" 2>&1 || { cat "$T/check.out"; fail "check"; }
check "check says which agents drive each target" \
	grep -q 'driven by the agents with labels class=slow' "$T/check.out"
"$IOCURVE" run "$T/sel.yaml" --coordinator-listen "127.0.0.1:$PORT" --tls "$T/ca" \
	--out "$T/res" > "$T/run.out" 2>&1 &
RUN=$!
PIDS="$PIDS $RUN"
wait_for "$T/run.out" "waiting for 3 agent" 10 || { cat "$T/run.out"; fail "run waits for agents"; }
agent() { # agent NAME CLASS DIR
	"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name "$1" \
		--allow "$3" --label "class=$2" 2> "$T/$1.log" &
	PIDS="$PIDS $!"
}
# Three fast agents first (each welcomed before the slow one dials): the third is not
# taken, its slot is the slow target's.
agent f1 fast "$T/fast"
agent f2 fast "$T/fast"
agent f3 fast "$T/fast"
for a in f1 f2 f3; do
	wait_for "$T/$a.log" "welcomed by the coordinator" 15 ||
		{ cat "$T/$a.log"; fail "agent $a is welcomed"; }
done
agent s1 slow "$T/slow"
wait_exit "$RUN" 90 || { cat "$T/run.out"; fail "the campaign over two classes of agents completes"; }
ok "the campaign over two classes of agents completes"

python3 - "$T/res/intervals.jsonl" <<'PY' || fail "each pair ran only on its target's agents"
import json, sys
seen = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d.get("agent") and d["agent"] != "*" and "workload" in d:
        seen.setdefault(d["workload"], set()).add(d["agent"])
assert seen.get("rr@slow") == {"s1"} and seen.get("peak@slow") == {"s1"}, seen
assert len(seen.get("rr@fast", ())) == 2 and seen["rr@fast"] <= {"f1", "f2", "f3"}, seen
assert seen["peak@fast"] == seen["rr@fast"], seen
PY
ok "each pair ran only on its target's agents (two fast, one slow)"
check "summary.md has the side-by-side table" grep -q '^| Test | Figure | fast | slow |$' "$T/res/summary.md"
check "report.html names each target's agents by label" \
	grep -q 'slow: .*agents labelled class=slow' "$T/res/report.html"

# An agent carrying a target's labels but not allowed its path: refused by the agent,
# naming itself and the path (the campaign fails rather than run elsewhere).
PORT=$(free_port)
sed -e "s/campaign: sel/campaign: sel2/" -e 's/count: 3/count: 2/' "$T/sel.yaml" > "$T/sel2.yaml"
"$IOCURVE" run "$T/sel2.yaml" --coordinator-listen "127.0.0.1:$PORT" --tls "$T/ca" \
	--out "$T/res2" > "$T/run2.out" 2>&1 &
RUN=$!
PIDS="$PIDS $RUN"
wait_for "$T/run2.out" "waiting for 2 agent" 10 || { cat "$T/run2.out"; fail "run 2 waits"; }
agent f1 fast "$T/fast"
agent s1 slow "$T/fast"
if wait_exit "$RUN" 90; then cat "$T/run2.out"; fail "a target its agent may not touch fails the campaign"; fi
grep -q "s1.*$T/slow\|$T/slow.*s1" "$T/run2.out" ||
	{ cat "$T/run2.out"; fail "the failure names the agent and the path"; }
ok "a target its agent may not touch fails the campaign, naming the agent and the path"
