#!/bin/sh
# SPDX-License-Identifier: MIT
# The terminal dashboard, in a tmux pane fed by dashboard-feed: what it shows, its keys.
. "$(dirname "$0")/lib.sh"

: "${DASHBOARD_FEED:?set by meson test}"
: "${IOCURVE_SOURCE:?set by meson test}"
. "$(dirname "$0")/pane.sh"

tx new-session -d -s "$S" -x 120 -y 40 \
	"$DASHBOARD_FEED $IOCURVE_SOURCE/tests/dashboard-events.txt 5 --exit-after 20"

# The sample ends in the second workload's second step, with this fleet interval.
check "the events are consumed" wait_screen ' 2 +1 +4004 +500\.5 .* 725us *$' 10
check "the header shows workload 2/2" on_screen 'workload 2/2 seqwrite-128k'
check "the header names the campaign" on_screen 'iocurve . demo-nvme'
check "the header shows the step and the planner's bound" on_screen 'step 2/(≤|<=)8'
check "the header shows the offered rate" on_screen 'offered 4000 ops/s'
check "the header shows the results directory" on_screen 'results results/demo-nvme-20240611-142233'
check "an agent row for local-0 with its ops/s" on_screen '^ local-0 +ready +[0-9]+ '
check "an agent row for local-1" on_screen '^ local-1 +ready +[0-9]+ '
check "the curve shows the current workload" on_screen '^Curve +seqwrite-128k'
check "a point inside the plot" on_screen '^ +[0-9.]* \|.*\*'
check "the SLO line across the plot" on_screen '^ +[0-9.]* \|[-*^K[]+-{30}'
check "the x axis in the workload's unit" on_screen 'MiB/s$'
check "the fleet's last intervals, warm-up marked" on_screen 'warm-up$'
check "the first workload's knee among the finished" on_screen 'randread-4k +83314 ops/s +104215 ops/s'

tx send-keys -t "$S" Right
check "Right shows the other workload's curve" wait_screen '^Curve +randread-4k +\(workload 1/2, done\)' 3
check "its knee is marked on the SLO line" on_screen '^ +[0-9.]* \|[-*]*K[-*]*$'
check "the knee in the report's words below" on_screen '^Performance @ 1.00ms \(p99\): 83314 ops/s'
check "its legend gives the knee" on_screen 'K knee 83314 ops/s'
check "its clipped max step is drawn as ^ at the top" on_screen '^ +3 \| +\^'

# row_of NAME: the pane line of an agent's row.
row_of() { grep -n "^ $1 " "$T/screen" | cut -d: -f1; }
# sorted_by TITLE SECONDS: until the agents' column TITLE is the sort key (the title in
# reverse video, the pane read with its attributes), then the screen.
sorted_by() {
	esc=$(printf '\033')
	n=0
	until tx capture-pane -e -p -t "$S" | grep -Eq "\[([0-9]+;)*7(;[0-9]+)*m *$1 *$esc"; do
		n=$((n + 1))
		[ "$n" -gt $(($2 * 10)) ] && return 1
		sleep 0.1
	done
	screen
}
# s cycles name, ops/s, mean, p99: twice gives mean, highest first (local-1's 441us over 414us).
tx send-keys -t "$S" s s
sorted_by mean 3 || fail "s s makes mean the sort key"
check "s s sorts the agents by mean latency, slowest first" test "$(row_of local-1)" -lt "$(row_of local-0)"
tx send-keys -t "$S" s s
sorted_by agent 3 || fail "two more s make the name the sort key"
check "two more s: back to by name" test "$(row_of local-0)" -lt "$(row_of local-1)"

tx send-keys -t "$S" '?'
check "? opens the help" wait_screen 'sort the agents by name, ops/s, mean or p99' 3
tx send-keys -t "$S" '?'
check "? closes it" wait_screen '^Curve +randread-4k' 3
screen
if on_screen 'sort the agents by'; then fail "the help is gone"; fi

tx send-keys -t "$S" c
check "c asks before cancelling" wait_screen 'cancel the campaign\? \(y/n\)' 3
tx send-keys -t "$S" n
check "n keeps the campaign" wait_screen 'q detach' 3

