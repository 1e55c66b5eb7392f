#!/bin/sh
# SPDX-License-Identifier: MIT
# run_fuzz.sh TARGET SECONDS SEED_DIR...: fuzz for SECONDS from the seeds (read only; new
# inputs go to a scratch corpus), print executions, coverage (edges from the seeds and at
# the end) and the crash input if any.
set -eu
exe=$1
secs=$2
shift 2
work=$(mktemp -d /tmp/iocurve-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus"
# Inputs up to 64 KiB, or as long as the longest seed (a results directory in one input).
maxlen=$(find "$@" -type f -printf '%s\n' 2> /dev/null | sort -n | tail -1)
[ "${maxlen:-0}" -gt 65536 ] || maxlen=65536
rc=0
"$exe" -max_total_time="$secs" -max_len="$maxlen" -timeout=10 -rss_limit_mb=2048 \
	-artifact_prefix="$work/" -print_final_stats=1 "$work/corpus" "$@" > "$work/log" 2>&1 || rc=$?
grep -E "^stat::number_of_executed_units|^#[0-9]+[[:space:]]+DONE" "$work/log" || true
# Coverage: edges (libFuzzer's "cov") reached by the seeds alone, then by the end.
seeds=$(grep -E "^#[0-9]+[[:space:]]+INITED" "$work/log" | sed -n 's/.*cov: \([0-9]*\).*/\1/p' | tail -1)
final=$(grep -E "^#[0-9]+[[:space:]]" "$work/log" | sed -n 's/.*cov: \([0-9]*\).*/\1/p' | tail -1)
echo "coverage: $(basename "$exe"): ${seeds:-?} edges from the seeds, ${final:-?} at the end"
if [ "$rc" -ne 0 ]; then
	tail -60 "$work/log"
	for a in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
		[ -e "$a" ] || continue
		echo "# input that failed ($a), base64: keep it in tests/fuzz/corpus as a regression"
		base64 "$a" | head -40
	done
	exit 1
fi
