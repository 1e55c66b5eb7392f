#!/bin/sh
# SPDX-License-Identifier: MIT
# Marks on the timeline, from the command a user types: `iocurve mark` on a daemon's
# running campaign lands in intervals.jsonl at the step in progress, in the event
# stream (`iocurve watch --json`), in report.html and the time plot SVG (escaped), and
# survives `iocurve report`'s rebuild; bad marks are refused with their reason.
. "$(dirname "$0")/lib.sh"

daemon_certs a1 a2
daemon_serve "$T/serve.log" "$T/results"
mkdir -p "$T/data"
for a in a1 a2; do
	"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name $a \
		--allow "$T/data" 2> "$T/$a.log" &
	PIDS="$PIDS $!"
done
for a in a1 a2; do
	wait_for "$T/serve.log" "agent $a: clock offset" 15 || fail "agent $a joins"
done

"$IOCURVE" mark --coordinator "$SOCK" "too early" > "$T/none.out" 2>&1 &&
	fail "a mark with no campaign running is refused"
check "a mark with no campaign running is refused, saying so" \
	grep -q "iocurve mark: no campaign is running" "$T/none.out"

cat > "$T/c.yaml" <<YAML
campaign: marks
agents: {select: {count: 2}, wait: 20s}
target: {sim: {servers: 4, service_time: 500us}}
interval: 100ms
warmup: 100ms
measure: 900ms
workloads:
  - {name: rr, rw: randread, load: {steps: [1000, 2000, 3000]}}
YAML
"$IOCURVE" run "$T/c.yaml" --coordinator "$SOCK" > "$T/run.out" 2>&1 &
RUN=$!
PIDS="$PIDS $RUN"
wait_for "$T/run.out" "submitted" 10 || { cat "$T/run.out"; fail "the campaign is submitted"; }
ID=$(sed -n 's/.*campaign \([0-9][0-9]*\) submitted.*/\1/p' "$T/run.out" | head -1)
[ -n "$ID" ] || ID=1
wait_for "$T/run.out" "step 2:" 30 || { cat "$T/run.out"; fail "the second step starts"; }
# The mark goes in past the second step's warm-up: once the fleet's line of its first
# interval is in intervals.jsonl.
DIR=$(ls -d "$T"/results/marks-*)
wait_for "$DIR/intervals.jsonl" '"step":1,"offered_ops":[0-9.]*,"interval":0,"agent":"\*"' 30 ||
	{ cat "$T/run.out"; fail "the second step's warm-up ends"; }
"$IOCURVE" mark --coordinator "$SOCK" "$ID" "cache enabled" > "$T/mark.out" 2>&1 ||
	{ cat "$T/mark.out"; fail "iocurve mark ID TEXT is taken"; }
check "the reply says where the mark landed" \
	grep -Eq "^campaign $ID: marked at rr step 2, interval [0-9]+ \([0-9.]+ s into the step\)$" \
	"$T/mark.out"
"$IOCURVE" mark --coordinator "$SOCK" '<script>alert(1)</script> & "x"' > "$T/mark2.out" 2>&1 ||
	{ cat "$T/mark2.out"; fail "a mark without ID marks the running campaign"; }
ok "a mark without ID marks the running campaign"

# Refusals, each with its reason (the client's own checks, then the daemon's).
refused() { # refused DESCRIPTION PATTERN ARGS...
	desc=$1 pat=$2
	shift 2
	if "$IOCURVE" mark --coordinator "$SOCK" "$@" > "$T/bad.out" 2>&1; then
		fail "$desc is refused"
	fi
	grep -q -- "$pat" "$T/bad.out" || { cat "$T/bad.out"; fail "$desc is refused: $pat"; }
	ok "$desc is refused: $(cat "$T/bad.out" | head -1)"
}
refused "an empty mark" "the text is empty" "$ID" ""
LONG=$(python3 -c 'print("x" * 201)')
refused "a mark over 200 bytes" "201 bytes long, over the 200" "$ID" "$LONG"
refused "a mark with a control character" "control character (0x1b) at byte 1" \
	"$ID" "$(printf '\033[31mred')"
refused "a mark that is not UTF-8" "not valid UTF-8" "$ID" "$(printf 'bad \377')"
refused "a mark for an unknown campaign" "no campaign 999" 999 "x"
refused "a mark with a bad ID" "ID" 0 "x"

wait_exit "$RUN" 60 || { cat "$T/run.out"; fail "the campaign completes"; }
ok "the campaign completes"
check "the plain progress lines show the mark" grep -q "mark (user) at step 2, interval .*: cache enabled" "$T/run.out"
"$IOCURVE" mark --coordinator "$SOCK" "$ID" "late" > "$T/late.out" 2>&1 &&
	fail "a mark on a complete campaign is refused"
check "a mark on a complete campaign is refused, saying so" \
	grep -q "campaign $ID is complete: only a running campaign takes marks" "$T/late.out"

