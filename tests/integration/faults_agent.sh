#!/bin/sh
# SPDX-License-Identifier: MIT
# Faults around an agent, with real processes: an agent stopped mid-step (its workers'
# dead-man stops their I/O, measured in /proc/PID/io), an agent whose stale session
# the coordinator still holds, an embedded `run` killed with SIGKILL.
. "$(dirname "$0")/lib.sh"
IOWATCH="$(dirname "$0")/iowatch.py"

campaign() { # campaign NAME TARGETDIR MEASURE
	cat <<YAML
campaign: $1
agents: {local: 1}
target: {path: $2, size: 16MiB, direct: true}
workers: 2
queue_depth: 4
interval: 1s
warmup: 1s
measure: $3
workloads:
  - {name: rr, rw: randread, load: {steps: [1000, 1000]}}
YAML
}

agent_of() { # the agent process allowed on DIR (not its workers)
	pgrep -o -f "iocurve-agent .*--allow $1" || true
}

wait_agent() { # wait_agent DIR SECONDS: until the agent runs a step
	n=0
	while [ -z "$(agent_of "$1")" ] || ! grep -q "step 1:" "$2" 2>/dev/null; do
		n=$((n + 1))
		[ "$n" -gt 300 ] && return 1
		sleep 0.1
	done
}

# 1. The agent stopped (SIGSTOP) mid-step: its workers stop within the dead-man (2 s) + 1 s,
#    the coordinator declares it lost after heartbeat x misses (1 s x 3) + 1 s.
campaign stall "$T/t1" 30s > "$T/stall.yaml"
"$IOCURVE" run "$T/stall.yaml" --out "$T/r1" > "$T/r1.out" 2> "$T/r1.err" &
RUN=$!
PIDS="$PIDS $RUN"
wait_agent "$T/t1" "$T/r1/agent-local-0.log" || { cat "$T/r1.err"; fail "the stall run starts a step"; }
A=$(agent_of "$T/t1")
m=$(python3 "$IOWATCH" --agent "$A" --action "kill -STOP $A" --detect "$T/r1.err" "agent local-0" \
	--watch 6)
kill -CONT "$A"
echo "# SIGSTOP agent: $m"
stopped=$(echo "$m" | sed 's/.*io_stopped_after=\([0-9.]*\).*/\1/')
detected=$(echo "$m" | sed 's/.*detected_after=\([-0-9.]*\).*/\1/')
check "workers' I/O stops within the dead-man + 1 s ($stopped s)" \
	awk "BEGIN { exit !(0 < $stopped && $stopped <= 3.0) }"
check "the coordinator declares the stopped agent lost within 3 + 1 s ($detected s)" \
	awk "BEGIN { exit !(0 < $detected && $detected <= 4.0) }"
wait_exit "$RUN" 20 || true
check "the worker says why it stopped" grep -q "dead-man: the agent had not heard" "$T/r1/agent-local-0.log"

# 2. Embedded run SIGKILLed mid-step: its agents die with it, no certificate directory is
#    left; one left by a killed run is removed at the next start.
campaign killed "$T/t2" 30s > "$T/killed.yaml"
"$IOCURVE" run "$T/killed.yaml" --out "$T/r2" > "$T/r2.out" 2> "$T/r2.err" &
RUN=$!
PIDS="$PIDS $RUN"
wait_agent "$T/t2" "$T/r2/agent-local-0.log" || { cat "$T/r2.err"; fail "the run starts a step"; }
kill -KILL "$RUN"
wait "$RUN" 2>/dev/null || true
# Its agent and workers go with it (their link drops): waited for up to 3 s.
n=0
while [ -n "$(agent_of "$T/t2")" ] && [ "$n" -lt 30 ]; do
	n=$((n + 1))
	sleep 0.1
done
check "no iocurve-agent or worker is left within 3 s of the run's SIGKILL" test -z "$(agent_of "$T/t2")"
check "no certificate directory of the killed run is left" \
	test -z "$(ls -d /tmp/iocurve-run."$RUN".* 2>/dev/null)"
sh -c 'exit 0' &
DEAD=$!
wait "$DEAD"
mkdir -p "/tmp/iocurve-run.$DEAD.stale1"
echo key > "/tmp/iocurve-run.$DEAD.stale1/ca.key"
cat > "$T/sim.yaml" <<YAML
campaign: quick
agents: {local: 1}
target: {sim: {servers: 2, service_time: 100us}}
interval: 100ms
warmup: 100ms
measure: 100ms
workloads:
  - {name: rr, rw: randread, load: {steps: [500]}}
YAML
"$IOCURVE" run "$T/sim.yaml" --out "$T/r3" > "$T/r3.out" 2> "$T/r3.err" ||
	{ cat "$T/r3.err"; fail "a run after a killed one succeeds"; }
check "the next run removed the directory of a run that is gone" test ! -e "/tmp/iocurve-run.$DEAD.stale1"

# 3. Stale session: a2's host vanishes without a FIN (SIGSTOP), a2 comes back with the
#    same certificate: the new session wins, the old one is closed, nothing exits.
daemon_certs a2
daemon_serve "$T/serve.log" "$T/results"
mkdir -p "$T/data"
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name a2 --allow "$T/data" \
	2> "$T/old.log" &
OLD=$!
PIDS="$PIDS $OLD"
wait_for "$T/serve.log" "agent a2: clock offset" 15 || fail "a2 joins"
kill -STOP "$OLD"
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name a2 --allow "$T/data" \
	--dead-man 3s --heartbeat-misses 5 2> "$T/new.log" &
NEW=$!
PIDS="$PIDS $NEW"
wait_for "$T/new.log" "welcomed by the coordinator" 10 || { cat "$T/new.log"; fail "the new a2 is welcomed"; }
ok "the new a2 is welcomed while the old session is still open"
check "the agent's own --dead-man and --heartbeat-misses win over Welcome's" \
	grep -q "heartbeat every 1000 ms, coordinator lost after 5 missed, dead-man 3000 ms" "$T/new.log"
check "the coordinator says the old session was replaced" \
	grep -q "agent a2 (.*) lost: replaced by a new session" "$T/serve.log"
kill -KILL "$OLD"
sleep 2
check "the new a2 still runs" kill -0 "$NEW"
"$IOCURVE" agents --coordinator "$SOCK" > "$T/agents.out" || fail "iocurve agents"
check "agents lists a2 once, idle" test "$(grep -c '^a2 .* idle' "$T/agents.out")" -eq 1
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name a2 --allow "$T/data" \
	--dead-man 50ms 2> "$T/bad.log" && fail "--dead-man 50ms is refused"
check "--dead-man out of range is refused with its range" grep -q "from 100ms to 1h" "$T/bad.log"
echo "# faults-agent: all passed"
