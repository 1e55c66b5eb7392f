#!/bin/sh
# SPDX-License-Identifier: MIT
# Sync writes on real files through io_uring, from the commands a user types. Two
# local agents of one worker each, so an agent's line in intervals.jsonl is one
# worker's. fsync: 4 and fdatasync: 2 at a fixed rate: per worker and step, the syncs
# completed are floor(writes / N), or one less (the rule: the sync due after the last
# group of a step is dropped when the step ends before the writes before it complete);
# each sync's latency is in its own histogram (count = syncs, mean above 0), never in
# ops, bytes or the data latency; the curve files, summary.json, summary.md,
# report.html and `iocurve report` (rebuilt the same) carry them. sync: dsync opens
# each worker's file O_DSYNC (its /proc/PID/fdinfo flags hold 010000), and a workload
# without it does not. A plan naming fsync is refused on an agent without capability
# 'sync' (agent_caps covers the refusal by name; here: check's plan line).
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/target" "$T/dtarget"
cat > "$T/sync.yaml" <<YAML
campaign: syncs
agents: {local: 2}
target: {path: $T/target, size: 8MiB}
workers: 1
queue_depth: 8
block_size: 4KiB
interval: 200ms
warmup: 200ms
measure: 1s
slo: {latency: 100ms}
workloads:
  - {name: fs4, rw: randwrite, fsync: 4, load: {steps: [400, 800]}}
  - {name: fds2, rw: write, fdatasync: 2, load: {steps: [400]}}
YAML
"$IOCURVE" check "$T/sync.yaml" > "$T/check.out" 2>&1 || { cat "$T/check.out"; fail "check takes fsync and fdatasync"; }
check "check's plan says the fsync" grep -q "sync     an fsync after every 4 writes of each worker" "$T/check.out"
check "check's plan says the fdatasync" grep -q "sync     an fdatasync after every 2 writes of each worker" "$T/check.out"

