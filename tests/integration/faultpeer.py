#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A coordinator that fails an agent's connection one way, on every connection, until killed.

faultpeer.py MODE PORT [TLSDIR]; prints one line per connection it failed.
  silent       accepts and never answers: the agent's TLS handshake never ends
  rst          accepts, reads a little of the ClientHello, resets (SO_LINGER 0)
  hello-close  completes mutual TLS as the coordinator (TLSDIR's coordinator.crt, the
               agent's certificate checked against ca.crt), reads the agent's Hello
               frame, and closes without a word: no Welcome, no Refuse
  hello-rst    the same, but resets the connection (SO_LINGER 0) instead of closing it
"""
import socket
import ssl
import struct
import sys


def read_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(16)
    ctx = None
    if mode in ("hello-close", "hello-rst"):
        tls = sys.argv[3]
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_3
        ctx.load_cert_chain(f"{tls}/coordinator.crt", f"{tls}/coordinator.key")
        ctx.load_verify_locations(f"{tls}/ca.crt")
        ctx.verify_mode = ssl.CERT_REQUIRED
    print(f"listening ({mode})", flush=True)
    held, n = [], 0
    while True:
        c, _ = ls.accept()
        n += 1
        if mode == "silent":
            held.append(c)  # never read, never closed: the peer is just silent
            print(f"connection {n}: held, silent", flush=True)
        elif mode == "rst":
            got = c.recv(64)
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            c.close()
            print(f"connection {n}: reset after {len(got)} bytes", flush=True)
        elif mode in ("hello-close", "hello-rst"):
            t = None
            try:
                t = ctx.wrap_socket(c, server_side=True)
                size = struct.unpack(">I", read_exact(t, 4))[0]
                read_exact(t, size)
                if mode == "hello-rst":
                    t.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                print(f"connection {n}: Hello of {size} bytes from "
                      f"{dict(x[0] for x in t.getpeercert()['subject'])['commonName']}; "
                      f"{'reset' if mode == 'hello-rst' else 'closed'}", flush=True)
            except (OSError, ssl.SSLError, ConnectionError) as e:
                print(f"connection {n}: failed before the Hello: {e}", flush=True)
            # The socket goes without close_notify: the agent sees the TCP close only.
            (t or c).close()
        else:
            sys.exit(f"faultpeer.py: unknown mode {mode}")


main()
