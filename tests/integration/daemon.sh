#!/bin/sh
# SPDX-License-Identifier: MIT
# The daemon: 3 registered agents, campaigns submitted back to back through the control
# socket (the second waits), status and agents listings, cancel, a killed watcher, /metrics.
. "$(dirname "$0")/lib.sh"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" a1 a2 a3 > /dev/null
PORT=$(free_port)
MPORT=$(free_port)
SOCK=$T/ctl.sock
"$IOCURVE" serve --listen "127.0.0.1:$PORT" --tls "$T/ca" --control "$SOCK" \
	--results "$T/results" --metrics "127.0.0.1:$MPORT" 2> "$T/serve.log" &
SERVE=$!
PIDS="$PIDS $SERVE"
wait_for "$T/serve.log" "control socket" 10 || { cat "$T/serve.log"; fail "serve starts"; }
check "the control socket is private (0600)" test "$(stat -c %a "$SOCK")" = 600
mkdir -p "$T/data"
for a in a1 a2 a3; do
	"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name $a --allow "$T/data" \
		--label zone=z1 2> "$T/$a.log" &
	PIDS="$PIDS $!"
done
for a in a1 a2 a3; do
	wait_for "$T/serve.log" "agent $a: clock offset" 15 || fail "agent $a joins"
done
"$IOCURVE" agents --coordinator "$SOCK" > "$T/agents.out" || fail "iocurve agents"
check "agents lists the three, idle, with their labels" \
	test "$(grep -c ' idle .*zone=z1' "$T/agents.out")" -eq 3

campaign() { # campaign NAME STEPS
	cat <<YAML
campaign: $1
agents: {select: {count: 3, labels: {zone: z1}}, wait: 20s}
target: {sim: {servers: 4, service_time: 500us}}
interval: 100ms
warmup: 100ms
measure: 200ms
workloads:
  - {name: rr, rw: randread, load: {steps: [$2]}}
YAML
}
campaign first "1000, 2000" > "$T/first.yaml"
campaign second "1000" > "$T/second.yaml"
"$IOCURVE" run "$T/first.yaml" --coordinator "$SOCK" > "$T/first.out" 2>&1 &
FIRST=$!
wait_for "$T/first.out" "submitted" 10 || fail "the first campaign is submitted"
"$IOCURVE" run "$T/second.yaml" --coordinator "$SOCK" > "$T/second.out" 2>&1 &
SECOND=$!
wait_for "$T/second.out" "queued behind the running campaign" 10 ||
	{ cat "$T/second.out"; fail "the second campaign waits for the first"; }
ok "the second campaign waits for the first"
"$IOCURVE" status --coordinator "$SOCK" > "$T/status1.out"
check "status shows the first running and the second queued" \
	sh -c "grep -q '^1 .*first .*running' '$T/status1.out' && grep -q '^2 .*second .*queued' '$T/status1.out'"
"$IOCURVE" run "$T/second.yaml" --coordinator "$SOCK" --no-wait > "$T/nowait.out" 2>&1 &&
	fail "--no-wait is refused while the fleet is busy"
check "--no-wait is refused while the fleet is busy" grep -q "busy" "$T/nowait.out"
wait_exit "$FIRST" 60 || { cat "$T/first.out"; fail "the first campaign completes"; }
ok "the first campaign completes"
wait_exit "$SECOND" 60 || { cat "$T/second.out"; fail "the second campaign completes"; }
ok "the second campaign completes after it"
"$IOCURVE" status --coordinator "$SOCK" > "$T/status2.out"
check "both are complete, with their results" \
	test "$(grep -c ' complete .*/results/' "$T/status2.out")" -eq 2
check "the second campaign's curve is on disk" \
	sh -c "ls '$T'/results/second-*/curve-rr.csv > /dev/null"
check "the plain progress lines reached the submitting terminal" \
	grep -q "step 1: achieved" "$T/first.out"

# A watcher killed mid-campaign does not stall the daemon.
campaign third "1000, 1000" > "$T/third.yaml"
"$IOCURVE" run "$T/third.yaml" --coordinator "$SOCK" --json > "$T/third.out" 2>&1 &
THIRD=$!
wait_for "$T/third.out" '"event":"step"' 15 || fail "the third campaign starts"
"$IOCURVE" watch 3 --coordinator "$SOCK" --json > "$T/watch.out" &
WATCH=$!
wait_for "$T/watch.out" '"event":"campaign"' 10 || fail "the watcher gets the campaign's history"
kill -KILL "$WATCH"
wait_exit "$THIRD" 60 || { cat "$T/third.out"; fail "a killed watcher does not stall the campaign"; }
ok "a killed watcher does not stall the campaign"
check "the watcher had seen the campaign's history" grep -q '"event":"campaign"' "$T/watch.out"
check "--json gives the event stream" grep -q '"event":"done","status":0' "$T/third.out"
# Over the control socket events travel as protobuf messages; the knee the runner found
# arrives intact in every point (the knee so far) and in workload_done.
check "the events from the daemon carry the knee of summary.json" python3 - "$T" <<'PY'
import glob, json, sys
t = sys.argv[1]
ev = [json.loads(l) for l in open(t + "/third.out") if l.startswith("{")]
w = json.load(open(glob.glob(t + "/results/third-*/summary.json")[0]))["workloads"][0]
kinds = [e["event"] for e in ev]
assert kinds[0] == "campaign" and kinds[-1] == "done", kinds
assert [e["step"] for e in ev if e["event"] == "point"] == [0, 1], ev
assert all(e["qd"] > 0 and e["per_worker"] > 0 for e in ev if e["event"] == "step"), ev
done = [e for e in ev if e["event"] == "workload_done"][0]
print("# workload_done:", done["knee_kind"], done["knee_tp"], "summary.json:", w["knee_kind"], w["knee_ops"])
assert done["knee_kind"] == w["knee_kind"] and abs(done["knee_tp"] - w["knee_ops"]) <= 0.05, done
last = [e for e in ev if e["event"] == "point"][-1]
assert (last["knee_kind"], last["knee_tp"]) == (done["knee_kind"], done["knee_tp"]), last
PY

