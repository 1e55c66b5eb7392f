#!/bin/sh
# SPDX-License-Identifier: MIT
# Results disk full (a 256 KiB tmpfs): the campaign stops naming the file and errno,
# no point is reported whose data is not on disk, no temp file is left, and the
# directory reads as the steps completed before the disk filled. Root only.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "# needs root (mounts a tmpfs)"; exit 77; }
M=$T/full
mkdir "$M"
mount -t tmpfs -o size=256k tmpfs "$M" || { echo "# cannot mount a tmpfs"; exit 77; }
trap 'umount "$M" 2>/dev/null || true; cleanup' EXIT

cat > "$T/f.yaml" <<YAML
campaign: full
agents: {local: 1}
target: {sim: {servers: 4, service_time: 1ms, jitter: 50%}}
workers: 1
queue_depth: 16
interval: 100ms
warmup: 100ms
measure: 400ms
slo: {latency: 5ms}
workloads:
  - {name: w, rw: randread, load: {steps: [200, 400, 600, 800, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2400, 2600, 2800, 3000, 3200, 3400, 3600, 3800, 4000]}}
YAML
R=$M/r
T0=$(date +%s.%N)
set +e
"$IOCURVE" run "$T/f.yaml" --out "$R" > "$T/run.out" 2> "$T/run.err"
rc=$?
set -e
T1=$(date +%s.%N)
[ "$rc" -ne 0 ] || { cat "$T/run.out" "$T/run.err"; fail "a full disk fails the campaign"; }
ok "a full disk fails the campaign (exit $rc)"
check "the error names the file and errno" \
	grep -Eq "campaign full failed: $R/[a-z.-]+(jsonl|csv|json|txt|md|svg|html): cannot write: No space left on device" "$T/run.err"
check "no temp file is left" sh -c "! ls -a '$R' | grep -q tmp"
check "no zero-byte file is left" sh -c "[ -z \"\$(find '$R' -type f -size 0)\" ]"
# Every step curve.csv reports has all its intervals on disk (4 + 1 warm-up per agent).
python3 - "$R" <<'PY' || { cat "$T/run.err"; fail "curve.csv lists only steps whose intervals are on disk"; }
import csv, json, sys, collections
import ivlines
r = sys.argv[1]
raw = open(r + "/intervals.jsonl", "rb").read()
assert raw.endswith(b"\n"), "intervals.jsonl ends in a whole line"
# A step the busy machine disturbed ran again: its void attempt's lines do not count.
lines = ivlines.lines(r + "/intervals.jsonl")
per = collections.Counter(l["step"] for l in lines if l.get("agent") == "local-0" and "interval" in l)
rows = list(csv.DictReader(open(r + "/curve.csv")))
assert rows, "some steps completed before the disk filled"
for x in rows:
    assert per[int(x["step"]) - 1] == 5, f"step {x['step']}: {per[int(x['step']) - 1]} intervals on disk"
assert len(rows) < 20, "the disk filled before the end"
print(f"# {len(rows)} steps on disk, {len(lines)} lines")
PY
ok "curve.csv lists only steps whose intervals are on disk"
STEPS=$(($(wc -l < "$R/curve.csv") - 1))
check "summary.json says failed, not complete" grep -q '"status": "failed"' "$R/summary.json"
check "no room kept for the end is left" test ! -e "$R/.end-reserve"
# Space freed (the operator grows the file system): report rebuilds in place.
mount -o remount,size=8m "$M"
"$IOCURVE" report "$R" > "$T/rep.out" 2>&1 || { cat "$T/rep.out"; fail "report reads the directory"; }
check "report finds the $STEPS steps curve.csv lists" grep -q "from $STEPS steps of intervals.jsonl" "$T/rep.out"
echo "# measured: campaign ran $(echo "$T1 - $T0" | bc) s until stopped; $(cat "$T/run.err" | head -1)"
