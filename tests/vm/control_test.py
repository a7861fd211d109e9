#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""VM scenarios for the control path (runs inside the test VM).

Route exceptions across a geometry change, the hop limit against the
fabric's diameter, loading many exceptions one by one beside one batch
(timed in the same run), and permissions: every change refused, with a
reason, to an unprivileged user and to a user namespace that does not own
the device's netns; allowed in a netns the user namespace owns.

    control_test.py [--routes N]

Prints PASS:/FAIL:/SKIP: lines for the aggregator.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import case, results, skip  # noqa: E402
import torus_lab  # noqa: E402

NS = "ctl0"
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
          "--inh-caps=-all", "--bounding-set=-all"]


def sh(args, check=True, **kw):
    return torus_lab.run(args, check=check, **kw)


def torus(*args, check=True):
    return sh(["torus", "-n", NS] + list(args), check=check)


def torus_as(prefix, *args):
    """The tool run in the netns by a less privileged @prefix: it enters
    the netns first, as root (entering needs CAP_SYS_ADMIN there)."""
    return sh(["ip", "netns", "exec", NS] + list(prefix) + ["torus"] +
              list(args), check=False)


def torus_json(*args):
    return json.loads(torus("-j", *args).stdout)


def node_id(node):
    """ids are 64-bit: a JSON string or, from older tools, a number"""
    return str(node["id"])


def node_set(*args, check=True):
    return torus("node", "set", "dev", "tor0", *args, check=check)


def routes():
    return [tuple(r["dst"]) for r in torus_json("route", "show")]


def setup():
    sh(["ip", "netns", "add", NS])
    sh(["ip", "-n", NS, "link", "add", "tor0", "type", "torus"])
    sh(["torus", "-n", NS, "link", "add", "px", "dir", "+x", "peer", "mx",
        "dir", "-x"])
    sh(["ip", "-n", NS, "link", "set", "px", "master", "tor0"])
    for dev in ("tor0", "px", "mx"):
        sh(["ip", "-n", NS, "link", "set", dev, "up"])


def teardown():
    sh(["ip", "netns", "del", NS], check=False)


@case("geometry_change_prunes_route_exceptions")
def check_prune():
    """Shrinking the extents drops the exceptions towards nodes that no
    longer exist; the others stay."""
    node_set("coord", "0,0", "dims", "8,8")
    torus("route", "add", "6,0", "dir", "+x")
    torus("route", "add", "1,1", "dir", "+y")
    torus("route", "add", "2,0", "via", "0,7")
    assert len(routes()) == 3, routes()
    node_set("coord", "0,0", "dims", "4,4")
    got = routes()
    assert got == [(1, 1)], "after 8x8 -> 4x4: %s" % got
    node_set("coord", "0", "dims", "4")
    assert routes() == [], routes()


@case("diameter_over_hop_limit_refused")
def check_diameter():
    """A geometry a frame cannot cross within the hop limit is refused
    with the reason, and nothing changes."""
    node_set("coord", "0,0", "dims", "8,8")
    before = torus_json("node", "show")[0]
    res = node_set("coord", "0,0,0", "dims", "200,200,200", check=False)
    assert res.returncode != 0, "a 300-hop diameter was accepted"
    assert "diameter" in res.stderr, res.stderr
    res = node_set("hoplimit", "7", check=False)
    assert res.returncode != 0, "hop limit 7 accepted on an 8x8 torus"
    assert "diameter" in res.stderr, res.stderr
    after = torus_json("node", "show")[0]
    for k in ("dims", "hop_limit", "generation"):
        assert before[k] == after[k], "%s: %s -> %s" % (k, before[k], after[k])
    node_set("hoplimit", "8")


@case("fabric_over_2_32_nodes_refused")
def check_rank_range():
    """A node's rank (collectives' node lists) is a u32: extents of more
    than 2^32 nodes are refused with the reason, and nothing changes."""
    node_set("coord", "0,0", "dims", "8,8")
    before = torus_json("node", "show")[0]
    # 17^8 nodes (about 7 * 10^9), 64 hops across
    res = node_set("coord", ",".join(["0"] * 8), "dims", ",".join(["17"] * 8),
                   check=False)
    assert res.returncode != 0, "a fabric of 17^8 nodes was accepted"
    assert "2^32 nodes" in res.stderr, res.stderr
    after = torus_json("node", "show")[0]
    for k in ("dims", "coord", "hop_limit", "generation"):
        assert before[k] == after[k], "%s: %s -> %s" % (k, before[k], after[k])


@case("route_batch_replace_merge_and_errors")
def check_batch_semantics():
    """A batch merges, or replaces with "replace"; a bad line or a
    duplicate destination changes nothing and says where."""
    node_set("coord", "0,0", "dims", "8,8", "hoplimit", "0")
    torus("route", "del")
    torus("route", "add", "3,3", "dir", "+x")
    batch = "# comment\n1,0 dir +y\n\n2,0 via 0,1  # detour\n"
    sh(["torus", "-n", NS, "route", "batch", "-"], input=batch)
    assert routes() == [(1, 0), (2, 0), (3, 3)], routes()
    sh(["torus", "-n", NS, "route", "batch", "-", "replace"], input=batch)
    assert routes() == [(1, 0), (2, 0)], routes()
    res = sh(["torus", "-n", NS, "route", "batch", "-"], check=False,
             input="4,4 dir +x\n4,4 dir -x\n")
    assert res.returncode != 0 and "twice" in res.stderr, res.stderr
    res = sh(["torus", "-n", NS, "route", "batch", "-"], check=False,
             input="4,4 dir +x\n9,9 dir -x\n")
    assert res.returncode != 0 and "outside" in res.stderr, res.stderr
    res = sh(["torus", "-n", NS, "route", "batch", "-"], check=False,
             input="4,4 dir +x\n5,5 sideways\n")
    assert res.returncode != 0 and "line 2" in res.stderr, res.stderr
    assert routes() == [(1, 0), (2, 0)], routes()
    torus("route", "del")


