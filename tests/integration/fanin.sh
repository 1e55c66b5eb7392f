#!/bin/sh
# SPDX-License-Identifier: MIT
# Fan-in: FANIN_AGENTS (default 200) real TLS agent sessions from one swarm process
# against `serve`, one campaign over all of them. Every interval is merged from every
# agent, and its merged line adds up to its agents' lines; an agent that stops reading
# what the coordinator sends is dropped with a reason that says so (the output cap),
# not kept holding memory. tools/bench-fanin measures the same at 100 to 10,000 agents.
. "$(dirname "$0")/lib.sh"

: "${IOCURVE_SWARM:?set by meson test}"
N=${FANIN_AGENTS:-200}
"$IOCURVE" certs init "$T/ca" > /dev/null
PORT=$(free_port)
SOCK=$T/ctl.sock
mkdir "$T/res"
# Heartbeats often, and a long silence allowed: the stalled session must be dropped by
# the output cap (2 KiB here), well before its silence would drop it (10 s).
# A soft descriptor limit of 128, as a login shell may give, is under the fleet's
# needs: serve raises it to the hard limit.
(
	ulimit -Sn 128
	IOCURVE_TEST_SESSION_BACKLOG=2048 exec "$IOCURVE" serve --listen "127.0.0.1:$PORT" \
		--tls "$T/ca" --control "$SOCK" --results "$T/res" --heartbeat 100ms \
		--heartbeat-misses 100 2> "$T/serve.log"
) &
SERVE=$!
PIDS="$PIDS $SERVE"
wait_for "$T/serve.log" "control socket" 10 || { cat "$T/serve.log"; fail "serve starts"; }
check "serve raised its descriptor limit past the soft 128" \
	grep -q "up to \([2-9][0-9][0-9]\|[0-9]\{4,\}\) file descriptors" "$T/serve.log"
"$IOCURVE_SWARM" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --agents "$N" --stall 1 \
	--watch "$T/res" > "$T/swarm.out" 2> "$T/swarm.log" &
SWARM=$!
PIDS="$PIDS $SWARM"

wait_for "$T/serve.log" "agent swarm-00000 .* lost: not reading what the coordinator sends" 60 ||
	{ grep swarm-00000 "$T/serve.log"; fail "the session that stopped reading is dropped"; }
ok "the session that stopped reading is dropped by the output cap: $(grep -o 'not reading.*limit [0-9]*)' "$T/serve.log")"
check "... and not for its silence" sh -c "! grep -q 'swarm-00000 .*peer silent' '$T/serve.log'"

READY=$((N - 1))
n=0
while [ "$("$IOCURVE" agents --coordinator "$SOCK" | grep -c ' idle ')" -lt "$READY" ]; do
	n=$((n + 1))
	[ "$n" -gt 600 ] && fail "$READY agents join"
	sleep 0.2
done
ok "$READY agents joined"

cat > "$T/f.yaml" <<YAML
campaign: fanin
agents: {select: {count: $READY}, wait: 30s}
target: {sim: {servers: 64, service_time: 500us}}
interval: 500ms
warmup: 500ms
measure: 2s
workloads:
  - {name: rr, rw: randread, block_size: 8KiB, load: {steps: [$((READY * 200)), $((READY * 400))]}}
YAML
"$IOCURVE" run "$T/f.yaml" --coordinator "$SOCK" --json > "$T/run.out" 2> "$T/run.err" ||
	{ tail -5 "$T/run.err"; fail "the campaign over $READY agents completes"; }
ok "the campaign over $READY agents completes"
kill -TERM "$SWARM"
wait_exit "$SWARM" 30 || fail "the swarm stops on SIGTERM"
D=$(ls -d "$T"/res/fanin-*)
python3 - "$D/intervals.jsonl" "$READY" <<'PY' || fail "intervals.jsonl adds up"
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
merged, agents = {}, {}
for line in open(path):
    o = json.loads(line)
    if "ops" not in o:
        continue
    key = (o["step"], o["interval"])
    if o["agent"] == "*":
        merged[key] = o
    else:
        agents.setdefault(key, []).append(o)
