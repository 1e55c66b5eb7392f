# SPDX-License-Identifier: MIT
# Shared helpers for the integration scripts: temp dir, checks, free ports, waiting.
set -eu

: "${IOCURVE:?set by meson test}"
: "${IOCURVE_AGENT:?set by meson test}"

T=$(mktemp -d /var/tmp/iocurve-test.XXXXXX)
# The scripts' Python reads intervals.jsonl through ivlines.py (void retried attempts dropped).
PYTHONPATH="$(cd "$(dirname "$0")" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
PIDS=""
FAILED=0

cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null || true; done
	for p in $PIDS; do wait "$p" 2>/dev/null || true; done
	if [ "$FAILED" -eq 0 ]; then rm -rf "$T"; else echo "# kept $T for inspection"; fi
}
trap cleanup EXIT

ok() { echo "ok - $*"; }
fail() {
	echo "not ok - $*"
	FAILED=1
	exit 1
}
check() { # check "description" command...
	desc=$1
	shift
	if "$@"; then ok "$desc"; else fail "$desc"; fi
}

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# wait_for FILE PATTERN SECONDS: until grep finds PATTERN in FILE.
wait_for() {
	n=0
	while ! grep -q -- "$2" "$1" 2>/dev/null; do
		n=$((n + 1))
		[ "$n" -gt $(($3 * 10)) ] && return 1
		sleep 0.1
	done
	return 0
}

# wait_exit PID SECONDS: until the process is gone; returns its status, 124 on timeout.
wait_exit() {
	n=0
	while kill -0 "$1" 2>/dev/null; do
		n=$((n + 1))
		if [ "$n" -gt $(($2 * 10)) ]; then return 124; fi
		# Reap zombies of our own children.
		if [ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" = "Z" ]; then break; fi
		sleep 0.1
	done
	wait "$1"
}

# A daemon of the test's own: daemon_certs NAME... makes the CA ($T/ca) and the agents'
# certificates, with a free PORT and the control socket SOCK ($T/ctl.sock); daemon_serve
# LOG RESULTS [OPTION...] starts `iocurve serve` there (again after a kill: the same port and socket;
# SERVE its pid); daemon_agents LOG NAME... starts the agents, each allowed $T/data, and
# waits until each has joined.
daemon_certs() {
	"$IOCURVE" certs init "$T/ca" > /dev/null
	"$IOCURVE" certs agent "$T/ca" "$@" > /dev/null
	PORT=$(free_port)
	SOCK=$T/ctl.sock
}
daemon_serve() { # daemon_serve LOG RESULTS [OPTION...]
	log=$1 results=$2
	shift 2
	"$IOCURVE" serve --listen "127.0.0.1:$PORT" --tls "$T/ca" --control "$SOCK" \
		--results "$results" "$@" 2> "$log" &
	SERVE=$!
	PIDS="$PIDS $SERVE"
	wait_for "$log" "control socket" 10 || { cat "$log"; fail "serve starts"; }
}
# serve_for_swarm: a CA in $T/ca and a serve daemon on $PORT and $SOCK, results in
# $T/res, log in $T/serve.log (SERVE its pid): what agents of the swarm dial.
serve_for_swarm() {
	"$IOCURVE" certs init "$T/ca" > /dev/null
	PORT=$(free_port)
	SOCK=$T/ctl.sock
	mkdir -p "$T/res"
	daemon_serve "$T/serve.log" "$T/res"
}
# swarm NAME N [SWARM OPTION...]: N swarm sessions named NAME-0000i dialling
# serve_for_swarm's daemon; waits until all are idle (SWARM: its pid).
swarm() {
	name=$1
	n=$2
	shift 2
	"$IOCURVE_SWARM" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --agents "$n" \
		--prefix "$name" --median-us 200 --sigma 0.3 "$@" > "$T/$name.out" 2> "$T/$name.log" &
	SWARM=$!
	PIDS="$PIDS $SWARM"
	k=0
	while [ "$("$IOCURVE" agents --coordinator "$SOCK" | grep -c "^$name-.* idle ")" -lt "$n" ]; do
		k=$((k + 1))
		[ "$k" -gt 300 ] && { cat "$T/$name.log"; fail "$n $name agents join"; }
		sleep 0.2
	done
}
daemon_agents() { # daemon_agents LOG NAME...
	log=$1
	shift
	mkdir -p "$T/data"
	for a in "$@"; do
		"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name "$a" \
			--allow "$T/data" 2> "$T/$a.log" &
		PIDS="$PIDS $!"
	done
	for a in "$@"; do
		wait_for "$log" "agent $a: clock offset" 15 || fail "agent $a joins"
	done
}

# sim_campaign NAME [KEY=VALUE]...: a campaign on the simulated device, to stdout, in
# the shape most tests share (below); each KEY=VALUE replaces a top-level key or adds
# one (VALUE in YAML flow style; empty drops the key), in the order first given.
sim_campaign() {
	name=$1
	shift
	printf '%s\n' "campaign=$name" "agents={local: 1}" \
		"target={sim: {servers: 4, service_time: 1ms}}" "workers=1" "queue_depth=16" \
		"interval=200ms" "warmup=200ms" "measure=600ms" "slo={latency: 5ms}" \
		"workloads=[{name: a, rw: randread, load: {steps: [500, 1000, 1500, 2000]}}, {name: b, rw: randread, load: {steps: [800, 1600]}}]" \
		"$@" | awk '{
		i = index($0, "="); k = substr($0, 1, i - 1); v = substr($0, i + 1)
		if (!(k in val)) order[n++] = k
		val[k] = v
	} END { for (j = 0; j < n; j++) if (val[order[j]] != "") print order[j] ": " val[order[j]] }'
}
# The agents of a running serve for sim_campaign: agents=$(daemon_select N).
daemon_select() { echo "{select: {count: $1}, wait: 30s}"; }

