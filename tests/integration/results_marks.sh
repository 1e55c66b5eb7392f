#!/bin/sh
# SPDX-License-Identifier: MIT
# The `running` marks a daemon finds in its results root are input like any other:
# a mark with an id outside [1, 2^24] or a name that is not a campaign name is ignored
# with a warning naming its path (an id of 4294967295 once wrapped the next id to 0
# and the next submission printed an empty error); escape sequences planted in a
# mark's start or a recorded end's reason never reach the terminal through `status`.
. "$(dirname "$0")/lib.sh"

: "${IOCURVE_SWARM:?set by meson test}"
ESC=$(printf '\033')
R=$T/res
mkdir -p "$R/wrap" "$R/evil" "$R/evilstart" "$R/ended" "$R/ok"
printf '4294967295\nwrap\n2026-01-01T00:00:00Z\n' > "$R/wrap/running"
printf '7\nevil%s]0;pwned\a%s[2J\n2026-01-01T00:00:00Z\n' "$ESC" "$ESC" > "$R/evil/running"
printf '8\nevilstart\n2026%s[2J%s]0;owned\a\n' "$ESC" "$ESC" > "$R/evilstart/running"
printf '9\nended\n2026-01-01T00:00:00Z\n' > "$R/ended/running"
printf 'failed\nreason %s]0;pwned\a%s[31mred\n' "$ESC" "$ESC" > "$R/.ended.ended"
printf '5\nok\n2026-01-01T00:00:00Z\n' > "$R/ok/running"

"$IOCURVE" certs init "$T/ca" > /dev/null
PORT=$(free_port)
SOCK=$T/ctl.sock
"$IOCURVE" serve --listen "127.0.0.1:$PORT" --tls "$T/ca" --control "$SOCK" \
	--results "$R" 2> "$T/serve.log" &
SERVE=$!
PIDS="$PIDS $SERVE"
wait_for "$T/serve.log" "control socket" 10 || { cat "$T/serve.log"; fail "serve starts"; }
check "the mark with id 4294967295 is ignored, named with its path" \
	grep -q "$R/wrap/running: not a mark this daemon wrote (id 4294967295 is outside \[1, 16777216\]): ignored" "$T/serve.log"
check "the mark whose name holds escapes is ignored, its path shown escaped" \
	grep -q "$R/evil/running: not a mark this daemon wrote (its name is not a campaign name" "$T/serve.log"
check "no escape byte reaches the log" sh -c "! grep -q '$ESC' '$T/serve.log'"
"$IOCURVE" status --coordinator "$SOCK" > "$T/status.out" 2>&1 || { cat "$T/status.out"; fail "status answers"; }
check "no escape byte reaches the terminal through status" sh -c "! grep -q '$ESC' '$T/status.out'"
check "the planted start is shown escaped" grep -q '2026\\x1b\[2J\\x1b\]0;owned\\x07' "$T/status.out"
check "the recorded end's reason is shown escaped" grep -q 'reason \\x1b\]0;pwned\\x07\\x1b\[31mred' "$T/status.out"
check "the good mark is listed as interrupted" grep -q '^5 *ok *interrupted' "$T/status.out"

# The next campaign numbers on from the largest valid id (9), not from 4294967295.
"$IOCURVE_SWARM" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --agents 1 --prefix m \
	> "$T/swarm.out" 2> "$T/swarm.log" &
PIDS="$PIDS $!"
cat > "$T/c.yaml" <<YAML
campaign: next
agents: {select: {count: 1}, wait: 30s}
target: {sim: {servers: 4, service_time: 200us}}
interval: 500ms
warmup: 500ms
measure: 1s
workloads:
  - {name: rr, rw: randread, block_size: 4KiB, load: {steps: [200]}}
YAML
"$IOCURVE" run "$T/c.yaml" --coordinator "$SOCK" > "$T/run.out" 2> "$T/run.err" ||
	{ cat "$T/run.err"; fail "a campaign runs beside the planted marks"; }
check "it is campaign 10" grep -q "campaign 10 (next) submitted" "$T/serve.log"
# Control requests' numbers are checked where they enter too.
for verb in cancel resume; do
	if "$IOCURVE" "$verb" 4294967295 --coordinator "$SOCK" > "$T/$verb.out" 2>&1; then
		fail "$verb of campaign 4294967295 is refused"
	fi
	check "$verb 4294967295 is refused naming the bound" \
		grep -q "campaign id 4294967295 is outside \[1, 16777216\]" "$T/$verb.out"
done
echo "# results-marks: all passed"
