# SPDX-License-Identifier: MIT
"""A strict reader of Prometheus' text exposition format (version 0.0.4), for tests.

parse(text) returns {family: {"type", "help", "samples": [(name, labels, value)]}}
or raises ValueError naming the line. Beyond the syntax it holds a page to the
conventions: every family has one HELP and one TYPE, both before its samples;
a family's samples are contiguous (not interleaved with another's); no series
appears twice; counters end in _total.
"""
import math
import re

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"
SAMPLE = re.compile(rf"^({NAME})(\{{(.*)\}})?\s+(\S+)(\s+-?\d+)?$")
LABEL_PAIR = re.compile(rf'\s*({LABEL})="((?:[^"\\]|\\.)*)"\s*(,|$)')
TYPES = {"counter", "gauge", "summary", "histogram", "untyped"}


def _labels(text, where):
    out, pos = {}, 0
    while pos < len(text):
        m = LABEL_PAIR.match(text, pos)
        if not m:
            raise ValueError(f"{where}: bad label set {{{text}}}")
        name, raw = m.group(1), m.group(2)
        if name in out:
            raise ValueError(f"{where}: label {name} twice")
        if re.search(r'\\[^\\"n]', raw):
            raise ValueError(f"{where}: bad escape in label {name}")
        out[name] = raw.replace("\\n", "\n").replace('\\"', '"').replace("\\\\", "\\")
        pos = m.end()
    return out


def _family_of(name, families):
    if name in families:
        return name
    for suffix in ("_sum", "_count", "_bucket"):
        base = name[: -len(suffix)]
        if name.endswith(suffix) and families.get(base, {}).get("type") in ("summary", "histogram"):
            return base
    return None


def scrape(port):
    """GET /metrics on 127.0.0.1:port and parse it; exits naming the broken rule."""
    import sys
    import urllib.request
    body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    try:
        return parse(body), body
    except ValueError as e:
        sys.exit(f"not Prometheus text as its conventions have it: {e}\n{body}")


def parse(text):
    families, series, closed, current = {}, set(), set(), None
    for n, line in enumerate(text.splitlines(), 1):
        where = f"line {n}"
        if not line.strip():
            continue
        if line.startswith("#"):
            parts = line.split(None, 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                name = parts[2]
                if not re.fullmatch(NAME, name):
                    raise ValueError(f"{where}: bad metric name {name}")
                f = families.setdefault(name, {"type": None, "help": None, "samples": []})
                if f["samples"]:
                    raise ValueError(f"{where}: {parts[1]} of {name} after its samples")
                key = parts[1].lower()
                if f[key] is not None:
                    raise ValueError(f"{where}: second {parts[1]} for {name}")
                value = parts[3] if len(parts) > 3 else ""
                if key == "type" and value not in TYPES:
                    raise ValueError(f"{where}: unknown type {value}")
                f[key] = value
                if current is not None and current != name:
                    closed.add(current)
                current = name
            continue
        m = SAMPLE.match(line)
        if not m:
            raise ValueError(f"{where}: not a sample: {line}")
        name, labels = m.group(1), _labels(m.group(3) or "", where)
        try:
            value = float(m.group(4))
        except ValueError:
            raise ValueError(f"{where}: bad value {m.group(4)}") from None
        if math.isnan(value) and m.group(4) != "NaN":
            raise ValueError(f"{where}: bad value {m.group(4)}")
        fam = _family_of(name, families)
        if fam is None or families[fam]["type"] is None or families[fam]["help"] is None:
            raise ValueError(f"{where}: sample of {name} without HELP and TYPE before it")
        if fam in closed:
            raise ValueError(f"{where}: {fam} resumes after another family (interleaved)")
        if current is not None and current != fam:
            closed.add(current)
        current = fam
        if families[fam]["type"] == "counter" and not name.endswith("_total"):
            raise ValueError(f"{where}: counter {name} does not end in _total")
        key = (name, tuple(sorted(labels.items())))
        if key in series:
            raise ValueError(f"{where}: series {name}{labels} twice")
        series.add(key)
        families[fam]["samples"].append((name, labels, value))
    return families
