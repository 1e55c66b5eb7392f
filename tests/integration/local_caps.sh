#!/bin/sh
# SPDX-License-Identifier: MIT
# Local agents sized by the campaign: agents.caps become the local agents' --max-*
# options, so workers: 50 runs here; without them the refusal says how to raise them.
. "$(dirname "$0")/lib.sh"

# campaign NAME WORKERS AGENTS-MAPPING: a tiny-rate sim campaign.
campaign() {
	cat > "$T/$1.yaml" <<YAML
campaign: $1
agents: $3
target: {sim: {servers: 4, service_time: 100us}}
workers: $2
queue_depth: 2
interval: 200ms
warmup: 200ms
measure: 400ms
workloads:
  - {name: rr, rw: randread, load: {steps: [100]}}
YAML
}

campaign capped 50 "{local: 1, caps: {workers: 64, queue_depth: 8}}"
"$IOCURVE" check "$T/capped.yaml" > "$T/check.out" 2>&1 || { cat "$T/check.out"; fail "check takes agents.caps"; }
check "check shows the local agents' caps" grep -q "caps: workers 64, queue depth 8" "$T/check.out"
"$IOCURVE" run "$T/capped.yaml" --out "$T/r1" > "$T/r1.out" 2> "$T/r1.err" ||
	{ cat "$T/r1.out" "$T/r1.err" "$T"/r1/agent-*.log; fail "workers: 50 runs on a local agent with caps {workers: 64}"; }
ok "workers: 50 runs on a local agent with caps {workers: 64}"
check "its one step is in curve.csv" test "$(wc -l < "$T/r1/curve.csv")" -eq 2

# Without caps, over the default (4 per CPU): the message names the agent's cap and the fix.
if [ $(( $(nproc) * 4 )) -lt 250 ]; then
	campaign nocaps 250 "{local: 1}"
	STATUS=0
	"$IOCURVE" run "$T/nocaps.yaml" --out "$T/r2" > "$T/r2.out" 2> "$T/r2.err" || STATUS=$?
	check "over the default cap the run fails" test "$STATUS" -ne 0
	check "the refusal says how to raise the cap" grep -q \
		"workers 250 is over this agent's cap of $(( $(nproc) * 4 )) (--max-workers); for local agents raise it with agents: {local: 1, caps: {workers: 250}}" \
		"$T/r2.err"
fi

# caps are for local agents only, and bounded.
campaign sel 2 "{select: {count: 1}, caps: {workers: 64}}"
STATUS=0
"$IOCURVE" check "$T/sel.yaml" > "$T/sel.out" 2>&1 || STATUS=$?
check "caps with select is refused" grep -q "agents.caps: only applies to 'local'" "$T/sel.out"
campaign big 2 "{local: 1, caps: {workers: 100000}}"
"$IOCURVE" check "$T/big.yaml" > "$T/big.out" 2>&1 || true
check "a cap over the campaign's limit is refused" grep -q \
	"agents.caps.workers: expected a whole number 1..256, got '100000'" "$T/big.out"
