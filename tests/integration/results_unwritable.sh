#!/bin/sh
# SPDX-License-Identifier: MIT
# A daemon campaign's results directory turns unwritable mid-step (chattr +i: EPERM, as
# root would ignore chmod): the campaign fails at once naming the path and errno, no
# file says complete, and a restarted daemon lists it failed with that reason, never
# interrupted. Root only (mounts a tmpfs).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "# needs root (mounts a tmpfs, chattr)"; exit 77; }
M=$T/m
mkdir "$M"
mount -t tmpfs -o size=16m tmpfs "$M" || { echo "# cannot mount a tmpfs"; exit 77; }
undo() {
	[ -n "${R:-}" ] && chattr -i "$R" 2>/dev/null
	umount "$M" 2>/dev/null || true
}
trap 'undo; cleanup' EXIT
mkdir "$M/probe" && chattr +i "$M/probe" 2>/dev/null || { echo "# no chattr +i here"; exit 77; }
chattr -i "$M/probe"

daemon_certs a1
daemon_serve "$T/serve1.log" "$M/results"
daemon_agents "$T/serve1.log" a1
sim_campaign ro agents="$(daemon_select 1)" \
	workloads="[{name: a, rw: randread, load: {steps: [500, 1000, 1500, 2000, 2500, 3000, 3500, 4000]}}]" \
	> "$T/c.yaml"
"$IOCURVE" run "$T/c.yaml" --coordinator "$SOCK" > "$T/run.out" 2>&1 &
RUN=$!
PIDS="$PIDS $RUN"
wait_for "$T/run.out" "submitted" 10 || { cat "$T/run.out"; fail "the campaign is submitted"; }
R=$(ls -d "$M"/results/ro-*)
wait_for "$R/intervals.jsonl" '"workload":"a","step":2,' 30 || { cat "$T/serve1.log"; fail "step 3 starts"; }
chattr +i "$R"
set +e
wait_exit "$RUN" 60
rc=$?
set -e
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || { cat "$T/run.out"; fail "the client sees the campaign fail (rc $rc)"; }
ok "the client sees the campaign fail (exit $rc)"
check "the client is told the path and errno" \
	grep -Eq "$R/[^ ]*: cannot (create|write|remove)[^:]*: Operation not permitted" "$T/run.out"
check "it failed before its last step" sh -c "! grep -q '\"step\":7,' '$R/intervals.jsonl'"
"$IOCURVE" status --coordinator "$SOCK" > "$T/status1.out"
check "status lists it failed" grep -Eq "^1 +ro +failed" "$T/status1.out"
check "no file in the directory says complete" \
	sh -c "! grep -rlq '\"status\": \"complete\"' '$R'"
# The files already open still take appends: the end line says why.
check "intervals.jsonl ends with the failure, path and errno" \
	sh -c "tail -1 '$R/intervals.jsonl' | grep -q '\"end\":\"failed\",\"reason\":\"$R/.*Operation not permitted'"
check "summary.json, not replaceable, still says running" grep -q '"status": "running"' "$R/summary.json"
check "the daemon says it could not remove its mark" \
	grep -q "$R/running: cannot remove: Operation not permitted" "$T/serve1.log"

# The daemon restarts with the directory still unwritable: failed, with its reason.
kill -KILL "$SERVE"
wait "$SERVE" 2> /dev/null || true
daemon_serve "$T/serve2.log" "$M/results"
"$IOCURVE" status --coordinator "$SOCK" > "$T/status2.out"
check "after a restart it is listed failed" grep -Eq "^1 +ro +failed" "$T/status2.out"
check "with its reason (path and errno)" grep -q "Operation not permitted" "$T/status2.out"
check "and not interrupted" sh -c "! grep -q 'interrupted' '$T/status2.out' '$T/serve2.log'"
"$IOCURVE" resume 1 --coordinator "$SOCK" > "$T/resume.out" 2>&1 && fail "a failed campaign is not resumed"
check "resume says it is failed, not interrupted" grep -q "campaign 1 is failed, not interrupted" "$T/resume.out"
sed -n '1,3p' "$T/status2.out" | sed 's/^/# /'
