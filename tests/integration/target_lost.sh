#!/bin/sh
# SPDX-License-Identifier: MIT
# A worker's file truncated, deleted or replaced mid-step, or holes punched in it
# mid-campaign: its operations fail with the cause named (agent, path, "truncated",
# "deleted", "replaced", "holes") in intervals.jsonl, the step's verdict and the
# campaign's error, instead of reads of nothing (or of another file) counted as I/O.
. "$(dirname "$0")/lib.sh"

command -v fallocate > /dev/null || { echo "# needs fallocate: skipped"; exit 77; }

F=$T/target/local-0-w0.dat

# lost NAME ACTION [STOP]: a campaign whose file ACTION (a command on $F) hits once
# its first step's first interval is in; the steps after it run on the lost file.
lost() {
	cat > "$T/$1.yaml" <<YAML
campaign: $1
agents: {local: 1}
target: {path: $T/target, size: 4MiB}
workers: 1
queue_depth: 4
interval: 100ms
warmup: 100ms
measure: 300ms
slo: {latency: 50ms}
${3:-}
workloads:
  - {name: r, rw: randread, block_size: 4KiB, load: {steps: [200, 200, 200]}}
YAML
	"$IOCURVE" run "$T/$1.yaml" --out "$T/$1-r" > "$T/$1.out" 2> "$T/$1.err" &
	run=$!
	wait_for "$T/$1-r/intervals.jsonl" '"step":0,.*"interval":1,' 30 ||
		{ kill "$run"; cat "$T/$1.out" "$T/$1.err"; fail "$1: the first step ran"; }
	sh -c "$2"
	status=0
	wait_exit "$run" 60 || status=$?
	grep -E "errors \(" "$T/$1.out" | head -2 | sed 's/^/# /'
	sed 's/^/# /' "$T/$1.err"
	return "$status"
}

lost truncated "truncate -s 1MiB '$F'" "stop: {errors: allow}" ||
	fail "truncated: with errors allowed the campaign ends complete"
R=$T/truncated-r
TR="(short read: )?file truncated to 1048576 bytes"
check "truncated: intervals.jsonl names path, offset, cause and agent" grep -Eq \
	"\"error\":\\{\"errno\":0,\"name\":\"\",\"path\":\"$F\",\"offset\":[0-9]+,\"cause\":\"$TR\",\"agent\":\"local-0\"\\}" \
	"$R/intervals.jsonl"
check "truncated: the step's verdict names the cause and the file" \
	grep -Eq "[0-9]+ errors \\($TR on $F\\)" "$T/truncated.out"
check "truncated: curve-r.json's step has the cause" \
	grep -Eq "\"cause\": \"$TR\"" "$R/curve-r.json"
check "truncated: the worker said so in the agent's log" \
	grep -q "$F: file truncated to 1048576 bytes; its operations fail from here on" "$R/agent-local-0.log"

# Errors not allowed: the campaign fails, naming agent, path and cause. A step with errors
# makes the next one cool down first: a probe of a file that stays gone fails every
# operation, which ends the cooldown at once ("failed"), not after cooldown.max's 10 s.
if lost deleted "rm '$F'" ""; then
	fail "deleted: the campaign fails"
fi
ok "deleted: the campaign fails"
check "deleted: its error names the cause, the file and the agent" grep -Eq \
	"I/O errors: [0-9]+ failed operations, the first file deleted on $F \\(agent local-0, offset [0-9]+\\)" \
	"$T/deleted.err"
check "deleted: the step's verdict names it" grep -Eq "[0-9]+ errors \\(file deleted on $F\\)" "$T/deleted.out"
check "deleted: the next step's cooldown ended at its first probe, whose operations all failed" \
	python3 - "$T/deleted-r/intervals.jsonl" <<'PY'
import json, sys
cool = [l for l in map(json.loads, open(sys.argv[1])) if "cooldown_ms" in l]
print("# cooldowns:", [(c["cooldown"], c["cooldown_ms"]) for c in cool])
assert cool and all(c["cooldown"] == "failed" and c["cooldown_ms"] < 2000 for c in cool), cool
PY
check "deleted: intervals.jsonl names it" \
	grep -q "\"path\":\"$F\",\"offset\":[0-9]*,\"cause\":\"file deleted\",\"agent\":\"local-0\"" \
	"$T/deleted-r/intervals.jsonl"

# Replaced by a copy of itself (same size and data, another inode): not the file laid out.
lost replaced "cp '$F' '$F.new' && mv '$F.new' '$F'" "stop: {errors: allow}" ||
	fail "replaced: with errors allowed the campaign ends complete"
check "replaced: the step's verdict names it" \
	grep -Eq "[0-9]+ errors \\(file replaced \\(inode changed\\) on $F\\)" "$T/replaced.out"

# Holes punched mid-campaign (size and inode kept): found at the next step's start.
lost punched "fallocate -p -o 1MiB -l 2MiB '$F'" "stop: {errors: allow}" ||
	fail "punched: with errors allowed the campaign ends complete"
check "punched: the next step's verdict names the holes" \
	grep -Eq "[0-9]+ errors \\(file has holes: 2MiB of 4MiB \\(made after its layout\\) on $F\\)" "$T/punched.out"
echo "# target-lost: all passed"
