#!/bin/sh
# SPDX-License-Identifier: MIT
# An embedded run whose --out fills up mid-campaign (another file takes the rest of a
# small tmpfs): the campaign fails naming the file and errno, and every status file
# says so: summary.json "failed" with the reason, summary.txt, summary.md and
# report.html the FAILED note, intervals.jsonl its end line; none says complete.
# Root only (mounts a tmpfs).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "# needs root (mounts a tmpfs)"; exit 77; }
M=$T/full
mkdir "$M"
mount -t tmpfs -o size=2m tmpfs "$M" || { echo "# cannot mount a tmpfs"; exit 77; }
trap 'umount "$M" 2>/dev/null || true; cleanup' EXIT

cat > "$T/f.yaml" <<YAML
campaign: fills
agents: {local: 1}
target: {sim: {servers: 4, service_time: 1ms, jitter: 50%}}
workers: 1
queue_depth: 16
interval: 100ms
warmup: 100ms
measure: 400ms
slo: {latency: 5ms}
workloads:
  - {name: w, rw: randread, load: {steps: [200, 400, 600, 800, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2400]}}
YAML
R=$M/r
"$IOCURVE" run "$T/f.yaml" --out "$R" > "$T/run.out" 2> "$T/run.err" &
RUN=$!
PIDS="$RUN"
# Two steps on disk (their summaries say so), then the disk fills.
wait_for "$R/curve.csv" "^w,randread,4096,true,2," 30 || { cat "$T/run.err"; fail "two steps run"; }
dd if=/dev/zero of="$M/filler" bs=4k 2> /dev/null || true
set +e
wait_exit "$RUN" 60
rc=$?
set -e
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || { cat "$T/run.out" "$T/run.err"; fail "a full disk fails the campaign (rc $rc)"; }
ok "a full disk fails the campaign (exit $rc)"
check "the error names the file and errno" \
	grep -Eq "campaign fills failed: $R/[^ ]+: cannot (write|create): No space left on device" "$T/run.err"
python3 - "$R" <<'PY' || { cat "$T/run.err"; ls -la "$R"; fail "summary.json says failed, with the reason"; }
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
assert s["status"] == "failed", s["status"]
assert "No space left on device" in s["status_reason"], s["status_reason"]
print("# status_reason:", s["status_reason"])
PY
ok "summary.json says failed, with the reason"
for f in summary.txt summary.md; do
	check "$f says FAILED with the reason" grep -q "FAILED: .*No space left on device" "$R/$f"
done
if [ -e "$R/report.html" ]; then
	check "report.html says FAILED" grep -q "FAILED: .*No space left on device" "$R/report.html"
fi
check "intervals.jsonl ends with the failure" \
	sh -c "tail -1 '$R/intervals.jsonl' | grep -q '\"end\":\"failed\"'"
check "no file says complete" sh -c "! grep -rlq '\"status\": \"complete\"' '$R'"
check "nor do the summaries in words" sh -c "! grep -qi complete '$R/summary.txt' '$R/summary.md'"
check "no temp file is left" sh -c "! ls -a '$R' | grep -q tmp"
