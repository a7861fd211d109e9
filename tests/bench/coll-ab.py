#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Collectives A/B: two builds of torus.ko, each with its own coll_bench,
in rounds within one VM boot, the order alternated per round (runs inside
the test VM).

    tests/vm/run --timeout 2400 --mem 2048 -- python3 tests/bench/coll-ab.py
        --old-ko KO [--old-bench BIN] [--new-ko KO] [--new-bench BIN]
        NODES OP:BYTES:ITERS[,...] [ROUNDS]

NODES: 8, 27 or 64 (a rack as make bench-coll builds it); OP: barrier,
allreduce, reduce or bcast.  Each round loads one build, builds the rack,
runs every operation (every node at once, every result checked), tears
the rack down, then the same with the other build; the next round starts
with the other one.  Prints per round and operation the slowest node's
average, then per operation old/new per round: compare these ratios, not
absolute times, on a shared host.  The new build defaults to this tree's
module and coll_bench; the old one's bench defaults to it too, for a
module that speaks this build's libtorus.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
bench = __import__("bench-coll")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old-ko", required=True)
    ap.add_argument("--old-bench")
    ap.add_argument("--new-ko",
                    default=os.path.join(REPO, "kernel", "torus.ko"))
    ap.add_argument("--new-bench")
    ap.add_argument("nodes", type=int, choices=sorted(bench.DIMS))
    ap.add_argument("specs", help="OP:BYTES:ITERS[,...]")
    ap.add_argument("rounds", type=int, nargs="?", default=2)
    a = ap.parse_args()
    this_bench = os.path.join(bench.BIN, "coll_bench")
    builds = [("new", a.new_ko, a.new_bench or this_bench),
              ("old", a.old_ko, a.old_bench or this_bench)]
    specs = []
    for spec in a.specs.split(","):
        op, nbytes, iters = spec.split(":")
        specs.append((op, int(nbytes), int(iters)))
    times = {}
    failed = False
    try:
        for r in range(a.rounds):
            for name, ko, binary in builds if r % 2 == 0 else builds[::-1]:
                bench.load_module(ko)
                rack, _ = bench.build_rack(a.nodes, 1500)
                try:
                    for op, nbytes, iters in specs:
                        t, errs = bench.run_torus(rack, op, nbytes, iters,
                                                  bench=binary)
                        failed |= t is None
                        times.setdefault((op, nbytes), {}).setdefault(
                            name, []).append(t)
                        print("round %d %s %s %d B: %s" % (
                            r, name, op, nbytes,
                            "%.0f us" % t if t is not None else
                            "FAILED %s" % errs[:2]), flush=True)
                finally:
                    rack.destroy(quiet=True)
    finally:
        bench.load_module(os.path.join(REPO, "kernel", "torus.ko"))
    for (op, nbytes), v in times.items():
        ratios = ["%.2f" % (o / n) if o and n else "-"
                  for o, n in zip(v["old"], v["new"])]
        print("%s %d B: old/new per round %s" % (op, nbytes,
                                                 " ".join(ratios)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
