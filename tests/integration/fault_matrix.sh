#!/bin/sh
# SPDX-License-Identifier: MIT
# The fault matrix three times in a row (the long suite): every fault scenario of the
# default run, as real processes, must hold on each pass. FAULT_PASSES sets the count.
set -eu
: "${IOCURVE_SOURCE:?set by meson test}"
dir="$IOCURVE_SOURCE/tests/integration"
passes=${FAULT_PASSES:-3}
scenarios="crash.sh enospc.sh ioerrors.sh agent_loss.sh faults_agent.sh faults_netns.sh
conn_faults.sh conn_faults_netns.sh target_holes.sh target_lost.sh results_full.sh
results_unwritable.sh run_keys.sh daemon_stall.sh agent_deadman.sh daemon_resume.sh revoke.sh"
failed=0
for p in $(seq 1 "$passes"); do
	for s in $scenarios; do
		if "$dir/$s" > /dev/null 2>&1; then
			rc=0
		else
			rc=$?
		fi
		case $rc in
		0) echo "ok - pass $p: $s" ;;
		77) echo "ok - pass $p: $s # SKIP (needs root or a kernel feature)" ;;
		*)
			echo "not ok - pass $p: $s (exit $rc)"
			failed=$((failed + 1))
			;;
		esac
	done
done
echo "# fault matrix: $passes passes, $failed failed"
[ "$failed" -eq 0 ]
