#!/bin/sh
# SPDX-License-Identifier: MIT
# Keys kept as keys: `iocurve serve` and `iocurve-agent` refuse a private key others may
# read (0644, as a copy under the usual umask or an unpacked archive leaves it), naming
# the file and its mode, and start once it is 0600; serve warns when it can read the
# CA's key, which it never needs, and says nothing of it given a directory without one;
# `iocurve run`'s local agents, whose keys are in memory only, are not held to a mode.
. "$(dirname "$0")/lib.sh"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" a1 > /dev/null
check "iocurve certs writes every key 0600" \
	test "$(stat -c %a "$T/ca/ca.key" "$T/ca/coordinator.key" "$T/ca/a1.key" | sort -u)" = 600
# The daemon's directory, as docs/deploy.md makes it: no ca.key.
mkdir "$T/tls" "$T/agent"
cp "$T/ca/ca.crt" "$T/ca/coordinator.crt" "$T/tls/"
cp "$T/ca/ca.crt" "$T/ca/a1.crt" "$T/agent/"
# As `cat KEY > FILE` under umask 022 leaves a copy.
cat "$T/ca/coordinator.key" > "$T/tls/coordinator.key"
cat "$T/ca/a1.key" > "$T/agent/a1.key"
chmod 0644 "$T/tls/coordinator.key" "$T/agent/a1.key"

PORT=$(free_port)
serve() { # serve TLSDIR LOG: serve in the background, pid in SV
	"$IOCURVE" serve --listen "127.0.0.1:$PORT" --tls "$1" --control "$T/ctl.sock" \
		--results "$T/results" 2> "$2" &
	SV=$!
	PIDS="$PIDS $SV"
}
serve "$T/tls" "$T/serve0.log"
status=0
wait_exit "$SV" 10 || status=$?
sed 's/^/# /' "$T/serve0.log"
check "serve refuses a 0644 key: it exits 1" test "$status" -eq 1
check "naming the file and its mode" \
	grep -qF "$T/tls/coordinator.key: private key is readable by others (mode 0644" "$T/serve0.log"

status=0
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/agent" --name a1 --allow "$T" \
	> "$T/agent0.log" 2>&1 || status=$?
sed 's/^/# /' "$T/agent0.log"
check "the agent refuses a 0644 key: it exits 1 (a certificate problem: no restart)" \
	test "$status" -eq 1
check "naming the file and its mode" \
	grep -qF "$T/agent/a1.key: private key is readable by others (mode 0644" "$T/agent0.log"

chmod 0600 "$T/tls/coordinator.key" "$T/agent/a1.key"
serve "$T/tls" "$T/serve1.log"
wait_for "$T/serve1.log" "control socket" 10 || { cat "$T/serve1.log"; fail "serve starts with a 0600 key"; }
ok "serve starts with a 0600 key"
check "and, given no ca.key, says nothing of one" sh -c "! grep -q 'ca.key' '$T/serve1.log'"
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/agent" --name a1 --allow "$T" \
	> "$T/agent1.log" 2>&1 &
AG=$!
PIDS="$PIDS $AG"
check "the agent joins with a 0600 key" wait_for "$T/serve1.log" "agent a1 joined" 10
kill "$AG" "$SV"
wait_exit "$AG" 10 || true
wait_exit "$SV" 10 || true

serve "$T/ca" "$T/serve2.log"
wait_for "$T/serve2.log" "control socket" 10 || { cat "$T/serve2.log"; fail "serve starts from certs init's directory"; }
grep "ca.key" "$T/serve2.log" | sed 's/^/# /'
check "serve warns that it can read the CA's key, naming it" \
	grep -qF "$T/ca/ca.key: the CA's private key is readable by this daemon" "$T/serve2.log"
kill "$SV"
wait_exit "$SV" 10 || true

# Local agents: keys in memory (memfd: mode 0777, no name on disk), not refused.
sim_campaign memkeys "workloads=[{name: a, rw: randread, load: {steps: [500]}}]" \
	"interval=100ms" "warmup=100ms" "measure=200ms" > "$T/c.yaml"
check "iocurve run with local agents (keys in memory only) completes" \
	sh -c "\"$IOCURVE\" run '$T/c.yaml' --out '$T/run' > '$T/run.out' 2>&1 && test -s '$T/run/intervals.jsonl'"
echo "# keys-mode: all passed"
