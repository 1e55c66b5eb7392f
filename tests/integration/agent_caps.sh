#!/bin/sh
# SPDX-License-Identifier: MIT
# The agent's own caps hold whatever the plan says: a Prepare over one fails the campaign
# with the agent, the field, the value and the cap; nothing is laid out.
. "$(dirname "$0")/lib.sh"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" capped > /dev/null
mkdir -p "$T/allowed"
PORT=$(free_port)

# run_capped NAME YAML-WORKLOAD-KEYS AGENT-FLAGS...: run one campaign against one agent.
run_capped() {
	name=$1 keys=$2
	shift 2
	cat > "$T/$name.yaml" <<YAML
campaign: $name
agents: {select: {count: 1}, wait: 20s}
target: {path: ${TARGET:-$T/allowed/$name}, size: 4MiB}
interval: 200ms
warmup: 200ms
measure: 400ms
workloads:
  - {name: rr, rw: randread, $keys, load: {steps: [100]}}
YAML
	"$IOCURVE" run "$T/$name.yaml" --coordinator-listen "127.0.0.1:$PORT" --tls "$T/ca" \
		--out "$T/$name-results" > "$T/$name.out" 2> "$T/$name.err" &
	RUN=$!
	"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name capped \
		--allow "$T/allowed" "$@" 2> "$T/$name-agent.log" &
	AG=$!
	PIDS="$PIDS $AG"
	STATUS=0
	wait_exit "$RUN" 60 || STATUS=$?
	kill -TERM "$AG"
	wait_exit "$AG" 10 || true
}

run_capped workers "workers: 3" --max-workers 2
check "a plan over --max-workers fails" test "$STATUS" -ne 0 -a "$STATUS" -ne 124
check "the error names agent, field, value and cap" grep -q \
	"agent capped: workload rr: workers 3 is over this agent's cap of 2 (--max-workers)" "$T/workers.err"
check "no worker file was made" test -z "$(ls -A "$T/allowed/")"

run_capped qd "queue_depth: 64" --max-queue-depth 32
check "the queue depth cap is named" grep -q \
	"agent capped: workload rr: queue_depth 64 is over this agent's cap of 32 (--max-queue-depth)" "$T/qd.err"

run_capped bs "block_size: 64KiB" --max-block-size 16KiB
check "the block size cap is named" grep -q \
	"agent capped: workload rr: block_size 65536 is over this agent's cap of 16384 (--max-block-size)" "$T/bs.err"

run_capped fs "block_size: 4KiB" --max-file-size 1MiB
check "the file size cap is named" grep -q \
	"agent capped: workload rr: file_size 4194304 is over this agent's cap of 1048576 (--max-file-size)" "$T/fs.err"
check "still no worker file was made" test -z "$(ls -A "$T/allowed/")"

# Within its caps the same agent runs the campaign.
run_capped fine "workers: 2, queue_depth: 32" --max-workers 2 --max-queue-depth 32 --max-file-size 4MiB
check "a plan within the caps runs" test "$STATUS" -eq 0
check "its results are written" test -s "$T/fine-results/curve.csv"

# A file set: its files on this agent (the workers' sets together) and its depth.
run_capped files "op: stat, fileset: {dirs: 10, files: 100}" --max-files 500
check "a file set over --max-files fails, named" grep -q \
	"agent capped: workload rr: fileset of 1000 files x 1 workers is 1000 files, over this agent's cap of 500 (--max-files)" "$T/files.err"
run_capped depth "op: stat, fileset: {dirs: 2, depth: 5, files: 1}"
check "a file set deeper than --max-depth (4 by default) fails, named" grep -q \
	"agent capped: workload rr: fileset depth 5 is over this agent's cap of 4 (--max-depth)" "$T/depth.err"
run_capped setbytes "op: stat, fileset: {dirs: 4, files: 100, size: 64KiB}" --max-file-size 1MiB
check "a set's bytes over --max-file-size fail, named" grep -q \
	"agent capped: workload rr: file_size 26214400 is over this agent's cap of 1048576 (--max-file-size)" "$T/setbytes.err"
check "no file set was made" test -z "$(find "$T/allowed" -name '*.set')"
TARGET=$T/elsewhere run_capped outside "op: stat, fileset: {dirs: 2, files: 10}"
check "a file set outside --allow fails, naming agent and path" grep -q \
	"agent capped: target $T/elsewhere is outside the allowed paths" "$T/outside.err"
check "and nothing is made there" test ! -e "$T/elsewhere"
run_capped setfine "op: stat, fileset: {dirs: 2, files: 10}" --max-files 20 --max-depth 1
check "a file set within the caps runs" test "$STATUS" -eq 0
check "and its set is laid out in the allowed directory" \
	test "$(find "$T/allowed/setfine/capped-w0.set" -type f | wc -l)" -eq 20

check "a bad cap value is refused at start" sh -c \
	"! '$IOCURVE_AGENT' --coordinator 127.0.0.1:1 --tls '$T/ca' --allow '$T/allowed' --max-workers 0 2> '$T/bad.err'"
check "and the error says what is expected" grep -q "max-workers 0: expected a count from 1" "$T/bad.err"
check "a bad --max-depth is refused at start" sh -c \
	"! '$IOCURVE_AGENT' --coordinator 127.0.0.1:1 --tls '$T/ca' --allow '$T/allowed' --max-depth 9 2> '$T/bad-depth.err'"
check "and the error says what is expected" grep -q "max-depth 9: expected a count from 1 to 8" "$T/bad-depth.err"
echo "# agent-caps: all passed"
