#!/bin/sh
# SPDX-License-Identifier: MIT
# Read and write apart in a mixed workload, from the commands a user types: a 70/30
# randrw campaign on the sim whose writes take 3 ms and reads 1 ms (write_service_time),
# and one on a real file through io_uring. Per step: read ops + write ops = ops, the
# read share within a binomial bound of read_pct, per-kind MiB/s = ops x block size,
# per-kind latencies as the sim serves them (writes 2 ms slower); the curve files, the
# step tables, summary.json, report.html, `iocurve report` (rebuilt the same) and
# `iocurve compare` (text and --json) carry them; a pure workload's outputs do not.
. "$(dirname "$0")/lib.sh"

cat > "$T/mix.yaml" <<YAML
campaign: rwapart
# two agents whose own lines carry counts only: report takes the kinds' bins from the
# merged lines, as it does the totals'
agents: {local: 2, detail: counts}
target: {sim: {servers: 8, service_time: 1ms, write_service_time: 3ms}}
workers: 1
queue_depth: 64
block_size: 4KiB
interval: 100ms
warmup: 200ms
measure: 600ms
slo: {latency: 50ms}
workloads:
  - {name: mix, rw: randrw, read_pct: 70, load: {steps: [400, 800]}}
  - {name: rr, rw: randread, load: {steps: [400]}}
YAML
"$IOCURVE" run "$T/mix.yaml" --out "$T/sim" > "$T/sim.out" 2> "$T/sim.err" ||
	{ cat "$T/sim.out" "$T/sim.err"; fail "the mixed sim campaign runs"; }
ok "the mixed sim campaign runs"

python3 - "$T/sim" <<'PY' || fail "read and write apart add up, per step and per interval"
import csv, json, math, sys
d = sys.argv[1]
BS = 4096
rows = list(csv.DictReader(open(d + "/curve-mix.csv")))
assert len(rows) == 2, rows
for r in rows:
    ops, rd, wr = float(r["achieved_ops"]), float(r["read_ops"]), float(r["write_ops"])
    print(f"# step {r['step']}: {ops} ops/s = {rd} reads + {wr} writes; read mean "
          f"{r['read_mean_us']} us p99 {r['read_p99_us']}, write mean {r['write_mean_us']} "
          f"us p99 {r['write_p99_us']}")
    # read ops + write ops = ops (each rounded to 0.1 in the file)
    assert abs(rd + wr - ops) <= 0.15, (rd, wr, ops)
    # per-kind MiB/s = ops x block size (3 decimals)
    for k in ("read", "write"):
        want = float(r[f"{k}_ops"]) * BS / 2**20
        assert abs(float(r[f"{k}_mibps"]) - want) <= 0.0011, (k, r[f"{k}_mibps"], want)
    # the sim serves reads in 1 ms, writes in 3 ms (no jitter): each kind's latency is at
    # least its service time, and the writes' is the 2 ms more (the client's lag and the
    # queueing fall on both kinds alike)
    rm, wm = float(r["read_mean_us"]), float(r["write_mean_us"])
    assert float(r["read_p50_us"]) >= 990 and float(r["write_p50_us"]) >= 2970, r
    assert 1500 <= wm - rm <= 2500, f"write mean {wm} - read mean {rm} is not ~2000 us"
    assert float(r["write_p99_us"]) > float(r["read_p50_us"])
# the intervals: every merged line has its reads' and writes' latencies, one per op
n = reads = 0
for line in open(d + "/intervals.jsonl"):
    o = json.loads(line)
    if o.get("agent") != "*" or "ops" not in o or o["workload"] != "mix":
        continue
    assert o["read_latency"]["count"] == o["reads"], o["read_latency"]["count"]
    assert o["write_latency"]["count"] == o["ops"] - o["reads"]
    assert o["read_bytes"] == o["reads"] * BS and o["read_bytes"] <= o["bytes"]
    n += o["ops"]
    reads += o["reads"]
