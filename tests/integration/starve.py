#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Clients that would starve the daemon: N connections to /metrics trickling a request
# one byte a second, and N slow TLS handshakes to the agent port (a real ClientHello,
# one byte a second), from loopback addresses 127.0.0.2.. (several sources). Every
# connection the daemon closes is opened again 0.1 s later, as an attacker would.
# With a control socket given, 40 clients also trickle a frame to it, one byte a second.
# KINDS (default metrics,tls) picks the floods. Runs until STOPFILE exists; then prints
# what the daemon closed.
import selectors, socket, ssl, sys, time

mport, aport, n, sources, stopfile = (int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]),
                                      int(sys.argv[4]), sys.argv[5])
ctl = sys.argv[6] if len(sys.argv) > 6 else ""
kinds = (sys.argv[7] if len(sys.argv) > 7 else "metrics,tls").split(",")

def client_hello():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(inc, out, server_side=False)
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return out.read()

HELLO = client_hello()
# A request that never ends: the header line grows a byte at a time.
REQUEST = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100000
sel = selectors.DefaultSelector()
conns = {}  # socket -> [kind, source, bytes sent]
pending = []  # (time, kind, source): reopen then
closed = {"metrics": 0, "tls": 0, "control": 0}
# A frame header announcing 100 bytes, then never enough of them.
FRAME = b"\x00\x00\x00\x64" + b"\x00" * 100

def open_one(kind, src):
    s = socket.socket(socket.AF_UNIX if kind == "control" else socket.AF_INET)
    try:
        if kind == "control":
            s.setblocking(False)
            s.connect_ex(ctl)
        else:
            s.bind((src, 0))
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", mport if kind == "metrics" else aport))
    except OSError:
        s.close()
        pending.append((time.monotonic() + 0.5, kind, src))
        return
    conns[s] = [kind, src, 0]
    sel.register(s, selectors.EVENT_READ)

def drop(s, reopen=True):
    kind, src, _ = conns.pop(s)
    sel.unregister(s)
    s.close()
    closed[kind] += 1
    if reopen:
        pending.append((time.monotonic() + 0.1, kind, src))

for i in range(n):
    src = f"127.0.0.{2 + i % sources}"
    for kind in ("metrics", "tls"):
        if kind in kinds:
            open_one(kind, src)
for i in range(40 if ctl else 0):
    open_one("control", "")
last = 0.0
while True:
    try:
        open(stopfile).close()
        break
    except FileNotFoundError:
        pass
    for key, _ in sel.select(0.1):
        s = key.fileobj
        try:
            data = s.recv(4096)
        except BlockingIOError:
            continue
        except OSError:
            data = b""
        if not data:  # the daemon closed it (an alert or a reply is an end too)
            drop(s)
        elif conns[s][0] == "tls":
            drop(s)
    now = time.monotonic()
    due = [p for p in pending if p[0] <= now]
    pending[:] = [p for p in pending if p[0] > now]
    for _, kind, src in due:
        open_one(kind, src)
    if now - last >= 1:
        last = now
        for s, c in list(conns.items()):
            payload = {"metrics": REQUEST, "tls": HELLO, "control": FRAME}[c[0]]
            if c[2] >= len(payload):
                continue
            try:
                c[2] += s.send(payload[c[2]:c[2] + 1])
            except BlockingIOError:
                pass
            except OSError:
                drop(s)
print(f"open={len(conns)} closed_metrics={closed['metrics']} closed_tls={closed['tls']} "
      f"closed_control={closed['control']}")
