#!/bin/sh
# SPDX-License-Identifier: MIT
# Every number from outside is checked where it enters. Real TLS agent sessions (the
# swarm, --set forcing one field of every report) against a real `serve`:
#  1. one agent reporting host_cpu_pct = 1e308 (once an abort at the step's end): the
#     report is refused naming agent, field and value, the campaign fails naming the
#     agent, serve stays up and `status` answers;
#  1b. a failure's target that is not UTF-8 (once an abort writing its line): kept escaped;
#  1c. read and write apart that do not add up (a read latency for each op, but reads 0):
#     refused naming the agent and the counts;
#  1d. the same from an agent that did not declare 'kinds': cut where the report enters,
#     so the campaign completes without them;
#  1e. reports each within bounds whose fleet total is not: the second of a pair refused
#     where merged, named, the campaign goes on;
#  2. every numeric field of an IntervalReport (and StepDone's start) at its extremes
#     (0, -1, max of its type, +-1e308, NaN, +-inf), one agent each, on_agent_loss:
#     continue: each refusal names its agent, field and value, the campaign completes
#     with the honest agents;
#  2b. 30 sessions flipping random bits of every report: serve stays up, report reads
#     back what it wrote;
#  3. `iocurve report` on results whose intervals.jsonl holds each extreme: refused
#     with file:line and the field, never an abort.
. "$(dirname "$0")/lib.sh"

: "${IOCURVE_SWARM:?set by meson test}"
serve_for_swarm

# campaign NAME AGENTS ON_LOSS [MS]: one step, of a warm-up interval and 3 measured
# ones of MS (100) ms each.
campaign() {
	iv=${4:-100}
	cat > "$T/$1.yaml" <<YAML
campaign: $1
agents: {select: {count: $2}, wait: 30s, on_agent_loss: $3}
target: {sim: {servers: 8, service_time: 200us}}
interval: ${iv}ms
warmup: ${iv}ms
measure: $((iv * 3))ms
workloads:
  - {name: rr, rw: randread, block_size: 4KiB, load: {steps: [$(($2 * 100))]}}
YAML
}

alive() {
	kill -0 "$SERVE" 2> /dev/null || { tail -20 "$T/serve.log"; fail "serve is still running ($1)"; }
	"$IOCURVE" status --coordinator "$SOCK" > "$T/status.out" 2>&1 ||
		{ cat "$T/status.out"; fail "status answers ($1)"; }
	ok "serve is up and status answers ($1)"
}

# 1. One number: host_cpu_pct = 1e308 beside an honest agent.
swarm liar 1 --set host_cpu_pct=1e308
LIAR=$SWARM
swarm honest 1
HONEST=$SWARM
campaign one 2 abort
if "$IOCURVE" run "$T/one.yaml" --coordinator "$SOCK" > "$T/one.out" 2> "$T/one.err"; then
	fail "a campaign with an agent reporting host_cpu_pct 1e308 fails"
fi
alive "after host_cpu_pct 1e308"
check "the refusal names agent, field and value" \
	grep -q "agent liar-00000: bad interval report: interval [0-9]*: host_cpu_pct 1e+308 is outside \[0, 100\]" "$T/serve.log"
check "the campaign fails naming the agent" grep -q "agent liar-00000 lost: .*host_cpu_pct 1e+308" "$T/one.err"
D=$(ls -d "$T"/res/one-*)
check "its results are ended, not left running" python3 -c "
import json; s = json.load(open('$D/summary.json')); assert s['status'] == 'failed', s['status']"
kill "$LIAR" "$HONEST"
wait "$LIAR" 2> /dev/null || true
wait "$HONEST" 2> /dev/null || true

# 1b. Words that are not UTF-8 in a failure's target (once an abort writing the line).
swarm utf 1 --set 'err_path=/data/\xff\xfe\xc3'
UTF=$SWARM
campaign utf 1 abort
"$IOCURVE" run "$T/utf.yaml" --coordinator "$SOCK" > "$T/utf.out" 2> "$T/utf.err" || true
alive "after a target path that is not UTF-8"
D=$(ls -d "$T"/res/utf-*)
check "the path is kept with its bytes escaped" grep -q '"path":"/data/\\\\xff\\\\xfe\\\\xc3"' "$D/intervals.jsonl"
check "the results read back" "$IOCURVE" report "$D" > /dev/null
kill "$UTF"
wait "$UTF" 2> /dev/null || true

