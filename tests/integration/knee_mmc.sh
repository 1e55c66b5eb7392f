#!/bin/sh
# SPDX-License-Identifier: MIT
# A known answer for the whole method: an M/M/64 queue (sim, exponential service of 8 ms
# mean, Poisson arrivals) whose mean latency crosses a 9 ms SLO at 7496 ops/s by Erlang C
# (rho 0.937). Ramp, refine and the confirmation step must find the knee within 3% of it
# (every measured interval counts since 0.2.0, stalls included: 2.86% in a dry CI); each
# step's interval must hold Erlang C's mean as often as docs/methodology.md says it does
# (misses that intervals so stated reach in 1 run in 200 at most), and the knee's band must
# hold the crossing unless such a miss explains it.
# Near rho 0.94 the queue's sample mean is slow to settle: with 2 s steps it came within
# +2.05% in one of 5 runs, and with 4 s steps a window at rho 0.92 still trended (one run
# judged 7380 unsteady and put the knee at 7335, -2.15%). So steps measure 6 s after 2 s
# of warm-up and extend up to 2 s more while they trend, as a user's campaign would; the
# curve is steep there (3.3 us more latency per op/s), so latency noise moves the knee
# little. Three runs: -0.35%, -0.14%, +1.48%.
# That is the long suite's form (knee-mmc-long). The default suite's short form measures
# 3.2 s steps and refines 4 times, with the same claims (KNEE_MMC_MEASURE,
# KNEE_MMC_WARMUP, KNEE_MMC_START and KNEE_MMC_REFINE set the form): through the
# undecided steps between the met step and the violation its knee came within 0.41% in
# three runs. A 1.2 s warm-up put knees at +1.22 / +2.70 / -1.16% (a queue that has not
# settled reads low): put back, not the bound. A ramp from 6,000 once judged 7,560 met at
# 8.55 ms where Erlang C gives 9.26 ms, a band that missed the crossing: that step's
# interval was in its 1-in-20 tail (below), which the check now names instead of failing.
. "$(dirname "$0")/lib.sh"
MEASURE=${KNEE_MMC_MEASURE:-3200ms}
WARMUP=${KNEE_MMC_WARMUP:-2s}
START=${KNEE_MMC_START:-5000}
REFINE=${KNEE_MMC_REFINE:-4}

cat > "$T/mmc.yaml" <<YAML
campaign: mmc
agents: {local: 1}
target: {sim: {servers: 64, service_time: 8ms, service: exponential}}
arrivals: poisson
workers: 1
queue_depth: 1024
interval: 400ms
warmup: $WARMUP
measure: $MEASURE
slo: {latency: 9ms}
steady: {extend: 5}
workloads:
  - {name: rr, rw: randread, load: {ramp: {start: $START, factor: 1.2}, refine: $REFINE}}
YAML
"$IOCURVE" run "$T/mmc.yaml" --out "$T/r" > "$T/r.out" 2> "$T/r.err" ||
	{ cat "$T/r.out" "$T/r.err"; fail "the M/M/64 campaign runs"; }
ok "the M/M/64 campaign runs"
python3 - "$T/r" <<'PY' || { cat "$T/r.out"; fail "the knee within 3% of Erlang C's crossing, which lies in its band"; }
import json, math, sys
d = sys.argv[1]

from queueing import crossing, erlang_c_mean

lo = crossing(64, 125.0, 9e-3)
want = lo
for s in sorted(json.load(open(d + "/curve-rr.json"))["steps"], key=lambda p: p["step"]):
    print(f"# step {s['step']}: offered {s['offered_ops']:.0f} mean {s['mean_us']:.0f}us "
          f"(Erlang C {1e6 * erlang_c_mean(64, min(s['offered_ops'], 7999), 125.0):.0f}us) "
          f"lag {s.get('lag_mean_us', 0):.0f}us {s['verdict']}")
w = json.load(open(d + "/summary.json"))["workloads"][0]
print(f"# knee {w['knee_ops']} ({w['knee_kind']}, confirmed {w['knee_confirmed']}, "
      f"{w['knee_precision']}); Erlang C crossing {want:.0f} ({100 * (w['knee_ops'] / want - 1):+.2f}%)")
