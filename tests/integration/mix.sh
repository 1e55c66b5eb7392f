#!/bin/sh
# SPDX-License-Identifier: MIT
# A mix in one workload, on a real file through io_uring: 70% 8KiB random reads and 30%
# 64KiB sequential writes at a fixed rate, one stream per worker. Per part: ops/s within
# 2% of its share of the achieved rate, bytes / ops its block size (the writes' 64 KiB:
# the record's written bytes / its writes), every operation in exactly one part, and the
# parts carried into the point (curve-*.json, curve-*.csv), the summaries, report.html and
# compare (against a run at half the rate). A size distribution adds up to its shares.
. "$(dirname "$0")/lib.sh"

cat > "$T/mix.yaml" <<YAML
campaign: mixtest
agents: {local: 1}
target: {path: $T/data, size: 64MiB, direct: true}
workers: 2
queue_depth: 16
interval: 500ms
warmup: 500ms
measure: 3s
slo: {latency: 100ms, part: reads}
workloads:
  - name: oltp
    mix:
      - {name: reads, share: 70, rw: randread, block_size: 8KiB}
      - {name: log, share: 30, rw: write, access: sequential, block_size: 64KiB}
    load: {steps: [600]}
  - name: sizes
    rw: randread
    block_size: {4KiB: 60, 16KiB: 40}
    load: {steps: [500]}
YAML
"$IOCURVE" check "$T/mix.yaml" > "$T/check.out" 2>&1 ||
	{ cat "$T/check.out"; fail "check takes the mix"; }
grep -q "reads 70% randread 8KiB, log 30% write 64KiB" "$T/check.out" ||
	{ cat "$T/check.out"; fail "check's plan shows the mix's parts"; }
ok "check's plan shows the mix's parts"
"$IOCURVE" run "$T/mix.yaml" --out "$T/out" > "$T/run.out" 2> "$T/run.err" ||
	{ cat "$T/run.out" "$T/run.err"; fail "the mix campaign runs"; }
ok "the mix campaign runs on a real file"

python3 - "$T/out" <<'PY' || fail "per-part shares, sizes and counts"
import json, sys
d = sys.argv[1]
share = {"reads": 0.70, "log": 0.30}
size = {"reads": 8192, "log": 65536}
tot = {"ops": 0, "bytes": 0, "reads": 0, "read_bytes": 0}
parts = {k: {"ops": 0, "bytes": 0, "reads": 0, "lat": 0} for k in share}
dist = {"ops": 0, "bytes": 0}
for line in open(d + "/intervals.jsonl"):
    o = json.loads(line)
    if o.get("agent") != "*" or "ops" not in o or o.get("warmup"):
        continue
    if o["workload"] == "sizes":
        assert "parts" not in o, "a size distribution is no mix"
        dist["ops"] += o["ops"]
        dist["bytes"] += o["bytes"]
        continue
    assert len(o["parts"]) == 2, o.get("parts")
    for k in tot:
        tot[k] += o[k]
    s = {"ops": 0, "bytes": 0, "reads": 0}
    for name, p in zip(("reads", "log"), o["parts"]):
        for k in ("ops", "bytes", "reads"):
            parts[name][k] += p[k]
            s[k] += p[k]
        parts[name]["lat"] += p["latency"]["count"]
        assert p["latency"]["count"] == p["ops"]
    # every completed operation is in exactly one part
    assert s["ops"] == o["ops"] and s["bytes"] == o["bytes"] and s["reads"] == o["reads"], (s, o["ops"])
assert tot["ops"] > 1500, tot
for name, p in parts.items():
    got = p["ops"] / tot["ops"]
    print(f"# {name}: {p['ops']} of {tot['ops']} ops = {got:.4f} (share {share[name]}), "
          f"{p['bytes']} bytes = {p['bytes'] / p['ops']:.0f} per op")
    assert abs(got - share[name]) <= 0.02 * share[name], (name, got)
    assert p["bytes"] == p["ops"] * size[name], (name, p["bytes"], p["ops"])
# the writes: all of the log part's, 64 KiB each; the reads all of the reads part's
writes = tot["ops"] - tot["reads"]
wbytes = tot["bytes"] - tot["read_bytes"]
print(f"# written: {wbytes} bytes / {writes} write ops = {wbytes / writes:.0f}")
assert writes == parts["log"]["ops"] and wbytes == writes * 65536
assert tot["reads"] == parts["reads"]["ops"] and parts["log"]["reads"] == 0
# the size distribution: 60% 4 KiB and 40% 16 KiB, interleaved exactly
mean = dist["bytes"] / dist["ops"]
print(f"# sizes: {dist['bytes']} bytes / {dist['ops']} ops = {mean:.0f} (asked {0.6*4096+0.4*16384:.0f})")
assert abs(mean - (0.6 * 4096 + 0.4 * 16384)) <= 0.01 * mean
# the point: each part's ops/s and MiB/s, its latency and percentiles
c = json.load(open(d + "/curve-oltp.json"))
pt = c["steps"][0]
ps = {p["name"]: p for p in pt["parts"]}
ach = pt["achieved_ops"]
for name in share:
    p = ps[name]
    print(f"# point {name}: {p['ops']} ops/s of {ach}, {p['mibps']} MiB/s, mean {p['mean_us']} us, p99 {p['p99_us']} us")
    assert abs(p["ops"] / ach - share[name]) <= 0.02 * share[name]
    assert abs(p["mibps"] - p["ops"] * size[name] / 2**20) <= 0.01 * p["mibps"] + 0.001
    assert p["p99_us"] >= p["p50_us"] > 0
