#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Watch an agent's workers' I/O through /proc/PID/io around a fault.

iowatch.py --agent PID --action 'SHELL COMMAND' [--detect FILE PATTERN] [--watch SECONDS]

Waits until the workers (the agent's children) are doing I/O, runs the action (the
fault) at t0, then samples read_bytes + write_bytes of every worker every 50 ms for
--watch seconds. Prints io_stopped_after (seconds from t0 to the last growth of any
worker's counters) and detected_after (seconds from t0 until PATTERN showed in FILE;
-1 when it never did)."""
import argparse, os, subprocess, sys, time


def workers(agent):
    kids = []
    for tid in os.listdir(f"/proc/{agent}/task"):
        try:
            kids += open(f"/proc/{agent}/task/{tid}/children").read().split()
        except OSError:
            pass
    return kids


def io_of(pid):
    try:
        fields = dict(l.split(": ") for l in open(f"/proc/{pid}/io").read().splitlines())
        return int(fields["read_bytes"]) + int(fields["write_bytes"])
    except (OSError, KeyError, ValueError):
        return None


ap = argparse.ArgumentParser()
ap.add_argument("--agent", required=True)
ap.add_argument("--action", required=True)
ap.add_argument("--detect", nargs=2)
ap.add_argument("--watch", type=float, default=8)
a = ap.parse_args()

deadline = time.monotonic() + 30
while True:
    ws = workers(a.agent)
    before = {w: io_of(w) for w in ws}
    time.sleep(0.5)
    if ws and all(io_of(w) is not None and io_of(w) > (before[w] or 0) for w in ws):
        break
    if time.monotonic() > deadline:
        sys.exit("iowatch: the workers of %s never did I/O" % a.agent)
last = {w: io_of(w) for w in ws}
t0 = time.monotonic()
subprocess.run(a.action, shell=True, check=True)
stopped = 0.0
detected = -1.0
while time.monotonic() - t0 < a.watch:
    now = time.monotonic() - t0
    for w in ws:
        v = io_of(w)
        if v is not None and v != last[w]:
            last[w] = v
            stopped = now
    if a.detect and detected < 0:
        try:
            if a.detect[1] in open(a.detect[0], errors="replace").read():
                detected = now
        except OSError:
            pass
    time.sleep(0.05)
print(f"workers={len(ws)} io_stopped_after={stopped:.2f} detected_after={detected:.2f}")
