#!/bin/sh
# SPDX-License-Identifier: MIT
# The simulated device end to end: its known capacity gives a known knee, and a stall
# shows up in the latency of every operation queued behind it (no coordinated omission).
. "$(dirname "$0")/lib.sh"

# 2 agents x 2 workers, each worker on its own device of 4 servers x 1ms: 16,000 ops/s.
cat > "$T/knee.yaml" <<YAML
campaign: simknee
agents: {local: 2}
target: {sim: {servers: 4, service_time: 1ms, jitter: 10%}}
workers: 2
queue_depth: 64
interval: 200ms
warmup: 400ms
measure: 1s
# A busy client (a dry CI run judged 12k and 14k unsteady on 15% swings) gets what a
# user would give it: up to 5 more intervals for the window to settle.
steady: {extend: 5}
slo: {latency: 3ms}
workloads:
  - {name: rr, rw: randread, load: {steps: [4000, 8000, 12000, 14000, 18000, 22000, max]}}
YAML
"$IOCURVE" run "$T/knee.yaml" --out "$T/r1" > "$T/r1.out" 2> "$T/r1.err" ||
	{ cat "$T/r1.out" "$T/r1.err"; fail "the sim campaign runs"; }
ok "the sim campaign runs"
python3 - "$T/r1" <<'PY' || { cat "$T/r1.out"; fail "the knee is where the device's capacity says"; }
import csv, sys, re
rows = list(csv.DictReader(open(sys.argv[1] + "/curve.csv")))
for r in rows:
    print("# step", r["step"], r["load"], "offered", r["offered_ops"], "achieved", r["achieved_ops"], "mean_us", r["mean_us"])
# a step whose client was disturbed after its retries is client-bound: not the device's
under = [r for r in rows if r["load"] == "rate" and float(r["offered_ops"]) <= 14000 and
         r["client_bound"] != "true"]
for r in under:
    off, ach = float(r["offered_ops"]), float(r["achieved_ops"])
    assert abs(ach - off) / off < 0.02, f"under capacity, achieved {ach} of {off}"
    # the service time, plus some queueing from the jitter near capacity and a busy client
    assert 900 < float(r["mean_us"]) < 2500, f"under capacity, mean {r['mean_us']} us is near the service time"
over = [r for r in rows if r["load"] == "rate" and float(r["offered_ops"]) >= 18000]
for r in over:
    assert float(r["achieved_ops"]) < 17000, f"over capacity, achieved {r['achieved_ops']}"
    assert float(r["mean_us"]) > 3000, "over capacity, latency grows"
for r in rows:
    # Operations the client owed but never issued: many above capacity (over 1%); below
    # it none, but for a client hiccup at the window's end (a dry CI run caught 26 of
    # 11,961, 2 ms of backlog at 12k ops/s, on this 2-core VM): at most 0.5%.
    over_cap = r["load"] == "rate" and float(r["offered_ops"]) > 16000
    missed, ops = int(r["missed"]), int(r["ops"])
    if r["client_bound"] == "true":
        continue
    if over_cap:
        assert missed > 0.01 * ops, f"step {r['step']}: missed {missed} of {ops}"
    else:
        assert missed <= 0.005 * ops, f"step {r['step']}: missed {missed} of {ops}"
peak = [r for r in rows if r["load"] == "max"][0]
# Closed loop at qd 64 on 4 servers: the full capacity, latency 16 ops deep.
assert 14500 < float(peak["achieved_ops"]) < 16500, f"max step achieved {peak['achieved_ops']}"
summary = open(sys.argv[1] + "/summary.md").read()
m = re.search(r"\| rr \| (>= )?([\d,]+) ops/s( \(95% band [^)]*\))? \|", summary)
# a disturbed client: no knee, or the knee a lower bound, and the summary says why
assert m or "client-bound" in summary, summary
lower = m is None or m.group(1) is not None
knee = int(m.group(2).replace(",", "")) if m else 0
print("# knee", knee, "(a lower bound: client-bound)" if lower else "")
assert not lower or "client-bound" in summary, summary
# Steps bracket the capacity at 14k..18k: the knee is the last valid step under it.
# 14k (87% of capacity, with jitter) may be undecided on a busy machine: then 12k.
assert (lower or 11500 <= knee) and knee <= 16500, f"knee {knee} ops/s, capacity 16000"
PY
ok "the knee sits at the device's capacity (16k ops/s)"

# One worker; its device stalls for 100ms once, 500ms into the measured second. retry: 0:
# the sim stalls once per worker, so a step re-run for a disturbed client would be quiet.
cat > "$T/stall.yaml" <<YAML
campaign: simstall
agents: {local: 1}
target: {sim: {servers: 4, service_time: 200us, stall: {after: 3000, for: 100ms}}}
workers: 1
queue_depth: 16
interval: 500ms
warmup: 1s
measure: 1s
retry: 0
workloads:
  - {name: rr, rw: randread, load: {steps: [2000]}}