head = open(d + "/curve-oltp.csv").readline()
assert "reads_ops" in head and "log_p99_us" in head, head
PY
ok "per-part ops/s within 2% of the shares, sizes as asked, parts in the point"

# Each part in the summaries, report.html and compare, as the point has it: summary.md's
# rows per step, summary.txt's and summary.json's at the knee's step, report.html's table,
# and the knee said in MiB/s at the mix's mean block (0.7 x 8 + 0.3 x 64 = 24.8 KiB).
python3 - "$T/out" "$(dirname "$0")/../../docs/schema/summary.schema.json" <<'PY' ||
import json, re, sys
from html.parser import HTMLParser
import jsonschema
import summarytxt
d = sys.argv[1]
# summary.json as docs/schema/summary.schema.json describes it, parts_at_knee included
jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(json.load(open(d + "/summary.json")))
c = json.load(open(d + "/curve-oltp.json"))
want = {(s["step"], p["name"]): p for s in c["steps"] for p in s["parts"]}
assert len(want) == 2, want

def check(rows, where):
    got = {}
    for r in rows:
        step, name, share, pattern, ops, mibps = r[:6]
        got[(int(step), name)] = (share, pattern, float(ops), float(mibps))
    assert set(got) == set(want), (where, got.keys())
    for k, (share, pattern, ops, mibps) in got.items():
        p = want[k]
        assert share == f"{p['share']}%", (where, k, share)
        assert abs(ops - p["ops"]) <= 0.05 and abs(mibps - p["mibps"]) <= 0.0005, (where, k, ops, p)
    print(f"# {where}: " + "; ".join(f"{k[1]} {v[1]} {v[2]} ops/s {v[3]} MiB/s" for k, v in sorted(got.items())))
    assert got[(1, "reads")][1] == "randread 8KiB" and got[(1, "log")][1] == "write 64KiB", got

def md_rows(text):
    lines = text.splitlines()
    i = lines.index("| Step | Part | Share | Pattern | ops/s | MiB/s | Storage mean | Storage p99 | Mean | p99 | Max | Errors |")
    rows = []
    for l in lines[i + 2:]:
        if not l.startswith("|"):
            break
        rows.append([x.strip() for x in l.strip("|").split("|")])
    return rows

md = open(d + "/summary.md").read()
assert "Each part of the mix at each step" in md, md
# the heading says the mix, not its largest block as if every operation moved it
assert "\n## oltp (mix: reads 70% randread 8KiB, log 30% write 64KiB, " in md, md
assert "\n## sizes (randread, 4KiB:60,16KiB:40 blocks, " in md, md
assert "mix: reads 70% randread 8KiB, log 30% write 64KiB" in open(d + "/report.html").read()
check(md_rows(md.split("\n## oltp")[1]), "summary.md")
txt = summarytxt.joined(d + "/summary.txt")
assert "oltp: each part of the mix at the knee (step 1)" in txt, txt
check(md_rows(txt), "summary.txt")
# summary.json: the parts at the knee's step, as the curve's; the knee in MiB/s at 24.8 KiB
w = [w for w in json.load(open(d + "/summary.json"))["workloads"] if w["name"] == "oltp"][0]
pk = w["parts_at_knee"]
assert pk["step"] == 1 and pk["at"] == "knee", pk
for p in pk["parts"]:
    assert p == want[(1, p["name"])], (p, want[(1, p["name"])])
mean = 0.7 * 8192 + 0.3 * 65536
print(f"# summary.json: knee {w['knee_ops']} ops/s = {w['knee_mibps']} MiB/s at {mean:.0f} B")
assert abs(w["knee_mibps"] - w["knee_ops"] * mean / 2**20) <= 0.01, w["knee_mibps"]
bw = int(w["knee_ops"] * mean / 2**20 * 10 + 1e-9) / 10
head = f"(>= {bw:.1f} MiB/s at the mix's mean block of 24.8KiB)"
assert head in md and head in txt, (head, md)
print(f"# headline: ... {head}")
assert "mean block" not in [l for l in txt.splitlines() if l.startswith("| sizes")][0]

