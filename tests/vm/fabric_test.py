#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""VM scenarios for the fabric foundation (runs inside the test VM).

Racks of namespaces with coordinates and port maps set by hand through
the torus tool; assertions on what users rely on: reachability, byte
exact TCP, exact port counters, the exact set of pings a cut cable
breaks with the drop counted by reason, meshes and 4 axes, clean
teardown.  Prints PASS:/FAIL:/SKIP: lines for the aggregator.
"""

import hashlib
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import REPO, TORUS_KO, case, results  # noqa: E402
import torus_lab  # noqa: E402
from torus_lab import Rack, dor_path, addr, port_name  # noqa: E402


def fmt(c):
    return ",".join(map(str, c))


@case("torus4x4x4_placed")
def check_placed(rack):
    for coord in (rack.nodes[0], rack.nodes[21], rack.nodes[-1]):
        node = rack.node_json(coord)
        assert node["state"] == "placed", node
        assert node["role"] == "static", node
        assert node["coord"] == list(coord), node
        assert node["dims"] == [4, 4, 4] and node["wrap"] == [True] * 3, node
        ports = rack.ports_json(coord)
        assert len(ports) == 6, ports
        for p in ports.values():
            assert p["carrier"] is True, p
            assert p["dir"] == p["global_dir"], p
            assert p["peer"] is not None, p


@case("torus4x4x4_ping_all_v4")
def check_ping_all(rack):
    return _ping_all(rack, False)


@case("torus4x4x4_ping_all_v6")
def check_ping_all_v6(rack):
    return _ping_all(rack, True)


def _ping_all(rack, v6):
    oks = rack.ping_all((0, 0, 0), v6=v6)
    # one more try for a lost echo (a debug kernel under load is slow):
    # reachability is the contract, not the first echo's latency
    lost = [d for d, ok in oks.items() if not ok]
    if lost:
        oks.update(rack.ping_all((0, 0, 0), dsts=lost, v6=v6))
    bad = [fmt(d) for d, ok in oks.items() if not ok]
    assert len(oks) == 63 and not bad, "unreachable: " + " ".join(bad)
    return "63/63"


@case("torus4x4x4_tcp_longest_path")
def check_tcp(rack):
    """4 MiB over the 6-hop path (0,0,0) -> (2,2,2), byte for byte."""
    src, dst = (0, 0, 0), (2, 2, 2)
    assert len(dor_path(rack.dims, rack.wrap, src, dst)) == 6
    data = os.urandom(4 << 20)
    want = hashlib.sha256(data).hexdigest()
    server = subprocess.Popen(
        ["ip", "netns", "exec", rack.ns(dst), "python3", "-c",
         "import socket,hashlib,sys\n"
         "s=socket.socket(); s.setsockopt(socket.SOL_SOCKET,"
         "socket.SO_REUSEADDR,1); s.bind(('0.0.0.0',5201)); s.listen(1)\n"
         "print('ready',flush=True)\n"
         "c,_=s.accept(); h=hashlib.sha256(); n=0\n"
         "while True:\n"
         "  b=c.recv(1<<16)\n"
         "  if not b: break\n"
         "  h.update(b); n+=len(b)\n"
         "print(n,h.hexdigest(),flush=True)\n"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout.readline().strip() == "ready"
        client = subprocess.run(
            ["ip", "netns", "exec", rack.ns(src), "python3", "-c",
             "import socket,sys\n"
             "c=socket.create_connection((sys.argv[1],5201),timeout=30)\n"
             "c.sendall(sys.stdin.buffer.read()); c.close()\n", addr(dst)],
            input=data, capture_output=True, timeout=120)
        assert client.returncode == 0, client.stderr
        n, digest = server.stdout.readline().split()
        server.wait(timeout=30)
    finally:
        server.kill()
    assert int(n) == len(data), "received %s of %d bytes" % (n, len(data))
    assert digest == want, "sha256 mismatch"
    return "%d bytes, sha256 equal" % len(data)


def port_counts(rack, coords):
    return {(c, name): (p["tx_packets"], p["rx_packets"])
            for c in coords for name, p in rack.ports_json(c).items()}


@case("torus4x4x4_port_counters")
def check_counters(rack):
    """Every port on the request and reply paths counts each frame once;
    ports off the paths count none."""
    src, dst, count = (0, 0, 0), (2, 0, 0), 20
    fwd = dor_path(rack.dims, rack.wrap, src, dst)
    back = dor_path(rack.dims, rack.wrap, dst, src)
    coords = sorted({c for hop in fwd + back for c in hop})
    before = port_counts(rack, coords)
    res = rack.exec(src, ["ping", "-q", "-c", str(count), "-i", "0.05",
                          addr(dst)], check=False)
    assert res.returncode == 0, res.stdout
    after = port_counts(rack, coords)
    want = {k: [0, 0] for k in before}
    for a, b in fwd + back:
        axis = next(i for i in range(3) if a[i] != b[i])
        up = (b[axis] - a[axis]) % rack.dims[axis] == 1
        want[(a, port_name(axis, not up))][0] += count
        want[(b, port_name(axis, up))][1] += count
    for k in before:
        got = [after[k][0] - before[k][0], after[k][1] - before[k][1]]
        assert got == want[k], "%s %s: tx,rx delta %s, want %s" % (
            fmt(k[0]), k[1], got, want[k])
    return "%d ports checked" % len(before)


@case("torus4x4x4_cut_cable_detours")
def check_cut(rack):
    """Cut (1,0,0)+x <-> (2,0,0)-x with no route installed: the pings
    whose request or reply path crosses it still arrive, by a local
    detour at the cable's ends (counted there as detours), nothing is
    dropped as link_down, and pings that do not cross it take no
    detour."""
    a, b, src = (1, 0, 0), (2, 0, 0), (0, 0, 0)
    cut = {(a, b), (b, a)}
    affected = set()
    for d in rack.nodes:
        if d == src:
            continue
        hops = dor_path(rack.dims, rack.wrap, src, d) + \
            dor_path(rack.dims, rack.wrap, d, src)
        if cut & set(hops):
            affected.add(d)
    assert affected, "oracle found no affected destination"

    def counts():
        nodes = [rack.node_json(c)["stats"] for c in (a, b)]
        return (sum(n["detours"] for n in nodes),
                sum(n["drop"]["link_down"] for n in nodes))

    det0, drops0 = counts()
    rack.set_cable(a, 0, False, "down")
    try:
        ports = rack.ports_json(b)
        assert ports["mx"]["carrier"] is False, "peer end still has carrier"
        why = rack.torus_json(a, "route", "get", "2,0,0")
        assert why["why"] == "detour", why
        oks = rack.ping_all(src, dsts=sorted(affected))
        lost = [d for d, ok in oks.items() if not ok]
        if lost:
            oks.update(rack.ping_all(src, dsts=lost))
        failed = {d for d, ok in oks.items() if not ok}
        det1, drops1 = counts()
        others = [d for d in rack.nodes if d != src and d not in affected]
        oks = rack.ping_all(src, dsts=others)
        det2, _ = counts()
    finally:
        rack.set_cable(a, 0, False, "up")
    assert not failed, "lost across the cut: %s" % sorted(map(fmt, failed))
    assert det1 - det0 >= len(affected), \
        "detours %d < %d affected pings" % (det1 - det0, len(affected))
    assert drops1 == drops0, "link_down drops +%d" % (drops1 - drops0)
    assert all(oks.values()), "unaffected pings lost"
    assert det2 == det1, "pings off the cut took %d detours" % (det2 - det1)
    return "%d affected pings arrived, %d detours, 0 link_down" % (
        len(affected), det1 - det0)


@case("torus4x4x4_transit_frees_sender_buffer")
def check_transit_orphan(rack):
    """A frame stops counting against its sender's socket once it has left
    the sender's node, as ip_rcv() does for forwarded IP; otherwise every
    hop of the path holds the send buffer (and TCP small queues)."""
    src, transit, dst, count = (0, 0, 0), (1, 0, 0), (2, 0, 0), 5
    out = port_name(0, False)
    # tbf holds frames on the transit node's way out without orphaning them
    # (netem would orphan them itself): about 9 s each at 1 kbit/s, long
    # enough for a slow VM to look at the queue and the sender
    tbf = ["tc", "qdisc", "add", "dev", out, "root", "tbf", "rate", "1kbit",
           "burst", "1600", "limit", "100000"]
    res = rack.exec(transit, tbf, check=False)
    assert res.returncode == 0, "tc tbf: " + res.stderr
    try:
        res = rack.exec(src, [
            "python3", "-c",
            "import array,fcntl,socket,sys,termios,time\n"
            "s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\n"
            "for _ in range(int(sys.argv[2])): s.sendto(b'x'*1000,(sys.argv[1],9))\n"
            "time.sleep(0.5)\n"
            "q=array.array('i',[0]); fcntl.ioctl(s,termios.TIOCOUTQ,q)\n"
            "print(q[0])\n", addr(dst), str(count)], check=False)
        assert res.returncode == 0, res.stderr
        held = int(res.stdout.split()[-1])
        stats = rack.exec(transit, ["tc", "-s", "qdisc", "show", "dev", out],
                          check=False).stdout
    finally:
        rack.exec(transit, ["tc", "qdisc", "del", "dev", out, "root"],
                  check=False)
    assert "backlog 0b 0p" not in stats, "tbf held nothing: " + stats
    assert held == 0, ("%d bytes of the sender's buffer still held while "
                       "its frames wait on %s" % (held, fmt(transit)))
    return "send buffer free while frames wait on the transit node"


@case("torus4x4x4_hop_limit_loop")
def check_loop(rack):
    """A wrong port map makes a loop; the hop limit ends it, counted."""
    src, mid, dst = (0, 0, 0), (1, 0, 0), (2, 0, 0)
    ns = rack.ns(mid)
    torus_lab.run(["torus", "-n", ns, "port", "map", "set", "dev", "tor0",
                   "+x", "mx", "-x", "px", "+y", "py", "-y", "my",
                   "+z", "pz", "-z", "mz"])
    try:
        before = sum(rack.node_json(c)["stats"]["drop"]["hop_limit"]
                     for c in (src, mid))
        assert not rack.ping(src, dst, count=1, wait=1)
        after = sum(rack.node_json(c)["stats"]["drop"]["hop_limit"]
                    for c in (src, mid))
    finally:
        rack.configure_static()
    assert after - before >= 1, "no hop_limit drop counted"
    assert rack.ping(src, dst), "not reachable after the map is fixed"


@case("bad_input_rejected")
def check_bad_input(rack):
    """Hostile requests get a clear error and change nothing."""
    ns = rack.ns((0, 0, 0))
    bad = [
        (["node", "set", "dev", "tor0", "coord", "5,0,0", "dims", "4,4,4"],
         "outside"),
        (["node", "set", "dev", "tor0", "coord", "0,0", "dims", "4,4,4"],
         "same"),
        (["port", "map", "set", "dev", "tor0", "+x", "lo"], "not a port"),
        (["route", "get", "9,9,9"], "outside"),
        (["route", "add", "1,1,1", "via", "4,0,0"], "outside"),
        (["cable", "set", "tor0", "down"], "torport"),
    ]
    before = rack.node_json((0, 0, 0))
    for args, word in bad:
        res = torus_lab.run(["torus", "-n", ns] + args, check=False)
        assert res.returncode != 0, "accepted: %s" % " ".join(args)
        assert word in res.stderr, "%s: unclear error %r" % (
            " ".join(args), res.stderr)
    after = rack.node_json((0, 0, 0))
    for k in ("coord", "dims", "wrap", "state", "generation"):
        assert before[k] == after[k], "%s changed: %s -> %s" % (
            k, before[k], after[k])
    assert rack.ping((0, 0, 0), (1, 1, 1))


@case("route_exception_via")
def check_exception(rack):
    """A 'via' exception takes frames round the intermediate node."""
    src, dst, via = (0, 0, 0), (2, 0, 0), (0, 2, 0)
    ns = rack.ns(src)
    torus_lab.run(["torus", "-n", ns, "route", "add", fmt(dst), "via",
                   fmt(via)])
    try:
        got = rack.torus_json(src, "route", "get", fmt(dst))
        assert got["exception"] is True and got["next_dir"] == "+y", got
        shown = rack.torus_json(src, "route", "show")
        assert [r["dst"] for r in shown] == [list(dst)], shown
        before = rack.node_json(via)["stats"]["fwd_packets"]
        assert rack.ping(src, dst)
        fwd = rack.node_json(via)["stats"]["fwd_packets"] - before
        assert fwd >= 1, "the intermediate node forwarded nothing"
    finally:
        torus_lab.run(["torus", "-n", ns, "route", "del", fmt(dst)])
    assert rack.torus_json(src, "route", "show") == []


def small_rack(name, dims, wrap, v6):
    @case(name)
    def check():
        rack = Rack(dims, wrap, prefix="s")
        rack.build(static=True)
        try:
            src = rack.nodes[0]
            oks = rack.ping_all(src, v6=v6)
            bad = [fmt(d) for d, ok in oks.items() if not ok]
            assert len(oks) == len(rack.nodes) - 1
            assert not bad, "unreachable: " + " ".join(bad)
            return "%d/%d" % (len(oks), len(oks))
        finally:
            rack.destroy()
    check()


@case("hostile_frames_dropped_and_counted")
def check_hostile(rack):
    """Truncated and garbage fabric frames from a neighbor are dropped
    and counted; the node keeps forwarding."""
    src, victim = (0, 0, 0), (1, 0, 0)
    before = rack.node_json(victim)["stats"]["drop"]
    script = r"""
