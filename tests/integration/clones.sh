#!/bin/sh
# SPDX-License-Identifier: MIT
# data: {clone: NAME}: `iocurve run` with 2 local agents x 2 workers lays every worker
# file out as one golden image (same sha256 on every agent and worker), stamps the
# clone's name in the layout's xattr, and a second run reuses the files; another
# name, or no clone, gives other data. Refusals: a bad name, a clone that is written.
. "$(dirname "$0")/lib.sh"

# campaign NAME DATA: a sequential read of 8MiB files by 2 agents x 2 workers.
campaign() {
	cat > "$T/$1.yaml" <<YAML
campaign: $1
agents: {local: 2}
target: {path: $T/target, size: 8MiB, direct: true}
workers: 2
queue_depth: 4
interval: 200ms
warmup: 200ms
measure: 400ms
workloads:
  - {name: boot, rw: read, block_size: 64KiB, $2, load: {steps: [200]}}
YAML
}

# run NAME: iocurve run, results in $T/NAME-N (N counting the runs of NAME).
run() {
	n=1
	while [ -e "$T/$1-$n" ]; do n=$((n + 1)); done
	R=$T/$1-$n
	"$IOCURVE" run "$T/$1.yaml" --out "$R" > "$R.out" 2> "$R.err" ||
		{ cat "$R.out" "$R.err" "$R"/agent-*.log; fail "$1: iocurve run exits 0"; }
	ok "$1 (run $n): iocurve run exits 0"
}

# sums: the sha256 of every worker file of every agent, one a line, sorted by file.
sums() {
	for a in 0 1; do
		for w in 0 1; do
			sha256sum "$T/target/local-$a-w$w.dat" | cut -d' ' -f1
		done
	done
}

xattr() { getfattr --only-values -n user.iocurve.layout "$1" 2> /dev/null ||
	python3 -c 'import os, sys; print(os.getxattr(sys.argv[1], "user.iocurve.layout").decode(), end="")' "$1"; }

campaign golden "data: {clone: golden}"
check "iocurve check names the clone" sh -c \
	"'$IOCURVE' check '$T/golden.yaml' | grep -q \"every file the clone 'golden' (0% compressible, 0% dedupable)\""
run golden
sums > "$T/golden.sums"
check "4 worker files, 2 agents x 2 workers" test "$(wc -l < "$T/golden.sums")" -eq 4
check "every worker file of every agent is byte-identical" test "$(sort -u "$T/golden.sums" | wc -l)" -eq 1
check "the layout's xattr names the clone" test \
	"$(xattr "$T/target/local-1-w1.dat")" = "size=8388608 compress=0 dedupe=0 clone=golden"
check "each agent says it laid its files out as the clone" sh -c \
	"grep -q 'local-0-w0.dat: laid out as the clone .golden.' '$R/agent-local-0.log' &&
	 grep -q 'local-1-w1.dat: laid out as the clone .golden.' '$R/agent-local-1.log'"
check "the layout wrote the files (4 x 8MiB)" sh -c \
	"grep -q 'workers ready (16777216 bytes laid out' '$R/agent-local-0.log'"
python3 - "$T/target/local-0-w0.dat" <<'PY' || fail "the image is real data, not zeros or a repeated block"
import hashlib, sys
d = open(sys.argv[1], "rb").read()
blocks = {hashlib.sha256(d[i:i + 4096]).digest() for i in range(0, len(d), 4096)}
assert len(blocks) == len(d) // 4096, f"{len(blocks)} distinct 4KiB blocks of {len(d) // 4096}"
assert d.count(0) < len(d) // 64, "mostly zeros"
PY
ok "the image is real data: every 4KiB block of it distinct, not zeros"
check "the sequential reads ran without errors" python3 -c "
import json, sys
s = json.load(open(sys.argv[1] + '/summary.json'))
assert s['status'] == 'complete', s['status']
" "$R"
check "the results say the reads were of one clone" sh -c \
	"grep -q \"^## boot (read, 64KiB blocks, 2 workers x qd 4 per agent, sequential, O_DIRECT, every file the clone 'golden')\" '$R/summary.md' &&
	 grep -q 'every file the clone &lsquo;golden&rsquo;' '$R/report.html' &&
	 grep -q \"^boot (read, 64KiB, clone 'golden'):\" '$R.out'"

