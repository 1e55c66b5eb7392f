#!/bin/sh
# SPDX-License-Identifier: MIT
# A fleet one release apart: iocurve 0.1.0 (commit 98d45fe, built from this repository's
# history) and this iocurve run a campaign together both ways. Its agent joins this
# coordinator, which says what the old agent lacks and leaves it out; this agent joins
# the 0.1.0 coordinator and says what that one lacks. Both campaigns find their knee.
# A campaign with a clone (data.clone) is refused on the old agent, saying why.
# Skipped (77) without the git history that holds the commit. The old build is kept
# in the build directory (tests/release-0.1.0), so a second run starts at once.
. "$(dirname "$0")/lib.sh"
: "${IOCURVE_BUILD:?set by meson test}"

OLD_COMMIT=98d45fec454d578068af96bf29f403a7af35ed58
if ! git -C "$IOCURVE_SOURCE" rev-parse --git-dir > /dev/null 2>&1; then
	echo "# skip: $IOCURVE_SOURCE is not a git checkout"
	exit 77
fi
if ! git -C "$IOCURVE_SOURCE" cat-file -e "$OLD_COMMIT^{commit}" 2> /dev/null; then
	echo "# skip: commit $OLD_COMMIT (v0.1.0) is not in this clone's history"
	exit 77
fi

OLD=$IOCURVE_BUILD/tests/release-0.1.0
if [ ! -f "$OLD/build/build.ninja" ]; then
	rm -rf "$OLD"
	mkdir -p "$OLD/src.part"
	git -C "$IOCURVE_SOURCE" archive "$OLD_COMMIT" | tar -x -C "$OLD/src.part" ||
		fail "the sources of 0.1.0 come out of git"
	mv "$OLD/src.part" "$OLD/src"
	meson setup "$OLD/build" "$OLD/src" > "$OLD/setup.log" 2>&1 ||
		{ cat "$OLD/setup.log"; fail "meson sets up a build of 0.1.0"; }
fi
# 0.1.0's campaign library does not declare that it needs the generated protocol header:
# with two jobs a fresh build could compile campaign.c first (a CI run did). The header
# first, then the programs.
ninja -C "$OLD/build" proto/iocurve.pb-c.h > "$T/old-build.log" 2>&1 &&
	ninja -C "$OLD/build" iocurve-agent iocurve >> "$T/old-build.log" 2>&1 ||
	{ tail -30 "$T/old-build.log"; fail "iocurve 0.1.0 builds"; }
ok "iocurve 0.1.0 builds (in $OLD)"
check "it is 0.1.0" sh -c "'$OLD/build/iocurve-agent' --version 2>&1 | grep -q 0.1.0"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" old > /dev/null
"$IOCURVE" certs agent "$T/ca" new > /dev/null
mkdir -p "$T/allowed"
cat > "$T/c.yaml" <<YAML
campaign: mixed
agents: {select: {count: 1}, wait: 30s}
target: {sim: {servers: 4, service_time: 1ms}}
workers: 1
queue_depth: 16
interval: 200ms
warmup: 200ms
measure: 1s
steady: {extend: 3}
slo: {latency: 2ms}
workloads:
  - {name: rr, rw: randread, load: {steps: [1000, 2000, 3000, 5000]}}
YAML

# launch COORDINATOR AGENT NAME OUT CFG SECONDS: the coordinator's `run` of CFG and one
# agent; STATUS is run's exit status.
launch() {
	PORT=$(free_port)
	"$1" run -v "$5" --coordinator-listen "127.0.0.1:$PORT" --tls "$T/ca" \
		--out "$T/$4" > "$T/$4.out" 2> "$T/$4.err" &
	RUN=$!
	"$2" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name "$3" --allow "$T/allowed" \
		2> "$T/$4-agent.log" &
	AG=$!
	PIDS="$PIDS $RUN $AG"
	STATUS=0
	wait_exit "$RUN" "$6" || STATUS=$?
	kill -TERM "$AG" 2> /dev/null || true
	wait_exit "$AG" 10 || true
}

# campaign COORDINATOR AGENT NAME OUT: one campaign, the coordinator's `run` and one agent.
campaign() {
	launch "$1" "$2" "$3" "$4" "${CFG:-$T/c.yaml}" 120
	[ "$STATUS" -eq 0 ] || { cat "$T/$4.err" "$T/$4-agent.log"; fail "$4: the campaign completes"; }
	ok "$4: the campaign completes"
}

# refused CFG OUT SECONDS: a campaign of this coordinator that the agent of 0.1.0 cannot run.
refused() {
	launch "$IOCURVE" "$OLD/build/iocurve-agent" old "$2" "$1" "$3"
}

