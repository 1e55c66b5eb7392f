#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# pngcolour.py SHOT.png RRGGBB...: how many pixels of a chromium screenshot have each
# colour (exactly), one "RRGGBB N" line each, and the count of distinct colours.
# As a module, colours(path, row_step, px_step) counts them over a sample of the rows
# and pixels (report_view.sh: a sample tells a page from a blank). 8-bit RGB/RGBA,
# every filter: the only kind chromium writes.
import struct, sys, zlib
from itertools import accumulate


def colours(path, row_step=1, px_step=1):
    """{RGB bytes: count} over every row_step-th row and px_step-th pixel, and (w, h)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6), f"depth {depth} colour type {ctype}"
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    # A row's bytes added to the row above's mod 256, all at once in one integer: the low 7
    # bits of each byte are summed (no carry leaves its byte), the top bit is the xor of the
    # two top bits and that carry.
    low7 = int.from_bytes(b"\x7f" * stride, "big")
    top = int.from_bytes(b"\x80" * stride, "big")
    def add(x, y):
        p, q = int.from_bytes(x, "big"), int.from_bytes(y, "big")
        return (((p & low7) + (q & low7)) ^ ((p ^ q) & top)).to_bytes(stride, "big")
    mod = (255).__and__
    prev, pixels = bytes(stride), {}
    for y in range(h):
        f, line = raw[y * (stride + 1)], raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
        if f == 1:  # Sub: each channel a running sum along the row
            out = bytearray(stride)
            for k in range(bpp):
                out[k::bpp] = bytes(map(mod, accumulate(line[k::bpp])))
            line = bytes(out)
        elif f == 2:  # Up
            line = add(line, prev)
        elif f in (3, 4):  # Average, Paeth: channel by channel, a the byte just decoded
            out = bytearray(stride)
            for k in range(bpp):
                a = c = 0
                lane = bytearray()
                for x, b in zip(line[k::bpp], prev[k::bpp]):
                    if f == 3:
                        a = (x + (a + b) // 2) & 255
                    else:
                        pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - c - c)
                        a = (x + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
                    lane.append(a)
                    c = b
                out[k::bpp] = lane
            line = bytes(out)
        prev = line
        if y % row_step == 0:
            for x in range(0, stride, bpp * px_step):
                px = bytes(line[x:x + 3])
                pixels[px] = pixels.get(px, 0) + 1
    return pixels, (w, h)


if __name__ == "__main__":
    pixels, _ = colours(sys.argv[1])
    for want in sys.argv[2:]:
        print(want, pixels.get(bytes.fromhex(want), 0))
    print("colours", len(pixels))
