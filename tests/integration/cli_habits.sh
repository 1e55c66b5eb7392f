#!/bin/sh
# SPDX-License-Identifier: MIT
# What a practitioner types: `run --json | json.tool`, `run --detach`, IOCURVE_COORDINATOR,
# --no-queue (and its old name --no-wait), the end summary and `status` of a daemon run.
. "$(dirname "$0")/lib.sh"

# An embedded run with --json: stdout is JSON lines only, from the first line on.
cat > "$T/local.yaml" <<YAML
campaign: local
agents: {local: 1}
target: {sim: {servers: 4, service_time: 200us}}
interval: 100ms
warmup: 100ms
measure: 300ms
workloads:
  - {name: rr, rw: randread, load: {steps: [500]}}
YAML
"$IOCURVE" run "$T/local.yaml" --out "$T/local" --json > "$T/local.json" 2> "$T/local.err" ||
	{ cat "$T/local.err"; fail "run --json exits 0"; }
check "run --json | python3 -m json.tool --json-lines" \
	sh -c "python3 -m json.tool --json-lines < '$T/local.json' > /dev/null"
check "its first line is the campaign event" sh -c "head -1 '$T/local.json' | grep -q '\"event\":\"campaign\"'"
check "the human line went to stderr" grep -q "campaign local: 1 workload(s), results in" "$T/local.err"
"$IOCURVE" run "$T/local.yaml" --detach > "$T/nodaemon.out" 2>&1 &&
	fail "--detach without a daemon is refused"
check "--detach without a daemon says what it needs" grep -q -- "--detach needs a daemon" "$T/nodaemon.out"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" a1 > /dev/null
PORT=$(free_port)
MPORT=$(free_port)
SOCK=$T/ctl.sock
# The daemon takes its control socket and certificates from the environment too.
IOCURVE_COORDINATOR=$SOCK IOCURVE_TLS=$T/ca "$IOCURVE" serve --listen "127.0.0.1:$PORT" \
	--results "$T/results" --metrics "127.0.0.1:$MPORT" 2> "$T/serve.log" &
PIDS="$PIDS $!"
wait_for "$T/serve.log" "control socket" 10 || { cat "$T/serve.log"; fail "serve starts from the environment"; }
check "serve found --control and --tls in the environment" test -S "$SOCK"
mkdir -p "$T/data"
IOCURVE_AGENT_COORDINATOR=127.0.0.1:$PORT IOCURVE_TLS=$T/ca "$IOCURVE_AGENT" --name a1 \
	--allow "$T/data" 2> "$T/a1.log" &
PIDS="$PIDS $!"
wait_for "$T/serve.log" "agent a1: clock offset" 15 || { cat "$T/a1.log"; fail "the agent dials from the environment"; }
ok "the agent takes its coordinator and certificates from the environment"

campaign() { # campaign NAME STEPS
	cat <<YAML
campaign: $1
agents: {select: {count: 1}, wait: 20s}
target: {sim: {servers: 4, service_time: 200us}}
interval: 100ms
warmup: 100ms
measure: 500ms
steady: {extend: 4}
slo: {latency: 1ms}
workloads:
  - {name: rr, rw: randread, load: {steps: [$2]}}
YAML
}
campaign long "1000, 1000, 1000, 1000, 1000, 1000" > "$T/long.yaml"
campaign short "1000, 2000" > "$T/short.yaml"

export IOCURVE_COORDINATOR="$SOCK"
start=$(date +%s%N)
"$IOCURVE" run "$T/long.yaml" --detach > "$T/detach.out" 2> "$T/detach.err" ||
	{ cat "$T/detach.err"; fail "run --detach exits 0"; }
