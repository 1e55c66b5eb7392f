#!/bin/sh
# SPDX-License-Identifier: MIT
# Hostile networks at the daemon: trickling unauthenticated connections under a low fd
# limit, accept failing with EMFILE, /metrics with endless headers. The daemon's CPU
# (from /proc/PID/stat) stays low and `status` answers.
. "$(dirname "$0")/lib.sh"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs agent "$T/ca" a1 > /dev/null
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
