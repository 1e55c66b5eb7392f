#!/bin/sh
# SPDX-License-Identifier: MIT
# An embedded run's throw-away keys are on no disk: `iocurve run` with local agents,
# SIGKILLed or SIGTERMed 10, 20, 30, 50, 70 and 100 ms after it starts (while it makes its
# certificates and starts its agents), leaves no file holding a private key under
# /tmp or $TMPDIR, and nothing of it (no agent) outlives it.
. "$(dirname "$0")/lib.sh"

mkdir "$T/tmp"
TMPDIR=$T/tmp
export TMPDIR
cat > "$T/c.yaml" <<YAML
campaign: keys
agents: {local: 2}
target: {sim: {servers: 2, service_time: 100us}}
interval: 100ms
warmup: 100ms
measure: 100ms
workloads:
  - {name: rr, rw: randread, load: {steps: [500, 1000]}}
YAML
# A key anywhere in the private directories of runs PID (earlier versions') or in $TMPDIR.
keys_left() { # keys_left PID
	{
		find /tmp -maxdepth 1 -name "iocurve-run.$1.*" 2> /dev/null | while read -r d; do
			grep -rl "PRIVATE KEY" "$d" 2> /dev/null || echo "$d"
		done
		grep -rl "PRIVATE KEY" "$TMPDIR" 2> /dev/null || true
	} | head -3
}
# iocurve processes started from here (they inherit this TMPDIR). The name is read by the
# shell itself: a process per entry of /proc made one look take seconds on a busy machine.
ours() {
	for p in /proc/[0-9]*; do
		comm=
		{ read -r comm < "$p/comm"; } 2> /dev/null || continue
		case "$comm" in iocurve*) ;; *) continue ;; esac
		{ tr '\0' '\n' < "$p/environ"; } 2> /dev/null | grep -qx "TMPDIR=$TMPDIR" && echo "${p#/proc/}"
	done
}
n=0
for sig in KILL TERM; do
	for ms in 10 20 30 50 70 100; do
		n=$((n + 1))
		"$IOCURVE" run "$T/c.yaml" --out "$T/r$n" > "$T/run$n.out" 2>&1 &
		RUN=$!
		sleep "0.$(printf %03d "$ms")"
		kill -"$sig" "$RUN" 2> /dev/null || true
		wait "$RUN" 2> /dev/null || true
		# Its agents go with it (PDEATHSIG, or stopped in order on SIGTERM).
		i=0
		while [ -n "$(ours)" ] && [ "$i" -lt 100 ]; do
			i=$((i + 1))
			sleep 0.1
		done
		[ -z "$(ours)" ] || fail "SIG$sig at $ms ms: processes of the run outlive it: $(ours)"
		left=$(keys_left "$RUN")
		[ -z "$left" ] || { cat "$T/run$n.out"; fail "SIG$sig at $ms ms: a key is left: $left"; }
		ok "SIG$sig at $ms ms: no private key left on disk"
	done
done
# A whole run with TMPDIR set: its agents join with their in-memory certificates.
"$IOCURVE" run "$T/c.yaml" --out "$T/full" > "$T/full.out" 2>&1 ||
	{ cat "$T/full.out"; fail "a run with TMPDIR set completes"; }
ok "a run with TMPDIR set completes"
check "its agents joined over mutual TLS" grep -q "TLS 1.3, mutual" "$T/full/agent-local-1.log"
check "nothing was written to TMPDIR" test -z "$(ls -A "$TMPDIR")"