YAML
"$IOCURVE" run "$T/stall.yaml" --out "$T/r2" > "$T/r2.out" 2> "$T/r2.err" ||
	{ cat "$T/r2.out" "$T/r2.err"; fail "the stall campaign runs"; }
python3 - "$T/r2" <<'PY' || fail "operations queued behind the stall carry its wait"
import json, sys
def low(i):
    return i if i < 128 else (128 + i % 128) << (i // 128 - 1)
lat = svc = 0
import ivlines
for r in ivlines.records(sys.argv[1] + "/intervals.jsonl"):
    if r["agent"] != "*" or r["warmup"]:
        continue
    b = r["latency"]["bins"]
    lat += sum(c for i, c in zip(b[0::2], b[1::2]) if low(i) >= 50_000_000)
    b = r["service"]["bins"]
    svc += sum(c for i, c in zip(b[0::2], b[1::2]) if low(i) >= 50_000_000)
print(f"# ops waiting >= 50ms: latency {lat}, service {svc}")
# 2000 ops/s: about 100 operations were due in the first 50ms of the stall. Only the 16
# in flight saw it as service time; the others waited for a queue slot, and still count it.
assert lat >= 80, lat
assert svc <= 20, svc
PY
ok "operations queued behind a 100ms stall carry its wait in their latency"
# A stall in the middle step of an otherwise easy curve: that step is not met, the ones
# above it meet the SLO again. One worker: 1000 ops/s for 3.5 s (3500 ops), then 2000
# ops/s: the stall starts 0.75 s into step 2's measured 2.5 s. The storage's latency of
# one 300 ms stall in one of five intervals has a wide 95% interval: the step is
# undecided (a stall that came once may not come again), or violated; either way the
# knee's band reaches below it. retry: 0: the sim stalls once per worker, so a step
# re-run for a disturbed client would be a quiet one; a disturbed client's step is then
# client-bound, and the product must say so rather than judge it. steady: {extend: 0}: the
# stall is one of the step's five intervals (extended, the step runs until the stall is
# diluted and its queue's wait, 16 slots given, makes it queue-bound: window.sh's case).
cat > "$T/nonmono.yaml" <<YAML
campaign: simnonmono
agents: {local: 1}
target: {sim: {servers: 4, service_time: 200us, stall: {after: 7000, for: 300ms}}}
workers: 1
queue_depth: 16
interval: 500ms
warmup: 1s
measure: 2500ms
steady: {extend: 0}
retry: 0
slo: {latency: 1ms}
workloads:
  - {name: rr, rw: randread, load: {steps: [1000, 2000, 3000, 4000]}}
YAML
"$IOCURVE" run "$T/nonmono.yaml" --out "$T/r3" > "$T/r3.out" 2> "$T/r3.err" ||
	{ cat "$T/r3.out" "$T/r3.err"; fail "the non-monotonic campaign runs"; }
python3 - "$T/r3" <<'PY' || { cat "$T/r3.out"; fail "a stalled middle step: non_monotonic, knee at or below it"; }
import json, sys
d = sys.argv[1]
w = json.load(open(d + "/summary.json"))["workloads"][0]
steps = json.load(open(d + "/curve-rr.json"))["steps"]
for s in steps:
    print(f"# step {s['step']}: offered {s['offered_ops']} mean {s['mean_us']}us {s['verdict']}")
# the response latency carries the stall's wait (no coordinated omission)
assert steps[1]["mean_us"] > 1000, "the stalled step's response mean is over the SLO"
if "client-bound" in steps[1]["verdict"]:
    # The client was disturbed in the stalled step too (beside busy loops): by the
    # product's rule the step is the client's, neither met nor violated, and said so.
    assert "client-bound" in open(d + "/summary.md").read()
    print("# the client was disturbed in the stalled step: client-bound said, not judged")
    sys.exit(0)
assert steps[1]["slo_verdict"] in ("undecided", "violated"), steps[1]
above = [s for s in steps[2:] if "client-bound" not in s["verdict"]]
assert all(s["slo_verdict"] == "met" for s in above), "the steps above meet it"
band = w["knee_band"]
print("# knee", w["knee_ops"], w["knee_kind"], "band", band, w["knee_precision"])
if steps[1]["slo_verdict"] == "violated":
    assert w["knee_ops"] <= 2000, w
    if above:
        assert w["non_monotonic"] is True, w
        assert "non-monotonic" in open(d + "/summary.txt").read()
        assert "NON-MONOTONIC" in open(d + "/report.html").read()
else:
    # undecided: the knee's band reaches down to the met step under it
    assert band is not None and (band[0] is None or band[0] <= 1000), w
    if w["knee_kind"] == "above_peak":
        assert "a step below it undecided: 95% band from 1,000" in open(d + "/summary.md").read()
PY
ok "a stall in a middle step: not met, the knee (or its band) at or below it"
echo "# sim: all passed"
