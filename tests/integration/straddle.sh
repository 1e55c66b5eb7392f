#!/bin/sh
# SPDX-License-Identifier: MIT
# Evidence where a step is ambiguous: with steady: {extend: N}, a steady step whose SLO
# metric's 95% interval still holds the SLO's latency runs on (more intervals narrow
# it, and the knee's band with it); a step ends before its extension runs out only
# when its interval lies on one side of the SLO.
. "$(dirname "$0")/lib.sh"

# M/M/1 at 20% load: mean latency 1 ms / (1 - 0.2) = 1.25 ms, the SLO. A planned window
# of 5 x 200 ms holds ~1,000 operations: the mean's 95% interval is about +-0.1 ms, so it
# straddles 1.25 ms unless the sample strays.
cat > "$T/straddle.yaml" <<YAML
campaign: straddle
agents: {local: 1}
target: {sim: {servers: 1, service_time: 1ms, service: exponential}}
arrivals: poisson
queue_depth: 64
interval: 200ms
warmup: 400ms
measure: 1s
steady: {extend: 6}
slo: {latency: 1250us}
workloads:
  - {name: mm1, rw: randread, load: {steps: [200, 200, 200]}}
YAML
"$IOCURVE" run "$T/straddle.yaml" --out "$T/r" > "$T/r.out" 2> "$T/r.err" ||
	{ cat "$T/r.out" "$T/r.err"; fail "the M/M/1 campaign runs"; }
ok "the M/M/1 campaign runs"

python3 - "$T/r" <<'PY' || { cat "$T/r.out"; fail "a window cut early excludes the SLO"; }
import json, sys
import ivlines
d = sys.argv[1]
slo = 1250.0
steps = json.load(open(d + "/curve-mm1.json"))["steps"]
lines = ivlines.lines(d + "/intervals.jsonl")
windows = {l["step"]: (l["window_from"], l["window_to"]) for l in lines if "window_from" in l}
ran_on = 0
for k, pt in enumerate(steps):
    frm, to = windows[k]
    lo, hi = pt["metric_lo_us"], pt["metric_hi_us"]
    print(f"# step {k + 1}: window [{frm}, {to}), mean {pt['mean_us']:.0f} us, "
          f"95% interval {lo:.0f}-{hi:.0f} us, steady {pt['steady']}")
    assert lo > 0 and hi > lo, pt
    # planned: 2 warm-up + 5 measured; the extension reaches 13
    if to < 13:
        assert pt["steady"], f"step {k + 1} ended early but unsteady"
        assert hi <= slo or lo > slo, \
            f"step {k + 1} ended at {to} with its interval {lo:.0f}-{hi:.0f} holding the SLO"
    ran_on += to > 7
print(f"# {ran_on} of {len(steps)} steps ran past their planned window")
PY
ok "every step cut before its extension ran out has an interval on one side of the SLO"
echo "# straddle: all passed"
