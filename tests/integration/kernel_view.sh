#!/bin/sh
# SPDX-License-Identifier: MIT
# The kernel's view of the target's device, per step, against the tool's own figures:
# a real file with O_DIRECT on this machine's disk (the block layer's time per op within
# iocurve's service time, at least half of it at low load); a loop device backed by tmpfs
# against one backed by a file on the disk (the kernel tells them apart as the tool does);
# a file on ext4 on a partition of a loop device (resolved to the loop device, the disk
# whose queue it is, not the partition).
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v losetup > /dev/null || ! command -v mkfs.ext4 > /dev/null; then
	echo "# needs root, losetup and mkfs.ext4: skipped"
	exit 77
fi
LOOPS=""
MNT=""
SHM=""
kv_cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2> /dev/null
	for l in $LOOPS; do losetup -d "$l" 2> /dev/null; done
	[ -n "$SHM" ] && rm -f "$SHM"
	cleanup
}
trap kv_cleanup EXIT
loop() { # loop FILE [OPTION...]: a loop device of FILE, detached on exit
	f=$1
	shift
	l=$(losetup -f --show "$@" "$f") || { echo "# no loop device: skipped"; exit 77; }
	LOOPS="$LOOPS $l"
	echo "$l"
}

run() { # run NAME TARGET-YAML STEPS
	cat > "$T/$1.yaml" <<YAML
campaign: $1
agents: {local: 1}
target: $2
workers: 1
queue_depth: 4
interval: 500ms
warmup: 500ms
measure: 2s
workloads:
  - {name: rr, rw: randread, block_size: 4KiB, load: {steps: $3}}
YAML
	"$IOCURVE" run "$T/$1.yaml" --out "$T/$1" > "$T/$1.out" 2>&1 || { cat "$T/$1.out"; fail "$1 runs"; }
}

# 1. A file on this machine's disk, O_DIRECT. The device expected: the file's st_dev,
# a partition's whole disk (as the agent reads it).
run disk "{path: $T/data, size: 64MiB, direct: true}" "[300, 1500]"
python3 - "$T/disk" "$T/data" <<'PY' || fail "the disk's kernel view"
import json, os, sys
from ivlines import lines

res, data = sys.argv[1], sys.argv[2]
st = os.stat(data)
sysdir = os.path.realpath(f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}")
if os.path.exists(f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}/partition"):
    sysdir = os.path.dirname(sysdir)
want = os.path.basename(sysdir)
steps = json.load(open(f"{res}/curve-rr.json"))["steps"]
for s in steps:
    k = s["kernel"]
    print(f"# step {s['step']}: {s['achieved_ops']} ops/s, service {s['service_mean_us']} us, "
          f"device {k['device']} {k['device_service_us']} us, busy {k['device_util_pct']}%, "
          f"queue {k['device_queue']}, ops ratio {k['device_ops_ratio']}")
    assert k["device"].split(" ")[0] == want, (k["device"], want)
    assert 0 < k["device_service_us"] <= s["service_mean_us"], s
    assert abs(k["device_gap_us"] - (s["service_mean_us"] - k["device_service_us"])) < 0.2, k
low = steps[0]
assert low["kernel"]["device_service_us"] >= 0.5 * low["service_mean_us"], low
# the agent's own lines: the device read once per interval, its reads at least the workers'
# (O_DIRECT: every read reaches the device; other traffic only adds)
n = 0
for l in lines(f"{res}/intervals.jsonl"):
    if l.get("agent") in (None, "*") or "ops" not in l or l.get("warmup"):
        continue
    assert l["kernel_n"] == 1 and l["kernel_dev"] == want, l
    assert l["kernel_reads"] >= 0.9 * l["reads"], (l["kernel_reads"], l["reads"])
    n += 1
assert n >= 8, n
print(f"# {want}: {n} measured intervals with the device's counters")
PY
ok "a file on the disk: the device named, its time per op within the tool's service time and at least half of it at low load"
check "the step table shows the device's time beside the tool's" \
	grep -q "| Device | Device time | Gap us | Device busy | Device queue |" "$T/disk/summary.md"
check "report.html shows them too" grep -q "<th>Device time</th><th>Gap us</th>" "$T/disk/report.html"

# 2. Loop devices: one backed by tmpfs, one by a file on the disk read with direct I/O (no
# page cache in between): the kernel's device time tells them apart as the tool's does.
SHM=$(mktemp /dev/shm/iocurve-kv.XXXXXX)
head -c 32M /dev/urandom > "$SHM"
head -c 32M /dev/urandom > "$T/disk.img"
LT=$(loop "$SHM")
LD=$(loop "$T/disk.img" --direct-io=on)
run ltmp "{path: $LT, size: 32MiB}" "[1000]"
run ldisk "{path: $LD, size: 32MiB}" "[1000]"
python3 - "$T/ltmp" "$T/ldisk" "$LT" "$LD" <<'PY' || fail "the two loop devices apart"
import json, os, sys
t, d = (json.load(open(f"{r}/curve-rr.json"))["steps"][0] for r in sys.argv[1:3])
for s, dev in ((t, sys.argv[3]), (d, sys.argv[4])):
    k = s["kernel"]
    print(f"# {dev}: service {s['service_mean_us']} us, device {k['device']} "
          f"{k['device_service_us']} us, busy {k['device_util_pct']}%")
    assert k["device"] == os.path.basename(dev), (k["device"], dev)
# the tool sees tmpfs faster, and so does the kernel, by a wide margin
assert t["service_mean_us"] < d["service_mean_us"], (t, d)
assert 2 * t["kernel"]["device_service_us"] < d["kernel"]["device_service_us"], (t, d)
PY
ok "loop on tmpfs against loop on the disk: the kernel's device time apart as the tool's"

# 3. A file on ext4 on a partition of a loop device: the loop device's counters are read
# (its queue is the one that fills), not the partition's.
truncate -s 48M "$T/part.img"
python3 - "$T/part.img" <<'PY'
import struct, sys
# one Linux partition from sector 2048 to the end: an MBR by hand (no sfdisk here)
sectors = 48 * 2048
entry = struct.pack("<B3sB3sII", 0, b"\0\0\0", 0x83, b"\0\0\0", 2048, sectors - 2048)
with open(sys.argv[1], "r+b") as f:
    f.seek(446)
    f.write(entry)
    f.seek(510)
    f.write(b"\x55\xaa")
PY
LP=$(loop "$T/part.img" -P)
n=0
while [ ! -b "${LP}p1" ] && [ "$n" -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
[ -b "${LP}p1" ] || fail "the loop device's partition appears"
mkfs.ext4 -q "${LP}p1" || fail "mkfs.ext4 on the partition"
MNT=$T/mnt
mkdir -p "$MNT"
mount "${LP}p1" "$MNT" || fail "mounting it"
run lpart "{path: $MNT/data, size: 8MiB, direct: true}" "[1000]"
python3 - "$T/lpart" "$LP" <<'PY' || fail "a file on a loop's partition resolved to the loop"
import json, os, sys
s = json.load(open(f"{sys.argv[1]}/curve-rr.json"))["steps"][0]
k = s["kernel"]
print(f"# file on {sys.argv[2]}p1: device {k['device']}, {k['device_service_us']} us "
      f"(service {s['service_mean_us']} us)")
assert k["device"] == os.path.basename(sys.argv[2]), k
assert 0 < k["device_service_us"] <= s["service_mean_us"], s
PY
ok "a file on ext4 on a loop device's partition is resolved to the loop device"
echo "# kernel-view: all passed"
