#!/bin/sh
# SPDX-License-Identifier: MIT
# A laid-out file that lost its data between campaigns is laid out again, and the
# agent says why: holes punched (fallocate -p, size kept) and a range overwritten
# with zeros. The next campaign's reads then read real data: the file has no hole.
. "$(dirname "$0")/lib.sh"

command -v fallocate > /dev/null || { echo "# needs fallocate: skipped"; exit 77; }
F=$T/target/local-0-w0.dat

run() { # run NAME [RW BLOCK LOAD]: one short campaign on $F (randread 4KiB, 200 ops/s)
	cat > "$T/$1.yaml" <<YAML
campaign: $1
agents: {local: 1}
target: {path: $T/target, size: 4MiB}
workers: 1
queue_depth: 4
interval: 200ms
warmup: 200ms
measure: 400ms
slo: {latency: 50ms}
workloads:
  - {name: r, rw: ${2:-randread}, block_size: ${3:-4KiB}, load: ${4:-{steps: [200]\}}}
YAML
	"$IOCURVE" run "$T/$1.yaml" --out "$T/$1-r" > "$T/$1.out" 2> "$T/$1.err" ||
		{ cat "$T/$1.out" "$T/$1.err"; fail "campaign $1 runs"; }
}

holes() { # holes FILE: the bytes of it that are holes
	python3 - "$1" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
size, pos, holes = os.fstat(fd).st_size, 0, 0
while pos < size:
    try:
        data = os.lseek(fd, pos, os.SEEK_DATA)
    except OSError:
        data = size
    holes += min(data, size) - pos
    if data >= size:
        break
    pos = os.lseek(fd, data, os.SEEK_HOLE)
print(holes)
PY
}

run first
check "the first campaign laid the file out" \
	grep -q "workers ready (4194304 bytes laid out" "$T/first-r/agent-local-0.log"
check "the file has no hole after its layout" test "$(holes "$F")" -eq 0
run same
check "an intact file is not laid out again" \
	grep -q "workers ready (0 bytes laid out" "$T/same-r/agent-local-0.log"
# A worker's own writes (2KiB chunks over the layout's 4KiB ones) are data the check accepts.
run written write 2KiB "{max: true}"
check "the workers' 2KiB writes covered most of the file" python3 - "$F" <<'PY'
import struct, sys
M = (1 << 64) - 1
def mix(x):
    x ^= x >> 33; x = x * 0xff51afd7ed558ccd & M
    x ^= x >> 33; x = x * 0xc4ceb9fe1a85ec53 & M
    return x ^ (x >> 33)
def chunk_head(b):  # datagen_check for compress 0: the stamp's seed gives the next word
    a, s, w = struct.unpack_from("<QQQ", b)
    seed = a ^ mix(s ^ 0x9e3779b97f4a7c15)
    pick = mix((s + 0x632be59bd9b4e019) & M)
    base = mix(seed ^ 0x5851f42d4c957f2d)
    j = pick % (256 * 1024 // 8) + 2
    return (a or s) and w == mix((base + (j + 1) * 0x9e3779b97f4a7c15) & M) ^ mix(pick)
d = open(sys.argv[1], "rb").read()
odd = [chunk_head(d[o:o + 24]) for o in range(2048, len(d), 4096)]
print(f"# {sum(map(bool, odd))} of {len(odd)} odd 2KiB offsets start a chunk of the workers'")
assert sum(map(bool, odd)) > len(odd) // 2
PY
run after
check "a file the workers wrote is not laid out again" \
	grep -q "workers ready (0 bytes laid out" "$T/after-r/agent-local-0.log"

# Holes punched, size kept: the xattr still says laid out.
fallocate -p -o 512KiB -l 3MiB "$F"
check "fallocate punched 3MiB of holes" test "$(holes "$F")" -eq 3145728
check "and kept the size" test "$(stat -c %s "$F")" -eq 4194304
run punched
L=$T/punched-r/agent-local-0.log
sed -n 's/^/# /p' "$L" | grep -E "re-laying|laid out" || true
check "the agent says it re-lays the file and why" grep -q "re-laying $F: 3MiB of 4MiB are holes" "$L"
check "it laid the whole file out again" grep -q "workers ready (4194304 bytes laid out" "$L"
check "the file has no hole after the campaign: its reads read data" test "$(holes "$F")" -eq 0
check "the campaign's reads completed" python3 -c "
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and float(rows[0]['achieved_ops']) > 0 and int(rows[0]['errors']) == 0, rows
" "$T/punched-r/curve.csv"

# Allocated zeros over part of it (no hole): the sampled blocks are not the layout's data.
dd if=/dev/zero of="$F" bs=1M seek=0 count=4 conv=notrunc status=none
sync "$F"
run zeroed
L=$T/zeroed-r/agent-local-0.log
sed -n 's/^/# /p' "$L" | grep -E "re-laying" || true
check "zeroed data: the agent re-lays it and says why" \
	grep -q "re-laying $F: 16 of 16 blocks read back are not the data its layout wrote (the first at offset 0)" "$L"
check "zeroed data: laid out again" grep -q "workers ready (4194304 bytes laid out" "$L"
echo "# target-holes: all passed"