# knee DIR AGENT-VERSION: complete, with a knee and four points, run by an agent of that version.
knee() {
	python3 - "$1" "$2" <<'PY'
import csv, json, sys
r, version = sys.argv[1:3]
s = json.load(open(r + "/summary.json"))
w = s["workloads"][0]
assert s["status"] == "complete", s["status"]
assert w["steps"] == 4 and len(list(csv.DictReader(open(r + "/curve-rr.csv")))) == 4, w["steps"]
# An agent of 0.1.0 does not measure its client's health, so a stall of a busy machine
# cannot be told from the device's: a knee, or the limit names the client's CPU.
assert (w["knee_ops"] > 0 and w["knee_kind"] != "none") or w["limit"].startswith("client CPU"), \
    f"knee {w['knee_ops']}, limit {w['limit']}"
m = json.load(open(r + "/meta.json"))
assert [a["version"] for a in m["agents"]] == [version], m["agents"]
print(f"# {r}: knee {w['knee_ops']} ops/s, peak {w['peak_ops']} ops/s")
PY
}

# This coordinator, the agent of 0.1.0.
campaign "$IOCURVE" "$OLD/build/iocurve-agent" old new-coord
check "new coordinator, old agent: a knee and its points" knee "$T/new-coord" 0.1.0
check "the coordinator says what the old agent lacks" grep -q \
	"agent old (0.1.0) lacks capability 'wakes': the workers' wake counts are left out" \
	"$T/new-coord.err"
python3 - "$T/new-coord/intervals.jsonl" <<'PY' || fail "its lines are of the current format, without wakes"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
recs = [l for l in recs if "interval" in l]
assert recs and all(l["format"] >= 2 and l["wakes"] == 0 for l in recs), recs[0]
PY
ok "its lines are of the current format, without wakes"
check "the coordinator says the old agent's client health is unknown" grep -q \
	"agent old (0.1.0) lacks capability 'health': the client's health is not measured" \
	"$T/new-coord.err"
python3 - "$T/new-coord" <<'PY' || fail "its steps' health is unknown: neither retried nor proven"
import glob, json, sys
d = sys.argv[1]
recs = [json.loads(l) for l in open(d + "/intervals.jsonl")]
assert not [l for l in recs if "retried" in l], "a step retried on an unmeasured client"
assert all(l["health_n"] == 0 for l in recs if "interval" in l)
for f in glob.glob(d + "/curve-*.json"):
    steps = json.load(open(f))["steps"]
    assert steps and all(not s["health_known"] and not s["client_bound"] and s["retries"] == 0
                         for s in steps), steps[0]
PY
ok "its steps' health is unknown: neither retried nor proven"

# A mixed workload on the agent of 0.1.0, which does not measure reads and writes apart:
# its read and write ops/s (from reads, which it counts) but MiB/s and latencies per kind
# "not measured", never zeros passed off as measurements.
cat > "$T/mix.yaml" <<YAML
campaign: mixed-kinds
agents: {select: {count: 1}, wait: 30s}
target: {sim: {servers: 4, service_time: 1ms}}
workers: 1
queue_depth: 16
interval: 200ms
warmup: 200ms
measure: 1s
slo: {latency: 20ms}
workloads:
  - {name: mix, rw: randrw, read_pct: 70, load: {steps: [500, 1000]}}
YAML
CFG=$T/mix.yaml campaign "$IOCURVE" "$OLD/build/iocurve-agent" old mix-old
CFG=
check "the coordinator says the old agent does not measure reads and writes apart" grep -q \
	"agent old (0.1.0) lacks capability 'kinds': reads and writes are not measured apart" \
	"$T/mix-old.err"
python3 - "$T/mix-old" <<'PY' || fail "its per-kind MiB/s and latencies are not measured, its ops/s add up"
import csv, json, sys
d = sys.argv[1]
for r in csv.DictReader(open(d + "/curve-mix.csv")):
    assert abs(float(r["read_ops"]) + float(r["write_ops"]) - float(r["achieved_ops"])) <= 0.15, r
    assert all(r[k] == "" for k in ("read_mibps", "write_mibps", "read_mean_us", "write_p99_us")), r
for l in open(d + "/intervals.jsonl"):
    o = json.loads(l)
    assert "read_latency" not in o and o.get("read_bytes", 0) == 0, o
w = json.load(open(d + "/summary.json"))["workloads"][0]
assert w["read_at_peak"]["ops"] > 0 and w["read_at_peak"]["mean_us"] is None, w["read_at_peak"]
assert w["write_at_peak"]["mibps"] is None and w["write_at_peak"]["p99_us"] is None
steps = json.load(open(d + "/curve-mix.json"))["steps"]
assert all(s["read_mean_us"] is None and s["write_ops"] > 0 and s["read_percentiles_us"] is None
           for s in steps), steps[0]
