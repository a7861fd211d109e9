#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""torus topo on the kernel state of a rack (runs inside the VM).

A static 4x3x2 rack (x and z rings, y a mesh) with a dead node, a cut
cable, a lamb and a node held back from placement: the topology document
of every namespace must say exactly that, --path must follow each hop's
kernel, and the SVG must mark the missing places, the lamb and the
unplaced node's reason; with --screenshot it is also rendered by headless
chromium in the guest and checked by pixel colour (~100 s under TCG, so
make check leaves it to the host's tests/pkg/topo_test.py, which renders
the same code's pictures).  Then torus-lab run --svg draws a discovered
rack.  Pictures in build/vm/topo.  Prints PASS:/FAIL:/SKIP: lines.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "pkg"))
from vmtest import REPO, case, results, skip  # noqa: E402
from torus_lab import Rack, TORUS, run  # noqa: E402
import svgshot  # noqa: E402

OUT = os.path.join(REPO, "build", "vm", "topo")
PREFIX = "tp"
DEAD = (2, 1, 0)
CUT = ((1, 0, 0), 0)            # the +x cable of 1,0,0
LAMB = (0, 2, 1)
HELD = (3, 2, 1)
HELD_REASON = "test: held back"


def topo_json(*args):
    out = run([TORUS, "-j", "topo", "netns", PREFIX + "[0-9]*"] +
              list(args)).stdout
    return json.loads(out)


def expected_cuts(rack):
    """The cut cable and every cable of the dead node, whose ports stay
    down: (from, axis) with from the cable's - end."""
    cuts = {(CUT[0], CUT[1])}
    for axis in range(3):
        for neg in (False, True):
            other = rack.neighbor(DEAD, axis, neg)
            if other is not None:
                cuts.add((other if neg else DEAD, axis))
    return cuts


@case("topo_kernel_state_dead_cut_lamb_unplaced")
def kernel_case(rack):
    doc = topo_json()
    by = {n["name"]: n for n in doc["nodes"]}
    assert doc["dims"] == [4, 3, 2] and doc["wrap"] == [True, False, True], \
        "dims %s wrap %s" % (doc["dims"], doc["wrap"])
    assert len(by) == 24, "%d nodes, want 24" % len(by)
    dead = by[rack.ns(DEAD)]
    assert dead["state"] == "dead" and dead["reason"] == "tor0 is down", dead
    held = by[rack.ns(HELD)]
    assert held["state"] == "unplaced" and held["reason"] == HELD_REASON, \
        held
    lamb = by[rack.ns(LAMB)]
    assert lamb["state"] == "placed" and lamb["role"] == "lamb" and \
        lamb["coord"] == list(LAMB), lamb
    placed = [n for n in doc["nodes"] if n["state"] == "placed"]
    assert len(placed) == 22 and all(
        n["coord"] == [int(v) for v in n["name"][len(PREFIX):].split("-")]
        for n in placed), "placed nodes off their coordinates"
    cuts = {(tuple(c["from"]), c["axis"]) for c in doc["cables"]
            if c["cut"]}
    want = expected_cuts(rack)
    assert cuts == want, "cut %s, want %s" % (sorted(cuts), sorted(want))
    # 4x3x2: 24 x cables, 16 y (mesh), 24 z (a ring of 2 has 2 cables)
    assert len(doc["cables"]) == 64, "%d cables" % len(doc["cables"])
    return "%d cables, %d cut" % (len(doc["cables"]), len(cuts))


@case("topo_path_follows_each_hops_kernel")
def path_case():
    doc = topo_json("path", "0,0,0", "3,2,1")
    # x first, the short way round the ring (-), then y, then z
    want = [[0, 0, 0], [3, 0, 0], [3, 1, 0], [3, 2, 0], [3, 2, 1]]
    assert doc["path"] == want, "path %s, want %s" % (doc["path"], want)


@case("topo_svg_of_the_kernel_state")
def svg_case(screenshot):
    svg = os.path.join(OUT, "rack.svg")
    run([TORUS, "topo", "netns", PREFIX + "[0-9]*", "path", "0,0,0",
         "3,2,1", "svg", svg])
    text = open(svg).read()
    # the dead node and the held one have no coordinate in the kernel:
    # their places are drawn as missing, their names listed with reasons
    assert text.count('<g class="node missing"><title>') == 2, "missing places"
    assert text.count('<g class="node lamb"><title>') == 1, "no lamb"
    assert ("%s: %s" % (rack_ns(HELD), HELD_REASON)) in text, \
        "unplaced node not listed"
    if not screenshot:
        return "no --screenshot"
    png = os.path.join(OUT, "rack.png")
    svgshot.screenshot(svg, png, timeout=600)
    w, h, rows = svgshot.read_png(png)
    counts, distinct = svgshot.count(
        rows, {"missing": (0xd0, 0xd0, 0xd0), "lamb": (0xf5, 0xa6, 0x23),
               "placed": (0x4a, 0x90, 0xd9), "path": (0, 0xb0, 0x50),
               "cut": (0xe0, 0x20, 0x20)}, (0, 0, w - 380, h))
    low = {k: v for k, v in counts.items()
           if v < (30 if k == "cut" else 150)}
    assert not low and distinct > 50, "pixels %s, %d colours" % (
        counts, distinct)
    return "%dx%d, %s" % (w, h, counts)


def rack_ns(coord):
    return PREFIX + "-".join(str(c) for c in coord)


@case("lab_run_svg_draws_the_discovered_rack")
def lab_case():
    svg = os.path.join(OUT, "lab.svg")
    res = json.loads(run(["torus-lab", "-j", "run", "--dims", "3x3",
                          "--prefix", "tl", "--seed", "2", "--miswire",
                          "nodes", "--dead", "1,1", "--svg", svg],
                         check=False, timeout=600).stdout)
    doc = res.get("topo")
    assert doc and os.path.exists(svg), "no topo in the result: %s" % res
    placed = [n for n in doc["nodes"] if n["state"] == "placed"]
    dead = [n for n in doc["nodes"] if n["state"] == "dead"]
    assert len(placed) == res["placed"], "%d placed drawn, lab says %d" % (
        len(placed), res["placed"])
    assert len(dead) == 1 and (dead[0]["coord"] or not res["isometry"]), \
        "dead node %s" % dead
    text = open(svg).read()
    assert text.count('<g class="node dead"><title>') == \
        (1 if res["isometry"] else 0), "dead node not drawn"
    return "placed %d, converged %s" % (len(placed), res["converged"])


def main():
    if not os.environ.get("TORUS_VM"):
        print("topo_test.py runs inside the VM: tests/vm/run -- "
              "python3 tests/vm/topo_test.py", file=sys.stderr)
        return 2
    os.makedirs(OUT, exist_ok=True)
    rack = Rack([4, 3, 2], [True, False, True], prefix=PREFIX, dead=[DEAD],
                cut=[(CUT[0], CUT[1], False)])
    rack.build(static=True)
    try:
        run([TORUS, "-n", rack.ns(LAMB), "node", "set", "role", "lamb"])
        run([TORUS, "-n", rack.ns(HELD), "node", "set", "state",
             "discovering", "reason", HELD_REASON])
        kernel_case(rack)
        path_case()
        shot = "--screenshot" in sys.argv[1:]
        if shot and not svgshot.browser():
            skip("topo_svg_of_the_kernel_state", "no chromium (make deps)")
        else:
            svg_case(shot)
    finally:
        rack.destroy()
    lab_case()
    return 1 if results["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
