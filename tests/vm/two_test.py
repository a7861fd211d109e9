#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Two machines, one fabric: one side of the scenario tests/vm/two/run
boots twice (runs inside each test VM).

The rack (default 4x2, a ring along x, each node cabled in its own
rotation) is split along x: machine a holds the lower half of x, machine
b the upper.  Cables inside a machine are torport pairs; each cable
between the machines is a virtio-net NIC in each guest (found by its
MAC, 52:54:00:74:0S:K), moved into its node's namespace, renamed to its
connector, enslaved and labelled with `torus port set`.  torusd runs on
every node of both machines.  Each side publishes its nodes' view in the
meeting directory and checks the union against the truth: one frame,
coordinates consistent across both machines (one isometry), extents,
wrap and port maps; then pings every node of both machines by plan
address, machine a runs a TCP stream to a node of machine b, and all
nodes of both machines run collectives together (torus.ko through
libtorus, every result checked).

    two_test.py --side {a|b} --meet DIR [--nics 4] [--dims 4x2]
        [--wrap 1,0] [--timeout 240]

Prints PASS:/FAIL:/SKIP: vm/<name>_<side>_<case> (name: --name, "two").
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import case, coll_bench_slowest, results  # noqa: E402
import torus_lab as tl  # noqa: E402

RUN_DIR = "/run/torus-two"


class Side:
    def __init__(self, args):
        self.args = args
        self.me = args.side
        self.other = "b" if self.me == "a" else "a"
        self.spec = tl.normalize_spec({"dims": args.dims, "wrap": args.wrap,
                                       "miswire": "nodes", "prefix": "t",
                                       "seed": 5})
        self.truth = tl.plan(self.spec)
        self.rack = tl.rack_from_truth(self.truth)
        half = self.rack.dims[0] // 2
        self.mine = [c for c in self.rack.nodes
                     if (c[0] < half) == (self.me == "a")]
        self.lab = tl.Lab(self.spec, truth=self.truth, run_dir=RUN_DIR,
                          log=lambda m: print("# " + m, flush=True))
        self.lab.live = list(self.mine)

    # -- meeting the other machine --

    def path(self, name):
        return os.path.join(self.args.meet, name)

    def publish(self, name, value):
        tmp = self.path(name + ".tmp." + self.me)
        with open(tmp, "w") as f:
            json.dump(value, f)
        os.replace(tmp, self.path(name))

    def read(self, name):
        try:
            with open(self.path(name)) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def wait_for(self, name, timeout):
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            v = self.read(name)
            if v is not None:
                return v
            time.sleep(0.5)
        return None

    # -- building this machine's half --

    def nic(self, k):
        mac = "52:54:00:74:0%s:%02x" % (self.me, k)
        for dev in os.listdir("/sys/class/net"):
            with open("/sys/class/net/%s/address" % dev) as f:
                if f.read().strip() == mac:
                    return dev
        raise AssertionError("no NIC with MAC %s (cable %d)" % (mac, k))

    def build(self):
        r = self.rack
        mine = set(self.mine)
        lines = ["netns add %s" % r.ns(c) for c in self.mine]
        lines += ["link add tor0 netns %s type torus" % r.ns(c)
                  for c in self.mine]
        with open("/tmp/two.ip", "w") as f:
            f.write("\n".join(lines) + "\n")
        tl.run([tl.IP, "-batch", "/tmp/two.ip"])
        cables, cross = [], []
        for coord, axis in r.cables():
            peer = r.neighbor(coord, axis, False)
            la, lb = r.label(coord, axis, False), r.label(peer, axis, True)
            if coord in mine and peer in mine:
                cables.append(
                    "link add %s dir %s netns %s master tor0 peer %s dir %s "
                    "netns %s master tor0" %
                    (tl.port_name(*la), tl.dir_name(*la), r.ns(coord),
                     tl.port_name(*lb), tl.dir_name(*lb), r.ns(peer)))
            elif coord in mine or peer in mine:
                end = (coord, la) if coord in mine else (peer, lb)
                cross.append(end)
            # both elsewhere: the other machine's
        assert len(cross) == self.args.nics, \
            "%d cables between the machines, %d NICs" % (len(cross),
                                                         self.args.nics)
        if cables:
            r.torus_batch(cables)
        labels = []
        for k, (coord, label) in enumerate(cross):
            ns, name = r.ns(coord), tl.port_name(*label)
            dev = self.nic(k)
            tl.run([tl.IP, "link", "set", dev, "netns", ns])
            tl.run([tl.IP, "-n", ns, "link", "set", dev, "name", name])
            labels += ["-n %s link set %s master tor0" % (ns, name),
                       "-n %s port set %s dir %s" % (ns, name,
                                                     tl.dir_name(*label))]
        r.torus_batch(labels)
        for coord in self.mine:
            ups = ["lo", "tor0"] + [r.port(coord, a, n)
                                    for a, n in r.ports(coord)]
            tl.in_netns(r.ns(coord),
                        lambda nl, ups=ups: [nl.link_up(d) for d in ups])
        return len(cables), len(cross)

    def observe(self):
        r = self.rack
        nss = [r.ns(c) for c in self.mine]
        out = r.torus_batch(["-n %s node show dev tor0" % ns for ns in nss] +
                            ["-n %s port show" % ns for ns in nss],
                            json_out=True, force=True)
        nodes = {ns: (v[0] if v else None) for ns, v in zip(nss, out)}
        ports = {ns: v or [] for ns, v in zip(nss, out[len(nss):])}
        return nodes, ports

    def stop(self):
        for p in self.lab.procs.values():
            if p.poll() is None:
                p.terminate()
        for p in self.lab.procs.values():
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


