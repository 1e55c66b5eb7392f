#!/bin/sh
# SPDX-License-Identifier: MIT
# Every file a verb writes goes through one safe writer (common/safefile.c): a symbolic
# link, a hard link or a FIFO planted at its name is refused by name and what it points
# at is untouched. compare writes into a directory that may already exist (shared);
# `run --resume` appends to the local agents' logs and to intervals.jsonl of a directory
# that may come from elsewhere; `certs` makes keys.
. "$(dirname "$0")/lib.sh"

sim_campaign planted queue_depth= slo= measure=400ms \
	workloads="[{name: a, rw: randread, load: {steps: [500, 1000]}}]" > "$T/c.yaml"
"$IOCURVE" run "$T/c.yaml" --out "$T/r" > "$T/run.out" 2>&1 ||
	{ cat "$T/run.out"; fail "a first run completes"; }

mkdir -p "$T/victim"
echo "my notes" > "$T/victim/notes.txt"
cp "$T/victim/notes.txt" "$T/notes.before"

# untouched WHAT: the victim file still holds what it held.
untouched() {
	check "$1" cmp -s "$T/notes.before" "$T/victim/notes.txt"
}

# compare into a shared directory holding a planted link at each name it writes.
for name in compare.html compare-a.svg; do
	rm -rf "$T/shared"
	mkdir "$T/shared"
	ln -s "$T/victim/notes.txt" "$T/shared/$name"
	if "$IOCURVE" compare "$T/r" "$T/r" --out "$T/shared" > "$T/cmp.out" 2> "$T/cmp.err"; then
		fail "compare refuses $name planted as a symlink"
	fi
	grep -q "$T/shared/$name: refusing to replace a symbolic link" "$T/cmp.err" ||
		{ cat "$T/cmp.err"; fail "the error names $name and the symlink"; }
	ok "compare: $(sed 's/^iocurve compare: //' "$T/cmp.err")"
	untouched "compare leaves the target of $name untouched"
	check "compare leaves the planted $name a symlink" test -L "$T/shared/$name"
done
rm -rf "$T/shared"
mkdir "$T/shared"
"$IOCURVE" compare "$T/r" "$T/r" --out "$T/shared" > "$T/cmp.out" 2> "$T/cmp.err" ||
	{ cat "$T/cmp.err"; fail "compare into an existing clean directory works"; }
check "compare writes compare.html and compare-a.svg" \
	test -s "$T/shared/compare.html" -a -s "$T/shared/compare-a.svg"
check "no temp file is left" test -z "$(ls -A "$T/shared" | grep tmp || true)"

# resumed FILE HOW: run --resume fails with FILE named, the victim is untouched, and
# nothing was started (no agent ran).
resumed() {
	if "$IOCURVE" run --resume "$T/r2" > "$T/res.out" 2> "$T/res.err"; then
		fail "--resume refuses $1 planted as $2"
	fi
	grep -q "$T/r2/$1: $3" "$T/res.err" ||
		{ cat "$T/res.out" "$T/res.err"; fail "the error names $1 and says $3"; }
	ok "--resume, $1 as $2: $(sed 's/^iocurve: //' "$T/res.err" | head -1)"
	untouched "--resume leaves the target of $1 ($2) untouched"
}

# A local agent's log planted as a symlink, then as a hard link, to a file of ours.
cp -a "$T/r" "$T/r2"
ln -sf "$T/victim/notes.txt" "$T/r2/agent-local-0.log"
resumed agent-local-0.log "a symlink" "is a symbolic link"
rm -f "$T/r2/agent-local-0.log"
ln "$T/victim/notes.txt" "$T/r2/agent-local-0.log"
resumed agent-local-0.log "a hard link" "has another hard link"
rm -f "$T/r2/agent-local-0.log"
mkfifo "$T/r2/agent-local-0.log"
timeout 10 "$IOCURVE" run --resume "$T/r2" > "$T/res.out" 2> "$T/res.err" && fail "--resume refuses a FIFO log"
grep -q "$T/r2/agent-local-0.log: not a regular file" "$T/res.err" ||
	{ cat "$T/res.err"; fail "the error names the FIFO log (not a hang)"; }
ok "--resume, agent-local-0.log as a FIFO: $(sed 's/^iocurve: //' "$T/res.err" | head -1)"
rm -f "$T/r2/agent-local-0.log"

# intervals.jsonl, which resume truncates and appends to, as a hard link to a file of ours.
cp "$T/r2/intervals.jsonl" "$T/victim/notes.txt"
cp "$T/victim/notes.txt" "$T/notes.before"
rm "$T/r2/intervals.jsonl"
ln "$T/victim/notes.txt" "$T/r2/intervals.jsonl"
resumed intervals.jsonl "a hard link" "has another hard link"

# The clean copy resumes, and its log is appended to.
rm "$T/r2/intervals.jsonl"
cp "$T/r/intervals.jsonl" "$T/r2/intervals.jsonl"
"$IOCURVE" run --resume "$T/r2" > "$T/res.out" 2> "$T/res.err" ||
	{ cat "$T/res.out" "$T/res.err"; fail "a clean copy resumes"; }
check "the resumed run's agent logs to its own file" test -f "$T/r2/agent-local-0.log" -a ! -L "$T/r2/agent-local-0.log"

# certs: a key planted as a dangling symlink is refused, nothing made where it points.
"$IOCURVE" certs init "$T/ca" > /dev/null
ln -s "$T/victim/stolen.key" "$T/ca/node.key"
if "$IOCURVE" certs agent "$T/ca" node > "$T/certs.out" 2> "$T/certs.err"; then
	fail "certs agent refuses a planted key symlink"
fi
check "the error names the key" grep -q "$T/ca/node.key: already exists" "$T/certs.err"
check "no key is written where the symlink points" test ! -e "$T/victim/stolen.key"
echo "# planted-files: all passed"
