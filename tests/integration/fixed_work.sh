#!/bin/sh
# SPDX-License-Identifier: MIT
# Fixed work (load.work) from `iocurve run`: every worker does exactly its share and
# stops, starts at its own offset of the spread, and the storm's completion times
# (per worker, per agent, fleet) agree with intervals.jsonl; think time slows a closed
# loop as it should; a deadline reports the unfinished; finishes are marked on the time
# plot; `report` rebuilds the same figures; on the sim and on real files (io_uring).
. "$(dirname "$0")/lib.sh"

# 2 agents x 2 workers, each on its own device of 1 server x 1ms, queue depth 1: with
# think 1ms a worker issues every 2 ms (500 ops/s), without it every 1 ms (1000 ops/s).
cat > "$T/sim.yaml" <<YAML
campaign: fwsim
agents: {local: 2}
target: {sim: {servers: 1, service_time: 1ms}}
workers: 2
queue_depth: 1
interval: 200ms
slo: {latency: 10ms}
workloads:
  - {name: think, rw: randread, block_size: 4KiB,
     load: {work: {ops: 400, deadline: 20s}, rate: max, think: 1ms, start: {spread: 1200ms}}}
  - {name: nothink, rw: randread, block_size: 4KiB,
     load: {work: {ops: 400, deadline: 20s}, rate: max}}
  - {name: paced, rw: randread, block_size: 4KiB,
     load: {work: {ops: 200, deadline: 20s}, rate: 1000}}
YAML
"$IOCURVE" run "$T/sim.yaml" --out "$T/sim" > "$T/sim.out" 2> "$T/sim.err" ||
	{ cat "$T/sim.out" "$T/sim.err"; fail "a fixed-work campaign on the sim runs"; }
ok "a fixed-work campaign on the sim runs"
check "the end of run gives the storm's completion time" grep -q \
	"^Storm: [0-9.]* s from the first start to the last finish (4 workers on 2 agents)" \
	"$T/sim.out"
check "and names the time plot with the finishes marked" grep -q \
	"each finish marked: $T/sim/time-think.svg" "$T/sim.out"

# fleet_checks DIR WORKLOAD OPS WORKERS: every worker did its ops, the figures agree.
fleet_checks() {
	python3 - "$@" <<'PY'
import json, sys
import ivlines
d, wl, ops, workers = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
lines = [l for l in ivlines.lines(d + "/intervals.jsonl") if l.get("workload") == wl]
fleet = [l for l in lines if l.get("agent") == "*" and "ops" in l]
agents = [l for l in lines if l.get("agent") not in (None, "*") and "ops" in l and "mark" not in l]
fins = [l["finish"] | {"agent": l["agent"]} for l in lines if "finish" in l]
assert sum(l["ops"] for l in fleet) == workers * ops, (sum(l["ops"] for l in fleet), workers * ops)
assert sum(l["ops"] for l in agents) == workers * ops
assert len(fins) == workers and all(f["ops"] == ops and f["done_s"] is not None for f in fins), fins
s = json.load(open(d + "/summary.json"))
w = [x for x in s["workloads"] if x["name"] == wl][0]
fw = w["fixed_work"]
assert fw["complete"] and fw["finished"] == workers and fw["work_ops"] == ops, fw
for k in ("worker", "agent"):
    st = fw[k]
    assert st["min_s"] <= st["median_s"] <= st["p90_s"] <= st["max_s"], st
assert fw["worker"]["n"] == workers
done = sorted(f["done_s"] for f in fins)
assert abs(fw["worker"]["max_s"] - done[-1]) < 1e-5 and abs(fw["worker"]["min_s"] - done[0]) < 1e-5
last = max(f["start_s"] + f["done_s"] for f in fins)
first = min(f["start_s"] for f in fins)
assert abs(fw["storm_s"] - (last - first)) < 1e-5, (fw["storm_s"], last - first)
assert fw["storm_s"] >= fw["worker"]["max_s"] - 1e-6 and fw["storm_s"] >= fw["agent"]["max_s"] - 1e-6
# the step ran until the last worker finished, no longer than an interval past it
nint = 1 + max(l["interval"] for l in fleet)
iv = fleet[0]["duration_ns"] / 1e9
assert last <= nint * iv + 1e-6 and nint * iv < last + 2 * iv + 0.5, (last, nint, iv)
# one finish mark per worker, on the time plot and in intervals.jsonl
marks = [l for l in lines if l.get("source") == "finish"]
assert len(marks) == workers, marks
svg = open(d + f"/time-{wl}.svg").read()
assert svg.count('class="mark" data-source="finish"') == workers, svg.count('data-source="finish"')
print(f"# {wl}: storm {fw['storm_s']} s, per worker {done}")
PY
}
check "think: every worker did its 400 ops; the figures agree with intervals.jsonl" \
	fleet_checks "$T/sim" think 400 4