PY
ok "its per-kind MiB/s and latencies are not measured, its ops/s add up"
check "summary.md says not measured" grep -q "| not measured | not measured |" "$T/mix-old/summary.md"
check "and at the peak" grep -q "^At the peak: reads [0-9.]* ops/s (MiB/s and latency not measured" \
	"$T/mix-old/summary.md"
"$IOCURVE" compare "$T/mix-old" "$T/mix-old" -o "$T/mix-cmp" > "$T/mix-cmp.out" 2>&1 ||
	{ cat "$T/mix-cmp.out"; fail "compare reads them"; }
check "compare says not measured" grep -q "| mix | read at peak | [0-9.]* ops/s (MiB/s and latency not measured" \
	"$T/mix-cmp.out"

# The coordinator of 0.1.0, this agent.
campaign "$OLD/build/iocurve" "$IOCURVE_AGENT" new old-coord
check "old coordinator, new agent: a knee and its points" knee "$T/old-coord" "$(
	"$IOCURVE_AGENT" --version 2>&1 | grep -o '[0-9][0-9.]*' | head -1)"
check "the agent says what the old coordinator lacks" grep -q \
	"the coordinator (0.1.0) lacks capability 'wakes'" "$T/old-coord-agent.log"
check "this report reads what the 0.1.0 coordinator wrote" \
	sh -c "'$IOCURVE' report '$T/old-coord' > /dev/null"

# With this agent, the counter is there (the capability is used when both have it).
campaign "$IOCURVE" "$IOCURVE_AGENT" new both-new
python3 - "$T/both-new/intervals.jsonl" <<'PY' || fail "two new ones count wakes"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert any(l.get("wakes", 0) > 0 for l in recs if "interval" in l)
PY
ok "two new ones count wakes"
check "and say nothing is left out" sh -c "! grep -q 'lacks capability' '$T/both-new.err' '$T/both-new-agent.log'"
# A clone needs an agent that knows it: the old one would lay out files of their own data.
cat > "$T/clone.yaml" <<YAML
campaign: clone
agents: {select: {count: 1}, wait: 30s}
target: {path: $T/allowed/clone, size: 4MiB}
interval: 200ms
warmup: 200ms
measure: 400ms
workloads:
  - {name: boot, rw: read, data: {clone: golden}, load: {steps: [100]}}
YAML
refused "$T/clone.yaml" clone 60
check "a clone campaign on the old agent fails" test "$STATUS" -ne 0 -a "$STATUS" -ne 124
check "saying the agent lacks capability 'clone' and what it would do" grep -q \
	"agent old (0.1.0) lacks capability 'clone': workload 'boot' reads clone 'golden', which it would lay out as files of their own data" \
	"$T/clone.err"
check "before anything is laid out" test ! -e "$T/allowed/clone"
# Fixed work on the agent of 0.1.0: refused, naming the agent and what it lacks.
cat > "$T/work.yaml" <<YAML
campaign: mixedwork
agents: {select: {count: 1}, wait: 30s}
target: {sim: {servers: 4, service_time: 1ms}}
workers: 1
interval: 200ms
workloads:
  - {name: boot, rw: randread, load: {work: {ops: 100}}}
YAML
refused "$T/work.yaml" work 120
check "fixed work on an agent of 0.1.0 fails" test "$STATUS" -ne 0
check "naming the agent and the capability it lacks" grep -q \
	"agent old (iocurve 0.1.0) cannot run workload 'boot': fixed work (load.work) needs an agent that has capability 'fixed-work'" \
	"$T/work.err"

# A rate-limited sim on the agent of 0.1.0, which cannot simulate the cap: refused,
# naming the agent and the key, rather than run uncapped.
sed 's/service_time: 1ms}}/service_time: 1ms, rate_limit: 2000}}/' "$T/c.yaml" > "$T/capped.yaml"
grep -q "rate_limit: 2000" "$T/capped.yaml" || fail "the capped campaign is written"
refused "$T/capped.yaml" capped 120
check "a rate-limited sim on the agent of 0.1.0 fails (status 1)" test "$STATUS" -eq 1
check "naming the agent and the capability it lacks" grep -q \
	"agent old (0.1.0) lacks capability 'rate_limit': it cannot simulate target.sim.rate_limit and would run the device uncapped" \
	"$T/capped.err" "$T/capped.out"
echo "# mixed-release: all passed"
