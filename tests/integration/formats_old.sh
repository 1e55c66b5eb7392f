#!/bin/sh
# SPDX-License-Identifier: MIT
# Results directories written by iocurve 0.1.0 (tests/fixtures/results-0.1.0) are read
# by this one: `report` rebuilds the complete one, its knee in the bracket 0.1.0 found,
# and `run --resume` carries the one killed mid-campaign on to its end, appending lines
# of the current format after the old ones.
. "$(dirname "$0")/lib.sh"

FX=$IOCURVE_SOURCE/tests/fixtures/results-0.1.0
cp -R "$FX/complete" "$FX/interrupted" "$T/"
# The derived files go: report must make them again (curve.csv is the run's own).
for f in curve-rr.csv curve-rr.json curve-rr.svg summary.json summary.txt \
	summary.md report.html; do
	rm "$T/complete/$f"
done

"$IOCURVE" report "$T/complete" > "$T/rep.out" 2> "$T/rep.err" ||
	{ cat "$T/rep.out" "$T/rep.err"; fail "report rebuilds a directory of 0.1.0"; }
ok "report rebuilds a directory of 0.1.0"
check "report read its five steps" grep -q "from 5 steps of intervals.jsonl" "$T/rep.out"
for f in curve-rr.csv curve-rr.json curve-rr.svg summary.json summary.txt \
	summary.md report.html; do
	check "report wrote $f" test -s "$T/complete/$f"
done
python3 - "$FX/complete/summary.json" "$T/complete/summary.json" <<'PY' ||
import json, sys
old, new = (json.load(open(p)) for p in sys.argv[1:3])
assert "format" not in old, "the fixture is of 0.1.0, before summary.json had a format"
assert new["format"] >= 1, new.get("format")
assert new["status"] == old["status"] == "complete", (old["status"], new["status"])
# The method is this release's: every interval after the warm-up counts (0.1.0 cut a
# window) and the knee is interpolated between the met step and the violation, so the
# knee lies in 0.1.0's bracket, in the new band, and the peak within 1% of 0.1.0's.
keys = ["name", "steps", "sustained_ops", "limit"]
assert len(old["workloads"]) == len(new["workloads"]) == 1
import re
for o, n in zip(old["workloads"], new["workloads"]):
    for k in keys:
        if k == "limit":
            # The share of due is the window's now (ops + backlog at its end - backlog at
            # its start): 0.1.0 counted the backlog built before the window and wrote 69%
            # for a step whose window completed 4016 of the ~5000 operations due in it.
            pat = r"(\d+)% of the operations due"
            assert re.sub(pat, "", o[k]) == re.sub(pat, "", n[k]), (o[k], n[k])
            m = re.search(pat, n[k])
            if m:
                steps = json.load(open(sys.argv[2].replace("summary.json", "curve-rr.json")))["steps"]
                sat = [p for p in steps if "% of due" in p["verdict"]][-1]
                window = 100 * sat["achieved_ops"] / sat["offered_ops"]
                print(f"# limit: {o[k]!r} in 0.1.0, {n[k]!r} now; the window achieved {window:.1f}%")
                assert abs(int(m.group(1)) - window) <= 1, (n[k], window)
            continue
        assert o[k] == n[k], f"{o['name']}: {k} was {o[k]!r}, rebuilt {n[k]!r}"
    assert o["knee_ops"] > 0, "the fixture has a knee"
    lo, hi = o["knee_bracket"]
    assert lo <= n["knee_ops"] <= hi, (o["knee_bracket"], n["knee_ops"])
    assert n["knee_band"][0] <= n["knee_ops"] <= n["knee_band"][1], n["knee_band"]
    assert n["knee_band"][1] <= n["peak_ops"], "the band's top is at most the peak"
    assert abs(n["peak_ops"] / o["peak_ops"] - 1) < 0.01, (o["peak_ops"], n["peak_ops"])
    print(f"# {o['name']}: knee {n['knee_ops']} ops/s (0.1.0: {o['knee_ops']}, bracket {o['knee_bracket']}), "
          f"band {n['knee_band']}, peak {n['peak_ops']} ops/s (0.1.0: {o['peak_ops']})")
PY
	fail "the rebuilt knee lies in the bracket 0.1.0 found, the peak is 0.1.0's"
ok "the rebuilt knee lies in the bracket 0.1.0 found, the peak is 0.1.0's"

# The interrupted campaign: report reads it as it is, then resume finishes it.
"$IOCURVE" report "$T/interrupted" > "$T/rep-int.out" 2>&1 ||
	{ cat "$T/rep-int.out"; fail "report reads the interrupted directory of 0.1.0"; }
ok "report reads the interrupted directory of 0.1.0"
"$IOCURVE" run --resume "$T/interrupted" > "$T/resume.out" 2> "$T/resume.err" ||
	{ cat "$T/resume.out" "$T/resume.err"; fail "run --resume finishes a campaign 0.1.0 began"; }
ok "run --resume finishes a campaign 0.1.0 began"
check "resume starts after the two steps on disk" \
	grep -q "resuming $T/interrupted: 2 step(s) on disk" "$T/resume.out"
python3 - "$T/interrupted" <<'PY' || fail "the resumed campaign has every step once, old lines then new"
import csv, json, sys, collections
r = sys.argv[1]
lines = [json.loads(l) for l in open(r + "/intervals.jsonl")]
fmts = [l.get("format", 1) for l in lines]
assert fmts[0] == 1 and fmts[-1] > 1, (fmts[0], fmts[-1])
assert fmts == sorted(fmts), "lines of 0.1.0 first, then the resumed run's"
# a step run again for a disturbed client: its earlier attempt's lines end at a retried line
seen = collections.Counter()
for l in lines:
    if "retried" in l:
        for k in [k for k in seen if k[:2] == (l["workload"], l["step"])]:
            del seen[k]
    elif "interval" in l:
        seen[(l["workload"], l["step"], l["interval"], l["agent"])] += 1
assert not [k for k, n in seen.items() if n > 1], "an interval twice"
steps = sorted({(l["workload"], l["step"]) for l in lines if "workload" in l})
assert steps == [("a", 0), ("a", 1), ("a", 2), ("a", 3), ("b", 0), ("b", 1)], steps
rows = list(csv.DictReader(open(r + "/curve.csv")))
got = [(x["workload"], x["step"], float(x["offered_ops"])) for x in rows]
assert got == [("a", "1", 1000.0), ("a", "2", 2000.0), ("a", "3", 3000.0), ("a", "4", 5000.0),
               ("b", "1", 1500.0), ("b", "2", 3000.0)], got
s = json.load(open(r + "/summary.json"))
assert s["status"] == "complete" and [w["steps"] for w in s["workloads"]] == [4, 2], s
PY
ok "the resumed campaign has every step once, old lines then new"
"$IOCURVE" report "$T/interrupted" > "$T/rep2.out" 2>&1 ||
	{ cat "$T/rep2.out"; fail "report reads lines of both formats"; }
check "report reads lines of both formats" grep -q "from 6 steps of intervals.jsonl" "$T/rep2.out"
echo "# formats-0.1.0: all passed"