def features(ns, dev):
    res = tl.run(["ip", "netns", "exec", ns, "ethtool", "-k", dev],
                 check=False)
    out = {}
    for line in res.stdout.splitlines()[1:]:
        key, _, value = line.partition(":")
        if value.split():
            out[key.strip()] = value.split()[0]
    return out


def iperf(ns, addr, seconds):
    for _ in range(20):     # a starved server may not listen yet
        with tl.netns(ns):
            res = subprocess.run(["iperf3", "-c", addr, "-t", str(seconds),
                                  "-J", "--connect-timeout", "5000"],
                                 capture_output=True, text=True,
                                 timeout=seconds + 120)
        if res.returncode == 0:
            break
        time.sleep(0.5)
    js = json.loads(res.stdout or "{}")
    end = js.get("end") or {}
    assert "sum_received" in end, "iperf3: %s" % (
        js.get("error") or res.stdout[-300:])
    return {"bps": end["sum_received"]["bits_per_second"],
            "retransmits": end["sum_sent"].get("retransmits", 0)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--side", choices=("a", "b"), required=True)
    ap.add_argument("--meet", required=True)
    ap.add_argument("--nics", type=int, default=4)
    ap.add_argument("--dims", default="4x2")
    ap.add_argument("--wrap", default="1,0")
    ap.add_argument("--timeout", type=float, default=240)
    ap.add_argument("--seconds", type=int, default=3)
    ap.add_argument("--name", default="two",
                    help="case names are vm/NAME_SIDE_...")
    ap.add_argument("--expect-tso", choices=("on", "off"),
                    help="what the sending node device's TSO must be: the "
                    "NICs decide (a node device offers what all its "
                    "ports can do)")
    args = ap.parse_args()
    s = Side(args)
    pre = "%s_%s_" % (args.name, s.me)
    st = {}

    @case(pre + "builds_its_half")
    def build():
        """4 namespaces, torport cables inside, the NICs as the ports to
        the other machine, labelled"""
        inside, cross = s.build()
        return "%d nodes, %d torport cables, %d Ethernet ports" % (
            len(s.mine), inside, cross)

    @case(pre + "discovers_one_frame")
    def discover():
        """both machines' nodes placed in one frame that is the truth
        under one isometry (coordinates, extents, wrap, port maps)"""
        s.publish("ready." + s.me, True)
        assert s.wait_for("ready." + s.other, args.timeout), \
            "machine %s never got ready" % s.other
        os.makedirs(RUN_DIR, exist_ok=True)
        s.lab.start()
        t0 = time.monotonic()
        last = None
        while time.monotonic() - t0 < args.timeout:
            nodes, ports = s.observe()
            s.publish("view." + s.me, {"nodes": nodes, "ports": ports})
            other = s.read("view." + s.other) or {}
            all_nodes = dict(nodes, **(other.get("nodes") or {}))
            all_ports = dict(ports, **(other.get("ports") or {}))
            if len(all_nodes) == len(s.rack.nodes) and all(
                    (o or {}).get("state") == "placed"
                    for o in all_nodes.values()):
                res = tl.verify(s.truth, all_nodes, all_ports, True)
                last = res
                if res["ok"]:
                    st["nodes"] = all_nodes
                    return "%d nodes on 2 machines, consistent after " \
                        "%.1f s, isometry %s" % (
                            len(all_nodes), time.monotonic() - t0,
                            res.get("isometry"))
            time.sleep(1.0)
        raise AssertionError("no consistent frame in %.0f s: %s" % (
            args.timeout, {k: (last or {}).get(k) for k in
                           ("inconsistent", "dims", "wrap",
                            "portmaps_bad")} if last else
            "not every node placed"))

    @case(pre + "pings_across")
    def pings():
        """every node of both machines answers by its plan address"""
        nodes = st.get("nodes")
        assert nodes, "no frame"
        src = s.rack.ns(s.mine[0])
        # torusd adds the plan addresses once placed: give it time
        addrs = {ns: tl.addr4(o["coord"]) for ns, o in nodes.items()}
        oks = {}
        for _ in range(10):
            oks = tl.ping_many(src, list(addrs.values()))
            if all(oks.values()):
                break
            time.sleep(1)
        failed = [ns for ns, a in addrs.items() if not oks.get(a)]
        assert not failed, "from %s: no answer from %s" % (src, failed)
        return "%d/%d from %s" % (len(addrs), len(addrs), src)

    @case(pre + "tcp_across")
    def tcp():
        """a TCP stream from machine a to machine b over the NICs, with
        the sending node device's GSO as the NICs leave it, then with GSO
        off (the baseline, measured in the same run)"""
        nodes = st.get("nodes")
        assert nodes, "no frame"
        if s.me == "b":
            dst = s.rack.ns(s.mine[-1])
            addr = tl.addr4(nodes[dst]["coord"])
            with tl.netns(dst):
                srv = subprocess.Popen(["iperf3", "-s", "-B", addr],
                                       stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
            time.sleep(1)
            s.publish("serving.b", addr)
            done = s.wait_for("tcp.a", args.timeout)
            srv.kill()
            srv.wait()
            assert done, "machine a never finished its streams"
            return "served %s" % addr
        addr = s.wait_for("serving.b", args.timeout)
        assert addr, "machine b never served"
        src = s.rack.ns(s.mine[0])
        out = {}
        try:
            feats = features(src, "tor0")
            out["tor0"] = {k: feats.get(k) for k in (
                "tcp-segmentation-offload", "generic-segmentation-offload",
                "tx-checksumming")}
            out["gso"] = iperf(src, addr, args.seconds)
            tl.run(["ip", "netns", "exec", src, "ethtool", "-K", "tor0",
                    "tso", "off", "gso", "off"])
            out["no_gso"] = iperf(src, addr, args.seconds)
        finally:
            s.publish("tcp.a", out)
        g, b = out["gso"], out["no_gso"]
        assert g["bps"] > 0 and b["bps"] > 0
        tso = out["tor0"]["tcp-segmentation-offload"]
        assert not args.expect_tso or tso == args.expect_tso, \
            "tor0 of %s has TSO %s, expected %s" % (src, tso,
                                                   args.expect_tso)
        return "%s -> %s: as set %.1f Mbit/s (%d retr; tor0 tso %s gso " \
            "%s), GSO off %.1f Mbit/s (%d retr), ratio %.2f" % (
                src, addr, g["bps"] / 1e6, g["retransmits"],
                out["tor0"]["tcp-segmentation-offload"],
                out["tor0"]["generic-segmentation-offload"],
                b["bps"] / 1e6, b["retransmits"], g["bps"] / b["bps"])

    @case(pre + "collectives_across")
    def coll():
        """the 8 nodes of both machines at once: barriers, 8-byte
        allreduces and 1 MiB broadcasts (one operation each, its frames
        paced by the children's credits; a NIC that takes no frag list
        gets them made whole by the stack), every result checked"""
        assert st.get("nodes"), "no frame"
        s.publish("coll." + s.me, True)
        assert s.wait_for("coll." + s.other, args.timeout), \
            "machine %s never came to the collectives" % s.other
        res = {}
        for op, size, iters in (("barrier", 0, 20), ("allreduce", 8, 20),
                                ("bcast", 1 << 20, 2)):
            res[op] = coll_bench_slowest(
                s.rack, s.mine, ["-t", "60000", "-n", str(iters), "-w", "1",
                                 op, str(size)], 600,
                size=len(s.rack.nodes))
        return "%d nodes on 2 machines, this side's slowest: barrier " \
            "%.0f us, 8 B allreduce %.0f us, 1 MiB broadcast %.0f us" % (
                len(s.rack.nodes), res["barrier"], res["allreduce"],
                res["bcast"])

    try:
        if build():
            if discover():
                pings()
                tcp()
                coll()
    finally:
        # the other machine may still be pinging through this one
        s.publish("finished." + s.me, True)
        s.wait_for("finished." + s.other, args.timeout)
        s.stop()
    return 1 if results["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
