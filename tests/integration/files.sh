#!/bin/sh
# SPDX-License-Identifier: MIT
# File workloads on real file systems: tmpfs, and ext4 on a loop device the test makes. A
# file set per worker (4^2 directories of 25 files, 70% of 4 KiB and 30% of 64 KiB), then
# a directory mix (mkdir, rmdir, access, open) and a build-like mix of eight kinds (stat,
# create, unlink, readdir, whole-file reads and writes, rename, chmod) at fixed rates.
# Known answers: every operation succeeds; each part's share of the operations within 2%
# of its share of the mix and the whole within 2% of the offered rate; after each step the
# sets are put back as laid out, and what that took away and made again (the agents' log)
# is exactly the creates less the unlinks, the mkdirs less the rmdirs the results count
# (creates outnumber unlinks 3 to 1, so the sets move); afterwards the sets hold the
# layout's files and directories, each file at its size; a second run does the same.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "# needs root (mounts tmpfs and a loop device): skipped"
	exit 77
fi
LOOP=""
mkdir -p "$T/tmpfs" "$T/ext4"
mount -t tmpfs -o size=256m tmpfs "$T/tmpfs"
trap 'umount "$T/tmpfs" 2>/dev/null; [ -n "$LOOP" ] && { umount "$T/ext4" 2>/dev/null; losetup -d "$LOOP"; }; cleanup' EXIT
if command -v losetup > /dev/null && command -v mkfs.ext4 > /dev/null; then
	truncate -s 256M "$T/ext4.img"
	mkfs.ext4 -q -F "$T/ext4.img"
	LOOP=$(losetup -f --show "$T/ext4.img" 2> /dev/null) || LOOP=""
	[ -n "$LOOP" ] && mount "$LOOP" "$T/ext4"
fi

campaign() { # campaign FS: the two workloads on FS's mount
	cat > "$T/$1.yaml" <<YAML
campaign: files-$1
agents: {local: 1}
target: {path: $T/$1/sets, size: 1MiB}
workers: 2
interval: 500ms
warmup: 500ms
measure: 2500ms
slo: {latency: 50ms}
# every step its 6 intervals: a step decided early ends within an interval whose
# operations no result holds, and the count below would miss them
steady: {extend: 0}
fileset: {dirs: 4, depth: 2, files: 25, size: {4KiB: 70, 64KiB: 30}}
workloads:
  - name: dirs
    mix:
      - {name: mkdir, share: 25, op: mkdir}
      - {name: rmdir, share: 25, op: rmdir}
      - {name: access, share: 25, op: access}
      - {name: open, share: 25, op: open}
    load: {steps: [400]}
  - name: build
    mix:
      - {name: stat, share: 40, op: stat}
      - {name: create, share: 15, op: create}
      - {name: unlink, share: 5, op: unlink}
      - {name: readdir, share: 5, op: readdir}
      - {name: read, share: 10, rw: read-file}
      - {name: write, share: 10, rw: write-file}
      - {name: rename, share: 10, op: rename}
      - {name: setattr, share: 5, op: setattr}
    load: {steps: [400, 800]}
YAML
}

judge() { # judge FS RESULTS
	python3 - "$T/$1/sets" "$2" <<'PY'
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
PY
}

for fs in tmpfs ext4; do
	if [ "$fs" = ext4 ] && [ -z "$LOOP" ]; then
		echo "# no loop device or mkfs.ext4: ext4 skipped"
		continue
	fi
	campaign "$fs"
	"$IOCURVE" run "$T/$fs.yaml" --out "$T/$fs-1" > "$T/$fs-1.out" 2> "$T/$fs-1.err" ||
		{ cat "$T/$fs-1.out" "$T/$fs-1.err"; fail "the file campaign runs on $fs"; }
	judge "$fs" "$T/$fs-1" || fail "each kind's share, no errors and the files counted on $fs"
	ok "on $fs: each kind its share, no errors, each step's balance put back, the sets as laid out"
done
# Again on tmpfs, the sets found from the first run.
"$IOCURVE" run "$T/tmpfs.yaml" --out "$T/tmpfs-2" > "$T/tmpfs-2.out" 2> "$T/tmpfs-2.err" ||
	{ cat "$T/tmpfs-2.out" "$T/tmpfs-2.err"; fail "the file campaign runs again"; }
judge tmpfs "$T/tmpfs-2" || fail "a second run starts from the layout"
ok "a second run on the sets of the first: the same answers"
