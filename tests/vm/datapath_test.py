#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""VM scenarios for the data path and the devices (runs inside the VM).

Segmentation on ports that cannot take GSO frames (a plain veth, a
torport with checksumming off), the node's MTU following its ports,
hostile frames on the receive hook (VLAN tags, frames for other hosts,
spoofed inner sources), a cut cable that carries nothing even from a
packet socket, and what stock `ip -d link show` and `ethtool` see.
Prints PASS:/FAIL:/SKIP: lines for the aggregator.
"""

import hashlib
import ipaddress
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import case, results, skip  # noqa: E402
import torus_lab  # noqa: E402
from torus_lab import Rack, addr4, addr6, loads_strict, run  # noqa: E402

ETH_P_TORUS = 0x88B5
TORUS_T_DATA = 1

# ---- a two-node fabric over any pair of Ethernet devices ----

PAIR = ("ga", "gb")


def ip(*args, check=True):
    return run(["ip"] + list(args), check=check)


def torus(ns, *args):
    return run(["torus", "-n", ns] + list(args))


def pair_destroy():
    for ns in PAIR:
        ip("netns", "del", ns, check=False)


def pair_build(kind):
    """Nodes (0) and (1) of a 2-node line, cabled by a veth pair or a
    torport pair: ports 'pa' in ga and 'pb' in gb."""
    pair_destroy()
    a, b = PAIR
    for ns in PAIR:
        ip("netns", "add", ns)
        ip("-n", ns, "link", "add", "tor0", "type", "torus")
    if kind == "veth":
        ip("-n", a, "link", "add", "pa", "type", "veth", "peer", "pb",
           "netns", b)
    else:
        run(["torus", "-n", a, "link", "add", "pa", "dir", "+x", "peer",
             "pb", "dir", "-x", "netns", b])
    for ns, port, coord, d in ((a, "pa", 0, "+x"), (b, "pb", 1, "-x")):
        ip("-n", ns, "link", "set", port, "master", "tor0")
        for dev in ("lo", port, "tor0"):
            ip("-n", ns, "link", "set", dev, "up")
        torus(ns, "node", "set", "dev", "tor0", "coord", str(coord),
              "dims", "2", "wrap", "0")
        torus(ns, "port", "map", "set", "dev", "tor0", d, port)
        ip("-n", ns, "addr", "add", addr4((coord,)) + "/8", "dev", "tor0")


def node_json(ns):
    return loads_strict(torus(ns, "-j", "-s", "node", "show").stdout)[0]


def port_tx_dropped(ns, dev):
    link = json.loads(ip("-n", ns, "-s", "-j", "link", "show",
                         dev).stdout)[0]
    return link["stats64"]["tx"]["dropped"]


def ethtool_k(ns, dev, *feats):
    run(["ip", "netns", "exec", ns, "ethtool", "-K", dev] + list(feats))


SERVER = r"""
import socket, hashlib
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 5202)); s.listen(1)
print("ready", flush=True)
s.settimeout(60)
c, _ = s.accept(); c.settimeout(20); h = hashlib.sha256(); n = 0
try:
    while True:
        b = c.recv(1 << 16)
        if not b:
            break
        h.update(b); n += len(b)
except OSError:
    pass
print(n, h.hexdigest(), flush=True)
"""

CLIENT = r"""
import socket, sys, time
data = sys.stdin.buffer.read()
c = socket.create_connection((sys.argv[1], 5202), timeout=20)
t = time.monotonic()
for off in range(0, len(data), 1 << 20):      # large writes: 1 MiB each
    c.sendall(data[off:off + (1 << 20)])
