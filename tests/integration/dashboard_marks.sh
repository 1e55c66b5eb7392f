#!/bin/sh
# SPDX-License-Identifier: MIT
# The dashboard's m key on `iocurve run` (the campaign in this process: no control
# socket): m, a text, Enter stamps a mark at the step in progress; the fleet list shows
# it; intervals.jsonl and the time plot have it; Esc drops a text; an empty one is refused.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/pane.sh"

# Its SLO (5ms) lies far above these steps' latency: no step is re-run for a disturbed
# client, whose warning would be written over the dashboard.
sim_campaign dmark interval=100ms warmup=100ms measure=300ms \
	workloads="[{name: rr, rw: randread, load: {steps: [500, 600, 700, 800, 900, 1000, 1100, 1200]}}]" \
	> "$T/c.yaml"
tx new-session -d -s "$S" -x 120 -y 40 \
	"$IOCURVE run $T/c.yaml --out $T/r; echo exit=\$?; sleep 30"
check "the campaign is on the dashboard" wait_screen 'iocurve .*dmark .*workload 1/1 rr' 20
check "the footer offers m" wait_screen 'm mark' 5
check "the fleet list has intervals" wait_screen ' [0-9]+ +[0-9]+\.[0-9] +[0-9.]+(us|ms) ' 20

tx send-keys -t "$S" m
check "m asks for the text" wait_screen 'mark the timeline: _ +\(Enter: stamp it, Esc: drop it\)' 3
tx send-keys -t "$S" -l "dropped"
check "the text shows as typed" wait_screen 'mark the timeline: dropped_' 3
tx send-keys -t "$S" Escape
check "Esc drops it" wait_screen 'm mark' 3

tx send-keys -t "$S" m
tx send-keys -t "$S" Enter
check "an empty text is refused on the status line" wait_screen 'mark not sent: the text is empty' 3

tx send-keys -t "$S" m
tx send-keys -t "$S" -l "cache on xé"
tx send-keys -t "$S" BSpace BSpace
tx send-keys -t "$S" -l "ON"
tx send-keys -t "$S" Enter
check "Enter stamps it: the answer says where" \
	wait_screen 'campaign [0-9]+: marked at rr step [0-9]+, (interval [0-9]+|outside its intervals)' 5
check "the fleet list shows the mark" wait_screen 'fleet, last intervals . mark [0-9]+: cache on ON' 5
check "the run ends" wait_screen '^exit=0$' 60
tx kill-session -t "$S" 2> /dev/null || true

python3 - "$T/r/intervals.jsonl" <<'PY' || fail "intervals.jsonl has the mark, typed with its Backspaces"
import json, sys
marks = [json.loads(l) for l in open(sys.argv[1]) if '"mark"' in l]
assert [m["mark"] for m in marks] == ["cache on ON"], marks
assert marks[0]["source"] == "user" and marks[0]["workload"] == "rr", marks
PY
ok "intervals.jsonl has the mark, typed with its Backspaces"
check "the time plot draws it" grep -q '>cache on ON</text>' "$T/r/time-rr.svg"
check "report.html too" grep -q '<td class="mark">cache on ON</td>' "$T/r/report.html"
