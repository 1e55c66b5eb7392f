#!/bin/sh
# SPDX-License-Identifier: MIT
# The methodology on a device whose capacity is known (sim: 4 servers x 1ms = 4000 ops/s):
# a ramp stops at saturation, refinement pins the knee, a curve runs at shares of the peak,
# and `iocurve report` rebuilds the same derived files from the intervals alone.
. "$(dirname "$0")/lib.sh"

cat > "$T/ramp.yaml" <<YAML
campaign: ramp
agents: {local: 1}
target: {sim: {servers: 4, service_time: 1ms}}  # no jitter: no queueing below capacity
queue_depth: 64
interval: 200ms
warmup: 400ms
measure: 1s
# 1 s windows near capacity can still trend on a busy client (a dry CI judged 3547 and
# 3720 unsteady and put the knee at 3461, 87%): extend them, as a user would.
steady: {extend: 5}
slo: {latency: 2ms}
workloads:
  - {name: rr, rw: randread, load: {ramp: {start: 1000, factor: 1.5}, refine: 6}}
  - {name: shares, rw: randread, load: {curve: [25%, 50%, 75%]}}
YAML
"$IOCURVE" run "$T/ramp.yaml" --out "$T/r" > "$T/r.out" 2> "$T/r.err" ||
	{ cat "$T/r.out" "$T/r.err"; fail "the ramp campaign runs"; }
ok "the ramp campaign runs"
python3 - "$T/r" <<'PY' || { cat "$T/r.out"; fail "ramp, refine and curve behave"; }
import csv, json, sys
d = sys.argv[1]
cap = 4000.0
rows = list(csv.DictReader(open(d + "/curve-rr.csv")))
run = sorted(rows, key=lambda r: int(r["step"]))
for r in run:
    print(f"# rr step {r['step']}: offered {float(r['offered_ops']):.0f} achieved {float(r['achieved_ops']):.0f} mean {float(r['mean_us']):.0f}us")
# The ramp: 1000, 1500, 2250, 3375, 5062 (saturated), then refinement.
ramp = [float(r["offered_ops"]) for r in run[:5]]
assert [round(x) for x in ramp] == [1000, 1500, 2250, 3375, 5062], ramp
last = run[4]
assert float(last["achieved_ops"]) < 0.95 * float(last["offered_ops"]), "step 5 saturates"
assert ramp[3] < cap < ramp[4], "the ramp stopped within one step of capacity"
assert len(run) > 5, "refinement ran"
s = json.load(open(d + "/summary.json"))
rr = [w for w in s["workloads"] if w["name"] == "rr"][0]
print(f"# knee {rr['knee_ops']:.0f} ops/s ({rr['knee_kind']}), limit: {rr['limit']}")
# Never above capacity; below it by as much as a busy client's lag pushes a step near
# capacity over the SLO (the knee never lies above a step that violated it).
assert 0.9 * cap <= rr["knee_ops"] <= 1.02 * cap, f"knee {rr['knee_ops']} not within 90..102% of {cap}"
assert rr["knee_kind"] in ("interpolated", "measured")
# The knee's precision: confirmed within 2%, or the summary says why not.
lo, hi = rr["knee_bracket"]
print(f"# bracket {lo}..{hi}, confirmed {rr['knee_confirmed']}: {rr['knee_precision']}")
assert (rr["knee_confirmed"] and (hi - lo) <= 0.02 * lo) or ": " in rr["knee_precision"], rr
# Refinement never offered more than the highest rate achieved before it.
best = 0
for r in run:
    if r is not run[0] and int(r["step"]) > 5:
        assert float(r["offered_ops"]) <= best + 0.5, (r["offered_ops"], best)
    best = max(best, float(r["achieved_ops"]))
