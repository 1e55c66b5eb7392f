#!/bin/sh
# SPDX-License-Identifier: MIT
# The daemon SIGKILLed mid-campaign: restarted, it lists the campaign as interrupted;
# `iocurve resume ID` carries it on in the same results directory, every step once.
. "$(dirname "$0")/lib.sh"

daemon_certs a1 a2
daemon_serve "$T/serve1.log" "$T/results"
daemon_agents "$T/serve1.log" a1 a2
sim_campaign long agents="$(daemon_select 2)" > "$T/c.yaml"
"$IOCURVE" run "$T/c.yaml" --coordinator "$SOCK" > "$T/run.out" 2>&1 &
RUN=$!
PIDS="$PIDS $RUN"
wait_for "$T/run.out" "submitted" 10 || { cat "$T/run.out"; fail "the campaign is submitted"; }
R=$(ls -d "$T"/results/long-*)
# Kill the daemon in the middle of step 3 of workload a: two steps are done.
wait_for "$R/intervals.jsonl" '"workload":"a","step":2,' 20 || { cat "$T/serve1.log"; fail "step 3 starts"; }
sleep 0.2
kill -KILL "$SERVE"
wait "$SERVE" 2> /dev/null || true
check "the killed daemon left its mark in the results" test -f "$R/running"

daemon_serve "$T/serve2.log" "$T/results"
"$IOCURVE" status --coordinator "$SOCK" > "$T/status1.out" || fail "status after the restart"
check "status shows the campaign interrupted, with its results" \
	grep -Eq "^1 +long +interrupted .*$R" "$T/status1.out"
check "the restarted daemon says how to resume" grep -q "iocurve resume 1 carries it on" "$T/serve2.log"
"$IOCURVE" resume 7 --coordinator "$SOCK" > "$T/bad.out" 2>&1 && fail "resume of an unknown id fails"
check "resume of an unknown id says so" grep -q "iocurve resume: no campaign 7" "$T/bad.out"
for a in a1 a2; do
	wait_for "$T/serve2.log" "agent $a: clock offset" 30 || fail "agent $a joins the new daemon"
done
"$IOCURVE" resume 1 --coordinator "$SOCK" > "$T/resume.out" 2>&1 ||
	{ cat "$T/resume.out"; fail "iocurve resume 1"; }
check "resume says it resumed, and where" grep -q "campaign 1 (long): resumed .* results in $R" "$T/resume.out"
i=0
until "$IOCURVE" status --coordinator "$SOCK" | grep -Eq "^1 +long +(complete|failed)"; do
	i=$((i + 1))
	[ "$i" -lt 60 ] || { cat "$T/serve2.log"; fail "the resumed campaign ends"; }
	sleep 0.5
done
"$IOCURVE" status --coordinator "$SOCK" > "$T/status2.out"
check "the resumed campaign completes" grep -Eq "^1 +long +complete" "$T/status2.out"
check "its mark is gone" test ! -e "$R/running"
python3 - "$R" <<'PY' || fail "the resumed curve has every step once"
import csv, json, sys, collections
r = sys.argv[1]
import ivlines
lines = ivlines.lines(r + "/intervals.jsonl")
seen = collections.Counter((l["workload"], l["step"], l["interval"], l["agent"]) for l in lines if "interval" in l)
dup = [k for k, n in seen.items() if n > 1]
assert not dup, f"lines twice: {dup[:3]}"
rows = list(csv.DictReader(open(r + "/curve.csv")))
got = [(x["workload"], x["step"], float(x["offered_ops"])) for x in rows]
want = [("a", "1", 500.0), ("a", "2", 1000.0), ("a", "3", 1500.0), ("a", "4", 2000.0),
        ("b", "1", 800.0), ("b", "2", 1600.0)]
assert got == want, f"curve.csv {got}"
PY
ok "the resumed curve has every step once"
"$IOCURVE" report "$R" > "$T/rep.out" 2>&1 || fail "report reads the resumed directory"
check "report rebuilds all six steps" grep -q "from 6 steps of intervals.jsonl" "$T/rep.out"
echo "# daemon-resume: all passed"
