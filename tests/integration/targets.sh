#!/bin/sh
# SPDX-License-Identifier: MIT
# Several targets in one campaign (targets:): three simulated classes of other service
# times, a test on all of them and one on two; each (test, target) pair is its own curve,
# and the side-by-side table (tests as rows, targets as columns) holds each pair's own
# knee, peak and sustained figure in the run's output, summary.md, summary.json
# (by_target) and report.html; `iocurve report` rebuilds the same. The refusals name
# file:line:column.
. "$(dirname "$0")/lib.sh"

cat > "$T/classes.yaml" <<'YAML'
campaign: classes
agents: {local: 2}
targets:
  - {name: ultra, sim: {servers: 2, service_time: 1ms}}
  - {name: premium, sim: {servers: 2, service_time: 2ms}}
  - {name: standard, sim: {servers: 2, service_time: 4ms}}
workers: 1
queue_depth: 8
interval: 100ms
warmup: 100ms
measure: 300ms
slo: {latency: 6ms}
workloads:
  - {name: read-iops, rw: randread, load: {curve: [50%, 90%]}}
  - {name: read-bw, rw: randread, block_size: 128KiB, targets: [ultra, standard],
     load: {max: true}}
YAML
"$IOCURVE" check "$T/classes.yaml" > "$T/check.out" 2>&1 || { cat "$T/check.out"; fail "check"; }
check "check lists every pair, TEST@TARGET, and each target" \
	sh -c "grep -q 'workload 5/5: read-bw@standard' '$T/check.out' &&
	       grep -q 'target   premium: simulated: 2 servers, service time 2.00ms' '$T/check.out'"

"$IOCURVE" run "$T/classes.yaml" --out "$T/res" > "$T/run.out" 2>&1 ||
	{ cat "$T/run.out"; fail "the campaign over three targets completes"; }
ok "the campaign over three targets completes"
R=$T/res
for p in read-iops@ultra read-iops@premium read-iops@standard read-bw@ultra read-bw@standard; do
	for ext in csv json svg; do
		test -s "$R/curve-$p.$ext" || fail "curve-$p.$ext is written"
	done
done
ok "every (test, target) pair has its curve files"
check "a test runs only on the targets it names" test ! -e "$R/curve-read-bw@premium.csv"
check "summary.md has the side-by-side table" \
	grep -q '^| Test | Figure | ultra | premium | standard |$' "$R/summary.md"

# The cells are the pairs' own figures: summary.json's by_target, its workloads and the
# table of summary.md agree, the run's output ends with a headline per pair (its peak),
# and the slower class is slower.
python3 - "$R" "$T/run.out" <<'PY' || fail "the side-by-side table holds each pair's own figures"
import json, math, sys
def count(v):  # the tables cut a rate to a whole op, as the figures are
    return "{:,}".format(math.floor(v + 1e-9))
d, out = sys.argv[1], open(sys.argv[2]).read()
s = json.load(open(d + "/summary.json"))
by = s["by_target"]
assert by["targets"] == ["ultra", "premium", "standard"], by["targets"]
ws = {w["name"]: w for w in s["workloads"]}
assert [r["test"] for r in by["rows"]] == ["read-iops", "read-bw"], by["rows"]
md = open(d + "/summary.md").read()
def row(text, test, fig):
    """The cells of test's row of figure fig (knee, 95% band, peak, sustained, limit)."""
    for line in text.splitlines():
        if line.startswith("| %s | %s |" % (test, fig)):
            return [c.strip() for c in line.strip().strip("|").split("|")][2:]
    raise AssertionError("no row for %s %s" % (test, fig))
for r in by["rows"]:
    for i, t in enumerate(by["targets"]):
        cell = r["cells"][t]
        name = "%s@%s" % (r["test"], t)
        if r["test"] == "read-bw" and t == "premium":
            assert cell is None, cell
            for fig in ("knee", "95% band", "peak", "sustained", "limit"):
                assert row(md, r["test"], fig)[i] == "-"
            continue
        w = ws[name]
        assert cell["workload"] == name and w["test"] == r["test"] and w["target"] == t
        for k in ("knee_ops", "knee_mibps", "knee_kind", "knee_band", "peak_ops",
                  "peak_mibps", "sustained_ops", "sustained_mibps", "limit"):
            assert cell[k] == w[k], (name, k, cell[k], w[k])
        head = [l for l in out.splitlines() if l.startswith(name + "  ")]
        assert len(head) == 1 and len(head[0]) <= 100, (name, head)
        # every cell one figure or one word: no ';' or sentence in any
        for fig in ("knee", "95% band", "peak", "sustained", "limit"):
            c = row(md, r["test"], fig)[i]
            assert ";" not in c and len(c.split()) <= 3, (name, fig, c)
        knee, peak = row(md, r["test"], "knee")[i], row(md, r["test"], "peak")[i]
        if r["test"] == "read-bw":
            assert knee == "none", knee
            assert peak in ("%d ops/s" % math.floor(w["peak_ops"] + 1e-9),
                            "%.1f MiB/s" % (math.floor(w["peak_mibps"] * 10 + 1e-9) / 10)), peak
            continue
        assert peak == "%d ops/s" % math.floor(w["peak_ops"] + 1e-9), (peak, w["peak_ops"])
        # the knee as the summary table gives it (a busy host may leave none)
        if w["knee_kind"] in ("measured", "interpolated"):
            lb = ">= " if w.get("knee_lower_bound") else ""
            assert knee == lb + count(w["knee_ops"]) + " ops/s", (knee, w["knee_ops"])
            band = row(md, r["test"], "95% band")[i]
            assert band == "-" or band.count("-") == 1, band
        elif w["knee_kind"] == "above_peak":
            # every step met the SLO: the knee is at least the highest one's rate
            assert knee == ">= %s ops/s" % count(w["knee_ops"]), (knee, w["knee_ops"])
        else:
            assert knee == "none", knee
        sus = row(md, r["test"], "sustained")[i]
        if w["sustained_ops"] > 0:
            assert sus == "%d ops/s" % math.floor(w["sustained_ops"] + 1e-9), (sus, w)
        else:
            assert sus == "none valid", sus
