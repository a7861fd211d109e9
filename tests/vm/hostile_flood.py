#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hostile frames at line rate (runs inside the test VM).

`hostileblast` (tests/bench/hostileblast.c: a packet socket with
PACKET_QDISC_BYPASS and sendmmsg() batches) sends, from a neighbor's
port into node (1,0) of a 3x3 torus, for --duration seconds, frames
drawn from a seeded PRNG: wrong versions, unknown types and flags, hop
limit 0, truncated headers, inner IP lengths that lie, VLAN tags, frames
for another host's MAC, addresses outside the fabric, random bytes, and
a share of valid frames the node forwards or delivers.

Line rate on this machine is what the same sender reaches into a plain
veth pair, measured first in the same VM (--baseline-secs).  Then:

* every frame that crossed the cable is accounted for by the victim
  node: drops (by reason) + forwarded + delivered = frames its port
  received (the torport's rx counter), less what the kernel's backlog
  dropped before the port's handler ran (/proc/net/softnet_stat); and
  every hostile kind raised its own drop reason at least once per frame;
* the rack still passes traffic: every node pings every other;
* the kernel log has no WARNING/BUG/Oops/soft lockup;
* with the rack gone the module's refcount is back, it unloads and
  loads again, and the unreclaimable slab did not grow beyond noise.

    hostile_flood.py [--duration SECS] [--baseline-secs SECS] [--seed N]
                     [--batch N] [--json PATH]

make check runs it for 5 s (tests/vm/check.sh), make reliability for
60 s.  Prints PASS:/FAIL: lines for the aggregator and a "# hostile_flood
figures:" line (also written to --json).
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import REPO, TORUS_KO, case, results  # noqa: E402
import rellib  # noqa: E402
import torus_lab as tl  # noqa: E402

BLAST = os.path.join(REPO, "build", "bin", "hostileblast")
DIMS = [3, 3]
ATTACKER, VICTIM = (0, 0), (1, 0)
# the attacker's +x port is cabled to the victim's -x port
ATTACK_PORT, VICTIM_PORT = tl.port_name(0, False), tl.port_name(0, True)
VETH_NS = ("hv-a", "hv-b")
# frames the rack itself may put on the victim's port meanwhile
CHATTER = 200
# unreclaimable slab growth over the whole scenario that counts as a leak
SLAB_LIMIT_KB = 2048

# hostile kind -> the victim's drop reason it must raise
KIND_REASON = {
    "version": "version", "ctrl_version": "version", "type": "malformed",
    "flags": "malformed", "truncated": "malformed", "proto": "proto",
    "bad_dst": "bad_addr", "bad_via": "bad_addr",
    "hop_limit_0": "hop_limit", "vlan": "vlan", "other_host": "other_host",
}


def blast(ns, ifname, seconds, args, extra=()):
    """Run hostileblast in namespace ns; its JSON result."""
    cmd = ["ip", "netns", "exec", ns, BLAST, "-i", ifname,
           "-t", str(seconds), "-s", str(args.seed), "-b", str(args.batch),
           "-d", ",".join(map(str, DIMS)),
           "-S", ",".join(map(str, ATTACKER)),
           "-D", ",".join(map(str, VICTIM))] + list(extra)
    res = subprocess.run(cmd, capture_output=True, text=True,
                         timeout=seconds + 300)
    assert res.returncode == 0, "hostileblast: exit %d: %s" % (
        res.returncode, res.stderr.strip())
    return json.loads(res.stdout)


def link_stats(ns, ifname):
    """The device's rx/tx counters (ip -s link)."""
    res = subprocess.run(["ip", "-n", ns, "-j", "-s", "link", "show",
                          ifname], capture_output=True, text=True,
                         check=True)
    return json.loads(res.stdout)[0]["stats64"]


def softnet_dropped():
    """Frames every CPU's backlog dropped (netif_rx() over
    netdev_max_backlog): /proc/net/softnet_stat's second column."""
    with open("/proc/net/softnet_stat") as f:
        return sum(int(line.split()[1], 16) for line in f)


def counters(rack):
    node = rack.node_json(VICTIM)["stats"]
    port = rack.ports_json(VICTIM)[VICTIM_PORT]
    return {
        "node_drops": node["drops"], "node_drop": dict(node["drop"]),
        "node_fwd": node["fwd_packets"], "node_rx": node["rx_packets"],
        "port_rx": port["rx_packets"], "port_drops": port["drops"],
        "cable_rx": link_stats(rack.ns(VICTIM), VICTIM_PORT)["rx"][
            "packets"],
        "cable_tx_dropped": link_stats(rack.ns(ATTACKER), ATTACK_PORT)[
            "tx"]["dropped"],
        "backlog_dropped": softnet_dropped(),
    }


def delta(before, after):
    out = {k: after[k] - before[k] for k in before if k != "node_drop"}
    out["node_drop"] = {k: after["node_drop"][k] - before["node_drop"][k]
                        for k in after["node_drop"]}
    return out


@case("hostile_flood_veth_baseline")
def veth_baseline(args, fig):
    """The same sender into a plain veth pair: line rate here."""
    a, b = VETH_NS
    for ns in VETH_NS:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(["ip", "-n", a, "link", "add", "va", "type", "veth",
                        "peer", "vb", "netns", b], check=True)
        subprocess.run(["ip", "-n", a, "link", "set", "va", "up"],
                       check=True)
        subprocess.run(["ip", "-n", b, "link", "set", "vb", "up"],
                       check=True)
        res = blast(a, "va", args.baseline_secs, args)
        rx = link_stats(b, "vb")["rx"]["packets"]
    finally:
        for ns in VETH_NS:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    fig["veth"] = {"sent": res["sent"], "fps": res["fps"],
                   "seconds": res["seconds"], "rx": rx}
    assert res["sent"] > 0, "nothing sent into the veth pair"
    return "%d frames in %.1f s: %.0f frames/s, %d received" % (
        res["sent"], res["seconds"], res["fps"], rx)


@case("hostile_flood")
def flood(rack, args, fig):
    """Every frame that crossed the cable is accounted for."""
    before = counters(rack)
    res = blast(rack.ns(ATTACKER), ATTACK_PORT, args.duration, args)
    time.sleep(1)   # let the backlog drain into the counters
    d = delta(before, counters(rack))
    sent = res["sent"]
    base = fig.get("veth", {}).get("fps")
    fig["torus"] = {"sent": sent, "fps": res["fps"],
                    "seconds": res["seconds"], "kinds": res["kinds"],
                    "failed_calls": res["failed_calls"],
                    "fps_vs_veth": res["fps"] / base if base else None,
                    "victim": d}
    assert sent > 0, "nothing sent"
    # the cable: what left the attacker's port arrived or was counted
    crossed = d["cable_rx"] + d["cable_tx_dropped"]
    assert sent <= crossed <= sent + CHATTER, \
        "sent %d, the cable carried %d and dropped %d" % (
            sent, d["cable_rx"], d["cable_tx_dropped"])
    # the node: drops + forwarded + delivered = what reached the handler
    accounted = d["node_drops"] + d["node_fwd"] + d["node_rx"]
    reached = d["cable_rx"] - d["backlog_dropped"]
    assert abs(accounted - reached) <= CHATTER, \
        "port received %d (%d lost in the backlog), node accounted %d " \
        "(drops %d, forwarded %d, delivered %d)" % (
            d["cable_rx"], d["backlog_dropped"], accounted,
            d["node_drops"], d["node_fwd"], d["node_rx"])
    # each hostile kind raised its own reason, once per frame at least
    want = {}
    for kind, reason in KIND_REASON.items():
        want[reason] = want.get(reason, 0) + res["kinds"][kind]
    short = {r: (d["node_drop"][r], n) for r, n in want.items()
             if d["node_drop"][r] < n - d["backlog_dropped"]}
    assert not short, "reasons counted fewer than sent (counted, sent): " \
        "%s" % short
    return ("%d frames in %.1f s: %.0f frames/s (veth %s: %s); port rx %d, "
            "backlog drops %d; accounted %d: drops %d, forwarded %d, "
            "delivered %d; %s" % (
                sent, res["seconds"], res["fps"],
                "%.0f" % base if base else "?",
                "%.2fx" % (res["fps"] / base) if base else "?",
                d["cable_rx"], d["backlog_dropped"], accounted,
                d["node_drops"], d["node_fwd"], d["node_rx"],
                ", ".join("%s +%d" % kv for kv in
                          sorted(d["node_drop"].items()) if kv[1])))


@case("hostile_flood_rack_pings")
def rack_pings(rack, fig):
    """After the flood every node still pings every other."""
    failed = []
    for src in rack.nodes:
        targets = [tl.addr4(d) for d in rack.nodes if d != src]
        got = tl.ping_many(rack.ns(src), targets)
        failed += ["%s->%s" % (tl.fmt(src), t) for t, ok in got.items()
                   if not ok]
    n = len(rack.nodes)
    fig["pings"] = {"pairs": n * (n - 1), "failed": len(failed)}
    assert not failed, "%d pairs fail: %s" % (len(failed), failed[:5])
    return "%d/%d pairs" % (n * (n - 1), n * (n - 1))


@case("hostile_flood_module_unload")
def module_unload(mem0, netns0, fig):
    """Every namespace freed, no reference left: the module unloads and
    loads again; no slab growth beyond noise."""
    fig["netns_not_freed"] = rellib.wait_netns_freed(netns0)
    mem1 = rellib.snapshot()
    fig["memory"] = rellib.memory_delta(mem0, mem1)
    refs = rellib.module_refcnt()
    assert refs == mem0["torus_refcnt"], "torus refcount %s, was %s" % (
        refs, mem0["torus_refcnt"])
    assert not fig["netns_not_freed"], "%d namespaces not freed" % fig[
        "netns_not_freed"]
    subprocess.run(["rmmod", "torus"], check=True, capture_output=True)
    gone = rellib.module_refcnt() is None
    subprocess.run(["insmod", TORUS_KO], check=True, capture_output=True)
    assert gone, "torus still loaded after rmmod"
    grew = fig["memory"]["sunreclaim_kb_delta"]
    assert grew <= SLAB_LIMIT_KB, "unreclaimable slab +%d kB (limit %d)" % (
        grew, SLAB_LIMIT_KB)
    return "refcount %s -> %s, rmmod and insmod ok, unreclaimable slab " \
        "%+d kB" % (mem0["torus_refcnt"], refs, grew)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--duration", type=float, default=5.0,
                    help="seconds of flooding the node (make reliability: "
                    "60)")
    ap.add_argument("--baseline-secs", type=float, default=None,
                    help="seconds into the veth pair (default: the "
                    "duration, at most 10; 0: no baseline, as make "
                    "check runs it: the flood's checks need none)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=64,
                    help="frames per sendmmsg()")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    if args.baseline_secs is None:
        args.baseline_secs = min(args.duration, 10.0)
    fig = {"duration": args.duration, "seed": args.seed,
           "batch": args.batch}

    rellib.netns_kick()     # a namespace deleted earlier may still lag
    netns0 = rellib.cache_objects("net_namespace")
    mem0 = rellib.snapshot()
    mark = rellib.dmesg_mark("hostile_flood")
    if args.baseline_secs > 0:
        veth_baseline(args, fig)
    rack = tl.Rack(DIMS, [True] * len(DIMS), prefix="h")
    rack.build(static=True)
    try:
        flood(rack, args, fig)
        rack_pings(rack, fig)
    finally:
        rack.destroy()
    module_unload(mem0, netns0, fig)
    return rellib.finish("hostile_flood", mark, fig, args.json)


if __name__ == "__main__":
    sys.exit(main())
