#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""VM scenarios: any Ethernet device enslaved as a port (runs inside the
test VM).

A port that is not a torport gets its label through rtnetlink
(`torus port set PORT dir LABEL`, `ip link set PORT type torus_slave dir
LABEL`); a torport's stays its cable's.  Then a rack cabled with plain
veth pairs instead of torports, every node in its own rotation, whose
ports are labelled only after torusd has started (so the daemon learns
them from the kernel's port events): discovery against the truth, pings
by plan address, and a TCP stream (GSO on the node device, segmented for
the veth ports) against the same stream with GSO off on the sending
node, measured in the same run.

    ethport_test.py [--dims 4x2] [--wrap 1,0] [--seconds 3] [--json FILE]

Prints PASS:/FAIL:/SKIP: lines for the aggregator.
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import REPO, TORUS_KO, case, coll_bench_slowest, results, \
    skip  # noqa: E402
import torus_lab as tl  # noqa: E402

IP_LIB_DIR = os.path.join(REPO, "build", "ip")
LOGS = os.path.join(REPO, "build", "vm", "ethport")


def torus(*args, ns=None, check=True):
    cmd = [tl.TORUS] + (["-n", ns] if ns else []) + list(args)
    return tl.run(cmd, check=check)


def ip(*args, ns=None, check=True):
    cmd = [tl.IP] + (["-n", ns] if ns else []) + list(args)
    res = subprocess.run(cmd, capture_output=True, text=True,
                         env=dict(os.environ, IP_LIB_DIR=IP_LIB_DIR))
    if check and res.returncode:
        raise AssertionError("%s: exit %d: %s" % (" ".join(cmd),
                                                  res.returncode,
                                                  res.stderr.strip()))
    return res


def port_json(ns, port):
    out = json.loads(torus("-j", "port", "show", "port", port, ns=ns).stdout)
    return out[0] if isinstance(out, list) else out


class VethRack(tl.Rack):
    """A tl.Rack whose cables are veth pairs enslaved to the nodes'
    tor0, without labels: label_ports() gives them theirs."""

    @classmethod
    def like(cls, rack):
        new = cls.__new__(cls)
        new.__dict__.update(rack.__dict__)
        return new

    def build(self, static=False):
        t0 = time.monotonic()
        self.destroy(quiet=True)
        lines = ["netns add %s" % self.ns(c) for c in self.nodes]
        lines += ["link add tor0 netns %s type torus" % self.ns(c)
                  for c in self.nodes]
        enslave = []
        for coord, axis in self.cables():
            peer = self.neighbor(coord, axis, False)
            a = tl.port_name(*self.label(coord, axis, False))
            b = tl.port_name(*self.label(peer, axis, True))
            lines.append("link add %s netns %s type veth peer name %s "
                         "netns %s" % (a, self.ns(coord), b, self.ns(peer)))
            enslave += ["-n %s link set %s master tor0" % (self.ns(coord), a),
                        "-n %s link set %s master tor0" % (self.ns(peer), b)]
        with open("/tmp/ethport-rack.ip", "w") as f:
            f.write("\n".join(lines) + "\n")
        tl.run([tl.IP, "-batch", "/tmp/ethport-rack.ip"])
        self.torus_batch(enslave)
        for coord in self.nodes:
            ups = ["lo", "tor0"] + [self.port(coord, a, n)
                                    for a, n in self.ports(coord)]
            tl.in_netns(self.ns(coord),
                        lambda nl, ups=ups: [nl.link_up(d) for d in ups])
        return time.monotonic() - t0

    def label_ports(self):
        lines = []
        for coord in self.nodes:
            for axis, neg in self.ports(coord):
                la = self.label(coord, axis, neg)
                lines.append("-n %s port set %s dir %s" %
                             (self.ns(coord), tl.port_name(*la),
                              tl.dir_name(*la)))
        self.torus_batch(lines)
        return len(lines)


# ---- the label itself ----

@case("ethport_label_set_and_refused")
def check_labels():
    """torus port set and ip's torus_slave plugin label a veth port (ip -d
    and torus port show agree); a torport's label, a second port with the
    same label, a bad label are refused with the kernel's reasons."""
    ns = "el0"
    tl.run([tl.IP, "netns", "del", ns], check=False)
    tl.run([tl.IP, "netns", "add", ns])
    try:
        ip("link", "add", "tor0", "type", "torus", ns=ns)
        ip("link", "add", "ea", "type", "veth", "peer", "name", "eb", ns=ns)
        ip("link", "add", "ec", "type", "veth", "peer", "name", "ed", ns=ns)
        torus("link", "add", "tpa", "dir", "+x", "master", "tor0",
              "peer", "tpb", "dir", "-x", ns=ns)
        for dev in ("ea", "ec"):
            ip("link", "set", dev, "master", "tor0", ns=ns)
        assert port_json(ns, "ea").get("dir") in (None, "none"), \
            "a new Ethernet port has a label: %s" % port_json(ns, "ea")

        torus("port", "set", "ea", "dir", "+y", ns=ns)
        assert port_json(ns, "ea").get("dir") == "+y", port_json(ns, "ea")
        ip("link", "set", "ea", "type", "torus_slave", "dir", "-z", ns=ns)
        link = json.loads(ip("-d", "-j", "link", "show", "ea",
                             ns=ns).stdout)[0]
        slave = link["linkinfo"]["info_slave_data"]
        assert slave.get("dir") == "-z", "ip -d shows %s" % slave
        assert port_json(ns, "ea").get("dir") == "-z", port_json(ns, "ea")

        res = torus("port", "set", "ec", "dir", "-z", ns=ns, check=False)
        assert res.returncode and "another port of the node has this label" \
            in res.stderr, "duplicate label: %r" % res.stderr
        res = torus("port", "set", "tpa", "dir", "+y", ns=ns, check=False)
        assert res.returncode and "fixed at its cable" in res.stderr, \
            "torport relabelled: %r" % res.stderr
        assert port_json(ns, "tpa").get("dir") == "+x"
        res = ip("link", "set", "tpa", "type", "torus_slave", "dir", "+y",
                 ns=ns, check=False)
        assert res.returncode and "fixed at its cable" in res.stderr, \
            "ip relabelled a torport: %r" % res.stderr
        res = ip("link", "set", "ec", "type", "torus_slave", "dir", "+q",
                 ns=ns, check=False)
        assert res.returncode and "direction label" in res.stderr, \
            "ip took +q: %r" % res.stderr

        ip("link", "set", "ea", "type", "torus_slave", "dir", "none", ns=ns)
        torus("port", "set", "ec", "dir", "-z", ns=ns)
        assert port_json(ns, "ea").get("dir") in (None, "none")
        assert port_json(ns, "ec").get("dir") == "-z"
    finally:
        tl.run([tl.IP, "netns", "del", ns], check=False)


# ---- a rack over veth ports ----

def iperf(lab, nodes, src, dst, seconds):
    """Bits/s of a TCP stream src -> dst (true coordinates; the plan
    address is of the discovered ones), the retransmits and the bytes."""
    srv_ns, cli_ns = lab.rack.ns(dst), lab.rack.ns(src)
    addr = tl.addr4(nodes[srv_ns]["coord"])
    with tl.netns(srv_ns):
        # not -1: a client's failed first try would end a one-off server
        srv = subprocess.Popen(["iperf3", "-s"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    def listening():
        return tl.run(["ip", "netns", "exec", srv_ns, "ss", "-Hltn",
                       "sport = :5201"], check=False).stdout.strip()
    try:
        t0 = time.monotonic()
        while not listening() and time.monotonic() - t0 < 30:
            time.sleep(0.2)
        for _ in range(20):
            with tl.netns(cli_ns):
                res = subprocess.run(
                    ["iperf3", "-c", addr, "-t", str(seconds), "-J",
                     "--connect-timeout", "3000"],
                    capture_output=True, text=True, timeout=seconds + 60)
            if res.returncode == 0:
                break
            time.sleep(0.2)     # the server is not listening yet
        else:
            raise AssertionError("iperf3 -c %s: %s; %s listens: %r, has %s" % (
                addr, res.stdout[-300:], srv_ns, listening(),
                tl.in_netns(srv_ns, lambda nl: nl.addr_list("tor0"))))
        js = json.loads(res.stdout)
        end = js.get("end") or {}
        if "sum_received" not in end:
            raise AssertionError("iperf3 -c %s: %s" % (
                addr, js.get("error") or res.stdout[-400:]))
        return (end["sum_received"]["bits_per_second"],
                end["sum_sent"].get("retransmits", 0),
                end["sum_received"]["bytes"])
    finally:
        srv.kill()
        srv.wait()


def node_drops(lab):
    """{(ns, reason): count} of the drops of every node's tor0."""
    lines = ["-n %s node show dev tor0" % lab.rack.ns(c)
             for c in lab.rack.nodes]
    out = lab.rack.torus_batch(lines, json_out=True, stats=True)
    return {(lab.rack.ns(c), why): n
            for c, o in zip(lab.rack.nodes, out) if o
            for why, n in ((o[0].get("stats") or {}).get("drop")
                           or {}).items() if n}


def features(ns, dev):
    res = tl.run(["ip", "netns", "exec", ns, "ethtool", "-k", dev],
                 check=False)
    return {k.strip(): v.split()[0] for k, v in
            (line.split(":", 1) for line in res.stdout.splitlines()[1:]
             if ":" in line)}


def rack_cases(args, out):
    torusd = tl.find_torusd()
    if not torusd:
        for name in ("ethport_veth_rack_discovers",
                     "ethport_veth_rack_pings", "ethport_veth_rack_tcp_gso",
                     "ethport_veth_rack_collectives"):
            skip(name, "torusd not built")
        return
    spec = tl.normalize_spec({"dims": args.dims, "wrap": args.wrap,
                              "miswire": "nodes", "prefix": "v",
                              "seed": 9, "timeout": 120})
    lab = tl.Lab(spec, run_dir="/run/torus-ethport", torusd=torusd,
                 log=lambda m: print("# " + m, flush=True))
    lab.rack = VethRack.like(lab.rack)
    state = {}

    @case("ethport_veth_rack_discovers")
    def discovers():
        """veth cables, each node in its own rotation, labelled after
        torusd started: one frame equal to the truth under one
        isometry, extents, wrap and port maps right."""
        lab.build()
        lab.start()
        time.sleep(1.0)
        n = lab.rack.label_ports()
        converged, secs, nodes = lab.wait()
        res, nodes = lab.verify(converged)
        state["nodes"], state["res"] = nodes, res
        out["discovery"] = {"converged": converged, "seconds": secs,
                            "labels": n, "ok": res["ok"]}
        assert res["ok"], "%s" % {k: res.get(k) for k in
                                  ("converged", "inconsistent", "dims",
                                   "wrap", "portmaps_bad", "exited")}
        return "%d ports labelled, converged after %.1f s" % (n, secs)

    @case("ethport_veth_rack_pings")
    def pings():
        """every node answers by its plan address over veth ports"""
        nodes = state.get("nodes")
        assert nodes, "no discovery"
        bad = lab.wait_addresses(nodes, timeout=20)
        assert not bad, "plan addresses: %s" % list(bad.items())[:2]
        pc = lab.ping_check(nodes, state["res"])
        out["ping"] = pc
        assert pc["must"] and not pc["failed"], \
            "%d/%d: failed %s" % (pc["ok"], pc["must"], pc["failed"][:4])
        return "%d/%d from %s" % (pc["ok"], pc["pinged"], pc["from"])

    @case("ethport_veth_rack_tcp_gso")
    def tcp_gso():
        """a TCP stream across the rack, from a node device that does
        GSO, over veth ports: the bytes arrive, nothing is dropped; the
        same stream with GSO off on the sender is the baseline"""
        assert state.get("nodes"), "no discovery"
        src = lab.rack.nodes[0]
        dst = max(lab.rack.nodes,
                  key=lambda c: len(tl.dor_path(lab.rack.dims,
                                                lab.rack.wrap, src, c)))
        sns = lab.rack.ns(src)
        feats = features(sns, "tor0")
        assert feats.get("tcp-segmentation-offload") == "on", \
            "tor0 does no TSO over veth ports: %s" % \
            {k: v for k, v in feats.items() if "segment" in k}
        before = node_drops(lab)
        gso_bps, gso_retr, gso_bytes = iperf(lab, state["nodes"], src, dst,
                                            args.seconds)
        after = node_drops(lab)
        # bad_addr: the nodes' own link-local and multicast traffic,
        # outside the plan; not the stream's
        dropped = {"%s %s" % k: n - before.get(k, 0)
                   for k, n in after.items()
                   if n != before.get(k, 0) and k[1] != "bad_addr"}
        tl.run(["ip", "netns", "exec", sns, "ethtool", "-K", "tor0",
                "tso", "off", "gso", "off"])
        try:
            base_bps, base_retr, _ = iperf(lab, state["nodes"], src, dst,
                                            args.seconds)
        finally:
            tl.run(["ip", "netns", "exec", sns, "ethtool", "-K", "tor0",
                    "tso", "on", "gso", "on"], check=False)
        out["tcp"] = {"from": sns, "to": lab.rack.ns(dst),
                      "hops": len(tl.dor_path(lab.rack.dims, lab.rack.wrap,
                                              src, dst)) - 1,
                      "gso_bps": gso_bps, "gso_retransmits": gso_retr,
                      "no_gso_bps": base_bps,
                      "no_gso_retransmits": base_retr,
                      "ratio": gso_bps / base_bps if base_bps else None,
                      "drops": dropped}
        assert gso_bytes > 0 and gso_bps > 0, "no bytes arrived"
        assert not dropped, "drops during the stream: %s" % dropped
        return "%s -> %s: GSO %.1f Mbit/s (%d retr), no GSO %.1f Mbit/s " \
            "(%d retr), ratio %.2f" % (sns, lab.rack.ns(dst), gso_bps / 1e6,
                                       gso_retr, base_bps / 1e6, base_retr,
                                       out["tcp"]["ratio"] or 0)

    @case("ethport_veth_rack_collectives")
    def collectives():
        """collectives over veth ports: a 64 KiB allreduce and a 1 MiB
        broadcast (libtorus, every element checked) on every node; over a
        port that is no torport the module cuts its frames to the port's
        MTU, and the broadcast, one operation of some 700 frames per cable,
        is paced by the children's credits"""
        assert state.get("nodes"), "no discovery"
        res = {}
        for op, size in (("allreduce", 65536), ("bcast", 1 << 20)):
            res[op] = coll_bench_slowest(
                lab.rack, lab.rack.nodes,
                ["-t", "30000", "-n", "2", "-w", "1", op, str(size)], 300)
        big = [k for k, n in node_drops(lab).items() if k[1] == "too_big"]
        assert not big, "frames too big for a veth port: %s" % big
        return ("%d nodes: 64 KiB allreduce %.0f us, 1 MiB broadcast "
                "%.0f us" % (len(lab.rack.nodes), res["allreduce"],
                             res["bcast"]))

    @case("ethport_relabel_keeps_the_cables")
    def relabel():
        """swapping the labels of a node's two x ports while torusd runs
        (a node turned over): torusd is told, the node's orientation
        changes, each port still serves the direction of its cable, and
        every node answers again"""
        assert state.get("nodes"), "no discovery"
        c = lab.rack.nodes[0]
        ns = lab.rack.ns(c)
        pa, pb = lab.rack.port(c, 0, False), lab.rack.port(c, 0, True)
        la, lb = lab.rack.label(c, 0, False), lab.rack.label(c, 0, True)

        def ports():
            return {p["ifname"]: (p.get("dir"), p.get("global_dir"))
                    for p in json.loads(torus("-j", "port", "show", "dev",
                                              "tor0", ns=ns).stdout)}
        before = ports()
        for port, label in ((pa, "none"), (pb, tl.dir_name(*la)),
                            (pa, tl.dir_name(*lb))):
            torus("port", "set", port, "dir", label, ns=ns)
        # a placed node keeps its orientation until told to discover
        # again: the labels it was placed with have moved
        torus("node", "rediscover", "dev", "tor0", ns=ns)
        want = {pa: (tl.dir_name(*lb), before[pa][1]),
                pb: (tl.dir_name(*la), before[pb][1])}
        t0 = time.monotonic()
        while time.monotonic() - t0 < 60:
            now = ports()
            if all(now.get(p) == w for p, w in want.items()):
                break
            time.sleep(0.5)
        assert all(now.get(p) == w for p, w in want.items()), \
            "ports of %s: %s, want %s" % (ns, now, want)
        converged, secs, nodes = lab.wait(settle=2)
        assert converged, "not converged after the swap"
        addrs = [tl.addr4(o["coord"]) for o in nodes.values()
                 if (o or {}).get("state") == "placed"]
        assert len(addrs) == len(lab.rack.nodes), "not all placed"
        for src in (ns, lab.rack.ns(lab.rack.nodes[-1])):
            oks = {}
            for _ in range(10):
                oks = tl.ping_many(src, addrs)
                if all(oks.values()):
                    break
                time.sleep(1)
            bad = [a for a, ok in oks.items() if not ok]
            assert not bad, "from %s: no answer from %s" % (src, bad)
        return "%s: %s %s <-> %s %s, map kept in %.1f s" % (
            ns, pa, tl.dir_name(*la), pb, tl.dir_name(*lb),
            time.monotonic() - t0)

    try:
        discovers()
        pings()
        tcp_gso()
        collectives()
        relabel()
    finally:
        lab_stop(lab)


def lab_stop(lab):
    for p in lab.procs.values():
        if p.poll() is None:
            p.terminate()
    for p in lab.procs.values():
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
    lab.rack.destroy(quiet=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dims", default="4x2")
    ap.add_argument("--wrap", default="1,0")
    ap.add_argument("--seconds", type=int, default=3,
                    help="length of each TCP stream")
    ap.add_argument("--json", help="write the measurements here")
    args = ap.parse_args()
    if subprocess.run("lsmod | grep -q '^torus '", shell=True).returncode:
        tl.run(["insmod", TORUS_KO])
    out = {}
    check_labels()
    rack_cases(args, out)
    path = args.json or os.path.join(LOGS, "ethport.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
    return 1 if results["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