class Parts(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.row, self.cell, self.inside, self.depth = [], None, None, False, 0
    def handle_starttag(self, tag, attrs):
        if tag == "table" and ("id", "parts-1") in attrs:
            self.inside = True
        if not self.inside:
            return
        self.depth += tag in ("tr", "td", "th")
        if tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = ""
    def handle_endtag(self, tag):
        if not self.inside:
            return
        if tag in ("tr", "td", "th"):
            self.depth -= 1
        if tag in ("td", "th"):
            self.row.append(self.cell)
            self.cell = None
        elif tag == "tr":
            self.rows.append(self.row)
        elif tag == "table":
            self.inside = False
            assert self.depth == 0, "unbalanced rows or cells in the parts table"
    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
h = Parts()
h.feed(open(d + "/report.html").read())
assert h.rows and h.rows[0][:6] == ["Step", "Part", "Share", "Pattern", "ops/s", "MiB/s"], h.rows[:1]
check(h.rows[1:], "report.html")
PY
	fail "the parts in summary.md, summary.txt, summary.json, report.html"
ok "each part in summary.md, summary.txt, summary.json and report.html as in the curve"

# compare: a row per part at each run's knee step with its change, and --json's parts;
# a second, shorter run at half the rate
sed -e 's/steps: \[600\]/steps: [300]/' -e 's/measure: 3s/measure: 1s/' -e '/name: sizes/,$d' \
	"$T/mix.yaml" > "$T/half.yaml"
"$IOCURVE" run "$T/half.yaml" --out "$T/half" > "$T/half.out" 2>&1 ||
	{ cat "$T/half.out"; fail "the half-rate mix runs"; }
"$IOCURVE" compare "$T/out" "$T/half" > "$T/cmp.out" 2>&1 || { cat "$T/cmp.out"; fail "compare"; }
"$IOCURVE" compare "$T/out" "$T/half" --json > "$T/cmp.json" 2> "$T/cmp.err" ||
	{ cat "$T/cmp.err"; fail "compare --json"; }
python3 - "$T" <<'PY' || { cat "$T/cmp.out"; fail "compare's parts rows and --json parts"; }
import json, re, sys
T = sys.argv[1]
pk = [{p["name"]: p for p in [w for w in json.load(open(f"{T}/{r}/summary.json"))["workloads"]
       if w["name"] == "oltp"][0]["parts_at_knee"]["parts"]} for r in ("out", "half")]
cmp = open(T + "/cmp.out").read()
js = [w for w in json.load(open(T + "/cmp.json"))["workloads"] if w["name"] == "oltp"][0]["runs"]
for name in ("reads", "log"):
    a, b = pk[0][name], pk[1][name]
    row = [l for l in cmp.splitlines() if l.startswith(f"| oltp | part {name} at knee |")]
    assert len(row) == 1, cmp
    print(f"# {row[0]}")
    m = re.findall(r"([0-9,.]+) ops/s, mean ([0-9.]+) us", row[0])
    assert [float(x[0].replace(",", "")) for x in m] == [a["ops"], b["ops"]], (m, a, b)
    assert [float(x[1]) for x in m] == [a["mean_us"], b["mean_us"]], (m, a, b)
    ch = re.search(r"([-+][0-9.]+)% ops/s, ([-+][0-9.]+)% mean", row[0])
    ops_pct = 100 * (b["ops"] - a["ops"]) / a["ops"]
    assert abs(float(ch.group(1)) - ops_pct) <= 0.1 and -52 <= ops_pct <= -48, (ch.group(1), ops_pct)
    # the change is of the unrounded means; the summaries' are to 0.1 us, which moves a
    # change of a small mean by 100 * 0.05 * (1 / a + b / a^2) points, and the cell rounds to 0.1
    slack = 100 * 0.05 * (1 / a["mean_us"] + b["mean_us"] / a["mean_us"] ** 2) + 0.05
    assert abs(float(ch.group(2)) - 100 * (b["mean_us"] - a["mean_us"]) / a["mean_us"]) <= slack, \
        (ch.group(2), a["mean_us"], b["mean_us"])
    for r, mine in ((0, a), (1, b)):
        jp = [p for p in js[r]["parts_at_knee"]["parts"] if p["name"] == name][0]
        assert jp["ops"] == mine["ops"] and jp["mean_us"] == mine["mean_us"], (jp, mine)
    jc = [p for p in js[1]["change"]["parts"] if p["name"] == name][0]
    assert abs(jc["ops_pct"] - ops_pct) <= 0.1, jc
PY
ok "compare gives each part at each run's knee with its change, in the table and --json"

# report reads the parts back from intervals.jsonl: the same curve, parts and columns
cp "$T/out/curve-oltp.json" "$T/curve-oltp.json.orig"
cp "$T/out/curve-oltp.csv" "$T/curve-oltp.csv.orig"
"$IOCURVE" report "$T/out" > /dev/null || fail "report on the mix run"
cmp "$T/curve-oltp.json.orig" "$T/out/curve-oltp.json" &&
	cmp "$T/curve-oltp.csv.orig" "$T/out/curve-oltp.csv" ||
	fail "report rebuilds the mix's curve, parts included, identically"
ok "report rebuilds the mix's curve, parts included, identically"

# the file: the sequential 64 KiB writes reached it (its first blocks' data changed)
[ "$(stat -c %s "$T/data/"*-w0.dat)" -eq $((64 << 20)) ] || fail "the file keeps its size"

# the bad-mix-*.yaml fixtures (shares, keys, sizes, slo.part) are check.sh's
