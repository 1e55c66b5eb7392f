#!/bin/sh
# SPDX-License-Identifier: MIT
# The agent holds to its bounds whatever a coordinator sends. caps-coordinator skips every
# check the real coordinator's parser makes and sends a stock agent (--max-file-size 1MiB)
# one Prepare or StartStep field past its bound at a time: each is refused with an Error
# naming the field and its bound, and no file under the allowed directory, a small tmpfs
# when we may mount one, ever holds more than the cap (apparent size or blocks).
. "$(dirname "$0")/lib.sh"
: "${CAPS_COORDINATOR:?set by meson test}"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" bounded > /dev/null
A="$T/allowed"
mkdir -p "$A"
# A file growing past its cap fills this, not the host's disk. Each case that reaches
# StartStep keeps its 1 MiB file for the size check at the end (15 of them today): 32 MiB
# leaves room for more cases, so a full tmpfs is only ever a file grown past its cap.
MOUNTED=0
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=32m iocurve-bounds "$A" 2> /dev/null; then
	MOUNTED=1
fi
bounds_cleanup() {
	for p in $PIDS; do kill "$p" 2> /dev/null || true; done
	for p in $PIDS; do wait "$p" 2> /dev/null || true; done
	if [ "$MOUNTED" -eq 1 ]; then umount "$A" 2> /dev/null || umount -l "$A" || true; fi
	cleanup
}
trap bounds_cleanup EXIT
CAP=1048576
PORT=$(free_port)

# The largest file under DIR, apparent size or allocated bytes, whichever is more.
largest() {
	find "$1" -type f -printf '%s %b\n' 2> /dev/null |
		awk '{ b = $2 * 512; m = $1 > b ? $1 : b; if (m > x) x = m } END { print x + 0 }'
}

