#!/bin/sh
# SPDX-License-Identifier: MIT
# A certificate is one agent's: a client holding node-a's certificate and key (a node
# with a neighbour's copy) that says Hello as node-b is refused, by both names, and
# neither node-a's nor node-b's session is replaced. The real agent will not dial with
# a certificate that is not its --name's.
. "$(dirname "$0")/lib.sh"
: "${LYING_AGENT:?set by meson test}"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" node-a node-b > /dev/null
mkdir -p "$T/data" "$T/impostor"
# node-a's pair under node-b's file names, beside the fleet's ca.crt.
cp "$T/ca/ca.crt" "$T/impostor/"
cp "$T/ca/node-a.crt" "$T/impostor/node-b.crt"
cp "$T/ca/node-a.key" "$T/impostor/node-b.key"

PORT=$(free_port)
"$IOCURVE" serve --listen "127.0.0.1:$PORT" --tls "$T/ca" --control "$T/ctl.sock" \
	--results "$T/results" 2> "$T/serve.log" &
PIDS="$PIDS $!"
wait_for "$T/serve.log" "listening for agents" 10 || { cat "$T/serve.log"; fail "serve starts"; }

for n in node-a node-b; do
	"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name "$n" \
		--allow "$T/data" 2> "$T/$n.log" &
	PIDS="$PIDS $!"
	wait_for "$T/serve.log" "agent $n joined" 10 || { cat "$T/serve.log"; fail "$n joins"; }
done
ok "node-a and node-b join under their own certificates"

# The real agent checks its certificate against --name before it dials.
status=0
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/impostor" --name node-b \
	--allow "$T/data" 2> "$T/real-impostor.log" || status=$?
check "the real agent with node-a's certificate as node-b does not start (exit 1)" \
	test "$status" -eq 1
check "and says whose certificate it holds" \
	grep -q "is the certificate of 'node-a', not of 'node-b'" "$T/real-impostor.log"

# A client that skips that check: node-a's certificate, Hello as node-b.
"$LYING_AGENT" "127.0.0.1:$PORT" "$T/impostor" node-b 2> "$T/impostor.log" &
IMP=$!
PIDS="$PIDS $IMP"
wait_for "$T/serve.log" "TLS session from .*certificate CN 'node-a'" 10 ||
	{ cat "$T/serve.log"; fail "the impostor's TLS session is accepted (the CA signed it)"; }
wait_for "$T/serve.log" \
	"refusing agent node-a at .*: certificate identity 'node-a' does not match the claimed name 'node-b'" 10 ||
	{ cat "$T/serve.log"; fail "a Hello naming another agent than the certificate is refused"; }
ok "a Hello naming another agent than the certificate is refused, naming both"
wait_exit "$IMP" 10 || true

IOCURVE_COORDINATOR="$T/ctl.sock" "$IOCURVE" agents > "$T/agents.out"
sed 's/^/# /' "$T/agents.out"
check "node-b's session survives" grep -Eq "^node-b +[^ ]+ +(idle|busy) " "$T/agents.out"
check "node-a's session survives" grep -Eq "^node-a +[^ ]+ +(idle|busy) " "$T/agents.out"
check "no session was replaced or lost" sh -c "! grep -Eq 'replaced by|agent node-[ab] .* lost' '$T/serve.log'"
check "each joined once" test "$(grep -c 'agent node-[ab] joined' "$T/serve.log")" -eq 2
echo "# agent-identity: all passed"
