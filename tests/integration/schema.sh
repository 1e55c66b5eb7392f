#!/bin/sh
# SPDX-License-Identifier: MIT
# Machine output a script can trust: summary.json and the event stream (`run --json`)
# against docs/schema/*.json (python3-jsonschema; skips with 77 without it), the stream's
# final knees the same numbers as summary.json, and run's documented exit status 5 for
# --require-knee RATE not met (naming the workload), 0 when met, 2 for a bad RATE.
. "$(dirname "$0")/lib.sh"

python3 -c "import jsonschema" 2> /dev/null ||
	{ echo "# python3-jsonschema not installed (Debian package python3-jsonschema): skipped"; exit 77; }
SCHEMA=$(dirname "$0")/../../docs/schema

cat > "$T/two.yaml" <<YAML
campaign: schema
agents: {local: 1}
target: {sim: {servers: 1, service_time: 1ms}}
interval: 100ms
warmup: 100ms
measure: 500ms
slo: {latency: 5ms}
workloads:
  - {name: rr, rw: randread, load: {steps: [100, 600, 1200]}}
  - {name: sq, rw: read, block_size: 128k, load: {steps: [max]}}
YAML
rc=0
"$IOCURVE" run "$T/two.yaml" --out "$T/two" --json --require-knee 50 > "$T/two.jsonl" 2> "$T/two.err" || rc=$?
sed 's/^/# /' "$T/two.err" | grep -v "^# *|" | tail -3
check "--require-knee: a workload without a knee (max steps only) exits 5" test "$rc" -eq 5
# It names each workload below the rate as summary.json has it: sq (closed loop) with what
# limited it, and rr only when its knee is under 50 or it has none (a disturbed client).
check "and names it with what limited it, not a workload that met it" python3 -c "
import json, sys
ws = {w['name']: w for w in json.load(open(sys.argv[1] + '/two/summary.json'))['workloads']}
missed = []
for name in ('rr', 'sq'):
    w = ws[name]
    if w['knee_kind'] == 'none':
        missed.append('%s (no knee; %s)' % (name, w['limit']))
    elif w['knee_ops'] < 50:
        missed.append('%s (knee %s%.1f ops/s)' % (name, '> ' if w['knee_kind'] == 'above_peak' else '', w['knee_ops']))
assert missed[-1].startswith('sq (no knee; client queue depth'), missed
want = '--require-knee 50 not met: ' + ', '.join(missed) + ' (exit status 5)'
err = open(sys.argv[1] + '/two.err').read()
assert want in err, (want, err)
" "$T"

python3 - "$T" "$SCHEMA" <<'PY' || fail "summary.json and the events match docs/schema and each other"
import copy, json, sys
import jsonschema
T, S = sys.argv[1], sys.argv[2]
V = jsonschema.Draft202012Validator
ss, es = json.load(open(f"{S}/summary.schema.json")), json.load(open(f"{S}/events.schema.json"))
V.check_schema(ss)
V.check_schema(es)
summary = json.load(open(f"{T}/two/summary.json"))
V(ss).validate(summary)
events = [json.loads(l) for l in open(f"{T}/two.jsonl")]
ev = V(es)
for e in events:
    ev.validate(e)
kinds = {e["event"] for e in events}
assert {"campaign", "workload", "step", "interval", "point", "workload_done", "done"} <= kinds, kinds
# The schemas are not vacuous: a summary without its workloads' knee, an event of an
# unknown kind or a knee kind of another word are refused.
bad = copy.deepcopy(summary)
del bad["workloads"][0]["knee_ops"]
assert not V(ss).is_valid(bad)
assert not ev.is_valid({"event": "nonsense"})
wd = next(e for e in events if e["event"] == "workload_done")
assert not ev.is_valid(dict(wd, knee_kind="huge"))
# The final knee of each workload: the same numbers in the stream and in summary.json.
done = {e["name"]: e for e in events if e["event"] == "workload_done"}
assert set(done) == {w["name"] for w in summary["workloads"]}, (done, summary)
for w in summary["workloads"]:
    d = done[w["name"]]
    mib = d["unit"] == "MiB/s"
    knee, peak = (w["knee_mibps"], w["peak_mibps"]) if mib else (w["knee_ops"], w["peak_ops"])
    tol = 0.0006 if mib else 0.051  # summary.json rounds MiB/s to 3 places, ops/s to 1
    assert d["knee_kind"] == w["knee_kind"], (d, w)
    assert d["limit"] == w["limit"], (d["limit"], w["limit"])  # what limited it, the same words
    assert abs(d["knee_tp"] - knee) < tol, (d["knee_tp"], knee)
    assert abs(d["peak_tp"] - peak) < tol, (d["peak_tp"], peak)
    if w["knee_band"] is not None and w["knee_kind"] != "above_peak":
        assert abs(d["knee_lo"] - w["knee_band"][0]) < tol and abs(d["knee_hi"] - w["knee_band"][1]) < tol, (d, w["knee_band"])
    print(f"# {w['name']}: knee {d['knee_tp']} {d['unit']} ({d['knee_kind']}), peak {d['peak_tp']}: the stream and summary.json agree")
