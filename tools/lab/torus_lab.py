# SPDX-License-Identifier: GPL-2.0-or-later
"""torus-lab: racks of network namespaces cabled as a torus or mesh.

A rack is one namespace per node, named after its true coordinates
(n0-1-2), each with a node device tor0 and one torport per direction
that has a neighbour, port names after their connector labels (px, mx,
py, my, ...).  Cables are built in one `torus -batch` run and the
per-node setup in one `ip -batch` per node, since a process start costs
~50 ms under TCG.

A rack may be miswired the way real machines are: every node (or every
block of nodes, a "midplane") has a signed permutation from its local
connector labels to the global directions, so a cable that runs along
global +x may land on a node's "-z" connector.  A discovery run (`run`)
builds such a rack from a spec, writes the ground truth to a file,
starts torusd on every live node, waits for convergence and checks the
result against the truth (see verify()).

The module is importable: the VM scenarios and the demo drive racks
through it; `torus-lab --help` is the command line, torus-lab(8) the
manual.
"""

import argparse
import collections
import concurrent.futures
import ctypes
import ipaddress
import itertools
import json
import math
import os
import random
import re
import shlex
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

AXES = "xyzabcde"
IPV6_PREFIX = bytes([0xFD, 0x74, 0x6F, 0x72, 0x75, 0x73, 0, 0])
TORUS = os.environ.get("TORUS", "torus")
IP = os.environ.get("IP", "ip")
HERE = os.path.dirname(os.path.realpath(__file__))


def _refuse_constant(name):
    raise ValueError("not strict JSON: %s" % name)


def loads_strict(text):
    """json.loads refusing NaN, Infinity and -Infinity, as jq, Go and
    JavaScript's JSON.parse do: every JSON this lab reads must pass
    them."""
    return json.loads(text, parse_constant=_refuse_constant)


STRICT_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def dumps(value, **kw):
    """json.dumps that raises on NaN and infinities instead of writing
    them (Python's default writes NaN, which strict parsers refuse)."""
    return json.dumps(value, allow_nan=False, **kw)


def run(args, check=True, capture=True, timeout=120, input=None):
    res = subprocess.run(args, capture_output=capture, text=True,
                         timeout=timeout, input=input)
    if check and res.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(args),
                                                res.returncode,
                                                (res.stderr or "").strip()))
    return res


def parse_dims(text):
    """'4x4x4' -> [4, 4, 4]"""
    dims = [int(v) for v in str(text).lower().split("x")]
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


def plan_addresses(coord):
    """The node's addresses by the plan, as "address/prefixlen" (what
    torusd installs on tor0)."""
    out = ["%s/64" % addr6(coord)]
    if addr4(coord):
        out.append("%s/8" % addr4(coord))
    return out


def in_plan(text):
    """An "address/prefixlen" in the plan's prefixes (torusd's to
    manage on tor0)."""
    ip = ipaddress.ip_interface(text).ip
    if ip.version == 4:
        return ip in ipaddress.ip_network("10.0.0.0/8")
    return ip in ipaddress.ip_network(str(ipaddress.IPv6Address(
        IPV6_PREFIX + bytes(8))) + "/64")


def dir_name(axis, neg):
    return ("-" if neg else "+") + AXES[axis]


def parse_dir(text):
    """'+x' -> (0, False); '-z' -> (2, True)"""
    if len(text) != 2 or text[0] not in "+-" or text[1] not in AXES:
        raise ValueError("bad direction %r (want +x, -y, ... +e)" % text)
    return AXES.index(text[1]), text[0] == "-"


def port_name(axis, neg):
    return ("m" if neg else "p") + AXES[axis]


def fmt(coord):
    return ",".join(map(str, coord))


def parse_coord(text, ndims):
    c = tuple(int(v) for v in text.split(","))
    if len(c) != ndims:
        raise ValueError("coordinate %r: want %d values" % (text, ndims))
    return c


# ---- signed permutations: a node's or block's wiring ----
#
# A rotation is a tuple with one (global_axis, neg) per LOCAL axis: the
# local connector "+<local axis i>" is cabled along global direction
# rot[i], "-<i>" along its opposite.  Identity: ((0, False), (1, False),
# ...).  Written as the global directions of the local + connectors in
# local axis order: "+y-x+z" is local +x -> global +y, local +y ->
# global -x, local +z -> global +z.

def rot_identity(n):
    return tuple((i, False) for i in range(n))


def rot_str(rot):
    return "".join(dir_name(a, n) for a, n in rot)


def rot_parse(text, n):
    toks = re.findall(r"[+-][a-z]", text)
    if "".join(toks) != text or len(toks) != n:
        raise ValueError("rotation %r: want %d directions like +y-x+z" %
                         (text, n))
    rot = tuple(parse_dir(t) for t in toks)
    if sorted(a for a, _ in rot) != list(range(n)):
        raise ValueError("rotation %r is not a permutation of the axes" %
                         text)
    return rot


def rot_random(rng, n):
    axes = list(range(n))
    rng.shuffle(axes)
    return tuple((a, rng.random() < 0.5) for a in axes)


def rot_to_global(rot, laxis, lneg):
    """local label -> global direction"""
    a, n = rot[laxis]
    return a, lneg != n


def rot_to_local(rot, axis, neg):
    """global direction -> local label"""
    for i, (a, n) in enumerate(rot):
        if a == axis:
            return i, neg != n
    raise ValueError("axis %d not in rotation" % axis)


# ---- network namespaces without an exec ----
#
# A process start costs ~50 ms under TCG (much more with 64 daemons
# running) and `ip netns exec` is two of them: per-node link and address
# setup goes through route sockets and the pings of a check through raw
# sockets that this process opens inside the namespace (setns() of one
# thread, and back); daemons are started from inside it (a child starts
# in its parent thread's namespace).

CLONE_NEWNET = 0x40000000
NETNS_DIR = "/run/netns"
_libc = None


def _setns(fd):
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, "setns: %s" % os.strerror(err))


class netns:
    """with netns(NAME): the calling thread runs in that namespace;
    sockets made inside stay in it after the block."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        fd = os.open(os.path.join(NETNS_DIR, self.name), os.O_RDONLY)
        try:
            _setns(fd)
        except OSError:
            os.close(self.home)
            raise
        finally:
            os.close(fd)
        return self

    def __exit__(self, *exc):
        try:
            _setns(self.home)
        finally:
            os.close(self.home)


# rtnetlink, for the few requests a rack needs per node (link up,
# address add) without an `ip` process per node

RTM_NEWLINK, RTM_NEWADDR, RTM_GETADDR = 16, 20, 22
NLM_F_REQUEST, NLM_F_ACK, NLM_F_REPLACE, NLM_F_CREATE = 1, 4, 0x100, 0x400
NLM_F_DUMP = 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
IFA_ADDRESS, IFA_LOCAL, IFA_FLAGS = 1, 2, 8
IFA_F_NODAD = 0x02
IFF_UP = 1


def _nla(kind, data):
    ln = 4 + len(data)
    return struct.pack("HH", ln, kind) + data + bytes((4 - ln % 4) % 4)


class Rtnl:
    """A NETLINK_ROUTE socket in one namespace (made inside netns())."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  socket.NETLINK_ROUTE)
        self.sock.bind((0, 0))
        self.seq = 0

    def close(self):
        self.sock.close()

    def request(self, kind, body, flags=0):
        self.seq += 1
        msg = struct.pack("IHHII", 16 + len(body), kind,
                          NLM_F_REQUEST | NLM_F_ACK | flags, self.seq, 0)
        self.sock.send(msg + body)
        while True:
            data = self.sock.recv(65536)
            off = 0
            while off + 16 <= len(data):
                ln, typ, _, seq, _ = struct.unpack_from("IHHII", data, off)
                if typ == NLMSG_ERROR and seq == self.seq:
                    err = struct.unpack_from("i", data, off + 16)[0]
                    if err:
                        raise OSError(-err, "rtnetlink: %s" %
                                      os.strerror(-err))
                    return
                off += (ln + 3) & ~3

    def link_up(self, ifname):
        idx = socket.if_nametoindex(ifname)
        self.request(RTM_NEWLINK, struct.pack("BBHiII", socket.AF_UNSPEC,
                                              0, 0, idx, IFF_UP, IFF_UP))

    def addr_list(self, ifname):
        """The device's addresses as "address/prefixlen" strings."""
        idx = socket.if_nametoindex(ifname)
        self.seq += 1
        body = struct.pack("BBBBI", socket.AF_UNSPEC, 0, 0, 0, 0)
        self.sock.send(struct.pack("IHHII", 16 + len(body), RTM_GETADDR,
                                   NLM_F_REQUEST | NLM_F_DUMP, self.seq, 0)
                       + body)
        out = []
        while True:
            data = self.sock.recv(65536)
            off = 0
            while off + 16 <= len(data):
                ln, typ, _, seq, _ = struct.unpack_from("IHHII", data, off)
                if seq == self.seq and typ in (NLMSG_DONE, NLMSG_ERROR):
                    return out
                if typ == RTM_NEWADDR and seq == self.seq:
                    fam, plen, _, _, index = struct.unpack_from(
                        "BBBBI", data, off + 16)
                    at, attrs = off + 24, {}
                    while at + 4 <= off + ln:
                        alen, kind = struct.unpack_from("HH", data, at)
                        if alen < 4:
                            break
                        attrs[kind] = data[at + 4:at + alen]
                        at += (alen + 3) & ~3
                    raw = attrs.get(IFA_LOCAL, attrs.get(IFA_ADDRESS))
                    if index == idx and raw:
                        out.append("%s/%d" % (ipaddress.ip_address(raw),
                                              plen))
                off += (ln + 3) & ~3

    def addr_add(self, ifname, address, prefixlen):
        idx = socket.if_nametoindex(ifname)
        ip = ipaddress.ip_address(address)
        fam = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
        flags = IFA_F_NODAD if ip.version == 6 else 0
        body = struct.pack("BBBBI", fam, prefixlen, flags, 0, idx)
        body += _nla(IFA_LOCAL, ip.packed) + _nla(IFA_ADDRESS, ip.packed)
        body += _nla(IFA_FLAGS, struct.pack("I", flags))
        self.request(RTM_NEWADDR, body, NLM_F_CREATE | NLM_F_REPLACE)


