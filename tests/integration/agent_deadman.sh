#!/bin/sh
# SPDX-License-Identifier: MIT
# An agent starved past its workers' dead-man (SIGSTOP 2 s, dead-man 750 ms, heartbeat
# 250 ms, the coordinator patient: 30 heartbeats): its workers stop their I/O, and the
# agent, once it runs again, keeps its connection (the silence was its own) and says it
# is lost to the campaign and why (starved). That is its loss, handled by
# on_agent_loss (continue: the campaign completes on the other agent, degraded), not a
# failure of the whole campaign. The client following it exits 3, or 0 with
# --accept-degraded.
. "$(dirname "$0")/lib.sh"

daemon_certs a1 a2
daemon_serve "$T/serve.log" "$T/results" --heartbeat 250ms --heartbeat-misses 30
mkdir -p "$T/data"
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name a1 --allow "$T/data" \
	2> "$T/a1.log" &
PIDS="$PIDS $!"
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name a2 --allow "$T/data" \
	--dead-man 750ms --heartbeat-misses 4 2> "$T/a2.log" &
A2=$!
PIDS="$PIDS $A2"
for a in a1 a2; do
	wait_for "$T/serve.log" "agent $a: clock offset" 15 || fail "agent $a joins"
done
cat > "$T/c.yaml" <<YAML
campaign: starved
agents: {select: {count: 2}, wait: 30s}
target: {sim: {servers: 4, service_time: 1ms}}
workers: 1
queue_depth: 16
interval: 200ms
warmup: 200ms
measure: 3s
workloads:
  - {name: a, rw: randread, load: {steps: [500, 1000]}}
YAML
"$IOCURVE" run "$T/c.yaml" --coordinator "$SOCK" > "$T/run.out" 2> "$T/run.err" &
RUN=$!
PIDS="$PIDS $RUN"
wait_for "$T/run.out" "submitted" 10 || { cat "$T/run.out" "$T/run.err"; fail "the campaign is submitted"; }
R=$(ls -d "$T"/results/starved-*)
# Stopped once step 1 measures (a2's first interval is in), woken well before its end.
wait_for "$R/intervals.jsonl" '"step":0,.*"agent":"a2"' 20 || { cat "$T/run.out" "$T/run.err"; fail "step 1 starts"; }
kill -STOP "$A2"
sleep 2
kill -CONT "$A2"
set +e
wait_exit "$RUN" 60
RC=$?
set -e
[ "$RC" -eq 3 ] || { cat "$T/run.out" "$T/run.err" "$T/serve.log"; fail "the campaign completes degraded: exit 3 ($RC)"; }
ok "the campaign completes on a1, degraded: exit 3"
check "the worker stopped on its dead-man" grep -q "dead-man: the agent had not heard" "$T/a2.log"
check "woken, the agent blames its own stall, not the coordinator (its idle timeout is 1 s)" \
	grep -Eq "the agent itself was stalled for [0-9.]+ s" "$T/a2.log"
check "the agent says it was starved, for how long" \
	grep -Eq "starved: the agent could not run for [0-9.]+ s" "$T/a2.log"
check "the daemon takes it as a2's loss (continue), with the agent's reason" \
	grep -Eq "agent a2 lost at a step 1, interval [0-9]+ \\(starved: the agent could not run for [0-9.]+ s.*continued with 1 of 2 agents" \
	"$T/serve.log"
check "the client's end line tells the loss" \
	grep -q "iocurve: campaign complete, degraded: agent a2 lost at a step 1, interval [0-9]* (starved: " "$T/run.err"
check "the client's end report says it above the summary table" \
	grep -q "^degraded: agent a2 lost at a step 1, interval [0-9]* (starved: " "$T/run.out"
check "summary.txt says degraded" txt_grep "$R/summary.txt" -q "^degraded: agent a2 lost at a step 1"
check "step 2 ran on a1 alone" grep -q '"step":1,.*"agent":"a1"' "$R/intervals.jsonl"
"$IOCURVE" agents --coordinator "$SOCK" > "$T/agents.out"
check "a2 is back in the daemon, idle, for the next campaign" grep -Eq '^a2 .* idle' "$T/agents.out"
"$IOCURVE" status --coordinator "$SOCK" > "$T/status.out"
check "status lists it complete, and what it lost" \
	grep -q "complete: campaign complete, degraded: agent a2 lost at a step 1" "$T/status.out"
# watch of the finished campaign: 3, or 0 with --accept-degraded.
set +e
"$IOCURVE" watch 1 --coordinator "$SOCK" > "$T/w0.out" 2> "$T/w0.err"
RC=$?
set -e
check "watch of a degraded campaign exits 3 ($RC)" test "$RC" -eq 3
"$IOCURVE" watch 1 --coordinator "$SOCK" --accept-degraded > "$T/w.out" 2> "$T/w.err" ||
	{ cat "$T/w.out" "$T/w.err"; fail "watch --accept-degraded of a degraded campaign exits 0"; }
ok "watch --accept-degraded of a degraded campaign exits 0"
grep -o "starved: the agent could not run for [0-9.]* s" "$T/a2.log" | sed 's/^/# /'
echo "# agent-deadman: all passed"
