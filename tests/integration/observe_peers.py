#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Sources an observe: campaign must survive, one per port (printed as NAME PORT lines,
# then "ready"): silent (accepts, never answers), trickle (a valid answer, a byte a
# second), huge (1 GiB of /metrics without a length), biglen (a Content-Length of 1 GiB),
# junk (malformed lines, NaN, 1e308, two samples each under 1e15 but not their sum, and one
# good sample), redirect (302 to another host),
# busy (a gauge 0.97 at every poll), kept (a whole chunked answer on a connection it keeps
# open).
import socket
import sys
import threading
import time

PAGE = (b"# TYPE x_total counter\nx_total 5\n")
JUNK = (b"# HELP x_total a counter\n# TYPE x_total counter\nx_total{a=\"1\" 3\n"
        b"garbage line here\nx_total NaN\nx_total 1e308\nnan_gauge NaN\nbig_gauge 1e308\n"
        b"x_total{a=\"ok\"} 7\n\x00\x01\x02 binary\n"
        b"many_gauge{a=\"1\"} 9e14\nmany_gauge{a=\"2\"} 9e14\n")


def head(length=None):
    h = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n"
    if length is not None:
        h += b"Content-Length: %d\r\n" % length
    return h + b"Connection: close\r\n\r\n"


def serve(kind, conn):
    try:
        conn.recv(65536)
        if kind == "silent":
            time.sleep(3600)
        elif kind == "trickle":
            for b in head(len(PAGE)) + PAGE:
                conn.sendall(bytes([b]))
                time.sleep(1)
        elif kind == "huge":
            conn.sendall(head())
            chunk = b"x_total 1\n" * 6554
            for _ in range((1 << 30) // len(chunk)):
                conn.sendall(chunk)
        elif kind == "biglen":
            conn.sendall(head(1 << 30) + PAGE)
            time.sleep(3600)
        elif kind == "junk":
            conn.sendall(head(len(JUNK)) + JUNK)
        elif kind == "kept":
            # a whole chunked answer, the connection kept open after it (keep-alive)
            page = b"# TYPE x_total counter\nx_total 5\n"
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\n" +
                         b"%x\r\n" % len(page) + page + b"\r\n0\r\n\r\n")
            time.sleep(3600)
        elif kind == "busy":
            # a resource 97% busy whenever it is asked: named at the first step
            page = b"# TYPE disk_busy gauge\ndisk_busy 0.97\n"
            conn.sendall(head(len(page)) + page)
        elif kind == "redirect":
            conn.sendall(b"HTTP/1.1 302 Found\r\nLocation: http://other.example/metrics\r\n"
                         b"Content-Length: 0\r\nConnection: close\r\n\r\n")
    except OSError:
        pass  # the client went, as it should
    finally:
        conn.close()


def listen(kind):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(128)
    print(kind, s.getsockname()[1], flush=True)

    def loop():
        while True:
            c, _ = s.accept()
            threading.Thread(target=serve, args=(kind, c), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()


for k in sys.argv[1:]:
    listen(k)
print("ready", flush=True)
while True:
    time.sleep(3600)
