# SPDX-License-Identifier: GPL-2.0-or-later
"""torus-lab: racks of network namespaces cabled as a torus or mesh.

A rack is one namespace per node, named after its true coordinates
(n0-1-2), each with a node device tor0 and one torport per direction
that has a neighbour, port names after their connector labels (px, mx,
py, my, ...).  Cables are built in one `torus -batch` run and the
per-node setup in one `ip -batch` per node, since a process start costs
~50 ms under TCG.

The module is importable: the VM scenarios and the demo drive racks
through it; `torus-lab --help` is the command line.
"""

import argparse
import concurrent.futures
import ipaddress
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time

AXES = "xyzabcde"
IPV6_PREFIX = bytes([0xFD, 0x74, 0x6F, 0x72, 0x75, 0x73, 0, 0])
TORUS = os.environ.get("TORUS", "torus")
IP = os.environ.get("IP", "ip")


def run(args, check=True, capture=True, timeout=120):
    res = subprocess.run(args, capture_output=capture, text=True,
                         timeout=timeout)
    if check and res.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(args),
                                                res.returncode,
                                                (res.stderr or "").strip()))
    return res


def parse_dims(text):
    """'4x4x4' -> [4, 4, 4]"""
    dims = [int(v) for v in text.lower().split("x")]
    if not 1 <= len(dims) <= len(AXES) or not all(1 <= d <= 256
                                                    for d in dims):
        raise ValueError("dims: 1 to 8 extents of 1..256, e.g. 4x4x4")
    return dims


def parse_wrap(text, ndims):
    """'torus' | 'mesh' | '1,0,1' -> [bool]"""
    if text in ("torus", None):
        return [True] * ndims
    if text == "mesh":
        return [False] * ndims
    wrap = [v.strip() in ("1", "torus", "t", "true") for v in text.split(",")]
    if len(wrap) != ndims:
        raise ValueError("wrap: one flag per axis")
    return wrap


def addr4(coord):
    """IPv4 by the address plan: 10.x.y.z, up to 3 axes."""
    if len(coord) > 3:
        return None
    c = list(coord) + [0] * (3 - len(coord))
    return "10.%d.%d.%d" % tuple(c)


def addr6(coord):
    """IPv6 by the address plan: fd74:6f72:7573::/64 + coordinate bytes."""
    iid = bytes(list(coord) + [0] * (8 - len(coord)))
    return str(ipaddress.IPv6Address(IPV6_PREFIX + iid))


def addr(coord):
    return addr4(coord) or addr6(coord)


def dir_name(axis, neg):
    return ("-" if neg else "+") + AXES[axis]


def port_name(axis, neg):
    return ("m" if neg else "p") + AXES[axis]


