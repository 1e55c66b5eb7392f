#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes failing mid-step: a loop device over a file on a small tmpfs that fills up.
# The errno and the path reach intervals.jsonl, the step's verdict, the limiting
# factor and the campaign's error; the ramp stops on the error share; the campaign
# exits non-zero. Root only.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v losetup > /dev/null; then
	echo "# needs root and losetup: skipped"
	exit 77
fi
M=$T/small
mkdir "$M"
mount -t tmpfs -o size=2m tmpfs "$M" || { echo "# cannot mount a tmpfs"; exit 77; }
# A 64 MiB sparse file on 2 MiB: writes past the first 2 MiB find no space.
truncate -s 64M "$M/disk.img"
LOOP=$(losetup -f --show "$M/disk.img" 2> /dev/null) ||
	{ umount "$M"; echo "# no loop device: skipped"; exit 77; }
trap 'losetup -d "$LOOP"; umount "$M" 2>/dev/null || true; cleanup' EXIT

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" host1 > /dev/null

run_errors() { # run_errors NAME STOP LOAD
	port=$(free_port)
	cat > "$T/$1.yaml" <<YAML
campaign: $1
agents: {select: {count: 1}, wait: 20s}
target: {path: $LOOP, size: 64MiB}
workers: 1
queue_depth: 8
interval: 100ms
warmup: 100ms
measure: 500ms
slo: {latency: 50ms}
$2
workloads:
  - {name: w, rw: randwrite, block_size: 64KiB, load: $3}
YAML
	"$IOCURVE" run "$T/$1.yaml" --coordinator-listen "127.0.0.1:$port" --tls "$T/ca" \
		--out "$T/$1-r" > "$T/$1.out" 2> "$T/$1.err" &
	run=$!
	"$IOCURVE_AGENT" --coordinator "127.0.0.1:$port" --tls "$T/ca" --name host1 \
		--allow "$LOOP" --allow-device-writes 2> "$T/$1-agent.log" &
	agent=$!
	status=0
	wait_exit "$run" 60 || status=$?
	kill -TERM "$agent" 2> /dev/null
	wait_exit "$agent" 10 || true
	return "$status"
}

if run_errors errs "" "{ramp: {start: 200, factor: 2, max_steps: 3}}"; then
	cat "$T/errs.out" "$T/errs.err"
	fail "a campaign with I/O errors exits non-zero"
fi
ok "a campaign with I/O errors exits non-zero"
R=$T/errs-r
E='E(IO|NOSPC)'
check "intervals.jsonl carries the errno, path and offset" \
	grep -Eq "\"error\":\\{\"errno\":(5|28),\"name\":\"$E\",\"path\":\"$LOOP\",\"offset\":[0-9]+" \
	"$R/intervals.jsonl"
check "the merged interval names the agent" \
	grep -Eq "\"agent\":\"\\*\".*\"error\":\\{[^}]*\"agent\":\"host1\"" "$R/intervals.jsonl"
check "the limiting factor reads as errors: how many of the operations failed, the first's errno and device" \
	txt_grep "$R/summary.txt" -Eq "I/O errors: [0-9,]+ of [0-9,]+ operations failed \\([0-9.]+%\\), the first $E on $LOOP"
check "the step's verdict shows the errors by errno" \
	grep -Eq "[0-9]+ errors \\($E on $LOOP\\)" "$T/errs.out"
check "the ramp stopped on the error share, said as errors, not saturation" \
	grep -Eq "; I/O errors: [0-9,]+ of [0-9,]+ operations failed \\([0-9.]+%, over 1%\\)" "$T/errs.out"
check "no step reads the errors as saturation" sh -c "! grep -q 'saturated: .*I/O errors' '$T/errs.out'"
check "the campaign's error names them" \
	grep -Eq "I/O errors: [0-9]+ failed operations, the first $E on $LOOP \\(agent host1, offset [0-9]+\\)" \
	"$T/errs.err"
check "the curve's point has the first error" grep -Eq "\"errno\": (5|28)," "$R/curve-w.json"
steps=$(grep -c '^w,' "$R/curve.csv" || true)
check "the ramp stopped at the first step over 1% errors ($steps step)" test "$steps" -eq 1

# The same with errors allowed: every step runs, and the campaign ends complete.
run_errors allowed "stop: {errors: allow}" "{steps: [200, 400, 800]}" ||
	{ cat "$T/allowed.err"; fail "stop: {errors: allow} lets the campaign end complete"; }
ok "stop: {errors: allow} lets the campaign end complete"
steps=$(grep -c '^w,' "$T/allowed-r/curve.csv" || true)
check "every step of the allowed run is in curve.csv ($steps)" test "$steps" -eq 3
check "the allowed run did not fail" sh -c "! grep -q failed '$T/allowed.err'"
echo "# ioerrors: all passed"
