#!/bin/sh
# SPDX-License-Identifier: MIT
# Marks and observe: lines across a killed daemon: `iocurve resume` keeps the marks (and
# observed values) of the steps it keeps
# (the one stamped in the step cut away goes with it), draws them in the resumed run's
# report.html with the marks stamped after the resume, and `iocurve report` agrees.
. "$(dirname "$0")/lib.sh"

daemon_certs a1
daemon_serve "$T/serve1.log" "$T/results"
daemon_agents "$T/serve1.log" a1
sim_campaign mr agents="$(daemon_select 1)" queue_depth= slo= measure=800ms \
	workloads="[{name: a, rw: randread, load: {steps: [500, 1000, 1500]}}, {name: b, rw: randread, load: {steps: [800, 1600]}}]" \
	> "$T/c.yaml"
# an observe: source (a gauge of 0.97 at each poll): its lines are kept, cut and rebuilt
# with the steps, as the marks are
python3 "$(dirname "$0")/observe_peers.py" busy > "$T/peers.out" 2> "$T/peers.err" &
PIDS="$PIDS $!"
wait_for "$T/peers.out" ready 10 || fail "the observed source listens"
echo "observe: [{name: st, url: 'http://127.0.0.1:$(awk '$1 == "busy" { print $2 }' "$T/peers.out")/metrics', series: [{name: disk, metric: disk_busy}]}]" >> "$T/c.yaml"
"$IOCURVE" run "$T/c.yaml" --coordinator "$SOCK" > "$T/run.out" 2>&1 &
PIDS="$PIDS $!"
wait_for "$T/run.out" "submitted" 10 || { cat "$T/run.out"; fail "the campaign is submitted"; }
R=$(ls -d "$T"/results/mr-*)
wait_for "$R/intervals.jsonl" '"workload":"a","step":1,' 20 || fail "step 2 starts"
"$IOCURVE" mark --coordinator "$SOCK" 1 "kept mark" > "$T/m1.out" 2>&1 || { cat "$T/m1.out"; fail "the first mark"; }
wait_for "$R/intervals.jsonl" '"workload":"a","step":2,"offered' 20 || fail "step 3 starts"
"$IOCURVE" mark --coordinator "$SOCK" "cut mark" > "$T/m2.out" 2>&1 || { cat "$T/m2.out"; fail "the second mark"; }
check "the second mark landed in step 3" grep -q "marked at a step 3" "$T/m2.out"
kill -KILL "$SERVE"
wait "$SERVE" 2> /dev/null || true
check "both marks were on disk" test "$(grep -c '"mark"' "$R/intervals.jsonl")" -eq 2

daemon_serve "$T/serve2.log" "$T/results"
wait_for "$T/serve2.log" "agent a1: clock offset" 30 || fail "agent a1 joins the new daemon"
"$IOCURVE" resume 1 --coordinator "$SOCK" > "$T/resume.out" 2>&1 || { cat "$T/resume.out"; fail "iocurve resume 1"; }
wait_for "$R/intervals.jsonl" '"workload":"b","step":0,' 30 || fail "workload b starts"
"$IOCURVE" mark --coordinator "$SOCK" 1 "after resume" > "$T/m3.out" 2>&1 || { cat "$T/m3.out"; fail "a mark after the resume"; }
i=0
until "$IOCURVE" status --coordinator "$SOCK" | grep -Eq "^1 +mr +(complete|failed)"; do
	i=$((i + 1))
	[ "$i" -lt 80 ] || fail "the resumed campaign ends"
	sleep 0.5
done
marks() { python3 -c '
import re, sys
print(" | ".join(re.findall(r"<td class=\"mark\">([^<]*)</td>", open(sys.argv[1]).read())))' "$1"; }
check "intervals.jsonl keeps the kept mark once, not the cut one" \
	sh -c "grep -c '\"mark\":\"kept mark\"' '$R/intervals.jsonl' | grep -qx 1 && ! grep -q 'cut mark' '$R/intervals.jsonl'"
echo "# report.html lists: $(marks "$R/report.html")"
check "the resumed run's report.html lists the kept mark and the one after the resume" \
	test "$(marks "$R/report.html")" = "kept mark | after resume"
"$IOCURVE" report "$R" > /dev/null 2>&1 || fail "report rebuilds the resumed directory"
check "iocurve report lists the same" test "$(marks "$R/report.html")" = "kept mark | after resume"
check "time-a.svg draws the kept mark" grep -q '>kept mark</text>' "$R/time-a.svg"
check "time-b.svg draws the one after the resume" grep -q '>after resume</text>' "$R/time-b.svg"
python3 - "$R" <<'PY' || fail "observe lines across the resume"
import json, sys
from collections import Counter
r = sys.argv[1]
lines = [json.loads(l) for l in open(r + "/intervals.jsonl")]
# a step run again ("retried": a client-bound step on a busy host) starts its lines over,
# as the reader does: only the last attempt's count
obs, ivs = Counter(), Counter()
for l in lines:
    if "retried" in l:
        for c in (obs, ivs):
            for k in [k for k in c if k[:2] == (l["workload"], l["step"])]:
                del c[k]
    elif "observe" in l:
        obs[(l["workload"], l["step"], l["interval"])] += 1
    elif "ops" in l and l.get("agent") == "*":
        ivs[(l["workload"], l["step"], l["interval"])] += 1
print(f"# {sum(obs.values())} observe lines over {len(ivs)} fleet intervals")
dup = [k for k, n in obs.items() if n > 1]
assert not dup, f"an interval observed twice (the cut step's lines kept): {dup}"
assert set(obs) <= set(ivs), sorted(set(obs) - set(ivs))
for w, steps in (("a", 3), ("b", 2)):
    pts = json.load(open(f"{r}/curve-{w}.json"))["steps"]
    assert len(pts) == steps and all(p["observed"]["st/disk"] == 0.97 for p in pts), (w, pts)
PY
ok "observe lines: one per interval of the steps kept and run after the resume; report rebuilds every step's mean, 0.97"
