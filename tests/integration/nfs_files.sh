#!/bin/sh
# SPDX-License-Identifier: MIT
# File workloads over NFS: files.sh's campaign (a file set per worker, a directory mix and
# a build-like mix of eight kinds at fixed rates) on an export of nfs-ganesha (VFS FSAL) and
# rpcbind on 127.0.0.1 (tests/integration/nfslib.sh), the sets laid out and put back by the
# agent's own client. Known answers (tests/integration/filesjudge.py), read on the export's
# own directory: every operation succeeds, each part within 2% of its share and each step
# within 2% of its offered rate; what the put-back took away and made again is the creates
# less the unlinks and the mkdirs less the rmdirs; the sets end as laid out (800 files at
# their sizes, 32 empty directories); a second run on the same sets gives the same.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nfslib.sh"

EXP=$T/export
nfs_server_start "$EXP"
trap 'nfs_server_stop; cleanup' EXIT
sed -e "s|@NAME@|nfs|" \
	-e "s|@TARGET@|{nfs: {server: 127.0.0.1, export: $EXP, path: sets, connections: 2}, size: 1MiB}|" \
	"$(dirname "$0")/files-campaign.yaml" > "$T/nfs.yaml"
for run in 1 2; do
	"$IOCURVE" run "$T/nfs.yaml" --out "$T/nfs-$run" > "$T/nfs-$run.out" 2> "$T/nfs-$run.err" ||
		{ cat "$T/nfs-$run.out" "$T/nfs-$run.err"; fail "the file campaign runs over NFS ($run)"; }
	python3 "$(dirname "$0")/filesjudge.py" "$EXP/sets" "$T/nfs-$run" ||
		fail "each kind's share, no errors and the files counted on the export ($run)"
	ok "over NFS, run $run: each kind its share, no errors, each step's balance put back, the sets as laid out"
done
check "the sets belong to the campaign's uid (65534)" sh -c \
	"test -z \"\$(find '$EXP/sets' ! -uid 65534 | head -1)\""
# unlinks only, on sets of 10 files: they run out, and the words say so as on a local set
cat > "$T/out.yaml" <<YAML
campaign: out
agents: {local: 1}
target: {nfs: {server: 127.0.0.1, export: $EXP, path: out}, size: 1MiB}
workers: 1
interval: 500ms
warmup: 0s
measure: 2s
stop: {errors: allow}
fileset: {dirs: 2, depth: 1, files: 5, size: 4KiB}
workloads:
  - {name: unlinks, op: unlink, load: {steps: [50]}}
YAML
"$IOCURVE" run "$T/out.yaml" --out "$T/out" > "$T/out.out" 2>&1 || true
check "unlinks past the set's files fail with words naming it (not an I/O error)" grep -q \
	"unlink: no file left in the file set to work on" "$T/out/intervals.jsonl"
check "exactly the set's 10 files were unlinked, the rest failed" python3 - "$T/out/intervals.jsonl" <<'PY'
import json, sys
ok = err = 0
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("agent") == "*" and "ops" in o:
        ok += o["ops"]
        err += o.get("errors", 0)
print(f"# {ok} unlinks done, {err} failed")
sys.exit(not (ok == 10 and err > 0))
PY
echo "all NFS file set checks passed"
