#!/bin/sh
# SPDX-License-Identifier: MIT
# The answer repeats: one M/M/4 sim campaign run three times back to back gives knee
# bands (summary.json knee_band) that overlap pairwise. A run whose client was
# disturbed may say so instead (knee_lower_bound, "client-bound" in its summary): its
# knee is then only a lower bound, which must not lie above another run's band.
# The default suite measures 1 s steps of 5 intervals; the long suite's form
# (repeat-bands-long) the 2 s of 8 a user's campaign would (REPEAT_BANDS_INTERVAL,
# REPEAT_BANDS_WARMUP, REPEAT_BANDS_MEASURE).
. "$(dirname "$0")/lib.sh"
INTERVAL=${REPEAT_BANDS_INTERVAL:-200ms}
WARMUP=${REPEAT_BANDS_WARMUP:-400ms}
MEASURE=${REPEAT_BANDS_MEASURE:-1s}

cat > "$T/c.yaml" <<YAML
campaign: bands
agents: {local: 1}
target: {sim: {servers: 4, service_time: 500us, service: exponential}}
arrivals: poisson
queue_depth: 64
interval: $INTERVAL
warmup: $WARMUP
measure: $MEASURE
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

# Between runs: the third run's summary sets its knee beside the two before it (newest
# first), with the overlap the test finds itself, and says so in summary.txt.
python3 - "$T" <<'PY' || fail "the third run's summary compares it with the two before"
import json, sys
import summarytxt
t = sys.argv[1]
s = json.load(open(f"{t}/r3/summary.json"))
b = s["between_runs"]
assert [r["dir"] for r in b["runs"]] == ["r2", "r1"], b["runs"]
w = b["workloads"]["rr"]
mine = s["workloads"][0]
def knee_of(k, s):
    """between_runs' entry k against summary.json's workload s: null exactly without a knee."""
    if s["knee_kind"] == "none":
        assert k is None, (k, s["knee_kind"])
    else:
        assert k["knee"] == s.get("knee_mean") or k["knee"] == s["knee_ops"], (k, s["knee_ops"])
knee_of(w["this"], mine)
for i, r in enumerate("21"):
    e = json.load(open(f"{t}/r{r}/summary.json"))["workloads"][0]
    knee_of(w["earlier"][i], e)
    if w["overlap"][i] is not None:
        a, c = w["this"]["band"], w["earlier"][i]["band"]
        assert w["overlap"][i] == (a[0] <= c[1] and c[0] <= a[1]), (a, c, w["overlap"][i])
txt = summarytxt.joined(f"{t}/r3/summary.txt")
assert "Between runs:" in txt and "(newest first: r2, r1)" in txt, txt
assert json.load(open(f"{t}/r1/summary.json"))["between_runs"] is None
PY
ok "the third run's summary sets its knee beside the two runs before it"

# An earlier run whose band lies far above (r0: r1 with its band moved and an earlier
# start), one of another setup (skipped), and planted junk are told apart by report.
cp -r "$T/r1" "$T/r0"
python3 - "$T/r0" <<'PY'
import json, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
w = s["workloads"][0]
w["knee_ops"], w["knee_band"], w["knee_kind"] = 1e6, [9e5, 1.1e6], "measured"
w["knee_mean"] = w["knee_mean_ci95"] = None
w.pop("knee_lower_bound", None)
json.dump(s, open(d + "/summary.json", "w"))
m = json.load(open(d + "/meta.json"))
m["started"] = "2000-01-01 00:00:00Z"
json.dump(m, open(d + "/meta.json", "w"))
PY
cp -r "$T/r1" "$T/other"
sed -i 's/service_time: 500us/service_time: 400us/' "$T/other/plan.yaml"
mkdir "$T/junk" && printf '{"campaign": "bands", "status": "complete"' > "$T/junk/summary.json"
ln -s /etc/passwd "$T/junk/plan.yaml"
# r3 recorded the runs it found when it began (meta.json): report says the same, whatever
# the root holds since.
python3 - "$T/r3" <<'PY' || fail "meta.json records the earlier runs"
import json, sys
m = json.load(open(sys.argv[1] + "/meta.json"))
assert m["earlier_runs"] == ["r2", "r1"] and m["earlier_runs_skipped"] == 0, m
PY
cp "$T/r3/summary.json" "$T/r3-summary.orig"
"$IOCURVE" report "$T/r3" > "$T/rep0.out" 2>&1 || { cat "$T/rep0.out"; fail "report r3"; }
check "report rebuilds r3's summary byte for byte beside runs added since" \
	cmp "$T/r3-summary.orig" "$T/r3/summary.json"
# Results of a release that did not record them: the root is searched.
python3 - "$T/r3" <<'PY'
import json, sys
p = sys.argv[1] + "/meta.json"
m = json.load(open(p))
del m["earlier_runs"], m["earlier_runs_skipped"]
json.dump(m, open(p, "w"), indent=2)
PY
"$IOCURVE" report "$T/r3" > "$T/rep.out" 2>&1 || { cat "$T/rep.out"; fail "report r3"; }
python3 - "$T" <<'PY' || { cat "$T/rep.out"; fail "report tells a far band, another setup and junk apart"; }
import json, sys
t = sys.argv[1]
b = json.load(open(f"{t}/r3/summary.json"))["between_runs"]
dirs = [r["dir"] for r in b["runs"]]
assert dirs == ["r2", "r1", "r0"], dirs
assert b["skipped"] == 1, b  # "other": the same campaign on another setup
w = b["workloads"]["rr"]
assert w["earlier"][2]["knee"] == 1e6, w["earlier"][2]
if w["this"] is not None and w["this"]["band"] is not None and not w["this"]["lower_bound"]:
    assert w["overlap"][2] is False, w
    out = open(f"{t}/rep.out").read()
    assert "do NOT overlap" in out, out
print("# earlier runs", dirs, "overlap", w["overlap"], "spread", w["spread_pct"])
PY
ok "report sets a far band apart, skips another setup and passes over planted junk"
echo "# repeat-bands: all passed"
