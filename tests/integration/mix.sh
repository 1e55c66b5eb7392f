#!/bin/sh
# SPDX-License-Identifier: MIT
# A mix in one workload, on a real file through io_uring: 70% 8KiB random reads and 30%
# 64KiB sequential writes at a fixed rate, one stream per worker. Per part: ops/s within
# 2% of its share of the achieved rate, bytes / ops its block size (the writes' 64 KiB:
# the record's written bytes / its writes), every operation in exactly one part, and the
# parts carried into the point (curve-*.json, curve-*.csv). A size distribution adds up
# to its shares. The campaign file's mistakes are refused naming file:line:column.
. "$(dirname "$0")/lib.sh"

cat > "$T/mix.yaml" <<YAML
campaign: mixtest
agents: {local: 1}
target: {path: $T/data, size: 64MiB, direct: true}
workers: 2
queue_depth: 16
interval: 500ms
warmup: 500ms
measure: 3s
slo: {latency: 100ms, part: reads}
workloads:
  - name: oltp
    mix:
      - {name: reads, share: 70, rw: randread, block_size: 8KiB}
      - {name: log, share: 30, rw: write, access: sequential, block_size: 64KiB}
    load: {steps: [600]}
  - name: sizes
    rw: randread
    block_size: {4KiB: 60, 16KiB: 40}
    load: {steps: [500]}
YAML
"$IOCURVE" check "$T/mix.yaml" > "$T/check.out" 2>&1 ||
	{ cat "$T/check.out"; fail "check takes the mix"; }
grep -q "reads 70% randread 8KiB, log 30% write 64KiB" "$T/check.out" ||
	{ cat "$T/check.out"; fail "check's plan shows the mix's parts"; }
ok "check's plan shows the mix's parts"
"$IOCURVE" run "$T/mix.yaml" --out "$T/out" > "$T/run.out" 2> "$T/run.err" ||
	{ cat "$T/run.out" "$T/run.err"; fail "the mix campaign runs"; }
ok "the mix campaign runs on a real file"

python3 - "$T/out" <<'PY' || fail "per-part shares, sizes and counts"
import json, sys
d = sys.argv[1]
share = {"reads": 0.70, "log": 0.30}
size = {"reads": 8192, "log": 65536}
tot = {"ops": 0, "bytes": 0, "reads": 0, "read_bytes": 0}
parts = {k: {"ops": 0, "bytes": 0, "reads": 0, "lat": 0} for k in share}
dist = {"ops": 0, "bytes": 0}
for line in open(d + "/intervals.jsonl"):
    o = json.loads(line)
    if o.get("agent") != "*" or "ops" not in o or o.get("warmup"):
        continue
    if o["workload"] == "sizes":
        assert "parts" not in o, "a size distribution is no mix"
        dist["ops"] += o["ops"]
        dist["bytes"] += o["bytes"]
        continue
    assert len(o["parts"]) == 2, o.get("parts")
    for k in tot:
        tot[k] += o[k]
    s = {"ops": 0, "bytes": 0, "reads": 0}
    for name, p in zip(("reads", "log"), o["parts"]):
        for k in ("ops", "bytes", "reads"):
            parts[name][k] += p[k]
            s[k] += p[k]
        parts[name]["lat"] += p["latency"]["count"]
        assert p["latency"]["count"] == p["ops"]
    # every completed operation is in exactly one part
    assert s["ops"] == o["ops"] and s["bytes"] == o["bytes"] and s["reads"] == o["reads"], (s, o["ops"])
assert tot["ops"] > 1500, tot
for name, p in parts.items():
    got = p["ops"] / tot["ops"]
    print(f"# {name}: {p['ops']} of {tot['ops']} ops = {got:.4f} (share {share[name]}), "
          f"{p['bytes']} bytes = {p['bytes'] / p['ops']:.0f} per op")
    assert abs(got - share[name]) <= 0.02 * share[name], (name, got)
    assert p["bytes"] == p["ops"] * size[name], (name, p["bytes"], p["ops"])
# the writes: all of the log part's, 64 KiB each; the reads all of the reads part's
writes = tot["ops"] - tot["reads"]
wbytes = tot["bytes"] - tot["read_bytes"]
print(f"# written: {wbytes} bytes / {writes} write ops = {wbytes / writes:.0f}")
assert writes == parts["log"]["ops"] and wbytes == writes * 65536
assert tot["reads"] == parts["reads"]["ops"] and parts["log"]["reads"] == 0
# the size distribution: 60% 4 KiB and 40% 16 KiB, interleaved exactly
mean = dist["bytes"] / dist["ops"]
print(f"# sizes: {dist['bytes']} bytes / {dist['ops']} ops = {mean:.0f} (asked {0.6*4096+0.4*16384:.0f})")
assert abs(mean - (0.6 * 4096 + 0.4 * 16384)) <= 0.01 * mean
# the point: each part's ops/s and MiB/s, its latency and percentiles
c = json.load(open(d + "/curve-oltp.json"))
pt = c["steps"][0]
ps = {p["name"]: p for p in pt["parts"]}
ach = pt["achieved_ops"]
for name in share:
    p = ps[name]
    print(f"# point {name}: {p['ops']} ops/s of {ach}, {p['mibps']} MiB/s, mean {p['mean_us']} us, p99 {p['p99_us']} us")
    assert abs(p["ops"] / ach - share[name]) <= 0.02 * share[name]
    assert abs(p["mibps"] - p["ops"] * size[name] / 2**20) <= 0.01 * p["mibps"] + 0.001
    assert p["p99_us"] >= p["p50_us"] > 0
head = open(d + "/curve-oltp.csv").readline()
assert "reads_ops" in head and "log_p99_us" in head, head
PY
ok "per-part ops/s within 2% of the shares, sizes as asked, parts in the point"

# report reads the parts back from intervals.jsonl: the same curve, parts and columns
cp "$T/out/curve-oltp.json" "$T/curve-oltp.json.orig"
cp "$T/out/curve-oltp.csv" "$T/curve-oltp.csv.orig"
"$IOCURVE" report "$T/out" > /dev/null || fail "report on the mix run"
cmp "$T/curve-oltp.json.orig" "$T/out/curve-oltp.json" &&
	cmp "$T/curve-oltp.csv.orig" "$T/out/curve-oltp.csv" ||
	fail "report rebuilds the mix's curve, parts included, identically"
ok "report rebuilds the mix's curve, parts included, identically"

# the file: the sequential 64 KiB writes reached it (its first blocks' data changed)
[ "$(stat -c %s "$T/data/"*-w0.dat)" -eq $((64 << 20)) ] || fail "the file keeps its size"

# the bad-mix-*.yaml fixtures (shares, keys, sizes, slo.part) are check.sh's