def in_netns(name, fn):
    """fn(Rtnl) with a route socket, run inside namespace name (so that
    interface names are those of the namespace)."""
    with netns(name):
        nl = Rtnl()
        try:
            return fn(nl)
        finally:
            nl.close()


def _icmp_sum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def ping_many(ns, targets, tries=3, wait=1.0):
    """ICMP echo from namespace ns to every target address (IPv4 or
    IPv6), all at once, up to `tries` rounds of `wait` seconds; returns
    {target: answered}."""
    targets = list(dict.fromkeys(targets))
    norm = {str(ipaddress.ip_address(t)): t for t in targets}
    socks = {}
    with netns(ns):
        if any(":" not in t for t in norm):
            socks[4] = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                                     socket.IPPROTO_ICMP)
        if any(":" in t for t in norm):
            socks[6] = socket.socket(socket.AF_INET6, socket.SOCK_RAW,
                                     socket.IPPROTO_ICMPV6)
    ident = random.getrandbits(16)
    pending, got = set(norm), set()
    try:
        for seq in range(tries):
            for t in sorted(pending):
                v = 6 if ":" in t else 4
                hdr = struct.pack("!BBHHH", 128 if v == 6 else 8, 0, 0,
                                  ident, seq)
                payload = b"torus-lab" + bytes(23)
                if v == 4:
                    hdr = struct.pack("!BBHHH", 8, 0,
                                      _icmp_sum(hdr + payload), ident, seq)
                try:
                    socks[v].sendto(hdr + payload, (t, 0))
                except OSError:
                    pass        # no route yet: counts as no answer
            deadline = time.monotonic() + wait
            while pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                rd, _, _ = select.select(list(socks.values()), [], [], left)
                for s in rd:
                    data, src = s.recvfrom(2048)
                    if s.family == socket.AF_INET:
                        data = data[(data[0] & 0xF) * 4:]
                        want = 0
                    else:
                        want = 129
                    if len(data) < 8 or data[0] != want or \
                            struct.unpack("!H", data[4:6])[0] != ident:
                        continue
                    a = str(ipaddress.ip_address(src[0].split("%")[0]))
                    if a in pending:
                        pending.discard(a)
                        got.add(a)
    finally:
        for s in socks.values():
            s.close()
    return {orig: a in got for a, orig in norm.items()}


class Rack:
    """A rack of namespaces; coordinates are tuples (true coordinates).

    rotation: {coord: rot} local label -> global direction per node
    (identity where missing); dead: coords whose ports stay down (no
    carrier on their cables) and whose tor0 stays down; cut: cables cut
    after building, as (coord, axis, neg) global directions (either end).
    """

    def __init__(self, dims, wrap=None, prefix="n", rotation=None,
                 dead=(), cut=()):
        self.dims = list(dims)
        self.wrap = list(wrap) if wrap else [True] * len(dims)
        self.prefix = prefix
        self.nodes = list(itertools.product(*[range(d) for d in self.dims]))
        # itertools varies the last axis fastest; list x-major for humans
        self.rotation = dict(rotation or {})
        self.dead = set(tuple(c) for c in dead)
        self.cut = set()
        for coord, axis, neg in cut:
            self.cut.add((tuple(coord), axis, neg))
            other = self.neighbor(coord, axis, neg)
            if other is not None:
                self.cut.add((other, axis, not neg))

    def ns(self, coord):
        return self.prefix + "-".join(str(c) for c in coord)

    def run_each(self, nodes, argv, timeout, env=None):
        """Run `argv` in the namespace of every node of `nodes` at once
        (a collective needs all its members) and wait for them all.
        {node: (returncode, stdout, stderr)}; one still running after
        `timeout` s is killed and has returncode None."""
        procs = {c: subprocess.Popen(
            ["ip", "netns", "exec", self.ns(c)] + list(argv),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=env) for c in nodes}
        deadline = time.monotonic() + timeout
        out = {}
        for c, p in procs.items():
            try:
                so, se = p.communicate(
                    timeout=max(0.1, deadline - time.monotonic()))
                out[c] = (p.returncode, so, se)
            except subprocess.TimeoutExpired:
                p.kill()
                so, se = p.communicate()
                out[c] = (None, so, se + "\n(killed after %g s)" % timeout)
        return out

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
        """[(axis, neg)] of the ports this node has (global directions)."""
        return [(a, n) for a in range(len(self.dims)) for n in (False, True)
                if self.neighbor(coord, a, n) is not None]

    def cables(self):
        """Each cable once: (node, axis) from node's + port to the - port
        of its + neighbour."""
        for coord in self.nodes:
            for axis in range(len(self.dims)):
                if self.neighbor(coord, axis, False) is not None:
                    yield coord, axis

    def label(self, coord, axis, neg):
        """The local connector label (axis, neg) of the port that serves
        global direction (axis, neg) on this node."""
        rot = self.rotation.get(tuple(coord))
        if rot is None:
            return axis, neg
        return rot_to_local(rot, axis, neg)

    def port(self, coord, axis, neg):
        """The port name (its connector) for a global direction."""
        return port_name(*self.label(coord, axis, neg))

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
            la = self.label(coord, axis, False)
            lb = self.label(peer, axis, True)
            lines.append("link add %s dir %s netns %s master tor0 "
                         "peer %s dir %s netns %s master tor0" %
                         (port_name(*la), dir_name(*la), self.ns(coord),
                          port_name(*lb), dir_name(*lb), self.ns(peer)))
        self.torus_batch(lines)

        for coord in self.nodes:
            ups = ["lo"]
            if coord not in self.dead:
                ups += [self.port(coord, a, n) for a, n in self.ports(coord)]
                ups.append("tor0")

            def setup(nl, coord=coord, ups=ups):
                for dev in ups:
                    nl.link_up(dev)
                if static and coord not in self.dead:
                    if addr4(coord):
                        nl.addr_add("tor0", addr4(coord), 8)
                    nl.addr_add("tor0", addr6(coord), 64)
            in_netns(self.ns(coord), setup)

        cuts = ["-n %s cable set %s down" % (self.ns(c), self.port(c, a, n))
                for c, a, n in sorted(self.cut) if not n]
        if cuts:
            self.torus_batch(cuts)

        if static:
            self.configure_static()
        return time.monotonic() - t0

    def configure_static(self):
        """Give every live node its true coordinates and port map by
        hand."""
        lines = []
        dims = ",".join(str(d) for d in self.dims)
        wrap = ",".join("1" if w else "0" for w in self.wrap)
        for i, coord in enumerate(self.nodes):
            if coord in self.dead:
                continue
            ns = self.ns(coord)
            lines.append("-n %s node set dev tor0 id %d coord %s dims %s "
                         "wrap %s" % (ns, i + 1, ",".join(map(str, coord)),
                                      dims, wrap))
            pm = " ".join("%s %s" % (dir_name(a, n), self.port(coord, a, n))
                          for a, n in self.ports(coord))
            if pm:
                lines.append("-n %s port map set dev tor0 %s" % (ns, pm))
            else:
                lines.append("-n %s port map flush dev tor0" % ns)
        self.torus_batch(lines)

    def torus_batch(self, lines, json_out=False, force=False, stats=False):
        """Run lines through one `torus -batch` (with stats: `-s`, the
        counters).  With json_out, returns one parsed JSON value (or None
        for a failed line) per line."""
        with tempfile.NamedTemporaryFile("w", suffix=".torus",
                                         delete=False) as f:
            f.write("\n".join(lines) + "\n")
        try:
            args = [TORUS] + (["-j"] if json_out else []) + \
                (["-s"] if stats else []) + \
                (["-force"] if force else []) + ["-batch", f.name]
            res = run(args, timeout=600, check=not (json_out or force))
        finally:
            os.unlink(f.name)
        if not json_out:
            return res
        failed = {int(m) for m in
                  re.findall(r"Command failed \S+:(\d+)", res.stderr or "")}
        if res.returncode and not failed:
            raise RuntimeError("torus -batch: exit %d: %s" %
                               (res.returncode, (res.stderr or "").strip()))
        dec = STRICT_DECODER
        out, pos, text = [], 0, res.stdout
        for lineno in range(1, len(lines) + 1):
            if lineno in failed:
                out.append(None)
                continue
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos >= len(text):
                out.append(None)
                continue
            val, pos = dec.raw_decode(text, pos)
            out.append(val)
        return out

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
        return loads_strict(res.stdout or "null")

    def ports_json(self, coord):
        return {p["ifname"]: p for p in self.torus_json(coord, "-s", "port",
                                                        "show")}

    def node_json(self, coord):
        return self.torus_json(coord, "-s", "node", "show")[0]

    def ping_addr(self, src, target, count=1, wait=2):
        """Ping an address from node src (true coordinates)."""
        res = self.exec(src, ["ping", "-n", "-q", "-c", str(count), "-W",
                              str(wait), target], check=False)
        return res.returncode == 0

    def ping(self, src, dst, count=1, wait=2, v6=False):
        target = addr6(dst) if v6 or not addr4(dst) else addr4(dst)
        return self.ping_addr(src, target, count, wait)

    def ping_all(self, src, dsts=None, v6=False, workers=16):
        """{dst: ok} for every other node (or dsts), pinged in parallel."""
        dsts = [d for d in (dsts or self.nodes) if d != tuple(src)]
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            oks = pool.map(lambda d: self.ping(src, d, v6=v6), dsts)
            return dict(zip(dsts, oks))

    def set_cable(self, coord, axis, neg, state):
        """Cut ("down") or restore ("up") the cable on the port serving
        global direction (axis, neg) of the node."""
        run([TORUS, "-n", self.ns(coord), "cable", "set",
             self.port(coord, axis, neg), state])


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


