#!/bin/sh
# SPDX-License-Identifier: MIT
# A held client's backlog is its own lateness, not the queue depth's. One worker drives
# 3,000 ops/s at an M/M/4 sim of 200 us (0.6 in flight, 16 slots) while it is stopped
# with SIGSTOP for 80 ms every 300 ms (a client VM its hypervisor holds). On waking it
# owes about 240 operations: 16 go out at once, the rest wait for slots while the sim
# drains the burst. Each of them was due while a slot was free and the client slept, so
# its whole lag is the client's lateness; an operation due after the queue filled waits
# for a slot only from when the last of that backlog got one, and the sim's completion
# time, not the time the held worker saw it, frees the slot. So the step is judged by the
# storage's own latency (met: about 370 us against 1 ms), not queue-bound because the
# client slept (as it was before: slot wait 1.8-1.9 ms per operation, "all 16 slots held
# ..., raise queue_depth", and with holds of 40 ms on a busy host as well).
. "$(dirname "$0")/lib.sh"

cat > "$T/c.yaml" <<YAML
campaign: pause
agents: {local: 1}
target: {sim: {servers: 4, service_time: 200us}}
workers: 1
queue_depth: 16
interval: 250ms
warmup: 500ms
measure: 2500ms
retry: 0
slo: {latency: 1ms}
workloads:
  - {name: rr, rw: randread, load: {steps: [3000]}}
YAML

"$IOCURVE" run "$T/c.yaml" --out "$T/r" > "$T/r.out" 2> "$T/r.err" &
RUN=$!
PIDS="$PIDS $RUN"
w=$(run_workers "$RUN" local-0)
[ -n "$w" ] || { cat "$T/r.out" "$T/r.err"; fail "the worker is found"; }
hold_workers "$RUN" "$w" 0.08 0.22 &
STOPPER=$!
PIDS="$PIDS $STOPPER"
wait "$RUN" || { cat "$T/r.out" "$T/r.err"; fail "the campaign runs with its worker held"; }
wait "$STOPPER" 2> /dev/null || true
ok "the campaign runs with its worker held"

python3 - "$T/r" <<'PY' || { cat "$T/r.out"; fail "a held client's backlog is its lateness, not slot wait"; }
import json, sys
import ivlines
d = sys.argv[1]
ops = late = slot = held = 0
for r in ivlines.records(d + "/intervals.jsonl"):
    if r["agent"] != "*" or r["warmup"]:
        continue
    ops += r["ops"]
    late += r["issue_late_ns"]
    slot += r["slot_wait_ns"]
    held += r["late_10ms"]
print(f"# per op: issue lateness {late / ops / 1e3:.0f}us, slot wait {slot / ops / 1e3:.0f}us;"
      f" {held} ops delayed 10 ms or more")
# the stops were seen: operations the client delayed by 10 ms or more
assert held >= 100, held
# the client's sleep is its lateness; the slots waited only for what fell due while the
# sim drained the backlog (~12 ms at 4 x 200 us), a small part of it (~0.4%)
assert late > 20 * slot, (late, slot)
s = json.load(open(d + "/curve-rr.json"))["steps"][0]
print(f"# verdict: {s['verdict']} (storage mean {s['service_mean_us']}us)")
assert "queue-bound" not in s["verdict"], s["verdict"]
PY
ok "the held client's backlog is its own lateness; the step is not queue-bound for it"