c.shutdown(socket.SHUT_WR); c.recv(1); c.close()
print("%.3f" % (time.monotonic() - t))
"""


def tcp_transfer(src_ns, dst_ns, dst_addr, nbytes):
    """Send nbytes of random data over TCP with large writes; returns
    (bytes received, digest equal, seconds)."""
    data = os.urandom(nbytes)
    server = subprocess.Popen(["ip", "netns", "exec", dst_ns, "python3",
                               "-c", SERVER], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert server.stdout.readline().strip() == "ready"
        client = subprocess.run(["ip", "netns", "exec", src_ns, "python3",
                                 "-c", CLIENT, dst_addr], input=data,
                                capture_output=True, timeout=90)
        n, digest = server.stdout.readline().split()
        server.wait(timeout=30)
    finally:
        server.kill()
    secs = float(client.stdout.strip() or "nan")
    return int(n), digest == hashlib.sha256(data).hexdigest(), secs


def gso_case(name, kind, feats):
    @case(name)
    def check():
        pair_build(kind)
        try:
            for ns, port in zip(PAIR, ("pa", "pb")):
                if feats:
                    ethtool_k(ns, port, *feats)
            nbytes = 4 << 20
            n, same, secs = tcp_transfer(PAIR[0], PAIR[1], addr4((1,)),
                                         nbytes)
            drops = [node_json(ns)["stats"]["drop"] for ns in PAIR]
            assert n == nbytes, "received %d of %d bytes" % (n, nbytes)
            assert same, "sha256 mismatch"
            big = sum(d.get("too_big", 0) for d in drops)
            assert big == 0, "too_big drops: %d" % big
            # TCP gets the data through retransmissions even when every
            # large frame is dropped: no frame may be lost on the way
            lost = {p: port_tx_dropped(ns, p)
                    for ns, p in zip(PAIR, ("pa", "pb"))}
            assert not any(lost.values()), "frames dropped on transmit " \
                "(ip -s link): %s" % lost
            return "%d MiB in %.2f s, %.0f MiB/s" % (
                nbytes >> 20, secs, (nbytes >> 20) / secs)
        finally:
            pair_destroy()
    return check


@case("node_mtu_and_features_follow_ports")
def check_mtu():
    pair_build("veth")
    try:
        a, b = PAIR

        def mtu(ns, dev):
            return json.loads(ip("-n", ns, "-j", "link", "show",
                                 dev).stdout)[0]["mtu"]
        assert mtu(a, "tor0") == 1468, mtu(a, "tor0")
        ip("-n", a, "link", "set", "pa", "mtu", "9000")
        assert mtu(a, "tor0") == 8968, "after port MTU 9000: %d" % mtu(
            a, "tor0")
        ip("-n", a, "link", "set", "pa", "mtu", "1400")
        assert mtu(a, "tor0") == 1368, "after port MTU 1400: %d" % mtu(
            a, "tor0")
        res = ip("-n", a, "link", "set", "tor0", "mtu", "1369", check=False)
        assert res.returncode != 0, "tor0 MTU above its port's accepted"

        def feature(name):
            out = run(["ip", "netns", "exec", a, "ethtool", "-k",
                       "tor0"]).stdout
            return next(l.split(":")[1].split()[0] for l in out.splitlines()
                        if l.startswith(name + ":"))
        assert feature("tx-checksumming") == "on"
        ethtool_k(a, "pa", "tx", "off")
        assert feature("tx-checksumming") == "off", \
            "tor0 checksums what its port cannot"
        ethtool_k(a, "pa", "tx", "on")
        assert feature("tx-checksumming") == "on"
    finally:
        pair_destroy()


# ---- hostile frames on a 3-node line (0) - (1) - (2) ----

def torus_frame(src, dst, proto, payload, hop_limit=8, dmac=b"\xff" * 6,
                vlan=None):
    eth = dmac + b"\x02\x00\x00\x00\x00\x01"
    if vlan is not None:
        eth += struct.pack("!HH", 0x8100, vlan)
    eth += struct.pack("!H", ETH_P_TORUS)
    hdr = struct.pack("!BBBBHBB", 1, TORUS_T_DATA, hop_limit, 0, proto, 0, 0)
    pad = bytes(8 - len(src))
    hdr += bytes(dst) + pad + bytes(src) + pad + bytes(8)
    return eth + hdr + payload


def _sum16(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ipv4_udp(src, dst, body=b"torus"):
    udp = struct.pack("!HHHH", 4000, 4001, 8 + len(body), 0) + body
    iph = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64,
                      17, 0, ipaddress.IPv4Address(src).packed,
                      ipaddress.IPv4Address(dst).packed)
    iph = iph[:10] + struct.pack("!H", _sum16(iph)) + iph[12:]
    return iph + udp


def ipv6_udp(src, dst, body=b"torus"):
    s, d = ipaddress.IPv6Address(src).packed, ipaddress.IPv6Address(dst).packed
    udp = struct.pack("!HHHH", 4000, 4001, 8 + len(body), 0) + body
    pseudo = s + d + struct.pack("!I3xB", len(udp), 17)
    udp = udp[:6] + struct.pack("!H", _sum16(pseudo + udp)) + udp[8:]
    return struct.pack("!IHBB", 6 << 28, len(udp), 17, 64) + s + d + udp


def send_frames(rack, coord, port, frames):
    script = ("import socket,sys\n"
              "s=socket.socket(socket.AF_PACKET,socket.SOCK_RAW)\n"
              "s.bind((sys.argv[1],0))\n"
              "for f in sys.argv[2:]: s.send(bytes.fromhex(f))\n")
    rack.exec(coord, ["python3", "-c", script, port] +
              [f.hex() for f in frames])


def stats_delta(rack, coord, fn):
    before = rack.node_json(coord)["stats"]
    fn()
    time.sleep(0.2)
    after = rack.node_json(coord)["stats"]
    delta = {k: after[k] - before[k] for k in after if k != "drop"}
    delta["drop"] = {k: after["drop"][k] - before["drop"].get(k, 0)
                     for k in after["drop"]
                     if after["drop"][k] != before["drop"].get(k, 0)}
    return delta


@case("vlan_tagged_frame_dropped")
def check_vlan(rack):
    """A tagged frame for (2) through (1) is not forwarded (it would
    leave with its tag: VLAN hopping); counted as vlan."""
    frame = torus_frame((0,), (2,), 0x0800,
                        ipv4_udp(addr4((0,)), addr4((2,))), vlan=5)
    d = stats_delta(rack, (1,), lambda: send_frames(rack, (0,), "px",
                                                    [frame] * 5))
    assert d["fwd_packets"] == 0, "forwarded tagged frames: %s" % d
    assert d["drop"].get("vlan") == 5, d
    return "drop %s" % d["drop"]


@case("other_host_frame_dropped")
def check_other_host(rack):
    """A frame unicast to another host's MAC is not forwarded."""
    frame = torus_frame((0,), (2,), 0x0800,
                        ipv4_udp(addr4((0,)), addr4((2,))),
                        dmac=b"\x02\x00\x00\x00\x00\x99")
    d = stats_delta(rack, (1,), lambda: send_frames(rack, (0,), "px",
                                                    [frame] * 5))
    assert d["fwd_packets"] == 0, "forwarded frames for another host: %s" % d
    assert d["drop"].get("other_host") == 5, d
    good = torus_frame((0,), (2,), 0x0800,
                       ipv4_udp(addr4((0,)), addr4((2,))))
    d = stats_delta(rack, (1,), lambda: send_frames(rack, (0,), "px",
                                                    [good] * 3))
    # (2) answers each with an ICMP error, which (1) forwards too; the
    # node's own IPv6 chatter may count bad_addr meanwhile
    assert d["fwd_packets"] >= 3 and "other_host" not in d["drop"], \
        "broadcast frames not forwarded: %s" % d


