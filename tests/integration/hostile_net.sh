#!/bin/sh
# SPDX-License-Identifier: MIT
# Hostile networks at the daemon: trickling unauthenticated connections under a low fd
# limit, accept failing with EMFILE, /metrics with endless headers. The daemon's CPU
# (from /proc/PID/stat) stays low and `status` answers.
. "$(dirname "$0")/lib.sh"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" a1 evil > /dev/null
mkdir -p "$T/data"

# start_serve NOFILE: a daemon under that fd limit; sets SERVE, PORT, MPORT, SOCK.
start_serve() {
	PORT=$(free_port)
	MPORT=$(free_port)
	SOCK=$T/ctl-$1.sock
	(ulimit -n "$1" && exec "$IOCURVE" serve --listen "127.0.0.1:$PORT" --tls "$T/ca" \
		--control "$SOCK" --results "$T/results" --metrics ":$MPORT") 2> "$T/serve-$1.log" &
	SERVE=$!
	PIDS="$PIDS $SERVE"
	wait_for "$T/serve-$1.log" "control socket" 10 || { cat "$T/serve-$1.log"; fail "serve starts"; }
}

# flood PORT CONNECTIONS SECONDS OUT: that many TCP connections from 10 loopback addresses,
# each sending one byte every 3 s; writes how many the daemon had closed at the end, and
# the daemon's CPU share over the run, measured from /proc/$SERVE/stat.
flood() {
	python3 - "$1" "$2" "$3" "$SERVE" "$IOCURVE" "$SOCK" > "$4" <<'PY'
import os, socket, subprocess, sys, time
port, n, secs, pid, iocurve, sock = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
tck = os.sysconf("SC_CLK_TCK")
def cpu():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tck
conns = []
for i in range(n):
    s = socket.socket()
    s.bind((f"127.0.0.{2 + i % 10}", 0))
    s.setblocking(False)
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    conns.append(s)
c0, t0 = cpu(), time.monotonic()
closed, status_worst, last = set(), 0.0, -3.0
while time.monotonic() - t0 < secs:
    now = time.monotonic() - t0
    if now - last >= 3:
        last = now
        for i, s in enumerate(conns):
            if i in closed:
                continue
            try:
                s.send(b"\x16")
                s.recv(1)
            except BlockingIOError:
                pass
            except OSError:
                closed.add(i)
            else:
                closed.add(i)  # the server answered (an alert) or closed (EOF)
    a = time.monotonic()
    try:
        subprocess.run([iocurve, "status", "--coordinator", sock], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=3)
    except subprocess.TimeoutExpired:
        pass
    status_worst = max(status_worst, time.monotonic() - a)
    time.sleep(0.5)
share = (cpu() - c0) / (time.monotonic() - t0)
print(f"closed={len(closed)} of={n} cpu_pct={100 * share:.1f} status_worst_s={status_worst:.2f}")
PY
}
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" "$2"; }
below() { python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$1" "$2"; }

# Phase 1: 300 trickling connections, fd limit 256.
start_serve 256
"$IOCURVE_AGENT" --coordinator "127.0.0.1:$PORT" --tls "$T/ca" --name a1 --allow "$T/data" \
	2> "$T/a1.log" &
PIDS="$PIDS $!"
wait_for "$T/serve-256.log" "agent a1: clock offset" 15 || fail "the agent joins"
flood "$PORT" 300 13 "$T/flood1.out"
echo "# 300 trickling connections, nofile 256: $(cat "$T/flood1.out")"
check "every trickling connection was closed (absolute handshake deadline, pending cap)" \
	test "$(field closed "$T/flood1.out")" -eq 300
check "the daemon stayed under 20% CPU" below "$(field cpu_pct "$T/flood1.out")" 20
check "status answered within 1 s throughout" below "$(field status_worst_s "$T/flood1.out")" 1
check "the deadline is logged" grep -q "refused: no Hello (5 s deadline)\|TLS handshake not done in time (5 s deadline)" "$T/serve-256.log"
check "the pending cap is logged" grep -q "too many connections still to say Hello" "$T/serve-256.log"
"$IOCURVE" agents --coordinator "$SOCK" > "$T/agents.out"
check "the agent is still there" grep -q "^a1 " "$T/agents.out"

# Two Watch requests on one control connection, then a disconnect: one watch per
# connection, and no watcher entry outlives its connection (the daemon keeps serving).
cat > "$T/watched.yaml" <<YAML
campaign: watched
agents: {select: {count: 1}, wait: 10s}
target: {sim: {servers: 4, service_time: 500us}}
interval: 500ms
warmup: 500ms
measure: 1s
workloads:
  - {name: rr, rw: randread, load: {steps: [500, 1000, 1500]}}
YAML
"$IOCURVE" run "$T/watched.yaml" --coordinator "$SOCK" > "$T/watched.out" 2>&1 &
RUN=$!
wait_for "$T/watched.out" "submitted" 10 || fail "the campaign is submitted"
python3 - "$SOCK" <<'PY' || fail "a second Watch on one connection is refused"
import socket, struct, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
watch = bytes([0xFA, 0x02, 0x02, 0x08, 0x01])  # Envelope{watch (47): Watch{id: 1}}
s.sendall(struct.pack(">I", len(watch)) + watch)
s.sendall(struct.pack(">I", len(watch)) + watch)
data, t = b"", time.monotonic()
s.settimeout(0.5)
while b"watches a campaign already" not in data and time.monotonic() - t < 5:
    try:
        data += s.recv(65536)
    except socket.timeout:
        pass
s.close()
assert b"watches a campaign already" in data, data[-200:]
print("ok - a second Watch on one connection is refused")
PY
wait_exit "$RUN" 60 || { cat "$T/watched.out"; fail "the watched campaign completes"; }
ok "the watched campaign completes after its watcher left"
check "the daemon is still serving" kill -0 "$SERVE"
"$IOCURVE" status --coordinator "$SOCK" > "$T/status.out" || fail "status after the watcher left"
check "status shows the campaign done" grep -q "^1 .*watched .*complete" "$T/status.out"

# Oversized Hellos from an agent with a good certificate: refused, memory not kept.
python3 - "$PORT" "$T/ca" "$SERVE" <<'PY' || fail "oversized Hellos are refused"
import socket, ssl, struct, sys, time
port, ca, pid = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
def rss():
    return int([l for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS:")][0].split()[1])
def field(num, payload):  # a length-delimited protobuf field
    def varint(v):
        out = b""
        while True:
            b, v = v & 0x7F, v >> 7
            out += bytes([b | (0x80 if v else 0)])
            if not v:
                return out
    return varint(num << 3 | 2) + varint(len(payload)) + payload
def hello_frame(labels):
    hello = b"\x08\x02" + field(2, b"evil") + b"".join(labels)
    env = field(1, hello)
    return struct.pack(">I", len(env)) + env
def send(frame):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.load_verify_locations(ca + "/ca.crt")
    ctx.load_cert_chain(ca + "/evil.crt", ca + "/evil.key")
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10))
    try:
        s.sendall(frame)
        data = b""
        while True:
            d = s.recv(65536)
            if not d:
                break
            data += d
    except (OSError, ssl.SSLError):
        data = b""
    s.close()
    return data
before = rss()
big = hello_frame([field(5, b"")] * (8 << 20))  # 16 MiB, 8M empty labels
send(big)
time.sleep(0.5)
grown = rss() - before
print(f"# a 16 MiB Hello of 8M empty labels: RSS grew {grown} KiB")
assert grown < 32 << 10, f"RSS grew {grown} KiB"
many = hello_frame([field(5, field(1, b"k%d" % i) + field(2, b"v")) for i in range(100)])
reply = send(many)
assert b"100 labels, at most 32" in reply, reply[:200]
long = hello_frame([field(5, field(1, b"k" * 100) + field(2, b"v"))])
assert b"key of 100 bytes" in send(long)
print("ok - oversized Hellos are refused with a reason")
PY
check "the big Hello is cut off at the frame header" grep -q "frame of 16777216 bytes\|over the limit\|bad frame" "$T/serve-256.log"
"$IOCURVE" agents --coordinator "$SOCK" > "$T/agents2.out"
check "no agent 'evil' was registered" sh -c "! grep -q '^evil ' '$T/agents2.out'"

# /metrics: ":PORT" is loopback only; an endless header is cut off; a silent client is dropped.
check "--metrics :PORT listens on 127.0.0.1 only" \
	grep -q "0100007F:$(printf %04X "$MPORT") 00000000:0000 0A" /proc/net/tcp
python3 - "$MPORT" "$SERVE" <<'PY' || fail "/metrics limits"
import socket, sys, time
port, pid = int(sys.argv[1]), int(sys.argv[2])
def rss():
    for l in open(f"/proc/{pid}/status"):
        if l.startswith("VmRSS:"):
            return int(l.split()[1])
before = rss()
s = socket.create_connection(("127.0.0.1", port), timeout=5)
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Long: ")
sent = 0
try:
    while sent < 64 << 20:
        s.sendall(b"a" * 65536)
        sent += 65536
except OSError:
    pass
grown = rss() - before
print(f"# endless header: cut off after {sent >> 10} KiB sent, RSS grew {grown} KiB")
assert sent < 8 << 20, f"{sent} bytes of header accepted"
assert grown < 4096, f"RSS grew {grown} KiB"
s = socket.create_connection(("127.0.0.1", port), timeout=15)
s.sendall(b"GET /metr")
t = time.monotonic()
data = s.recv(100)
took = time.monotonic() - t
print(f"# a half-sent request was closed after {took:.1f} s")
assert took < 12, took
s = socket.create_connection(("127.0.0.1", port), timeout=5)
s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
data = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    data += d
assert b"200 OK" in data.split(b"\r\n")[0], data[:100]
print("ok - /metrics caps headers, drops silent clients, still answers")
PY
kill "$SERVE"
wait_exit "$SERVE" 10 || true

# Phase 2: accept runs out of descriptors (fd limit 64): the listener pauses, no spinning.
start_serve 64
flood "$PORT" 300 8 "$T/flood2.out"
echo "# 300 connections, nofile 64: $(cat "$T/flood2.out")"
check "the daemon stayed under 20% CPU with accept failing" below "$(field cpu_pct "$T/flood2.out")" 20
check "EMFILE pauses the listener, logged once per 10 s" \
	test "$(grep -c "agent port: accept: Too many open files; pausing 1000 ms" "$T/serve-64.log")" -le 2
check "the log stays small" test "$(wc -l < "$T/serve-64.log")" -lt 100
# The trickling connections reach their deadline; then the control socket is served again.
n=0
until "$IOCURVE" status --coordinator "$SOCK" > /dev/null 2>&1; do
	n=$((n + 1))
	[ "$n" -lt 10 ] || fail "status answers once the flood's connections are closed"
done
ok "status answers once the flood's connections are closed"
echo "# hostile-net: all passed"
