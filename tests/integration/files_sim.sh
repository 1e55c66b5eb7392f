#!/bin/sh
# SPDX-License-Identifier: MIT
# A known answer for file workloads: a metadata mix (70% stat, 10% create, 10% unlink, 5%
# readdir, 5% whole-file reads) on a simulated device of 16 servers whose every kind named
# takes an exponential 8 ms (its default, 64 ms, none of them), Poisson arrivals: an M/M/16
# queue of capacity 2,000 ops/s whose mean crosses a 10 ms SLO at 1,748 ops/s by Erlang C
# (rho 0.87), in knee-mmc's short form of steps. The ramp and refinement must find the
# knee within 3% of it, or, where the product says its knee is less precise (a band over
# 6% wide), hold the crossing in that band; and each kind's storage latency must be the
# queue's (within 10% of the whole's at the knee: FIFO servers serve every kind alike).
# Steps extend as the product's defaults let them (steady.extend left out): the CI's run
# with extend: 5 left two steps above the knee undecided, knee +3.47% in a band of
# 1,528-1,836 ops/s that held the crossing.
# Shorter service times failed beside a neighbour test on the CI's two CPUs: 4 servers of
# 250 us read 20% over Erlang C at 10,000 ops/s, 16 of 1 ms 27% over at 13,643 (knees
# -4.9% and -3.8%), the worker's issue lag 70-116 us in the mean and no step flagged: a
# client's stall releases its ops in a bunch, which so short a queue holds as the
# device's own wait (docs/methodology.md, Open work). At 8 ms a bunch is a small part of
# the wait, and at 1,748 ops/s its client leaves the CPUs to its neighbour (64 servers of
# 8 ms at knee-mmc's 7,500 ops/s beside knee-mmc held the host 100% busy, and both were
# called client-bound).
. "$(dirname "$0")/lib.sh"

cat > "$T/fmmc.yaml" <<YAML
campaign: fmmc
agents: {local: 1}
target:
  sim:
    servers: 16
    service: exponential
    service_time: {default: 64ms, stat: 8ms, create: 8ms, unlink: 8ms, readdir: 8ms,
                   read-file: 8ms}
arrivals: poisson
workers: 1
queue_depth: 1024
interval: 400ms
warmup: 2s
measure: 3200ms
slo: {latency: 10ms}
fileset: {dirs: 10, files: 100, size: 4KiB}
workloads:
  - name: meta
    mix:
      - {name: stat, share: 70, op: stat}
      - {name: create, share: 10, op: create}
      - {name: unlink, share: 10, op: unlink}
      - {name: readdir, share: 5, op: readdir}
      - {name: read, share: 5, rw: read-file}
    load: {ramp: {start: 1200, factor: 1.2}, refine: 4}
YAML
"$IOCURVE" run "$T/fmmc.yaml" --out "$T/r" > "$T/r.out" 2> "$T/r.err" ||
	{ cat "$T/r.out" "$T/r.err"; fail "the metadata M/M/16 campaign runs"; }
ok "the metadata M/M/16 campaign runs on the sim"
python3 - "$T/r" <<'PY' || { cat "$T/r.out"; fail "the metadata mix's knee within 3% of Erlang C"; }
import json, sys
from queueing import crossing, erlang_c_mean
d = sys.argv[1]
want = crossing(16, 125.0, 10e-3)
assert abs(want - 1748) < 1, want
steps = sorted(json.load(open(d + "/curve-meta.json"))["steps"], key=lambda p: p["step"])
for s in steps:
    print(f"# step {s['step']}: offered {s['offered_ops']:.0f} storage mean "
          f"{s.get('service_mean_us', 0):.0f}us (Erlang C "
          f"{1e6 * erlang_c_mean(16, min(s['offered_ops'], 1999), 125.0):.0f}us) {s['verdict']}")
w = json.load(open(d + "/summary.json"))["workloads"][0]
print(f"# knee {w['knee_ops']} ({w['knee_kind']}); Erlang C crossing {want:.0f} "
      f"({100 * (w['knee_ops'] / want - 1):+.2f}%)")