took=$((($(date +%s%N) - start) / 1000000))
echo "# run --detach returned after $took ms"
# Behaviour, not speed: it returned before the campaign (6 steps of 0.6 s and their leads)
# could end, and the refusals below show the fleet still busy with it.
check "run --detach returns before its campaign ends" test "$took" -lt 3000
check "run --detach prints the campaign's id alone on stdout" test "$(cat "$T/detach.out")" = 1
check "and says how to follow it on stderr" grep -q "iocurve watch 1" "$T/detach.err"
"$IOCURVE" run "$T/short.yaml" --no-queue > "$T/noqueue.out" 2>&1 &&
	fail "--no-queue is refused while the fleet is busy"
check "--no-queue is refused while the fleet is busy" grep -q "busy" "$T/noqueue.out"
"$IOCURVE" run "$T/short.yaml" --no-wait > "$T/nowait.out" 2>&1 &&
	fail "--no-wait (the old name) is refused too"
check "--no-wait, the old name, still works" grep -q "busy" "$T/nowait.out"
# /metrics during the campaign as Prometheus itself reads it (promtool, Debian's prometheus).
scrape() { # scrape FILE: /metrics into FILE
	python3 -c "import sys, urllib.request; open(sys.argv[2], 'wb').write(urllib.request.urlopen('http://127.0.0.1:' + sys.argv[1] + '/metrics', timeout=10).read())" "$MPORT" "$1"
}
n=0
until scrape "$T/during.prom" && grep -q '^iocurve_step_latency_seconds{' "$T/during.prom"; do
	n=$((n + 1))
	[ "$n" -gt 100 ] && { cat "$T/during.prom"; fail "/metrics shows the running campaign's step"; }
	sleep 0.1
done
if command -v promtool > /dev/null; then
	check "promtool check metrics accepts /metrics during a campaign" \
		sh -c "promtool check metrics < '$T/during.prom' > '$T/promtool.during' 2>&1 || { cat '$T/promtool.during'; exit 1; }"
else
	echo "# promtool not installed (Debian package prometheus): its check during a campaign skipped"
fi
check "the p99 is a gauge labelled percentile, not a summary's quantile" \
	grep -Eq '^iocurve_step_latency_seconds\{campaign="1",percentile="99"\} [0-9.]+$' "$T/during.prom"
"$IOCURVE" run "$T/short.yaml" --detach --json > "$T/detach2.json" 2>&1 ||
	fail "run --detach --json exits 0"
check "run --detach --json prints one JSON line with the id and queued" python3 - "$T/detach2.json" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
e = json.loads(lines[0])
assert e["event"] == "submitted" and e["id"] == 2 and e["queued"] is True, e
PY
"$IOCURVE" watch 2 > "$T/watch2.out" 2>&1 || { cat "$T/watch2.out"; fail "watch 2 follows the queued campaign to its end"; }
ok "watch 2 follows the queued campaign to its end"

# A daemon's client prints the same end report as an embedded run.
"$IOCURVE" run "$T/short.yaml" > "$T/third.out" 2>&1 || { cat "$T/third.out"; fail "campaign 3 runs"; }
check "a daemon run ends with the step table and the knee" grep -q "^Performance @ 1.00ms" "$T/third.out"
check "and the headline" grep -Eq "^rr  .* @ 1.00ms storage mean .* peak " "$T/third.out"
check "and where the results are" grep -q "^results: $T/results/short-" "$T/third.out"
check "its meta.json records the client's command and the daemon" python3 -c "
import glob, json, sys
m = json.load(open(glob.glob(sys.argv[1] + '/results/short-*-3/meta.json')[0]))
assert m['command'] == 'iocurve run ' + sys.argv[1] + '/short.yaml (submitted to iocurve serve as campaign 3)', m['command']
assert [a['name'] for a in m['agents']] == ['a1'], m
" "$T"

# Cancelled: status says when and why, with the knees so far; the results say so at the top.
"$IOCURVE" run "$T/long.yaml" --detach > /dev/null 2>&1 || fail "campaign 4 is submitted"
n=0
until "$IOCURVE" status | grep -q '^4 .*running .*step 3'; do
	n=$((n + 1))
	[ "$n" -gt 200 ] && { "$IOCURVE" status; fail "campaign 4 reaches step 3"; }
	sleep 0.1