# ---- specs ----
#
# A spec is "key = value" lines ('#' starts a comment) or one JSON
# object with the same keys.  See SPEC_DEFAULTS and torus-lab(8).

SPEC_DEFAULTS = collections.OrderedDict([
    ("dims", None),          # extents, e.g. 4x4x4 (required)
    ("wrap", "torus"),       # torus | mesh | 1,0,1
    ("block", None),         # block extents, e.g. 2x2x2 (block mode)
    ("miswire", None),       # none | blocks | nodes (default: blocks
                             # with block, else none)
    ("rotations", "random"),  # random | identity | list of rotations
    ("seed", 1),
    ("dead", "0"),           # count, or coordinates "1,0,0 2,3,1"
    ("cut", "0"),            # count, or cables "1,0,0+x 2,2,2-z"
    ("prefix", "n"),
    ("tick", 50),            # torusd --tick MS
    ("hello", 500),          # torusd --hello MS
    ("dead_timer", 2000),    # torusd --dead MS
    ("quiet", 1500),         # torusd --quiet MS
    ("orient", 0),           # torusd --orient MS (0: not given)
    ("daemon_args", ""),     # more torusd arguments
    ("timeout", 120),        # seconds to wait for convergence
    ("settle", 2.0),         # seconds without change that end the wait
    ("stall", 30),           # seconds without change while nodes are
                             # still discovering that end the wait
])


