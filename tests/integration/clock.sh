#!/bin/sh
# SPDX-License-Identifier: MIT
# Clock sync, known answers. Three agents on this host, two of them with a test clock
# skew (an offset and +-100 ppm of drift, IOCURVE_TEST_CLOCK_SKEW): every step starts
# within 1 ms on the real clock (the recorded agent-clock starts brought back with the
# known skews), and within 1 ms by the coordinator's own conversion (on a host so busy
# that the recorded uncertainties pass half a millisecond, within the two largest of
# them together, what the product then says it can promise); every start lies within its
# own recorded uncertainty, always; the drift is found.
# A lying agent (Pongs with t3 = t2 - 2^61) is refused, by name, and moves no one.
# CLOCK_STEPS sets the campaign's length (the 'long' suite runs about 2 minutes).
. "$(dirname "$0")/lib.sh"

: "${LYING_AGENT:?set by meson test}"
STEPS=${CLOCK_STEPS:-12}
SKEW2="7000000000,100"
SKEW3="-3000000000,-100"

daemon_certs a1 a2 a3 liar
daemon_serve "$T/serve.log" "$T/results"
# The liar comes first, so it would be the first agent claimed if it were taken.
"$LYING_AGENT" "127.0.0.1:$PORT" "$T/ca" liar zone=z1 2> "$T/liar.log" &
PIDS="$PIDS $!"
wait_for "$T/serve.log" "agent liar: clock sample refused" 10 ||
	{ cat "$T/serve.log"; fail "the lying agent's samples are refused"; }
ok "the lying agent's clock samples are refused, by name"
check "the reason is the impossible round trip" \
	grep -q "agent liar: clock sample refused: a round trip of zero or less" "$T/serve.log"
mkdir -p "$T/data"
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name a1 --allow "$T/data" \
	--label zone=z1 2> "$T/a1.log" &
PIDS="$PIDS $!"
IOCURVE_TEST_CLOCK_SKEW=$SKEW2 "$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" \
	--name a2 --allow "$T/data" --label zone=z1 2> "$T/a2.log" &
PIDS="$PIDS $!"
IOCURVE_TEST_CLOCK_SKEW=$SKEW3 "$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" \
	--name a3 --allow "$T/data" --label zone=z1 2> "$T/a3.log" &
PIDS="$PIDS $!"
for a in a1 a2 a3; do
	wait_for "$T/serve.log" "agent $a: clock offset" 15 || fail "agent $a joins"
done

LIST=$(python3 -c "print(', '.join(['1000'] * $STEPS))")
cat > "$T/clock.yaml" <<YAML
campaign: clock
agents: {select: {count: 3, labels: {zone: z1}}, wait: 20s}
target: {sim: {servers: 4, service_time: 200us}}
interval: 500ms
warmup: 500ms
measure: 1s
workloads:
  - {name: rr, rw: randread, load: {steps: [$LIST]}}
YAML
START=$(date +%s)
"$IOCURVE" run "$T/clock.yaml" --coordinator "$SOCK" > "$T/run.out" 2>&1 &
RUN=$!
sleep 2
# The daemon answers while the liar stays connected.
check "status answers within 1 s with the liar connected" \
	sh -c "timeout 1 '$IOCURVE' status --coordinator '$SOCK' > /dev/null"
wait_exit "$RUN" $((STEPS * 6 + 60)) || { cat "$T/run.out"; fail "the campaign completes"; }
ok "the campaign completes in $(($(date +%s) - START)) s with the liar connected"
"$IOCURVE" agents --coordinator "$SOCK" > "$T/agents.out"
cat "$T/agents.out"
check "agents shows the liar's refused samples and no offset for it" \
	awk '$1 == "liar" && $9 >= 8 && $6 == "0.000" { f = 1 } END { exit !f }' "$T/agents.out"
check "agents shows a2's drift near +100 ppm and an uncertainty under 1 ms" \
	awk '$1 == "a2" && $8 > 90 && $8 < 110 && $7 > 0 && $7 < 1 { f = 1 } END { exit !f }' \
	"$T/agents.out"
