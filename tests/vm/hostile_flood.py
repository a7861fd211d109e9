#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hostile frames at full speed (runs inside the test VM).

A neighbor's port blasts random torus frames through a packet socket for
--duration seconds: truncated headers, wrong versions, unknown types,
hop limit 0, bad flags, destinations and via points outside the fabric,
IP payloads whose lengths lie, control frames and plain garbage.  The
node must drop and count every one it cannot use, forward or deliver the
rest, keep forwarding real traffic and leave the kernel log clean.

    hostile_flood.py [--duration SECS] [--senders N] [--seed N]

make check runs it for a few seconds (tests/vm/check.sh); make
reliability for 60 s.  Prints PASS:/FAIL: lines for the aggregator.
"""

import argparse
import os
import random
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import case, results  # noqa: E402
from torus_lab import Rack  # noqa: E402

ETH = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + struct.pack("!H", 0x88B5)
DIMS = [3, 3]
ATTACKER, VICTIM = (0, 0), (1, 0)

# the sender, run in the attacker's netns: a pool of frames, sent in a
# loop until the deadline; prints how many it sent
SENDER = r"""
import socket, sys, time
frames = [bytes.fromhex(l) for l in open(sys.argv[1]).read().split()]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("px", 0))
s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
end = time.monotonic() + float(sys.argv[2])
sent = 0
while time.monotonic() < end:
    for f in frames:
        try:
            s.send(f)
            sent += 1
        except OSError:
            pass
print(sent)
"""


def coord8(c):
    return bytes(list(c) + [0] * (8 - len(c)))


def header(rng, version=1, ftype=1, hop=8, flags=0, proto=0x0800,
           dst=None, src=ATTACKER, via=(0,)):
    dst = dst if dst is not None else (rng.randrange(3), rng.randrange(3))
    return (bytes([version, ftype, hop, flags]) + struct.pack("!H", proto) +
            bytes([0, 0]) + coord8(dst) + coord8(src) + coord8(via))


def ipv4(rng, lie):
    body = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 64)))
    total = 20 + len(body) + (rng.randrange(1, 2000) if lie else 0)
    ihl = rng.choice([5, 5, 15, 1]) if lie else 5
    hdr = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, total & 0xffff, 0, 0,
                      64, 17, 0, bytes([10, 0, 0, 0]), bytes([10, 1, 0, 0]))
    return hdr + body


def ipv6(rng):
    body = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 64)))
    plen = len(body) + rng.randrange(1, 3000)
    return (struct.pack("!IHBB", 6 << 28, plen & 0xffff, 17, 64) +
            bytes(16) + bytes(16) + body)


def frame_pool(rng, n):
    """Frames of every hostile kind, with their kind for the log."""
    kinds = {
        "truncated": lambda: header(rng)[:rng.randrange(0, 32)],
        "version": lambda: header(rng, version=rng.choice(
            [0, 2, 7, 255])) + ipv4(rng, False),
        "type": lambda: header(rng, ftype=rng.choice(
            [0, 3, 4, 99, 255])) + ipv4(rng, False),
        "hop_limit_0": lambda: header(rng, hop=0) + ipv4(rng, False),
        "flags": lambda: header(rng, flags=rng.choice(
            [2, 4, 0x80, 0xff])) + ipv4(rng, False),
        "bad_dst": lambda: header(rng, dst=(rng.randrange(3, 256),
                                            rng.randrange(256))),
        "bad_via": lambda: header(rng, flags=1, via=(9, 9)),
        "proto": lambda: header(rng, proto=rng.choice(
            [0, 0x0806, 0x88B5, 0xffff])) + bytes(20),
        "ip_lying_length": lambda: header(rng, dst=VICTIM) + ipv4(rng, True),
        "ipv6_lying_length": lambda: header(rng, dst=VICTIM,
                                            proto=0x86DD) + ipv6(rng),
        "ctrl_version": lambda: header(rng, ftype=2, version=rng.choice(
            [0, 2, 3]), hop=1) + bytes(rng.randrange(0, 200)),
        "garbage": lambda: bytes(rng.getrandbits(8)
                                 for _ in range(rng.randrange(0, 200))),
    }
    names = sorted(kinds)
    return [ETH + kinds[names[i % len(names)]]() for i in range(n)]


def totals(rack):
    st = rack.node_json(VICTIM)["stats"]
    return st, st["drops"] + st["fwd_packets"] + st["rx_packets"]


@case("hostile_flood")
def check_flood(rack, args):
    """Counts: every kind of drop grew, frames accounted, no crash."""
    rng = random.Random(args.seed)
    pool = os.path.join(rack_dir(), "frames.hex")
    with open(pool, "w") as f:
        f.write("\n".join(fr.hex() for fr in frame_pool(rng, 4096)))
    before, acc0 = totals(rack)
    subprocess.run(["dmesg", "-C"], check=False)
    procs = [subprocess.Popen(
        ["ip", "netns", "exec", rack.ns(ATTACKER), "python3", "-c", SENDER,
         pool, str(args.duration)], stdout=subprocess.PIPE, text=True)
        for _ in range(args.senders)]
    sent = sum(int(p.communicate(timeout=args.duration + 120)[0] or 0)
               for p in procs)
    after, acc1 = totals(rack)
    grew = {k: after["drop"][k] - before["drop"][k] for k in after["drop"]}
    for k in ("malformed", "version", "hop_limit", "bad_addr", "proto"):
        assert grew[k] > 0, "no %s drops: %s" % (k, grew)
    # the rack's own traffic (neighbor discovery) crosses the node too
    accounted = acc1 - acc0
    assert accounted <= sent + 100, "counted %d of %d sent" % (accounted,
                                                             sent)
    assert accounted >= 0.95 * sent, "counted only %d of %d sent" % (
        accounted, sent)
    assert rack.ping(ATTACKER, (2, 0)), "forwarding broken after the flood"
    log = subprocess.run(["dmesg"], capture_output=True, text=True).stdout
    bad = [l for l in log.splitlines()
           if any(w in l for w in ("WARNING:", "BUG:", "Oops", "KASAN",
                                   "Call Trace"))]
    assert not bad, "dmesg: " + " | ".join(bad[:3])
    return "%d frames in %g s (%d/s), %d (%.1f%%) counted: %s" % (
        sent, args.duration, sent / args.duration, accounted,
        100.0 * accounted / sent,
        ", ".join("%s +%d" % kv for kv in sorted(grew.items()) if kv[1]))


def rack_dir():
    d = os.path.join(os.environ.get("TMPDIR", "/tmp"), "hostile_flood")
    os.makedirs(d, exist_ok=True)
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--duration", type=float, default=5.0,
                    help="seconds of flooding (make reliability: 60)")
    ap.add_argument("--senders", type=int, default=2,
                    help="sending processes (one per CPU)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rack = Rack(DIMS, [True] * len(DIMS), prefix="h")
    rack.build(static=True)
    try:
        check_flood(rack, args)
    finally:
        rack.destroy()
    return 0 if results["fail"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