# The workers' file flags, sampled while a campaign runs (every 50 ms, until PID is
# gone): for each descriptor of any process naming a worker file under DIR, its
# fdinfo flags. Prints "N M": samples seen, and of them opened O_DSYNC (010000 octal).
flags_watch() { # flags_watch DIR PID
	python3 - "$1" "$2" <<'PY'
import os, sys, time
d, pid = sys.argv[1], int(sys.argv[2])
seen = dsync = 0
def alive():
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie of ours is over too
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"
while alive():
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            fds = os.listdir(f"/proc/{p}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                path = os.readlink(f"/proc/{p}/fd/{fd}")
                if not path.startswith(d + "/") or not path.endswith(".dat"):
                    continue
                with open(f"/proc/{p}/fdinfo/{fd}") as f:
                    fl = next(l for l in f if l.startswith("flags:")).split()[1]
            except (OSError, StopIteration):
                continue
            seen += 1
            dsync += (int(fl, 8) & 0o10000) != 0
    time.sleep(0.05)
print(seen, dsync)
PY
}

"$IOCURVE" run "$T/sync.yaml" --out "$T/out" > "$T/run.out" 2> "$T/run.err" &
RUN=$!
PIDS="$PIDS $RUN"
set -- $(flags_watch "$T/target" "$RUN")
wait "$RUN" || { cat "$T/run.out" "$T/run.err"; fail "the sync campaign runs"; }
ok "the sync campaign runs"
echo "# without sync: dsync: $1 samples of worker files, $2 of them O_DSYNC"
check "a workload without sync: dsync opens its files without O_DSYNC" test "$1" -gt 0 -a "$2" -eq 0

python3 - "$T/out" <<'PY' || fail "syncs add up per worker and step, in their own histogram"
import csv, json, sys
from collections import defaultdict
d = sys.argv[1]
every = {"fs4": 4, "fds2": 2}
w = defaultdict(int)   # (workload, step, agent) -> writes completed
s = defaultdict(int)   # ... -> syncs completed
merged = defaultdict(lambda: [0, 0])
for line in open(d + "/intervals.jsonl"):
    o = json.loads(line)
    if "ops" not in o:
        continue
    assert o["format"] == 5, o["format"]
    sl = o.get("sync_latency", {"count": 0, "sum_ns": 0})
    # one latency per sync, none among the data operations' counts
    assert sl["count"] == o["syncs"], (sl, o["syncs"])
    assert o["latency"]["count"] == o["ops"] + o["missed_charged"]
    assert o["bytes"] == o["ops"] * 4096 and o["errors"] == 0, o
    key = (o["workload"], o["step"])
    if o["agent"] == "*":
        merged[key][0] += o["syncs"]
        merged[key][1] += sl["sum_ns"]
        continue
    w[key + (o["agent"],)] += o["ops"] - o["reads"]
    s[key + (o["agent"],)] += o["syncs"]
for k in sorted(w):
    n = every[k[0]]
    want = w[k] // n
    print(f"# {k[0]} step {k[1]} {k[2]}: {w[k]} writes, {s[k]} syncs (floor(writes/{n}) = {want})")
    assert w[k] >= 100, (k, w[k])
    assert want - 1 <= s[k] <= want, (k, w[k], s[k])
for k, (count, total) in sorted(merged.items()):
    assert count == sum(v for kk, v in s.items() if kk[:2] == k), k
    mean_us = total / count / 1e3
    print(f"# {k[0]} step {k[1]}: {count} syncs, mean {mean_us:.1f} us")
    assert 1 <= mean_us <= 1e6, mean_us  # a real sync of a real file takes time
# the curve files: the window's syncs, their rate and latency
for name, n in every.items():
    rows = list(csv.DictReader(open(f"{d}/curve-{name}.csv")))
    for r in rows:
        ops, sops = float(r["achieved_ops"]), float(r["sync_ops"])
        assert abs(sops - ops / n) <= 0.05 * ops / n + 2, (name, ops, sops)
        assert float(r["sync_mean_us"]) > 0 and float(r["sync_p99_us"]) >= float(r["sync_p50_us"])
        assert float(r["sync_max_us"]) >= float(r["sync_p99_us"])
    js = json.load(open(f"{d}/curve-{name}.json"))
    assert all(st["syncs"] > 0 and st["sync_mean_us"] > 0 for st in js["steps"]), js["steps"]
s = json.load(open(d + "/summary.json"))
ws = {x["name"]: x for x in s["workloads"]}
assert ws["fs4"]["sync"] == {"fsync": 4, "fdatasync": 0, "dsync": False}, ws["fs4"]["sync"]
assert ws["fds2"]["sync"] == {"fsync": 0, "fdatasync": 2, "dsync": False}
for name in every:
    p = ws[name]["sync_at_peak"]
    print(f"# {name} at its peak: {p}")
    assert p["syncs"] > 0 and p["ops"] > 0 and p["mean_us"] > 0 and p["p99_us"] > 0, p
# a sync is not a data op: the achieved ops/s are the writes' (400 and 800 asked; a
# window's edges move a few completions in or out)
rows = list(csv.DictReader(open(d + "/curve-fs4.csv")))
for r, asked in zip(rows, (400, 800)):
    assert abs(float(r["achieved_ops"]) - asked) <= 0.02 * asked, (r["achieved_ops"], asked)
PY
ok "syncs add up per worker and step, in their own histogram"
check "summary.md's step table has the syncs" grep -q "| Syncs/s | Sync mean | Sync p99 |" "$T/out/summary.md"
"$IOCURVE" compare "$T/out" "$T/out" > "$T/cmp.md" 2> "$T/cmp.err" ||
	{ cat "$T/cmp.err"; fail "compare a sync run with itself"; }
python3 - "$T" <<'PY' || { cat "$T/cmp.md"; fail "compare's syncs row"; }
import json, re, sys
t = sys.argv[1]
for w in ("fs4", "fds2"):
    row = next(l for l in open(f"{t}/cmp.md") if l.startswith(f"| {w} | syncs at peak |"))
    print("#", row.strip())
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    steps = json.load(open(f"{t}/out/curve-{w}.json"))["steps"]
    peak = max(steps, key=lambda s: s["achieved_ops"])
    m = re.fullmatch(r"([0-9.]+) syncs/s, mean ([0-9.]+) us, p99 ([0-9.]+) us", cells[2])
    assert m and abs(float(m.group(1)) - peak["sync_ops"]) <= 0.06, (cells[2], peak["sync_ops"])
    assert abs(float(m.group(2)) - peak["sync_mean_us"]) <= 0.06, (cells[2], peak["sync_mean_us"])
    assert cells[3] == cells[2] and cells[4] == "+0.0% syncs/s, +0.0% mean", cells
PY
ok "compare's syncs row: each run's syncs/s and latency at its peak, and the change"
check "report.html's step table has the syncs" grep -q "Syncs/s" "$T/out/report.html"
head -1 "$T/out/curve.csv" > "$T/curve.head"
check "curve.csv has the sync columns" grep -q "syncs,sync_ops,sync_mean_us,sync_p50_us,sync_p99_us,sync_max_us" "$T/curve.head"

cp -r "$T/out" "$T/again"
rm "$T/again"/curve-*.csv "$T/again"/curve-*.json "$T/again/summary.json"
"$IOCURVE" report "$T/again" > /dev/null 2>&1 || fail "iocurve report rebuilds the sync campaign"
for f in curve-fs4.csv curve-fds2.json summary.json; do
	check "report rebuilds $f the same" cmp -s "$T/out/$f" "$T/again/$f"
done

# sync: dsync: every worker file opened O_DSYNC, seen in its fdinfo flags.
cat > "$T/dsync.yaml" <<YAML
campaign: dsync
agents: {local: 2}
target: {path: $T/dtarget, size: 8MiB}
workers: 1
queue_depth: 4
block_size: 4KiB
interval: 200ms
warmup: 200ms
measure: 1400ms
workloads:
  - {name: ds, rw: randwrite, sync: dsync, load: {steps: [200]}}
YAML
"$IOCURVE" run "$T/dsync.yaml" --out "$T/dout" > "$T/drun.out" 2> "$T/drun.err" &
RUN=$!
PIDS="$PIDS $RUN"
set -- $(flags_watch "$T/dtarget" "$RUN")
wait "$RUN" || { cat "$T/drun.out" "$T/drun.err"; fail "the dsync campaign runs"; }
echo "# with sync: dsync: $1 samples of worker files, $2 of them O_DSYNC"
check "sync: dsync opens every worker file O_DSYNC (fdinfo flags 010000)" test "$1" -gt 0 -a "$2" -eq "$1"
check "summary.json says so" python3 -c "
import json, sys
w = json.load(open('$T/dout/summary.json'))['workloads'][0]
sys.exit(0 if w['sync']['dsync'] is True else 1)"

# fsync: 0 is none: taken, with no sync line in the plan.
sed 's/fsync: 4/fsync: 0/' "$T/sync.yaml" > "$T/zero.yaml"
"$IOCURVE" check "$T/zero.yaml" > "$T/zero.out" 2>&1 || { cat "$T/zero.out"; fail "fsync: 0 is taken"; }
check "fsync: 0 asks for no sync" test "$(grep -c '^  sync ' "$T/zero.out")" -eq 1