python3 - "$DIR/intervals.jsonl" <<'PY' || fail "the marks are in intervals.jsonl at the second step"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
marks = [(i, l) for i, l in enumerate(lines) if "mark" in l]
assert len(marks) == 2, marks
(i, m), (j, m2) = marks
assert m["mark"] == "cache enabled" and m["source"] == "user", m
assert m["workload"] == "rr" and m["step"] == 1, m
assert m["format"] >= 4 and m["unix_ns"] > 0, m
# stamped in step 2's intervals: between its first and its last record lines
recs = [k for k, l in enumerate(lines) if l.get("agent") == "*" and l.get("step") == 1]
assert recs[0] - 10 < i < recs[-1], (i, recs)
assert "interval" in m and 0 <= m["interval"] < 10, m
assert 0.1e9 < m["at_ns"] < 1.0e9, m
assert m["interval"] == m["at_ns"] // 100000000, m
assert m2["mark"] == '<script>alert(1)</script> & "x"', m2
print("# mark at line", i + 1, "interval", m["interval"], "at", m["at_ns"] / 1e9, "s")
PY
ok "the marks are in intervals.jsonl at the second step"

# The event stream: a watcher gets the marks with the campaign's history.
"$IOCURVE" watch --coordinator "$SOCK" "$ID" --json > "$T/watch.json" 2> "$T/watch.err" || true
python3 - "$T/watch.json" <<'PY' || fail "the event stream carries the marks"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
marks = [e for e in ev if e.get("event") == "mark"]
assert len(marks) == 2, marks
m = marks[0]
assert m["text"] == "cache enabled" and m["step"] == 1 and m["source"] == "user", m
assert m["between"] is False and m["workload"] == 0 and m["agent"] == "", m
# in order: after step 2's step event, before its point
kinds = [(e["event"], e.get("step")) for e in ev]
assert kinds.index(("step", 1)) < kinds.index(("mark", 1)) < kinds.index(("point", 1)), kinds
PY
ok "the event stream carries the marks"
if python3 -c "import jsonschema" 2> /dev/null; then
	python3 - "$T/watch.json" "$IOCURVE_SOURCE/docs/schema/events.schema.json" <<'PY' ||
import json, sys
import jsonschema
ev = jsonschema.Draft202012Validator(json.load(open(sys.argv[2])))
for l in open(sys.argv[1]):
    if l.startswith("{"):
        ev.validate(json.loads(l))
PY
		fail "the stream with its marks matches docs/schema/events.schema.json"
	ok "the stream with its marks matches docs/schema/events.schema.json"
fi

# report.html and the time plot draw them, escaped.
check_drawn() { # check_drawn DIR WHEN
	for f in "$1/report.html" "$1/time-rr.svg"; do
		check "$(basename "$f") $2 draws the mark as a labelled line" \
			sh -c "grep -q '<g class=\"mark\" data-source=\"user\" data-step=\"1\"' '$f' &&
				grep -q '>cache enabled</text>' '$f'"
		check "$(basename "$f") $2 escapes the mark's text" \
			sh -c "grep -q '&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;' '$f' &&
				! grep -q '<script>' '$f'"
	done
	check "report.html $2 lists the mark under the time plot" \
		grep -q '<tr><td class="mark">cache enabled</td><td>2</td>' "$1/report.html"
}
check_drawn "$DIR" "of the run"
python3 - "$DIR/time-rr.svg" <<'PY' || fail "the time plot is an SVG document that parses, the mark inside step 2"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = {"s": "http://www.w3.org/2000/svg"}
g = [e for e in root.iter("{http://www.w3.org/2000/svg}g") if e.get("class") == "mark"]
assert len(g) == 2, g
at = float(g[0].get("data-at"))
# steps of 1 s end to end: step 2 spans [1.0, 2.0)
assert 1.0 < at < 2.0, at
PY
ok "the time plot is an SVG document that parses, the mark inside step 2"

cp "$DIR/report.html" "$T/report.before"
rm "$DIR/report.html" "$DIR/time-rr.svg"
"$IOCURVE" report "$DIR" > "$T/report.out" 2>&1 || { cat "$T/report.out"; fail "iocurve report rebuilds"; }
check_drawn "$DIR" "rebuilt by iocurve report"
check "the rebuilt report.html is the run's, byte for byte" cmp -s "$T/report.before" "$DIR/report.html"

# The time series as CSV beside intervals.jsonl: the fleet's rows are its merged lines,
# and each interval's agent rows add up to its fleet row.
python3 - "$DIR" <<'PY' || fail "timeseries.csv and timeseries-agents.csv add up to intervals.jsonl"
import csv, json, sys, collections
import ivlines
d = sys.argv[1]
fleet = list(csv.DictReader(open(d + "/timeseries.csv")))
agents = list(csv.DictReader(open(d + "/timeseries-agents.csv")))
# the attempts that count: a retried step's void attempts are not in the CSVs either
merged = [l for l in ivlines.records(d + "/intervals.jsonl") if l["agent"] == "*"]
print("#", ivlines.retries(d + "/intervals.jsonl"), "void attempts left out")
assert len(fleet) == len(merged) == 3 * 10, (len(fleet), len(merged))
assert len(agents) == 2 * len(fleet), len(agents)
assert {a["agent"] for a in agents} == {"a1", "a2"}
by = collections.defaultdict(int)
for a in agents:
    by[(a["workload"], a["step"], a["interval"])] += int(a["ops"])
