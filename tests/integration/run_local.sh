#!/bin/sh
# SPDX-License-Identifier: MIT
# `iocurve run` with two local agents: results exist, intervals add up, rates are met.
. "$(dirname "$0")/lib.sh"

cat > "$T/small.yaml" <<YAML
campaign: small
agents: {local: 2}
target: {path: $T/target, size: 16MiB, direct: true}
workers: 2
queue_depth: 8
interval: 1s
warmup: 1s
measure: 2s
slo: {latency: 1ms}
percentiles: [50, 99, 99.99]
workloads:
  - {name: randread-4k, rw: randread, block_size: 4KiB, load: {steps: [400, 2000]}}
  - {name: write-64k, rw: write, block_size: 64KiB, load: {steps: [200]}}
YAML

"$IOCURVE" run "$T/small.yaml" --out "$T/results" > "$T/run.out" 2> "$T/run.err" ||
	{ cat "$T/run.out" "$T/run.err"; fail "iocurve run exits 0"; }
ok "iocurve run exits 0"
R=$T/results
for f in plan.yaml intervals.jsonl curve.csv summary.md; do
	check "results has $f" test -s "$R/$f"
done
check "plan.yaml is the campaign as submitted" cmp -s "$T/small.yaml" "$R/plan.yaml"
files_laid_out() {
	for a in 0 1; do
		for w in 0 1; do
			[ "$(stat -c %s "$T/target/local-$a-w$w.dat")" -eq 16777216 ] || return 1
		done
	done
}
check "each agent and worker got its own laid-out file" files_laid_out
check "summary states the knee" grep -q "Performance @ 1.00ms" "$R/summary.md"
check "run ends with a headline per workload, at most 100 characters" sh -c \
	"grep -E '^randread-4k  .* @ 1.00ms storage mean .* peak ' '$T/run.out' | awk 'length > 100 { exit 1 }' &&
	 grep -Eq '^randread-4k  ' '$T/run.out'"
check "progress lines give block sizes in KiB, as the rest does" \
	grep -q "workload 1/2 randread-4k: randread 4KiB, 2 agent(s) x 2 worker(s) x qd 8" "$T/run.out"
check "summary.md too" grep -q "## write-64k (write, 64KiB blocks" "$R/summary.md"
check "percentiles: heads every step table" \
	sh -c "grep -q '| Response mean | Storage mean | Client delay | p50 | p99 | p99.99 | Max |' '$R/summary.md' && grep -q '<th>Response mean</th><th>Storage mean</th><th>Client delay</th><th>p50</th><th>p99</th><th>p99.99</th><th>Max</th>' '$R/report.html'"
check "and each curve's steps" python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))['steps'][0]
assert sorted(s['percentiles_us']) == ['p50', 'p99', 'p99.99'], s['percentiles_us']
assert s['percentiles_us']['p50'] <= s['percentiles_us']['p99'] <= s['percentiles_us']['p99.99'], s
" "$R/curve-randread-4k.json"

# What a published result must say of itself: meta.json, and report.html's header from it.
FSTYPE=$(findmnt -n -o FSTYPE --target "$T/target" 2> /dev/null || echo unknown)
check "meta.json and report.html say when, what, how, where and on what" env T="$T" python3 - "$R" "$FSTYPE" <<'PY'
import json, os, sys
r, fstype = sys.argv[1], sys.argv[2]
m = json.load(open(r + "/meta.json"))
assert m["command"] == f"iocurve run {os.environ['T']}/small.yaml --out {r}", m["command"]
assert m["iocurve"] and m["started"].endswith("Z"), m
assert m["coordinator"]["kernel"].startswith("Linux "), m
assert [a["name"] for a in m["agents"]] == ["local-0", "local-1"], m
for a in m["agents"]:
    assert a["kernel"] == m["coordinator"]["kernel"] and a["host"], a
    assert fstype == "unknown" or a["target"].split()[1] == fstype, (a, fstype)
h = open(r + "/report.html").read()
for want in ("<dt>Date</dt><dd>" + m["started"], '<code id="command">iocurve run ',
             '<dd id="coordinator">', '<dd id="hosts">local-0 on ', '<dd id="mounts">local-0: ',
             '<figure id="time-1">', 'class="timeplot"'):
    assert want in h, want
PY

python3 - "$R" <<'PY' || fail "interval records add up"
import csv, json, sys, collections
r = sys.argv[1]
import ivlines
lines = ivlines.lines(r + "/intervals.jsonl")
by = collections.defaultdict(dict)
for l in lines:
    if "interval" not in l:
        continue  # window and clock lines
    by[(l["workload"], l["step"], l["interval"])][l["agent"]] = l
assert sum("clock" in l for l in lines) == 2 * 3, "one clock line per agent and step"
expect = {("randread-4k", 0), ("randread-4k", 1), ("write-64k", 0)}
steps = {(w, s) for (w, s, i) in by}
assert steps == expect, f"steps {steps} != {expect}"
for key, recs in sorted(by.items()):
    assert set(recs) == {"local-0", "local-1", "*"}, f"{key}: records from {sorted(recs)}"
    merged = recs.pop("*")
    for f in ("ops", "bytes", "errors", "cpu_user_ns"):
        total = sum(x[f] for x in recs.values())
        assert merged[f] == total, f"{key}: merged {f} {merged[f]} != sum {total}"
    # what fell due and was never issued by the step's end is charged as a latency too
    # (a lower bound; a busy client can leave one behind): every op due is counted once
    due = merged["ops"] + merged.get("missed_charged", 0)
    assert merged["latency"]["count"] == due, f"{key}: latency count != ops + charged"
    bins = merged["latency"]["bins"]
    assert sum(bins[1::2]) == due, f"{key}: bins do not add up to ops + charged"
    assert merged["warmup"] == (key[2] == 0), f"{key}: warm-up flag"
    bs = 4096 if key[0] == "randread-4k" else 65536
    assert merged["bytes"] == merged["ops"] * bs, f"{key}: bytes != ops * block size"
print(f"ok - {len(by)} intervals: merged ops/bytes/errors equal the agents' sums")
rows = list(csv.DictReader(open(r + "/curve.csv")))
assert len(rows) == 3, f"curve.csv has {len(rows)} rows"
for row in rows:
    off, ach = float(row["offered_ops"]), float(row["achieved_ops"])
    assert abs(ach - off) / off < 0.05, f"{row['workload']} step {row['step']}: achieved {ach} vs offered {off}"
    assert int(row["errors"]) == 0, "errors"
    assert float(row["mean_us"]) > 0 and float(row["p99_us"]) >= float(row["p50_us"])
print("ok - every step achieved within 5% of offered, no errors")
PY
echo "# run_local: all passed"
