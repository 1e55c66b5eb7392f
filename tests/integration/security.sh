#!/bin/sh
# SPDX-License-Identifier: MIT
# Mutual TLS and the allow-list, with the real daemons: who gets in, what gets touched.
. "$(dirname "$0")/lib.sh"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" good probe > /dev/null
"$IOCURVE" certs init "$T/other" > /dev/null
"$IOCURVE" certs agent "$T/other" rogue > /dev/null
check "keys are private (0600)" test "$(stat -c %a "$T/ca/good.key")" = 600

# The ports of this test, taken together so they differ: the daemon's, a second daemon's
# and those of the five runs at the end.
read -r PORT PORT2 RUNPORTS <<EOF
$(python3 -c '
import socket
ss = [socket.socket() for _ in range(7)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
EOF
"$IOCURVE" serve --listen "127.0.0.1:$PORT" --tls "$T/ca" --control "$T/ctl.sock" 2> "$T/serve.log" &
SERVE=$!
PIDS="$PIDS $SERVE"
wait_for "$T/serve.log" "listening for agents" 10 || fail "serve starts listening"

# An agent that trusts our CA but holds a certificate from another CA.
mkdir -p "$T/data" "$T/allowed" "$T/rogue"
cp "$T/ca/ca.crt" "$T/other/rogue.crt" "$T/other/rogue.key" "$T/rogue/"
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/rogue" --name rogue \
	--allow "$T/data" 2> "$T/rogue.log" &
ROGUE=$!
PIDS="$PIDS $ROGUE"
wait_for "$T/serve.log" "refused: TLS handshake failed: certificate verify failed: unable to get local issuer" 10 ||
	{ cat "$T/serve.log"; fail "a certificate from another CA is refused, and the log says why"; }
ok "a certificate from another CA is refused, and the log says why"
wait_for "$T/rogue.log" "does not accept this agent's certificate" 10 ||
	{ cat "$T/rogue.log"; fail "the rogue agent sees the refusal"; }
ok "the rogue agent logs the refusal and its fix"
kill "$ROGUE" 2> /dev/null || true

# An agent of another campaign entirely: it does not trust our coordinator either.
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/other" --name rogue \
	--allow "$T/data" 2> "$T/rogue2.log" &
ROGUE=$!
PIDS="$PIDS $ROGUE"
wait_for "$T/rogue2.log" "does not trust (TLS handshake failed: certificate verify failed" 10 ||
	{ cat "$T/rogue2.log"; fail "an agent of another CA refuses our coordinator"; }
ok "an agent of another CA refuses our coordinator"
kill "$ROGUE" 2> /dev/null || true
check "no rogue agent ever joined" sh -c "! grep -q 'agent rogue joined' '$T/serve.log'"

# A plain TCP client speaking no TLS at all.
python3 - "$PORT" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(b"GET / HTTP/1.0\r\n\r\n")
try:
    data = s.recv(4096)
except ConnectionResetError:
    data = b""
# The server answers with no HTTP: at most a TLS alert record (type 0x15), then closes.
assert data == b"" or data[0] == 0x15, data[:40]
PY
ok "a plain TCP client gets no service"
wait_for "$T/serve.log" "refused: TLS handshake failed: .*\(wrong version\|http request\|packet length\)" 10 ||
	{ cat "$T/serve.log"; fail "plain TCP is logged as a failed handshake"; }
ok "plain TCP is logged: $(grep -m1 'http request\|wrong version\|packet length' "$T/serve.log" | sed 's/.*refused: //')"

# The right certificate gets in.
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name good \
	--allow "$T/data" 2> "$T/good.log" &
GOOD=$!
PIDS="$PIDS $GOOD"
wait_for "$T/serve.log" "agent good joined" 10 || fail "an agent with a certificate from the CA joins"
ok "an agent with a certificate from the CA joins"
wait_for "$T/serve.log" "agent good: clock offset" 10 || fail "clock sync completes"
ok "clock sync completes"

# A peer with a good certificate that sends bad frames is cut off, and the log says why.
python3 - "$PORT" "$T/ca" <<'PY' || fail "bad frames over TLS are refused"
import socket, ssl, struct, sys
port, d = int(sys.argv[1]), sys.argv[2]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.minimum_version = ssl.TLSVersion.TLSv1_3
ctx.load_verify_locations(d + "/ca.crt")
ctx.load_cert_chain(d + "/probe.crt", d + "/probe.key")
ctx.check_hostname = False

def session(payload):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        with ctx.wrap_socket(raw) as s:
            s.sendall(payload)
            data = b""
            try:
                while True:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            except (ConnectionResetError, ssl.SSLError):
                pass
            return data

# Over the 16 MiB limit: judged from the header alone.
assert session(struct.pack(">I", 0x7fffffff)) == b""
# A body that is not an Envelope.
assert session(struct.pack(">I", 5) + b"\x07\xff\xff\xff\xff") == b""
# A Hello from another protocol version: a Refuse frame that says why.
hello = b"\x08\x63\x12\x05probe"
env = b"\x0a" + bytes([len(hello)]) + hello
reply = session(struct.pack(">I", len(env)) + env)
assert b"protocol version 99" in reply, reply
print("ok - oversize, garbage and wrong-version frames are refused over TLS")
PY
# Before its Hello is accepted a peer gets 64 KiB frames, not the port's 16 MiB.
wait_for "$T/serve.log" "bad frame: frame of 2147483647 bytes is over the limit of 65536 bytes" 5 ||
	fail "the oversize frame is logged"
ok "the oversize frame is logged"
wait_for "$T/serve.log" "bad frame: frame of 5 bytes is not a valid Envelope" 5 ||
	fail "the garbage frame is logged"
ok "the garbage frame is logged"
wait_for "$T/serve.log" "refusing agent probe .*protocol version 99" 5 ||
	fail "the version mismatch is logged"
ok "the version mismatch is logged"

# The frame limit is configurable: a smaller one is enforced from the header alone.
"$IOCURVE" serve --listen "127.0.0.1:$PORT2" --tls "$T/ca" --control "$T/ctl2.sock" \
	--max-frame 1KiB 2> "$T/serve-small.log" &
SMALL=$!
PIDS="$PIDS $SMALL"
wait_for "$T/serve-small.log" "listening for agents" 10 || fail "serve --max-frame starts"
python3 - "$PORT2" "$T/ca" <<'PY'
import socket, ssl, struct, sys
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.load_verify_locations(sys.argv[2] + "/ca.crt")
ctx.load_cert_chain(sys.argv[2] + "/probe.crt", sys.argv[2] + "/probe.key")
ctx.check_hostname = False
with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5) as raw:
    with ctx.wrap_socket(raw) as s:
        s.sendall(struct.pack(">I", 2000))
        try:
            s.recv(100)
        except (ConnectionResetError, ssl.SSLError):
            pass
PY
wait_for "$T/serve-small.log" "frame of 2000 bytes is over the limit of 1024 bytes" 5 ||
	{ cat "$T/serve-small.log"; fail "serve --max-frame 1KiB refuses a 2000-byte frame"; }
ok "serve --max-frame 1KiB refuses a 2000-byte frame"
kill -TERM "$SMALL"
wait_exit "$SMALL" 10 || fail "the small-frame serve exits"

# SIGTERM: the daemon shuts down cleanly and the agent sees a clean close.
kill -TERM "$SERVE"
wait_exit "$SERVE" 10 || fail "serve exits 0 on SIGTERM"
ok "serve exits 0 on SIGTERM"
wait_for "$T/good.log" "connection to coordinator .* lost: peer closed the connection" 10 ||
	{ cat "$T/good.log"; fail "the agent sees close_notify"; }
ok "the agent sees a clean close (close_notify)"

# The agent keeps dialling (backoff with jitter) and rejoins a restarted coordinator.
"$IOCURVE" serve --listen "127.0.0.1:$PORT" --tls "$T/ca" --control "$T/ctl.sock" 2> "$T/serve2.log" &
SERVE=$!
PIDS="$PIDS $SERVE"
wait_for "$T/serve2.log" "agent good joined" 15 || fail "the agent rejoins a restarted coordinator"
ok "the agent rejoins a restarted coordinator"
kill -TERM "$SERVE"
wait_exit "$SERVE" 10 || fail "serve exits 0 on SIGTERM (again)"
kill -TERM "$GOOD"
wait_exit "$GOOD" 10 || fail "agent exits 0 on SIGTERM"
ok "agent exits 0 on SIGTERM"

# The runs below, each with its own agent 'good' on a port of its own, all at once (the
# two waits first).
# try NAME [AGENT OPTION...]: `run` of $T/NAME.yaml (pid in $T/NAME.run) on the next of
# RUNPORTS, its agent allowed $T/allowed only (pid in $T/NAME.agent).
try() {
	name=$1
	port=${RUNPORTS%% *}
	RUNPORTS=${RUNPORTS#* }
	shift
	"$IOCURVE" run "$T/$name.yaml" --coordinator-listen "127.0.0.1:$port" --tls "$T/ca" \
		--out "$T/$name-results" > "$T/$name.out" 2> "$T/$name.err" &
	echo $! > "$T/$name.run"
	PIDS="$PIDS $!"
	"$IOCURVE_AGENT" --coordinator "127.0.0.1:$port" --tls "$T/ca" --name good "$@" \
		--allow "$T/allowed" 2> "$T/$name-good.log" &
	echo $! > "$T/$name.agent"
	PIDS="$PIDS $!"
}

# Too few agents: the wait ends with a message listing who did come.
cat > "$T/two.yaml" <<YAML
campaign: two
agents: {select: {count: 2}, wait: 2s}
target: {path: $T/allowed/two, size: 4MiB}
workloads:
  - {name: rr, rw: randread, load: {steps: [100]}}
YAML
try two
# Label selection: an agent without the campaign's labels is not taken, and the wait says so.
cat > "$T/labels.yaml" <<YAML
campaign: labels
agents: {select: {count: 1, labels: {zone: a}}, wait: 2s}
target: {path: $T/allowed/labels, size: 4MiB}
workloads:
  - {name: rr, rw: randread, load: {steps: [100]}}
YAML
try labels --label zone=b
# A plan whose target is outside the agent's --allow paths.
mkdir "$T/outside-link-target"
ln -s "$T/outside-link-target" "$T/allowed/escape"
ln -s "$T/nowhere" "$T/allowed/dangling"
k=0
for target in "$T/outside/dir" "$T/allowed/escape/dir" "$T/allowed/dangling/dir"; do
	k=$((k + 1))
	cat > "$T/bad$k.yaml" <<YAML
campaign: bad
agents: {select: {count: 1}, wait: 20s}
target: {path: $target, size: 4MiB}
workloads:
  - {name: rr, rw: randread, load: {steps: [100]}}
YAML
	try "bad$k"
done

k=0
for target in "$T/outside/dir" "$T/allowed/escape/dir" "$T/allowed/dangling/dir"; do
	k=$((k + 1))
	if wait_exit "$(cat "$T/bad$k.run")" 30; then fail "run fails for target $target"; fi
	grep -q "agent good: target $target\( .*is outside the allowed paths ($T/allowed)\|: .*symlink to a path that does not exist\)" "$T/bad$k.err" ||
		{ cat "$T/bad$k.err"; fail "the error names the agent and the path $target"; }
	ok "refused with: $(grep -v '^[0-9]' "$T/bad$k.err" | head -1 | sed 's/^iocurve: //')"
done
if wait_exit "$(cat "$T/two.run")" 20; then fail "run fails when too few agents come"; fi
check "the wait names who came" grep -q "waited for 2 agent(s), 1 ready; connected: good" "$T/two.err"
if wait_exit "$(cat "$T/labels.run")" 20; then fail "run fails when no agent carries the labels"; fi
check "the wait names the agent whose labels do not match" \
	grep -q "connected: good (labels do not match)" "$T/labels.err"
# Their agents stopped, all at once.
for name in bad1 bad2 bad3 two labels; do kill -TERM "$(cat "$T/$name.agent")"; done
for name in bad1 bad2 bad3 two labels; do wait_exit "$(cat "$T/$name.agent")" 10 || true; done

check "nothing was created outside the allowed path" test ! -e "$T/outside"
check "nothing was created through the symlinks" test -z "$(ls -A "$T/outside-link-target")" -a ! -e "$T/nowhere"
echo "# security: all passed"