last = events[-1]
assert last["event"] == "done" and last["status"] == 0 and last["results"] == f"{T}/two", last
assert summary["status"] == "complete", summary["status"]
PY
ok "summary.json and the event stream validate against docs/schema; the final knees agree"

cat > "$T/one.yaml" <<YAML
campaign: one
agents: {local: 1}
target: {sim: {servers: 1, service_time: 1ms}}
interval: 100ms
warmup: 100ms
measure: 500ms
slo: {latency: 5ms}
workloads:
  - {name: rr, rw: randread, load: {steps: [100, 600, 1200]}}
YAML
rc=0
"$IOCURVE" run "$T/one.yaml" --out "$T/one" --require-knee 50 > "$T/one.out" 2>&1 || rc=$?
grep "require-knee" "$T/one.out" | sed 's/^/# /'
check "--require-knee met by every workload exits 0" test "$rc" -eq 0
check "and says so" grep -q -- "--require-knee 50: every workload's knee is at or above it" "$T/one.out"
rc=0
"$IOCURVE" run "$T/one.yaml" --out "$T/one-b" --require-knee 100000 > "$T/high.out" 2>&1 || rc=$?
grep "require-knee" "$T/high.out" | sed 's/^/# /'
check "--require-knee above the knee exits 5" test "$rc" -eq 5
check "and names the workload and its knee" \
	grep -Eq -- "--require-knee 100000 not met: rr \(knee (> )?[0-9.]+ ops/s\) \(exit status 5\)" "$T/high.out"
for bad in 0 abc -5 10x; do
	rc=0
	"$IOCURVE" run "$T/one.yaml" --out "$T/bad" --require-knee "$bad" > "$T/bad.out" 2>&1 || rc=$?
	check "--require-knee $bad is refused with status 2" \
		sh -c "test $rc -eq 2 && grep -q -- '--require-knee $bad: expected a rate above 0' '$T/bad.out'"
done
# Fixed work: its storm's figures validate too, and the schema holds them to their form.
cat > "$T/work.yaml" <<YAML
campaign: work
agents: {local: 1}
target: {sim: {servers: 1, service_time: 1ms}}
workers: 2
interval: 200ms
slo: {latency: 5ms}
workloads:
  - {name: boot, rw: randread, load: {work: {ops: 200}, start: {spread: 200ms}}}
YAML
"$IOCURVE" run "$T/work.yaml" --out "$T/work" > "$T/work.out" 2>&1 ||
	{ cat "$T/work.out"; fail "a fixed-work campaign runs"; }
python3 - "$T/work/summary.json" "$SCHEMA" <<'PY' || fail "a fixed-work summary.json validates; its storm has the documented form"
import copy, json, sys
from jsonschema import Draft202012Validator as V
from jsonschema.exceptions import ValidationError
s = json.load(open(sys.argv[1]))
ss = json.load(open(sys.argv[2] + "/summary.schema.json"))
V(ss).validate(s)
fw = s["workloads"][0]["fixed_work"]
assert fw["complete"] and fw["workers"] == 2 and fw["storm_s"] > 0, fw
bad = copy.deepcopy(s)
del bad["workloads"][0]["fixed_work"]["worker"]["p90_s"]
try:
    V(ss).validate(bad)
    raise SystemExit("a storm without its p90 validated")
except ValidationError:
    pass
PY
ok "a fixed-work summary.json validates; its storm has the documented form"
# The mark event (iocurve mark; timeline_marks.sh validates a daemon's real stream): as
# struct event_mark prints it, valid; without its text or of another source, not.
python3 - "$SCHEMA" <<'PY' || fail "the mark event matches docs/schema"
import json, sys
import jsonschema
es = json.load(open(sys.argv[1] + "/events.schema.json"))
ev = jsonschema.Draft202012Validator(es)
m = {"event": "mark", "workload": 0, "step": 1, "interval": 1, "between": False, "at_s": 0.56,
     "text": "cache enabled", "source": "user", "agent": ""}
ev.validate(m)
assert not ev.is_valid({k: v for k, v in m.items() if k != "text"})
assert not ev.is_valid(dict(m, source="robot"))
assert not ev.is_valid(dict(m, text=""))
PY
ok "the mark event matches docs/schema"
echo "# schema: all passed"
