#!/bin/sh
# SPDX-License-Identifier: MIT
# compare for every kind of result: peak, sustained and closed-loop beside the knee, the
# setup diff naming a slower sim, --json with the text's numbers, the --fail-if gate
# (a knee lowered by a slower sim fails it, by the threshold and beyond noise; a base
# above every step fails it too, its bound taken the sure way, and leaves 'beyond noise'
# undecided, status 6; an unchanged re-run passes) and --table of three runs as columns.
# The default suite's form compares a copy of the base for the unchanged run;
# COMPARE_GATE_AGAIN=1 (the 'long' suite) runs the base campaign again, so its noise must
# stay inside the gate's 5%.
. "$(dirname "$0")/lib.sh"

campaign() { # campaign SERVICE_TIME
	cat <<YAML
campaign: gate
agents: {local: 1}
target: {sim: {servers: 1, service_time: $1}}
interval: 100ms
warmup: 100ms
measure: 500ms
slo: {latency: 5ms}
workloads:
  - {name: rr, rw: randread, load: {steps: [200, 400, 600, 800, 920, 1200]}}
  - {name: mx, rw: randread, load: {steps: [max]}}
YAML
}
campaign 1ms > "$T/base.yaml"
campaign 1500us > "$T/slow.yaml"
# the base sim at two rates it meets: its knee a lower bound (> 800)
sed -e 's/steps: \[200, 400, 600, 800, 920, 1200\]/steps: [400, 800]/' -e '/name: mx/d' \
	"$T/base.yaml" > "$T/bound.yaml"
