#!/bin/sh
# SPDX-License-Identifier: MIT
# An agent that cannot join says why and what fixes it: wrong CA (either way), nothing
# listening, missing files, another agent's certificate; it gives up (status 1) where
# retrying cannot help, and keeps trying where it can.
. "$(dirname "$0")/lib.sh"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" a1 > /dev/null
"$IOCURVE" certs init "$T/other" > /dev/null
"$IOCURVE" certs agent "$T/other" a1 > /dev/null
mkdir -p "$T/data"
PORT=$(free_port)
"$IOCURVE" serve --listen "127.0.0.1:$PORT" --tls "$T/ca" --control "$T/ctl.sock" \
	--results "$T/results" 2> "$T/serve.log" &
PIDS="$PIDS $!"
wait_for "$T/serve.log" "control socket" 10 || { cat "$T/serve.log"; fail "serve starts"; }

agent() { # agent LOG TLSDIR [PORT]: run an agent to its end (at most 30 s); prints its status
	status=0
	timeout 30 "$IOCURVE_AGENT" --coordinator "127.0.0.1:${3:-$PORT}" --tls "$2" --name a1 \
		--allow "$T/data" 2> "$1" || status=$?
	echo "$status"
}

# The agent's ca.crt is another CA's: it cannot trust the coordinator.
status=$(agent "$T/wrongca.log" "$T/other")
cat "$T/wrongca.log" | tail -2 | sed 's/^/# /'
check "wrong CA: the agent gives up with status 1" test "$status" -eq 1
check "wrong CA: it says to copy ca.crt from the coordinator's directory" \
	grep -q "does not trust (.*certificate verify failed.*copy ca.crt from the coordinator's certificate directory" "$T/wrongca.log"
check "wrong CA: after 5 attempts" grep -q "giving up after 5 attempts" "$T/wrongca.log"

# The agent trusts the coordinator, but its own certificate is from another CA.
mkdir "$T/mixed"
cp "$T/ca/ca.crt" "$T/mixed/"
cp "$T/other/a1.crt" "$T/other/a1.key" "$T/mixed/"
status=$(agent "$T/ourcert.log" "$T/mixed")
cat "$T/ourcert.log" | tail -1 | sed 's/^/# /'
check "foreign agent certificate: the agent gives up with status 1" test "$status" -eq 1
check "foreign agent certificate: it says how to make one the coordinator accepts" \
	grep -q "does not accept this agent's certificate.*iocurve certs agent DIR a1" "$T/ourcert.log"

# Nothing listens: a coordinator may still come, so the agent keeps trying.
DEAD=$(free_port)
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$DEAD" --tls "$T/ca" --name a1 --allow "$T/data" \
	2> "$T/refused.log" &
REFUSED=$!
PIDS="$PIDS $REFUSED"
wait_for "$T/refused.log" "nothing listens at 127.0.0.1:$DEAD (Connection refused)" 10 ||
	{ cat "$T/refused.log"; fail "closed port: named as such, not as a TLS failure"; }
ok "closed port: named as such, not as a TLS failure"
check "closed port: no word of TLS" sh -c "! grep -q 'TLS handshake' '$T/refused.log'"
sleep 3
check "closed port: the agent is still trying after 3 s" kill -0 "$REFUSED"
kill -TERM "$REFUSED"
wait_exit "$REFUSED" 10 || true

# Files missing, or another agent's certificate under this name: refused at start.
mkdir "$T/empty"
status=$(agent "$T/missing.log" "$T/empty")
check "missing certificate: status 1" test "$status" -eq 1
check "missing certificate: it says how to make one" \
	grep -q "a1.crt: cannot load certificate: No such file or directory (make the agent's certificate with \`iocurve certs agent DIR NAME\`" "$T/missing.log"
"$IOCURVE" certs agent "$T/ca" b2 > /dev/null
mkdir "$T/renamed"
cp "$T/ca/ca.crt" "$T/renamed/"
cp "$T/ca/b2.crt" "$T/renamed/a1.crt"
cp "$T/ca/b2.key" "$T/renamed/a1.key"
status=$(agent "$T/renamed.log" "$T/renamed")
check "another agent's certificate: status 1" test "$status" -eq 1
check "another agent's certificate: named" \
	grep -q "a1.crt: is the certificate of 'b2', not of 'a1' (--name)" "$T/renamed.log"
check "the coordinator never welcomed any of them" sh -c "! grep -q 'agent a1: clock offset' '$T/serve.log'"
echo "# agent-errors: all passed"
