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

# Without caps, over the default (32 per CPU): the message names the agent's cap and the fix.
if [ $(( $(nproc) * 32 )) -lt 250 ]; then
	campaign nocaps 250 "{local: 1}"
	STATUS=0
	"$IOCURVE" run "$T/nocaps.yaml" --out "$T/r2" > "$T/r2.out" 2> "$T/r2.err" || STATUS=$?
	check "over the default cap the run fails" test "$STATUS" -ne 0
	check "the refusal says how to raise the cap" grep -q \
		"workers 250 is over this agent's cap of $(( $(nproc) * 32 )) (--max-workers); for local agents raise it with agents: {local: 1, caps: {workers: 250}}" \
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

# The seeds' shape on real files: 50 workers on this agent are 50 streams driven by one
# process per CPU at most (agent/pool.c), each with its own file and figures.
cat > "$T/streams.yaml" <<YAML
campaign: streams
agents: {local: 1}
target: {path: $T/files, size: 1MiB, direct: true}
workers: 50
queue_depth: 4
interval: 200ms
warmup: 200ms
measure: 1s
workloads:
  - {name: rr, rw: randread, block_size: 4KiB, load: {steps: [2000]}}
YAML
"$IOCURVE" run "$T/streams.yaml" --out "$T/r3" > "$T/r3.out" 2> "$T/r3.err" ||
	{ cat "$T/r3.out" "$T/r3.err" "$T"/r3/agent-*.log; fail "workers: 50 on files runs on the default caps"; }
ok "workers: 50 on files runs on the default caps"
PROCS=$(sed -n 's/.*forked 50 workers on .* in \([0-9]*\) process.*/\1/p' "$T"/r3/agent-local-0.log)
check "the agent drove its 50 workers from one process per CPU at most ($PROCS of $(nproc))" \
	test -n "$PROCS" -a "${PROCS:-99}" -le "$(nproc)"
check "each of the 50 has its own file" test "$(ls "$T/files" | grep -c '\.dat$')" -eq 50
python3 - "$T/r3/curve-rr.json" <<'PY' || fail "the step achieved its 2000 ops/s from the 50 streams"
import json, sys
s = json.load(open(sys.argv[1]))["steps"][0]
assert abs(s["achieved_ops"] - 2000) <= 40, s["achieved_ops"]
assert s["errors"] == 0
PY
ok "the step achieved its 2000 ops/s from the 50 streams"
