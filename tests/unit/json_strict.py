#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Strict JSON: what jq, Go and JavaScript's JSON.parse accept.

    python3 tests/unit/json_strict.py FILE...   exit 1 if one is not

The bytes must be valid UTF-8 and the text one JSON value (or, for
--lines, one per non-empty line) without NaN, Infinity or -Infinity.
The parsing itself is torus_lab.loads_strict, the one the lab and the
VM scenarios use.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools", "lab"))
from torus_lab import loads_strict  # noqa: E402


def parse(raw, lines=False):
    """The value(s) in @raw (bytes); ValueError (UnicodeDecodeError is
    one) if it is not strict JSON in UTF-8."""
    text = raw.decode("utf-8")
    if lines:
        return [loads_strict(l) for l in text.splitlines() if l.strip()]
    return loads_strict(text)


def main(argv):
    lines = "--lines" in argv
    files = [a for a in argv if a != "--lines"]
    if not files:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    bad = 0
    for path in files:
        try:
            with open(path, "rb") as f:
                parse(f.read(), lines)
        except (OSError, ValueError) as e:
            print("json_strict: %s: %s" % (path, e), file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