check "agents shows a3's drift near -100 ppm" \
	awk '$1 == "a3" && $8 > -110 && $8 < -90 { f = 1 } END { exit !f }' "$T/agents.out"

JSONL=$(ls "$T"/results/clock-*/intervals.jsonl)
python3 - "$JSONL" "$STEPS" "$SKEW2" "$SKEW3" > "$T/skew.out" <<'PY' || { cat "$T/skew.out"; fail "step starts within 1 ms"; }
import json, sys
path, steps, skew2, skew3 = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
skews = {"a1": (0, 0.0)}
for name, text in (("a2", skew2), ("a3", skew3)):
    off, ppm = text.split(",")
    skews[name] = (int(off), float(ppm))
def real(agent, wire):  # the agent's reported time on the host's real clock
    off, ppm = skews[agent]
    return (wire - off) / (1 + ppm * 1e-6)
starts = {}
import ivlines
for o in ivlines.lines(path):
    if "clock" in o:
        starts.setdefault(o["step"], {})[o["agent"]] = o["clock"]
assert len(starts) == steps, f"{len(starts)} steps with clock lines, expected {steps}"
worst_real = worst_conv = worst_unc = worst_err = 0
outside = total = 0
# what the product says it can promise: 1 ms, or, where a busy host left its clock
# samples less certain than that, the two largest recorded uncertainties together
bound = 1e6
for step, by in sorted(starts.items()):
    assert sorted(by) == ["a1", "a2", "a3"], by
    r = [real(a, c["start_agent_ns"]) for a, c in by.items()]
    v = [c["start_ns"] for c in by.values()]
    unc = sorted(c["uncertainty_ns"] for c in by.values())
    bound = max(bound, unc[-1] + unc[-2])
    worst_real = max(worst_real, max(r) - min(r))
    worst_conv = max(worst_conv, max(v) - min(v))
    worst_unc = max(worst_unc, max(c["uncertainty_ns"] for c in by.values()))
    # planned_ns is on the coordinator's clock, the host's real one: the true error.
    for a, c in by.items():
        err = abs(real(a, c["start_agent_ns"]) - c["planned_ns"])
        worst_err = max(worst_err, err)
        outside += err > c["uncertainty_ns"]
        total += 1
drift = [starts[s]["a2"]["drift_ppm"] for s in sorted(starts)][-1]
print(f"steps {steps}: real-clock start spread max {worst_real/1e3:.1f} us, "
      f"coordinator-converted spread max {worst_conv/1e3:.1f} us, "
      f"uncertainty max {worst_unc/1e3:.1f} us, a2 drift at the last step {drift:+.2f} ppm; "
      f"per-agent true error max {worst_err/1e3:.1f} us, over its uncertainty {outside}/{total}")
if bound > 1e6:
    print(f"# the host was busy: recorded uncertainties allow a spread of {bound/1e3:.1f} us")
assert worst_real < bound, "real-clock spread over what the recorded uncertainties allow"
assert worst_conv < bound, "converted spread over what the recorded uncertainties allow"
assert worst_unc < 1e6, "uncertainty over 1 ms"
# The stamps bracket the true times (t1 before the write, t4 after the read), so the
# uncertainty is a bound, not a guess.
assert outside == 0, "a start off by more than its recorded uncertainty"
PY
cat "$T/skew.out"
ok "every step starts within 1 ms on the real clock and by the coordinator's conversion"
# report reads past the clock lines: the same files as from the intervals without them.
DIR=$(dirname "$JSONL")
cp -r "$DIR" "$T/noclock"
grep -v '"clock":' "$JSONL" > "$T/noclock/intervals.jsonl"
"$IOCURVE" report "$DIR" > "$T/report1.out" 2>&1 || { cat "$T/report1.out"; fail "report reads clock lines"; }
"$IOCURVE" report "$T/noclock" > "$T/report2.out" 2>&1 || fail "report without clock lines"
for f in summary.txt summary.json report.html; do
	check "report's $f is the same with or without clock lines" cmp -s "$DIR/$f" "$T/noclock/$f"
done
