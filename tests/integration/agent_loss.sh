#!/bin/sh
# SPDX-License-Identifier: MIT
# An agent SIGKILLed mid-step. on_agent_loss: continue (the default) runs the step on
# with the others, marks its point (agents lost, the interval where it left) and splits
# the next steps over the agents present; abort ends the campaign cleanly. A loss is
# told: the step's verdict, every summary, report.html, the end line, and exit status 3
# (degraded) unless --accept-degraded.
. "$(dirname "$0")/lib.sh"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" a1 a2 a3 > /dev/null

# The three runs (continue, --accept-degraded, abort) go side by side, each with its own
# coordinator and agents; each one's a3 is killed once its step 2 has run two intervals.
loss_start() { # loss_start NAME POLICY-LINE [RUN-OPTION]: starts the run, kills a3 in step 2
	PORT=$(free_port)
	cat > "$T/$1.yaml" <<YAML
campaign: $1
agents: {select: {count: 3}, wait: 20s$2}
target: {sim: {servers: 4, service_time: 500us}}
interval: 200ms
warmup: 200ms
measure: 1s
workloads:
  - {name: rr, rw: randread, load: {steps: [600, 1200, 1800]}}
YAML
	"$IOCURVE" run "$T/$1.yaml" --coordinator-listen "127.0.0.1:$PORT" --tls "$T/ca" \
		--out "$T/$1" --json ${3:-} > "$T/$1.out" 2> "$T/$1.err" &
	eval "RUN_$1=$!"
	AP=""
	for a in a1 a2 a3; do
		"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name $a \
			--allow "$T" 2> "$T/$1-$a.log" &
		AP="$AP $!"
		[ $a = a3 ] && A3=$!
	done
	eval "AP_$1=\"$AP\""
	PIDS="$PIDS $(eval echo "\$RUN_$1") $AP"
	(wait_for "$T/$1/intervals.jsonl" '"step":1,"offered_ops":1200.0,"interval":2,"agent":"a3"' 30 &&
		date +%s.%N > "$T/$1.t0" && kill -KILL "$A3") &
	PIDS="$PIDS $!"
}

loss_end() { # loss_end NAME: until the run ends; sets RC
	RUN=$(eval echo "\$RUN_$1")
	set +e
	wait_exit "$RUN" 60
	RC=$?
	set -e
	# The run's end: its last word (the runs are waited for in turn).
	T1=$(date -r "$(ls -t "$T/$1.out" "$T/$1.err" | head -1)" +%s.%N)
	for p in $(eval echo "\$AP_$1"); do kill "$p" 2>/dev/null || true; done
	[ -f "$T/$1.t0" ] || { cat "$T/$1.out" "$T/$1.err"; fail "$1: step 2 runs on three agents"; }
	echo "# $1: exit $RC, $(echo "$T1 - $(cat "$T/$1.t0")" | bc) s from the kill to the end"
}

loss_start cont ""
loss_start acc "" --accept-degraded
loss_start abrt ", on_agent_loss: abort"

loss_end cont
[ "$RC" -eq 3 ] || { cat "$T/cont.out" "$T/cont.err"; fail "continue: the campaign completes degraded, exit 3 ($RC)"; }
ok "continue: the campaign completes with the other agents, degraded: exit 3"
LOST='agent a3 lost at rr step 2, interval [0-9]* ([^)]*)'
check "continue: the done event says who was lost, when and why" \
	grep -q "\"event\":\"done\",\"status\":3,\"message\":\"campaign complete, degraded: $LOST\"" "$T/cont.out"
check "continue: the end line says so, and the exit status" \
	grep -q "^iocurve: campaign cont complete, degraded: $LOST (exit status 3; --accept-degraded: 0)" "$T/cont.err"
for f in summary.txt summary.md report.html; do
	check "continue: $f says the campaign is degraded, which agent, when and why" \
		grep -q "degraded: $LOST" "$T/cont/$f"
done
check "continue: step 2's point event carries the loss in its verdict" \
	sh -c "grep '\"event\":\"point\"' '$T/cont.out' | grep '\"agents_lost\":1' | grep -q '\"verdict\":\"1 of 3 agents lost at interval [0-9]* (agent a3)'"
check "continue: step 2's verdict in the step tables names the loss" \
	grep -q "| 1 of 3 agents lost at interval [0-9]* (agent a3)" "$T/cont/summary.md"
python3 - "$T/cont/summary.json" <<'PY' || fail "continue: summary.json lists the loss"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["status"] == "complete" and s["agents_lost"] == 1, s
d = s["degraded"][0]
assert d["agent"] == "a3" and d["workload"] == "rr" and d["step"] == 2, d
assert 3 <= d["interval"] <= 7 and d["reason"], d
PY
ok "continue: summary.json lists the loss (agent, step, interval, reason)"
cp "$T/cont/summary.txt" "$T/summary-run.txt"
python3 - "$T/cont" <<'PY' || { cat "$T/cont/curve-rr.csv"; fail "continue: the point of step 2 is marked, step 3 runs on two agents"; }
import csv, sys
rows = {r["step"]: r for r in csv.DictReader(open(sys.argv[1] + "/curve-rr.csv"))}
assert set(rows) == {"1", "2", "3"}, rows.keys()
assert rows["1"]["agents"] == "3" and rows["1"]["agents_lost"] == "0" and rows["1"]["lost_at_interval"] == ""
assert rows["2"]["agents"] == "3" and rows["2"]["agents_lost"] == "1", rows["2"]
assert 3 <= int(rows["2"]["lost_at_interval"]) <= 7, rows["2"]
assert rows["3"]["agents"] == "2" and rows["3"]["agents_lost"] == "0", rows["3"]
# the next step's load is split over the two present: the whole rate is still offered,
# and they carry more than the 1,200 ops/s their old shares were (a CI run beside a
# fuzzer achieved 1,666: this test runs two at a time and judges no rate)
assert float(rows["3"]["offered_ops"]) == 1800, rows["3"]
assert float(rows["3"]["achieved_ops"]) > 1500, rows["3"]
PY
ok "continue: the point of step 2 is marked, step 3 runs on two agents"
cp "$T/cont/curve-rr.csv" "$T/curve-run.csv"
"$IOCURVE" report "$T/cont" > "$T/rep.out" 2>&1 || { cat "$T/rep.out"; fail "report reads a campaign with a lost agent"; }
check "report says the campaign is degraded" grep -q "^degraded: $LOST" "$T/rep.out"
check "report rebuilds the same curve, loss included" cmp "$T/curve-run.csv" "$T/cont/curve-rr.csv"
check "report rebuilds the same summary, loss included" cmp "$T/summary-run.txt" "$T/cont/summary.txt"

loss_end acc
[ "$RC" -eq 0 ] || { cat "$T/acc.err"; fail "--accept-degraded: a degraded campaign exits 0 ($RC)"; }
ok "--accept-degraded: a degraded campaign exits 0"
check "--accept-degraded: the end line still tells the loss" \
	grep -q "^iocurve: campaign acc complete, degraded: $LOST (exit status 0: --accept-degraded)" "$T/acc.err"

loss_end abrt
[ "$RC" -eq 1 ] || { cat "$T/abrt.out" "$T/abrt.err"; fail "abort: the campaign fails"; }
ok "abort: the campaign fails"
check "abort: it says which agent and the policy" \
	grep -q "campaign abrt failed: agent a3 lost: .*(on_agent_loss: abort)" "$T/abrt.err"
check "abort: only step 1 is a point" test "$(wc -l < "$T/abrt/curve-rr.csv")" -eq 2