# cancel: I/O stops on every agent within 2 seconds; finished steps stay.
campaign fourth "1000, 1000, 1000, 1000, 1000, 1000" > "$T/fourth.yaml"
"$IOCURVE" run "$T/fourth.yaml" --coordinator "$SOCK" > "$T/fourth.out" 2>&1 &
FOURTH=$!
wait_for "$T/fourth.out" "step 1: achieved" 30 || fail "the fourth campaign measures a step"
date +%s.%N > "$T/cancel-time"
"$IOCURVE" cancel 4 --coordinator "$SOCK" > "$T/cancel.out" || fail "iocurve cancel 4"
status=0
wait_exit "$FOURTH" 20 || status=$?
check "the cancelled campaign's run exits 1" test "$status" -eq 1
check "the cancel is reported" grep -q "cancelled by iocurve cancel" "$T/fourth.out"
python3 - "$T" <<'PY' || fail "I/O stops on every agent within 2 s of the cancel"
import datetime, re, sys
t = sys.argv[1]
cancel = float(open(t + "/cancel-time").read())
day = datetime.datetime.utcfromtimestamp(cancel).strftime("%Y-%m-%d")
for a in ("a1", "a2", "a3"):
    stops = [l for l in open(f"{t}/{a}.log") if "stopping workers (aborted)" in l]
    assert stops, f"{a} never stopped"
    hms = stops[-1].split()[0]
    when = datetime.datetime.strptime(f"{day} {hms}", "%Y-%m-%d %H:%M:%S.%f")
    delay = when.replace(tzinfo=datetime.timezone.utc).timestamp() - cancel
    print(f"# {a} stopped its workers {delay:.3f} s after the cancel")
    assert -0.5 < delay < 2.0, delay
PY
ok "I/O stops on every agent within 2 s of the cancel"
check "finished steps of the cancelled campaign are kept" \
	sh -c "test \$(tail -n +2 '$T'/results/fourth-*/curve.csv | wc -l) -ge 1"
"$IOCURVE" status --coordinator "$SOCK" > "$T/status3.out"
check "status says cancelled" grep -q '^4 .*fourth .*cancelled' "$T/status3.out"

python3 - "$MPORT" "$(dirname "$0")" <<'PY' || fail "/metrics serves Prometheus text"
import sys
sys.path.insert(0, sys.argv[2])
import promtext
fam, body = promtext.scrape(sys.argv[1])
assert fam["iocurve_agents_connected"]["samples"][0][2] == 3, body
assert fam["iocurve_steps_completed_total"]["type"] == "counter", body
peaks = {(l["campaign"], l["workload"]): (l, v) for _, l, v in fam["iocurve_peak"]["samples"]}
l, v = peaks[("1", "rr")]
assert l["unit"] == "ops/s" and 1900 < v < 2100, (l, v)
# Steps of 2 intervals are too few to judge: no valid point, no knee sample.
assert not fam["iocurve_knee"]["samples"], body
# The mean is a gauge of its own, not a quantile.
assert all(l.get("quantile") != "mean" for _, l, _ in fam["iocurve_step_latency_seconds"]["samples"]), body
assert fam["iocurve_step_latency_mean_seconds"]["samples"][0][2] > 0, body
print(f"# /metrics: {len(fam)} families, peak of campaign 1 {v:.1f} ops/s")
PY
ok "/metrics serves agents, the current step and the knees"

# SIGTERM with a campaign running: it is aborted, the agents are told, results are flushed.
campaign fifth "1000, 1000, 1000, 1000, 1000, 1000" > "$T/fifth.yaml"
"$IOCURVE" run "$T/fifth.yaml" --coordinator "$SOCK" > "$T/fifth.out" 2>&1 &
FIFTH=$!
wait_for "$T/fifth.out" "step 1: achieved" 30 || fail "the fifth campaign measures a step"
kill -TERM "$SERVE"
wait_exit "$SERVE" 15 || fail "serve exits 0 on SIGTERM, with a campaign running"
ok "serve exits 0 on SIGTERM, with a campaign running"
status=0
wait_exit "$FIFTH" 10 || status=$?
check "the campaign's run says why it ended" grep -q "shutting down" "$T/fifth.out"
check "and exits 1" test "$status" -eq 1
check "its finished steps were flushed" \
	sh -c "test \$(tail -n +2 '$T'/results/fifth-*/curve.csv | wc -l) -ge 1"
for a in a1 a2 a3; do
	check "agent $a was told to stop" grep -q "abort from coordinator: the daemon is shutting down" "$T/$a.log"
done
check "the control socket is removed" test ! -e "$SOCK"
echo "# daemon: all passed"