# the read share: read_pct within 4 standard deviations of a binomial
sd = math.sqrt(n * 0.7 * 0.3)
assert n > 500 and abs(reads - 0.7 * n) <= 4 * sd, f"{reads} reads of {n}: not 70% +- {4 * sd / n:.1%}"
print(f"# {reads} reads of {n} ops: {reads / n:.1%}")
# a pure workload's outputs are as before
head = open(d + "/curve-rr.csv").readline()
assert "read_ops" not in head and "write" not in head, head
s = json.load(open(d + "/summary.json"))
w = {x["name"]: x for x in s["workloads"]}
assert "read_at_peak" not in w["rr"] and "read_pct" not in w["rr"]
assert w["mix"]["read_pct"] == 70
rp, wp = w["mix"]["read_at_peak"], w["mix"]["write_at_peak"]
peak = max(rows, key=lambda r: float(r["achieved_ops"]))
assert abs(rp["ops"] - float(peak["read_ops"])) <= 0.1 and abs(wp["mean_us"] - float(peak["write_mean_us"])) <= 0.1, (rp, wp)
steps = json.load(open(d + "/curve-mix.json"))["steps"]
assert all(st["read_mean_us"] > 0 and st["write_p99_us"] > 0 for st in steps), steps[0]
# each kind at the campaign's percentiles too (p50, p90, p99, p99.9 by default)
assert all(st["read_percentiles_us"]["p99"] == st["read_p99_us"] and
           st["write_percentiles_us"]["p50"] == st["write_p50_us"] and
           set(st["write_percentiles_us"]) == set(st["percentiles_us"]) for st in steps), steps[0]
assert "read_ops" not in json.load(open(d + "/curve-rr.json"))["steps"][0]
# curve.csv (every workload's steps): the apart columns after the older ones, the mixed workload's
# cells curve-mix.csv's, the pure workload's empty
both = list(csv.DictReader(open(d + "/curve.csv")))
apart = [k for k in rows[0] if k.startswith(("read_", "write_")) and k != "write_pct"]
cols = list(both[0])
at = cols.index(apart[0])
# after the columns of earlier releases, in order (later columns come after them)
assert cols[at:at + len(apart)] == apart and at > cols.index("metric_hi_us"), (cols, apart)
mixrows = [r for r in both if r["workload"] == "mix"]
assert len(mixrows) == len(rows) and all(
    m[k] == r[k] for m, r in zip(sorted(mixrows, key=lambda r: int(r["step"])), rows) for k in apart), mixrows
assert all(r[k] == "" for r in both if r["workload"] == "rr" for k in apart), both
PY
ok "read and write apart add up, per step and per interval; curve.csv has them for the mixed workload"

check "summary.md's step table has the per-kind columns for the mixed workload" \
	grep -q "| Read ops/s | Write ops/s | Read mean | Write mean | Read p99 | Write p99 |" "$T/sim/summary.md"
check "and not for the pure one" sh -c "test \$(grep -c 'Read ops/s' '$T/sim/summary.md') -eq 1"
check "report.html's step table has them" grep -q "<th>Write p99</th>" "$T/sim/report.html"
check "summary.md says reads and writes at the peak" grep -q \
	"^At the peak: reads [0-9.]* ops/s, [0-9.]* MiB/s, mean [0-9.]*ms, p99 [0-9.]*ms; writes [0-9.]* ops/s" \
	"$T/sim/summary.md"
check "and report.html" grep -q '<p class="kinds">At the peak: reads .*; writes ' "$T/sim/report.html"
if python3 -c "import jsonschema" 2> /dev/null; then
	check "summary.json still matches its schema" python3 -c "
import json, jsonschema
s = json.load(open('$(dirname "$0")/../../docs/schema/summary.schema.json'))
jsonschema.Draft202012Validator(s).validate(json.load(open('$T/sim/summary.json')))"
fi

# `iocurve report` rebuilds the same figures from intervals.jsonl.
cp -r "$T/sim" "$T/again"
rm "$T/again/curve-mix.csv" "$T/again/summary.json"
"$IOCURVE" report "$T/again" > /dev/null 2> "$T/again.err" || { cat "$T/again.err"; fail "report rebuilds"; }
check "report rebuilds curve-mix.csv the same" cmp "$T/sim/curve-mix.csv" "$T/again/curve-mix.csv"
check "and summary.json's read and write" python3 -c "
import json
a, b = (json.load(open(f'$T/{x}/summary.json'))['workloads'][0] for x in ('sim', 'again'))
assert a['read_at_peak'] == b['read_at_peak'] and a['write_at_peak'] == b['write_at_peak']"

