#!/bin/sh
# SPDX-License-Identifier: MIT
# configs/bootstorm.yaml as a user runs it (images and spread shortened with --set): 4 local
# agents x 2 workers each read a clone of one golden image once, started in a wave; the run
# ends with the storm's completion times and names the time plot, which marks every finish.
. "$(dirname "$0")/lib.sh"

CFG=$IOCURVE_SOURCE/configs/bootstorm.yaml
"$IOCURVE" run "$CFG" --out "$T/res" --set target.path="$T/images" --set target.size=4MiB \
	--set workloads.boot.load.work.bytes=4MiB --set workloads.boot.load.start.spread=2s \
	--set workloads.boot.load.think=1ms > "$T/run.out" 2>&1 ||
	{ tail -40 "$T/run.out"; fail "configs/bootstorm.yaml runs"; }
ok "configs/bootstorm.yaml runs"
check "the run prints the storm's completion time over 8 workers on 4 agents" grep -q \
	"^Storm: [0-9.]* s from the first start to the last finish (8 workers on 4 agents); per worker min" \
	"$T/run.out"
check "and names the time plot with the finishes marked" grep -q \
	"each finish marked: $T/res/time-boot.svg" "$T/run.out"
python3 - "$T/res" "$T/images" <<'PY' || fail "8 identical images each read once; the storm adds up; 8 finish marks"
import glob, hashlib, json, sys
d, images = sys.argv[1:3]
files = sorted(glob.glob(images + "/**/*", recursive=True))
files = [f for f in files if not __import__("os").path.isdir(f)]
assert len(files) == 8, files
sums = {hashlib.sha256(open(f, "rb").read()).hexdigest() for f in files}
assert len(sums) == 1, "the images are not one clone: %d contents" % len(sums)
w = json.load(open(d + "/summary.json"))["workloads"][0]
fw = w["fixed_work"]
assert fw["complete"] and fw["workers"] == 8 and fw["agents"] == 4, fw
assert fw["work_bytes"] == 4 << 20 and fw["ops"] == 8 * (4 << 20) // (64 << 10), fw
st = fw["worker"]
assert st["n"] == 8 and st["min_s"] <= st["median_s"] <= st["p90_s"] <= st["max_s"], st
# the fleet's storm runs from the first start to the last finish: at least the spread's
# last start (2 s x 7/8 after the first) plus the quickest worker's time
assert fw["storm_s"] >= 2 * 7 / 8 + st["min_s"] - 0.01, fw
assert fw["storm_s"] >= st["max_s"] and fw["storm_s"] >= fw["agent"]["max_s"], fw
svg = open(d + "/time-boot.svg").read()
assert svg.count('class="mark" data-source="finish"') == 8, svg.count('data-source="finish"')
PY
ok "8 identical images each read once; the storm adds up; 8 finish marks"
echo "# bootstorm: all passed"