class Rack:
    """A rack of namespaces; coordinates are tuples."""

    def __init__(self, dims, wrap=None, prefix="n"):
        self.dims = list(dims)
        self.wrap = list(wrap) if wrap else [True] * len(dims)
        self.prefix = prefix
        self.nodes = list(itertools.product(*[range(d) for d in self.dims]))
        # itertools varies the last axis fastest; list x-major for humans
        self.cut = set()

    def ns(self, coord):
        return self.prefix + "-".join(str(c) for c in coord)

    def neighbor(self, coord, axis, neg):
        """The node across the port for (axis, neg), or None."""
        ext = self.dims[axis]
        if ext == 1:
            return None
        c = list(coord)
        step = -1 if neg else 1
        nxt = c[axis] + step
        if 0 <= nxt < ext:
            c[axis] = nxt
        elif self.wrap[axis]:
            c[axis] = nxt % ext
        else:
            return None
        return tuple(c)

    def ports(self, coord):
        """[(axis, neg)] of the ports this node has."""
        return [(a, n) for a in range(len(self.dims)) for n in (False, True)
                if self.neighbor(coord, a, n) is not None]

    def cables(self):
        """Each cable once: (node, axis) from node's + port to the - port
        of its + neighbour."""
        for coord in self.nodes:
            for axis in range(len(self.dims)):
                if self.neighbor(coord, axis, False) is not None:
                    yield coord, axis

    # ---- building ----

    def build(self, static=True):
        t0 = time.monotonic()
        self.destroy(quiet=True)
        with tempfile.NamedTemporaryFile("w", suffix=".ip", delete=False) as f:
            for coord in self.nodes:
                f.write("netns add %s\n" % self.ns(coord))
            for coord in self.nodes:
                f.write("link add tor0 netns %s type torus\n" % self.ns(coord))
            ipbatch = f.name
        run([IP, "-batch", ipbatch])
        os.unlink(ipbatch)

        lines = []
        for coord, axis in self.cables():
            peer = self.neighbor(coord, axis, False)
            lines.append("link add %s dir %s netns %s master tor0 "
                         "peer %s dir %s netns %s master tor0" %
                         (port_name(axis, False), dir_name(axis, False),
                          self.ns(coord), port_name(axis, True),
                          dir_name(axis, True), self.ns(peer)))
        self.torus_batch(lines)

        for coord in self.nodes:
            cmds = ["link set dev lo up"]
            cmds += ["link set dev %s up" % port_name(a, n)
                     for a, n in self.ports(coord)]
            cmds.append("link set dev tor0 up")
            if static:
                if addr4(coord):
                    cmds.append("addr add %s/8 dev tor0" % addr4(coord))
                cmds.append("addr add %s/64 dev tor0 nodad" % addr6(coord))
            with tempfile.NamedTemporaryFile("w", suffix=".ip",
                                             delete=False) as f:
                f.write("\n".join(cmds) + "\n")
            run([IP, "-n", self.ns(coord), "-batch", f.name])
            os.unlink(f.name)

        if static:
            self.configure_static()
        return time.monotonic() - t0

    def configure_static(self):
        """Give every node its true coordinates and port map by hand."""
        lines = []
        dims = ",".join(str(d) for d in self.dims)
        wrap = ",".join("1" if w else "0" for w in self.wrap)
        for i, coord in enumerate(self.nodes):
            ns = self.ns(coord)
            lines.append("-n %s node set dev tor0 id %d coord %s dims %s "
                         "wrap %s" % (ns, i + 1, ",".join(map(str, coord)),
                                      dims, wrap))
            pm = " ".join("%s %s" % (dir_name(a, n), port_name(a, n))
                          for a, n in self.ports(coord))
            lines.append("-n %s port map dev tor0 %s" % (ns, pm))
        self.torus_batch(lines)

    def torus_batch(self, lines):
        with tempfile.NamedTemporaryFile("w", suffix=".torus",
                                         delete=False) as f:
            f.write("\n".join(lines) + "\n")
        try:
            run([TORUS, "-batch", f.name], timeout=600)
        finally:
            os.unlink(f.name)

    def destroy(self, quiet=False):
        res = run([IP, "netns", "list"], check=False)
        names = [l.split()[0] for l in res.stdout.splitlines() if l.strip()]
        mine = [n for n in names if n.startswith(self.prefix) and
                n[len(self.prefix):len(self.prefix) + 1].isdigit()]
        if not mine:
            return
        with tempfile.NamedTemporaryFile("w", suffix=".ip", delete=False) as f:
            for n in mine:
                f.write("netns del %s\n" % n)
        run([IP, "-force", "-batch", f.name], check=not quiet)
        os.unlink(f.name)

    # ---- using ----

    def exec(self, coord, args, **kw):
        return run([IP, "netns", "exec", self.ns(coord)] + list(args), **kw)

    def torus_json(self, coord, *args):
        res = run([TORUS, "-n", self.ns(coord), "-j"] + list(args))
        return json.loads(res.stdout or "null")

    def ports_json(self, coord):
        return {p["ifname"]: p for p in self.torus_json(coord, "-s", "port",
                                                        "show")}

    def node_json(self, coord):
        return self.torus_json(coord, "-s", "node", "show")[0]

    def ping(self, src, dst, count=1, wait=2, v6=False):
        target = addr6(dst) if v6 or not addr4(dst) else addr4(dst)
        res = self.exec(src, ["ping", "-n", "-q", "-c", str(count), "-W",
                              str(wait), target], check=False)
        return res.returncode == 0

    def ping_all(self, src, dsts=None, v6=False, workers=16):
        """{dst: ok} for every other node (or dsts), pinged in parallel."""
        dsts = [d for d in (dsts or self.nodes) if d != tuple(src)]
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            oks = pool.map(lambda d: self.ping(src, d, v6=v6), dsts)
            return dict(zip(dsts, oks))

    def set_cable(self, coord, axis, neg, state):
        run([TORUS, "-n", self.ns(coord), "cable", "set",
             port_name(axis, neg), state])


