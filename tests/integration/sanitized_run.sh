#!/bin/sh
# SPDX-License-Identifier: MIT
# A campaign through the coordinator and agents of the sanitized build (-Dfuzz=true:
# address and undefined sanitizers, leaks checked when each process exits): a background
# replay beside a rate workload on the sim, then a replay alone. Any leak or undefined
# behaviour ends a process with the sanitizer's report, which fails the test: the
# background's Prepare kept its trace (about 21 bytes per operation per campaign in a
# long-lived daemon), and a settings field without a wire offset formed a pointer
# before the Prepare.
. "$(dirname "$0")/lib.sh"

command -v fio > /dev/null || fail "fio is installed (apt-get install fio)"
dd if=/dev/zero of="$T/f.dat" bs=1M count=4 status=none
fio --name=rec --filename="$T/f.dat" --size=4M --rw=randread --bs=4k --rate_iops=200 \
	--runtime=1 --time_based --ioengine=psync --write_iolog="$T/trace.log" > "$T/fio.out" 2>&1 ||
	{ cat "$T/fio.out"; fail "fio records a trace"; }
cat > "$T/c.yaml" <<YAML
campaign: sanitized
agents: {local: 1}
target: {sim: {servers: 4, service_time: 200us}}
interval: 200ms
warmup: 200ms
measure: 1s
workloads:
  - {name: bg, background: true, replay: {file: trace.log, format: fio-iolog}, load: {speeds: [1]}}
  - {name: rr, rw: randread, block_size: 4KiB, load: {steps: [200, 400]}}
  - {name: again, replay: {file: trace.log, format: fio-iolog}, load: {speeds: [1]}}
YAML
export ASAN_OPTIONS="detect_leaks=1:exitcode=23:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
rc=0
"$IOCURVE" run "$T/c.yaml" --out "$T/r" > "$T/run.out" 2> "$T/run.err" || rc=$?
if grep -q "Sanitizer" "$T/run.err" "$T/r"/agent-*.log 2> /dev/null; then
	grep -h -A12 "ERROR: \|runtime error" "$T/run.err" "$T/r"/agent-*.log | head -60
	fail "no sanitizer report from the coordinator or its agents"
fi
[ "$rc" -eq 0 ] || { tail -20 "$T/run.err"; fail "the campaign runs under the sanitizers (exit $rc)"; }
ok "a background replay, a rate workload and a replay: no leak, nothing undefined"
