#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Exact sums of doubles and floats (kernel/torus_xacc.c) against an exact
rational reference, on adversarial inputs: cancellation, exponent spread,
subnormals, ties, overflow, huge counts and the special values.

    test_xacc.py XACC_DRIVER

XACC_DRIVER is tests/unit/xacc_driver.c built with the kernel file; it
also checks that every grouping and order of the sum gives the same
bits.  Prints one PASS:/FAIL: unit/xacc_<case> line per case.
"""

import random
import struct
import subprocess
import sys
from fractions import Fraction

F64 = dict(p=53, lsb=-1074, top=1024, ebits=11, nan=0x7FF8000000000000)
F32 = dict(p=24, lsb=-149, top=128, ebits=8, nan=0x7FC00000)


def bits_value(bits, fmt):
    """The exact value of a finite encoding, or a string for inf/nan."""
    p, ebits = fmt["p"], fmt["ebits"]
    sign = bits >> (p - 1 + ebits)
    e = (bits >> (p - 1)) & ((1 << ebits) - 1)
    frac = bits & ((1 << (p - 1)) - 1)
    if e == (1 << ebits) - 1:
        return "nan" if frac else ("-inf" if sign else "+inf")
    if e:
        v = Fraction(frac | 1 << (p - 1)) * Fraction(2) ** (e - 1 + fmt["lsb"])
    else:
        v = Fraction(frac) * Fraction(2) ** fmt["lsb"]
    return -v if sign else v


def round_exact(x, fmt):
    """Round a rational to the format, to nearest, ties to even: bits."""
    p, ebits = fmt["p"], fmt["ebits"]
    sign = 1 if x < 0 else 0
    x = abs(x)
    signbit = sign << (p - 1 + ebits)
    inf = ((1 << ebits) - 1) << (p - 1)
    # floor(log2(x))
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    qexp = max(e - (p - 1), fmt["lsb"])
    scaled = x / Fraction(2) ** qexp
    q = scaled.numerator // scaled.denominator
    rem = scaled - q
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and q & 1):
        q += 1
    if q >> p:
        q >>= 1
        qexp += 1
    if q >> (p - 1):
        biased = qexp - fmt["lsb"] + 1
        if biased >= (1 << ebits) - 1:
            return signbit | inf
        return signbit | biased << (p - 1) | (q & ((1 << (p - 1)) - 1))
    return signbit | q


def reference(values, fmt):
    """The documented semantics, from the exact sum."""
    p, ebits = fmt["p"], fmt["ebits"]
    inf = ((1 << ebits) - 1) << (p - 1)
    negzero = 1 << (p - 1 + ebits)
    vals = [bits_value(b, fmt) for b in values]
    if "nan" in vals or ("+inf" in vals and "-inf" in vals):
        return fmt["nan"]
    if "+inf" in vals:
        return inf
    if "-inf" in vals:
        return negzero | inf
    total = sum(vals, Fraction(0))
    if total == 0:
        return negzero if values and all(b == negzero for b in values) else 0
    return round_exact(total, fmt)


# torus_xprod's integer: TORUS_XPROD_WORDS 64-bit words
XPROD_BITS = 64 * 64


def reference_prod(values, fmt):
    """The documented semantics of an exact product."""
    p, ebits = fmt["p"], fmt["ebits"]
    inf = ((1 << ebits) - 1) << (p - 1)
    signbit = 1 << (p - 1 + ebits)
    vals = [bits_value(b, fmt) for b in values]
    neg = sum(b >> (p - 1 + ebits) for b in values) % 2
    finite = [v for v in vals if not isinstance(v, str) and v != 0]
    total = Fraction(1)
    for v in finite:
        total *= v
    odd = abs(total.numerator)
    while odd and not odd & 1:
        odd >>= 1
    zero = any(v == 0 for v in vals if not isinstance(v, str))
    infs = any(v in ("+inf", "-inf") for v in vals)
    if "nan" in vals or (zero and infs) or odd.bit_length() > XPROD_BITS:
        return fmt["nan"]
    if infs:
        return neg * signbit | inf
    if zero:
        return neg * signbit
    return round_exact(total, fmt)


def d(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def f(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def rand_f64(rng, emin=0, emax=2046):
    return rng.getrandbits(1) << 63 | rng.randint(emin, emax) << 52 | \
        rng.getrandbits(52)


def rand_f32(rng, emin=0, emax=254):
    return rng.getrandbits(1) << 31 | rng.randint(emin, emax) << 23 | \
        rng.getrandbits(23)


MAXD = 0x7FEFFFFFFFFFFFFF
MINSUB = 1
NEGZ = 1 << 63


def cases():
    rng = random.Random(8)
    c = {}
    c["cancellation"] = [
        ("d", [d(1e308), d(1.0), d(-1e308)]),
        ("d", [d(2.0 ** 53), d(1.0), d(-(2.0 ** 53))]),
        ("d", [d(1e16), d(1.0), d(-1e16), d(1e-16)]),
    ] + [("d", vs + [v ^ (1 << 63) for v in vs] + [d(rng.random())])
         for vs in ([rand_f64(rng) for _ in range(200)] for _ in range(5))]
    c["exponent_spread"] = [
        ("d", [rand_f64(rng) for _ in range(rng.randint(1, 300))])
        for _ in range(40)]
    c["subnormals"] = [
        ("d", [rand_f64(rng, 0, 0) for _ in range(rng.randint(1, 100))])
        for _ in range(20)] + [
        ("d", [rand_f64(rng, 0, 2) for _ in range(rng.randint(1, 100))])
        for _ in range(20)] + [
        ("d", [MINSUB, MINSUB, (1 << 52) - 1, (1 << 52) - 1])]
    c["ties_to_even"] = [
        ("d", [d(2.0 ** 53), d(1.0)]),            # tie, stays even
        ("d", [d(2.0 ** 53 + 2), d(1.0)]),        # tie, rounds up to even
        ("d", [d(1.0), d(2.0 ** -53)]),
        ("d", [d(1.0), d(2.0 ** -53), d(2.0 ** -1074)]),  # above the tie
        ("d", [d(1.0), d(2.0 ** -53), d(-(2.0 ** -1074))]),  # below it
    ]
    c["overflow"] = [
        ("d", [MAXD, MAXD]),
        ("d", [MAXD, d(2.0 ** 970)]),             # half an ulp: to inf
        ("d", [MAXD, d(2.0 ** 970), d(-(2.0 ** -1074))]),  # just below
        ("d", [MAXD ^ NEGZ, MAXD ^ NEGZ]),
    ]
    c["huge_counts"] = [
        ("d", [MAXD] * 50000 + [MAXD ^ NEGZ] * 50000 + [d(1.5)]),
        ("d", [d(0.1)] * 100000),
        ("d", [MINSUB] * 99999),
    ]
    c["specials"] = [
        ("d", []),
        ("d", [NEGZ]),
        ("d", [NEGZ, NEGZ, NEGZ]),
        ("d", [NEGZ, 0]),
        ("d", [d(1.0), d(-1.0)]),
        ("d", [NEGZ, d(2.5), d(-2.5)]),
        ("d", [d(float("inf")), d(1.0)]),
        ("d", [d(float("-inf")), MAXD]),
        ("d", [d(float("inf")), d(float("-inf"))]),
        ("d", [0x7FF0000000000001, d(1.0)]),     # signalling nan
        ("d", [0xFFF8000000000123, d(float("inf"))]),
    ]
    c["float32"] = [
        ("f", [rand_f32(rng) for _ in range(rng.randint(1, 300))])
        for _ in range(30)] + [
        ("f", [rand_f32(rng, 0, 1) for _ in range(50)]) for _ in range(10)
    ] + [
        ("f", [f(16777216.0), f(1.0)]),
        ("f", [0x7F7FFFFF, 0x7F7FFFFF]),
        ("f", [0x7F7FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0xFF7FFFFF, f(3.0)]),
        ("f", [0x80000000, 0x80000000]),
        ("f", [0x7F800000, 0xFF800000]),
        ("f", [0x7FA00000]),
        ("f", [1] * 1000),
        ("f", [f(0.1)] * 100000),
    ]
    c["prod_random"] = [
        ("p", [rand_f64(rng, 1000, 1046) for _ in range(rng.randint(1, 60))])
        for _ in range(40)]
    c["prod_range"] = [
        ("p", [d(1e300), d(1e300), d(1e-300), d(1e-300)]),  # inf midway
        ("p", [d(1e-300), d(1e-300), d(1e300), d(3.0)]),    # 0 midway
        ("p", [d(2.0 ** -1000), d(2.0 ** -70), d(1.5)]),     # subnormal
        ("p", [d(2.0 ** -1074), d(0.5)]),                    # tie to 0
        ("p", [d(2.0 ** -1074), d(0.75)]),                   # up to min
        ("p", [MAXD, d(2.0)]),
        ("p", [MAXD, d(0.5), d(2.0)]),
        ("p", [d(1.0 + 2.0 ** -52)] * 3),
    ] + [("p", [rand_f64(rng, 0, 2046) for _ in range(rng.randint(1, 8))])
         for _ in range(40)]
    c["prod_specials"] = [
        ("p", []),
        ("p", [NEGZ, d(3.0)]),
        ("p", [NEGZ, d(-3.0)]),
        ("p", [d(float("inf")), d(-2.0)]),
        ("p", [d(float("inf")), 0]),
        ("p", [0x7FF0000000000001, d(1.0)]),
        ("p", [rand_f64(rng, 1000, 1046) | 1 for _ in range(80)]),  # > 64 words
    ]
    c["prod_float32"] = [
        ("q", [rand_f32(rng, 120, 134) for _ in range(rng.randint(1, 100))])
        for _ in range(30)] + [
        ("q", [f(3.0), f(1.0 / 3.0), f(3.0)]),
        ("q", [1, f(0.5)]),
        ("q", [0x7F7FFFFF, f(2.0)]),
    ]
    return c


def main():
    driver = sys.argv[1]
    failed = 0
    for name, sums in cases().items():
        lines, want = [], []
        for kind, values in sums:
            fmt = F64 if kind in "dp" else F32
            seed = random.getrandbits(63)
            lines.append("%s %d %s" % (kind, seed,
                                       " ".join("%x" % v for v in values)))
            want.append(reference_prod(values, fmt) if kind in "pq" else
                        reference(values, fmt))
            if kind == "d" and not any(
                    isinstance(bits_value(v, fmt), str) for v in values):
                # Python's own correctly rounded conversion agrees
                total = sum((bits_value(v, fmt) for v in values), Fraction(0))
                try:
                    py = d(float(total)) if total else None
                except OverflowError:
                    py = None
                if py is not None:
                    assert py == want[-1], (name, hex(py), hex(want[-1]))
        out = subprocess.run([driver], input="\n".join(lines) + "\n",
                             capture_output=True, text=True)
        got = out.stdout.split("\n")[:len(want)]
        bad = [(i, g, "%x" % w) for i, (g, w) in enumerate(zip(got, want))
               if g != "%x" % w]
        if len(got) < len(want) or bad or out.returncode:
            failed += 1
            print("FAIL: unit/xacc_%s" % name)
            print("    %s %s" % (bad[:3], out.stderr[-300:]), file=sys.stderr)
        else:
            print("PASS: unit/xacc_%s" % name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
