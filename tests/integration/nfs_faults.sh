#!/bin/sh
# SPDX-License-Identifier: MIT
# An NFS server that stops answering, and one restarted, mid-step (nfs-ganesha and rpcbind
# on 127.0.0.1, tests/integration/nfslib.sh). Known answers: ganesha stopped (SIGSTOP) for
# longer than the target's nfs.timeout (2 s) fails the step with words naming the export,
# how long it has not answered and the timeout, within the timeout and a second of polling;
# ganesha killed (SIGKILL) and started again within the timeout is reconnected: the
# campaign completes every step with every operation answered.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nfslib.sh"

EXP=$T/export
nfs_server_start "$EXP"
trap 'kill -CONT $NFS_GANESHA_PID 2> /dev/null; nfs_server_stop; cleanup' EXIT

campaign() { # campaign NAME: 8 KiB random reads at 500 ops/s, steps of 4 s
	cat > "$T/$1.yaml" <<YAML
campaign: $1
agents: {local: 1}
target:
  nfs: {server: 127.0.0.1, export: $EXP, path: run, timeout: ${2:-2s}}
  size: 4MiB
workers: 1
interval: 500ms
warmup: 0s
measure: 4s
steady: {extend: 0}
slo: {latency: 100ms}
workloads:
  - {name: rr, rw: randread, block_size: 8KiB, load: {steps: [500, 500, 500]}}
YAML
}

# step_started RESULTS N: the run's events say step N started
step_started() { grep -q "\"step\":$2" "$1/intervals.jsonl" 2> /dev/null; }

campaign stop
"$IOCURVE" run "$T/stop.yaml" --out "$T/stop" > "$T/stop.out" 2>&1 &
RUN=$!
nfs_until 60 step_started "$T/stop" 2 || fail "step 2 started"
kill -STOP "$NFS_GANESHA_PID"
stopped=$(date +%s)
rc=0
wait_exit "$RUN" 60 || rc=$?
ended=$(date +%s)
kill -CONT "$NFS_GANESHA_PID"
check "a server that stops answering fails the campaign (exit $rc)" test "$rc" -ne 0 -a "$rc" -ne 124
check "the words name the export, the silence and the timeout" grep -q \
	"nfs://127.0.0.1$EXP: the server has not answered for [2-4]\.[0-9] s (a read, [0-9]* calls unanswered; target nfs.timeout 2 s)" \
	"$T/stop.out"
check "the agent is lost as on_agent_loss says, and with none left the campaign fails" grep -q \
	"campaign stop failed: agent local-0 lost: storage lost: the target stopped answering, so its workers stopped: worker 0: nfs://" \
	"$T/stop.out"
check "the steps before it are kept" grep -q "^| 1 | 500 | 500 " "$T/stop.out"
check "within the timeout and the polling (took $((ended - stopped)) s)" test $((ended - stopped)) -le 10

campaign restart 30s
"$IOCURVE" run "$T/restart.yaml" --out "$T/restart" > "$T/restart.out" 2>&1 &
RUN=$!
nfs_until 60 step_started "$T/restart" 2 || fail "step 2 started"
kill -KILL "$NFS_GANESHA_PID"
wait "$NFS_GANESHA_PID" 2> /dev/null || true
sleep 1
nfs_ganesha_up
rc=0
wait_exit "$RUN" 120 || rc=$?
[ "$rc" -eq 0 ] || { cat "$T/restart.out"; tail -5 "$T/restart/agent-local-0.log"; }
check "a server killed and started again is reconnected: the campaign exits 0" test "$rc" -eq 0
check "every step ran: three in curve.csv, no errors" python3 - "$T/restart/curve.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sys.exit(not (len(rows) == 3 and all(int(r.get("errors", "0") or 0) == 0 for r in rows)))
PY
echo "all NFS fault checks passed"
