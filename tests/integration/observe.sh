#!/bin/sh
# SPDX-License-Identifier: MIT
# observe: against real components: prometheus-node-exporter and a prometheus server
# scraping it every second, both on 127.0.0.1, while a campaign reads a real file of
# this VM's disk (through a loop device of its own) with O_DIRECT. Each step has observed values; the device's busy share
# grows with the rate; the exporter's reads counter (as a rate) and the server's
# rate(node_disk_reads_completed_total[5s]) each lie within 10% of the step's achieved
# reads; report rebuilds curve-*.json byte for byte; report.html holds the plot.
# The warm-up (4 s) outlasts the query's 5 s window less the scrape interval, so each
# measured interval's window holds only the step's own reads.
. "$(dirname "$0")/lib.sh"

command -v prometheus-node-exporter > /dev/null || fail "prometheus-node-exporter is installed"
command -v prometheus > /dev/null || fail "prometheus is installed"

# The campaign's own disk: a filesystem on a loop device over a file of this VM's disk,
# so no other traffic on the machine moves the counters the test checks (vda's carry
# every other process's reads: 4,162 reads/s beside 800 in one run).
command -v losetup > /dev/null && command -v mkfs.ext4 > /dev/null || fail "losetup and mkfs.ext4"
truncate -s 256M "$T/disk.img"
LOOP=$(losetup -f --show --direct-io=on "$T/disk.img") || fail "a loop device"
trap 'umount "$T/data" 2> /dev/null; losetup -d "$LOOP"; cleanup' EXIT
mkfs.ext4 -q "$LOOP" || fail "mkfs.ext4 on $LOOP"
mkdir -p "$T/data"
mount "$LOOP" "$T/data" || fail "mount $LOOP"
dev=$(basename "$LOOP")

NE=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$NE" --collector.disable-defaults \
	--collector.diskstats --collector.diskstats.device-exclude='^(ram|fd)[0-9]+$'  > "$T/ne.log" 2>&1 &
PIDS="$PIDS $!"
PP=$(free_port)
cat > "$T/prom.yml" << EOF2
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: node
    static_configs: [{targets: ['127.0.0.1:$NE']}]
EOF2
prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/tsdb" \
	--web.listen-address="127.0.0.1:$PP" > "$T/prom.log" 2>&1 &
PIDS="$PIDS $!"
up() {
	curl -s "http://127.0.0.1:$PP/api/v1/query?query=up" | grep -q '"value":\[[0-9.]*,"1"\]'
}
n=0
until up; do
	n=$((n + 1))
	[ "$n" -gt 150 ] && { tail -5 "$T/prom.log"; fail "prometheus scrapes the exporter"; }
	sleep 0.1
done
ok "node_exporter on :$NE, prometheus on :$PP scraping it every 1s"
# A prometheus just started reads its own files for a few seconds (1,300 reads/s on this
# VM's disk in one run): the first step's rate windows would count them. Wait until the
# device is quiet: two seconds in a row under 100 reads.
quiet() {
	python3 - "$dev" << 'PY'
import sys, time
def reads():
    for l in open("/proc/diskstats"):
        f = l.split()
        if f[2] == sys.argv[1]:
            return int(f[3])
q = 0
for _ in range(20):
    a = reads(); time.sleep(1); b = reads()
    q = q + 1 if b - a < 100 else 0
    if q == 2:
        sys.exit(0)
sys.exit(1)
PY
}
quiet || echo "# the disk did not quiet down: the figures may carry other reads"

cat > "$T/c.yaml" << EOF2
campaign: observe
agents: {local: 1}
target: {path: $T/data, size: 64MiB, direct: true}
workers: 1
queue_depth: 8
interval: 1s
warmup: 4s
measure: 2s
retry: 0
slo: {latency: 20ms}
observe:
  - name: storage
    url: http://127.0.0.1:$NE/metrics
    series:
      - {name: busy, metric: 'node_disk_io_time_seconds_total{device="$dev"}', saturated_at: 95%}
      - {name: reads, metric: 'node_disk_reads_completed_total{device="$dev"}'}
  - name: prom
    url: http://127.0.0.1:$PP/
    series:
      - {name: reads, query: 'rate(node_disk_reads_completed_total{device="$dev"}[5s])'}
workloads:
  - {name: rr, rw: randread, block_size: 4KiB, load: {steps: [800, 8000]}}
EOF2
"$IOCURVE" check "$T/c.yaml" > "$T/check.out" || { cat "$T/check.out"; fail "check takes observe:"; }
grep -q "observe  storage: http://127.0.0.1:$NE/metrics (2 series" "$T/check.out" ||
	{ cat "$T/check.out"; fail "check's plan shows the sources"; }
ok "check shows the sources"
"$IOCURVE" run "$T/c.yaml" --out "$T/r" > "$T/run.out" 2>&1 || { cat "$T/run.out"; fail "the campaign runs"; }
ok "the campaign completes"

python3 - "$T/r" "$dev" << 'PY' || fail "observed values per step"
import json, sys
d, dev = sys.argv[1], sys.argv[2]
c = json.load(open(d + "/curve-rr.json"))
lines = [json.loads(l) for l in open(d + "/intervals.jsonl") if '"observe"' in l]
assert len(lines) >= 2 * 2 * 6, len(lines)
assert all(l["format"] == 5 and "late" not in l for l in lines), [l for l in lines if "late" in l]
busy = []
for s in c["steps"]:
    o, a = s["observed"], s["achieved_ops"]
    print("# step %d: achieved %.0f ops/s, storage/reads %.0f/s, prom/reads %.0f/s, busy %.3f"
          % (s["step"], a, o["storage/reads"], o["prom/reads"], o["storage/busy"]))
    for k in ("storage/reads", "prom/reads"):
        assert abs(o[k] - a) <= 0.10 * a, (k, o[k], a)
    busy.append(o["storage/busy"])
assert 0 < busy[0] < busy[1] <= 1.05, busy
PY
ok "each step's observed reads within 10% of its achieved, the busy share grows with the rate"

cp -r "$T/r" "$T/again"
rm "$T/again/curve-rr.json" "$T/again/report.html"
"$IOCURVE" report "$T/again" > /dev/null 2>&1 || fail "report rebuilds"
cmp -s "$T/r/curve-rr.json" "$T/again/curve-rr.json" || fail "report rebuilds curve-rr.json byte for byte"
cmp -s "$T/r/report.html" "$T/again/report.html" || fail "report rebuilds report.html byte for byte"
ok "report rebuilds curve-rr.json and report.html from intervals.jsonl"
