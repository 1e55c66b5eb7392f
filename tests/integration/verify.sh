#!/bin/sh
# SPDX-License-Identifier: MIT
# verify: crc32 and xxh64 on real files and real io_uring. A first campaign writes 2 worker files
# of 8MiB whole (every 4KiB block stamped with its header); a second reads them whole
# with verify: no mismatch. dd then damages 64 bytes of one block of one file, and a
# third campaign reads again: exactly one mismatch, named with that block's offset and
# file, the step failed, the file reused as it was (not laid out again over the
# evidence); `compare --fail-if` breaches on that run and passes the clean one. Then
# the same with verify: xxh64 in files of its own: one mismatch, its words naming xxh64.
. "$(dirname "$0")/lib.sh"

# campaign NAME RW [METHOD TARGET]: fixed work over the whole 8MiB of each of 2 files,
# verified with METHOD (crc32) in TARGET ($T/target).
campaign() {
	cat > "$T/$1.yaml" <<YAML
campaign: $1
agents: {local: 1}
target: {path: ${4:-$T/target}, size: 8MiB, direct: true}
workers: 2
queue_depth: 8
interval: 200ms
warmup: 0s
verify: ${3:-crc32}
workloads:
  - {name: all, rw: $2, block_size: 64KiB, load: {work: {bytes: 8MiB}, rate: max}}
YAML
}

F=$T/target/local-0-w1.dat
BLOCK=300 # the damaged block, its offset 300 x 4KiB
OFF=$((BLOCK * 4096))

campaign fill write
campaign check read
check "iocurve check says verify" sh -c \
	"'$IOCURVE' check '$T/check.yaml' | grep -q 'verify crc32 (reads check the header of every 4KiB block)'"
"$IOCURVE" run "$T/fill.yaml" --out "$T/fill" > "$T/fill.out" 2>&1 ||
	{ cat "$T/fill.out"; fail "the write campaign exits 0"; }
ok "the write campaign exits 0"
check "its layout is stamped verified" sh -c \
	"python3 -c 'import os,sys; print(os.getxattr(sys.argv[1], \"user.iocurve.layout\").decode())' '$F' |
	 grep -qx 'size=8388608 compress=0 dedupe=0 verify=crc32'"

"$IOCURVE" run "$T/check.yaml" --out "$T/clean" > "$T/clean.out" 2>&1 ||
	{ cat "$T/clean.out"; fail "the verify read of intact files exits 0"; }
ok "the verify read of intact files exits 0"
check "it read every block: 256 reads of 64KiB (curve.csv's ops)" sh -c \
	"python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); sys.exit(int(r[0][\"ops\"]) != 256)' '$T/clean/curve.csv'"
check "and found 0 mismatches" test "$(mismatches "$T/clean")" -eq 0

sha_before=$(sha256sum "$T/target/local-0-w0.dat" | cut -d' ' -f1)
dd if=/dev/urandom of="$F" bs=1 seek=$((OFF + 1000)) count=64 conv=notrunc,fsync 2> /dev/null
damaged=$(sha256sum "$F" | cut -d' ' -f1)

"$IOCURVE" run "$T/check.yaml" --out "$T/bad" > "$T/bad.out" 2>&1 &&
	{ cat "$T/bad.out"; fail "the verify read of a damaged file fails"; }
ok "the verify read of a damaged file fails (exit 1)"
n=$(mismatches "$T/bad")
check "exactly one mismatch (found $n)" test "$n" -eq 1
check "the words name the offset, the file, agent and worker" grep -q \
	"data mismatch at offset $OFF of $F (local-0, w1): expected generation [0-9]* crc [0-9a-f]\{8\}, found [0-9a-f]\{8\}" \
	"$T/bad.out"
check "the step's error says where (intervals.jsonl)" grep -q "\"offset\":$OFF,\"cause\":\"data mismatch at offset $OFF of $F" "$T/bad/intervals.jsonl"
check "curve-all.json counts it" sh -c \
	"python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))[\"steps\"][0]; sys.exit(s[\"mismatches\"] != 1)' '$T/bad/curve-all.json'"
