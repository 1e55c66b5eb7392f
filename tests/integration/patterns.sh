#!/bin/sh
# SPDX-License-Identifier: MIT
# Access patterns end to end on real files: read/write mixes, written data's
# compressibility, poisson arrivals and a closed-loop max step.
. "$(dirname "$0")/lib.sh"

cat > "$T/mix.yaml" <<YAML
campaign: patterns
agents: {local: 1}
target: {path: $T/target, size: 16MiB}
workers: 2
queue_depth: 8
interval: 200ms
warmup: 200ms
measure: 1s
data: {compress: 60}
workloads:
  - {name: randrw, rw: randrw, load: {steps: [2000]}}
  - {name: seqmix, rw: rw, read_pct: 30, block_size: 16KiB, load: {steps: [1000]}}
  - {name: poisson, rw: randread, arrivals: poisson, random: zipf:1.1, load: {steps: [1500]}}
  - {name: hot, rw: randwrite, random: hotspot:10/90, working_set: 8MiB, load: {steps: [1000, max]}}
YAML
"$IOCURVE" run "$T/mix.yaml" --out "$T/r" > "$T/r.out" 2> "$T/r.err" ||
	{ cat "$T/r.out" "$T/r.err"; fail "the pattern campaign runs"; }
ok "the pattern campaign runs"
python3 - "$T/r" <<'PY' || { cat "$T/r.out"; fail "curves match the patterns asked for"; }
import csv, sys
rows = {(r["workload"], r["step"]): r for r in csv.DictReader(open(sys.argv[1] + "/curve.csv"))}
def share(w):
    r = rows[(w, "1")]
    return 100.0 * int(r["reads"]) / int(r["ops"])
print(f"# randrw reads {share('randrw'):.1f}%, seqmix reads {share('seqmix'):.1f}%")
# Each operation is a read with probability p: the share of n is binomial, sd sqrt(p(1-p)/n).
# 4 sd: a wrong mix (50% for 30%) fails, chance alone (1 run in 15,000) does not.
def within(w, pct):
    n, p = int(rows[(w, "1")]["ops"]), pct / 100
    return abs(share(w) - pct) <= 400 * (p * (1 - p) / n) ** 0.5
assert within("randrw", 75), "randrw defaults to 75% reads"
assert within("seqmix", 30), "rw with read_pct 30"
assert int(rows[("poisson", "1")]["reads"]) == int(rows[("poisson", "1")]["ops"])
assert int(rows[("hot", "1")]["reads"]) == 0
for key, r in rows.items():
    if r["load"] == "rate":
        off, ach = float(r["offered_ops"]), float(r["achieved_ops"])
        # Poisson arrivals vary by sqrt(N) operations in a window: allow 4 sigma.
        n = off * float(r["measured_s"])
        tol = max(0.03, 4 / n ** 0.5) if key[0] == "poisson" else 0.03
        assert abs(ach - off) / off < tol, f"{key}: achieved {ach} of {off} (tolerance {tol:.3f})"
mx = rows[("hot", "2")]
assert mx["load"] == "max" and float(mx["achieved_ops"]) > 1000, mx
print(f"# max step: {float(mx['achieved_ops']):.0f} ops/s closed loop")
PY
ok "mixes, arrivals and the max step behave as asked"
python3 - "$T/target/local-0-w0.dat" <<'PY' || fail "written data compresses as asked"
import sys, zlib
data = open(sys.argv[1], "rb").read()
size = len(zlib.compress(data, 6))
pct = 100.0 * (1 - size / len(data))
print(f"# target file compresses by {pct:.1f}% (asked 60%)")
assert abs(pct - 60) <= 5, pct
PY
ok "the target's data compresses by the requested 60% (layout and writes)"
echo "# patterns: all passed"
