#!/bin/sh
# SPDX-License-Identifier: MIT
# configs/classes.yaml, the storage-class study, as a user runs it here: the dbench-style
# suite over three directories in one campaign (shortened with --set: lengths and sizes,
# each curve test's curve a max step and one point at 50%, and no step run again or
# waited for: retry 0, cooldown off), a curve per (test, class) and the side-by-side
# table of the nine tests by three classes in summary.md and in summary.json's by_target,
# and a headline per pair at the end of the run.
. "$(dirname "$0")/lib.sh"

CFG=$IOCURVE_SOURCE/configs/classes.yaml
set --
for w in read-iops write-iops read-latency write-latency mix-75-25; do
	set -- "$@" --set "workloads.$w.load.curve=[50%]"
done
CLASSES_DIR=$T/classes "$IOCURVE" run "$CFG" --out "$T/res" \
	--set interval=100ms --set warmup=100ms --set measure=100ms \
	--set retry=0 --set cooldown.max=0s "$@" \
	--set targets.standard.size=16MiB --set targets.premium.size=16MiB \
	--set targets.ultra.size=16MiB > "$T/run.out" 2>&1 ||
	{ tail -50 "$T/run.out"; fail "configs/classes.yaml runs over three directories"; }
ok "configs/classes.yaml runs over three directories"
check "each class's files are in its own directory" \
	sh -c "ls '$T/classes/standard' '$T/classes/premium' '$T/classes/ultra' | grep -q ."
check "summary.md has the side-by-side table" \
	grep -q '^| Test | Figure | standard | premium | ultra |$' "$T/res/summary.md"
python3 - "$T/res" "$T/run.out" <<'PY' || fail "nine tests by three classes, a curve and a cell each"
import json, os, sys
d, out = sys.argv[1], open(sys.argv[2]).read()
s = json.load(open(d + "/summary.json"))
tests = ["read-iops", "write-iops", "read-bw", "write-bw", "read-latency", "write-latency",
         "seq-read", "seq-write", "mix-75-25"]
classes = ["standard", "premium", "ultra"]
by = s["by_target"]
assert by["targets"] == classes and [r["test"] for r in by["rows"]] == tests, by
ws = {w["name"]: w for w in s["workloads"]}
for r in by["rows"]:
    for t in classes:
        name = "%s@%s" % (r["test"], t)
        assert os.path.getsize("%s/curve-%s.csv" % (d, name)) > 0, name
        assert r["cells"][t]["peak_ops"] == ws[name]["peak_ops"] > 0, name
        assert r["cells"][t]["knee_kind"] == ws[name]["knee_kind"], name
md = open(d + "/summary.md").read()
rows = [l for l in md.splitlines() if l.split(" |")[0][2:] in tests and "| peak |" in l
        and l.count("|") == 6]
assert len(rows) == 9, rows
# the run's end: a headline of at most 100 characters for each of the 27 pairs
heads = [l for l in out.splitlines() if l.split("  ")[0] in ws and " peak " in l]
assert len(heads) == 27 and max(map(len, heads)) <= 100, heads
PY
ok "nine tests by three classes, a curve and a cell each"