assert len(merged) == 10, f"{len(merged)} merged intervals, not 2 steps x 5"
for key, m in merged.items():
    lines = agents.get(key, [])
    assert m["agents"] == n and len(lines) == n, f"{key}: {m['agents']} merged, {len(lines)} lines"
    assert len({l["agent"] for l in lines}) == n, f"{key}: an agent twice"
    for f in ("ops", "reads", "bytes"):
        assert m[f] == sum(l[f] for l in lines), f"{key}: {f} does not add up"
    assert m["latency"]["count"] == sum(l["latency"]["count"] for l in lines), key
    assert len(m["latency"]["bins"]) >= 200, f"{key}: {len(m['latency']['bins']) // 2} bins"
    # Over 64 agents, agents.detail: auto keeps an agent's counts, not its bins.
    assert all("bins" not in l["latency"] and "bins" not in l["service"] for l in lines), key
    assert m["latency"]["sum_ns"] == sum(l["latency"]["sum_ns"] for l in lines), key
print(f"ok - intervals.jsonl: 10 merged intervals, each of {n} agents' lines (counts, no "
      f"bins), ops, reads, bytes and latency counts and sums adding up")
PY
check "summary.json: both steps, the peak the swarm reported ($((READY * 400)) ops/s within 1%)" python3 -c "
import json
w = json.load(open('$D/summary.json'))['workloads'][0]
assert w['steps'] == 2 and abs(w['peak_ops'] / ($READY * 400) - 1) < 0.01, (w['steps'], w['peak_ops'])"
check "over 64 agents the event stream carries the fleet's intervals, not each agent's" python3 -c "
import json
ev = [json.loads(l) for l in open('$T/run.out') if l.startswith('{')]
iv = [e for e in ev if e.get('event') == 'interval']
assert len(iv) == 10 and all(e['agent'] == '*' for e in iv), [e.get('agent') for e in iv][:5]"
check "the swarm timed every merged interval" grep -q "^merged_lines: 10$" "$T/swarm.out"
echo "# $(grep merge_delay_ms "$T/swarm.out") (last report of an interval sent -> merged line on disk)"

# `report` (and `resume`) rebuild the points from intervals.jsonl: the same files, with
# memory for one step's merge, not for every agent's line of it (200 agents x 5
# intervals of ~75 KiB records held at once was 75 MB).
cp -r "$D" "$T/again"
python3 - "$IOCURVE" "$T/again" <<'PY' || fail "report rebuilds the run's files in little memory"
import resource, subprocess, sys
subprocess.run([sys.argv[1], "report", sys.argv[2]], check=True, capture_output=True)
rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
assert rss_mib < 40, f"report took {rss_mib:.0f} MiB"
print(f"ok - report rebuilt the results in {rss_mib:.1f} MiB (peak RSS)")
PY
for f in summary.json curve-rr.csv report.html; do
	check "report rebuilds $f byte for byte" cmp "$D/$f" "$T/again/$f"
done

# A merged line that does not add up to its agents' lines (their bins are not in the
# file to rebuild it from) is refused, naming the line: here one more operation, in
# its ops, its latency count and its first bin, consistent in itself.
cp -r "$D" "$T/tampered"
python3 - "$T/tampered/intervals.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines(True)
i = next(k for k, l in enumerate(lines) if '"agent":"*"' in l)
o = json.loads(lines[i])
o["ops"] += 1
o["latency"]["count"] += 1
o["latency"]["bins"][1] += 1
lines[i] = json.dumps(o, separators=(",", ":")) + "\n"
open(sys.argv[1], "w").writelines(lines)
PY
if "$IOCURVE" report "$T/tampered" > "$T/tampered.out" 2>&1; then fail "a tampered merged line is refused"; fi
check "a tampered merged line is refused, naming it" \
	grep -q "intervals.jsonl:[0-9]*: the merged line of interval 0 does not add up" "$T/tampered.out"