pk = [ws["read-iops@" + t]["peak_ops"] for t in by["targets"]]
assert pk[0] > pk[1] > pk[2], pk
PY
ok "the side-by-side table holds each pair's own figures, the slower class below"

if python3 -c "import jsonschema" 2> /dev/null; then
	python3 - "$R/summary.json" "$(dirname "$0")/../../docs/schema/summary.schema.json" <<'PY' ||
import json, sys, jsonschema
s, schema = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator(schema).validate(s)
bad = dict(s, by_target={"targets": ["a", "b"], "rows": [{"test": "t", "cells": {"a": {}}}]})
try:
    jsonschema.Draft202012Validator(schema).validate(bad)
    raise SystemExit("a cell without figures validates")
except jsonschema.ValidationError:
    pass
PY
		fail "summary.json with by_target matches docs/schema/summary.schema.json"
	ok "summary.json with by_target matches docs/schema/summary.schema.json"
fi

python3 - "$R/intervals.jsonl" <<'PY' || fail "each pair's intervals carry its name"
import json, sys
names = {json.loads(l).get("workload") for l in open(sys.argv[1])}
want = {"read-iops@ultra", "read-iops@premium", "read-iops@standard", "read-bw@ultra",
        "read-bw@standard"}
assert want <= names, names
PY
ok "intervals.jsonl names each pair"
check "report.html has the side-by-side table with a column per target" \
	sh -c "grep -q '<h2 id=\"by-target\">By target</h2>' '$R/report.html' &&
	       grep -q '<th>ultra</th><th>premium</th><th>standard</th>' '$R/report.html'"
check "meta.json gives each agent's mount of each target" \
	python3 -c "import json,sys; a=json.load(open('$R/meta.json'))['agents'];
assert all(set(x['targets']) == {'ultra','premium','standard'} for x in a)"

cp "$R/summary.json" "$T/summary.first"
cp "$R/summary.md" "$T/summary.md.first"
"$IOCURVE" report "$R" > "$T/report.out" 2>&1 || { cat "$T/report.out"; fail "iocurve report"; }
check "iocurve report rebuilds summary.json and summary.md as the run wrote them" \
	sh -c "cmp -s '$R/summary.json' '$T/summary.first' && cmp -s '$R/summary.md' '$T/summary.md.first'"
check "iocurve report prints the side-by-side table" \
	grep -Eq '^\| read-bw \| peak \| [0-9.]+ (MiB|ops)/s \| - \| [0-9.]+ (MiB|ops)/s \|$' "$T/report.out"

# compare takes such results: the same pairs, nothing differs in the setup
"$IOCURVE" compare "$R" "$R" > "$T/compare.out" 2>&1 || { cat "$T/compare.out"; fail "compare"; }
check "compare matches the pairs of two runs by name" grep -q 'read-iops@premium' "$T/compare.out"

# --set reaches a target by its name
"$IOCURVE" check "$T/classes.yaml" --set targets.premium.sim.service_time=3ms > "$T/set.out" 2>&1 ||
	{ cat "$T/set.out"; fail "--set targets.NAME"; }
check "--set targets.NAME.KEY sets that target's value" \
	grep -q 'target   premium: simulated: 2 servers, service time 3.00ms' "$T/set.out"

# --set workloads.NAME still addresses the workload as written: all its pairs
"$IOCURVE" check "$T/classes.yaml" --set workloads.read-iops.queue_depth=4 > "$T/setw.out" 2>&1 ||
	{ cat "$T/setw.out"; fail "--set workloads.NAME"; }
check "--set workloads.NAME.KEY sets the key of every pair of that workload" \
	test "$(grep -c 'randread, 4KiB blocks, 1 worker x queue depth 4 per agent' "$T/setw.out")" -eq 3