# run_workers RUN AGENT: the worker PIDs of the local agent named AGENT of `iocurve run`
# RUN, found once they are forked (at Prepare; up to 10 s); "" when RUN ended first.
run_workers() {
	_w=""
	_i=0
	while [ -z "$_w" ] && [ "$_i" -lt 200 ] && kill -0 "$1" 2> /dev/null; do
		for _a in $(pgrep -P "$1" -f -- "--name $2( |\$)"); do
			_w="$_w $(pgrep -P "$_a" || true)"
		done
		_w=$(echo $_w)
		_i=$((_i + 1))
		sleep 0.05
	done
	echo "$_w"
}

# hold_workers RUN "PIDS" STOP RUNNING: while RUN lives, stop PIDS with SIGSTOP for STOP
# seconds and let them run for RUNNING (a client its hypervisor holds); run it with &.
hold_workers() {
	while kill -0 "$1" 2> /dev/null; do
		kill -STOP $2 2> /dev/null
		sleep "$3"
		kill -CONT $2 2> /dev/null
		sleep "$4"
	done
}

# joined_txt FILE: summary.txt with its wrapped prose joined (summarytxt.py), one logical
# line per line, and every line of it within 120 characters (or it fails).
joined_txt() {
	python3 -c 'import sys, summarytxt; print(summarytxt.joined(sys.argv[1]))' "$1"
}

# txt_grep FILE GREP-ARGS...: grep summary.txt's joined lines (joined_txt).
txt_grep() {
	f=$1
	shift
	joined_txt "$f" | grep "$@"
}

# mismatches DIR: the fleet's mismatches over the run (the merged lines of intervals.jsonl).
mismatches() {
	python3 - "$1/intervals.jsonl" <<'PY'
import json, sys
n = 0
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("agent") == "*" and "ops" in o:
        n += o["mismatches"]
print(n)
PY
}