check "no think: the same" fleet_checks "$T/sim" nothink 400 4
check "paced: the same" fleet_checks "$T/sim" paced 200 4
python3 - "$T/sim" <<'PY' || fail "paced at 1000 ops/s for the fleet: each worker's 200 take 0.8 s"
import sys
import ivlines
lines = ivlines.lines(sys.argv[1] + "/intervals.jsonl")
done = [l["finish"]["done_s"] for l in lines if l.get("workload") == "paced" and "finish" in l]
print("# paced: completion times", done)
# 250 ops/s per worker, open loop: the 200th is due at 0.796 s, done 1 ms later
assert len(done) == 4 and all(0.79 < d < 0.9 for d in done), done
PY
ok "paced at 1000 ops/s for the fleet: each worker's 200 take 0.8 s"

python3 - "$T/sim" <<'PY' || fail "think 1ms slows a closed loop to about 500 ops/s per worker"
import sys
import ivlines
d = sys.argv[1]
lines = ivlines.lines(d + "/intervals.jsonl")
# Per agent, per worker: its operations over its completion time. Service 1ms and think
# 1ms make 2 ms an operation (500 ops/s), 1 ms without think (1000 ops/s); a busy
# client's late wakes add to both (the sim's closed loop issues again when the worker
# sees a completion), and overlap the think time, which starts at the completion.
def per_op_ms(wl, a):
    recs = [l for l in lines if l.get("workload") == wl and l.get("agent") == a and "ops" in l
            and "mark" not in l]
    done = sum(l["finish"]["done_s"] for l in lines
               if l.get("workload") == wl and l.get("agent") == a and "finish" in l)
    return done / sum(l["ops"] for l in recs) * 1e3
for a in ("local-0", "local-1"):
    think, nothink = per_op_ms("think", a), per_op_ms("nothink", a)
    print(f"# {a}: think {1e3 / think:.0f} ops/s per worker ({think:.3f} ms an operation), "
          f"no think {1e3 / nothink:.0f} ops/s ({nothink:.3f} ms)")
    assert think >= 1.98, think  # never faster than 500 ops/s
    assert nothink >= 0.99, nothink  # never faster than 1000 ops/s
    assert 0.5 < think - nothink < 1.3, (think, nothink)  # think adds about 1 ms
PY
ok "think 1ms slows a closed loop to about 500 ops/s per worker"

python3 - "$T/sim" <<'PY' || fail "starts are spread: later workers' first operations come later"
import sys
import ivlines
d = sys.argv[1]
lines = [l for l in ivlines.lines(d + "/intervals.jsonl") if l.get("workload") == "think"]
fins = {(l["agent"], l["finish"]["worker"]): l["finish"]["start_s"] for l in lines if "finish" in l}
# 4 workers over 1.2 s: 0, 0.4, 0.8, 1.2 s, by agent then worker
assert sorted(fins.values()) == [0.0, 0.4, 0.8, 1.2] or \
    all(abs(a - b) < 1e-9 for a, b in zip(sorted(fins.values()), [0, 0.4, 0.8, 1.2])), fins
# by the agents' order in the campaign, then worker: an agent's two come one after the other
early = [a for (a, k), t in fins.items() if t == 0][0]
late = [a for a in ("local-0", "local-1") if a != early][0]
assert abs(fins[(early, 1)] - 0.4) < 1e-9 and abs(fins[(late, 1)] - 1.2) < 1e-9, fins
first = {}
for l in lines:
    if "ops" in l and l.get("agent") not in (None, "*") and "mark" not in l and l["ops"] > 0:
        first[l["agent"]] = min(first.get(l["agent"], 1 << 30), l["interval"])
# the later agent's workers start at 0.8 s and 1.2 s: nothing in its first 4 intervals
print("# first interval with operations:", first)
assert first[early] == 0 and first[late] >= 4, first
PY
ok "starts are spread: later workers' first operations come later"