check "the run says it runs pairs over the targets" \
	grep -q '^campaign classes: 5 workload(s), each a (test, target) pair over 3 targets' "$T/run.out"

# Refusals, with where.
refused() { # refused NAME EXPECTED-MESSAGE: the campaign in $T/NAME.yaml
	if "$IOCURVE" check "$T/$1.yaml" > "$T/$1.out" 2>&1; then fail "$1 is refused"; fi
	grep -qF -- "$2" "$T/$1.out" || { cat "$T/$1.out"; fail "$1: says '$2'"; }
	ok "$1 is refused: $2"
}
cat > "$T/both.yaml" <<'YAML'
campaign: both
agents: {local: 1}
target: {sim: {service_time: 1ms}}
targets:
  - {name: a, sim: {service_time: 1ms}}
workloads: [{name: r, load: {max: true}}]
YAML
refused both "both.yaml:5:3: targets: the campaign has 'target' already; give either 'target' (one) or 'targets'"
cat > "$T/unknown.yaml" <<'YAML'
campaign: unknown
agents: {local: 1}
targets:
  - {name: a, sim: {service_time: 1ms}}
  - {name: b, sim: {service_time: 2ms}}
workloads:
  - {name: r, targets: [a, c], load: {max: true}}
YAML
refused unknown "unknown.yaml:7:28: targets: workload 'r' names target 'c', which is not defined (targets: a, b)"
cat > "$T/dup.yaml" <<'YAML'
campaign: dup
agents: {local: 1}
targets:
  - {name: a, sim: {service_time: 1ms}}
  - name: a
    sim: {service_time: 2ms}
workloads: [{name: r, load: {max: true}}]
YAML
refused dup "dup.yaml:5:11: targets.name: target 'a' is already defined (names must be unique; rename one)"
cat > "$T/badname.yaml" <<'YAML'
campaign: badname
agents: {local: 1}
targets:
  - {name: "a@b", sim: {service_time: 1ms}}
workloads: [{name: r, load: {max: true}}]
YAML
refused badname "badname.yaml:4:12: targets.name: expected letters, digits, '.', '_' and '-' only"
cat > "$T/onetarget.yaml" <<'YAML'
campaign: onetarget
agents: {local: 1}
target: {sim: {service_time: 1ms}}
workloads: [{name: r, targets: [a], load: {max: true}}]
YAML
refused onetarget "onetarget.yaml:4:32: targets: workload 'r' names targets, but the campaign has one (target:)"
cat > "$T/small.yaml" <<'YAML'
campaign: small
agents: {local: 1}
targets:
  - {name: a, sim: {service_time: 1ms}}
  - {name: b, path: /tmp/x, size: 64KiB}
workloads: [{name: r, block_size: 1MiB, load: {max: true}}]
YAML
refused small "small.yaml:5:35: targets.b.size: 64KiB is smaller than block_size 1MiB of workload 'r'"

# The side-by-side table as a browser reads report.html (headless chromium, where present).
BROWSER=""
for b in chromium chromium-browser google-chrome; do
	if command -v "$b" > /dev/null 2>&1; then
		BROWSER=$b
		break
	fi
done
if [ -n "$BROWSER" ]; then
	timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/profile" --dump-dom "file://$R/report.html" > "$T/dom.html" 2> /dev/null ||
		fail "$BROWSER dumps the DOM"
	python3 - "$T/dom.html" "$R/summary.json" <<'PY' || fail "the browser renders the side-by-side table"
import html.parser, json, math, sys
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.on = False; self.rows = []; self.cell = None
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "table" and "by-target" in (a.get("class") or ""): self.on = True
        elif self.on and tag == "tr": self.rows.append([])
        elif self.on and tag in ("td", "th"): self.cell = ""
    def handle_endtag(self, tag):
        if tag == "table": self.on = False
        elif self.on and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(self.cell.strip()); self.cell = None
    def handle_data(self, d):
        if self.cell is not None: self.cell += d
p = P(); p.feed(open(sys.argv[1]).read())
s = json.load(open(sys.argv[2]))
assert p.rows[0] == ["Test", "Figure", "ultra", "premium", "standard"], p.rows
figs = ["knee", "95% band", "peak", "sustained", "limit"]
assert [r[:2] for r in p.rows[1:]] == [[t, f] for t in ("read-iops", "read-bw") for f in figs], p.rows
ws = {w["name"]: w for w in s["workloads"]}
for r in p.rows[1:]:
    if r[1] != "peak":
        continue
    for t, c in zip(["ultra", "premium", "standard"], r[2:]):
        w = ws.get("%s@%s" % (r[0], t))
        assert (c == "-") if w is None else (c == "%d ops/s" % math.floor(w["peak_ops"] + 1e-9) or
                                             c == "%.1f MiB/s" % (math.floor(w["peak_mibps"] * 10 + 1e-9) / 10)), (r, c)
PY
	ok "the browser renders the side-by-side table, a figure per cell"
fi