@case("spoofed_source_dropped")
def check_spoofed(rack):
    """At delivery the inner source must be the header's source node:
    v4 and v6 spoofs are dropped as spoofed, honest frames delivered."""
    spoofs = [torus_frame((0,), (1,), 0x0800,
                          ipv4_udp(addr4((2,)), addr4((1,)))),
              torus_frame((0,), (1,), 0x0800,
                          ipv4_udp("192.0.2.1", addr4((1,)))),
              torus_frame((0,), (1,), 0x86DD,
                          ipv6_udp(addr6((2,)), addr6((1,))))]
    d = stats_delta(rack, (1,), lambda: send_frames(rack, (0,), "px",
                                                    spoofs))
    assert d["rx_packets"] == 0, "spoofed frames delivered: %s" % d
    assert d["drop"].get("spoofed") == 3, "spoofs not counted: %s" % d
    honest = [torus_frame((0,), (1,), 0x0800,
                          ipv4_udp(addr4((0,)), addr4((1,)))),
              torus_frame((0,), (1,), 0x86DD,
                          ipv6_udp(addr6((0,)), addr6((1,))))]
    d = stats_delta(rack, (1,), lambda: send_frames(rack, (0,), "px",
                                                    honest))
    # (1) answers with ICMP errors; only its own sends may count drops
    assert d["rx_packets"] == 2 and "spoofed" not in d["drop"], \
        "honest frames not delivered: %s" % d


