#!/bin/sh
# SPDX-License-Identifier: MIT
# Results that survive a crash: `iocurve run` SIGKILLed mid-step leaves a directory
# that `report` reads (a torn last line ignored with a warning) and that
# `run --resume` carries on to the end, every step once.
. "$(dirname "$0")/lib.sh"

sim_campaign crash > "$T/c.yaml"
R=$T/r
"$IOCURVE" run "$T/c.yaml" --out "$R" > "$T/run1.out" 2>&1 &
RUN=$!
PIDS="$RUN"
# Kill it in the middle of step 3 of workload a: two steps are done.
wait_for "$R/intervals.jsonl" '"workload":"a","step":2,' 20 || { cat "$T/run1.out"; fail "step 3 starts"; }
sleep 0.2
T0=$(date +%s.%N)
kill -KILL "$RUN"
wait "$RUN" 2>/dev/null || true
# The embedded run's agents go when it goes (their link drops); wait for them.
sleep 1
# A torn last line, as a write cut short by the kill leaves it.
printf '{"format":1,"workload":"a","step":2,"offe' >> "$R/intervals.jsonl"

"$IOCURVE" report "$R" > "$T/rep.out" 2> "$T/rep.err" ||
	{ cat "$T/rep.out" "$T/rep.err"; fail "report rebuilds a directory whose writer was killed"; }
ok "report rebuilds a directory whose writer was killed"
check "report warns of the torn last line" \
	grep -q "warning: .*intervals.jsonl:[0-9]*: the last line is cut short" "$T/rep.err"
check "report counts the two finished steps" grep -q "from 2 steps of intervals.jsonl" "$T/rep.out"

"$IOCURVE" run --resume "$R" > "$T/run2.out" 2> "$T/run2.err" ||
	{ cat "$T/run2.out" "$T/run2.err"; fail "run --resume completes the campaign"; }
T1=$(date +%s.%N)
ok "run --resume completes the campaign"
check "resume says where it starts" grep -q "resuming $R: 2 step(s) on disk" "$T/run2.out"
check "resume warns of the torn line" grep -q "the last line is cut short" "$T/run2.err"
check "plan.yaml is still the campaign as submitted" cmp -s "$T/c.yaml" "$R/plan.yaml"
python3 - "$R" <<'PY' || fail "the resumed curve has every step once"
import csv, json, sys, collections
r = sys.argv[1]
import ivlines
lines = ivlines.lines(r + "/intervals.jsonl")
seen = collections.Counter((l["workload"], l["step"], l["interval"], l["agent"]) for l in lines if "interval" in l)
dup = [k for k, n in seen.items() if n > 1]
assert not dup, f"lines twice: {dup[:3]}"
steps = sorted({(l["workload"], l["step"]) for l in lines})
assert steps == [("a", 0), ("a", 1), ("a", 2), ("a", 3), ("b", 0), ("b", 1)], steps
rows = list(csv.DictReader(open(r + "/curve.csv")))
got = [(x["workload"], x["step"], float(x["offered_ops"])) for x in rows]
want = [("a", "1", 500.0), ("a", "2", 1000.0), ("a", "3", 1500.0), ("a", "4", 2000.0),
        ("b", "1", 800.0), ("b", "2", 1600.0)]
assert got == want, f"curve.csv {got}"
c = list(csv.DictReader(open(r + "/curve-a.csv")))
assert [x["step"] for x in c] == ["1", "2", "3", "4"], c
PY
ok "the resumed curve has every step once"
"$IOCURVE" report "$R" > "$T/rep2.out" 2>&1 || fail "report reads the resumed directory"
check "report rebuilds all six steps" grep -q "from 6 steps of intervals.jsonl" "$T/rep2.out"
echo "# measured: killed at $T0, resumed run finished at $T1"
