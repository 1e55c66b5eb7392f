#!/bin/sh
# SPDX-License-Identifier: MIT
# A ramp of replay speeds finds the knee of a trace of known rate on a sim of known
# capacity: a trace of 500 ops/s (1000 reads 2 ms apart) replayed on 2 workers, each a
# device of 2 servers of 950 us (4,210 ops/s in all, x8.42 of the trace). The ramp
# x1, x2, x4... stops at the first saturated step and refine bisects below it: the knee
# speed lies within 10% of 8.42, knee_speed x 500 is knee_ops within 1%, each step's
# speed in curve-trace.json and curve.csv is its offered rate over 500, and the summary
# says the knee as a speed, as the dashboard's finished list does (the run's events played
# into it). A rate workload beside it has a null knee_speed and no speed.
# Then a run of another trace (1200 reads 1,666 us apart, 600 ops/s) at x1: compare's
# setup warning names the change key by key (the trace's SHA-256, size, operations, x1
# rate; the speeds) and its table gives each run's knee speed beside its ops/s.
. "$(dirname "$0")/lib.sh"

python3 - "$T/trace.log" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("fio version 3 iolog\n0 /x add\n0 /x open\n")
    for i in range(1000):
        f.write(f"{i * 2000} /x read {(i * 7919 % 2048) * 4096} 4096\n")
    f.write("1998000 /x close\n")
PY
cat > "$T/speeds.yaml" <<YAML
campaign: speeds
agents: {local: 1}
target: {sim: {servers: 2, service_time: 950us}}
workers: 2
queue_depth: 16
interval: 100ms
warmup: 100ms
measure: 500ms
slo: {latency: 5ms}
workloads:
  - name: trace
    replay: {file: trace.log, format: fio-iolog}
    load: {speeds: {ramp: {start: 1, factor: 2, max_steps: 6}}, refine: 3}
  - {name: rate, rw: randread, block_size: 4KiB, load: {steps: [1000]}}
YAML
"$IOCURVE" check "$T/speeds.yaml" > "$T/check.out" 2>&1 ||
	{ cat "$T/check.out"; fail "check takes a ramp of speeds"; }
check "check says the ramp in speeds" grep -q \
	"load     ramp of speeds from x1 (500 ops/s (2.0 MiB/s) in total), x2 each step, up to 6 steps" \
	"$T/check.out"
"$IOCURVE" run "$T/speeds.yaml" --out "$T/r" --json > "$T/r.out" 2> "$T/r.err" ||
	{ cat "$T/r.out" "$T/r.err"; fail "the ramp of speeds runs"; }
ok "the ramp of speeds runs"
python3 - "$T/r" <<'PY' || { cat "$T/r.out"; fail "the knee of the ramp of speeds"; }
import csv, json, sys
import summarytxt
r = sys.argv[1]
X1, CAP = 500.0, 2 * 2 / 950e-6
ws = {w["name"]: w for w in json.load(open(r + "/summary.json"))["workloads"]}
t = ws["trace"]
print(f"# knee {t['knee_ops']} ops/s, knee_speed {t['knee_speed']} (capacity/x1 = {CAP / X1:.2f}), kind {t['knee_kind']}")
assert t["knee_kind"] in ("measured", "interpolated"), t["knee_kind"]
assert abs(t["knee_speed"] / (CAP / X1) - 1) <= 0.10, "the knee speed is not within 10% of capacity/x1"
assert abs(t["knee_speed"] * X1 / t["knee_ops"] - 1) <= 0.01, "knee_speed x 500 is not knee_ops"
assert ws["rate"]["knee_speed"] is None, ws["rate"]["knee_speed"]
steps = json.load(open(r + "/curve-trace.json"))["steps"]
run = sorted(steps, key=lambda s: s["step"])
# the ramp: x1, x2, x4, ... until the first saturated step, then the refine steps
speeds = [s["speed"] for s in run]
print("# speeds in run order:", speeds)
for s in steps:
    assert abs(s["speed"] - round(s["offered_ops"] / X1, 3)) < 1e-9, s
k = 0
while k < len(run) and run[k]["speed"] == 2 ** k:
    k += 1
# the stop rule: a step achieving under 95% of its offered rate saturated
sat = [s["achieved_ops"] < 0.95 * s["offered_ops"] for s in run[:k]]
assert k >= 4 and sat[-1] and not any(sat[:-1]), \
    ("the ramp doubles from x1 to its first saturated step", speeds, sat)
assert all(s["speed"] < run[k - 1]["speed"] for s in run[k:]), "refine bisects below it"
assert "speed" not in json.load(open(r + "/curve-rate.json"))["steps"][0]
rows = list(csv.DictReader(open(r + "/curve.csv")))
for row in rows:
    if row["workload"] == "trace":
        assert abs(float(row["speed"]) - float(row["offered_ops"]) / X1) < 0.001, row
    else:
        assert row["speed"] == "", row
txt = summarytxt.joined(r + "/summary.txt")
want = "(x%.2f of the trace)" % (int(t["knee_ops"] / X1 * 100 + 1e-9) / 100)
assert want in txt, (want, txt)
print(f"# summary.txt: ... {want}")
PY
ok "the ramp of speeds finds the knee at capacity/x1 within 10%, said as a speed"

