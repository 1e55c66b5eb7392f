#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A TCP relay that holds every chunk DELAY_MS (plus up to JITTER_MS) each way.

delayrelay.py LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_MS [JITTER_MS]

Listens on 127.0.0.1:LISTEN_PORT and forwards each connection to TARGET, each chunk
sent no earlier than DELAY_MS (+ a uniform 0..JITTER_MS) after it arrived, and never
before the chunk ahead of it: order is kept, as on a link. netns_fleet.sh puts one in
each agent's network namespace when the kernel has no sch_netem, so the agents' links
have a real round trip of twice DELAY_MS for everything, TLS and clock pings alike.
A thread per direction sleeps until each chunk is due (nanosleep: tens of
microseconds late, where an event loop's millisecond timeouts would skew the two
directions by up to a millisecond).
"""
import collections
import random
import socket
import sys
import threading
import time


def direction(src, dst, delay, jitter):
    queue = collections.deque()
    ready = threading.Condition()
    done = []

    def reader():
        last = 0.0
        while True:
            try:
                data = src.recv(65536)
            except OSError:
                data = b""
            with ready:
                if not data:
                    done.append(True)
                else:
                    last = max(time.monotonic() + delay + random.uniform(0, jitter), last)
                    queue.append((last, data))
                ready.notify()
            if not data:
                return

    def writer():
        while True:
            with ready:
                while not queue and not done:
                    ready.wait()
                if not queue:
                    break
                due, data = queue.popleft()
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            try:
                dst.sendall(data)
            except OSError:
                break
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    for f in (reader, writer):
        threading.Thread(target=f, daemon=True).start()


def main():
    port, host, tport = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    delay = float(sys.argv[4]) / 1e3
    jitter = float(sys.argv[5]) / 1e3 if len(sys.argv) > 5 else 0.0
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", port))
    lsock.listen(16)
    print("relaying", flush=True)
    while True:
        a, _ = lsock.accept()
        b = socket.create_connection((host, tport))
        for s in (a, b):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        direction(a, b, delay, jitter)
        direction(b, a, delay, jitter)


main()