for f, m in zip(fleet, merged):
    key = (f["workload"], f["step"], f["interval"])
    assert int(f["ops"]) == m["ops"] == by[key], (key, f["ops"], m["ops"], by[key])
    assert int(f["step"]) == m["step"] + 1 and int(f["interval"]) == m["interval"], (f, m)
    assert f["warmup"] == str(int(m["warmup"])) and int(f["agents"]) == 2, f
    assert abs(float(f["ops_s"]) - m["ops"] / (m["duration_ns"] / 1e9)) < 0.1, f
    assert abs(float(f["p99_us"]) - m["p99_ns"] / 1e3) < 0.1, (f, m["p99_ns"])
# time_s: the time plot's axis, intervals end to end
times = [float(f["time_s"]) for f in fleet]
assert times[0] == 0 and all(b > a for a, b in zip(times, times[1:])), times
assert abs(times[10] - 1.0) < 0.05, times[10]
# each row's time is the workload's fleet intervals before it, end to end; an agent's
# row has its interval's
t, at = 0.0, {}
for m in merged:
    at[(str(m["step"] + 1), str(m["interval"]))] = t
    t += m["duration_ns"] / 1e9
for r in fleet + agents:
    assert abs(float(r["time_s"]) - at[(r["step"], r["interval"])]) < 0.0015, (r, at)
offered = [f["offered_ops"] for f in fleet]
assert offered[0] == "1000" and offered[10] == "2000" and offered[20] == "3000", offered
print("#", len(fleet), "fleet rows,", len(agents), "agent rows")
PY
ok "timeseries.csv and timeseries-agents.csv add up to intervals.jsonl"
head -1 "$DIR/timeseries.csv" | grep -q '^workload,step,offered_ops,interval,time_s,warmup,agents,workers,duration_s,ops,ops_s,mib_s,mean_us,p50_us,p99_us,max_us,errors,client_cpu_pct,host_cpu_pct,lag_mean_us$' ||
	fail "timeseries.csv's header is the documented one"
ok "timeseries.csv's header is the documented one"
cp "$DIR/timeseries.csv" "$DIR/timeseries-agents.csv" "$T/"
rm "$DIR/timeseries.csv" "$DIR/timeseries-agents.csv"
"$IOCURVE" report "$DIR" > /dev/null 2>&1 || fail "report rebuilds the time series"
check "report rebuilds both CSVs byte for byte" \
	sh -c "cmp -s '$T/timeseries.csv' '$DIR/timeseries.csv' && cmp -s '$T/timeseries-agents.csv' '$DIR/timeseries-agents.csv'"

# The dashboard of `iocurve watch`: m, a text, Enter sends a Mark on its connection;
# the daemon's answer shows on the status line and the mark lands in intervals.jsonl.
if command -v tmux > /dev/null 2>&1; then
	TS=iocurve-tlm-$$
	tx() { tmux -L "$TS" -f /dev/null "$@"; }
	trap 'tx kill-server 2>/dev/null || true; cleanup' EXIT
	sed 's/^campaign: marks$/campaign: watched/; s/\[1000, 2000, 3000\]/[1000, 1500, 2000, 2500]/' \
		"$T/c.yaml" > "$T/w.yaml"
	"$IOCURVE" run "$T/w.yaml" --coordinator "$SOCK" --detach > "$T/w.out" 2>&1 ||
		{ cat "$T/w.out"; fail "a second campaign is submitted"; }
	tx new-session -d -s w -x 120 -y 40 \
		"TERM=xterm-256color LANG=C.UTF-8 $IOCURVE watch --coordinator $SOCK; sleep 20"
	pane() {
		n=0
		while tx capture-pane -p -t w > "$T/pane" && ! grep -Eq -- "$1" "$T/pane"; do
			n=$((n + 1))
			[ "$n" -gt $(($2 * 10)) ] && { sed 's/^/# /' "$T/pane"; return 1; }
			sleep 0.1
		done
	}
	check "watch's dashboard offers m" pane 'm mark' 20
	tx send-keys -t w m
	tx send-keys -t w -l "from watch"
	tx send-keys -t w Enter
	check "the daemon's answer shows on its status line" \
		pane 'campaign [0-9]+: marked at rr step [0-9]+' 10
	check "and the mark above the fleet's intervals" pane 'mark [0-9]+: from watch' 10
	W=$(ls -d "$T"/results/watched-*)
	check "the mark is in the watched campaign's intervals.jsonl" \
		grep -q '"mark":"from watch","source":"user"' "$W/intervals.jsonl"
	tx kill-server 2> /dev/null || true
else
	echo "# tmux is not installed: watch's m key not checked"
fi
