#!/bin/sh
# SPDX-License-Identifier: MIT
# The results directory is made by `run` itself: a directory or symlink already at --out
# (or at the default iocurve-results/<campaign>-<time>) is refused and left untouched;
# --resume takes only a directory of ours that is no symlink.
. "$(dirname "$0")/lib.sh"

sim_campaign planted queue_depth= slo= measure=400ms \
	workloads="[{name: a, rw: randread, load: {steps: [500, 1000]}}]" > "$T/c.yaml"

# refused NAME OUT: run --out OUT fails and says the directory exists.
refused() {
	if "$IOCURVE" run "$T/c.yaml" --out "$2" > "$T/$1.out" 2> "$T/$1.err"; then
		fail "$1: run --out $2 is refused"
	fi
	grep -q "results directory $2 already exists: refusing to write into a directory we did not create" "$T/$1.err" ||
		{ cat "$T/$1.err"; fail "$1: the error says the directory exists"; }
	ok "$1: refused: $(sed 's/^iocurve: //' "$T/$1.err" | head -1)"
}

mkdir "$T/planted"
refused "an existing directory" "$T/planted"
check "the planted directory is untouched" test -z "$(ls -A "$T/planted")"

mkdir "$T/victim"
ln -s "$T/victim" "$T/link"
refused "a symlink to a directory" "$T/link"
check "the symlink's target is untouched" test -z "$(ls -A "$T/victim")"

ln -s "$T/nowhere" "$T/dangling"
refused "a dangling symlink" "$T/dangling"
check "nothing is made where the dangling symlink points" test ! -e "$T/nowhere"

# The default name, planted for the next few seconds (UTC time to the second).
mkdir -p "$T/cwd/iocurve-results" "$T/victim2"
now=$(date +%s)
for i in 0 1 2 3 4 5; do
	ln -s "$T/victim2" "$T/cwd/iocurve-results/planted-$(date -u -d "@$((now + i))" +%Y%m%dT%H%M%SZ)"
done
if (cd "$T/cwd" && "$IOCURVE" run "$T/c.yaml" > "$T/default.out" 2> "$T/default.err"); then
	fail "a planted default results directory is refused"
fi
check "the default name planted as a symlink is refused" \
	grep -q "results directory iocurve-results/planted-.* already exists" "$T/default.err"
check "the planted default's target is untouched" test -z "$(ls -A "$T/victim2")"

# A fresh --out works, and its directory is made with our owner and mode.
"$IOCURVE" run "$T/c.yaml" --out "$T/new/r" > "$T/new.out" 2> "$T/new.err" ||
	{ cat "$T/new.err"; fail "a fresh --out runs"; }
check "a fresh --out (parents made too) holds the results" test -s "$T/new/r/curve.csv"
check "the results directory is 0755" test "$(stat -c %a "$T/new/r")" = 755

# --resume: never through a symlink, never another user's directory.
ln -s "$T/new/r" "$T/rlink"
cp "$T/new/r/intervals.jsonl" "$T/intervals.before"
if "$IOCURVE" run --resume "$T/rlink" > "$T/rl.out" 2> "$T/rl.err"; then
	fail "--resume through a symlink is refused"
fi
check "--resume through a symlink is refused" \
	grep -q "cannot resume: $T/rlink: is a symbolic link: refusing to write through it" "$T/rl.err"
check "the results behind the symlink are untouched" cmp -s "$T/intervals.before" "$T/new/r/intervals.jsonl"
if [ "$(id -u)" -eq 0 ]; then
	cp -a "$T/new/r" "$T/theirs"
	chown -R 65534:65534 "$T/theirs"
	if "$IOCURVE" run --resume "$T/theirs" > "$T/th.out" 2> "$T/th.err"; then
		fail "--resume of another user's directory is refused"
	fi
	check "--resume of another user's directory is refused" \
		grep -q "cannot resume: $T/theirs belongs to uid 65534, not to us (uid 0)" "$T/th.err"
else
	echo "ok - # SKIP another user's directory (needs root)"
fi
echo "# results-dir: all passed"