cp "$T/sim/summary.json" "$T/sim-summary.json"
cp "$T/sim/time-think.svg" "$T/sim-time.svg"
"$IOCURVE" report "$T/sim" > /dev/null 2> "$T/report.err" || { cat "$T/report.err"; fail "report runs"; }
check "report rebuilds the same storm figures" cmp -s "$T/sim/summary.json" "$T/sim-summary.json"
check "and the same time plot with its finish marks" cmp -s "$T/sim/time-think.svg" "$T/sim-time.svg"
check "report.html gives the completion times per worker, per agent and the fleet's" sh -c \
	"grep -q '<h3>Completion times</h3>' '$T/sim/report.html' &&
	 grep -q '<tr><td>fleet (the first start to the last finish)</td><td class=\"num\">4 of 4</td>' '$T/sim/report.html'"
check "summary.md gives the storm where a curve gives its knee" grep -q "^Storm: .* (no knee" \
	"$T/sim/summary.md"
check "summary.txt gives it below the table" txt_grep "$T/sim/summary.txt" -q \
	"^think: Storm: [0-9.]* s from the first start to the last finish (4 workers on 2 agents); per worker min"

# A deadline before the work is done: the step ends there, the unfinished are reported.
cat > "$T/late.yaml" <<YAML
campaign: fwlate
agents: {local: 1}
target: {sim: {servers: 1, service_time: 10ms}}
workers: 2
queue_depth: 1
interval: 200ms
slo: {latency: 50ms}
workloads:
  - {name: late, rw: randread, block_size: 4KiB, load: {work: {ops: 1000, deadline: 1s}}}
YAML
"$IOCURVE" run "$T/late.yaml" --out "$T/late" > "$T/late.out" 2> "$T/late.err" ||
	{ cat "$T/late.out" "$T/late.err"; fail "a fixed-work campaign past its deadline ends"; }
ok "a fixed-work campaign past its deadline ends"
# (its words wrapped at 100 columns: joined again to be read as one)
sed -e ':a' -e 'N' -e '$!ba' -e 's/\n  / /g' "$T/late.out" > "$T/late.joined"
check "the end of run says the storm is unfinished, and how far the least got" grep -q \
	"^Fixed work UNFINISHED: 0 of 2 workers did all of their work before the deadline (the least advanced [0-9.]*%" \
	"$T/late.joined"
python3 - "$T/late" <<'PY' || fail "summary.json and the finish lines say how far each worker got"
import json, sys
import ivlines
d = sys.argv[1]
fw = json.load(open(d + "/summary.json"))["workloads"][0]["fixed_work"]
assert not fw["complete"] and fw["finished"] == 0 and fw["storm_s"] is None, fw
fins = [l["finish"] for l in ivlines.lines(d + "/intervals.jsonl") if "finish" in l]
assert len(fins) == 2 and all(f["done_s"] is None and 0 < f["ops"] < 1000 for f in fins), fins
assert abs(fw["least_done_pct"] - min(f["ops"] for f in fins) / 10) < 0.01, fw
# 1 s at 10 ms each: about 100 operations, not the 1000 asked
assert all(60 <= f["ops"] <= 110 for f in fins), fins
assert not [l for l in ivlines.lines(d + "/intervals.jsonl") if l.get("source") == "finish"]
PY
ok "summary.json and the finish lines say how far each worker got"

# compare between storms: the same campaign on a device twice as slow, nothink's deadline
# cut to 300 ms (it needs 800 ms there): each storm and workers' p90 with its change, an
# unfinished storm said so; --fail-if 'storm > +50%' breaches on nothink (unfinished: an
# endless storm) and not on think (about +20%: 400 x 3 ms after the 1.2 s spread, against
# 400 x 2 ms) nor paced (its rate sets it).
"$IOCURVE" run "$T/sim.yaml" --out "$T/slow" --set target.sim.service_time=2ms \
	--set workloads.nothink.load.work.deadline=300ms > "$T/slow.out" 2> "$T/slow.err" ||
	{ cat "$T/slow.out" "$T/slow.err"; fail "the slower storm runs"; }
rc=0
"$IOCURVE" compare "$T/sim" "$T/slow" --fail-if 'storm > +50%' > "$T/scmp.out" 2>&1 || rc=$?
sed 's/^/# /' "$T/scmp.out"
check "compare --fail-if 'storm > +50%' exits 4 on the unfinished storm" test "$rc" -eq 4
python3 - "$T" <<'PY' || fail "compare gives each storm, its workers' p90 and the change, as summary.json has them"
import json, sys
t = sys.argv[1]
out = open(t + "/scmp.out").read()
fw = {d: {w["name"]: w["fixed_work"] for w in json.load(open(f"{t}/{d}/summary.json"))["workloads"]}
      for d in ("sim", "slow")}