done
"$IOCURVE" cancel 4 > /dev/null || fail "iocurve cancel 4"
n=0
until "$IOCURVE" status | grep -q '^4 .*cancelled'; do
	n=$((n + 1))
	[ "$n" -gt 100 ] && fail "campaign 4 ends cancelled"
	sleep 0.1
done
"$IOCURVE" status > "$T/status.out"
sed 's/^/# /' "$T/status.out"
check "status: the cancelled campaign's end time" grep -Eq '^4 +long +cancelled .* [0-9-]+ [0-9:]+Z +[0-9-]+ [0-9:]+Z ' "$T/status.out"
check "status: the reason under it" grep -q '^     cancelled: cancelled by iocurve cancel' "$T/status.out"
# Campaign 2's knee as its summary.json has it: a bound above its peak, or none with what
# limited it (a client disturbed at every step is named, never passed off as a knee).
check "status: each finished workload's knee, under its campaign" python3 -c "
import glob, json, sys
w = json.load(open(glob.glob(sys.argv[1] + '/results/short-*-2/summary.json')[0]))['workloads'][0]
lines = open(sys.argv[1] + '/status.out').read().splitlines()
line = lines[[i for i, l in enumerate(lines) if l.startswith('2 ')][0] + 1]
if w['knee_kind'] == 'none':
    want = '     knee rr: none (%s)' % w['limit']
else:
    want = '     knee rr: %s%.0f ops/s (%s)' % ('> ' if w['knee_kind'] == 'above_peak' else '', w['knee_ops'], w['knee_kind'])
assert line == want, (line, want)
" "$T"
R4=$(ls -d "$T"/results/long-*-4)
check "summary.md of the cancelled campaign says so at the top" \
	sh -c "sed -n 3p '$R4/summary.md' | grep -q '^\*\*CANCELLED: cancelled by iocurve cancel'"
check "summary.txt too" sh -c "head -1 '$R4/summary.txt' | grep -q '^CANCELLED: '"
check "report.html shows it under the title" grep -q '<p class="ended" id="ended">CANCELLED: ' "$R4/report.html"
check "summary.json has the status and reason" python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))
assert s['status'] == 'cancelled' and s['status_reason'].startswith('cancelled by iocurve cancel'), s
" "$R4/summary.json"
mkdir "$T/copy"
cp "$R4/summary.md" "$R4/summary.json" "$R4/report.html" "$T/copy/"
rm "$R4/summary.md" "$R4/summary.json" "$R4/report.html"
"$IOCURVE" report "$R4" > /dev/null || fail "iocurve report of the cancelled campaign"
for f in summary.md summary.json report.html; do
	check "iocurve report rewrites $f of the cancelled campaign byte for byte" cmp "$R4/$f" "$T/copy/$f"
done

# compare keeps bounds and warns of setups that differ.
cat > "$T/over.yaml" <<YAML
campaign: over
agents: {select: {count: 1}, wait: 20s}
target: {sim: {servers: 4, service_time: 200us}}
interval: 100ms
warmup: 100ms
measure: 500ms
slo: {latency: 1ms}
queue_depth: 8
workloads:
  - {name: rr, rw: randread, load: {steps: [1000, 2000, 3000, 30000]}}
YAML
"$IOCURVE" run "$T/over.yaml" > "$T/over.out" 2>&1 || true # the 30000 step saturates
R2=$(ls -d "$T"/results/short-*-2)
R5=$(ls -d "$T"/results/over-*-5)
"$IOCURVE" compare "$R2" "$R5" "$(ls -d "$T"/results/short-*-3)" --out "$T/cmp" > "$T/cmp.out" 2>&1 ||
	{ cat "$T/cmp.out"; fail "compare runs"; }