# compare: a mixed workload's read and write rows at each run's peak, text and JSON.
"$IOCURVE" compare "$T/sim" "$T/again" -o "$T/cmp" > "$T/cmp.out" 2>&1 || { cat "$T/cmp.out"; fail "compare runs"; }
check "compare shows the reads at the peak" grep -q "^| mix | read at peak | [0-9.]* ops/s, [0-9.]* MiB/s, mean " "$T/cmp.out"
check "and the writes, with their change" grep -q "^| mix | write at peak | .* | +0.0% ops/s, +0.0% mean |" "$T/cmp.out"
check "and nothing of the kind for the pure workload" sh -c "! grep -q '^| rr | read at peak' '$T/cmp.out'"
check "compare.html has them" grep -q "write at peak" "$T/cmp/compare.html"
"$IOCURVE" compare "$T/sim" "$T/again" -o "$T/cmp2" --json > "$T/cmp.json" || fail "compare --json runs"
check "compare --json gives each run's read and write at the peak" python3 -c "
import json
d = json.load(open('$T/cmp.json'))
w = {x['name']: x for x in d['workloads']}
r = w['mix']['runs'][0]
assert r['read_at_peak']['ops'] > 0 and r['write_at_peak']['mean_us'] > r['read_at_peak']['mean_us'] + 1500, r
assert 'read_at_peak' not in w['rr']['runs'][0]"

# A bad write_service_time is refused where it stands.
sed 's/write_service_time: 3ms/write_service_time: 0ms/' "$T/mix.yaml" > "$T/bad.yaml"
"$IOCURVE" check "$T/bad.yaml" > "$T/bad.out" 2>&1 && fail "write_service_time 0 is refused"
check "write_service_time 0 is refused with file:line:column" \
	grep -q "bad.yaml:5:[0-9]*: target.sim.write_service_time: expected a duration above 0" "$T/bad.out"

# A real file through io_uring: the same sums, and both kinds measured.
cat > "$T/file.yaml" <<YAML
campaign: rwapart-file
agents: {local: 1}
target: {path: $T/target, size: 16MiB, direct: true}
workers: 1
queue_depth: 8
block_size: 4KiB
interval: 100ms
warmup: 100ms
measure: 300ms
slo: {latency: 50ms}
workloads:
  - {name: fmix, rw: randrw, read_pct: 70, load: {steps: [300, max]}}
YAML
"$IOCURVE" run "$T/file.yaml" --out "$T/file" > "$T/file.out" 2> "$T/file.err" ||
	{ cat "$T/file.out" "$T/file.err"; fail "the mixed campaign on a file runs"; }
ok "the mixed campaign on a file runs"
python3 - "$T/file" <<'PY' || fail "on a file, read and write apart add up"
import csv, json, math, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/curve-fmix.csv")))
assert len(rows) == 2
for r in rows:
    ops, rd, wr = float(r["achieved_ops"]), float(r["read_ops"]), float(r["write_ops"])
    print(f"# {r['step']}: {ops} ops/s = {rd} reads ({r['read_mean_us']} us) + {wr} writes ({r['write_mean_us']} us)")
    assert abs(rd + wr - ops) <= 0.15, (rd, wr, ops)
    for k in ("read", "write"):
        assert abs(float(r[f"{k}_mibps"]) - float(r[f"{k}_ops"]) * 4096 / 2**20) <= 0.0011
        assert float(r[f"{k}_mean_us"]) > 0 and float(r[f"{k}_p99_us"]) >= float(r[f"{k}_p50_us"]) > 0
n = reads = 0
for line in open(d + "/intervals.jsonl"):
    o = json.loads(line)
    if o.get("agent") == "*" and "ops" in o:
        assert o["read_latency"]["count"] + o["write_latency"]["count"] == o["ops"]
        n, reads = n + o["ops"], reads + o["reads"]
sd = math.sqrt(n * 0.7 * 0.3)
assert n > 300 and abs(reads - 0.7 * n) <= 4 * sd, (reads, n)
PY
ok "on a file, read and write apart add up"
echo "# rw-apart: all passed"