# Each case: NAME|WORDS the Error must hold|FIELD=VALUE... (caps_coordinator.c), its
# target $A/NAME. The first runs within every bound and must complete its step; the last
# is the longest step the agent takes, 100000 intervals of 10 ms, which must run in
# bounded memory.
NAME300=$(printf '%0300d' 0)
cat > "$T/cases" << EOF
fine||prepare.rw=3 prepare.working_set=1048576
working-set|Prepare field working_set 67108864 is over its bound: file_size 1048576|prepare.rw=3 prepare.working_set=67108864
file-size|file_size 2097152 is over this agent's cap of 1048576 (--max-file-size)|prepare.rw=3 prepare.file_size=2097152
workload-name|Prepare field workload is over its bound of 256 bytes|prepare.workload=$NAME300
target-dir|target /etc is outside the allowed paths|prepare.target_dir=/etc
rw|Prepare field rw 9 is out of its bounds (0..5)|prepare.rw=9
block-size|Prepare field block_size 1000 is out of its bounds (1..16777216, a multiple of 512)|prepare.block_size=1000
block-size-cap|block_size 33554432 is over this agent's cap of 16777216 (--max-block-size)|prepare.block_size=33554432
workers|Prepare field workers 0 is out of its bounds (1..256)|prepare.workers=0
workers-cap|workers 100000 is over this agent's cap|prepare.workers=100000
queue-depth|Prepare field queue_depth 0 is out of its bounds (1..4096)|prepare.queue_depth=0
read-pct|Prepare field read_pct 101 is out of its bounds (0..100)|prepare.read_pct=101
align|Prepare field align 100 is out of its bounds (1..16777216, a multiple of 512)|prepare.align=100
random|Prepare field random 7 is out of its bounds (0..2)|prepare.random=7
compress|Prepare field compress_pct 100 is out of its bounds (0..99)|prepare.compress_pct=100
dedupe|Prepare field dedupe_pct 100 is out of its bounds (0..99)|prepare.dedupe_pct=100
clone|invalid clone name in Prepare|prepare.clone=../x
wake-slack|Prepare field wake_slack_ns 2000000 is out of its bounds (0..1000000)|prepare.wake_slack_ns=2000000
timing|Prepare field timing 2 is out of its bounds (0..1)|prepare.timing=2
zipf-theta|Prepare field zipf_theta nan is out of its bounds (0..10)|prepare.random=1 prepare.zipf_theta=nan
hot-set|Prepare field hot_set_pct 200 is out of its bounds (0..100 percent)|prepare.random=2 prepare.hot_set_pct=200 prepare.hot_ops_pct=50
fleet|Prepare fields worker_base 4294967295 and fleet_workers 1 are out of their bounds|prepare.worker_base=4294967295 prepare.fleet_workers=1 prepare.workers=2
lateness|Prepare field lateness_budget_ns 9223372036854775808 is over its bound|prepare.lateness_budget_ns=9223372036854775808
sim|Prepare field sim is out of its bounds (servers 0: 1..1024|sim.servers=0 sim.service_ns=1000
interval-short|StartStep field interval_ns 1 is out of its bounds (10000000..3600000000000|step.interval_ns=1
interval-long|StartStep field interval_ns 4611686018427387904 is out of its bounds|step.interval_ns=4611686018427387904 step.measure_ns=4611686018427387904
interval-count|are out of their bounds (together 1 to 100000 whole intervals of 10000000 ns)|step.interval_ns=10000000 step.measure_ns=2000000000000
durations-wrap|StartStep fields warmup_ns 18446744073609551616 and measure_ns 200000000 are out of their bounds|step.warmup_ns=18446744073609551616 step.measure_ns=200000000
rates-missing|StartStep field worker_rate has 1 rates, under its bound of one per worker (2)|prepare.workers=2 step.worker_rate=5
rate-nan|StartStep field worker_rate[0] nan is out of its bounds|step.worker_rate=nan
rate-negative|StartStep field worker_rate[0] -1 is out of its bounds|step.worker_rate=-1
start-late|out of their bound of 60 s either way|step.start_time=3600000000000
think|StartStep field think_ns 9223372036854775808 is over its bound|step.think_ns=9223372036854775808
worker-start|StartStep field worker_start_ns[0] 9223372036854775808 is over its bound|step.worker_start_ns=9223372036854775808
work-ops|StartStep field work_ops 9007199254740993 is over its bound of 9007199254740992|step.work_ops=9007199254740993
longest||timeout=2 step.interval_ns=10000000 step.measure_ns=1000000000000
EOF

# Run the cases from line $1 on: one agent, one stand-in, until it ends (all done, or the
# agent's connection ended: that case is answered "closed", the rest run again).
run_from() {
	tail -n "+$1" "$T/cases" | while IFS='|' read -r name words fields; do
		mkdir -p "$A/$name"
		printf 'case=%s prepare.target_dir=%s %s\n' "$name" "$A/$name" "$fields"
	done > "$T/args"
	# shellcheck disable=SC2046 # one word a field: no field holds a space
	"$CAPS_COORDINATOR" "$PORT" "$T/ca" $(cat "$T/args") >> "$T/answers" 2>> "$T/cc.err" &
	CC=$!
	"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name bounded \
		--allow "$A" --max-file-size 1MiB 2>> "$T/agent.log" &
	AG=$!
	PIDS="$PIDS $CC $AG"
	wait_exit "$CC" 200 > /dev/null 2>&1 || true
	# the agent's peak memory: a step's records are touched only as intervals arrive
	awk '/^VmHWM:/ { print $2 }' "/proc/$AG/status" > "$T/hwm" 2> /dev/null || true
	kill -TERM "$AG" 2> /dev/null || true
	wait_exit "$AG" 10 > /dev/null 2>&1 || true
}

: > "$T/answers"
total=$(wc -l < "$T/cases")
line=1
while [ "$line" -le "$total" ]; do
	run_from "$line"
	next=$(($(grep -c '^[a-z-]*: ' "$T/answers") + 1))
	[ "$next" -gt "$line" ] || break # the stand-in heard nothing at all
	line=$next
done

BAD=0
N=0
while IFS='|' read -r name words fields; do
	N=$((N + 1))
	got=$(grep "^$name: " "$T/answers" | head -n 1 | cut -d' ' -f2-)
	big=$(largest "$A/$name")
	if [ "$name" = fine ]; then
		case "$got" in "step-done: 3 intervals") good=1 ;; *) good=0 ;; esac
	elif [ "$name" = longest ]; then
		# the most intervals a step may have, of the shortest: taken, and running in
		# little memory (each record ~150 KB, 100000 of them)
		hwm=$(cat "$T/hwm" 2> /dev/null || echo 0)
		words="the step running (timeout) with the agent's peak memory under 64 MiB"
		got="$got; agent peak memory ${hwm:-?} kB"
		case "$got" in "timeout;"*) good=1 ;; *) good=0 ;; esac
		[ "${hwm:-0}" -gt 0 ] && [ "$hwm" -le 65536 ] || good=0
	else
		case "$got" in "error: "*"$words"*) good=1 ;; *) good=0 ;; esac
	fi
	if [ "$good" -eq 1 ] && [ "$big" -le "$CAP" ]; then
		ok "$name: $got; largest file $big bytes"
	else
		echo "not ok - $name: expected '${words:-step-done: 3 intervals}' and no file over" \
			"$CAP bytes; got '${got:-no answer}', largest file $big bytes"
		BAD=$((BAD + 1))
	fi
done < "$T/cases"

[ "$MOUNTED" -eq 1 ] && ok "(the allowed directory was a 32 MiB tmpfs)"
[ "$BAD" -eq 0 ] || fail "$BAD of $N cases were not refused by name or wrote past the cap"
echo "# agent-bounds: all passed"
