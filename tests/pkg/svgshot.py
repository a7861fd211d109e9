#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Render an SVG in headless chromium and count the pixels of given
colours in a region of the screenshot.

    svgshot.py FILE.svg OUT.png [--region X0,Y0,X1,Y1] [--colour NAME=RRGGBB]...

Prints one JSON object: {"width":..., "height":..., "counts": {NAME: n},
"distinct": n}.  The PNG is decoded here (zlib and the five PNG filters):
no imaging library is needed.
"""

import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def svg_size(path):
    with open(path) as f:
        head = f.read(4096)
    m = re.search(r'<svg[^>]*width="(\d+)"[^>]*height="(\d+)"', head)
    return (int(m.group(1)), int(m.group(2))) if m else (1024, 768)


def screenshot(svg, png, timeout=300):
    """chromium --headless: the SVG at its own size, into @png."""
    w, h = svg_size(svg)
    with tempfile.TemporaryDirectory(prefix="svgshot-") as prof:
        cmd = [browser(), "--headless=new", "--no-sandbox", "--disable-gpu",
               "--hide-scrollbars", "--no-first-run",
               "--user-data-dir=" + prof,
               "--window-size=%d,%d" % (w, h),
               "--screenshot=" + os.path.abspath(png),
               "file://" + os.path.abspath(svg)]
        subprocess.run(cmd, capture_output=True, timeout=timeout,
                       env=dict(os.environ, HOME=prof))
    if not os.path.exists(png):
        raise RuntimeError("chromium wrote no screenshot")


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read_png(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB/RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        ln, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + ln]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + ln
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("PNG of depth %d colour type %d interlace %d"
                         % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    i = 0
    for _ in range(h):
        ft = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ft == 1:
                line[x] = (line[x] + a) & 0xff
            elif ft == 2:
                line[x] = (line[x] + b) & 0xff
            elif ft == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 0xff
            elif ft == 4:
                line[x] = (line[x] + _paeth(a, b, c)) & 0xff
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def count(rows, colours, region=None, tol=8):
    """{name: pixels within @tol of the colour} inside @region."""
    x0, y0, x1, y1 = region or (0, 0, len(rows[0]), len(rows))
    out = {n: 0 for n in colours}
    distinct = set()
    for y in range(y0, min(y1, len(rows))):
        for px in rows[y][x0:x1]:
            distinct.add(px)
            for n, c in colours.items():
                if all(abs(px[k] - c[k]) <= tol for k in range(3)):
                    out[n] += 1
    return out, len(distinct)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("svg")
    ap.add_argument("png")
    ap.add_argument("--region", help="X0,Y0,X1,Y1 (default: all)")
    ap.add_argument("--colour", action="append", default=[],
                    help="NAME=RRGGBB")
    a = ap.parse_args()
    if not browser():
        print("svgshot: no chromium (make deps)", file=sys.stderr)
        return 77
    screenshot(a.svg, a.png)
    w, h, rows = read_png(a.png)
    cols = {}
    for spec in a.colour:
        n, hexc = spec.split("=")
        cols[n] = tuple(int(hexc[i:i + 2], 16) for i in (0, 2, 4))
    region = tuple(int(v) for v in a.region.split(",")) if a.region \
        else None
    counts, distinct = count(rows, cols, region)
    print(json.dumps({"width": w, "height": h, "counts": counts,
                      "distinct": distinct}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
