#!/bin/sh
# SPDX-License-Identifier: MIT
# The answer repeats: one M/M/4 sim campaign run three times back to back gives knee
# bands (summary.json knee_band) that overlap pairwise. A run whose client was
# disturbed may say so instead (knee_lower_bound, "client-bound" in its summary): its
# knee is then only a lower bound, which must not lie above another run's band.
. "$(dirname "$0")/lib.sh"

cat > "$T/c.yaml" <<YAML
campaign: bands
agents: {local: 1}
target: {sim: {servers: 4, service_time: 500us, service: exponential}}
arrivals: poisson
queue_depth: 64
interval: 250ms
warmup: 500ms
measure: 2s
slo: {latency: 1ms}
workloads:
  - {name: rr, rw: randread, load: {ramp: {start: 3000, factor: 1.5}, refine: 3}}
YAML
for r in 1 2 3; do
	"$IOCURVE" run "$T/c.yaml" --out "$T/r$r" > "$T/r$r.out" 2> "$T/r$r.err" ||
		{ cat "$T/r$r.out" "$T/r$r.err"; fail "run $r"; }
done
ok "three runs of one campaign"

python3 - "$T" <<'PY' || fail "the three runs' knee bands overlap pairwise"
import itertools, json, sys
t = sys.argv[1]
runs = []
for r in "123":
    s = json.load(open(f"{t}/r{r}/summary.json"))["workloads"][0]
    md = open(f"{t}/r{r}/summary.md").read()
    band = s.get("knee_band")
    lower = bool(s.get("knee_lower_bound"))
    print(f"# run {r}: knee {s['knee_ops']} band {band} lower bound {lower} "
          f"confirmed {s.get('knee_confirmed')}")
    if lower:
        assert "client-bound" in md, md
    runs.append((s["knee_ops"], band, lower))
for (ka, ba, la), (kb, bb, lb) in itertools.combinations(runs, 2):
    if la and lb:
        continue  # two lower bounds say nothing of each other
    if la or lb:
        # a lower bound must not lie above the other run's band
        k, b = (ka, bb) if la else (kb, ba)
        assert b is None or k is None or b[1] is None or k <= b[1], (k, b)
        continue
    assert ba is not None and bb is not None, (ba, bb)
    lo_a = ba[0] if ba[0] is not None else 0
    lo_b = bb[0] if bb[0] is not None else 0
    assert lo_a <= bb[1] and lo_b <= ba[1], (ba, bb)
PY
ok "the three runs' knee bands overlap pairwise"