def row(name, fig):
    line = [l for l in out.splitlines() if l.startswith(f"| {name} | {fig} |")]
    assert len(line) == 1, (name, fig, out)
    return [c.strip() for c in line[0].strip().strip("|").split("|")][2:]
for name in ("think", "paced"):
    a, b = fw["sim"][name], fw["slow"][name]
    for fig, key in (("storm (s)", None), ("worker p90 (s)", "p90_s")):
        va = a["storm_s"] if key is None else a["worker"][key]
        vb = b["storm_s"] if key is None else b["worker"][key]
        want = ["%.3f" % va, "%.3f" % vb, "%+.1f%%" % (100 * (vb - va) / va)]
        assert row(name, fig) == want, (name, fig, row(name, fig), want)
    print(f"# {name}: storm {a['storm_s']:.3f} -> {b['storm_s']:.3f} s")
assert 10 < 100 * (fw["slow"]["think"]["storm_s"] / fw["sim"]["think"]["storm_s"] - 1) < 50
assert row("nothink", "storm (s)") == ["%.3f" % fw["sim"]["nothink"]["storm_s"], "0 of 4 finished", "n/a"]
# the gate: nothink breached, endless; think and paced within the threshold
assert "BREACH" in out and "nothink: storm %.3f s -> unfinished in" % fw["sim"]["nothink"]["storm_s"] in out, out
for name in ("think", "paced"):
    assert f"breach: {name}:" not in out, out
PY
ok "compare gives each storm, its workers' p90 and the change, as summary.json has them"
check "compare --fail-if 'storm > +10%' of a run against itself passes" \
	sh -c "'$IOCURVE' compare '$T/sim' '$T/sim' --fail-if 'storm > +10%' > '$T/self.out' && grep -q 'pass: think: storm +0.0% ([0-9]*\.[0-9][0-9][0-9] s -> ' '$T/self.out'"

# Real files through io_uring: each worker reads its 4MiB file once, sequentially.
mkdir -p "$T/data"
cat > "$T/files.yaml" <<YAML
campaign: fwfiles
agents: {local: 2}
target: {path: $T/data, size: 4MiB, direct: true}
workers: 2
queue_depth: 2
interval: 200ms
slo: {latency: 50ms}
workloads:
  - {name: boot, rw: read, block_size: 64KiB,
     load: {work: {bytes: 4MiB, deadline: 30s}, start: {spread: 600ms}}}
YAML
"$IOCURVE" run "$T/files.yaml" --out "$T/files" > "$T/files.out" 2> "$T/files.err" ||
	{ cat "$T/files.out" "$T/files.err"; fail "a fixed-work campaign on real files runs"; }
ok "a fixed-work campaign on real files runs"
check "every worker read exactly its 4MiB, the figures agree" fleet_checks "$T/files" boot 64 4
python3 - "$T/files" <<'PY' || fail "the bytes: 4MiB per worker, 8MiB per agent"
import sys
import ivlines
d = sys.argv[1]
recs = [l for l in ivlines.records(d + "/intervals.jsonl")]
per = {}
for l in recs:
    per[l["agent"]] = per.get(l["agent"], 0) + l["bytes"]
assert per == {"*": 16 << 20, "local-0": 8 << 20, "local-1": 8 << 20}, per
PY
ok "the bytes: 4MiB per worker, 8MiB per agent"

# Bad keys are refused where they stand, before any agent starts.
cat > "$T/bad.yaml" <<YAML
campaign: fwbad
agents: {local: 1}
target: {sim: {servers: 1, service_time: 1ms}}
workloads:
  - {name: a, rw: read, load: {work: {deadline: 10s}, think: 1ms}}
YAML
if "$IOCURVE" run "$T/bad.yaml" --out "$T/bad" > "$T/bad.out" 2> "$T/bad.err"; then
	fail "work without bytes or ops is refused"
fi
check "work without bytes or ops is refused with file:line:column" grep -q \
	"bad.yaml:5:38: load.work is missing 'bytes' or 'ops'" "$T/bad.err"
echo "# fixed-work: all passed"
