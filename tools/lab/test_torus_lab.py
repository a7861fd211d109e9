#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Unit tests of torus-lab's pure parts (no namespaces, no module):
specs, the truth a spec gives (wiring, blocks, faults), verification of
synthetic discovery results, the ping oracle.

    python3 tools/lab/test_torus_lab.py      (PASS:/FAIL: lines)
"""

import copy
import os
import random
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torus_lab as tl  # noqa: E402

results = {"pass": 0, "fail": 0}


def case(fn):
    try:
        fn()
        results["pass"] += 1
        print("PASS: lab/%s" % fn.__name__[5:], flush=True)
    except Exception as e:  # a broken step is a failed case
        results["fail"] += 1
        print("FAIL: lab/%s -- %s: %s" % (fn.__name__[5:],
                                          type(e).__name__, e), flush=True)
        traceback.print_exc(file=sys.stdout)
    return fn


def spec(**kw):
    raw = {"dims": "4x4x4"}
    raw.update({k: str(v) for k, v in kw.items()})
    return tl.normalize_spec(raw)


def simulate(truth, iso_perm=None, iso_sign=None, offset=None, seed=0):
    """A perfect discovery result under a random (or given) isometry:
    {ns: node JSON}, {ns: [port JSON]}."""
    rng = random.Random(seed)
    dims, wrap, n = truth["dims"], truth["wrap"], len(truth["dims"])
    perm = iso_perm or rng.sample(range(n), n)
    sign = iso_sign or [rng.choice((1, -1)) for _ in range(n)]
    off = offset or [rng.randrange(dims[a]) if wrap[a] else
                     (0 if s > 0 else dims[a] - 1)
                     for a, s in zip(perm, sign)]
    iso = tl.Isometry(perm, sign, off, dims, wrap)
    rack = tl.rack_from_truth(truth)
    nodes, ports = {}, {}
    leader = max((nd for nd in truth["nodes"] if not nd["dead"]),
                 key=lambda nd: nd["id"])
    for nd in truth["nodes"]:
        c = tuple(nd["coord"])
        if nd["dead"]:
            nodes[nd["ns"]] = {"state": "unconfigured", "coord": [],
                               "role": "none", "reason": ""}
            continue
        nodes[nd["ns"]] = {
            "ifname": "tor0", "id": str(nd["id"]), "state": "placed",
            "role": "leader" if nd is leader else "follower",
            "coord": list(iso.coord(c)), "dims": iso.dims(),
            "wrap": iso.wrap(), "reason": ""}
        plist = []
        for a, neg in rack.ports(c):
            la = rack.label(c, a, neg)
            j, dneg = iso.direction(a, neg)
            carrier = (c, a, neg) not in rack.cut and \
                rack.neighbor(c, a, neg) not in rack.dead
            plist.append({"ifname": tl.port_name(*la),
                          "dir": tl.dir_name(*la),
                          "global_dir": tl.dir_name(j, dneg),
                          "carrier": carrier})
        ports[nd["ns"]] = plist
    return nodes, ports, iso


@case
def test_spec_text():
    raw = tl.parse_spec_text("""
        # a comment
        dims = 4x4x4
        block = 2x2x2     # blocks
        seed = 3
        dead = 1,0,0 2,3,1
        cut = 0,0,0+x 3,3,3-z
    """)
    s = tl.normalize_spec(raw)
    assert s["dims"] == [4, 4, 4] and s["block"] == [2, 2, 2]
    assert s["miswire"] == "blocks" and s["rotations"] == "random"
    assert s["dead"] == [[1, 0, 0], [2, 3, 1]], s["dead"]
    assert s["cut"] == [[[0, 0, 0], "+x"], [[3, 3, 3], "-z"]], s["cut"]
    js = tl.normalize_spec(tl.parse_spec_text(
        '{"dims": [4, 2], "wrap": "mesh", "dead": 2}'))
    assert js["dims"] == [4, 2] and js["wrap"] == [False, False]
    assert js["dead"] == 2
    # the truth file's spec round-trips
    t = tl.plan(s)
    s2 = tl.normalize_spec(t["spec"])
    assert tl.plan(s2) == t


@case
def test_spec_errors():
    for raw, word in (({"dims": "4x4x4", "block": "3x2x2"}, "divide"),
                      ({"dims": "4x4", "miswire": "blocks"}, "block"),
                      ({"dims": "4x4x4", "block": "2x2x2",
                        "miswire": "nodes"}, "contradicts"),
                      ({"dims": "4x4x4", "bogus": "1"}, "unknown"),
                      ({"dims": "4x4", "rotations": "+x+x"}, "permutation"),
                      ({"dims": "4x4", "cut": "0,0+z"}, "axis"),
                      ({"dims": "1x2x3x4x5x6x7x8x2"}, "dims")):
        try:
            tl.plan(tl.normalize_spec(tl.parse_spec_text(
                "\n".join("%s = %s" % kv for kv in raw.items()))))
        except ValueError as e:
            assert word in str(e), "%s: %s" % (raw, e)
        else:
            raise AssertionError("accepted %s" % raw)


def check_wiring(truth):
    """Every cable joins true neighbours; each node's port labels are
    distinct and its rotation maps each label to the cable's true
    direction."""
    rack = tl.rack_from_truth(truth)
    seen = {}
    for cab in truth["cables"]:
        a, b = cab["a"], cab["b"]
        ga, gb = tl.parse_dir(a["dir"]), tl.parse_dir(b["dir"])
        assert ga[0] == gb[0] and ga[1] != gb[1], cab
        assert rack.neighbor(tuple(a["coord"]), *ga) == tuple(b["coord"])
        for end, g in ((a, ga), (b, gb)):
            nd = next(x for x in truth["nodes"] if x["ns"] == end["ns"])
            rot = tl.rot_parse(nd["rotation"], len(truth["dims"]))
            assert tl.rot_to_global(rot, *tl.parse_dir(end["label"])) == g
            assert end["port"] == tl.port_name(*tl.parse_dir(end["label"]))
            key = (end["ns"], end["port"])
            assert key not in seen, "port used twice: %s" % (key,)
            seen[key] = cab
    for c in rack.nodes:
        assert len([k for k in seen if k[0] == rack.ns(c)]) == \
            len(rack.ports(c))


@case
def test_flat_miswire():
    t = tl.plan(spec(miswire="nodes", seed=7))
    rots = {nd["rotation"] for nd in t["nodes"]}
    assert len(rots) > 10, "rotations not random per node: %s" % rots
    check_wiring(t)
    assert t == tl.plan(spec(miswire="nodes", seed=7)), "not reproducible"
    assert t != tl.plan(spec(miswire="nodes", seed=8))
    # rotations do not change when faults are added
    tf = tl.plan(spec(miswire="nodes", seed=7, dead=2, cut=3))
    assert [nd["rotation"] for nd in tf["nodes"]] == \
        [nd["rotation"] for nd in t["nodes"]]
    assert len(tf["dead"]) == 2 and len(tf["cut"]) == 3
    dead = {tuple(c) for c in tf["dead"]}
    for cu in tf["cut"]:
        assert tuple(cu["coord"]) not in dead
    assert sum(c["cut"] for c in tf["cables"]) == 3


@case
def test_odd_shapes_wiring():
    for kw in ({"dims": "5x1x2", "wrap": "0,1,1", "miswire": "nodes"},
               {"dims": "2x2x2x2", "miswire": "nodes"},
               {"dims": "3x3", "wrap": "mesh", "miswire": "nodes"},
               {"dims": "2x2x2x2x2x2x2x2", "miswire": "nodes"},
               {"dims": "4x6x2", "block": "2x3x2",
                "rotations": "identity"}):
        check_wiring(tl.plan(spec(**kw)))


@case
def test_blocks():
    t = tl.plan(spec(block="2x2x2", seed=3))
    check_wiring(t)
    rack = tl.rack_from_truth(t)
    nodes = {tuple(nd["coord"]): nd for nd in t["nodes"]}
    assert len({nd["block_id"] for nd in t["nodes"]}) == 8
    for bid in range(1, 9):
        mem = [nd for nd in t["nodes"] if nd["block_id"] == bid]
        assert len(mem) == 8 and len({nd["rotation"] for nd in mem}) == 1
        assert sorted(tuple(nd["block_coord"]) for nd in mem) == \
            sorted(tl.itertools.product(range(2), repeat=3))
    # a cable inside a block steps the block coordinate along its label
    inside = 0
    for cab in t["cables"]:
        a, b = nodes[tuple(cab["a"]["coord"])], nodes[tuple(cab["b"]["coord"])]
        if a["block_id"] != b["block_id"]:
            continue
        inside += 1
        la, neg = tl.parse_dir(cab["a"]["label"])
        lb, negb = tl.parse_dir(cab["b"]["label"])
        assert la == lb and neg != negb, cab
        d = [y - x for x, y in zip(a["block_coord"], b["block_coord"])]
        want = [0, 0, 0]
        want[la] = -1 if neg else 1
        assert d == want, (cab, d, want)
    assert inside == 8 * 12
    rot = tl.rot_parse(nodes[(0, 0, 0)]["rotation"], 3)
    assert rack.port((0, 0, 0), 0, False) == \
        tl.port_name(*tl.rot_to_local(rot, 0, False))
    # non-cubic blocks: block dims permuted with the rotation
    t = tl.plan(spec(dims="4x6x2", block="2x3x1", seed=5))
    for nd in t["nodes"]:
        rot = tl.rot_parse(nd["rotation"], 3)
        assert nd["block_dims"] == [[2, 3, 1][a] for a, _ in rot]
        assert all(0 <= x < e for x, e in zip(nd["block_coord"],
                                              nd["block_dims"]))


@case
def test_explicit_rotations():
    t = tl.plan(spec(dims="2x2", block="1x1", miswire="blocks",
                     rotations="+y-x"))
    assert {nd["rotation"] for nd in t["nodes"]} == {"+y-x"}
    r = tl.rack_from_truth(t)
    # local +x is global +y: the port serving global +y is px
    assert r.port((0, 0), 1, False) == "px"
    assert r.port((0, 0), 0, False) == "my"
    t = tl.plan(spec(dims="2", miswire="nodes", rotations="+x -x"))
    assert [nd["rotation"] for nd in t["nodes"]] == ["+x", "-x"]


@case
def test_verify_perfect():
    for kw in ({"miswire": "nodes"}, {"block": "2x2x2"},
               {"dims": "5x3", "wrap": "mesh", "miswire": "nodes"},
               {"dims": "4x1x3", "wrap": "1,0,0"},
               {"dims": "2x4x2", "miswire": "nodes"},
               {"dims": "3x2x2x3", "miswire": "nodes"}):
        t = tl.plan(spec(**kw))
        for seed in range(4):
            nodes, ports, iso = simulate(t, seed=seed)
            res = tl.verify(t, nodes, ports)
            assert res["ok"], (kw, seed, str(iso), res)
            assert res["placed"] == res["live"] == res["nodes"]
            assert res["ports_checked"] == 2 * len(t["cables"])


@case
def test_verify_faults():
    t = tl.plan(spec(miswire="nodes", dead=2, cut=3, seed=4))
    nodes, ports, iso = simulate(t)
    res = tl.verify(t, nodes, ports)
    assert res["ok"] and res["live"] == 62 and res["placed"] == 62, res
    rack = tl.rack_from_truth(t)
    near = tl.fault_near(rack)
    far = [c for c in rack.nodes if c not in near and c not in rack.dead]
    assert far, "every node is near a fault"
    # a node near a fault may fail, with its reason reported
    c = sorted(near)[0]
    n2 = copy.deepcopy(nodes)
    n2[rack.ns(c)] = {"state": "failed", "coord": [], "role": "none",
                      "reason": "no satisfying quadruple"}
    res = tl.verify(t, n2, ports)
    assert res["ok"], res
    assert res["unplaced"][0]["reason"] == "no satisfying quadruple"
    assert res["unplaced"][0]["excused"]
    # a node far from any fault may not
    n2[rack.ns(far[0])] = {"state": "discovering", "coord": [],
                           "role": "none", "reason": "waiting"}
    res = tl.verify(t, n2, ports)
    assert not res["ok"] and res["unexcused"] == [rack.ns(far[0])], res


@case
def test_verify_detects_errors():
    t = tl.plan(spec(miswire="nodes", seed=2))
    nodes, ports, iso = simulate(t, seed=1)
    ns = t["nodes"][5]["ns"]
    # a wrong coordinate
    n2 = copy.deepcopy(nodes)
    n2[ns]["coord"][0] = (n2[ns]["coord"][0] + 1) % 4
    res = tl.verify(t, n2, ports)
    assert not res["ok"] and not res["consistent"]
    assert [b["ns"] for b in res["inconsistent"]] == [ns], res
    # a mirrored half (two frames) is inconsistent
    n2 = copy.deepcopy(nodes)
    for nd in t["nodes"][:32]:
        n2[nd["ns"]]["coord"][0] = (4 - n2[nd["ns"]]["coord"][0]) % 4
    res = tl.verify(t, n2, ports)
    assert not res["consistent"] and len(res["inconsistent"]) >= 16
    # wrong extents or wrap
    n2 = copy.deepcopy(nodes)
    n2[ns]["dims"] = [8, 4, 4]
    res = tl.verify(t, n2, ports)
    assert res["consistent"] and not res["dims_ok"] and not res["ok"]
    n2 = copy.deepcopy(nodes)
    n2[ns]["wrap"] = [True, False, True]
    assert not tl.verify(t, n2, ports)["dims_ok"]
    # a wrong port map entry
    p2 = copy.deepcopy(ports)
    p2[ns][0]["global_dir"], p2[ns][1]["global_dir"] = \
        p2[ns][1]["global_dir"], p2[ns][0]["global_dir"]
    res = tl.verify(t, nodes, p2)
    assert not res["portmaps_ok"] and len(res["portmaps_bad"]) >= 2, res
    assert {b["ns"] for b in res["portmaps_bad"]} - {ns} <= \
        {nd["ns"] for nd in t["nodes"]}
    # a mesh frame with its origin inside: modular match is not enough
    tm = tl.plan(spec(dims="4x4", wrap="mesh", miswire="nodes"))
    nodes, ports, _ = simulate(tm, [0, 1], [1, 1], [0, 0])
    assert tl.verify(tm, nodes, ports)["ok"]
    for o in nodes.values():
        o["coord"][0] = (o["coord"][0] + 2) % 4
    assert not tl.verify(tm, nodes, ports)["consistent"]
    # not converged is not ok
    nodes, ports, _ = simulate(t)
    assert not tl.verify(t, nodes, ports, converged=False)["ok"]


@case
def test_verify_extent2_rings():
    """The two cables of an extent-2 ring cannot be told apart: each ring
    may take either sign, but a node's two ports must serve opposite
    directions and so must a cable's two ends."""
    t = tl.plan(spec(dims="2x4", miswire="nodes", seed=1))
    for sign in ([1, 1], [-1, 1], [1, -1], [-1, -1]):
        nodes, ports, _ = simulate(t, [0, 1], sign, [1, 2])
        res = tl.verify(t, nodes, ports)
        assert res["ok"], (sign, res["portmaps_bad"])
    # flip the x ring at y = 2 only (both of its nodes)
    nodes, ports, _ = simulate(t, [0, 1], [1, 1], [1, 2])
    flip = {"+x": "-x", "-x": "+x"}
    for ns in ("n0-2", "n1-2"):
        for p in ports[ns]:
            p["global_dir"] = flip.get(p["global_dir"], p["global_dir"])
    assert tl.verify(t, nodes, ports)["ok"]
    # flip one node only: its cables' ends now agree
    for p in ports["n0-2"]:
        p["global_dir"] = flip.get(p["global_dir"], p["global_dir"])
    res = tl.verify(t, nodes, ports)
    assert not res["portmaps_ok"] and len(res["portmaps_bad"]) == 2, res
    # both x ports on +x
    nodes, ports, _ = simulate(t, [0, 1], [1, 1], [1, 2])
    for p in ports["n0-0"]:
        if p["global_dir"] == "-x":
            p["global_dir"] = "+x"
    assert not tl.verify(t, nodes, ports)["portmaps_ok"]


