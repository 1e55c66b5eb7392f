#!/bin/sh
# SPDX-License-Identifier: MIT
# Readers of a results directory that may come from elsewhere (`report`, `compare`,
# `run --resume`, the "Between runs" scan of its siblings) read only regular files,
# open nothing that waits (a FIFO), follow no link, and bound every line: what is
# planted is refused at once by name. `run --resume` takes only a directory of ours
# whose every file is ours and whose plan names plain absolute paths.
. "$(dirname "$0")/lib.sh"

sim_campaign hostile queue_depth= slo= measure=400ms \
	workloads="[{name: a, rw: randread, load: {steps: [500, 1000]}}]" > "$T/c.yaml"
"$IOCURVE" run "$T/c.yaml" --out "$T/root/r" > "$T/run.out" 2>&1 ||
	{ cat "$T/run.out"; fail "a first run completes"; }

# copy NAME: a fresh copy of the results as $T/NAME.
copy() {
	rm -rf "$T/$1"
	cp -a "$T/root/r" "$T/$1"
}

# refused VERB DIR WHAT MESSAGE: `iocurve VERB DIR` fails within 10 s (memory capped at
# 1 GiB: an unbounded read fails there instead of taking the machine), saying MESSAGE.
refused() {
	rc=0
	(ulimit -v 1048576 && timeout -k 5 10 "$IOCURVE" $1 "$2" > "$T/out" 2> "$T/err") || rc=$?
	[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "$1 with $3: still running after 10 s (it waits on the file)"
	[ "$rc" -ne 0 ] || fail "$1 with $3 is refused"
	grep -qF -- "$4" "$T/err" || { head -c 2000 "$T/err"; fail "$1 with $3: the error says: $4"; }
	ok "$1 with $3: $(head -1 "$T/err" | cut -c1-200)"
}

# intervals.jsonl as a link to /dev/zero: refused at the open, not read into memory.
copy z
ln -sf /dev/zero "$T/z/intervals.jsonl"
refused report "$T/z" "intervals.jsonl -> /dev/zero" \
	"$T/z/intervals.jsonl: is a symbolic link; refusing to read it"

# A line longer than the bound (4 MiB) in a regular file: refused naming file:line.
copy long
head -2 "$T/root/r/intervals.jsonl" > "$T/long/intervals.jsonl"
head -c 5000000 /dev/zero | tr '\0' x >> "$T/long/intervals.jsonl"
echo >> "$T/long/intervals.jsonl"
refused report "$T/long" "a 5 MB line" \
	"$T/long/intervals.jsonl:3: line longer than 4194304 bytes; refusing it"

# A FIFO at meta.json, then at plan.yaml: refused at once, not waited on.
for name in meta.json plan.yaml intervals.jsonl; do
	copy fifo
	rm "$T/fifo/$name"
	mkfifo "$T/fifo/$name"
	refused report "$T/fifo" "a FIFO at $name" \
		"$T/fifo/$name: not a regular file (a FIFO); refusing to read it"
done
copy fifo
rm "$T/fifo/plan.yaml"
mkfifo "$T/fifo/plan.yaml"
rc=0
timeout -k 5 10 "$IOCURVE" compare "$T/root/r" "$T/fifo" --out "$T/cmp" > "$T/out" 2> "$T/err" || rc=$?
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "compare with a FIFO at plan.yaml: still running after 10 s"
check "compare with a FIFO at plan.yaml is refused by name" \
	grep -qF "$T/fifo/plan.yaml: not a regular file (a FIFO)" "$T/err"

# meta.json as a link to a file of ours: not read as the run's description.
copy ml
echo '{"secret": 1}' > "$T/secret.json"
ln -sf "$T/secret.json" "$T/ml/meta.json"
refused report "$T/ml" "meta.json -> a file of ours" \
	"$T/ml/meta.json: is a symbolic link; refusing to read it"

# "Between runs": a sibling of the same campaign whose summary.json, meta.json and
# plan.yaml are FIFOs is passed over; the new run neither waits nor fails.
copy root/sib
for name in summary.json meta.json plan.yaml; do
	rm "$T/root/sib/$name"
	mkfifo "$T/root/sib/$name"
done
rc=0
timeout -k 5 30 "$IOCURVE" run "$T/c.yaml" --out "$T/root/new" > "$T/new.out" 2>&1 || rc=$?
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "a run beside a sibling of FIFOs: still running after 30 s"
[ "$rc" -eq 0 ] || { cat "$T/new.out"; fail "a run beside a sibling of FIFOs completes"; }
ok "a run beside a sibling whose summary.json, meta.json and plan.yaml are FIFOs completes"
rm -rf "$T/root/sib" "$T/root/new"

# resumed DIR WHAT MESSAGE: run --resume DIR is refused saying MESSAGE, no agent started.
resumed() {
	rc=0
	timeout -k 5 20 "$IOCURVE" run --resume "$1" > "$T/res.out" 2> "$T/res.err" || rc=$?
	[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "--resume with $2: still running after 20 s"
	[ "$rc" -ne 0 ] || fail "--resume with $2 is refused"
	grep -qF -- "$3" "$T/res.err" || { cat "$T/res.out" "$T/res.err"; fail "--resume with $2: the error says: $3"; }
	ok "--resume with $2: $(head -1 "$T/res.err" | cut -c1-200)"
}

# A planted plan: its target path (what the local agents may create and write, as root
# here) has a newline, then a '..' part. Refused naming plan.yaml:line:column.
for bad in 'owned\\nx' 'a/../owned'; do
	copy plan
	sed -i "s#^target: .*#target: {path: \"$T/$bad\", size: 4MiB}#" "$T/plan/plan.yaml"
	resumed "$T/plan" "a plan.yaml whose path is $T/$bad" "$T/plan/plan.yaml:3:"
	grep -qF "target.path: the path has" "$T/res.err" || { cat "$T/res.err"; fail "the error says what the path has"; }
	check "nothing was made at the planted path" test ! -e "$T/owned" -a ! -e "$T/a"
done

# DIR and everything in it must be ours, and DIR writable by no one else.
if [ "$(id -u)" -eq 0 ]; then
	copy theirs
	chown 65534:65534 "$T/theirs/summary.json"
	resumed "$T/theirs" "a file of another user in it" \
		"cannot resume: $T/theirs/summary.json: belongs to uid 65534, not to us (uid 0)"
else
	echo "ok - # SKIP a file of another user (needs root)"
fi
copy open
chmod 0777 "$T/open"
resumed "$T/open" "a directory anyone may write in" \
	"cannot resume: $T/open: writable by others (mode 777); refusing to resume in it"

# A FIFO at intervals.jsonl of a directory to resume: refused, not waited on.
copy rf
rm "$T/rf/intervals.jsonl"
mkfifo "$T/rf/intervals.jsonl"
resumed "$T/rf" "a FIFO at intervals.jsonl" "$T/rf/intervals.jsonl: not a regular file (a FIFO)"

# The clean copy still reports and resumes.
copy clean
"$IOCURVE" report "$T/clean" > "$T/rep.out" 2>&1 || { cat "$T/rep.out"; fail "report of a clean copy"; }
"$IOCURVE" run --resume "$T/clean" > "$T/res.out" 2>&1 || { cat "$T/res.out"; fail "--resume of a clean copy"; }
ok "a clean copy reports and resumes"
echo "# hostile-dirs: all passed"
