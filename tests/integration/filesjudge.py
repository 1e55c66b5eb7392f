#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""filesjudge.py SETS RESULTS: the answers of files.sh's campaign (and nfs_files.sh's, on an
export's directory): no errors, each part within 2% of its share, each step within 2% of its
offered rate, the put-back's counts equal to the results' creates less unlinks and mkdirs
less rmdirs, and the sets as laid out (2 workers x 16 leaves x 25 files of 4 or 64 KiB, one
empty directory per leaf)."""
import json, os, re, sys
sets, d = sys.argv[1], sys.argv[2]
plan = {"dirs": {"mkdir": 25, "rmdir": 25, "access": 25, "open": 25},
        "build": {"stat": 40, "create": 15, "unlink": 5, "readdir": 5, "read": 10,
                  "write": 10, "rename": 10, "setattr": 5}}
every = {w: {p: 0 for p in plan[w]} for w in plan}
measured = {w: {p: 0 for p in plan[w]} for w in plan}
errors = 0
for line in open(d + "/intervals.jsonl"):
    o = json.loads(line)
    if o.get("agent") != "*" or "parts" not in o:
        continue
    errors += o.get("errors", 0)
    for name, p in zip(plan[o["workload"]], o["parts"]):
        every[o["workload"]][name] += p["ops"]
        if not o.get("warmup"):
            measured[o["workload"]][name] += p["ops"]
assert errors == 0, f"{errors} operations failed"
for w, parts in measured.items():
    total = sum(parts.values())
    for name, n in parts.items():
        got = n / total
        want = plan[w][name] / 100
        assert abs(got - want) <= 0.02 * want, (w, name, got, want)
    print(f"# {w}: {total} ops measured, " + ", ".join(f"{k} {v}" for k, v in parts.items()))
for s in json.load(open(d + "/curve-build.json"))["steps"]:
    assert abs(s["achieved_ops"] / s["offered_ops"] - 1) <= 0.02, s
# put back after each step: the names taken away less those made again, every step's
net = 0
for l in open(d + "/agent-local-0.log"):
    m = re.search(r"file set put back after a step in [0-9.]+ ms: (\d+) made again, (\d+) removed", l)
    if m:
        net += int(m.group(2)) - int(m.group(1))
moved = (every["build"]["create"] - every["build"]["unlink"] +
         every["dirs"]["mkdir"] - every["dirs"]["rmdir"])
print(f"# put back: {net} names taken away net; the results: {every['build']['create']} "
      f"creates - {every['build']['unlink']} unlinks + {every['dirs']['mkdir']} mkdirs - "
      f"{every['dirs']['rmdir']} rmdirs = {moved}")
assert net == moved, (net, moved)
# every set as laid out: 16 leaves x 25 files at their sizes, one e0 per leaf
files = dirs_e = big = small = 0
for root, dnames, fnames in os.walk(sets):
    for f in fnames:
        files += 1
        assert re.fullmatch(r"f\d+", f), (root, f)
        size = os.path.getsize(os.path.join(root, f))
        assert size in (4096, 65536), (root, f, size)
        big += size == 65536
        small += size == 4096
    dirs_e += sum(1 for n in dnames if n.startswith("e"))
print(f"# {files} files in the sets, {small} of 4KiB, {big} of 64KiB; {dirs_e} empty directories")
assert files == 2 * 16 * 25, files
assert dirs_e == 2 * 16, dirs_e
assert 0.2 <= big / (big + small) <= 0.4, (big, small)