# The product's claim is its knee and its 95% band: the crossing must lie in the band, and
# the knee within 3% (the method's target) unless the product says it is not that precise
# (a band over 6% wide, steps above it undecided), as knee-mmc holds its own knee.
band = w["knee_band"]
print(f"# band {band}, {w['knee_precision']}")
wide = band and band[1] / band[0] - 1 > 0.06
assert abs(w["knee_ops"] / want - 1) <= 0.03 or (wide and band[0] <= want <= band[1]), \
    (w["knee_ops"], want, band)
pk = w["parts_at_knee"]
whole = [s for s in steps if s["step"] == pk["step"]][0]
# Each kind's mean against the whole's, by batch means over the step's measured intervals:
# a queue's waits are correlated, so a 5% part's ~1,000 operations hold far fewer
# independent samples than their count; a kind is served alike when its mean is within
# 10% of the whole's, or its difference from it lies within the 99% interval of the
# intervals' differences (Student's t; the CI's run: readdir -10.2%, 275 operations in 8
# intervals of the knee's step, -949 us against a standard error of 338).
from ivlines import records
ivs = [r for r in records(d + "/intervals.jsonl")
       if r.get("agent") == "*" and not r.get("warmup") and r["step"] == pk["step"] - 1 and "parts" in r]
tot = [(sum(q["service"]["sum_ns"] for q in r["parts"]), sum(q["service"]["count"] for q in r["parts"])) for r in ivs]
def mid(i):  # a bin's midpoint, from its index (common/hist.h)
    return i if i < 128 else ((128 + i % 128) << (i // 128 - 1)) + (1 << (i // 128 - 1)) / 2
def var_ns2(h):  # the operations' own variance, from their histogram
    b = h["bins"]
    m = h["sum_ns"] / h["count"]
    return max(0.0, sum(c * mid(i) ** 2 for i, c in zip(b[0::2], b[1::2])) / h["count"] - m * m)
for k, p in enumerate(pk["parts"]):
    print(f"# {p['name']} ({p['rw']}): {p['ops']} ops/s, storage mean {p['storage_mean_us']}us, "
          f"errors {p['errors']}")
    assert p["errors"] == 0, p
    use = [(r["parts"][k]["service"], t) for r, t in zip(ivs, tot)
           if r["parts"][k]["service"]["count"] > 0 and t[1] > 0]
    diffs = [h["sum_ns"] / h["count"] - t[0] / t[1] for h, t in use]
    n = len(diffs)
    mean = sum(diffs) / n
    se_batch = (sum((x - mean) ** 2 for x in diffs) / (n - 1) / n) ** 0.5
    # The batch means' spread over so few intervals is itself noisy (the CI's failed run:
    # readdir -1,045 us over 8 intervals "of standard error 261 us", where its 248
    # operations' own spread gives 414, the other kinds' the batch means' within 30%; a
    # 30 s step's 2,336 readdirs read -2.6% and +0.1% of the whole's in two runs). Waits that go together only add to the operations' own
    # spread, so that spread, as if they were independent, is a floor under the error:
    # per interval var(kind - whole) = var(op) * (1/n - 1/N), the kind within the whole.
    se_ops = (sum(var_ns2(h) * (1 / h["count"] - 1 / t[1]) for h, t in use) / n ** 2) ** 0.5
    se = max(se_batch, se_ops)
    rel = p["storage_mean_us"] / whole["service_mean_us"] - 1
    print(f"#   {100 * rel:+.1f}% of the whole's; over {n} intervals {mean / 1e3:+.0f} us, "
          f"standard error {se / 1e3:.0f} us (batch means {se_batch / 1e3:.0f}, "
          f"the operations' {se_ops / 1e3:.0f})")
    assert n >= 2, (p["name"], n)
    t99 = next(t for dof, t in ((60, 2.660), (30, 2.750), (20, 2.845), (15, 2.947), (12, 3.055),
                                (10, 3.169), (9, 3.250), (8, 3.355), (7, 3.499), (6, 3.707),
                                (5, 4.032), (4, 4.604), (3, 5.841), (2, 9.925), (1, 63.66))
               if n - 1 >= dof)
    assert abs(rel) <= 0.10 or abs(mean) <= t99 * se, (p["name"], rel, mean, se, t99)
PY
ok "the metadata mix's knee is Erlang C's within 3% (or its band holds it, as stated), every kind served in its own time"
