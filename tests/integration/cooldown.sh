#!/bin/sh
# SPDX-License-Identifier: MIT
# No carry-over between steps: after a step that fell behind (1 server x 1 ms offered
# 1,500 ops/s, twice), the next step starts only after a probe's service time is back within
# cooldown.margin of the first step's; the step's point says how long that took and how
# it ended, a step that followed no overload has none, and report rebuilds it all
# (two steps in a row that cooled down each keep their own).
. "$(dirname "$0")/lib.sh"

cat > "$T/cool.yaml" <<YAML
campaign: cool
agents: {local: 1}
target: {sim: {servers: 1, service_time: 1ms}}
queue_depth: 64
interval: 200ms
warmup: 400ms
measure: 1s
slo: {latency: 5ms}
cooldown: {margin: 20%, max: 5s}
workloads:
  - {name: c, rw: randread, load: {steps: [500, 600, 1500, 1500, 500]}}
YAML
"$IOCURVE" run "$T/cool.yaml" --out "$T/r" > "$T/r.out" 2> "$T/r.err" ||
	{ cat "$T/r.out" "$T/r.err"; fail "the campaign runs"; }
ok "the campaign runs"
python3 - "$T/r" <<'PY' || { cat "$T/r.out" "$T/r.err"; fail "the step after the overload cooled down first"; }
import json, sys
d = sys.argv[1]
steps = {p["step"]: p for p in json.load(open(d + "/curve-c.json"))["steps"]}
for n, p in sorted(steps.items()):
    print(f"# step {n}: offered {p['offered_ops']:.0f} achieved {p['achieved_ops']:.0f} "
          f"{p['verdict']}; cooldown {p['cooldown_ms']} ms {p['cooldown']!r}")
assert "behind" in steps[3]["verdict"], steps[3]["verdict"]
assert steps[1]["cooldown"] == "" and steps[1]["cooldown_ms"] == 0, steps[1]
# A step after one that fell behind cooled down first (at least one probe: the 100 ms
# lead plus its 200 ms interval, at most cooldown.max and that probe); a step after a
# step that kept up did not. (A busy client can leave a lower step behind too.)
for n in (2, 3, 4, 5):
    prev = steps[n - 1]
    if "behind" in prev["verdict"]:
        assert steps[n]["cooldown"] in ("recovered", "timeout"), steps[n]
        assert 300 <= steps[n]["cooldown_ms"] <= 5300, steps[n]["cooldown_ms"]
    elif prev["valid"]:
        assert steps[n]["cooldown"] == "" and steps[n]["cooldown_ms"] == 0, steps[n]
import ivlines
lines = ivlines.lines(d + "/intervals.jsonl")
cool = [l for l in lines if "cooldown_ms" in l]
assert [l["step"] + 1 for l in cool] == [n for n in (2, 3, 4, 5) if steps[n]["cooldown"]], cool
# no line of the probe: the last step's (4 from 0) records are its 7 intervals, each
# once from the agent and once merged
recs = sorted(l["interval"] for l in lines if l.get("step") == 4 and "interval" in l)
assert recs == sorted(list(range(7)) * 2), recs
PY
ok "the step after the overload cooled down first, and says so"

for f in curve-c.json summary.json; do cp "$T/r/$f" "$T/$f.orig"; rm "$T/r/$f"; done
"$IOCURVE" report "$T/r" > "$T/rep.out" 2>&1 || { cat "$T/rep.out"; fail "report runs"; }
check "report rebuilds curve-c.json byte for byte" cmp "$T/curve-c.json.orig" "$T/r/curve-c.json"
check "report rebuilds summary.json byte for byte" cmp "$T/summary.json.orig" "$T/r/summary.json"
