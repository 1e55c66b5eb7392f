#!/bin/sh
# SPDX-License-Identifier: MIT
# A disturbed client is named: of two local agents, one's workers are stopped with
# SIGSTOP for 20 ms every 100 ms (a client VM its hypervisor holds) while the other runs
# free. The step is client-bound, its verdict and the summary's limit name local-1 as the
# client that delayed its operations most, with that delay (the SLO judges the response
# latency, `from: due`: the storage's own latency, 200 us, meets it whatever the client
# did, and a met step is never client-bound); report.html's per-agent table
# gives each agent's client delay (local-1's above local-0's by the hold's share); `report`
# rebuilds the same files.
. "$(dirname "$0")/lib.sh"

cat > "$T/c.yaml" <<YAML
campaign: named
agents: {local: 2}
target: {sim: {servers: 4, service_time: 200us}}
workers: 1
queue_depth: 64
interval: 200ms
warmup: 400ms
measure: 1200ms
retry: 0
slo: {latency: 1ms, from: due}
workloads:
  - {name: rr, rw: randread, load: {steps: [1000]}}
YAML

"$IOCURVE" run "$T/c.yaml" --out "$T/r" > "$T/r.out" 2> "$T/r.err" &
RUN=$!
PIDS="$PIDS $RUN"
# local-1's workers (the children of the agent named so, of this run), found once: the
# loop that holds them must not load the machine itself.
w=$(run_workers "$RUN" local-1)
[ -n "$w" ] || { cat "$T/r.out" "$T/r.err"; fail "local-1's workers are found"; }
echo "# local-1's workers: $w"
hold_workers "$RUN" "$w" 0.02 0.08 &
STOPPER=$!
PIDS="$PIDS $STOPPER"
wait "$RUN" || { cat "$T/r.out" "$T/r.err"; fail "the campaign runs with one agent held"; }
wait "$STOPPER" 2> /dev/null || true
ok "the campaign runs with one agent held"

python3 - "$T/r" <<'PY' || fail "the step is client-bound and names local-1, the client held"
import json, re, sys
d = sys.argv[1]
s = json.load(open(d + "/curve-rr.json"))["steps"][0]
print(f"# verdict: {s['verdict']}")
assert "client-bound" in s["verdict"], s["verdict"]
m = re.search(r"most on (\S+), ([0-9]+)us", s["verdict"])
assert m and m.group(1) == "local-1", s["verdict"]
held = int(m.group(2))
# 20 ms of every 100 held: a fifth of its operations wait 10 ms on average
assert held >= 1000, held
w = json.load(open(d + "/summary.json"))["workloads"][0]
print(f"# limit: {w['limit']}")
assert w["limit"].startswith("client-bound: ") and \
    f"(most on agent local-1: {held}us mean client delay)" in w["limit"], w["limit"]
# the per-agent table: each agent's client delay, local-1's above local-0's by half the
# hold's share at least (a fifth of its operations wait 10 ms on average: 2 ms an
# operation). Not a ratio: the free agent's own delay is this host's, and the loop that
# holds local-1 forks beside it (133-239 us on a quiet host, 367 us in one CI run, where
# local-1 read 3.5 ms; 100 us without the loop)
html = open(d + "/report.html").read()
table = html[html.index('<table class="agents">'):]
table = table[:table.index("</table>")]
heads = re.findall(r'<th colspan="3">([^<]+)</th>', table)
assert heads == ["local-0", "local-1"], heads
assert table.count(">Client delay</th>") == 2, table
row = re.search(r'<tr><td class="n">1</td>(.*?)</tr>', table).group(1)
cells = re.findall(r'<td class="n">([^<]*)</td>', row)
def us(t):
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", t)
    return float(m.group(1)) * {"ns": 1e-3, "us": 1, "ms": 1e3, "s": 1e6}[m.group(2)]
free, held_cell = us(cells[2]), us(cells[5])
print(f"# client delay: local-0 {cells[2]}, local-1 {cells[5]}")
assert held_cell - free >= 1000 and abs(held_cell - held) <= 0.06 * held, (cells, held)
PY
ok "the step is client-bound and names local-1, the client held, with its delay"

for f in summary.json curve-rr.json report.html; do cp "$T/r/$f" "$T/$f.orig"; done
"$IOCURVE" report "$T/r" > /dev/null || fail "report on the run"
for f in summary.json curve-rr.json report.html; do
	check "report rebuilds $f the same, the named client included" cmp "$T/$f.orig" "$T/r/$f"
done
echo "# client-named: all passed"
