# SPDX-License-Identifier: MIT
"""intervals.jsonl as `iocurve report` reads it, for the integration scripts.

A step whose client was disturbed runs again (retry: N): the attempt's lines stay in the
file, followed by a {"retried": N} line, and `report` rebuilds the step from the lines
after it. lines() drops such void attempts; records() keeps the interval records only
(no clock, window, cooldown, retried, mark, finish or end lines).
"""
import json


def lines(path):
    """Every line of intervals.jsonl but those of attempts a retried line voided.

    A cooldown line comes before a step's first attempt and belongs to the step, not
    to an attempt: report keeps it for the step's point, and so does this."""
    all_lines = [json.loads(l) for l in open(path) if l.strip()]
    last_retry = {}
    for i, l in enumerate(all_lines):
        if "retried" in l:
            last_retry[(l["workload"], l["step"])] = i
    return [l for i, l in enumerate(all_lines)
            if "retried" not in l and
            ("cooldown_ms" in l or
             i > last_retry.get((l.get("workload"), l.get("step")), -1))]


def records(path):
    """The interval records (an agent's or the merged "*" line) of the attempts that count
    (not a mark line, which may name an agent and an interval too)."""
    return [l for l in lines(path) if "interval" in l and "agent" in l and "mark" not in l]


def retries(path):
    """How many void attempts the file holds."""
    return sum(1 for l in open(path) if '"retried"' in l)