import os, random, socket, struct
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("px", 0))
eth = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + struct.pack("!H", 0x88B5)
random.seed(7)
for n in range(0, 32):                      # truncated headers
    s.send(eth + bytes([1, 1, 8, 0]) [:n] + bytes(max(0, n - 4)))
for n in range(300):                        # garbage of every length
    s.send(eth + bytes(random.getrandbits(8) for _ in range(random.randrange(64))))
hdr = bytes([1, 1, 8, 0, 8, 0, 0, 0]) + bytes([9, 9, 9] + [0] * 5) + bytes(16)
s.send(eth + hdr + bytes(40))               # destination outside the extents
s.send(eth + bytes([7]) + hdr[1:] + bytes(40))  # unknown version
"""
    rack.exec(src, ["python3", "-c", script])
    after = rack.node_json(victim)["stats"]["drop"]
    grew = {k: after[k] - before[k] for k in after if after[k] != before[k]}
    assert grew.get("malformed", 0) >= 32, grew
    assert grew.get("bad_addr", 0) >= 1 and grew.get("version", 0) >= 1, grew
    assert rack.ping(src, (2, 0, 0)), "forwarding broken after hostile frames"
    return ", ".join("%s +%d" % kv for kv in sorted(grew.items()))


@case("monitor_sees_carrier_events")
def check_monitor(rack):
    """torus monitor -j prints the carrier change of a cut cable."""
    src = (0, 0, 0)
    mon = subprocess.Popen(["torus", "-n", rack.ns(src), "-j", "monitor"],
                           stdout=subprocess.PIPE, text=True)
    try:
        time.sleep(1.0)
        rack.set_cable(src, 1, False, "down")
        time.sleep(0.5)
        rack.set_cable(src, 1, False, "up")
        time.sleep(1.0)
    finally:
        mon.kill()
    out, _ = mon.communicate(timeout=10)
    events = [torus_lab.loads_strict(l) for l in out.splitlines()
              if l.strip()]
    py = [e for e in events if e.get("event") == "port" and
          e.get("ifname") == "py"]
    assert any(e.get("carrier") is False for e in py), out
    assert any(e.get("carrier") is True for e in py), out
    return "%d events" % len(events)


@case("changes_need_cap_net_admin")
def check_caps(rack):
    """Reading works unprivileged; changing needs CAP_NET_ADMIN."""
    ns = rack.ns((0, 0, 0))
    drop = ["ip", "netns", "exec", ns, "setpriv", "--reuid=65534",
            "--regid=65534", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "torus"]
    res = torus_lab.run(drop + ["-j", "node", "show"], check=False)
    assert res.returncode == 0, "unprivileged read failed: " + res.stderr
    for args in (["node", "set", "dev", "tor0", "id", "9"],
                 ["cable", "set", "px", "down"],
                 ["route", "add", "1,1,1", "dir", "+x"]):
        res = torus_lab.run(drop + args, check=False)
        assert res.returncode != 0, "unprivileged %s accepted" % args[0]
        assert "CAP_NET_ADMIN" in res.stderr, res.stderr
    node_id = rack.node_json((0, 0, 0))["id"]
    assert isinstance(node_id, str) and node_id != "9", node_id


@case("json_strict_odd_ifname_big_id")
def check_json_strict():
    """Every -j output is strict JSON in valid UTF-8 (no NaN, no raw
    bytes) even for port names that are not UTF-8 and hold control
    characters, and a 64-bit id above 2^53 round-trips exactly."""
    ns, big_id = "jx", 13441520399186018479
    # Linux allows any byte in a name but '/', ':', NUL and white space;
    # 0xe9 and 0x80 alone are not UTF-8: the printer writes \u00XX
    px, mx = b"j\xe9\x01p", b"j\x80\x7fm"
    torus_lab.run(["ip", "netns", "add", ns])
    try:
        torus_lab.run(["ip", "-n", ns, "link", "add", "tor0", "type",
                       "torus"])
        subprocess.run([b"torus", b"-n", ns.encode(), b"link", b"add", px,
                        b"dir", b"+x", b"master", b"tor0", b"peer", mx,
                        b"dir", b"-x", b"master", b"tor0"], check=True)
        torus_lab.run(["torus", "-n", ns, "node", "set", "dev", "tor0",
                       "id", str(big_id), "coord", "0", "dims", "2",
                       "wrap", "1", "state", "placed", "role", "static"])
        outs = {}
        for args in (["-s", "node", "show"], ["-s", "port", "show"],
                     ["route", "show"], ["-p", "-s", "port", "show"]):
            res = subprocess.run(["torus", "-n", ns, "-j"] + args,
                                 capture_output=True, timeout=30)
            assert res.returncode == 0, (args, res.stderr)
            raw = res.stdout
            # strict: UTF-8 or UnicodeDecodeError, NaN/Infinity refused
            outs[" ".join(args)] = torus_lab.loads_strict(
                raw.decode("utf-8"))
        node = outs["-s node show"][0]
        assert node["id"] == str(big_id), node["id"]
        assert int(node["id"]) == big_id
        names = {p["ifname"] for p in outs["-s port show"]}
        # every byte of these names is a control character or not UTF-8
        want = {px.decode("latin-1"), mx.decode("latin-1")}
        assert names == want, (names, want)
        assert {p["ifname"] for p in outs["-p -s port show"]} == want
    finally:
        torus_lab.run(["ip", "netns", "del", ns], check=False)
    return "%d outputs" % len(outs)


@case("cable_and_node_lifecycle")
def check_lifecycle(rack):
    """Deleting one end deletes its peer; deleting the node device
    releases its ports; rmmod with devices present cleans everything."""
    small = Rack([2, 2], [False, False], prefix="l")
    small.build(static=True)
    a, b = (0, 0), (1, 0)
    assert "mx" in small.ports_json(b)
    res = torus_lab.run(["ip", "-n", small.ns(a), "link", "set", "tor0",
                         "netns", small.ns(b)], check=False)
    assert res.returncode != 0, "a node device moved netns away from its ports"

    torus_lab.run(["ip", "-n", small.ns(a), "link", "del", "px"])
    assert "mx" not in small.ports_json(b), "peer end survived"
    torus_lab.run(["ip", "-n", small.ns(b), "link", "del", "tor0"])
    ports = small.ports_json(b)
    assert ports and all(p["master"] is None for p in ports.values()), ports
    res = torus_lab.run(["rmmod", "torus"], check=False)
    assert res.returncode == 0, "rmmod with devices present: " + res.stderr
    left = torus_lab.run(["ip", "-n", small.ns(a), "-o", "link"]).stdout
    assert "tor" not in left and "px" not in left, left
    small.destroy()
    torus_lab.run(["insmod", TORUS_KO])


@case("teardown_clean")
def check_teardown(rack):
    rack.destroy()
    for _ in range(50):
        left = torus_lab.run(["ip", "netns", "list"]).stdout.strip()
        if not left:
            break
        time.sleep(0.1)
    assert not left, "namespaces left: " + left
    res = torus_lab.run(["rmmod", "torus"], check=False)
    assert res.returncode == 0, "rmmod: " + res.stderr
    dmesg = torus_lab.run(["dmesg"]).stdout
    bad = [l for l in dmesg.splitlines()
           if any(w in l for w in ("WARNING:", "BUG:", "Oops",
                                   "suspected memory leak",
                                   "refcount", "unregister_netdevice: waiting"))]
    assert not bad, "dmesg: " + " | ".join(bad[:5])


def main():
    rack = Rack([4, 4, 4], [True] * 3)
    t0 = time.monotonic()
    secs = rack.build(static=True)
    print("# built 4x4x4 rack (64 namespaces, 192 cables) in %.1f s" % secs,
          flush=True)
    check_placed(rack)
    check_ping_all(rack)
    check_ping_all_v6(rack)
    check_tcp(rack)
    check_counters(rack)
    check_cut(rack)
    check_transit_orphan(rack)
    check_loop(rack)
    check_bad_input(rack)
    check_exception(rack)
    check_hostile(rack)
    check_monitor(rack)
    check_caps(rack)
    check_json_strict()
    rack.destroy()
    small_rack("mesh3x3_ping_all", [3, 3], [False, False], False)
    small_rack("torus2x2x2x2_ping_all_v6", [2, 2, 2, 2], [True] * 4, True)
    small_rack("mixed5x1x2_ping_all", [5, 1, 2], [False, True, True], False)
    check_lifecycle(rack)
    check_teardown(rack)
    print("# fabric scenarios: %.1f s" % (time.monotonic() - t0))
    return 0 if results["fail"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