# A second run finds the image in place: reused, nothing laid out, the same bytes.
run golden
check "the second run reuses every file (nothing laid out)" sh -c \
	"grep -q 'workers ready (0 bytes laid out' '$R/agent-local-0.log' &&
	 grep -q 'workers ready (0 bytes laid out' '$R/agent-local-1.log' &&
	 grep -q 'local-1-w0.dat: already the clone .golden.: reused' '$R/agent-local-1.log'"
sums > "$T/golden2.sums"
check "and the files are the same image as before" cmp -s "$T/golden2.sums" "$T/golden.sums"

# Another clone is another image, the same in every file again.
campaign other "data: {clone: other}"
run other
sums > "$T/other.sums"
check "clone 'other': every file identical" test "$(sort -u "$T/other.sums" | wc -l)" -eq 1
check "and not the image of 'golden'" test "$(head -1 "$T/other.sums")" != "$(head -1 "$T/golden.sums")"
check "its xattr names it" test \
	"$(xattr "$T/target/local-0-w0.dat")" = "size=8388608 compress=0 dedupe=0 clone=other"

# Without a clone each file gets data of its own again (re-laid: another identity).
campaign plain "data: {compress: 0}"
run plain
sums > "$T/plain.sums"
check "without clone: 4 different files" test "$(sort -u "$T/plain.sums" | wc -l)" -eq 4
check "the plain layout's xattr names no clone" test \
	"$(xattr "$T/target/local-0-w0.dat")" = "size=8388608 compress=0 dedupe=0"

# A clone whose blocks were overwritten (by hand) is not trusted on its xattr.
campaign golden "data: {clone: golden}"
run golden
dd if=/dev/urandom of="$T/target/local-0-w1.dat" bs=4096 count=2048 conv=notrunc status=none
run golden
check "an overwritten clone is laid out again, saying why" grep -q \
	"re-laying $T/target/local-0-w1.dat: 16 of 16 blocks read back are not the data its layout wrote" \
	"$R/agent-local-0.log"
sums > "$T/golden3.sums"
check "and is the image again" cmp -s "$T/golden3.sums" "$T/golden.sums"

# Refusals, with the place in the file.
cat > "$T/bad-name.yaml" <<YAML
campaign: bad
agents: {local: 1}
target: {path: $T/target, size: 8MiB}
workloads:
  - {name: boot, rw: read, data: {clone: "gold image"}, load: {steps: [100]}}
YAML
check "a clone name with a space is refused at its place" sh -c \
	"! '$IOCURVE' run '$T/bad-name.yaml' --out '$T/bad' > '$T/bad.out' 2>&1 &&
	 grep -q \"bad-name.yaml:5:42: data.clone: expected a name of letters, digits, '.', '_' and '-', 1 to 63 characters (e.g. clone: golden), got 'gold image'\" '$T/bad.out'"
cat > "$T/bad-write.yaml" <<YAML
campaign: bad
agents: {local: 1}
target: {path: $T/target, size: 8MiB}
data: {clone: golden}
workloads:
  - {name: boot, rw: read, load: {steps: [100]}}
  - {name: logs, rw: randwrite, load: {steps: [100]}}
YAML
check "a clone written to is refused, before any agent starts" sh -c \
	"! '$IOCURVE' run '$T/bad-write.yaml' --out '$T/bad2' > '$T/bad2.out' 2>&1 &&
	 grep -q \"bad-write.yaml:4:15: data.clone: workload 'logs' writes (rw: randwrite), and clone 'golden' is read-only\" '$T/bad2.out' &&
	 grep -q 'give data.clone to the workloads that read, not the top level' '$T/bad2.out' &&
	 test ! -e '$T/bad2'"
echo "# clones: all passed"