RUNS="base slow bound"
[ "${COMPARE_GATE_AGAIN:-0}" = 1 ] && RUNS="base again:base slow bound"
for r in $RUNS; do
	name=${r%%:*} file=${r#*:}
	"$IOCURVE" run "$T/$file.yaml" --out "$T/$name" > "$T/$name.out" 2>&1 ||
		[ $? -eq 3 ] || { cat "$T/$name.out"; fail "run $name"; }
done
[ -d "$T/again" ] || cp -r "$T/base" "$T/again"
for r in base again slow bound; do
	grep -h "^| rr |" "$T/$r/summary.txt" | sed "s/^/# $r: /"
done

"$IOCURVE" compare "$T/base" "$T/again" "$T/slow" --out "$T/cmp" > "$T/cmp.out" 2>&1 ||
	{ cat "$T/cmp.out"; fail "compare without a gate exits 0"; }
sed 's/^/# /' "$T/cmp.out"
check "compare: peak and sustained rows beside the knee" \
	sh -c "grep -Eq '^\| rr \| peak \| [0-9,.]+ \|' '$T/cmp.out' && grep -Eq '^\| rr \| sustained \| [0-9,.]+ at [0-9.]+ us \|' '$T/cmp.out'"
check "compare: a closed-loop-only workload (no knee) still compares by its max step" \
	grep -Eq "^\| mx \| max \(closed-loop\) \| [0-9,.]+ \| [0-9,.]+ \| [-+][0-9.]+% \|" "$T/cmp.out"
check "compare.html has the peak, sustained and closed-loop table too" \
	sh -c "grep -q '<table id=\"figures\">' '$T/cmp/compare.html' && grep -q '<td style=\"text-align:left\">max (closed-loop)</td>' '$T/cmp/compare.html'"
check "compare: the slower sim is named in the setup diff" \
	grep -Eq "^warning: setups differ, $T/slow against $T/base: sim service_time 1(\.0+)?ms vs 1\.50*ms$" "$T/cmp.out"

# The gate: the slower sim's knee fell past the threshold, and beyond noise; the
# unchanged re-run passes.
rc=0
"$IOCURVE" compare "$T/base" "$T/slow" --fail-if 'knee < -5%' --fail-if 'knee < -5% beyond noise' \
	--out "$T/cmp2" > "$T/gate.out" 2> "$T/gate.err" || rc=$?
sed 's/^/# /' "$T/gate.out" "$T/gate.err"
check "--fail-if 'knee < -5%' on a slower sim exits 4" test "$rc" -eq 4
check "the breach is named with its change" \
	grep -Eq "^fail-if 'knee < -5%': BREACH $T/slow: breach: rr: knee -[0-9.]+% \([0-9,.]+ -> [0-9,.]+\), past the threshold$" "$T/gate.out"
check "the breach beyond noise is named with its bands" \
	grep -Eq "^fail-if 'knee < -5% beyond noise': BREACH $T/slow: breach: rr: knee -[0-9.]+% \([0-9,.]+ -> [0-9,.]+\), past the threshold and beyond noise: bands [0-9,.]+-[0-9,.]+ and [0-9,.]+-[0-9,.]+ do not overlap" "$T/gate.out"
check "the breaches are said on stderr with the exit status" grep -q "2 breach(es) of --fail-if (exit 4)" "$T/gate.err"

# A base whose knee is a lower bound (every step met the SLO) against the slower sim's
# measured knee: a fall of at least the change at the bound breaches; 'beyond noise'
# has no band of the bound to compare and cannot decide (status 6, said on stderr).
rc=0
"$IOCURVE" compare "$T/bound" "$T/slow" --fail-if 'knee < -10%' --out "$T/cmp9" > "$T/lb.out" 2> "$T/lb.err" || rc=$?
sed 's/^/# /' "$T/lb.out" "$T/lb.err"
# the bound is what its highest step sustained (800 offered; a window a steady extension
# decided early can hold a few completions fewer): as the bound run's summary says
bound=$(python3 -c 'import json,sys; print("%.1f" % json.load(open(sys.argv[1]))["workloads"][0]["knee_ops"])' "$T/bound/summary.json")
echo "# the bound run's knee: >= $bound ops/s"
check "the bound run's knee is a lower bound" grep -q "^| rr | > $bound | " "$T/lb.out"
check "--fail-if 'knee < -10%' on a lower-bound base against a fallen knee exits 4" test "$rc" -eq 4
check "the breach names the change at the bound" \
	grep -Eq "^fail-if 'knee < -10%': BREACH $T/slow: breach: rr: knee at most -[0-9.]+%, a fall of at least [0-9.]+% \(> $bound -> [0-9,.]+\), past the threshold for sure: the base's figure is a lower bound" "$T/lb.out"
rc=0
"$IOCURVE" compare "$T/bound" "$T/slow" --fail-if 'knee < -10% beyond noise' --out "$T/cmp9" > "$T/lbn.out" 2> "$T/lbn.err" || rc=$?
sed 's/^/# /' "$T/lbn.err"
check "the same 'beyond noise' cannot decide without the bound's band: exit 6" test "$rc" -eq 6
check "undecided, and why, on stderr" \
	sh -c "grep -q \"^fail-if 'knee < -10% beyond noise': UNDECIDED $T/slow: undecided: rr: .*the base's figure has no 95% interval\" '$T/lbn.err' && grep -q 'no --fail-if breached, 1 verdict(s) undecided .*(exit 6)' '$T/lbn.err'"
check "undecided in the text's verdicts too" grep -q "UNDECIDED $T/slow: undecided: rr:" "$T/lbn.out"
rc=0
"$IOCURVE" compare "$T/base" "$T/again" --fail-if 'knee < -5%' --fail-if 'peak < -50%' --out "$T/cmp3" > "$T/pass.out" 2>&1 || rc=$?
sed 's/^/# /' "$T/pass.out"
check "an unchanged re-run passes the gate (exit 0)" test "$rc" -eq 0
check "each gate says its verdict" test "$(grep -c "^fail-if '" "$T/pass.out")" -ge 2
rc=0
"$IOCURVE" compare "$T/base" "$T/slow" --fail-if 'latency@800 > +10%' --out "$T/cmp4" > "$T/lat.out" 2>&1 || rc=$?
sed 's/^/# /' "$T/lat.out"
check "--fail-if on the latency at a rate the slow sim cannot serve exits 4" test "$rc" -eq 4
check "the latency breach is named" grep -Eq "BREACH $T/slow: breach: rr: latency@800 \+[0-9.]+% \(" "$T/lat.out"
for bad in 'knee < 5' 'iops < -5%' 'knee -5%' 'latency@ > 1%' 'knee < -5% extra'; do
	rc=0
	"$IOCURVE" compare "$T/base" "$T/slow" --fail-if "$bad" --out "$T/cmp5" > "$T/bad.out" 2>&1 || rc=$?
	check "a bad expression '$bad' is refused with status 2 and a message" \
		sh -c "test $rc -eq 2 && grep -q \"iocurve compare: --fail-if '$bad': .*expected\\|latency@ needs a rate\" '$T/bad.out'"
done
rc=0
"$IOCURVE" compare "$T/base" "$T/slow" --fail-if 'peak < -10% beyond noise' --out "$T/cmp5" > "$T/bad.out" 2>&1 || rc=$?
check "'beyond noise' on a figure without an interval is refused with status 2, the expression named" \
	sh -c "test $rc -eq 2 && grep -q \"iocurve compare: --fail-if 'peak < -10% beyond noise': the peak figure has no 95% interval\" '$T/bad.out'"

# --json: one document carrying the text's numbers.
rc=0
"$IOCURVE" compare "$T/base" "$T/slow" --json --fail-if 'knee < -5%' --out "$T/cmp6" > "$T/cmp.json" 2> "$T/json.err" || rc=$?
check "--json with a breach exits 4 too" test "$rc" -eq 4
python3 - "$T" <<'PY' || fail "--json carries every figure, the same as the text"
import json, re, sys
T = sys.argv[1]
d = json.load(open(f"{T}/cmp.json"))
text = open(f"{T}/gate.out").read()
rr = next(w for w in d["workloads"] if w["name"] == "rr")
base, slow = rr["runs"]
for k in ("knee", "knee_band", "peak", "sustained", "sustained_latency_us", "max", "knee_text"):
    assert k in base, (k, base)
assert base["knee"] is not None and slow["knee"] is not None, rr
# The text's knee row: "| rr | 4500.0 (..) | 3200.0 (..) | -28.9% | beyond noise |"
row = next(l for l in text.splitlines() if l.startswith("| rr | ") and "noise" in l)
cells = [c.strip() for c in row.strip("|").split("|")]
assert cells[1] == base["knee_text"] and cells[2] == slow["knee_text"], (cells, base, slow)
assert cells[3] == slow["change"]["knee_change"], (cells, slow["change"])
assert abs(float(cells[3].rstrip("%")) - slow["change"]["knee_pct"]) < 0.051, (cells, slow)
assert cells[4] == slow["change"]["knee_noise"] == "beyond noise", cells
peak = next(l for l in text.splitlines() if l.startswith("| rr | peak |"))
pc = [c.strip() for c in peak.strip("|").split("|")]
num = lambda s: float(s.replace(",", ""))
assert abs(num(pc[2]) - base["peak"]) <= 1, (pc, base)
assert abs(float(pc[4].rstrip("%")) - slow["change"]["peak_pct"]) < 0.051, (pc, slow)
assert any(re.fullmatch(r"sim service_time 1(\.0+)?ms vs 1\.50*ms", x) for x in d["setup_diff"][0]["differences"]), d["setup_diff"]
g = d["gate"]
assert g["breached"] and g["exit_status"] == 4, g
assert g["undecided"] == 0, g
assert any(r["breach"] and r["workload"] == "rr" and r["change_pct"] < -5 and r["change_bound"] is None for r in g["results"]), g
print(f"# json: knee {base['knee']} -> {slow['knee']} ({slow['change']['knee_pct']}%), peak {base['peak']} -> {slow['peak']}")
PY
ok "--json: the knee, band, change, noise, peak and setup diff of the text, and the gate"

# --table: three runs as columns, in markdown and in JSON.
"$IOCURVE" compare --table "$T/base" "$T/again" "$T/slow" --out "$T/cmp7" > "$T/table.out" 2>&1 ||
	{ cat "$T/table.out"; fail "compare --table"; }
sed 's/^/# /' "$T/table.out"
check "--table: a column per run" grep -q "^| Workload | unit | $T/base | $T/again | $T/slow |$" "$T/table.out"
check "--table: cells carry knee with band, peak and sustained" \
	grep -Eq "^\| rr \| ops/s \| knee [0-9.]+ \([0-9.]+-[0-9.]+\); peak [0-9,.]+; sustained [0-9,.]+ at [0-9.]+ us \|" "$T/table.out"
"$IOCURVE" compare --table --json "$T/base" "$T/again" "$T/slow" --out "$T/cmp8" > "$T/table.json" ||
	fail "compare --table --json"
check "--table --json: three runs per workload" \
	python3 -c "import json,sys; d=json.load(open('$T/table.json')); assert all(len(w['runs'])==3 for w in d['workloads'])"
# tools/ci-example as a CI job would run it: the slower sim against the baseline fails
# the job with the gate's status, naming the breach.
rc=0
(cd "$T" && PATH="$(dirname "$IOCURVE"):$PATH" sh "$IOCURVE_SOURCE/tools/ci-example" \
	"$T/slow.yaml" "$T/base") > "$T/ci.out" 2>&1 || rc=$?
check "tools/ci-example fails a slower run with the gate's status 4, naming the breach" \
	sh -c "test $rc -eq 4 && grep -q 'breach: rr: knee' '$T/ci.out'"
echo "# compare-gate: all passed"
