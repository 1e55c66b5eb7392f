#!/bin/sh
# SPDX-License-Identifier: MIT
# The NFS engine against a real server: nfs-ganesha (VFS FSAL) and rpcbind on 127.0.0.1
# (tests/integration/nfslib.sh). A campaign writes 2 worker files of 8 MiB through the
# agent's own client (2 connections per stream, verify: crc32), then reads every block
# back through it. Known answers: the files on the export's directory are the campaign's
# (its size, owned by the campaign's uid, nobody by default); every block written over NFS
# reads back with its header intact, through NFS and through io_uring on the export's own
# directory; 64 bytes damaged on the export's directory are found by the next read over
# NFS, exactly one mismatch at its offset; a plan asking for root's credentials is refused
# unless the agent allows it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nfslib.sh"

EXP=$T/export
nfs_server_start "$EXP"
trap 'nfs_server_stop; cleanup' EXIT

# campaign NAME RW [EXTRA TARGET-KEY]: fixed work over each whole 8 MiB file, verified
campaign() {
	cat > "$T/$1.yaml" <<YAML
campaign: $1
agents: {local: 1}
target:
  ${4:-nfs: {server: 127.0.0.1, export: $EXP, path: run, connections: 2${3:-}}}
  size: 8MiB
workers: 2
queue_depth: 8
interval: 200ms
warmup: 0s
verify: crc32
workloads:
  - {name: all, rw: $2, block_size: 64KiB, load: {work: {bytes: 8MiB}, rate: max}}
YAML
}

F=$EXP/run/local-0-w1.dat
BLOCK=300
OFF=$((BLOCK * 4096))

campaign fill write
campaign check read
"$IOCURVE" run "$T/fill.yaml" --out "$T/fill" > "$T/fill.out" 2>&1 ||
	{ cat "$T/fill.out"; fail "the write campaign over NFS exits 0"; }
ok "the write campaign over NFS exits 0"
check "the export holds both worker files at 8 MiB" sh -c \
	"test \$(stat -c %s '$EXP/run/local-0-w0.dat') -eq 8388608 && test \$(stat -c %s '$F') -eq 8388608"
check "made with the campaign's credentials (uid and gid 65534)" sh -c \
	"test \"\$(stat -c %u:%g '$F')\" = 65534:65534"
check "its layout record sits beside it" grep -qx \
	'size=8388608 compress=0 dedupe=0 clone= verify=1' "$EXP/run/.local-0-w1.dat.layout"

"$IOCURVE" run "$T/check.yaml" --out "$T/clean" > "$T/clean.out" 2>&1 ||
	{ cat "$T/clean.out"; fail "the verify read over NFS exits 0"; }
ok "the verify read over NFS exits 0"
check "it read every block: 256 reads of 64KiB" sh -c \
	"python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); sys.exit(int(r[0][\"ops\"]) != 256)' '$T/clean/curve.csv'"
check "and found 0 mismatches" test "$(mismatches "$T/clean")" -eq 0

# the same bytes through io_uring on the export's own directory: the layout's record is
# the local one's xattr, so the files are read as they are, never laid out again
sha=$(sha256sum "$F" | cut -d' ' -f1)
for w in 0 1; do
	python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.iocurve.layout", b"size=8388608 compress=0 dedupe=0 verify=crc32")' \
		"$EXP/run/local-0-w$w.dat"
done
campaign local read "" "path: $EXP/run"
"$IOCURVE" run "$T/local.yaml" --out "$T/local" > "$T/local.out" 2>&1 ||
	{ cat "$T/local.out"; fail "the verify read on the export's directory exits 0"; }
check "read locally: 256 reads, 0 mismatches, the files untouched" sh -c \
	"python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); sys.exit(int(r[0][\"ops\"]) != 256)' '$T/local/curve.csv' &&
	 test $(mismatches "$T/local") -eq 0 && test \"\$(sha256sum '$F' | cut -d' ' -f1)\" = '$sha'"

dd if=/dev/urandom of="$F" bs=1 seek=$((OFF + 1000)) count=64 conv=notrunc,fsync 2> /dev/null
"$IOCURVE" run "$T/check.yaml" --out "$T/bad" > "$T/bad.out" 2>&1 &&
	{ cat "$T/bad.out"; fail "the verify read over NFS of a damaged file fails"; }
ok "the verify read over NFS of a damaged file fails"
n=$(mismatches "$T/bad")
check "exactly one mismatch (found $n)" test "$n" -eq 1
check "the words name the offset and the file's URL" grep -q \
	"data mismatch at offset $OFF of nfs://127.0.0.1$EXP/run/local-0-w1.dat (local-0, w1)" "$T/bad.out"

campaign root write ", uid: 0, gid: 0"
"$IOCURVE" run "$T/root.yaml" --out "$T/root" > "$T/root.out" 2>&1 &&
	{ cat "$T/root.out"; fail "a plan with root's credentials is refused"; }
check "a plan with root's credentials is refused, naming --allow-nfs-root" grep -q \
	"asks for uid 0 gid 0; root's credentials on an NFS server need the agent flag --allow-nfs-root" \
	"$T/root.out"
# an agent started by hand, allowed only nfs://127.0.0.1$EXP/team/a (missing on the server)
daemon_certs n1
daemon_serve "$T/serve.log" "$T/dres"
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name n1 \
	--allow "nfs://127.0.0.1$EXP/team/a" 2> "$T/n1.log" &
PIDS="$PIDS $!"
wait_for "$T/serve.log" "agent n1: clock offset" 15 || fail "agent n1 joins"
hand() { # hand NAME PATH: fixed work on nfs PATH of the export, by agent n1
	cat > "$T/$1.yaml" <<YAML
campaign: $1
agents: {select: {count: 1}, wait: 10s}
target: {nfs: {server: 127.0.0.1, export: $EXP, path: $2}, size: 1MiB}
workers: 1
interval: 200ms
warmup: 0s
workloads:
  - {name: w, rw: write, block_size: 64KiB, load: {work: {bytes: 1MiB}, rate: max}}
YAML
	"$IOCURVE" run "$T/$1.yaml" --coordinator "$SOCK" > "$T/$1.out" 2>&1
}
hand outside other/run && fail "a path outside the agent's --allow is refused"
check "a path outside the agent's --allow is refused, in words" grep -q \
	"target nfs://127.0.0.1$EXP/other/run is outside the allowed paths (nfs://127.0.0.1$EXP/team/a)" \
	"$T/outside.out"
hand missing team/a/run && fail "an allowed directory missing on the server is refused"
check "an allowed directory missing on the server is named, not made" sh -c \
	"grep -q 'nfs://127.0.0.1$EXP/team: missing on the server, and it is at or above the directory the agent allows (--allow): make it there' '$T/missing.out' &&
	 ! test -e '$EXP/team' && ! test -e '$EXP/other'"
mkdir -p "$EXP/team/a"
chown -R 65534:65534 "$EXP/team"
hand made team/a/run || { cat "$T/made.out"; fail "beneath an allowed directory that exists, the agent makes what it needs"; }
check "beneath an allowed directory that exists, the agent makes what it needs" \
	test "$(stat -c %s "$EXP/team/a/run/n1-w0.dat")" -eq 1048576
echo "all NFS checks passed"