def dor_path(dims, wrap, src, dst):
    """The directed hops [(from, to)] dimension-ordered routing takes:
    x first, shortest way round a ring, ties go '+'.  A test oracle,
    written apart from the kernel's implementation on purpose."""
    cur = list(src)
    hops = []
    for axis, ext in enumerate(dims):
        while cur[axis] != dst[axis]:
            if wrap[axis]:
                up = (dst[axis] - cur[axis]) % ext
                step = 1 if up <= ext - up else -1
            else:
                step = 1 if dst[axis] > cur[axis] else -1
            nxt = list(cur)
            nxt[axis] = (cur[axis] + step) % ext
            hops.append((tuple(cur), tuple(nxt)))
            cur = nxt
    return hops


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="torus-lab",
        description="Build racks of network namespaces cabled as a "
                    "torus or mesh with torus.ko (see torus-lab(8)).")
    ap.add_argument("-j", "--json", action="store_true",
                    help="print a JSON result")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build a rack")
    b.add_argument("--dims", required=True, help="extents, e.g. 4x4x4")
    b.add_argument("--wrap", default="torus",
                   help="torus | mesh | 1,0,1 (per axis)")
    b.add_argument("--prefix", default="n", help="namespace name prefix")
    b.add_argument("--static", action="store_true",
                   help="set coordinates, port maps and addresses by hand")
    d = sub.add_parser("destroy", help="delete a rack's namespaces")
    d.add_argument("--prefix", default="n")
    p = sub.add_parser("ping-all", help="ping every node from one node")
    p.add_argument("--dims", required=True)
    p.add_argument("--wrap", default="torus")
    p.add_argument("--prefix", default="n")
    p.add_argument("--from", dest="src", default=None,
                   help="source coordinates, e.g. 0,0,0")
    p.add_argument("-6", dest="v6", action="store_true", help="use IPv6")
    args = ap.parse_args(argv)

    if args.cmd == "destroy":
        Rack([1], prefix=args.prefix).destroy()
        return 0
    dims = parse_dims(args.dims)
    rack = Rack(dims, parse_wrap(args.wrap, len(dims)), args.prefix)
    if args.cmd == "build":
        secs = rack.build(static=args.static)
        res = {"nodes": len(rack.nodes), "cables": len(list(rack.cables())),
               "seconds": round(secs, 2), "static": args.static}
        if args.json:
            print(json.dumps(res))
        else:
            print("built %d nodes, %d cables in %.1f s" %
                  (res["nodes"], res["cables"], secs))
        return 0
    src = tuple(int(v) for v in args.src.split(",")) if args.src else \
        rack.nodes[0]
    t0 = time.monotonic()
    oks = rack.ping_all(src, v6=args.v6)
    failed = sorted(d for d, ok in oks.items() if not ok)
    res = {"from": list(src), "pinged": len(oks),
           "ok": len(oks) - len(failed),
           "failed": [list(d) for d in failed],
           "seconds": round(time.monotonic() - t0, 2)}
    if args.json:
        print(json.dumps(res))
    else:
        print("ping from %s: %d/%d ok in %.1f s%s" %
              (",".join(map(str, src)), res["ok"], res["pinged"],
               res["seconds"],
               "" if not failed else "; failed: " +
               " ".join(",".join(map(str, d)) for d in failed)))
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