# 1c. Read and write apart inconsistent: every op's latency in read_latency, reads 0.
swarm kinds 1 --set reads=0
KINDS=$SWARM
campaign kinds 1 abort
"$IOCURVE" run "$T/kinds.yaml" --coordinator "$SOCK" > "$T/kinds.out" 2> "$T/kinds.err" &&
	fail "a campaign whose agent reports reads 0 beside read latencies fails"
alive "after read and write apart that do not add up"
check "the refusal names agent and the per-kind counts" grep -q \
	"agent kinds-00000: bad interval report: interval [0-9]*: read_latency count [0-9]* is more than reads 0" \
	"$T/serve.log"
check "the campaign fails naming the agent" grep -q "agent kinds-00000 lost: .*read_latency count" "$T/kinds.err"
kill "$KINDS"
wait "$KINDS" 2> /dev/null || true

# 1d. The same reports from an agent whose Hello leaves 'kinds' out: cut where they enter
# (net/server.c), never judged, so the campaign completes without latency per kind.
swarm nokinds 1 --set reads=0 --without kinds
NOKINDS=$SWARM
campaign nokinds 1 abort
"$IOCURVE" run "$T/nokinds.yaml" --coordinator "$SOCK" > "$T/nokinds.out" 2> "$T/nokinds.err" ||
	{ cat "$T/nokinds.err"; fail "a campaign whose agent sends kinds it did not declare completes"; }
D=$(ls -d "$T"/res/nokinds-*)
check "its intervals hold no latency per kind nor read bytes" python3 -c "
import json
for l in open('$D/intervals.jsonl'):
    o = json.loads(l)
    assert 'read_latency' not in o and o.get('read_bytes', 0) == 0, o"
check "the agent's reports were not refused" sh -c "! grep -q 'agent nokinds-00000: bad interval report' '$T/serve.log'"
kill "$NOKINDS"
wait "$NOKINDS" 2> /dev/null || true

# 1e. Reports each within its bounds whose sum over the fleet is not: two agents with
# nivcsw 2^39 + 1 (the fleet's bound is 2^40) and two whose latencies each sum to 300 ops
# of 2^53 ns (2^62 ns is the bound), beside an honest one. Each report passes alone; the
# second of each pair to reach an interval is refused where it is merged, that agent lost
# and named, and the campaign goes on with the other three; what serve wrote reads back.
swarm fleet 5 --set nivcsw=549755813889 --set nivcsw=549755813889 \
	--set latency.mean_ns=9007199254740992 --set latency.mean_ns=9007199254740992
FLEET=$SWARM
cat > "$T/fleet.yaml" <<YAML
campaign: fleet
agents: {select: {count: 5}, wait: 30s, on_agent_loss: continue}
target: {sim: {servers: 8, service_time: 200us}}
interval: 100ms
warmup: 100ms
measure: 300ms
workloads:
  - {name: rr, rw: randread, block_size: 4KiB, load: {steps: [15000]}}
YAML
"$IOCURVE" run "$T/fleet.yaml" --coordinator "$SOCK" --accept-degraded > "$T/fleet.out" 2> "$T/fleet.err" ||
	{ tail -5 "$T/fleet.err"; fail "a campaign whose reports overflow the fleet's totals completes"; }
alive "after reports past the fleet's bounds"
check "one of the nivcsw pair is refused, naming the fleet's bound" sh -c "[ \$(grep -c \
	'agent fleet-0000[01]: bad interval report: interval [0-9]*: the fleet.s nivcsw 549755813889 would take the total (549755813889 so far) past its bound 1099511627776: report refused' \
	'$T/serve.log') -eq 1 ]"
check "one of the latency pair is refused, naming the histogram's bound" sh -c "[ \$(grep -c \
	'agent fleet-0000[23]: bad interval report: interval [0-9]*: the fleet.s latency count [0-9]* and sum_ns [0-9]* would take the total past its bound (count at most 2^53, sum at most 2^62 ns): report refused' \
	'$T/serve.log') -eq 1 ]"
check "the honest agent is never refused" sh -c "! grep -q 'agent fleet-00004: bad' '$T/serve.log'"
D=$(ls -d "$T"/res/fleet-*)
check "the campaign completed (degraded), two agents lost" python3 -c "
import json; s = json.load(open('$D/summary.json'))
assert s['status'] == 'complete' and s['agents_lost'] == 2, (s['status'], s['agents_lost'])"
check "every merged interval is within the fleet's bounds" python3 -c "
import json
for l in open('$D/intervals.jsonl'):
    o = json.loads(l)
    if o.get('agent') == '*' and 'latency' in o:
        assert o.get('nivcsw', 0) <= 2**40 and o['latency']['sum_ns'] <= 2**62, o"