# No latency beside the peak; the sustained figure is a valid step's, with its latency.
assert "latency_at_peak_us" not in rr and "peak_service_us" in rr, rr
assert rr["sustained_ops"] <= rr["peak_ops"] and rr["sustained_latency_us"] > 0, rr
# 4 servers saturated: the service time grew at the peak, so not the client's queue
# (the client's CPU may come first on a busy machine).
assert not rr["limit"].startswith("client queue depth"), rr["limit"]
# The curve: a max step, then 25/50/75% of what it achieved.
rows = sorted(csv.DictReader(open(d + "/curve-shares.csv")), key=lambda r: int(r["step"]))
peak = float(rows[0]["achieved_ops"])
assert float(rows[0]["offered_ops"]) == 0, "the curve starts with a max step"
for r, share in zip(rows[1:], (0.25, 0.5, 0.75)):
    got = float(r["achieved_ops"]) / peak
    print(f"# curve step {r['step']}: {got:.3f} of peak {peak:.0f} (asked {share})")
    assert abs(got - share) <= 0.02 * share, (got, share)
PY
ok "the ramp stops at saturation, refinement finds the knee within 2%, curve steps sit at their shares"

for f in curve-rr.csv curve-rr.json curve-rr.svg summary.json summary.txt summary.md report.html; do
	cp "$T/r/$f" "$T/$f.orig"
	rm "$T/r/$f"
done
"$IOCURVE" report "$T/r" > "$T/report.out" || fail "iocurve report runs"
same_bytes() {
	for f in curve-rr.csv curve-rr.json curve-rr.svg summary.json summary.txt summary.md report.html; do
		cmp "$T/$f.orig" "$T/r/$f" || return 1
	done
}
check "iocurve report rebuilds byte-identical derived files from intervals.jsonl" same_bytes
python3 - "$T/r/curve-rr.svg" <<'PY' || fail "the SVG parses and has one point per step"
import sys, xml.dom.minidom
doc = xml.dom.minidom.parse(sys.argv[1])
steps = [c for c in doc.getElementsByTagName("circle") if c.getAttribute("class") == "step"]
rows = open(sys.argv[1].replace(".svg", ".csv")).read().strip().splitlines()[1:]
assert len(steps) == len(rows), (len(steps), len(rows))
PY
ok "the SVG parses as XML with one point per step"
# steady: {extend: N}: a steady step ends as planned, an overloaded one is flagged. The
# SLO lies far from the steady step's 1 ms (one whose 95% interval holds the SLO runs
# on for evidence: tests/integration/straddle.sh).
cat > "$T/steady.yaml" <<YAML
campaign: steady
agents: {local: 1}
target: {sim: {servers: 4, service_time: 1ms}}
queue_depth: 64
interval: 200ms
warmup: 400ms
measure: 1s
steady: {extend: 5}
slo: {latency: 10ms}
workloads:
  - {name: st, rw: randread, load: {steps: [2000, 6000]}}
YAML
"$IOCURVE" run "$T/steady.yaml" --out "$T/s" > "$T/s.out" 2> "$T/s.err" ||
	{ cat "$T/s.out" "$T/s.err"; fail "the steady campaign runs"; }
python3 - "$T/s" <<'PY' || { cat "$T/s.out"; fail "steady extension"; }
import csv, json, sys
d = sys.argv[1]
import ivlines
lines = ivlines.lines(d + "/intervals.jsonl")
windows = {l["step"]: (l["window_from"], l["window_to"]) for l in lines if "window_from" in l}
last = max(l["interval"] for l in lines if l.get("step") == 0 and "interval" in l)
print(f"# windows {windows}; step 1 ran to interval {last}")
assert windows[0] == (2, 7), "the steady step is measured over its planned window"
assert last <= 7, "and ended without its extension"
rows = {r["step"]: r for r in csv.DictReader(open(d + "/curve-st.csv"))}
assert rows["1"]["steady"] == "true"
assert rows["2"]["steady"] == "false", "an overloaded step (backlog growing) is not steady"
PY
ok "a steady step ends on time; an overloaded one is flagged unsteady"
cp "$T/s/summary.json" "$T/s-summary.orig"
"$IOCURVE" report "$T/s" > /dev/null || fail "report on an extended run"
check "report rebuilds an extended run identically" cmp "$T/s-summary.orig" "$T/s/summary.json"
echo "# methodology: all passed"