check "the damaged file was reused as it was, not laid out again" sh -c \
	"grep -q 'workers ready (0 bytes laid out' '$T/bad/agent-local-0.log' &&
	 test \"\$(sha256sum '$F' | cut -d' ' -f1)\" = '$damaged' &&
	 test \"\$(sha256sum '$T/target/local-0-w0.dat' | cut -d' ' -f1)\" = '$sha_before'"

# compare: the clean read against itself passes, against the damaged one breaches
rc=0
"$IOCURVE" compare "$T/clean" "$T/clean" --out "$T/cmp0" --fail-if 'storm > +1000%' > "$T/cmp0.out" 2>&1 || rc=$?
check "compare --fail-if passes two clean runs (exit $rc)" test "$rc" -eq 0
rc=0
"$IOCURVE" compare "$T/clean" "$T/bad" --out "$T/cmp1" --fail-if 'storm > +1000%' > "$T/cmp1.out" 2>&1 || rc=$?
check "compare --fail-if breaches on the run with a mismatch (exit $rc)" test "$rc" -eq 4
check "and says why" grep -q "BREACH.*all: 1 data mismatches in $T/bad, the first data mismatch at offset $OFF of $F" "$T/cmp1.out"
# verify: xxh64, the same case in files of its own: laid out and written with XXH64
# headers (the xattr says so), read clean, then one block damaged: exactly one
# mismatch at its offset, its words naming xxh64 and both 64-bit sums.
X=$T/xtarget
XF=$X/local-0-w1.dat
campaign xfill write xxh64 "$X"
campaign xcheck read xxh64 "$X"
check "iocurve check says verify xxh64" sh -c \
	"'$IOCURVE' check '$T/xcheck.yaml' | grep -q 'verify xxh64 (reads check the header of every 4KiB block)'"
"$IOCURVE" run "$T/xfill.yaml" --out "$T/xfill" > "$T/xfill.out" 2>&1 ||
	{ cat "$T/xfill.out"; fail "the xxh64 write campaign exits 0"; }
ok "the xxh64 write campaign exits 0"
check "its layout is stamped verified with xxh64" sh -c \
	"python3 -c 'import os,sys; print(os.getxattr(sys.argv[1], \"user.iocurve.layout\").decode())' '$XF' |
	 grep -qx 'size=8388608 compress=0 dedupe=0 verify=xxh64'"
check "its blocks' headers name xxh64 (byte 26: 1) and carry its high half" python3 -c "
import struct, sys
d = open(sys.argv[1], 'rb').read()
for at in range(0, len(d), 4096):
    magic, lo, off, gen, w, kind, z, hi = struct.unpack_from('<4sIQQHBBI', d, at)
    assert magic == b'iocv' and off == at and kind == 1 and z == 0, (at, magic, off, kind)
" "$XF"
"$IOCURVE" run "$T/xcheck.yaml" --out "$T/xclean" > "$T/xclean.out" 2>&1 ||
	{ cat "$T/xclean.out"; fail "the xxh64 read of intact files exits 0"; }
check "the xxh64 read of intact files found 0 mismatches" test "$(mismatches "$T/xclean")" -eq 0
dd if=/dev/urandom of="$XF" bs=1 seek=$((OFF + 1000)) count=64 conv=notrunc,fsync 2> /dev/null
"$IOCURVE" run "$T/xcheck.yaml" --out "$T/xbad" > "$T/xbad.out" 2>&1 &&
	{ cat "$T/xbad.out"; fail "the xxh64 read of a damaged file fails"; }
ok "the xxh64 read of a damaged file fails (exit 1)"
n=$(mismatches "$T/xbad")
check "xxh64: exactly one mismatch (found $n)" test "$n" -eq 1
check "its words name the offset, the file and xxh64's sums" grep -q \
	"data mismatch at offset $OFF of $XF (local-0, w1): expected generation [0-9]* xxh64 [0-9a-f]\{16\}, found [0-9a-f]\{16\}" \
	"$T/xbad.out"
check "the step's error says where (intervals.jsonl)" grep -q "\"offset\":$OFF,\"cause\":\"data mismatch at offset $OFF of $XF" "$T/xbad/intervals.jsonl"
echo "all verify checks passed"
