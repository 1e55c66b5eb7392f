#!/bin/sh
# SPDX-License-Identifier: MIT
# Certificates the coordinator refuses although its CA signed them: a name `iocurve certs`
# would not issue, and names or serials in DIR/revoked, read at start and on SIGHUP.
. "$(dirname "$0")/lib.sh"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" good other > /dev/null
printf '# revoked agents\n\n' > "$T/ca/revoked"
mkdir -p "$T/data"

PORT=$(free_port)
"$IOCURVE" serve --listen "127.0.0.1:$PORT" --tls "$T/ca" --control "$T/ctl.sock" 2> "$T/serve.log" &
SERVE=$!
PIDS="$PIDS $SERVE"
wait_for "$T/serve.log" "listening for agents" 10 || { cat "$T/serve.log"; fail "serve starts"; }
check "the revocation list is read at start" grep -q "revocation list $T/ca/revoked: 0 entries" "$T/serve.log"

# agent NAME LOG [DIR]: start an agent in the background; its pid in AG.
agent() {
	"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "${3:-$T/ca}" --name "$1" \
		--allow "$T/data" 2> "$2" &
	AG=$!
	PIDS="$PIDS $AG"
}

agent good "$T/good1.log"
GOOD=$AG
agent other "$T/other1.log"
OTHER=$AG
wait_for "$T/serve.log" "agent good joined" 10 || fail "good joins"
wait_for "$T/serve.log" "agent other joined" 10 || fail "other joins"
ok "both agents join"

# A name, with a comment: on SIGHUP the connected agent is dropped, and stays down.
printf '# revoked agents\ngood   # lost laptop\n' > "$T/ca/revoked"
kill -HUP "$SERVE"
wait_for "$T/serve.log" "revocation list $T/ca/revoked: 1 entry" 5 || fail "SIGHUP reads the list again"
ok "SIGHUP reads the list again"
wait_for "$T/serve.log" "refusing agent good at .*: certificate revoked (serial [0-9A-F]*)" 5 ||
	{ cat "$T/serve.log"; fail "the connected revoked agent is dropped"; }
ok "the connected revoked agent is dropped"
check "and is reported lost" grep -q "agent good (.*) lost: certificate revoked" "$T/serve.log"
wait_for "$T/good1.log" "the coordinator refused this agent: certificate revoked" 5 ||
	{ cat "$T/good1.log"; fail "the agent is told why"; }
ok "the agent is told why"
wait_exit "$GOOD" 10 && fail "a refused agent exits non-zero" || true
ok "the refused agent stops dialling"
check "the other agent stays" sh -c "! grep -q 'refusing agent other' '$T/serve.log'"

# Dialling again: refused at Hello.
agent good "$T/good2.log"
wait_for "$T/good2.log" "the coordinator refused this agent: certificate revoked" 10 ||
	{ cat "$T/good2.log"; fail "a revoked agent is refused at Hello"; }
ok "a revoked agent is refused at Hello"
wait_exit "$AG" 10 || true
check "it never joins again" test "$(grep -c 'agent good joined' "$T/serve.log")" -eq 1

# A serial (as openssl prints it, with colons and in lower case): the same.
SERIAL=$(openssl x509 -in "$T/ca/other.crt" -noout -serial | sed 's/^serial=//')
echo "$SERIAL" | tr 'A-F' 'a-f' | sed 's/\(..\)/\1:/g; s/:$//' >> "$T/ca/revoked"
kill -HUP "$SERVE"
wait_for "$T/serve.log" "refusing agent other at .*: certificate revoked (serial $SERIAL)" 5 ||
	{ cat "$T/ca/revoked" "$T/serve.log"; fail "a revoked serial drops its agent"; }
ok "a revoked serial drops its agent ($SERIAL)"
wait_exit "$OTHER" 10 || true

# A list that cannot be read as names and serials leaves the old one in force.
printf 'good\nnot a name\n' > "$T/ca/revoked"
kill -HUP "$SERVE"
wait_for "$T/serve.log" "revoked:2: 'not a name' is neither an agent name nor a hex serial; the previous revocation list stays in force" 5 ||
	{ cat "$T/serve.log"; fail "a bad list is refused, the old one kept"; }
ok "a bad list is refused, the old one kept"

# Off the list, the agent is welcome again.
: > "$T/ca/revoked"
kill -HUP "$SERVE"
wait_for "$T/serve.log" "revocation list $T/ca/revoked: 0 entries" 5 || fail "the list is emptied"
agent good "$T/good3.log"
n=0
until [ "$(grep -c 'agent good joined' "$T/serve.log")" -eq 2 ]; do
	n=$((n + 1))
	[ "$n" -gt 100 ] && { cat "$T/good3.log"; fail "an agent off the list joins again"; }
	sleep 0.1
done
ok "an agent off the list joins again"
kill -TERM "$AG"
wait_exit "$AG" 10 || true

# A certificate from our CA whose name `iocurve certs agent` would never issue.
mkdir "$T/odd"
printf 'extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n' > "$T/odd/ext"
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=bad name" \
	-keyout "$T/odd/good.key" -out "$T/odd/good.csr" 2> /dev/null
openssl x509 -req -in "$T/odd/good.csr" -CA "$T/ca/ca.crt" -CAkey "$T/ca/ca.key" \
	-CAcreateserial -days 1 -extfile "$T/odd/ext" -out "$T/odd/good.crt" 2> /dev/null ||
	fail "openssl signs a certificate"
cp "$T/ca/ca.crt" "$T/odd/"
# iocurve-agent itself refuses a certificate whose name is not its --name; the test
# agent does not, so it shows the coordinator's own check.
: "${LYING_AGENT:?set by meson test}"
"$LYING_AGENT" "127.0.0.1:$PORT" "$T/odd" good 2> "$T/odd.log" &
AG=$!
PIDS="$PIDS $AG"
wait_for "$T/serve.log" "refusing agent bad name at .*: certificate name 'bad name' is not a valid agent name" 10 ||
	{ cat "$T/serve.log" "$T/odd.log"; fail "a certificate name outside the rule is refused"; }
ok "a certificate name outside the rule is refused"
kill -TERM "$AG" 2> /dev/null || true
wait_exit "$AG" 10 || true
check "it never joined" sh -c "! grep -q 'agent bad name joined' '$T/serve.log'"

kill -TERM "$SERVE"
wait_exit "$SERVE" 10 || fail "serve exits"
echo "# revoke: all passed"