check "report reads back what serve wrote" "$IOCURVE" report "$D"
kill "$FLEET"
wait "$FLEET" 2> /dev/null || true

# 2. Every field at its extremes, one agent each, and two honest ones.
SETS=""
NSET=0
add() { SETS="$SETS --set $1"; NSET=$((NSET + 1)); }
for f in ops reads bytes errors cpu_user_ns cpu_sys_ns lag_sum_ns lag_max_ns qd_full_ns \
	missed missed_charged wakes health_n issue_late_ns slot_wait_ns reap_delay_ns nivcsw \
	steal_ppm late_10us late_100us late_1ms late_10ms duration_ns workers interval err_errno \
	err_offset \
	latency.count latency.sum_ns latency.max_ns service.count service.sum_ns \
	read_bytes read_latency.count read_latency.sum_ns write_latency.count; do
	for v in 0 -1 max; do add "$f=$v"; done
done
for v in 0 -1 max 1e308 -1e308 nan inf -inf; do add "host_cpu_pct=$v"; done
# StepDone's start on the agent's clock (converted with signed arithmetic)
for v in 0 -1 max 9223372036854775807; do add "step_done.start_time=$v"; done
# ... and a start half a minute before its true one, or a minute after (a clock line no
# step can have: the start lies outside the span from StartStep sent to StepDone read,
# whatever the machine's uptime; an hour's slack once took a start of 0 on a machine up
# for less than an hour, and half an hour before wrapped below 0 on a machine up for
# less than that, a fresh CI machine's case, which the bound refused instead)
for v in -30 60; do add "step_done.start_offset=$v"; done
# Reports of another step or workload (taken for stale and ignored, the step then lacked
# the agent's intervals and the campaign failed): the agent's StepDone is refused.
for v in 1 max; do add "step=$v"; add "workload_index=$v"; done
# shellcheck disable=SC2086 # one word per --set
swarm x $((NSET + 2)) $SETS
campaign all $((NSET + 2)) continue
"$IOCURVE" run "$T/all.yaml" --coordinator "$SOCK" --accept-degraded > "$T/all.out" 2> "$T/all.err" ||
	{ tail -5 "$T/all.err"; fail "the campaign goes on without the agents refused"; }
alive "after every field's extremes"
python3 - "$T/serve.log" "$SETS" <<'PY' || fail "each refusal names its agent, field and value"
import re, sys
log = open(sys.argv[1]).read()
sets = sys.argv[2].split()[1::2]
refused = dict(re.findall(r"agent (x-\d+): bad (?:interval report|probe report|StepDone): (.*?): report refused", log))
named = 0
for i, s in enumerate(sets):
    field, value = s.split("=")
    why = refused.get(f"x-{i:05d}")
    if why is None:
        continue  # accepted: a value in range (0 for most)
    base = field.split(".")[0]
    if base == "step_done":
        assert "start_time" in why, (s, why)
        named += 1
        continue
    assert base in why or field.split(".")[-1] in why or "latencies" in why or "service times" in why or \
        "histogram" in why or "outside the step" in why or "more than" in why or \
        (field in ("step", "workload_index") and "intervals not reported" in why), (s, why)
    named += 1
# The values no record can hold are all refused.
for i, s in enumerate(sets):
    field, value = s.split("=")
    bad = (field == "host_cpu_pct" and value not in ("0",)) or \
        field.startswith("step_done.") or field in ("step", "workload_index") or \
        (value == "-1" or value == "max") and field not in ("latency.max_ns",)
    if bad:
        assert f"x-{i:05d}" in refused, f"{s} was not refused"
print(f"ok - {named} of {len(sets)} forced reports refused, each naming agent and field")
PY
check "a refusal names the value: host_cpu_pct nan" grep -q "host_cpu_pct nan is outside \[0, 100\]" "$T/serve.log"
check "a start outside its step's span is refused saying the span" \
	grep -q "bad StepDone: start_time [0-9]* is -[23][0-9][.][0-9]* s from the planned start on its clock, outside the [0-9.]* s from its StartStep to its StepDone" "$T/serve.log"
check "a refusal names the value: ops 18446744073709551615" \
	grep -q "ops 18446744073709551615 is outside \[0, 1099511627776\]" "$T/serve.log"