def parse_spec_text(text):
    """The raw key/value pairs of a spec file (strings or JSON values)."""
    if text.lstrip().startswith("{"):
        raw = loads_strict(text)
    else:
        raw = {}
        for lineno, line in enumerate(text.splitlines(), 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if "=" not in line:
                raise ValueError("spec line %d: want key = value" % lineno)
            k, v = line.split("=", 1)
            raw[k.strip().replace("-", "_")] = v.strip()
    bad = [k for k in raw if k not in SPEC_DEFAULTS]
    if bad:
        raise ValueError("spec: unknown key(s) %s (known: %s)" %
                         (", ".join(bad), ", ".join(SPEC_DEFAULTS)))
    return raw


def _listish(v):
    if isinstance(v, (list, tuple)):
        return [str(x) if not isinstance(x, (list, tuple)) else
                ",".join(map(str, x)) for x in v]
    return [t for t in re.split(r"[\s;]+", str(v).strip()) if t]


def normalize_spec(raw):
    """Typed, checked spec from raw key/values (defaults filled in)."""
    s = dict(SPEC_DEFAULTS)
    s.update({k: v for k, v in raw.items() if v is not None})
    if s["dims"] is None:
        raise ValueError("spec: dims is required")
    dims = s["dims"]
    s["dims"] = parse_dims(dims if isinstance(dims, str) else
                           "x".join(map(str, dims)))
    n = len(s["dims"])
    w = s["wrap"]
    s["wrap"] = [bool(x) for x in w] if isinstance(w, list) else \
        parse_wrap(str(w), n)
    if len(s["wrap"]) != n:
        raise ValueError("spec: wrap needs one flag per axis")
    if s["block"] not in (None, "", "none"):
        b = s["block"]
        s["block"] = parse_dims(b if isinstance(b, str) else
                                "x".join(map(str, b)))
        if len(s["block"]) != n or any(d % b for d, b in
                                        zip(s["dims"], s["block"])):
            raise ValueError("spec: block extents must divide dims, one "
                             "per axis")
    else:
        s["block"] = None
    mis = s["miswire"] or ("blocks" if s["block"] else "none")
    if mis not in ("none", "blocks", "nodes"):
        raise ValueError("spec: miswire is none, blocks or nodes")
    if mis == "blocks" and not s["block"]:
        raise ValueError("spec: miswire blocks needs block")
    if mis == "nodes" and s["block"]:
        raise ValueError("spec: miswire nodes contradicts block (nodes of "
                         "a block share one wiring frame)")
    s["miswire"] = mis
    rot = s["rotations"]
    if isinstance(rot, str) and rot in ("random", "identity"):
        s["rotations"] = rot
    else:
        s["rotations"] = [rot_str(rot_parse(t, n)) for t in _listish(rot)]
    s["seed"] = int(s["seed"])
    for key, parse in (("dead", lambda t: list(parse_coord(t, n))),
                       ("cut", lambda t: _parse_cut(t, n))):
        v = s[key]
        if isinstance(v, int) or (isinstance(v, str) and
                                  v.strip().isdigit()):
            s[key] = int(v)
        elif key == "cut" and isinstance(v, list) and \
                all(isinstance(t, list) for t in v):
            # the truth file's form: [[coord], "+x"]
            s[key] = [_parse_cut(fmt(t[0]) + t[1], n) for t in v]
        else:
            s[key] = [parse(t) for t in _listish(v)]
    for key in ("tick", "hello", "dead_timer", "quiet", "orient",
                "timeout"):
        s[key] = int(s[key])
    for key in ("settle", "stall"):
        s[key] = float(s[key])
        if not math.isfinite(s[key]) or s[key] < 0:
            raise ValueError("spec: %s must be a finite number of seconds "
                             ">= 0, not %r" % (key, s[key]))
    s["prefix"] = str(s["prefix"])
    if not re.fullmatch(r"[a-zA-Z][a-zA-Z_]*", s["prefix"]):
        raise ValueError("spec: prefix is letters (namespace names are "
                         "prefix + coordinates)")
    s["daemon_args"] = str(s["daemon_args"] or "")
    return s


def _parse_cut(text, n):
    m = re.fullmatch(r"([0-9,]+)([+-][a-z])", text)
    if not m:
        raise ValueError("cut %r: want COORD+DIR, e.g. 1,0,0+x" % text)
    axis, neg = parse_dir(m.group(2))
    if axis >= n:
        raise ValueError("cut %r: no such axis" % text)
    return [list(parse_coord(m.group(1), n)), dir_name(axis, neg)]


def plan(spec):
    """The ground truth for a normalized spec (pure; no system calls)."""
    dims, wrap, n = spec["dims"], spec["wrap"], len(spec["dims"])
    seed = spec["seed"]
    rack = Rack(dims, wrap, spec["prefix"])
    block = spec["block"]

    # wiring units: one per block, per node, or one for the whole rack
    if spec["miswire"] == "blocks" or block:
        bdims = block
        grid = [d // b for d, b in zip(dims, bdims)]
        units = list(itertools.product(*[range(g) for g in grid]))

        def unit_of(c):
            return tuple(x // b for x, b in zip(c, bdims))
    else:
        units = list(rack.nodes) if spec["miswire"] == "nodes" else [()]

        def unit_of(c):
            return tuple(c) if spec["miswire"] == "nodes" else ()
    rots = {}
    if spec["miswire"] == "none" or spec["rotations"] == "identity":
        rots = {u: rot_identity(n) for u in units}
    elif spec["rotations"] == "random":
        rng = random.Random("%d:rotations" % seed)
        rots = {u: rot_random(rng, n) for u in units}
    else:
        lst = spec["rotations"]
        if len(lst) not in (1, len(units)):
            raise ValueError("spec: %d rotations given for %d %s" %
                             (len(lst), len(units), spec["miswire"]))
        rots = {u: rot_parse(lst[i % len(lst)], n)
                for i, u in enumerate(units)}

    # dead nodes and cut cables
    if isinstance(spec["dead"], int):
        if spec["dead"] >= len(rack.nodes):
            raise ValueError("spec: cannot kill every node")
        dead = sorted(random.Random("%d:dead" % seed).sample(rack.nodes,
                                                               spec["dead"]))
    else:
        dead = sorted(tuple(c) for c in spec["dead"])
        for c in dead:
            if any(not 0 <= x < d for x, d in zip(c, dims)):
                raise ValueError("spec: dead node %s outside the rack" %
                                 fmt(c))
    deadset = set(dead)
    if isinstance(spec["cut"], int):
        cands = [(c, a) for c, a in rack.cables()
                 if c not in deadset and
                 rack.neighbor(c, a, False) not in deadset]
        # the two cables of an extent-2 ring are distinct cables
        if spec["cut"] > len(cands):
            raise ValueError("spec: only %d cables can be cut" % len(cands))
        cut = [(c, a, False) for c, a in
               sorted(random.Random("%d:cut" % seed).sample(cands,
                                                            spec["cut"]))]
    else:
        cut = []
        for c, d in spec["cut"]:
            a, neg = parse_dir(d)
            if rack.neighbor(tuple(c), a, neg) is None:
                raise ValueError("spec: no cable on %s%s" % (fmt(c), d))
            cut.append((tuple(c), a, neg))

    ids = random.Random("%d:ids" % seed)
    used = set()
    nodes = []
    for c in rack.nodes:
        u = unit_of(c)
        rot = rots[u]
        nid = 0
        while not nid or nid in used:
            nid = ids.getrandbits(48) | 1
        used.add(nid)
        node = {"ns": rack.ns(c), "coord": list(c), "id": nid,
                "rotation": rot_str(rot), "dead": c in deadset}
        if block:
            off = [x % b for x, b in zip(c, block)]
            node["block_id"] = 1 + units.index(u)
            node["block_coord"] = [block[a] - 1 - off[a] if neg else off[a]
                                   for a, neg in rot]
            node["block_dims"] = [block[a] for a, _ in rot]
        nodes.append(node)

    rack.rotation = {tuple(nd["coord"]): rot_parse(nd["rotation"], n)
                     for nd in nodes}
    cutset = set()
    for c, a, neg in cut:
        cutset.add((c, a, neg))
        cutset.add((rack.neighbor(c, a, neg), a, not neg))
    cables = []
    for c, a in rack.cables():
        p = rack.neighbor(c, a, False)
        ends = []
        for coord, neg in ((c, False), (p, True)):
            lab = rack.label(coord, a, neg)
            ends.append({"ns": rack.ns(coord), "coord": list(coord),
                         "port": port_name(*lab), "label": dir_name(*lab),
                         "dir": dir_name(a, neg)})
        cables.append({"a": ends[0], "b": ends[1],
                       "cut": (c, a, False) in cutset})
    return {
        "version": 1,
        "spec": spec_json(spec),
        "prefix": spec["prefix"],
        "dims": list(dims),
        "wrap": list(wrap),
        "block": list(block) if block else None,
        "miswire": spec["miswire"],
        "nodes": nodes,
        "cables": cables,
        "dead": [list(c) for c in dead],
        "cut": [{"ns": rack.ns(c), "coord": list(c), "dir": dir_name(a, neg),
                 "port": rack.port(c, a, neg)} for c, a, neg in cut],
    }


def spec_json(spec):
    out = {}
    for k in SPEC_DEFAULTS:
        v = spec[k]
        if k in ("dims", "block") and v:
            v = "x".join(map(str, v))
        elif k == "wrap":
            v = ",".join("1" if w else "0" for w in v)
        out[k] = v
    return out


def truth_text(truth):
    """The truth as JSON text, one node, cable or cut per line."""
    parts = []
    for k, v in truth.items():
        if isinstance(v, list) and v and isinstance(v[0], (dict, list)):
            body = ",\n  ".join(dumps(x, sort_keys=True) for x in v)
            parts.append(" %s: [\n  %s\n ]" % (dumps(k), body))
        else:
            parts.append(" %s: %s" % (dumps(k),
                                      dumps(v, sort_keys=True)))
    return "{\n" + ",\n".join(parts) + "\n}\n"


def rack_from_truth(truth):
    n = len(truth["dims"])
    rotation = {tuple(nd["coord"]): rot_parse(nd["rotation"], n)
                for nd in truth["nodes"]}
    cut = [(tuple(c["coord"]),) + parse_dir(c["dir"]) for c in truth["cut"]]
    return Rack(truth["dims"], truth["wrap"], truth["prefix"], rotation,
                [tuple(c) for c in truth["dead"]], cut)


# ---- verification (pure: truth + observed JSON in, result out) ----

def _components(rack, live):
    """Connected components of the live nodes over uncut cables."""
    seen, comps = set(), []
    for start in rack.nodes:
        if start not in live or start in seen:
            continue
        comp, todo = [], [start]
        seen.add(start)
        while todo:
            u = todo.pop()
            comp.append(u)
            for a, neg in rack.ports(u):
                v = rack.neighbor(u, a, neg)
                if v in live and v not in seen and \
                        (u, a, neg) not in rack.cut:
                    seen.add(v)
                    todo.append(v)
        comps.append(comp)
    comps.sort(key=len, reverse=True)
    return comps


def fault_near(rack):
    """Nodes within distance 1 of a fault: a node "touches" a fault if a
    neighbour is dead or one of its cables is cut; a node is near a
    fault if it or a neighbour touches one."""
    touch = set()
    for u in rack.nodes:
        if u in rack.dead:
            continue
        for a, neg in rack.ports(u):
            v = rack.neighbor(u, a, neg)
            if v in rack.dead or (u, a, neg) in rack.cut:
                touch.add(u)
    near = set(touch)
    for u in touch:
        for a, neg in rack.ports(u):
            v = rack.neighbor(u, a, neg)
            if v not in rack.dead:
                near.add(v)
    return near


class Isometry:
    """disc[j] = sign[j] * true[perm[j]] + offset[j] (mod the extent on
    ring axes); one entry per discovered axis."""

    def __init__(self, perm, sign, offset, tdims, twrap):
        self.perm, self.sign, self.offset = perm, sign, offset
        self.tdims = list(tdims) + [1] * (len(perm) - len(tdims))
        self.twrap = list(twrap) + [True] * (len(perm) - len(twrap))

    def coord(self, true):
        t = list(true) + [0] * (len(self.perm) - len(true))
        out = []
        for j, a in enumerate(self.perm):
            v = self.sign[j] * t[a] + self.offset[j]
            out.append(v % self.tdims[a] if self.twrap[a] else v)
        return tuple(out)

    def dims(self):
        return [self.tdims[a] for a in self.perm]

    def wrap(self):
        return [self.twrap[a] for a in self.perm]

    def direction(self, axis, neg):
        """true global direction -> discovered direction"""
        j = self.perm.index(axis)
        return j, neg != (self.sign[j] < 0)

    @classmethod
    def from_json(cls, js, tdims, twrap):
        return cls([AXES.index(i["from"]) for i in js],
                   [i["sign"] for i in js], [i["offset"] for i in js],
                   tdims, twrap)

    def as_json(self):
        return [{"axis": AXES[j], "from": AXES[a],
                 "sign": self.sign[j], "offset": self.offset[j]}
                for j, a in enumerate(self.perm)]

    def __str__(self):
        return " ".join("%s'=%s%s%+d" % (AXES[j], "-" if s < 0 else "+",
                                         AXES[a], o) if o else
                        "%s'=%s%s" % (AXES[j], "-" if s < 0 else "+", AXES[a])
                        for j, (a, s, o) in enumerate(zip(self.perm,
                                                          self.sign,
                                                          self.offset)))


def find_isometry(tdims, twrap, pairs):
    """Best isometry for [(true, disc)] coordinate pairs: the one that
    maps the most pairs.  Separable per axis: for every discovered axis
    j, true axis a and sign s count how many pairs agree on the offset
    disc[j] - s * true[a]; then the permutation with the largest total."""
    n = max([len(tdims)] + [len(d) for _, d in pairs])
    td = list(tdims) + [1] * (n - len(tdims))
    tw = list(twrap) + [True] * (n - len(twrap))
    best = {}
    for j in range(n):
        for a in range(n):
            for s in (1, -1):
                cnt = collections.Counter()
                for t, d in pairs:
                    tv = (list(t) + [0] * n)[a]
                    dv = (list(d) + [0] * n)[j]
                    off = dv - s * tv
                    cnt[off % td[a] if tw[a] else off] += 1
                off, hits = cnt.most_common(1)[0] if cnt else (0, 0)
                if (j, a) not in best or hits > best[(j, a)][0]:
                    best[(j, a)] = (hits, s, off)
    bestperm, bestscore = None, -1
    if n <= 8:
        for perm in itertools.permutations(range(n)):
            score = sum(best[(j, a)][0] for j, a in enumerate(perm))
            if score > bestscore:
                bestperm, bestscore = perm, score
    perm = list(bestperm)
    return Isometry(perm, [best[(j, a)][1] for j, a in enumerate(perm)],
                    [best[(j, a)][2] for j, a in enumerate(perm)], td, tw)


def verify(truth, nodes, ports=None, converged=True):
    """Check the observed discovery result against the truth.

    nodes: {ns: `torus -j node show` object of tor0 (or None)};
    ports: {ns: [`torus -j port show` objects]} (optional: checks the
    port maps the daemon installed).  Returns the result dictionary
    (see torus-lab(8), JSON RESULT)."""
    rack = rack_from_truth(truth)
    by_coord = {tuple(nd["coord"]): nd for nd in truth["nodes"]}
    live = [c for c in rack.nodes if c not in rack.dead]
    comps = _components(rack, set(live))
    main = set(comps[0]) if comps else set()
    near = fault_near(rack)
    if truth.get("block"):
        bnear = {by_coord[c]["block_id"] for c in near}
        near |= {c for c in live if by_coord[c]["block_id"] in bnear}

    placed, unplaced, pairs = [], [], []
    for c in live:
        ns = rack.ns(c)
        obs = nodes.get(ns) or {}
        if obs.get("state") == "placed" and obs.get("coord"):
            placed.append(c)
            if c in main:
                pairs.append((c, tuple(obs["coord"])))
        else:
            why = []
            if c not in main:
                why.append("partitioned")
            if c in near:
                why.append("near a fault")
            unplaced.append({"ns": ns, "coord": list(c),
                             "state": obs.get("state"),
                             "reason": obs.get("reason", "no node"),
                             "excused": bool(why),
                             "excuse": ", ".join(why)})

    res = {"converged": bool(converged), "nodes": len(rack.nodes),
           "live": len(live), "placed": len(placed),
           "unplaced": unplaced, "dead": [rack.ns(c) for c in
                                          sorted(rack.dead)],
           "cut": len(truth["cut"]),
           "partitioned": [rack.ns(c) for c in live if c not in main]}
    iso = find_isometry(truth["dims"], truth["wrap"], pairs) if pairs \
        else None
    bad = []
    if iso:
        for c, d in pairs:
            want = iso.coord(c)
            if tuple(want) != tuple(d) + (0,) * (len(want) - len(d)):
                bad.append({"ns": rack.ns(c), "coord": list(d),
                            "expected": list(want)})
    res["consistent"] = bool(pairs) and not bad
    res["inconsistent"] = bad
    res["isometry"] = iso.as_json() if iso else None
    res["isometry_text"] = str(iso) if iso else None

    # extents and wrap, ignoring extent-1 axes' wrap flags
    dims_seen = collections.Counter()
    dims_bad = []
    if iso:
        want_dims, want_wrap = iso.dims(), iso.wrap()
        for c, _ in pairs:
            obs = nodes[rack.ns(c)]
            dd = list(obs.get("dims") or [])
            dw = [bool(w) for w in obs.get("wrap") or []]
            dd += [1] * (len(want_dims) - len(dd))
            dw += [True] * (len(want_wrap) - len(dw))
            dims_seen[(tuple(dd), tuple(dw))] += 1
            ok = dd == want_dims and all(
                w == ww or e == 1 for w, ww, e in zip(dw, want_wrap, dd))
            if not ok:
                dims_bad.append({"ns": rack.ns(c), "dims": dd, "wrap": dw})
        res["expected_dims"] = want_dims
        res["expected_wrap"] = want_wrap
    top = dims_seen.most_common(1)
    res["dims"] = list(top[0][0][0]) if top else None
    res["wrap"] = list(top[0][0][1]) if top else None
    res["dims_ok"] = bool(iso) and not dims_bad
    res["dims_bad"] = dims_bad

    # port maps: every mapped port serves the true direction under iso
    if ports is not None and iso:
        res.update(_check_portmaps(truth, rack, iso, nodes, ports, pairs))
    leaders = [rack.ns(c) for c in placed
               if (nodes.get(rack.ns(c)) or {}).get("role") == "leader"]
    res["leaders"] = leaders
    res["unexcused"] = [u["ns"] for u in unplaced if not u["excused"]]
    res["ok"] = (res["converged"] and res["consistent"] and res["dims_ok"]
                 and not res["unexcused"] and
                 res.get("portmaps_ok", True))
    return res


def _check_portmaps(truth, rack, iso, nodes, ports, pairs):
    n = len(truth["dims"])
    checks = []     # (ns, ifname, got, want, carrier, disc axis)
    for c, _ in pairs:
        ns = rack.ns(c)
        rot = rack.rotation.get(c) or rot_identity(n)
        for p in ports.get(ns) or []:
            if not p.get("dir"):
                continue
            ga, gneg = rot_to_global(rot, *parse_dir(p["dir"]))
            j, dneg = iso.direction(ga, gneg)
            checks.append((ns, p["ifname"], p.get("global_dir"),
                           (j, dneg), bool(p.get("carrier")), ga))
    # An extent-2 ring joins two nodes by two cables that nothing but
    # the (miswired) labels tell apart: each ring may take either sign.
    # There, a port must serve the right axis, the two ports of a node
    # opposite directions, and the two ends of a cable opposite ones.
    ring2 = {j for j, a in enumerate(iso.perm)
             if iso.tdims[a] == 2 and iso.twrap[a]}
    got_at = {(ns, pn): got for ns, pn, got, _, _, _ in checks}
    bad = []
    for ns, ifname, got, (j, dneg), carrier, _ in checks:
        want = dir_name(j, dneg)
        if got is None and not carrier:
            continue
        if j in ring2 and got in (dir_name(j, False), dir_name(j, True)):
            twin = [g for (n2, pn), g in got_at.items()
                    if n2 == ns and pn != ifname and g == got]
            if not twin:
                continue
            want = "not the direction of port %s too" % twin[0]
        elif got == want:
            continue
        bad.append({"ns": ns, "port": ifname, "global_dir": got,
                    "expected": want})
    for cab in truth["cables"]:
        ea, eb = cab["a"], cab["b"]
        ga = got_at.get((ea["ns"], ea["port"]))
        gb = got_at.get((eb["ns"], eb["port"]))
        if ga and gb and ga == gb:
            bad.append({"ns": ea["ns"], "port": ea["port"],
                        "global_dir": ga,
                        "expected": "opposite of %s %s (%s)" % (
                            eb["ns"], eb["port"], gb)})
    return {"portmaps_ok": not bad, "portmaps_bad": bad,
            "ports_checked": len(checks), "isometry": iso.as_json(),
            "isometry_text": str(iso)}


def ping_plan(truth, nodes, result, src_ns):
    """[(dst_ns, coord, must_work)] for pings from src_ns to every other
    live node at the coordinates the isometry gives it in the discovered
    frame (its address).  must_work: the dimension-ordered request and
    reply paths, in the discovered frame, avoid dead nodes, cut cables
    and nodes excused from being placed."""
    if not result.get("isometry"):
        return []
    rack = rack_from_truth(truth)
    iso = Isometry.from_json(result["isometry"], truth["dims"],
                             truth["wrap"])
    dims, wrap = iso.dims(), iso.wrap()
    exp = {c: iso.coord(c) for c in rack.nodes}
    at = {d: c for c, d in exp.items()}
    excused = {u["ns"] for u in result.get("unplaced", []) if u["excused"]}
    avoid = {c for c in rack.nodes
             if c in rack.dead or rack.ns(c) in excused}
    broken = {(exp[c], exp[rack.neighbor(c, a, neg)])
              for c, a, neg in rack.cut}
    src = next(c for c in rack.nodes if rack.ns(c) == src_ns)
    out = []
    for c in rack.nodes:
        if c == src or c in rack.dead:
            continue
        ok = src not in avoid
        if ok:
            hops = dor_path(dims, wrap, exp[src], exp[c]) + \
                dor_path(dims, wrap, exp[c], exp[src])
            for h in hops:
                if at[h[0]] in avoid or at[h[1]] in avoid or h in broken:
                    ok = False
                    break
        out.append((rack.ns(c), exp[c], ok))
    return out


# ---- discovery runs ----

def find_torusd():
    path = os.environ.get("TORUSD") or shutil.which("torusd")
    if path:
        return path
    cand = os.path.join(HERE, "..", "..", "build", "bin", "torusd")
    return os.path.realpath(cand) if os.access(cand, os.X_OK) else None


def default_run_dir(prefix):
    base = os.environ.get("TORUS_LAB_DIR", "/run/torus-lab")
    return os.path.join(base, prefix)


# The run directories of the Labs made in this process, for harnesses that
# keep each test case's logs (tests/vm/vmtest.py): LABS_ALIVE maps each Lab
# not yet destroyed to its run_dir; LABS_MADE lists the run_dir of every
# Lab made, in order (a case also keeps those made and destroyed in it).
LABS_ALIVE = {}
LABS_MADE = []


class Lab:
    """One discovery run: a rack built from a spec, torusd on every live
    node, observation and verification against the truth."""

    def __init__(self, spec, run_dir=None, truth_file=None, torusd=None,
                 log=None, truth=None):
        self.spec = spec
        self.truth = truth or plan(spec)
        self.rack = rack_from_truth(self.truth)
        self.run_dir = run_dir or default_run_dir(spec["prefix"])
        self.truth_file = truth_file or os.path.join(self.run_dir,
                                                     "truth.json")
        self.torusd = torusd or find_torusd()
        self.procs = {}
        self.killed = set()
        self.t_start = None
        self.t_started = None
        self.log = log or (lambda msg: None)
        self.live = [c for c in self.rack.nodes if c not in self.rack.dead]
        self.info = {nd["ns"]: nd for nd in self.truth["nodes"]}
        LABS_ALIVE[id(self)] = self.run_dir
        LABS_MADE.append(self.run_dir)

    # -- building --

    def build(self):
        os.makedirs(self.run_dir, exist_ok=True)
        stop_recorded(self.run_dir)
        self.write_truth()
        secs = self.rack.build(static=False)
        self.log("built %d nodes (%d dead), %d cables (%d cut) in %.1f s" %
                 (len(self.rack.nodes), len(self.rack.dead),
                  len(self.truth["cables"]), len(self.truth["cut"]), secs))
        return secs

    def write_truth(self):
        d = os.path.dirname(os.path.abspath(self.truth_file))
        os.makedirs(d, exist_ok=True)
        with open(self.truth_file + ".tmp", "w") as f:
            f.write(truth_text(self.truth))
        os.replace(self.truth_file + ".tmp", self.truth_file)

    def daemon_args(self, nd):
        s = self.spec
        args = [self.torusd, "-i", "tor0", "-f", "--id", str(nd["id"]),
                "--tick", str(s["tick"]), "--hello", str(s["hello"]),
                "--dead", str(s["dead_timer"]), "--quiet", str(s["quiet"]),
                "--axes", str(len(s["dims"])),
                "--state-file", os.path.join(self.run_dir,
                                             nd["ns"] + ".state.json")]
        if s["orient"]:
            args += ["--orient", str(s["orient"])]
        if "block_id" in nd:
            args += ["--block", str(nd["block_id"]),
                     "--block-coord", fmt(nd["block_coord"]),
                     "--block-dims", "x".join(map(str, nd["block_dims"]))]
        return args + shlex.split(s["daemon_args"])

    def start(self):
        if not self.torusd:
            raise RuntimeError("torusd not found (build it: make -C daemon)")
        self.t_start = time.monotonic()
        for c in self.live:
            self.spawn(self.rack.ns(c), "w")
        self.save_pids()
        self.t_started = time.monotonic()
        self.log("started %d torusd in %.1f s" %
                 (len(self.procs), self.t_started - self.t_start))

    def spawn(self, ns, mode):
        """Start the torusd of node namespace `ns`, its log opened with
        `mode` ("w", or "a" to keep what an earlier life wrote)."""
        logf = open(os.path.join(self.run_dir, ns + ".log"), mode)
        # a child starts in its parent thread's namespace: one exec
        # instead of ip netns exec's two
        with netns(ns):
            self.procs[ns] = subprocess.Popen(
                self.daemon_args(self.info[ns]),
                stdin=subprocess.DEVNULL, stdout=logf,
                stderr=subprocess.STDOUT)
        logf.close()

    def wait_running(self, timeout=120.0, poll=0.1):
        """Seconds from start() until every torusd it started logged
        that it runs (a process spawned is not yet a daemon running: on
        a loaded machine exec and start-up take seconds), or None."""
        pending = set(self.procs)
        deadline = time.monotonic() + timeout
        while pending and time.monotonic() < deadline:
            for ns in list(pending):
                if self.lives(ns):
                    pending.discard(ns)
            if pending:
                time.sleep(poll)
        return None if pending else time.monotonic() - self.t_start

    def lives(self, ns):
        """How many times the torusd of `ns` logged that it runs (its
        log is kept across restarts)."""
        try:
            with open(os.path.join(self.run_dir, ns + ".log")) as f:
                return f.read().count(" running on ")
        except OSError:
            return 0

    def save_pids(self):
        with open(os.path.join(self.run_dir, "pids.json"), "w") as f:
            f.write(dumps({ns: p.pid for ns, p in self.procs.items()}))

    def restart(self, ns, sig=signal.SIGKILL, wait=False):
        """Stop the torusd of `ns` with `sig` (SIGKILL: a crash, its
        node keeps forwarding and its addresses) and start it again.
        With `wait`: returns the seconds from the signal until the new
        torusd logged that it runs, or None after 30 s."""
        before, t0 = self.lives(ns), time.monotonic()
        p = self.procs[ns]
        p.send_signal(sig)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        self.spawn(ns, "a")
        self.save_pids()
        while wait and time.monotonic() - t0 < 30:
            if self.lives(ns) > before:
                return time.monotonic() - t0
            time.sleep(0.05)
        return None

    def exited(self):
        return {ns: p.returncode for ns, p in self.procs.items()
                if p.poll() is not None}

    # -- observing --

    def observe(self, ports=False):
        """{ns: tor0's node JSON} (and {ns: [port JSON]} with ports)."""
        nss = [self.rack.ns(c) for c in self.rack.nodes]
        lines = ["-n %s node show dev tor0" % ns for ns in nss]
        if ports:
            lines += ["-n %s port show" % ns for ns in nss]
        out = self.rack.torus_batch(lines, json_out=True, force=True)
        nodes = {ns: (v[0] if v else None) for ns, v in zip(nss, out)}
        if not ports:
            return nodes
        return nodes, {ns: v or [] for ns, v in zip(nss, out[len(nss):])}

    def drop_counts(self, ports=False):
        """{reason: frames} the live nodes' tor0 dropped, summed; with
        ports, what their ports (the cables' ends) dropped: a full
        receive buffer, for one, is counted there and not by tor0."""
        what = "port show" if ports else "node show dev tor0"
        out = self.rack.torus_batch(["-n %s %s" % (self.rack.ns(c), what)
                                     for c in self.live],
                                    json_out=True, force=True, stats=True)
        total = {}
        for recs in out:
            for rec in recs or []:
                for k, n in ((rec.get("stats") or {}).get("drop")
                             or {}).items():
                    total[k] = total.get(k, 0) + n
        return total

    @staticmethod
    def signature(nodes):
        return {ns: (o.get("state"), o.get("role"),
                     tuple(o.get("coord") or ()), tuple(o.get("dims") or ()),
                     tuple(o.get("wrap") or ()))
                if o else None for ns, o in nodes.items()}

    def wait(self, timeout=None, settle=None, stall=None, poll=0.5):
        """Wait until every live node is placed or failed and nothing
        changed for `settle` s (converged), or nothing changed for
        `stall` s, or `timeout` s passed since the last daemon started
        (a starved machine may take minutes to start them all).
        Returns (converged, seconds from the daemons' start to the last
        change, nodes)."""
        timeout = self.spec["timeout"] if timeout is None else timeout
        settle = self.spec["settle"] if settle is None else settle
        stall = self.spec["stall"] if stall is None else stall
        t0 = self.t_start or time.monotonic()
        deadline = (self.t_started or time.monotonic()) + timeout
        last_sig, last_change = None, time.monotonic()
        live_ns = [self.rack.ns(c) for c in self.live]
        while True:
            nodes = self.observe()
            now = time.monotonic()
            sig = self.signature(nodes)
            if sig != last_sig:
                last_sig, last_change = sig, now
            final = all((nodes.get(ns) or {}).get("state") in
                        ("placed", "failed") for ns in live_ns)
            quiet = now - last_change
            if final and quiet >= settle:
                return True, round(last_change - t0, 2), nodes
            if now >= deadline or quiet >= stall or \
                    len(self.exited()) == len(self.procs):
                return False, round(last_change - t0, 2), nodes
            time.sleep(poll)

    def verify(self, converged=True):
        nodes, ports = self.observe(ports=True)
        res = verify(self.truth, nodes, ports, converged)
        res["exited"] = [{"ns": ns, "status": rc}
                         for ns, rc in sorted(self.exited().items())
                         if ns not in self.killed]
        res["ok"] = res["ok"] and not res["exited"]
        try:
            with open("/proc/loadavg") as f:
                res["loadavg"] = float(f.read().split()[0])
        except (OSError, ValueError):
            pass
        return res, nodes

    def tor0_plan_addresses(self):
        """{ns: sorted plan addresses on its tor0} of every live node."""
        out = {}
        for c in self.live:
            ns = self.rack.ns(c)
            out[ns] = in_netns(ns, lambda nl: sorted(
                a for a in nl.addr_list("tor0") if in_plan(a)))
        return out

    def wait_addresses(self, nodes, timeout=10.0):
        """torusd gives every placed node the plan's addresses of its
        coordinates (and none to the others): wait for that.  Returns
        {ns: {"want": [...], "got": [...]}} for the nodes that still
        differ (empty when all agree)."""
        want = {}
        for c in self.live:
            ns = self.rack.ns(c)
            o = nodes.get(ns) or {}
            d = o.get("coord") if o.get("state") == "placed" else None
            want[ns] = sorted(plan_addresses(d)) if d else []
        t0 = time.monotonic()
        while True:
            got = self.tor0_plan_addresses()
            bad = {ns: {"want": w, "got": got.get(ns)}
                   for ns, w in want.items() if got.get(ns) != w}
            if not bad or time.monotonic() - t0 > timeout:
                return bad
            time.sleep(0.5)

    def add_static_addresses(self, nodes):
        """Without torusd (a rack configured by hand): give every placed
        node the plan's addresses of its coordinates, as torusd would."""
        for c in self.live:
            ns = self.rack.ns(c)
            o = nodes.get(ns) or {}
            if o.get("state") != "placed" or not o.get("coord"):
                continue
            d = o["coord"]

            def add(nl, d=d):
                if addr4(d):
                    nl.addr_add("tor0", addr4(d), 8)
                nl.addr_add("tor0", addr6(d), 64)
            in_netns(ns, add)

    def source(self, nodes):
        """The ping source: the first placed node in true order."""
        for c in self.live:
            o = nodes.get(self.rack.ns(c)) or {}
            if o.get("state") == "placed":
                return c
        return None

    def ping_check(self, nodes, result, src=None):
        """Ping every live node from src by its discovered (or, unplaced,
        its expected) address.  Returns {from, pinged, must, ok,
        failed: [ns that must answer and did not], extra_ok}."""
        src = src or self.source(nodes)
        if src is None:
            return {"from": None, "pinged": 0, "must": 0, "ok": 0,
                    "failed": [], "extra_ok": 0}
        plan_ = ping_plan(self.truth, nodes, result, self.rack.ns(src))
        oks = ping_many(self.rack.ns(src), [addr(p[1]) for p in plan_])
        oks = [oks[addr(p[1])] for p in plan_]
        must = [p for p in plan_ if p[2]]
        failed = [p[0] for p, ok in zip(plan_, oks) if p[2] and not ok]
        return {"from": self.rack.ns(src), "pinged": len(plan_),
                "must": len(must), "ok": sum(oks), "failed": failed,
                "extra_ok": sum(1 for p, ok in zip(plan_, oks)
                                if ok and not p[2])}

    def kill_leader(self, hold=None, poll=1.0):
        """SIGKILL the leader's torusd (a crash: its node keeps forwarding
        and its addresses), then watch every node for `hold`
        seconds (default: twice the dead and quiet timers plus 3 s).
        Returns {leader, changed: [{ns, before, after}], seconds}."""
        before = self.observe()
        leaders = [ns for ns, o in before.items()
                   if o and o.get("role") == "leader" and ns in self.procs]
        if not leaders:
            return {"leader": None, "changed": [], "seconds": 0}
        leader = leaders[0]
        if hold is None:
            hold = 2 * (self.spec["dead_timer"] + self.spec["quiet"]) / \
                1000.0 + 3
        p = self.procs[leader]
        self.killed.add(leader)
        p.send_signal(signal.SIGKILL)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        t0 = time.monotonic()
        want = self.signature(before)
        changed = {}
        while time.monotonic() - t0 < hold:
            time.sleep(poll)
            got = self.signature(self.observe())
            for ns, sig in got.items():
                if sig != want[ns] and ns not in changed:
                    changed[ns] = (want[ns], sig)
        return {"leader": leader, "seconds": round(hold, 1),
                "changed": [{"ns": ns, "before": list(b[:3]) if b else None,
                             "after": list(a[:3]) if a else None}
                            for ns, (b, a) in sorted(changed.items())]}

    # -- ending --

    def stop(self, sig=signal.SIGTERM):
        """Stop every torusd: SIGTERM (a clean exit takes the plan
        addresses away, the kernel keeps its placement) or SIGKILL (a
        crash: the addresses stay with the kernel's placement)."""
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(sig)
        deadline = time.monotonic() + 10
        for p in self.procs.values():
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs = {}
        try:
            os.unlink(os.path.join(self.run_dir, "pids.json"))
        except FileNotFoundError:
            pass

    def destroy(self):
        try:
            self.stop()
            self.rack.destroy(quiet=True)
        finally:
            LABS_ALIVE.pop(id(self), None)

    def picture(self, res, svg):
        """The rack as torus topo sees it in the kernel (the topology
        document, returned), with each dead node put at the coordinate
        the isometry gives it in the discovered frame; drawn into @svg
        by torus topo."""
        out = run([TORUS, "-j", "topo", "netns",
                   self.rack.prefix + "[0-9]*"], timeout=300)
        doc = loads_strict(out.stdout)
        iso = Isometry.from_json(res["isometry"], self.truth["dims"],
                                 self.truth["wrap"]) \
            if res.get("isometry") else None
        if iso and doc.get("dims"):
            by_ns = {self.rack.ns(c): c for c in self.rack.dead}
            for nd in doc["nodes"]:
                if nd["state"] == "dead" and nd["name"] in by_ns:
                    nd["coord"] = list(iso.coord(by_ns[nd["name"]]))
        path = os.path.join(self.run_dir, "topo.json")
        with open(path, "w") as f:
            f.write(dumps(doc))
        run([TORUS, "topo", "from", path, "svg", svg])
        return doc

    def run(self, ping=False, kill_leader=False, keep=False, svg=None):
        """build, start, wait, verify (+ addresses, pings, leader kill,
        the picture in @svg); returns the result dictionary."""
        phases = collections.OrderedDict()
        t = [time.monotonic()]

        def phase(name):
            now = time.monotonic()
            phases[name] = round(now - t[0], 2)
            t[0] = now
        build_secs = self.build()
        phase("build")
        res = None
        try:
            self.start()
            phase("start")
            conv, secs, nodes = self.wait()
            phase("wait")
            self.log("%s after %.1f s" % ("converged" if conv else
                                         "NOT converged", secs))
            res, nodes = self.verify(conv)
            phase("verify")
            res["seconds"] = secs
            res["build_seconds"] = round(build_secs, 1)
            res["truth"] = self.truth_file
            res["run_dir"] = self.run_dir
            res["phases"] = phases
            res["addresses_wrong"] = self.wait_addresses(nodes)
            res["ok"] = res["ok"] and not res["addresses_wrong"]
            phase("addresses")
            if ping:
                res["ping"] = self.ping_check(nodes, res)
                res["ok"] = res["ok"] and not res["ping"]["failed"]
                phase("ping")
            if kill_leader:
                res["kill_leader"] = self.kill_leader()
                res["ok"] = res["ok"] and res["kill_leader"]["leader"] \
                    is not None and not res["kill_leader"]["changed"]
                phase("kill_leader")
            if svg:
                res["topo"] = self.picture(res, svg)
                res["svg"] = svg
                phase("svg")
            return res
        finally:
            if not keep:
                self.destroy()
                phase("destroy")


def stop_recorded(run_dir):
    """Stop torusd processes a previous run left (its pids.json): only
    those pids, and only while they still are torusd."""
    path = os.path.join(run_dir, "pids.json")
    try:
        with open(path) as f:
            pids = loads_strict(f.read())
    except (OSError, ValueError):
        return 0
    n = 0
    for pid in pids.values():
        try:
            with open("/proc/%d/comm" % pid) as f:
                if f.read().strip() != "torusd":
                    continue
            os.kill(pid, signal.SIGTERM)
            n += 1
        except (OSError, ValueError):
            pass
    os.unlink(path)
    return n


# ---- command line ----

def _spec_args(p, required_dims=False):
    g = p.add_argument_group("spec (override the --spec file)")
    g.add_argument("--spec", help="spec file (key = value lines or JSON)")
    g.add_argument("--dims", required=required_dims,
                   help="extents, e.g. 4x4x4 (1 to 8 axes)")
    g.add_argument("--wrap", help="torus | mesh | 1,0,1 (per axis)")
    g.add_argument("--block", help="block extents, e.g. 2x2x2")
    g.add_argument("--miswire", choices=("none", "blocks", "nodes"),
                   help="what a rotation applies to")
    g.add_argument("--rotations",
                   help="random | identity | list, e.g. '+y-x+z +x+y+z'")
    g.add_argument("--seed", type=int, help="seed of every random choice")
    g.add_argument("--dead", help="count, or coordinates '1,0,0 2,3,1'")
    g.add_argument("--cut", help="count, or cables '1,0,0+x 2,2,2-z'")
    g.add_argument("--prefix", help="namespace name prefix (default n)")
    g.add_argument("--tick", type=int, help="torusd --tick MS")
    g.add_argument("--hello", type=int, help="torusd --hello MS")
    g.add_argument("--dead-timer", type=int, help="torusd --dead MS")
    g.add_argument("--quiet", type=int, help="torusd --quiet MS")
    g.add_argument("--orient", type=int, help="torusd --orient MS")
    g.add_argument("--daemon-args", help="more torusd arguments")
    g.add_argument("--timeout", type=int,
                   help="seconds to wait for convergence (120)")
    g.add_argument("--settle", type=float,
                   help="seconds without change that end the wait (2)")
    g.add_argument("--stall", type=float,
                   help="seconds without change while nodes still "
                        "discover that end the wait (30)")


def spec_from_args(args):
    raw = {}
    if args.spec:
        with open(args.spec) as f:
            raw = parse_spec_text(f.read())
    for k in SPEC_DEFAULTS:
        v = getattr(args, k, None)
        if v is not None:
            raw[k] = v
    return normalize_spec(raw)


def _print(res, as_json):
    if as_json:
        print(dumps(res, sort_keys=True))


def _text_result(res):
    lines = ["%s: %d nodes, %d live, %d placed, %s in %.1f s, %s" % (
        "OK" if res["ok"] else "FAILED", res["nodes"], res["live"],
        res["placed"], "converged" if res["converged"] else
        "not converged", res.get("seconds") or 0,
        "consistent" if res["consistent"] else "INCONSISTENT")]
    if res.get("isometry_text"):
        lines.append("  isometry: %s" % res["isometry_text"])
    lines.append("  dims %s wrap %s%s" % (
        res.get("dims"), res.get("wrap"),
        "" if res["dims_ok"] else " (expected %s %s)" % (
            res.get("expected_dims"), res.get("expected_wrap"))))
    for u in res["unplaced"]:
        lines.append("  unplaced %s (%s): %s%s" % (
            u["ns"], u["state"], u["reason"] or "-",
            " [%s]" % u["excuse"] if u["excused"] else " [NOT EXCUSED]"))
    for b in res["inconsistent"][:10]:
        lines.append("  %s at %s, expected %s" % (b["ns"], fmt(b["coord"]),
                                                   fmt(b["expected"])))
    for b in res.get("dims_bad", [])[:10]:
        lines.append("  %s dims %s wrap %s" % (b["ns"], b["dims"],
                                               b["wrap"]))
    for b in res.get("portmaps_bad", [])[:10]:
        lines.append("  %s port %s serves %s, expected %s" % (
            b["ns"], b["port"], b["global_dir"], b["expected"]))
    for ns, a in sorted((res.get("addresses_wrong") or {}).items())[:10]:
        lines.append("  %s plan addresses %s, torusd should give %s" % (
            ns, " ".join(a["got"] or []) or "none",
            " ".join(a["want"]) or "none"))
    for e in res.get("exited", []):
        lines.append("  torusd in %s exited with %s" % (e["ns"],
                                                       e["status"]))
    if "ping" in res:
        p = res["ping"]
        lines.append("  ping from %s: %d/%d ok, %d must work, failed: %s" % (
            p["from"], p["ok"], p["pinged"], p["must"],
            " ".join(p["failed"]) or "none"))
    if "kill_leader" in res:
        k = res["kill_leader"]
        lines.append("  leader %s killed: %d nodes changed in %.0f s" % (
            k["leader"], len(k["changed"]), k["seconds"]))
    return "\n".join(lines)


COMMANDS = """commands:
  build     build a rack (optionally miswired, with faults) and write its
            truth file; --static configures true coordinates by hand
  run       build, start torusd on every live node, wait for convergence,
            verify against the truth; -j prints the JSON result
  verify    verify a running rack (built by run --keep) against its truth
  plan      print the truth file a spec gives, without building
  ping-all  ping every node from one node (static address plan)
  destroy   stop a rack's torusd processes and delete its namespaces
"""


def main(argv=None):
    jopt = argparse.ArgumentParser(add_help=False)
    jopt.add_argument("-j", "--json", action="store_true",
                      default=argparse.SUPPRESS, help="print a JSON result")
    ap = argparse.ArgumentParser(
        prog="torus-lab",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Build racks of network namespaces cabled as a "
                    "torus or mesh with torus.ko, miswired and with "
                    "faults, and check torusd's discovery against the "
                    "truth (see torus-lab(8)).",
        epilog=COMMANDS)
    ap.add_argument("-j", "--json", action="store_true",
                    help="print a JSON result")
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="COMMAND")
    b = sub.add_parser("build", parents=[jopt], help="build a rack")
    _spec_args(b)
    b.add_argument("--static", action="store_true",
                   help="set coordinates, port maps and addresses by hand")
    b.add_argument("--truth", help="truth file (default RUN_DIR/truth.json)")
    b.add_argument("--run-dir", help="default $TORUS_LAB_DIR/PREFIX, "
                   "TORUS_LAB_DIR defaults to /run/torus-lab")
    r = sub.add_parser("run", parents=[jopt],
                       help="build, run torusd, wait, verify")
    _spec_args(r)
    r.add_argument("--truth", help="truth file (default RUN_DIR/truth.json)")
    r.add_argument("--run-dir", help="logs, state files, truth")
    r.add_argument("--ping", action="store_true",
                   help="then ping every placed node by discovered address")
    r.add_argument("--kill-leader", action="store_true",
                   help="then kill the leader's torusd and check that no "
                        "coordinate changes")
    r.add_argument("--keep", action="store_true",
                   help="leave the rack and its daemons running")
    r.add_argument("--torusd", help="torusd binary (default: on PATH)")
    r.add_argument("--svg", metavar="FILE",
                   help="draw the discovered fabric into FILE (torus topo); "
                        "the JSON result then holds its document, \"topo\"")
    v = sub.add_parser("verify", parents=[jopt],
                       help="verify a running rack against its truth")
    v.add_argument("--truth", help="truth file")
    v.add_argument("--prefix", default="n")
    pl = sub.add_parser("plan", parents=[jopt],
                        help="print the truth of a spec")
    _spec_args(pl)
    d = sub.add_parser("destroy", parents=[jopt],
                       help="stop daemons, delete a rack's namespaces")
    d.add_argument("--prefix", default="n")
    d.add_argument("--run-dir")
    p = sub.add_parser("ping-all", parents=[jopt],
                       help="ping every node from one node")
    p.add_argument("--dims", required=True)
    p.add_argument("--wrap", default="torus")
    p.add_argument("--prefix", default="n")
    p.add_argument("--from", dest="src", default=None,
                   help="source coordinates, e.g. 0,0,0")
    p.add_argument("-6", dest="v6", action="store_true", help="use IPv6")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return e.code
    as_json = args.json

    try:
        return _dispatch(args, as_json)
    except (ValueError, OSError) as e:
        print("torus-lab: %s" % e, file=sys.stderr)
        return 2


def _dispatch(args, as_json):
    if args.cmd == "destroy":
        run_dir = args.run_dir or default_run_dir(args.prefix)
        stopped = stop_recorded(run_dir)
        Rack([1], prefix=args.prefix).destroy()
        _print({"stopped": stopped}, as_json)
        return 0
    if args.cmd == "plan":
        sys.stdout.write(truth_text(plan(spec_from_args(args))))
        return 0
    if args.cmd == "verify":
        truth_file = args.truth or os.path.join(
            default_run_dir(args.prefix), "truth.json")
        with open(truth_file) as f:
            truth = loads_strict(f.read())
        lab = Lab(normalize_spec(truth["spec"]), truth_file=truth_file,
                  truth=truth)
        res, _ = lab.verify()
        res["exited"] = []
        _print(res, as_json)
        if not as_json:
            print(_text_result(res))
        return 0 if res["ok"] else 1
    if args.cmd in ("build", "run"):
        spec = spec_from_args(args)
        log = (lambda m: None) if as_json else \
            (lambda m: print("# " + m, flush=True))
        lab = Lab(spec, run_dir=args.run_dir, truth_file=args.truth,
                  torusd=getattr(args, "torusd", None), log=log)
        if args.cmd == "build":
            os.makedirs(lab.run_dir, exist_ok=True)
            stop_recorded(lab.run_dir)
            lab.write_truth()
            secs = lab.rack.build(static=args.static)
            res = {"nodes": len(lab.rack.nodes),
                   "cables": len(lab.truth["cables"]),
                   "dead": len(lab.rack.dead), "cut": len(lab.truth["cut"]),
                   "seconds": round(secs, 2), "static": args.static,
                   "truth": lab.truth_file}
            if as_json:
                print(dumps(res))
            else:
                print("built %d nodes, %d cables in %.1f s; truth in %s" %
                      (res["nodes"], res["cables"], secs, lab.truth_file))
            return 0
        res = lab.run(ping=args.ping, kill_leader=args.kill_leader,
                      keep=args.keep, svg=args.svg)
        _print(res, as_json)
        if not as_json:
            print(_text_result(res))
        return 0 if res["ok"] else 1

    dims = parse_dims(args.dims)
    rack = Rack(dims, parse_wrap(args.wrap, len(dims)), args.prefix)
    src = tuple(int(v) for v in args.src.split(",")) if args.src else \
        rack.nodes[0]
    t0 = time.monotonic()
    oks = rack.ping_all(src, v6=args.v6)
    failed = sorted(d for d, ok in oks.items() if not ok)
    res = {"from": list(src), "pinged": len(oks),
           "ok": len(oks) - len(failed),
           "failed": [list(d) for d in failed],
           "seconds": round(time.monotonic() - t0, 2)}
    if as_json:
        print(dumps(res))
    else:
        print("ping from %s: %d/%d ok in %.1f s%s" %
              (",".join(map(str, src)), res["ok"], res["pinged"],
               res["seconds"],
               "" if not failed else "; failed: " +
               " ".join(",".join(map(str, d)) for d in failed)))
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
