#!/bin/sh
# SPDX-License-Identifier: MIT
# observe: sources that never answer, trickle a byte a second, send 1 GiB of /metrics
# (or say they will), answer malformed lines with NaN and 1e308, or redirect to another
# host, polled by a `serve` daemon through a campaign on the simulated device: every
# step ends on time, every interval of a late source says so (and the log), each
# hostile answer is refused or its values refused by name, the campaign completes and
# the daemon still answers afterwards.
. "$(dirname "$0")/lib.sh"

: "${IOCURVE_SWARM:?set by meson test}"
python3 "$(dirname "$0")/observe_peers.py" silent trickle huge biglen junk redirect busy kept \
	> "$T/peers.out" 2> "$T/peers.err" &
PIDS="$PIDS $!"
wait_for "$T/peers.out" ready 10 || fail "the hostile sources listen"
port() { awk -v k="$1" '$1 == k { print $2 }' "$T/peers.out"; }

"$IOCURVE" certs init "$T/ca" > /dev/null
PORT=$(free_port)
SOCK=$T/ctl.sock
MPORT=$(free_port)
"$IOCURVE" serve --listen "127.0.0.1:$PORT" --tls "$T/ca" --control "$SOCK" \
	--results "$T/res" --metrics "127.0.0.1:$MPORT" 2> "$T/serve.log" &
SERVE=$!
PIDS="$PIDS $SERVE"
wait_for "$T/serve.log" "control socket" 10 || { cat "$T/serve.log"; fail "serve starts"; }
"$IOCURVE_SWARM" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --agents 1 --prefix h \
	> "$T/swarm.out" 2> "$T/swarm.log" &
PIDS="$PIDS $!"

src() { # src NAME: a source of one counter series on that peer
	echo "  - {name: $1, url: 'http://127.0.0.1:$(port "$1")/metrics', series: [x_total]}"
}
{
	cat << YAML
campaign: hostile
agents: {select: {count: 1}, wait: 30s}
target: {sim: {servers: 4, service_time: 200us}}
# under the sim's 200 us: the first step violates, where the busy resource is at its limit
slo: {latency: 100us}
interval: 500ms
warmup: 500ms
measure: 2500ms
workloads:
  - {name: rr, rw: randread, block_size: 4KiB, load: {steps: [200]}}
observe:
YAML
	for k in silent trickle huge biglen redirect kept; do src $k; done
	echo "  - {name: junk, url: 'http://127.0.0.1:$(port junk)/metrics', series: [x_total, nan_gauge, big_gauge, many_gauge]}"
	# the daemon's own /metrics, a source that answers (its offered gauge moves when the
	# daemon's step does, which a poll at a step's boundary may see either side of: no limit
	# on it), and a resource 97% busy at every poll, saturated at 95%: named at the first step
	echo "  - {name: self, url: 'http://127.0.0.1:$MPORT/metrics', series: [{name: offered, metric: iocurve_step_offered_ops, unit: ' ops/s'}]}"
	echo "  - {name: busy, url: 'http://127.0.0.1:$(port busy)/metrics', series: [{name: disk, metric: disk_busy, saturated_at: 95%}]}"
} > "$T/c.yaml"
start=$(date +%s.%N)
"$IOCURVE" run "$T/c.yaml" --coordinator "$SOCK" > "$T/run.out" 2> "$T/run.err" ||
	{ cat "$T/run.err"; fail "the campaign completes beside the hostile sources"; }
took=$(echo "$(date +%s.%N) - $start" | bc)
ok "the campaign completes in ${took}s"
# one step of 3 s (5 measured intervals: judged); a source that held it would add its
# whole deadline or more
check "every step ended on time (under 8 s in all)" [ "$(echo "$took < 8" | bc)" = 1 ]
kill -0 "$SERVE" || fail "serve still runs"
"$IOCURVE" status --coordinator "$SOCK" > "$T/status.out" 2>&1 || fail "serve still answers"
grep -q "hostile *complete" "$T/status.out" || { cat "$T/status.out"; fail "status lists it complete"; }
ok "serve still runs and answers; the campaign is listed complete"

dir=$(ls -d "$T"/res/hostile-*)
python3 - "$dir" << 'PY' || fail "each source's lines"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1] + "/intervals.jsonl") if '"observe"' in l]
by = {}
for l in lines:
    by.setdefault(l["observe"], []).append(l)
