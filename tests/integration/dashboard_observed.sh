#!/bin/sh
# SPDX-License-Identifier: MIT
# The dashboard shows observe: sources' latest values: a gauge read at every poll
# (0.97), the interval it came at, and a source that never answers dimmed with the
# reason the poll gave, while the campaign runs on the simulated device.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/pane.sh"

python3 "$(dirname "$0")/observe_peers.py" silent busy > "$T/peers.out" 2> "$T/peers.err" &
PIDS="$PIDS $!"
wait_for "$T/peers.out" ready 10 || fail "the sources listen"
port() { awk -v k="$1" '$1 == k { print $2 }' "$T/peers.out"; }

cat > "$T/c.yaml" << YAML
campaign: dobs
agents: {local: 1}
target: {sim: {servers: 4, service_time: 200us}}
slo: {latency: 5ms}
interval: 500ms
warmup: 500ms
measure: 2s
workloads:
  - {name: rr, rw: randread, block_size: 4KiB, load: {steps: [200, 300]}}
observe:
  - {name: busy, url: 'http://127.0.0.1:$(port busy)/metrics', series: [{name: disk, metric: disk_busy}]}
  - {name: mute, url: 'http://127.0.0.1:$(port silent)/metrics', series: [x_total]}
YAML
tx new-session -d -s "$S" -x 140 -y 44 \
	"$IOCURVE run $T/c.yaml --out $T/r; echo exit=\$?; sleep 30"
check "the campaign is on the dashboard" wait_screen 'iocurve .*dobs .*workload 1/1 rr' 20
check "the observed panel is shown" wait_screen 'observed, latest' 20
check "the gauge's latest value and its interval" \
	wait_screen 'busy/disk +0\.97 step [0-9]+ int [0-9]+' 10
check "the silent source is said to be late, with the poll's reason" \
	wait_screen 'mute[^ ]* +- +no answer' 10
check "the run ends" wait_screen '^exit=0$' 60
# the panel's values are the lines intervals.jsonl keeps
python3 - "$T/r/intervals.jsonl" << 'PY' || fail "intervals.jsonl has the values the panel showed"
import json, sys
obs = [json.loads(l) for l in open(sys.argv[1]) if '"observe"' in l]
busy = [o["values"]["disk"] for o in obs if o["observe"] == "busy"]
mute = [o for o in obs if o["observe"] == "mute"]
print(f"# {len(busy)} busy lines, {len(mute)} mute lines")
assert busy and all(v == 0.97 for v in busy), busy
assert mute and all("no answer" in o.get("late", "") for o in mute), mute[:2]
PY
ok "the panel's values are the ones written"

# the same events as JSON lines (run --json), valid by docs/schema/events.schema.json
sed 's/steps: \[200, 300\]/steps: [200]/' "$T/c.yaml" > "$T/one.yaml"
"$IOCURVE" run "$T/one.yaml" --out "$T/j" --json > "$T/ev.jsonl" 2> "$T/ev.err" ||
	{ cat "$T/ev.err"; fail "run --json"; }
python3 - "$T/ev.jsonl" "$(dirname "$0")/../../docs/schema/events.schema.json" << 'PY' ||
import json, sys
import jsonschema
ev = jsonschema.Draft202012Validator(json.load(open(sys.argv[2])))
obs = [e for e in map(json.loads, open(sys.argv[1])) if e["event"] == "observed"]
for e in obs:
    ev.validate(e)
busy = [e for e in obs if e["source"] == "busy"]
mute = [e for e in obs if e["source"] == "mute"]
print(f"# {len(busy)} busy and {len(mute)} mute events")
assert busy and all(e["series"] == "disk" and e["has"] and e["value"] == 0.97 for e in busy), busy
assert mute and all(e["series"] == "" and not e["has"] and "no answer" in e["late"]
                    for e in mute), mute
assert not ev.is_valid(dict(busy[0], extra=1))
PY
	fail "observed events in run --json, valid by the schema"
ok "observed events in run --json: one per value, the silence with its reason, valid"