sed 's/^/# /' "$T/cmp.out"
# Each run's knee cell, change and noise as its summary.json says it should read: a
# lower bound keeps its '>', a change against a bound is a limit (at most / at least), and
# a run with no knee (a client disturbed from its lowest step, named client-bound in its
# summary) is none beside a change of n/a: nothing to compare, never a figure.
python3 - "$T/cmp.out" "$R2" "$R5" "$(ls -d "$T"/results/short-*-3)" <<'PY' ||
import json, re, sys
runs = [json.load(open(d + "/summary.json"))["workloads"][0] for d in sys.argv[2:]]
row = [c.strip() for c in
       next(l for l in open(sys.argv[1]) if l.startswith("| rr | ")).strip().strip("|").split("|")]
def kind(w):
    if w["knee_kind"] == "none":
        assert w["limit"].startswith("client-bound"), w["limit"]
        return "none"
    return "bound" if w["knee_kind"] == "above_peak" else "knee"
def cell(w, text):
    k = kind(w)
    if k == "none":
        assert text == "none", (text, w["limit"])
    elif k == "bound":
        assert re.fullmatch(r"> [0-9]+\.[0-9]", text) and abs(float(text[2:]) - w["knee_ops"]) < 0.1, (text, w)
    else:
        assert re.fullmatch(r"[0-9]+\.[0-9]( \([0-9.]+-[0-9.]+\))?", text), text
        assert abs(float(text.split()[0]) - w["knee_ops"]) < 0.1, (text, w)
    return k
base = cell(runs[0], row[1])
for i, w in enumerate(runs[1:]):
    other = cell(w, row[2 + 3 * i])
    change, noise = row[3 + 3 * i], row[4 + 3 * i]
    if "none" in (base, other):
        want = ("n/a", "no knee to compare")
    elif base == "bound" and other == "bound":
        want = ("n/a (both lower bounds)", "spread unknown: a bound is not a measurement")
    elif base == "bound" or other == "bound":
        pct = 100 * (w["knee_ops"] - runs[0]["knee_ops"]) / runs[0]["knee_ops"]
        want = (("\u2264 " if base == "bound" else "\u2265 ") + "%+.1f%%" % pct,
                "spread unknown: a bound is not a measurement")
    else:
        pct = 100 * (w["knee_ops"] - runs[0]["knee_ops"]) / runs[0]["knee_ops"]
        want = ("%+.1f%%" % pct, noise)
    assert (change, noise) == want, (i, base, other, change, noise, want)
    print(f"# run {i + 2} against run 1: {base} vs {other}: {change}, {noise}")
PY
	fail "compare: each knee as its run's summary.json has it, and the change it allows"
ok "compare: each knee as its run's summary.json has it, and the change it allows"
check "compare: the setup difference is named" \
	grep -q "^warning: setups differ, $R5 against $R2: rr: queue_depth [0-9]* vs 8" "$T/cmp.out"
check "compare: the third run, same setup, draws no warning" \
	test "$(grep -c '^warning: setups differ' "$T/cmp.out")" -eq 1
CHANGE=$(grep '^| rr | ' "$T/cmp.out" | awk -F'|' '{gsub(/^ +| +$/, "", $5); print $5}')
check "compare.html has the change table, the change as the text has it, and the warning" \
	sh -c "grep -q '<table id=\"changes\">' '$T/cmp/compare.html' && grep -qF '<td>$CHANGE</td>' '$T/cmp/compare.html' && grep -q 'Setups differ, run 2 against run 1: rr: queue_depth' '$T/cmp/compare.html'"

