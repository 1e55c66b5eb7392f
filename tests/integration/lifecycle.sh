#!/bin/sh
# SPDX-License-Identifier: MIT
# Interrupted and broken runs: results of finished steps survive, no process is left behind.
. "$(dirname "$0")/lib.sh"

campaign() { # campaign NAME TARGETDIR
	cat <<YAML
campaign: $1
agents: {local: 2}
target: {path: $2, size: 8MiB}
workers: 2
queue_depth: 4
interval: 500ms
warmup: 500ms
measure: 1s
workloads:
  - {name: rr, rw: randread, load: {steps: [400, 400, 400, 400, 400, 400, 400, 400]}}
YAML
}

rows() { # data rows of a curve.csv
	if [ -f "$1" ]; then echo $(($(wc -l < "$1") - 1)); else echo 0; fi
}

wait_rows() { # wait_rows CSV N SECONDS
	n=0
	while [ "$(rows "$1")" -lt "$2" ]; do
		n=$((n + 1))
		[ "$n" -gt $(($3 * 10)) ] && return 1
		sleep 0.1
	done
}

agents_of() { # processes (agents and their workers) allowed on DIR
	pgrep -f "iocurve-agent .*--allow $1" || true
}

# SIGTERM in the middle of a run.
campaign cancel "$T/t1" > "$T/cancel.yaml"
"$IOCURVE" run "$T/cancel.yaml" --out "$T/r1" > "$T/r1.out" 2> "$T/r1.err" &
RUN=$!
PIDS="$PIDS $RUN"
wait_rows "$T/r1/curve.csv" 2 60 || fail "two steps finish"

# Workers hold only what they own: no socket (above all not the agent's TLS connection).
workers_fds_clean() {
	n=0
	for agent in $(pgrep -f "iocurve-agent .*--name local-[01] --allow $T/t1"); do
		for w in $(pgrep -P "$agent"); do
			n=$((n + 1))
			if ls -l "/proc/$w/fd" | grep -q "socket:"; then
				ls -l "/proc/$w/fd"
				return 1
			fi
		done
	done
	echo "# checked $n worker processes"
	# 2 agents x 2 workers: each agent's workers are streams of one process per CPU at most
	[ "$n" -ge 2 ] && [ "$n" -le 4 ]
}
check "the workers' processes (one or two per agent) hold no inherited socket" workers_fds_clean
# The run hosts its campaign in the core `serve` runs, but listens only where its
# agents dial: no control socket, no /metrics.
listeners() { # listeners ss-OPTIONS: listening sockets of the run
	ss -H "$1" 2> /dev/null | grep -c "pid=$RUN," || true
}
check "the run listens on one TCP port (its agents') and no Unix socket" \
	sh -c "[ $(listeners -ltnp) -eq 1 ] && [ $(listeners -lxp) -eq 0 ]"
check "nor does it mark its results as a daemon's running campaign" test ! -e "$T/r1/running"
kill -TERM "$RUN"
status=0
wait_exit "$RUN" 15 || status=$?
check "interrupted run exits 1 (not killed, not hung)" test "$status" -eq 1
check "the interruption is reported" grep -q "interrupted by Terminated" "$T/r1.err"
check "finished steps are kept in curve.csv" test "$(rows "$T/r1/curve.csv")" -ge 2
check "summary.md is written for what finished" grep -q "| rr |" "$T/r1/summary.md"
python3 - "$T/r1" <<'PY' || fail "every finished step has complete interval records"
import json, sys, collections
d = sys.argv[1]
rows = open(d + "/curve.csv").read().splitlines()[1:]
steps = collections.Counter()
import ivlines
lines = ivlines.lines(d + "/intervals.jsonl")
# a step's intervals: warm-up and measured (3), or up to its window's end when a steady
# extension ran it on (the window line says where it was decided)
want = collections.defaultdict(lambda: 3)
for r in lines:
    if r.get("agent") == "*":
        steps[r["step"]] += 1
    if "window_to" in r:
        want[r["step"]] = r["window_to"]
for i in range(len(rows)):
    assert steps[i] == want[i], f"step {i}: {steps[i]} merged intervals, {want[i]} in its window"
# The last line says how the campaign ended, for `iocurve report` to say it too.
assert lines[-1].get("end") == "cancelled", lines[-1]
assert lines[-1]["reason"].startswith("interrupted by Terminated"), lines[-1]
PY
ok "every finished step has complete interval records"
check "no agent or worker is left running" test -z "$(agents_of "$T/t1")"
check "nor keeps its events for watchers (no events.jsonl)" test ! -e "$T/r1/events.jsonl"

# An agent killed in the middle of a run.
campaign broken "$T/t2" > "$T/broken.yaml"
"$IOCURVE" run "$T/broken.yaml" --out "$T/r2" > "$T/r2.out" 2> "$T/r2.err" &
RUN=$!
PIDS="$PIDS $RUN"
wait_rows "$T/r2/curve.csv" 1 60 || fail "one step finishes"
victim=$(pgrep -f "iocurve-agent .*--name local-1 --allow $T/t2" | head -n 1)
[ -n "$victim" ] || fail "found agent local-1"
kill -KILL "$victim"
status=0
wait_exit "$RUN" 20 || status=$?
check "the run fails when an agent is lost" test "$status" -eq 1
check "the message names the lost agent" grep -q "agent local-1 lost" "$T/r2.err"
check "the finished step is kept" test "$(rows "$T/r2/curve.csv")" -ge 1
check "the surviving agent stopped its workers" grep -q "stopping workers" "$T/r2/agent-local-0.log"
check "no agent or worker is left running (workers die with their agent)" test -z "$(agents_of "$T/t2")"
echo "# lifecycle: all passed"
