#!/bin/sh
# SPDX-License-Identifier: MIT
# The campaign language from the command line: include:, ${NAME} and --set on a small sim
# campaign, run in process and through a daemon; plan.yaml holds the effective campaign,
# says where each value came from, and the run used the values set.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/conf"
cat > "$T/conf/base.yaml" <<'YAML'
target: {sim: {servers: 4, service_time: 200us}}
interval: 200ms
warmup: 200ms
measure: 400ms
YAML
cat > "$T/params.yaml" <<'YAML'
include: conf/base.yaml
campaign: params
agents:
  local: ${AGENTS:-1}
slo: {latency: 3ms}
workloads:
  - name: rr
    rw: randread
    load: {steps: [100]}
YAML

# check: the effective campaign printed, an unknown key named by its --set argument.
AGENTS=2 "$IOCURVE" check "$T/params.yaml" --set 'workloads.rr.load={steps: [150]}' \
	> "$T/check.out" 2>&1 || { cat "$T/check.out"; fail "check takes include, \${} and --set"; }
check "check prints the effective campaign" grep -q "^effective campaign (plan.yaml):" "$T/check.out"
check "check shows the agents from \${AGENTS}" grep -q "^  local: 2  # from \${AGENTS:-1}" "$T/check.out"
STATUS=0
"$IOCURVE" check "$T/params.yaml" --set workloads.rr.queue_dept=8 > "$T/bad.out" 2>&1 || STATUS=$?
check "a mistyped --set key is refused (exit 2)" test "$STATUS" -eq 2
check "the refusal names the --set argument" grep -q \
	"^iocurve: --set workloads.rr.queue_dept=8: unknown key 'queue_dept' in workload 'rr' (known: " \
	"$T/bad.out"
STATUS=0
env -u AGENTS "$IOCURVE" check "$T/params.yaml" --set 'agents.local=${N}' > "$T/lit.out" 2>&1 || STATUS=$?
check "a --set value is literal, not expanded" grep -q "agents.local: expected a whole number 1..64, got '\${N}'" "$T/lit.out"

# run in process: the values set are the values run.
"$IOCURVE" run "$T/params.yaml" --set 'workloads.rr.load={steps: [150]}' --set slo.latency=7ms \
	--out "$T/r1" > "$T/r1.out" 2> "$T/r1.err" ||
	{ cat "$T/r1.out" "$T/r1.err"; fail "run with --set runs"; }
ok "run with --set runs"
check "plan.yaml says the load came from --set" \
	grep -q "^    load:  # from --set workloads.rr.load={steps: \[150\]}" "$T/r1/plan.yaml"
check "plan.yaml says the SLO came from --set" \
	grep -q "^  latency: 7ms  # from --set slo.latency=7ms" "$T/r1/plan.yaml"
check "plan.yaml says where the included values came from" \
	grep -q "^    service_time: 200us  # from include $T/conf/base.yaml:1" "$T/r1/plan.yaml"
check "plan.yaml has nothing left to expand" python3 - "$T/r1/plan.yaml" <<'PY'
import sys
for line in open(sys.argv[1]):
    value = line.split("#")[0]
    assert not value.startswith("include:") and "${" not in value, line
PY
check "the step ran at the rate set" python3 - "$T/r1" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/curve.csv")))
assert [float(r["offered_ops"]) for r in rows] == [150.0], rows
s = json.load(open(sys.argv[1] + "/summary.json"))
assert s["slo_us"] == 7000.0, s["slo_us"]
PY

# through a daemon: it is handed the effective campaign, expanded in this shell.
mkdir -p "$T/data"
daemon_certs a1
daemon_serve "$T/serve.log" "$T/results"
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name a1 --allow "$T/data" \
	2> "$T/a1.log" &
PIDS="$PIDS $!"
wait_for "$T/serve.log" "agent a1: clock offset" 15 || fail "agent a1 joins"
cat > "$T/daemon.yaml" <<'YAML'
include: params.yaml
workloads:
  - {name: rr, rw: randread, load: {steps: ["${STEP}"]}}
YAML
STEP=120 "$IOCURVE" run "$T/daemon.yaml" --coordinator "$SOCK" \
	--set 'agents={select: {count: 1}, wait: 10s}' > "$T/d.out" 2>&1 ||
	{ cat "$T/d.out" "$T/serve.log"; fail "a daemon runs the effective campaign"; }
ok "a daemon runs the effective campaign"
PLAN=$(ls "$T"/results/*/plan.yaml | head -1)
check "the daemon's plan.yaml holds the value of \${STEP}" grep -q -- "- 120  # from \${STEP}" "$PLAN"
check "the daemon's step ran at it" grep -q "^rr,randread,4096,true,1,rate,120.0," "$(dirname "$PLAN")/curve.csv"