@case("cut_cable_carries_nothing")
def check_cut_carries_nothing(rack):
    """Frames a packet socket sends on a cut cable never arrive (the
    queue is stopped with the carrier; the torport itself refuses what
    reaches it directly: KUnit torus_fwd.cut_cable_carries_nothing)."""
    rack.set_cable((0,), 0, False, "down")
    try:
        before_rx = rack.ports_json((1,))["mx"]["rx_packets"]
        frame = torus_frame((0,), (1,), 0x0800,
                            ipv4_udp(addr4((0,)), addr4((1,))))
        send_frames(rack, (0,), "px", [frame] * 4)
        time.sleep(0.2)
        rx = rack.ports_json((1,))["mx"]["rx_packets"] - before_rx
    finally:
        rack.set_cable((0,), 0, False, "up")
    assert rx == 0, "%d frames crossed a cut cable" % rx


# ---- what stock tools see ----

IFLA_LINKINFO, IFLA_INFO_KIND, IFLA_INFO_DATA = 18, 1, 2
IFLA_INFO_SLAVE_KIND, IFLA_INFO_SLAVE_DATA = 4, 5

LINKINFO = r"""
import json, socket, struct, sys
def attrs(buf):
    out, off = {}, 0
    while off + 4 <= len(buf):
        ln, typ = struct.unpack_from("HH", buf, off)
        out[typ & 0x3fff] = buf[off + 4:off + ln]
        off += (ln + 3) & ~3
    return out
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
idx = socket.if_nametoindex(sys.argv[1])
body = struct.pack("BBHiII", 0, 0, 0, idx, 0, 0)
s.send(struct.pack("IHHII", 16 + len(body), 18, 1, 1, 0) + body)
msg = s.recv(65536)
info = attrs(attrs(msg[32:])[18])
print(json.dumps({str(k): v.hex() for k, v in info.items()}))
"""


def linkinfo(rack, coord, dev):
    out = rack.exec(coord, ["python3", "-c", LINKINFO, dev]).stdout
    return {int(k): bytes.fromhex(v) for k, v in json.loads(out).items()}


def nl_attrs(buf):
    out, off = {}, 0
    while off + 4 <= len(buf):
        ln, typ = struct.unpack_from("HH", buf, off)
        out[typ & 0x3fff] = buf[off + 4:off + ln]
        off += (ln + 3) & ~3
    return out


def axes(buf, fmt="I"):
    a = nl_attrs(buf)
    return [struct.unpack(fmt, a[i + 1][:struct.calcsize(fmt)])[0]
            for i in range(len(a))]


