# SPDX-License-Identifier: MIT
"""summary.txt as one logical line per sentence, for the integration scripts.

summary.txt keeps its lines within 120 characters: a longer line of prose continues on
lines led by spaces. joined() puts each continuation back on the line it continues, so
a test can look for a sentence whatever the width cut; lines() checks the width too."""

WIDTH = 120


def lines(path):
    """summary.txt's lines, each asserted within WIDTH characters."""
    out = open(path).read().split("\n")
    for n, l in enumerate(out, 1):
        assert len(l) <= WIDTH, f"{path}:{n}: {len(l)} characters: {l}"
    return out


def joined(path):
    """summary.txt with its wrapped lines joined: a line led by spaces continues the last."""
    out = []
    for l in lines(path):
        if l.startswith("  ") and l.strip() and out and out[-1].strip():
            out[-1] += " " + l.strip()
        else:
            out.append(l)
    return "\n".join(out)