D=$(ls -d "$T"/res/all-*)
check "the campaign completed (degraded) with the honest agents" python3 -c "
import json; s = json.load(open('$D/summary.json'))
assert s['status'] == 'complete' and s['agents_lost'] > 0, (s['status'], s['agents_lost'])"
kill "$SWARM"
wait "$SWARM" 2> /dev/null || true

# 2b. Random bit flips in every report of 30 sessions (any value of any field, through
# TLS), beside two honest ones: serve stays up, the campaign ends, and whatever serve
# wrote `report` reads back.
# Intervals of 200 ms: with 100 ms ones this campaign failed (a step left without every
# interval) in about 1 run of 4, against 1 of 20 with 200 or 500 ms.
swarm m 32 --mutate 30
campaign mutate 32 continue 200
timeout 120 "$IOCURVE" run "$T/mutate.yaml" --coordinator "$SOCK" --accept-degraded \
	> "$T/mutate.out" 2> "$T/mutate.err"
rc=$?
[ "$rc" -ne 124 ] || fail "the campaign of mutated reports ends"
alive "after mutated reports (run exit $rc)"
M=$(ls -d "$T"/res/mutate-*)
"$IOCURVE" report "$M" > "$T/mrep.out" 2> "$T/mrep.err"
rc=$?
[ "$rc" -eq 0 ] || { cat "$T/mrep.err"; fail "report reads back what serve wrote of mutated reports"; }
ok "report reads back what serve wrote ($(grep -c 'report refused' "$T/serve.log") refusals in all)"
kill "$SWARM"
wait "$SWARM" 2> /dev/null || true

# 3. `report` on a results file holding each extreme, field by field.
python3 - "$IOCURVE" "$D" "$T/rep" <<'PY' || fail "report refuses every extreme with file:line and field"
import concurrent.futures, json, os, shutil, subprocess, sys
iocurve, src, work = sys.argv[1:]
lines = open(os.path.join(src, "intervals.jsonl")).read().splitlines()
at = next(i for i, l in enumerate(lines) if '"agent":"*"' in l and '"ops"' in l)
rec = json.loads(lines[at])
fields = [k for k, v in rec.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
          and k not in ("format", "step", "mean_ns", "p99_ns")]
fields += ["latency.count", "latency.sum_ns", "service.count"]
values = ["0", "-1", "18446744073709551615", "9223372036854775807", "1e308", "-1e308",
          "NaN", "Infinity", "-Infinity"]
# One fresh copy of the results per case (report rewrites what it derives), the cases
# run by a small pool: each `report` is a process of its own.
def one(n, f, v):
    o = json.loads(lines[at])
    # raw JSON text: NaN and Infinity are not JSON, as a hostile file may still hold
    key = f.split(".")
    target = o
    for k in key[:-1]:
        target = target[k]
    target[key[-1]] = "@@"
    text = json.dumps(o, separators=(",", ":")).replace('"@@"', v)
    d = os.path.join(work, "r%d" % n)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(src, d)
    ls = list(lines)
    ls[at] = text
    open(os.path.join(d, "intervals.jsonl"), "w").write("\n".join(ls) + "\n")
    p = subprocess.run([iocurve, "report", d], capture_output=True, text=True)
    shutil.rmtree(d, ignore_errors=True)
    assert p.returncode in (0, 1), f"{f}={v}: report exited {p.returncode}: {p.stderr[-300:]}"
    if p.returncode == 0:
        return "accepted"
    where = f"intervals.jsonl:{at + 1}:"
    assert where in p.stderr, f"{f}={v}: {p.stderr[-300:]}"
    assert key[-1] in p.stderr or "not JSON" in p.stderr or "latencies" in p.stderr or \
        "service times" in p.stderr or "histogram" in p.stderr or "agree" in p.stderr or \
        "more than" in p.stderr, f"{f}={v}: {p.stderr[-300:]}"
    return "refused"
cases = [(f, v) for f in fields for v in values]
with concurrent.futures.ThreadPoolExecutor(4) as pool:
    got = [r.result() for r in [pool.submit(one, n, f, v) for n, (f, v) in enumerate(cases)]]
refused, accepted = got.count("refused"), got.count("accepted")
print(f"ok - report: {refused} extremes refused with file:line and field, {accepted} in range "
      f"accepted, none aborted ({len(fields)} fields x {len(values)} values)")
PY
echo "# hostile-numbers: all passed"
