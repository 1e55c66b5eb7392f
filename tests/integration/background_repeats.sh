#!/bin/sh
# SPDX-License-Identifier: MIT
# A certified agent that sends each background report ten times (the swarm's
# --bg-repeat) beside an honest one: the second copy is refused naming the agent and the
# interval, the agent leaves (on_agent_loss: continue) and the campaign completes on the
# honest agent. Before, every copy was merged and counted ("kept up (10000 of 1000
# ops/s)"), and the count reaching the expected one early released the step's point
# before the honest agent's last reports were in.
. "$(dirname "$0")/lib.sh"

: "${IOCURVE_SWARM:?set by meson test}"
serve_for_swarm
swarm bgx 2 --bg-repeat 10
cat > "$T/c.yaml" <<YAML
campaign: bgrepeat
agents: {select: {count: 2}, wait: 30s, on_agent_loss: continue}
target: {sim: {servers: 8, service_time: 200us}}
interval: 100ms
warmup: 100ms
measure: 500ms
retry: 0
workloads:
  - {name: backup, rw: write, block_size: 64KiB, background: true, load: {steps: [200]}}
  - {name: reads, rw: randread, block_size: 4KiB, load: {steps: [200, 400]}}
YAML
"$IOCURVE" run "$T/c.yaml" --coordinator "$SOCK" --accept-degraded > "$T/run.out" 2> "$T/run.err" ||
	{ tail -20 "$T/run.err" "$T/serve.log" "$T/bgx.log"; fail "the campaign completes on the honest agent"; }
ok "the campaign completes on the honest agent"
check "the repeated background report is refused, naming the agent and the interval" \
	grep -Eq "agent bgx-00000: bad background report: interval [0-9]+ reported twice" "$T/serve.log"
check "the honest agent's reports are not" \
	sh -c "! grep -q 'agent bgx-00001: bad background report' '$T/serve.log'"
