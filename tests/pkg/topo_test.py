#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""torus topo and torus-sim --svg on the host (tests/pkg/run.sh): the
picture of a topology document, rendered by headless chromium and checked
by pixel colour (dead, missing, lamb, leader, path), the document read
back, malformed documents refused, DOT, and the simulator's picture.
Prints PASS:/FAIL:/SKIP: pkg/<case> lines; screenshots in build/pkg/topo.
"""

import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.realpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import svgshot  # noqa: E402

TORUS = os.path.join(REPO, "build", "bin", "torus")
SIM = os.path.join(REPO, "build", "bin", "torus-sim")
OUT = os.path.join(REPO, "build", "pkg", "topo")
DOC = os.path.join(HERE, "topo-4x3x2.json")
# lib/topology.c's colours; the legend (right of the slices) is left out
COLOURS = {"dead": (0xff, 0, 0), "missing": (0xd0, 0xd0, 0xd0),
           "lamb": (0xf5, 0xa6, 0x23), "leader": (0x1f, 0x5f, 0xa8),
           "placed": (0x4a, 0x90, 0xd9), "path": (0, 0xb0, 0x50),
           "cut": (0xe0, 0x20, 0x20)}
SIDE_W = 380
failed = 0


def result(name, ok, why=""):
    global failed
    if ok:
        print("PASS: pkg/%s" % name)
    else:
        failed += 1
        print("FAIL: pkg/%s -- %s" % (name, why))


def torus(*args, check=True, stdin=None):
    res = subprocess.run([TORUS] + list(args), capture_output=True,
                         text=True, input=stdin, timeout=60)
    if check and res.returncode:
        raise AssertionError("torus %s: %s" % (" ".join(args), res.stderr))
    return res


def shot(svg, name):
    png = os.path.join(OUT, name + ".png")
    svgshot.screenshot(svg, png)
    w, h, rows = svgshot.read_png(png)
    counts, distinct = svgshot.count(rows, COLOURS, (0, 0, w - SIDE_W, h))
    return counts, distinct


def picture_case():
    name = "topo_svg_shows_dead_missing_lamb_leader_path_in_chromium"
    svg = os.path.join(OUT, "doc.svg")
    torus("topo", "from", DOC, "svg", svg)
    counts, distinct = shot(svg, "doc")
    # each kind of node is a 30 px disc (~700 px, a cross over the dead
    # ones); the path is a 6 px band over 3 hops; cut cables are dashes
    # and crosses between the discs
    low = {k: v for k, v in counts.items()
           if v < (30 if k == "cut" else 150)}
    ok = not low and counts["missing"] > 20 * 150 and distinct > 50
    result(name, ok, "too few pixels: %s (all: %s, %d colours)" %
           (low, counts, distinct))


def slices_case():
    """A 4-D fabric is a grid of 2-D slices: dims[2] across, dims[3]
    down, each titled with its coordinates on the other axes."""
    name = "topo_4d_fabric_is_a_grid_of_slices"
    doc = {"dims": [2, 2, 3, 2], "wrap": [True] * 4,
           "nodes": [{"name": "a", "coord": [1, 1, 2, 1],
                      "state": "placed", "role": "member", "reason": ""}],
           "cables": [], "path": []}
    svg = torus("topo", "from", "-", "svg", "-",
                stdin=json.dumps(doc)).stdout
    titles = re.findall(r'<text class="title"[^>]*>([^<]*)<', svg)
    want = ["z=%d a=%d" % (z, a) for a in range(2) for z in range(3)]
    result(name, titles == want and svg.count('<g class="node placed"><title>') == 1,
           "slice titles %s, want %s" % (titles, want))


def round_trip_case():
    name = "topo_document_round_trip_and_result_wrapper"
    with open(DOC) as f:
        doc = json.load(f)
    back = json.loads(torus("-j", "topo", "from", DOC).stdout)
    wrapped = json.loads(torus("-j", "topo", "--from", "-",
                               stdin=json.dumps({"ok": True, "topo": doc})
                               ).stdout)
    for nd in doc["nodes"]:
        nd.setdefault("coord", None)
    result(name, back == doc and wrapped == doc,
           "read back: %s" % json.dumps(back)[:300])


def malformed_case():
    name = "topo_refuses_malformed_documents"
    bad = ['', '{', '[]', '{"nodes": 3}', '{"nodes": [], "dims": [0]}',
           '{"nodes": [{"state": "placed"}]}',
           '{"nodes": [{"coord": [1, 300]}]}',
           '{"nodes": [], "cables": [{"from": [0], "axis": 9}]}',
           '{"nodes": []} x', '{"nodes": [{"name": "\\q"}]}',
           '[' * 100 + ']' * 100]
    wrong = []
    for text in bad:
        res = torus("topo", "from", "-", check=False, stdin=text)
        if res.returncode != 1 or not res.stderr.startswith("Error: -: "):
            wrong.append((text[:30], res.returncode, res.stderr[:80]))
    result(name, not wrong, "accepted or wrong error: %s" % wrong)


def dot_case():
    name = "topo_dot_marks_dead_cut_and_path"
    dot = torus("topo", "from", DOC, "dot").stdout
    ok = (dot.startswith("graph torus {") and dot.rstrip().endswith("}")
          and '"2,1,0" [pos=' in dot and "fillcolor=red" in dot and
          dot.count("style=dashed") == 3 and
          dot.count("color=green3") == 3 and
          'label="n3-2-1\\norientation: no satisfying quadruple"' in dot)
    result(name, ok, dot[:400])


def sim_case():
    name = "sim_svg_draws_its_dead_nodes_and_cut_cables"
    if not os.access(SIM, os.X_OK):
        print("SKIP: pkg/%s -- no %s (make tools)" % (name, SIM))
        return
    svg = os.path.join(OUT, "sim.svg")
    res = subprocess.run([SIM, "--dims", "4x4x2", "--node-fail", "0.1",
                          "--link-fail", "0.1", "--seed", "3", "-j",
                          "--svg", svg], capture_output=True, text=True,
                         timeout=120)
    if res.returncode not in (0, 1) or not os.path.exists(svg):
        result(name, False, "torus-sim: %s" % res.stderr[-300:])
        return
    text = open(svg).read()
    dead = text.count('<g class="node dead"><title>')
    cuts = text.count('class="cable cut"') + \
        len(re.findall(r'class="cutmark"[^>]*>&#x2715;\+z', text))
    counts, _ = shot(svg, "sim")
    # seed 3: 3 dead nodes, 11 cut cables (the legend's is one more)
    result(name, dead == 3 and cuts >= 11 and counts["dead"] > 3 * 150,
           "dead %d, cut %d, red pixels %d" % (dead, cuts, counts["dead"]))


def sim_unplaced_case():
    """torus-sim --svg draws each live node left unplaced where it stands,
    with its own reason: as many as the run reports, reason by reason"""
    name = "sim_svg_marks_each_unplaced_node_with_its_reason"
    if not os.access(SIM, os.X_OK):
        print("SKIP: pkg/%s -- no %s (make tools)" % (name, SIM))
        return
    svg = os.path.join(OUT, "sim-unplaced.svg")
    res = subprocess.run([SIM, "--dims", "6x6", "--miswire", "nodes",
                          "--node-fail", "0.15", "--link-fail", "0.15",
                          "--seed", "3", "-j", "--svg", svg],
                         capture_output=True, text=True, timeout=120)
    if res.returncode not in (0, 1) or not os.path.exists(svg):
        result(name, False, "torus-sim: %s" % res.stderr[-300:])
        return
    j = json.loads(res.stdout)
    drawn = re.findall(r'<g class="node unplaced"><title>node \d+ '
                       r'\([0-9,]+\): ([^<]+)</title>', open(svg).read())
    want = j["unplaced_reasons"]
    got = {r: drawn.count(r) for r in set(drawn)}
    result(name, j["unplaced"] > 0 and got == want,
           "%d drawn unplaced, %d reported; %s vs %s" % (
               len(drawn), j["unplaced"], got, want))


def main():
    os.makedirs(OUT, exist_ok=True)
    if not os.access(TORUS, os.X_OK):
        print("SKIP: pkg/topo -- no %s (make tools)" % TORUS)
        return 0
    cases = [slices_case, round_trip_case, malformed_case, dot_case,
             sim_unplaced_case]
    if svgshot.browser():
        cases += [picture_case, sim_case]
    else:
        print("SKIP: pkg/topo_svg_in_chromium -- no chromium (make deps)")
    for c in cases:
        try:
            c()
        except Exception as e:  # noqa: BLE001 - any error fails the case
            result(c.__name__, False, "%s: %s" % (type(e).__name__, e))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