def every(name, want, also=None):
    # each interval late with `want` (or `also`: a flood may not reach 4 MiB within a
    # deadline on a busy machine), `want` at least once
    ls = by.get(name, [])
    assert len(ls) == 6, (name, len(ls))  # one step of six intervals
    for l in ls:
        assert want in l["late"] or (also and also in l["late"]), (name, l)
        assert all(v is None for v in l["values"].values()), (name, l)
    first = [l["late"] for l in ls if want in l["late"]]
    assert first, (name, ls)
    print("# %s: %s (%d of %d intervals)" % (name, first[0], len(first), len(ls)))
every("silent", "no answer within 250 ms")
# a byte a second: a 250 ms poll sees a byte (too slowly) or none at all (no answer)
every("trickle", "no answer within 250 ms (it came too slowly)", "no answer within 250 ms")
every("huge", "answer over 4194304 bytes: refused", "no answer within 250 ms")
every("biglen", "answer over 4194304 bytes (Content-Length 1073741824): refused")
every("redirect", "redirect (302 to http://other.example/metrics) refused")
# a whole chunked answer on a connection the source keeps open is read (it waited for
# an EOF that never came: "no answer within 250 ms")
kept = by["kept"]
assert kept and all("late" not in l and l["values"]["x_total"] is not None for l in kept), kept
junk = by["junk"]
assert len(junk) == 6, len(junk)
for l in junk:
    assert "late" not in l, l
    assert l["values"]["nan_gauge"] is None and l["values"]["big_gauge"] is None, l
    assert "line 3 of the answer skipped: labels are not closed with '}'" in l["note"], l
    assert "x_total: value nan refused (not finite)" in l["note"], l
    assert "nan_gauge: value nan refused (not finite)" in l["note"], l
    assert "big_gauge: value 1e+308 refused (over 1e15)" in l["note"], l
    # two samples of 9e14: each within the bound, their sum not (it was taken: 1.8e15)
    assert l["values"]["many_gauge"] is None, l
    assert "many_gauge: the sum of its samples is over 1e15: refused" in l["note"], l
# x_total: a counter of 7 + 0 (NaN, 1e308 refused): a rate of 0 between polls
assert all(l["values"]["x_total"] == 0 for l in junk[1:]), junk
print("# junk: " + junk[0]["note"])
PY
ok "late sources say so at every interval; 1 GiB, a redirect, NaN and 1e308 refused by name"
check "the log says which source was late at which interval" \
	grep -q "observe silent: no answer at interval 2 (no answer within 250 ms)" "$T/serve.log"
check "a malformed answer is logged once, named" \
	test "$(grep -c "observe junk: line 3 of the answer skipped" "$T/serve.log")" -eq 1

# "from" the achieved rate of the first step (about 200 ops/s)
want=$(txt_grep "$dir/summary.txt" -Eo "Storage bottleneck, rr: storage: busy/disk busy 97% \(saturated at 95%\) from (19[0-9]|20[0-9]) ops/s") ||
	{ cat "$dir/summary.txt"; fail "the limiting factor names the observed resource at its limit, in summary.txt"; }
ok "the limiting factor names the observed resource at its limit: $want"
check "... in the run's end text" grep -qF "$want" "$T/run.out"
check "... in report.html" grep -qF "$want" "$dir/report.html"
check "... in summary.json's storage_limit" python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["workloads"][0]
assert w["storage_limit"] == sys.argv[2][len("Storage bottleneck, rr: "):], w["storage_limit"]
' "$dir/summary.json" "$want"
# The same run judged against an SLO no step violated: no limit was reached, so no
# resource is named as one, however busy (the curve said "raise the load").
mkdir "$T/relaxed"
cp -r "$dir/." "$T/relaxed/"
sed -i 's/^slo: {latency: 100us}$/slo: {latency: 50ms}/' "$T/relaxed/plan.yaml"
grep -q '^slo: {latency: 50ms}$' "$T/relaxed/plan.yaml" || fail "plan.yaml holds the campaign's slo line"
"$IOCURVE" report "$T/relaxed" > "$T/relaxed.out" 2>&1 || { cat "$T/relaxed.out"; fail "report the relaxed copy"; }
check "no step violated: no storage bottleneck named" sh -c "! grep -q 'Storage bottleneck' '$T/relaxed/summary.txt'"
check "... and summary.json's storage_limit is null" python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["workloads"][0]
assert w["storage_limit"] is None and w["limit"].startswith("none reached"), w
' "$T/relaxed/summary.json"
if python3 -c 'import jsonschema' 2> /dev/null; then
	check "summary.json with storage_limit meets docs/schema" python3 -c '
import json, jsonschema, sys
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
' "$dir/summary.json" "$IOCURVE_SOURCE/docs/schema/summary.schema.json"
fi