# session_ends SECONDS: until the pane's session is gone.
session_ends() {
	n=0
	while tx has-session -t "$S" 2> /dev/null; do
		n=$((n + 1))
		[ "$n" -gt $(($1 * 10)) ] && return 1
		sleep 0.1
	done
}
tx send-keys -t "$S" q
check "q ends the dashboard within 3 s" session_ends 3

# A tall terminal: the curve takes the rows the agents leave, nothing sits empty.
tx new-session -d -s "$S" -x 160 -y 48 "$DASHBOARD_FEED $IOCURVE_SOURCE/tests/dashboard-events.txt 5 --exit-after 20"
check "160x48: the events are consumed" wait_screen ' 2 +1 +4004 +500\.5 .* 725us *$' 10
screen
gap=$(awk '/[^ ]/ { run = 0; next } { run++; if (run > max) max = run } END { print max + 0 }' "$T/screen")
echo "# 160x48: the longest run of blank rows is $gap"
check "160x48: no more than 3 blank rows in a row (a quarter of the screen stood empty)" \
	test "$gap" -le 3
tx send-keys -t "$S" q
session_ends 3 || true
tx kill-session -t "$S" 2> /dev/null || true

# A small terminal: sections are left out, nothing breaks.
tx new-session -d -s "$S" -x 20 -y 5 "$DASHBOARD_FEED $IOCURVE_SOURCE/tests/dashboard-events.txt 1 --exit-after 20"
check "a 20x5 terminal still shows the header" wait_screen 'iocurve' 5
tx resize-window -t "$S" -x 100 -y 30
check "after a resize to 100x30 the curve appears" wait_screen '^Curve +seqwrite-128k' 5
tx send-keys -t "$S" q
check "q ends the small dashboard" session_ends 3
# The real thing: `iocurve run` on a terminal shows the dashboard as the campaign runs.
# Two agents of 4 servers at 1ms: 8000 ops/s in all. The 9000 step falls short of its
# rate, so it never meets the SLO: the knee is at 7000, where the runner's analysis puts it.
cat > "$T/live.yaml" <<YAML
campaign: live
agents: {local: 2}
target: {sim: {servers: 4, service_time: 1ms}}
slo: {latency: 2ms}
queue_depth: 32
interval: 100ms
warmup: 100ms
measure: 300ms
workloads:
  - {name: rr, rw: randread, load: {steps: [2000, 4000, 6000, 7000, 9000]}}
YAML
tx new-session -d -s "$S" -x 120 -y 40 "$IOCURVE run $T/live.yaml --out $T/live; sleep 30"
check "iocurve run shows the dashboard header" wait_screen 'iocurve .*live .*workload 1/1 rr' 20
check "with an agent row" wait_screen '^ *local-0 +ready +[0-9]+' 20
check "and a curve point once a step is measured" wait_screen '^ +[0-9.]* *\|.*\*' 30
check "then the campaign completes on screen" wait_screen 'campaign complete' 40
tx kill-session -t "$S" 2> /dev/null || true
check "the run wrote its results meanwhile" test -s "$T/live/curve-rr.csv"

# same_knee SUMMARY FIGURE...: each figure ("6999 ops/s", "> 9000 ops/s", "none") is the
# knee of summary.json's first workload, as the dashboard rounds it.
same_knee() {
	python3 - "$@" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["workloads"][0]
for shown in sys.argv[2:]:
    print(f"# dashboard: {shown!r}; summary.json: {w['knee_kind']} {w['knee_ops']}")
    if w["knee_kind"] == "none":
        assert shown == "none", shown
        continue
    assert shown.startswith("> ") == (w["knee_kind"] == "above_peak"), shown
    assert abs(float(shown.lstrip("> ").split()[0]) - w["knee_ops"]) <= 0.55, shown
PY
}
finished=$(grep -oE 'rr +(none|(> )?[0-9]+ ops/s) +[0-9]+ ops/s' "$T/screen" | sed -E 's/^rr +//; s/ +[0-9]+ ops\/s$//')
legend=$(grep -oE 'knee (none|(> )?[0-9]+ ops/s)' "$T/screen" | sed 's/^knee //')
check "the dashboard's knee (finished workloads) is the knee in summary.json" \
	same_knee "$T/live/summary.json" "$finished"
check "and so is its knee in the curve's legend" same_knee "$T/live/summary.json" "$legend"