@case("route_batch_vs_single_adds")
def check_batch_timing(n):
    """N exceptions: N single adds from one process (torus -batch) beside
    one route batch request, timed in the same run."""
    side = 100
    node_set("coord", "0,0", "dims", "%d,%d" % (side, side), "hoplimit", "0")
    torus("route", "del")
    dsts = ["%d,%d" % (i % side, i // side) for i in range(n)]
    tmp = tempfile.mkdtemp()
    try:
        single = os.path.join(tmp, "single")
        with open(single, "w") as f:
            for d in dsts:
                f.write("route add %s dir +x dev tor0\n" % d)
        batch = os.path.join(tmp, "batch")
        with open(batch, "w") as f:
            for d in dsts:
                f.write("%s dir +x\n" % d)
        t0 = time.monotonic()
        sh(["torus", "-n", NS, "-batch", single], timeout=3600)
        t_single = time.monotonic() - t0
        assert len(routes()) == n
        torus("route", "del")
        t0 = time.monotonic()
        sh(["torus", "-n", NS, "route", "batch", batch, "dev", "tor0"])
        t_batch = time.monotonic() - t0
        assert len(routes()) == n
    finally:
        shutil.rmtree(tmp)
        torus("route", "del")
    return "%d routes: single adds %.2f s, one batch %.3f s, ratio %.0f" % (
        n, t_single, t_batch, t_single / t_batch)


# every command that changes state, on the node set up by setup()
CHANGES = [
    ["node", "set", "dev", "tor0", "id", "9"],
    ["port", "map", "set", "dev", "tor0", "+x", "px"],
    ["port", "map", "flush", "dev", "tor0"],
    ["cable", "set", "px", "down"],
    ["route", "add", "1,1", "dir", "+x"],
    ["route", "del"],
    ["route", "plans", "set", "1:yx"],
    ["route", "plans", "flush"],
    ["stats", "reset"],
    ["node", "rediscover", "dev", "tor0"],
]


def refused_with_reason(prefix, who):
    for args in CHANGES + [["route", "batch", "/dev/null"]]:
        res = torus_as(prefix, *args)
        assert res.returncode != 0, "%s: %s accepted" % (who, " ".join(args))
        assert "CAP_NET_ADMIN" in res.stderr, "%s: %s: %r" % (
            who, " ".join(args), res.stderr)


@case("changes_refused_to_unprivileged_user")
def check_nobody():
    """Reading works as nobody; every change is refused with the reason
    (the tool prints the kernel's extended ACK)."""
    node_set("coord", "0,0", "dims", "8,8", "id", "5")
    res = torus_as(NOBODY, "-j", "node", "show")
    assert res.returncode == 0, res.stderr
    # bare "port map" and "route plans" only read
    for args in (["port", "map"], ["route", "plans"]):
        res = torus_as(NOBODY, "-j", *args)
        assert res.returncode == 0, "%s: %r" % (" ".join(args), res.stderr)
    refused_with_reason(NOBODY, "nobody")
    assert node_id(torus_json("node", "show")[0]) == "5"


@case("changes_refused_to_foreign_user_namespace")
def check_userns_foreign():
    """Root of a new user namespace is not root of the netns the init
    user namespace owns."""
    refused_with_reason(["unshare", "-Ur"], "unshare -Ur")
    assert node_id(torus_json("node", "show")[0]) == "5"


@case("user_namespace_manages_its_own_netns")
def check_userns_own():
    """In a netns it owns, a user namespace creates and configures its
    own node, as ip link does, while unprivileged outside it."""
    script = ("ip link add tor0 type torus && "
              "torus node set dev tor0 coord 1,0 dims 4,4 id 3 && "
              "torus route add 2,0 dir +x && "
              "torus route batch - replace <<EOF\n3,0 dir -x\nEOF\n"
              "torus stats reset && torus -j node show && "
              "torus -j route show")
    res = sh(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
              "unshare", "-Urn", "sh", "-c", script], check=False)
    assert res.returncode == 0, res.stderr
    lines = [l for l in res.stdout.splitlines() if l.strip()]
    node = json.loads(lines[0])[0]
    assert node_id(node) == "3" and node["coord"] == [1, 0], node
    assert [r["dst"] for r in json.loads(lines[1])] == [[3, 0]], lines[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--routes", type=int, default=10000,
                    help="exceptions to load in the timing case")
    args = ap.parse_args()
    setup()
    try:
        check_prune()
        check_diameter()
        check_rank_range()
        check_batch_semantics()
        check_batch_timing(args.routes)
        check_nobody()
        if shutil.which("unshare"):
            check_userns_foreign()
            check_userns_own()
        else:
            skip("changes_refused_to_foreign_user_namespace", "no unshare")
            skip("user_namespace_manages_its_own_netns", "no unshare")
    finally:
        teardown()
    return 0 if results["fail"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