@case("ip_link_details")
def check_ip_details(rack):
    """Stock ip -d -j shows the kinds; the attributes behind them carry
    coordinates, extents, wrap, state and node id (node) and label and
    global direction (port)."""
    node = rack.node_json((1,))
    js = json.loads(rack.exec((1,), ["ip", "-d", "-j", "link", "show",
                                     "tor0"]).stdout)[0]
    assert js["linkinfo"]["info_kind"] == "torus", js["linkinfo"]
    js = json.loads(rack.exec((1,), ["ip", "-d", "-j", "link", "show",
                                     "px"]).stdout)[0]
    assert js["linkinfo"]["info_slave_kind"] == "torus", js["linkinfo"]

    info = linkinfo(rack, (1,), "tor0")
    assert IFLA_INFO_DATA in info, "no IFLA_INFO_DATA on the node"
    data = nl_attrs(info[IFLA_INFO_DATA])
    assert struct.unpack("Q", data[1])[0] == int(node["id"]), data
    assert data[2][0] == 3, "state %d, want placed (3)" % data[2][0]
    assert axes(data[4]) == [1], axes(data[4])
    assert axes(data[5]) == [3], axes(data[5])
    assert axes(data[6], "B") == [0], axes(data[6], "B")
    assert struct.unpack("I", data[7])[0] == 2, "ports"

    info = linkinfo(rack, (1,), "mx")
    assert IFLA_INFO_SLAVE_DATA in info, "no IFLA_INFO_SLAVE_DATA on a port"
    data = nl_attrs(info[IFLA_INFO_SLAVE_DATA])
    assert data[1][0] == 1 and data[2][0] == 1, \
        "label %d global_dir %d, want -x (1)" % (data[1][0], data[2][0])


@case("ethtool_info_and_stats")
def check_ethtool(rack):
    """ethtool -i names the driver; ethtool -S shows the counters and
    every drop reason, equal to what the torus tool reports."""
    if not shutil.which("ethtool"):
        skip("ethtool_info_and_stats", "ethtool not installed (make deps)")
        return "skipped"
    for dev, drv in (("tor0", "torus"), ("px", "torport")):
        out = rack.exec((1,), ["ethtool", "-i", dev]).stdout
        assert "driver: %s" % drv in out, out
    out = rack.exec((1,), ["ethtool", "-S", "tor0"]).stdout
    st = {}
    for line in out.splitlines()[1:]:
        k, v = line.split(":")
        st[k.strip()] = int(v)
    node = rack.node_json((1,))["stats"]
    for k in ("fwd_packets", "drops"):
        assert st[k] == node[k], "%s: ethtool %d, torus %d" % (
            k, st[k], node[k])
    for reason, n in node["drop"].items():
        assert st["drop_" + reason] == n, "drop_%s: ethtool %d, torus %d" % (
            reason, st["drop_" + reason], n)
    for reason in ("vlan", "other_host", "spoofed", "link_down"):
        assert "drop_" + reason in st, "no drop_%s in ethtool -S" % reason
    out = rack.exec((0,), ["ethtool", "-S", "px"]).stdout
    assert "drop_link_down" in out, out
    return "%d counters" % len(st)


def main():
    t0 = time.monotonic()
    gso_case("gso_veth_port_no_csum_tcp", "veth", ["tx", "off"])()
    gso_case("gso_veth_port_no_gso_tcp", "veth", ["gso", "off", "tso",
                                                  "off"])()
    gso_case("gso_torport_no_csum_tcp", "torport", ["tx", "off"])()
    gso_case("gso_torport_passthrough_tcp", "torport", [])()
    gso_case("gso_veth_port_tcp", "veth", [])()
    check_mtu()

    rack = Rack([3], [False], prefix="d")
    rack.build(static=True)
    try:
        check_vlan(rack)
        check_other_host(rack)
        check_spoofed(rack)
        check_cut_carries_nothing(rack)
        check_ip_details(rack)
        check_ethtool(rack)
    finally:
        rack.destroy()
    print("# data path scenarios: %.1f s" % (time.monotonic() - t0))
    return 0 if results["fail"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
