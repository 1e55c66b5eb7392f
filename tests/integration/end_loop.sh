#!/bin/sh
# SPDX-License-Identifier: MIT
# A campaign's end does not stop the coordinator's loop: the end's files (intervals.jsonl
# fsync'd and read back, the curves, plots and summaries) are written beside it, so the
# fleet keeps its heartbeats however long they take. At 5,000 agents two steps leave
# 240 MB of intervals.jsonl, and the loop, writing them itself, went silent past the
# agents' idle timeout: every agent left. Here the end is made to take 6 s
# (IOCURVE_TEST_END_DELAY_MS) against a 3 s idle timeout (1 s heartbeats, 3 misses).
# Known answers: while the end is written, the daemon answers `agents` and lists both
# agents; after it, both agents are still joined (none
# lost, no silence in their logs), the campaign is complete, and the next campaign
# runs on the same sessions. A child killed during an end fails that run, said in its
# end line. SIGTERM during an end waits for its files.
. "$(dirname "$0")/lib.sh"

daemon_certs e1 e2
mkdir -p "$T/res"
IOCURVE_TEST_END_DELAY_MS=6000 daemon_serve "$T/serve.log" "$T/res"
daemon_agents "$T/serve.log" e1 e2
sim_campaign ending "agents=$(daemon_select 2)" "measure=400ms" \
	"workloads=[{name: a, rw: randread, load: {steps: [500, 1000]}}]" > "$T/c.yaml"

"$IOCURVE" run "$T/c.yaml" --coordinator "$SOCK" > "$T/run1.out" 2>&1 &
RUN=$!
wait_for "$T/run1.out" "step 2: achieved" 30 ||
	{ cat "$T/run1.out"; fail "the campaign reaches its end"; }
sleep 1
timeout 4 "$IOCURVE" agents --coordinator "$SOCK" > "$T/agents.out" ||
	fail "the daemon answers while the end's files are written"
ok "the daemon answers while the end's files are written"
check "... and lists both agents" test "$(grep -c '^e[12] ' "$T/agents.out")" -eq 2
check "the end is still being written (the answer did not wait for it)" kill -0 "$RUN"
sleep 4 # past the agents' idle timeout from the end's start
check "no agent was lost during the end" sh -c "! grep -q 'agent e[12] .*lost' '$T/serve.log'"
check "no agent heard silence" sh -c "! grep -q 'silent\|dead man' '$T/e1.log' '$T/e2.log'"
wait_exit "$RUN" 30 || { cat "$T/run1.out"; fail "the campaign ends complete (exit 0)"; }
check "the campaign ends complete" grep -q "campaign 1 (ending) complete" "$T/serve.log"
D=$(ls -d "$T"/res/ending-* | head -1)
check "its files are whole: summary.json, the curve, the time series" \
	sh -c "test -s '$D/summary.json' && test -s '$D/curve-a.csv' && test -s '$D/timeseries.csv'"
check "intervals.jsonl holds each merged interval once" python3 - "$D/intervals.jsonl" <<'PY'
import json, sys
seen = {}
for line in open(sys.argv[1]):
    o = json.loads(line)
    if "ops" in o:
        k = (o["workload"], o["step"], o["interval"], o["agent"])
        assert k not in seen, k
        seen[k] = 1
assert sum(1 for k in seen if k[3] == "*") == 2 * 3, len(seen)
PY

# A child killed while it writes the end: the run fails and says why, in intervals.jsonl
# too; the sessions stay.
sed 's/campaign: ending/campaign: killed/' "$T/c.yaml" > "$T/c3.yaml"
"$IOCURVE" run "$T/c3.yaml" --coordinator "$SOCK" > "$T/run3.out" 2>&1 &
RUN3=$!
wait_for "$T/run3.out" "step 2: achieved" 30 || { cat "$T/run3.out"; fail "the third campaign runs"; }
n=0
until CHILD=$(pgrep -P "$SERVE" -x iocurve); do
	n=$((n + 1))
	[ "$n" -gt 50 ] && fail "the end is written by a child of serve"
	sleep 0.1
done
ok "the end is written by a child of serve (pid $CHILD)"
kill -KILL "$CHILD"
wait_exit "$RUN3" 30 && fail "a run whose end's child was killed does not end complete"
check "... it says why" grep -q "the process writing them was killed by signal 9" "$T/run3.out"
D3=$(ls -d "$T"/res/killed-* | head -1)
check "... in intervals.jsonl's end line too" python3 - "$D3/intervals.jsonl" <<'PY'
import json, sys
ends = [o for o in map(json.loads, open(sys.argv[1])) if o.get("end")]
assert ends and "killed by signal 9" in json.dumps(ends[-1]), ends
PY
check "... and the agents stay" test "$("$IOCURVE" agents --coordinator "$SOCK" | grep -c '^e[12] .* idle')" -eq 2

# The same sessions take the next campaign; SIGTERM during its end waits for its files.
sed 's/campaign: ending/campaign: second/' "$T/c.yaml" > "$T/c2.yaml"
"$IOCURVE" run "$T/c2.yaml" --coordinator "$SOCK" > "$T/run2.out" 2>&1 &
RUN2=$!
wait_for "$T/serve.log" "campaign 2 .*started" 10 || fail "the second campaign starts"
ok "the second campaign starts on the same sessions"
wait_for "$T/run2.out" "step 2: achieved" 30 || { cat "$T/run2.out"; fail "the second campaign's steps run"; }
sleep 1
kill -TERM "$SERVE"
wait_exit "$SERVE" 30 || fail "serve stops on SIGTERM during an end"
ok "serve stops on SIGTERM during an end"
D2=$(ls -d "$T"/res/second-* | head -1)
check "... having written the end's files first (summary.json)" test -s "$D2/summary.json"
echo "all end-loop checks passed"