assert abs(want - 7496) < 1, want
# The product's claim is its band: the crossing must lie in it (the client's lag allowed
# for), and the knee within 3% (the method's target) unless the summary says the client
# could not measure it.
band = w["knee_band"]
print(f"# band {band}")
if "client-bound" in open(d + "/summary.md").read():
    assert w.get("knee_lower_bound") and w["knee_ops"] <= want * 1.03, w
else:
    # Latency counts from the intended start, so the published metric is the device's
    # plus the client's lag (under 10% of the SLO, or the step is client-bound): the
    # crossing of that metric lies between Erlang C's at SLO - lag and at the SLO.
    steps = json.load(open(d + "/curve-rr.json"))["steps"]
    lag_s = max((s["lag_mean_us"] for s in steps if s["offered_ops"] > 0.9 * want and
                 s["offered_ops"] < 1.1 * want), default=0) / 1e6
    lagged = crossing(64, 125.0, 9e-3 - lag_s)
    print(f"# the client's lag near the knee {lag_s * 1e6:.0f} us: crossing {lagged:.0f}-{want:.0f}")
    # Each step's verdict is its own 95% interval of the metric: the true metric (Erlang
    # C's mean at the offered rate, plus up to the step's lag) lies outside it in about 1
    # step in 20 up to 90% of the capacity. Nearer saturation a 400 ms interval's mean is
    # skewed (a few hold a long queue), and 8 of them often lack one: the interval missed
    # low in 6 of 34 steps at 93.4% of the capacity (fixed steps of this campaign's form,
    # and the CI's run: 7,470 and 7,490 ops/s read 8,550 and 8,592 us against 8,913 and
    # 8,977), which docs/methodology.md states; 1 of 17 at 87.5-90%. The check holds each
    # step to the coverage the product states for its load (95% up to 90% of capacity,
    # 82% above, to 97%, where the queue settles within the warm-up) and fails on a count
    # of misses such intervals reach in under 1 run in 200 (a fixed "at most one" failed
    # right intervals in 4.4% of runs). The band is built from those verdicts: it holds
    # the crossing unless a step's interval missed.
    missed, p_miss = [], []
    for s in steps:
        if s["offered_ops"] <= 0 or s["offered_ops"] > 0.97 * 8000 or not s.get("metric_hi_us"):
            continue
        p_miss.append(0.05 if s["offered_ops"] <= 0.90 * 8000 else 0.18)
        e = 1e6 * erlang_c_mean(64, s["offered_ops"], 125.0)
        if s["metric_hi_us"] < e or s["metric_lo_us"] > e + s["lag_mean_us"]:
            missed.append((s["step"], s["offered_ops"], round(s["metric_lo_us"]), round(s["metric_hi_us"]), round(e)))
    print(f"# steps whose 95% interval missed Erlang C's mean (step, offered, lo, hi, mean us): {missed}")
    dist = [1.0]  # P(k misses) over the checked steps, each at its stated coverage
    for p in p_miss:
        dist = [a * (1 - p) + (dist[k - 1] * p if k else 0) for k, a in enumerate(dist + [0])]
    tail = lambda k: sum(dist[k:])
    allowed = next(k for k in range(len(dist)) if tail(k + 1) < 0.005)
    print(f"# {len(missed)} of {len(p_miss)} checked steps missed; intervals as the product "
          f"states reach {allowed + 1} in {100 * tail(allowed + 1):.2f}% of runs")
    assert len(missed) <= allowed, f"{len(missed)} of {len(p_miss)} steps' intervals missed the true mean: narrower than stated"
    held = band and (band[0] or 0) <= want and lagged <= (band[1] or math.inf)
    if not held:
        print(f"# the band {band} misses the crossing: step {missed[0][0] if missed else '?'}'s interval missed its mean")
    assert held or missed, (band, want)
    assert abs(w["knee_ops"] / want - 1) <= 0.03, (w["knee_ops"], want)
PY
ok "ramp, refine and confirmation find the M/M/64 knee within 3% of Erlang C's crossing, in its band (or a step's 95% interval missed, 1 in 20), no more steps' intervals missing than right ones would"