# The events carry that knee: each point the knee so far, the last one and workload_done
# the final one; the dashboard only shows it.
"$IOCURVE" run "$T/live.yaml" --out "$T/json" --json > "$T/json.out" 2> "$T/json.err" ||
	{ cat "$T/json.err"; fail "iocurve run --json runs the campaign"; }
check "--json: the last point's knee and workload_done's are summary.json's" python3 - "$T" <<'PY'
import json, sys
# (The run's own lines before the stream are not events.)
ev = [json.loads(l) for l in open(sys.argv[1] + "/json.out") if l.startswith("{")]
w = json.load(open(sys.argv[1] + "/json/summary.json"))["workloads"][0]
points = [e for e in ev if e["event"] == "point"]
done = [e for e in ev if e["event"] == "workload_done"][0]
print("# knee so far:", [(p["knee_kind"], p["knee_tp"]) for p in points], "summary:", w["knee_kind"], w["knee_ops"])
for e in (points[-1], done):
    assert e["knee_kind"] == w["knee_kind"], e
    assert abs(e["knee_tp"] - w["knee_ops"]) <= 0.05, e
assert ev[-1]["event"] == "done" and ev[-1]["status"] == 0, ev[-1]
PY
# A warning logged while the dashboard is up (a runner's "runs again" for a disturbed
# client) is a notice on the status line, never text written over the screen, and is
# printed to stderr once the terminal is back.
{
	head -5 "$IOCURVE_SOURCE/tests/dashboard-events.txt"
	echo "#log step 3: the client was disturbed; it runs again (retry 1 of 2)"
	sed -n '6,12p' "$IOCURVE_SOURCE/tests/dashboard-events.txt"
} > "$T/logfeed.txt"
tx kill-session -t "$S" 2> /dev/null || true
tx new-session -d -s "$S" -x 120 -y 40 \
	"$DASHBOARD_FEED $T/logfeed.txt 100 --exit-after 2; echo fed; sleep 30"
check "a warning logged meanwhile is a notice on the status line" \
	wait_screen '^ warn: step 3: the client was disturbed; it runs again \(retry 1 of 2\)' 10
check "and not a log line written over the screen" sh -c "! grep -q 'iocurve warn:' '$T/screen'"
check "once the terminal is back, it is printed as logged" \
	wait_screen '^[0-9:.]+ iocurve warn: step 3: the client was disturbed' 15
# the feed echoes "fed" after it ends: a capture between the two lines saw one only
wait_screen '^fed$' 5 > /dev/null || true
check "after the dashboard" sh -c "grep -e 'iocurve warn: step 3' -e '^fed\$' '$T/screen' | tr '\n' '|' | grep -q 'warn.*|fed|'"
tx kill-session -t "$S" 2> /dev/null || true

# c, then y, on an embedded run's dashboard: the campaign is cancelled cleanly, the
# results say so, and once the terminal is back the tables and the reason are printed.
sim_campaign long interval=100ms warmup=100ms measure=300ms \
	workloads="[{name: rr, rw: randread, load: {steps: [500, 600, 700, 800, 900, 1000, 1100, 1200]}}]" \
	> "$T/long.yaml"
tx new-session -d -s "$S" -x 120 -y 40 \
	"$IOCURVE run $T/long.yaml --out $T/cancel; echo exit=\$?; sleep 30"
check "the long campaign is on the dashboard" wait_screen 'iocurve .*long .*workload 1/1 rr' 20
check "and measures a step" wait_screen '^ +[0-9.]* *\|.*\*' 30
tx send-keys -t "$S" c
check "c asks before cancelling it" wait_screen 'cancel the campaign\? \(y/n\)' 3
tx send-keys -t "$S" y
check "y cancels: the run ends with status 1" wait_screen '^exit=1$' 15
check "the tables are printed once the terminal is back" on_screen "^results: $T/cancel$"
check "and the reason" on_screen '^iocurve: campaign long failed: cancelled from the dashboard'
tx kill-session -t "$S" 2> /dev/null || true
check "intervals.jsonl ends with the cancellation" \
	sh -c "tail -1 '$T/cancel/intervals.jsonl' | grep -q '\"end\":\"cancelled\",\"reason\":\"cancelled from the dashboard'"
echo "# dashboard: all passed"
