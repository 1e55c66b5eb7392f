#!/bin/sh
# SPDX-License-Identifier: MIT
# units: decimal, as IOmeter shows figures: a sequential workload's bandwidth in MB/s
# (10^6 bytes, x 1.048576 of MiB/s) and its rates as IOPS in every table, plot label and
# summary; summary.json keeps its MiB/s keys and adds the MB/s ones; a workload that says
# units: binary keeps MiB/s; a bad value is refused at file:line:column.
. "$(dirname "$0")/lib.sh"

cat > "$T/c.yaml" <<YAML
campaign: units
agents: {local: 1}
target: {sim: {servers: 2, service_time: 1ms}}
interval: 200ms
warmup: 200ms
measure: 1s
units: decimal
workloads:
  - {name: sq, rw: read, block_size: 1MiB, load: {steps: [100, 200]}}
  - {name: bin, rw: read, block_size: 1MiB, units: binary, load: {steps: [100]}}
YAML
"$IOCURVE" check "$T/c.yaml" > "$T/check.out" 2>&1 || { cat "$T/check.out"; fail "check takes units: decimal"; }
check "check gives sq's rates as IOPS and MB/s" grep -Eq '^ +1 +100 IOPS \(104\.9 MB/s\)$' "$T/check.out"
check "and bin's as ops/s and MiB/s" grep -Eq '^ +1 +100 ops/s \(100\.0 MiB/s\)$' "$T/check.out"

"$IOCURVE" run "$T/c.yaml" --out "$T/r" > "$T/run.out" 2>&1 || { cat "$T/run.out"; fail "the campaign runs"; }
ok "the campaign runs"
python3 - "$T/r" <<'PY' || fail "every table and label says MB/s and IOPS for sq, at 1.048576 x MiB/s"
import json, re, sys
import summarytxt
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
sq, bn = s["workloads"]
assert sq["units"] == "decimal" and "units" not in bn, (sq.get("units"), bn.get("units"))
assert abs(sq["peak_mbps"] - sq["peak_mibps"] * 1.048576) < 0.01, (sq["peak_mbps"], sq["peak_mibps"])
assert "peak_mbps" not in bn and bn["peak_mibps"] > 0, bn
md = open(d + "/summary.md").read()
txt = summarytxt.joined(d + "/summary.txt")
for text in (md, txt):
    row = next(l for l in text.splitlines() if l.startswith("| sq |"))
    # the peak, its own cell, then the service time at it
    m = re.search(r"\| ([0-9.]+) MB/s \| [0-9.]+[mu]?s \|", row)
    assert m, row
    assert abs(float(m.group(1)) - sq["peak_mibps"] * 1.048576) < 0.06, (row, sq["peak_mibps"])
    brow = next(l for l in text.splitlines() if l.startswith("| bin |"))
    assert re.search(r"\| [0-9.]+ MiB/s \| [0-9.]+[mu]?s \|", brow), brow
# the step tables: sq's in MB/s and IOPS, bin's in MiB/s and ops/s
heads = [l for l in md.splitlines() if l.startswith("| Step |")]
assert "| Offered IOPS | Achieved IOPS | MB/s |" in heads[0], heads[0]
assert "| Offered ops/s | Achieved ops/s | MiB/s |" in heads[1], heads[1]
sqrows = md.split(heads[0])[1].split("\n\n")[0].splitlines()[2:]
curve = {int(st["step"]): st for st in json.load(open(d + "/curve-sq.json"))["steps"]}
for r in sqrows:
    cells = [c.strip() for c in r.strip("|").split("|")]
    mb = float(cells[3])
    mib = curve[int(cells[0])]["achieved_mibps"]
    assert abs(mb - mib * 1.048576) < 0.06, (cells, mib)
html = open(d + "/report.html").read()
sq_html = html.split('<section id="workload-1">')[1].split("</section>")[0]
assert "<th>MB/s</th>" in sq_html and "MiB/s" not in sq_html, "report.html's sq section"
assert "achieved throughput (MB/s)" in open(d + "/curve-sq.svg").read()
assert "achieved throughput (MiB/s)" in open(d + "/curve-bin.svg").read()
assert ">MB/s per interval (dashed: offered)<" in open(d + "/time-sq.svg").read()
assert ">MiB/s per interval (dashed: offered)<" in open(d + "/time-bin.svg").read()
PY
ok "every table and label says MB/s and IOPS for sq, at 1.048576 x MiB/s"

printf 'campaign: u\nagents: {local: 1}\ntarget: {sim: {service_time: 100us}}\nunits: si\nworkloads: [{name: a, load: {steps: [1]}}]\n' > "$T/bad.yaml"
rc=0
"$IOCURVE" check "$T/bad.yaml" > "$T/bad.out" 2>&1 || rc=$?
check "a bad units value is refused with status 2 at file:line:column" \
	sh -c "test $rc -eq 2 && grep -q 'bad.yaml:4:8: units: expected binary (MiB/s, ops/s) or decimal' '$T/bad.out'"