# The run's workload_done events carry the knee speed (0 for the rate workload), valid
# by docs/schema/events.schema.json.
python3 - "$T/r.out" "$T/r/summary.json" "$(dirname "$0")/../../docs/schema/events.schema.json" <<'PY' ||
import json, sys
import jsonschema
ev = jsonschema.Draft202012Validator(json.load(open(sys.argv[3])))
done = {e["name"]: e for e in map(json.loads, open(sys.argv[1])) if e["event"] == "workload_done"}
ws = {w["name"]: w for w in json.load(open(sys.argv[2]))["workloads"]}
for e in done.values():
    ev.validate(e)
print(f"# workload_done: trace knee_speed {done['trace']['knee_speed']}, rate {done['rate']['knee_speed']}")
assert abs(done["trace"]["knee_speed"] - ws["trace"]["knee_speed"]) <= 0.0005, done["trace"]
assert done["rate"]["knee_speed"] == 0, done["rate"]
PY
	fail "workload_done carries the knee speed"
ok "workload_done carries the replay's knee speed, 0 for a rate workload"

# The dashboard's finished list says the replay's knee as a speed too, as the summary
# does: the run's own events (run --json) played into it in a tmux pane of the test's.
if command -v tmux > /dev/null 2>&1; then
	: "${DASHBOARD_FEED:?set by meson test}"
	. "$(dirname "$0")/pane.sh"
	tx new-session -d -s "$S" -x 140 -y 44 "$DASHBOARD_FEED $T/r.out 1 --exit-after 20"
	check "the dashboard lists the finished replay with a speed" \
		wait_screen ' trace +x[0-9]+\.[0-9]{2} \([0-9]+ ops/s\)' 15
	check "the dashboard lists the rate workload" wait_screen ' rate +(> )?[0-9]+ ops/s' 5
	screen
	python3 - "$T/screen" "$T/r/summary.json" <<'PY' || fail "the dashboard's knee speed is the summary's"
import json, re, sys
scr = open(sys.argv[1]).read()
t = json.load(open(sys.argv[2]))["workloads"][0]
m = re.search(r" trace +x([0-9.]+) \(([0-9]+) ops/s\)", scr)
rate = re.search(r" rate +((> )?[0-9]+ ops/s)", scr).group(1)
print(f"# dashboard: trace x{m.group(1)} ({m.group(2)} ops/s), summary x{t['knee_speed']} ({t['knee_ops']} ops/s); rate {rate}")
# cut to two decimals as the summary's words; knee_speed is rounded to three
assert abs(float(m.group(1)) - int(t["knee_speed"] * 100 + 1e-9) / 100) <= 0.011, m.group(1)
assert abs(int(m.group(2)) - t["knee_ops"]) <= 1, m.group(2)
PY
	ok "the dashboard's knee speed and ops/s are the summary's"
else
	echo "# skip the dashboard's check: tmux is not installed"
fi

# Another trace (its SHA-256, size, operations and rate differ), replayed at x1 only.
python3 - "$T/other.log" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("fio version 3 iolog\n0 /x add\n0 /x open\n")
    for i in range(1200):
        f.write(f"{i * 1666} /x read {(i * 7919 % 2048) * 4096} 4096\n")
    f.write("1998000 /x close\n")
PY
sed -e 's|file: trace.log|file: other.log|' \
	-e 's|{speeds: {ramp: {start: 1, factor: 2, max_steps: 6}}, refine: 3}|{speeds: [1]}|' \
	-e '/name: rate/d' "$T/speeds.yaml" > "$T/other.yaml"
"$IOCURVE" run "$T/other.yaml" --out "$T/o" > "$T/o.out" 2> "$T/o.err" ||
	{ cat "$T/o.out" "$T/o.err"; fail "the other trace runs"; }
"$IOCURVE" compare "$T/r" "$T/o" --out "$T/cmp" > "$T/cmp.out" 2>&1 ||
	{ cat "$T/cmp.out"; fail "compare runs"; }
a=$(sha256sum "$T/trace.log" | cut -c1-12)
b=$(sha256sum "$T/other.log" | cut -c1-12)
grep "setups differ" "$T/cmp.out" | sed 's/^/# /'
# the two files are 28,333 and 33,993 bytes
for want in "trace: replay.sha256 $a vs $b" "trace: replay.size 27.67KiB vs 33.2KiB" \
	"trace: replay.operations 1000 vs 1200" "trace: replay.x1 500 ops/s vs 600.24 ops/s" \
	"trace: load speeds ramp x1 x2 up to 6 steps vs speeds x1"; do
	grep -q "setups differ, .*$want" "$T/cmp.out" ||
		{ cat "$T/cmp.out"; fail "setupdiff names '$want'"; }
done
ok "compare's setup warning names the other trace and speeds key by key"
python3 - "$T" <<'PY' || { cat "$T/cmp.out"; fail "compare gives each run's knee speed"; }
import json, sys
T = sys.argv[1]
k1 = json.load(open(T + "/r/summary.json"))["workloads"][0]
k2 = json.load(open(T + "/o/summary.json"))["workloads"][0]
out = open(T + "/cmp.out").read()
row = [l for l in out.splitlines() if l.startswith("| trace |")][0]
x1 = k1["knee_ops"] / 500
print(f"# {row}")
assert f"{k1['knee_ops']:.1f} x{x1:.2f}" in row, (k1["knee_ops"], x1, row)
assert "x1.00" in row, row
PY
ok "compare's table gives each run's knee speed beside its ops/s"
