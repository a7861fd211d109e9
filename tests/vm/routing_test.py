#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""VM scenarios for fault-tolerant routing in torus.ko (runs in the VM).

Lambs (forward, but are no endpoint: their own drop reason), plans and
virtual channels as "torus route get" reports them, the exception
table's generation in "torus -j route show" and "node show", and the
install time of a node's whole table in a 65,536-node fabric (40,000
exceptions, one ROUTE_BATCH request sent by this script, timed from
send to acknowledgement).  With --baseline-ko the same request is timed
on another build of the module in the same VM run first.

    routing_test.py [--exceptions N] [--baseline-ko PATH] [--rounds N]

Prints PASS:/FAIL:/SKIP: lines for the aggregator.
"""

import argparse
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import REPO, TORUS_KO, case, results  # noqa: E402
import torus_lab  # noqa: E402
from torus_lab import Rack  # noqa: E402

NLA_F_NESTED = 0x8000


def uapi_enum(name):
    """{entry: value} of enum @name in uapi/linux/torus.h (the contract,
    read rather than copied)."""
    with open(os.path.join(REPO, "uapi", "linux", "torus.h")) as f:
        text = f.read()
    body = text[text.index("enum %s {" % name):]
    body = body[body.index("{") + 1:body.index("};")]
    out, val = {}, 0
    for line in body.splitlines():
        line = line.split("/*")[0].strip().rstrip(",")
        if not line:
            continue
        if "=" in line:
            line, v = [x.strip() for x in line.split("=")]
            if not v[0].isdigit():
                continue    # the X_MAX = __X_MAX - 1 sentinel
            val = int(v, 0)
        out[line] = val
        val += 1
    return out


_cmd, _attr, _rattr = (uapi_enum("torus_cmd"), uapi_enum("torus_attr"),
                       uapi_enum("torus_route_attr"))
CMD_ROUTE_BATCH = _cmd["TORUS_CMD_ROUTE_BATCH"]
A_IFINDEX, A_ROUTE, A_ROUTES_REPLACE = (
    _attr["TORUS_A_IFINDEX"], _attr["TORUS_A_ROUTE"],
    _attr["TORUS_A_ROUTES_REPLACE"])
ROUTE_A_DST, ROUTE_A_VIA, ROUTE_A_DIR = (
    _rattr["TORUS_ROUTE_A_DST"], _rattr["TORUS_ROUTE_A_VIA"],
    _rattr["TORUS_ROUTE_A_DIR"])


def torus(ns, *args, check=True):
    return torus_lab.run(["torus", "-n", ns] + list(args), check=check)


def tjson(ns, *args):
    return torus_lab.loads_strict(torus(ns, "-j", *args).stdout)


@case("lamb_forwards_but_is_no_endpoint")
def check_lamb(rack):
    """On a line 0-1-2, node 1 made a lamb: 0 still reaches 2 through
    it; pings to it and from it are dropped as "lamb", counted."""
    a, lamb, c = (0,), (1,), (2,)
    ns = rack.ns(lamb)
    torus(ns, "node", "set", "dev", "tor0", "role", "lamb")
    try:
        node = rack.node_json(lamb)
        assert node["role"] == "lamb", node["role"]
        drops0 = node["stats"]["drop"]["lamb"]
        assert rack.ping(a, c), "transit through the lamb failed"
        assert not rack.ping(a, lamb, wait=1), "a lamb answered"
        assert not rack.ping(lamb, c, wait=1), "a lamb sent"
        drops = rack.node_json(lamb)["stats"]["drop"]["lamb"] - drops0
        text = torus(ns, "node", "show").stdout
    finally:
        torus(ns, "node", "set", "dev", "tor0", "role", "static")
    assert drops >= 2, "lamb drops +%d" % drops
    assert " role lamb " in text, text
    assert rack.ping(a, lamb), "not an endpoint again"
    return "lamb drops +%d" % drops


@case("route_get_plan_round_vc_why")
def check_route_get(rack):
    """route get names the plan, round, vc, intermediate and why."""
    src = rack.nodes[0]
    ns = rack.ns(src)
    got = tjson(ns, "route", "get", "2,1")
    assert (got["why"], got["plan"], got["round"], got["vc"],
            got["next_dir"]) == ("dor", 0, 0, 0, "+x"), got
    # every node holds the same plans: transit nodes route by them
    for c in rack.nodes:
        torus(rack.ns(c), "route", "plans", "set", "1:yx:+,-", "2:xy")
    torus(ns, "route", "add", "2,1", "via", "0,2", "plan", "1", "plan1",
          "2")
    try:
        got = tjson(ns, "route", "get", "2,1")
        assert (got["why"], got["plan"], got["round"], got["vc"],
                got["via"], got["next_dir"], got["plan1"]) == \
            ("exception", 1, 0, 4, [0, 2], "+y", 2), got
        node = tjson(ns, "node", "show")[0]
        assert node["plans"] == [
            {"index": 1, "order": "yx", "policy": ["+", "-"]},
            {"index": 2, "order": "xy", "policy": ["shortest"] * 2}], \
            node["plans"]
        # round 0 by plan 1 to (0,2), round 1 by plan 2 on from there
        assert rack.ping(src, (2, 1)), "ping by plans 1, 2 via (0,2)"
        text = torus(ns, "route", "get", "2,1").stdout
        assert "why exception" in text and "plan 1" in text and \
            "plan1 2" in text, text
        res = torus(ns, "route", "add", "3,3", "plan", "8", check=False)
        assert res.returncode != 0 and "plan" in res.stderr, res.stderr
    finally:
        torus(ns, "route", "del")
        for c in rack.nodes:
            torus(rack.ns(c), "route", "plans", "flush")
    assert tjson(ns, "node", "show")[0]["plans"] == []


@case("route_table_generation")
def check_generation(rack):
    """Every install bumps the table's generation once; dumps and node
    show carry it."""
    ns = rack.ns(rack.nodes[0])
    g0 = tjson(ns, "node", "show")[0]["routes_generation"]
    torus(ns, "route", "add", "3,0", "dir", "-x")
    shown = tjson(ns, "route", "show")
    assert [(r["dst"], r["generation"]) for r in shown] == \
        [([3, 0], g0 + 1)], shown
    res = torus_lab.run(["torus", "-n", ns, "route", "batch", "-",
                         "replace"], input="1,1 dir +y\n2,2 plan 0 via 1,1\n"
                        "3,3 plan 1\n", check=False)
    assert res.returncode == 0, res.stderr
    shown = tjson(ns, "route", "show")
    assert {r["generation"] for r in shown} == {g0 + 2}, shown
    assert sorted(r["dst"] for r in shown) == [[1, 1], [2, 2], [3, 3]]
    assert [r.get("plan") for r in shown if r["dst"] == [3, 3]] == [1]
    torus(ns, "route", "del")
    node = tjson(ns, "node", "show")[0]
    assert node["routes_generation"] == g0 + 3 and node["routes"] == 0, node
    return "generation %d -> %d" % (g0, g0 + 3)


# ---- install time: one request built here, timed send to ack ----

def nla(kind, payload):
    n = 4 + len(payload)
    return struct.pack("HH", n, kind) + payload + b"\0" * ((4 - n % 4) % 4)


def coord_nest(kind, coord):
    return nla(kind | NLA_F_NESTED,
               b"".join(nla(i + 1, struct.pack("I", c))
                        for i, c in enumerate(coord)))


class Genl:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
        self.s.setsockopt(socket.SOL_SOCKET, 32, 64 << 20)  # SNDBUFFORCE
        self.s.setsockopt(270, 10, 1)  # SOL_NETLINK, NETLINK_CAP_ACK
        self.s.setsockopt(270, 11, 1)  # NETLINK_EXT_ACK
        self.s.bind((0, 0))
        self.seq = 0
        self.family = self.resolve("torus")

    def request(self, family, cmd, attrs, flags=0x5):  # REQUEST|ACK
        self.seq += 1
        body = struct.pack("BBH", cmd, 1, 0) + attrs
        return struct.pack("IHHII", 16 + len(body), family, flags, self.seq,
                           0) + body

    def talk(self, msg):
        self.s.send(msg)
        while True:
            data = self.s.recv(1 << 20)
            off = 0
            while off < len(data):
                ln, typ = struct.unpack_from("IH", data, off)
                if typ == 2:  # NLMSG_ERROR: errno, then the extack text
                    err = -struct.unpack_from("i", data, off + 16)[0]
                    msg = b""
                    at = off + 36
                    while at + 4 <= off + ln:
                        alen, atype = struct.unpack_from("HH", data, at)
                        if atype == 1:  # NLMSGERR_ATTR_MSG
                            msg = data[at + 4:at + alen]
                        at += (alen + 3) & ~3
                    return err, msg
                if typ == 3:
                    return 0, b""
                off += (ln + 3) & ~3

    def resolve(self, name):
        self.seq += 1
        body = struct.pack("BBH", 3, 1, 0) + nla(2, name.encode() + b"\0")
        self.s.send(struct.pack("IHHII", 16 + len(body), 0x10, 1, self.seq,
                                0) + body)
        data = self.s.recv(65536)
        off = 20
        while off < len(data):
            ln, kind = struct.unpack_from("HH", data, off)
            if kind == 1:
                return struct.unpack_from("H", data, off + 4)[0]
            off += (ln + 3) & ~3
        raise RuntimeError("no torus family")


# 65,536 nodes as BG/L would have them: a 64x32x32 torus (diameter 64)
DIMS = (64, 32, 32)


def scattered(n):
    """n distinct coordinates spread over the fabric (a bijection)."""
    out = []
    for i in range(n):
        k = (i * 40503) % (DIMS[0] * DIMS[1] * DIMS[2])
        out.append((k % DIMS[0], k // DIMS[0] % DIMS[1],
                    k // (DIMS[0] * DIMS[1])))
    return out


def time_install(ns, n, rounds, baseline):
    """Seconds per install of n exceptions, best of @rounds."""
    torus(ns, "node", "set", "dev", "tor0", "coord", "0,0,0", "dims",
          ",".join(map(str, DIMS)), "wrap", "1,1,1")
    routes = []
    for i, dst in enumerate(scattered(n)):
        if dst == (0, 0, 0):
            continue
        extra = coord_nest(ROUTE_A_VIA, (dst[0], 0, 0)) if i % 2 else \
            nla(ROUTE_A_DIR, struct.pack("B", 2))
        routes.append(nla(A_ROUTE | NLA_F_NESTED,
                          coord_nest(ROUTE_A_DST, dst) + extra))
    best = None
    with torus_lab.netns(ns):
        ifindex = socket.if_nametoindex("tor0")
        g = Genl()
        msg = g.request(g.family, CMD_ROUTE_BATCH,
                        nla(A_IFINDEX, struct.pack("I", ifindex)) +
                        nla(A_ROUTES_REPLACE, b"") + b"".join(routes))
        for _ in range(rounds):
            t0 = time.perf_counter()
            err, info = g.talk(msg)
            dt = time.perf_counter() - t0
            assert err == 0, "ROUTE_BATCH: errno %d %r" % (err, info[:200])
            best = dt if best is None else min(best, dt)
    count = len(tjson(ns, "route", "show")) if baseline else \
        tjson(ns, "node", "show")[0]["routes"]
    assert count == len(routes), "%d of %d installed" % (count, len(routes))
    return best, len(routes), len(msg)


def install_case(n, baseline_ko, rounds):
    @case("install_%d_exceptions_in_one_batch" % n)
    def check():
        ns = "inst0"
        out = []

        def one(label, baseline=False):
            torus_lab.run(["ip", "netns", "add", ns])
            try:
                torus_lab.run(["ip", "-n", ns, "link", "add", "tor0", "type",
                               "torus"])
                secs, count, size = time_install(ns, n, rounds, baseline)
            finally:
                torus_lab.run(["ip", "netns", "del", ns], check=False)
            out.append("%s %.1f ms" % (label, secs * 1e3))
            return secs, count, size

        if baseline_ko:
            torus_lab.run(["rmmod", "torus"])
            torus_lab.run(["insmod", baseline_ko])
            try:
                base = one("baseline", True)[0]
            finally:
                torus_lab.run(["rmmod", "torus"])
                torus_lab.run(["insmod", TORUS_KO])
        secs, count, size = one("this build")
        if baseline_ko:
            out.append("ratio %.2f" % (secs / base))
        return "%d exceptions, %d-byte request, best of %d: %s" % (
            count, size, rounds, ", ".join(out))
    return check


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--exceptions", type=int, default=40000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--baseline-ko", help="time this module first")
    args = ap.parse_args()
    line = Rack([3], [False], prefix="rl")
    line.build(static=True)
    try:
        check_lamb(line)
    finally:
        line.destroy()
    mesh = Rack([4, 4], [False, False], prefix="rm")
    mesh.build(static=True)
    try:
        check_route_get(mesh)
        check_generation(mesh)
    finally:
        mesh.destroy()
    install_case(args.exceptions, args.baseline_ko, args.rounds)()
    return 0 if results["fail"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