@case
def test_partition():
    # a 1-D mesh cut in two: the smaller part is excused, not counted
    t = tl.plan(spec(dims="6", wrap="mesh", cut="1+x"))
    nodes, ports, _ = simulate(t, [0], [1], [0])
    for ns in ("n0", "n1"):
        nodes[ns]["coord"] = [nodes[ns]["coord"][0] + 3]
    res = tl.verify(t, nodes, ports)
    assert res["partitioned"] == ["n0", "n1"], res
    assert res["consistent"], res


@case
def test_ping_plan():
    t = tl.plan(spec(dims="4x4", miswire="nodes", dead="1,0", cut="0,1+y"))
    nodes, ports, iso = simulate(t, [0, 1], [1, 1], [0, 0])
    res = tl.verify(t, nodes, ports)
    plan = tl.ping_plan(t, nodes, res, "n0-0")
    must = {ns for ns, _, ok in plan if ok}
    assert len(plan) == 14          # 16 - self - dead
    assert dict((ns, c) for ns, c, _ in plan)["n2-3"] == (2, 3)
    # (0,0)->(2,0) goes through the dead (1,0); (0,2) over the cut
    # (0,1)-(0,2)
    assert "n2-0" not in must and "n0-2" not in must
    assert "n3-0" in must and "n0-1" in must
    # x first: (0,0)->(2,1) crosses the dead (1,0)
    assert "n2-1" not in must
    # (1,1): request x then y runs through (1,0); (0,3): one hop -y
    assert "n1-1" not in must and "n0-3" in must
    # an excused unplaced node is avoided; an unexcused one is not
    nodes["n3-0"]["state"] = "failed"
    res = tl.verify(t, nodes, ports)
    assert res["unplaced"][0]["excused"]
    must = {ns for ns, _, ok in tl.ping_plan(t, nodes, res, "n0-0") if ok}
    assert "n3-0" not in must and "n3-3" not in must and "n0-3" in must
    nodes["n3-0"]["state"] = "placed"
    nodes["n3-3"]["state"] = "discovering"
    res = tl.verify(t, nodes, ports)
    assert not res["unplaced"][0]["excused"]
    must = {ns for ns, _, ok in tl.ping_plan(t, nodes, res, "n0-0") if ok}
    assert "n3-3" in must


def main():
    # not "N passed, N failed": only tests/run prints the summary line
    print("# lab unit tests: %d of %d pass" %
          (results["pass"], results["pass"] + results["fail"]))
    return 1 if results["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