# /metrics as Prometheus' conventions have it, read by a strict parser.
python3 - "$MPORT" "$(dirname "$0")" "$T" <<'PY' || fail "/metrics: families, bounds and the mean"
import sys
sys.path.insert(0, sys.argv[2])
import promtext
import glob, json
fam, body = promtext.scrape(sys.argv[1])
knees = {l["campaign"]: (l, v) for _, l, v in fam.get("iocurve_knee", {"samples": []})["samples"]}
peaks = {l["campaign"]: v for _, l, v in fam["iocurve_peak"]["samples"]}
# Campaigns 2 and 3 met the SLO at every valid step (2,000 ops/s on a 20,000 ops/s
# device): a lower bound, labelled so. A client disturbed at every step leaves none
# (summary.json says client-bound): no knee sample then, its peak still exported.
bounds = 0
for cid in ("2", "3"):
    s = json.load(open(glob.glob(sys.argv[3] + "/results/short-*-" + cid + "/summary.json")[0]))
    w = s["workloads"][0]
    assert abs(peaks[cid] - w["peak_ops"]) < 0.1, (cid, peaks, w["peak_ops"])
    if w["knee_kind"] == "none":
        assert cid not in knees, (cid, knees)
        assert w["limit"].startswith("client-bound"), w["limit"]
        print(f"# campaign {cid}: no knee ({w['limit']}): no knee sample")
        continue
    l, v = knees[cid]
    print(f"# knee of campaign {cid}: {v:.1f} {l['unit']}, kind {l['kind']}, bound {l['bound']}")
    assert l["kind"] == "above_peak" and l["bound"] == "lower" and l["unit"] == "ops/s", l
    assert abs(v - w["knee_ops"]) < 0.1 and 900 < v <= peaks[cid] + 0.05, (v, peaks, w)
    bounds += 1
if bounds == 0:
    print("# both short runs client-bound: the lower-bound label is not exercised")
assert "iocurve_step_latency_mean_seconds" in fam, body
PY
ok "/metrics: families grouped with HELP and TYPE, knees as summary.json has them (a lower bound labelled), the mean a gauge"
scrape "$T/after.prom" || fail "/metrics after the campaigns"
if command -v promtool > /dev/null; then
	check "promtool check metrics accepts /metrics after the campaigns (knees and peaks)" \
		sh -c "grep -q '^iocurve_knee{' '$T/after.prom' && { promtool check metrics < '$T/after.prom' > '$T/promtool.after' 2>&1 || { cat '$T/promtool.after'; exit 1; }; }"
else
	echo "# promtool not installed (Debian package prometheus): its check after the campaigns skipped"
fi
check "/metrics counts the agent port's frames: an agent's interval line a report read, a Pong a Ping at most" \
	python3 - "$T/after.prom" "$T/results" <<'PY'
import glob, json, re, sys
n = {}
for line in open(sys.argv[1]):
    m = re.match(r'^iocurve_agent_frames_total\{direction="(in|out)",kind="([a-z_]+)"\} ([0-9]+)$', line)
    if m:
        n[(m[1], m[2])] = int(m[3])
lines = sum(1 for f in glob.glob(sys.argv[2] + "/*/intervals.jsonl") for l in map(json.loads, open(f))
            if "interval" in l and l.get("agent") not in (None, "*"))
print(f"# frames: {n}; agent lines in intervals.jsonl: {lines}")
assert n[("in", "interval_report")] == lines, (n, lines)
assert n[("in", "hello")] >= 1 and n[("out", "welcome")] == n[("in", "hello")], n
assert n[("out", "heartbeat")] > 0 and 0 < n[("in", "pong")] <= n[("out", "ping")], n
PY
# --require-knee through the daemon: the client holds the knees of the events it follows.
rc=0
"$IOCURVE" run "$T/short.yaml" --require-knee 1000000 > "$T/req.out" 2>&1 || rc=$?
check "run --require-knee through a daemon exits 5 when the knee is below it" test "$rc" -eq 5
check "and names the workload" grep -Eq -- "--require-knee 1000000 not met: rr \((knee (> )?[0-9.]+ ops/s\)|no knee; client-bound: )" "$T/req.out"
echo "# cli-habits: all passed"
