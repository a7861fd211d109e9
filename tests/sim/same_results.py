#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/sim/same_results.py - two torus-sim builds give the same results.

    tests/sim/same_results.py OLD_SIM NEW_SIM [--quick] [--jobs N]

Runs both binaries on the same rows and seeds (small dims, mesh axes,
miswired nodes and blocks, faults, restarts, growth, start spread,
loss, duplicates, reordering, liars, link-state events) and compares
their -j output, every field of every run but the timings (wall_s,
node_steps_per_s) and the memory figures.  For changes that must not
change behaviour, e.g. the speed of the core's link-state database:

    git worktree add /tmp/old HEAD~1 && make -C /tmp/old tools
    tests/sim/same_results.py /tmp/old/build/bin/torus-sim \\
        build/bin/torus-sim

Prints PASS: same-results-<row> / FAIL: ... per row (and the first
differing field); exit status 1 if a row differs.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

TIMING = {"wall_s", "node_steps_per_s",
          # memory: how the state is laid out, not what the runs do
          "state_bytes_per_node", "core_bytes_per_node",
          "ls_state_bytes_per_node", "harness_bytes_per_node", "ls_bound",
          "ls_runs_too_large", "ls_bytes_needed", "ls_too_large"}

TIME = ["--start-spread", "300", "--loss", "0.05", "--restart", "5",
        "--liar", "1"]
F5 = ["--node-fail", "0.05", "--link-fail", "0.05"]
F10 = ["--node-fail", "0.1", "--link-fail", "0.1"]
F15 = ["--node-fail", "0.15", "--link-fail", "0.15"]

# (name, args, runs); QUICK: the first ones, a few seconds each
ROWS = [
    ("8x8x8-f5", ["--dims", "8x8x8"] + F5, 5),
    ("9x7x5-nodes-f15", ["--dims", "9x7x5", "--miswire", "nodes"] + F15, 5),
    ("12x10x6-mesh-y-f10", ["--dims", "12x10x6", "--mesh", "y"] + F10, 3),
    ("8x8x8-mesh-f10", ["--dims", "8x8x8", "--mesh", "xyz"] + F10, 3),
    ("6x6x4x3x2-nodes-f5", ["--dims", "6x6x4x3x2", "--miswire", "nodes"]
     + F5, 3),
    ("6x6x6-time", ["--dims", "6x6x6", "--miswire", "nodes"] + TIME, 5),
    ("8x8x8-time-grow", ["--dims", "8x8x8", "--miswire", "nodes",
                         "--grow", "x:2"] + TIME, 3),
    ("6x6x6-dup-reorder", ["--dims", "6x6x6", "--dup", "0.05",
                           "--reorder", "0.05"] + F5, 5),
    ("6x6x6-recable-fresh", ["--dims", "6x6x6", "--recable", "3",
                             "--restart", "3:fresh", "--wrong-plug", "1"],
     5),
    ("8x8x8-ls-events", ["--dims", "8x8x8", "--ls-events"] + F10, 3),
    ("8x8x8-ls-full", ["--dims", "8x8x8", "--ls-records", "40"] + F15, 3),
    ("8x8x8-ls-full-events", ["--dims", "8x8x8", "--ls-records", "60",
                              "--ls-events"] + F10, 3),
    ("6x6x6-time-ls-full", ["--dims", "6x6x6", "--miswire", "nodes",
                            "--ls-records", "12"] + TIME + F5, 5),
    ("16x16x16-b4-blocks-f10", ["--dims", "16x16x16", "--block", "4x4x4",
                                "--miswire", "blocks"] + F10, 1),
    ("16x16x16-f5", ["--dims", "16x16x16"] + F5, 1),
    ("16x16x16-b4-time", ["--dims", "16x16x16", "--block", "4x4x4",
                          "--miswire", "blocks"] + TIME, 1),
    ("16x16x32-f10", ["--dims", "16x16x32"] + F10, 1),
]
QUICK = 13


def strip(j):
    if isinstance(j, dict):
        return {k: strip(v) for k, v in j.items() if k not in TIMING}
    if isinstance(j, list):
        return [strip(v) for v in j]
    return j


def first_diff(a, b, path=""):
    if type(a) is not type(b):
        return path or "/"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return "%s/%s" % (path, k)
            d = first_diff(a[k], b[k], "%s/%s" % (path, k))
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s (length)" % path
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_diff(x, y, "%s/%d" % (path, i))
            if d:
                return d
        return None
    return None if a == b else "%s: %r != %r" % (path, a, b)


def run(sim, args, runs):
    p = subprocess.run([os.path.abspath(sim), "-j", "--seed", "1000", "--runs", str(runs)]
                       + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False)
    if p.returncode > 1:
        return {"error": p.returncode, "stderr": p.stderr.decode()[:300]}
    return strip(json.loads(p.stdout))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--quick", action="store_true",
                    help="the first %d rows only" % QUICK)
    ap.add_argument("--jobs", type=int, default=1)
    o = ap.parse_args()
    rows = ROWS[:QUICK] if o.quick else ROWS
    bad = 0
    with concurrent.futures.ThreadPoolExecutor(o.jobs) as ex:
        futs = [(name, ex.submit(run, o.old, args, runs),
                 ex.submit(run, o.new, args, runs))
                for name, args, runs in rows]
        for name, fa, fb in futs:
            a, b = fa.result(), fb.result()
            d = "error" if "error" in a or "error" in b else \
                first_diff(a, b)
            if d:
                bad += 1
                print("FAIL: same-results-%s (%s)" % (name, d))
            else:
                print("PASS: same-results-%s" % name)
            sys.stdout.flush()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
