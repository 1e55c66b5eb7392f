#!/bin/sh
# SPDX-License-Identifier: MIT
# Where an agent's processes run, on a real file of a virtual disk whose completions land
# on some of the CPUs: the workers on those, the agent's own loop (reports, heartbeats,
# TLS) on the others, so that it never delays a worker's wake. Skipped (77) where the
# target's completions land everywhere or nowhere this agent may choose between.
. "$(dirname "$0")/lib.sh"

cat > "$T/p.yaml" <<YAML
campaign: placement
agents: {local: 1}
target: {path: $T/target, size: 8MiB}
workers: 2
interval: 250ms
warmup: 250ms
measure: 1s
slo: {latency: 1ms}
workloads:
  - {name: rr, rw: randread, block_size: 4KiB, load: {steps: [500]}}
YAML
"$IOCURVE" run "$T/p.yaml" --out "$T/r" > "$T/r.out" 2> "$T/r.err" ||
	{ cat "$T/r.out" "$T/r.err"; fail "the campaign runs"; }
log="$T/r/agent-local-0.log"
placed=$(sed -n 's/.*workers on .* run on CPU \([0-9,-]*\), where .*/\1/p' "$log" | head -1)
if [ -z "$placed" ]; then
	grep "workers on" "$log" | head -1 | sed 's/^/# /'
	echo "# the target's completions land on no CPU the agent can single out: skipped"
	exit 77
fi
ok "the workers run on CPU $placed, where the target's completions land"
own=$(sed -n "s/.*the agent's own loop runs on CPU \([0-9,-]*\), beside its workers.*/\1/p" "$log" | head -1)
[ -n "$own" ] || { cat "$log"; fail "the agent's own loop moved off the workers' CPUs"; }
python3 - "$placed" "$own" <<'PY' || fail "the agent's CPUs and its workers' do not overlap"
import sys
def cpus(s):
    out = set()
    for part in s.split(","):
        a, _, b = part.partition("-")
        out |= set(range(int(a), int(b or a) + 1))
    return out
placed, own = cpus(sys.argv[1]), cpus(sys.argv[2])
print(f"# workers {sorted(placed)}, the agent's loop {sorted(own)}")
assert placed and own and not placed & own
PY
ok "the agent's own loop runs on CPU $own, none of its workers'"
