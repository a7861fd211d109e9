#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Churn (runs inside the test VM): create and delete what the module
owns, many times, and check that nothing is left behind.

* netns: namespaces with a node device and torport cables to a hub
  namespace and to each other, all enslaved and up, then deleted; the
  hub's ends must go with them and every namespace must be freed.
* module: insmod, a two-node fabric in two namespaces (node devices,
  cables, coordinates, a ping across), rmmod with all of it present:
  rmmod must succeed and leave no torus device behind.
* daemons: a 4x4x4 rack (every node in its own rotation) where random
  torusd are killed with SIGKILL and restarted while the fabric
  converges: it still converges to the truth, and no node placed ever
  takes other coordinates.

Memory (slab, vmalloc, MemAvailable) is compared before and after each
part; the kernel log must stay clean.

    churn_test.py [--netns N] [--modules N] [--kills N] [--json FILE]
"""

import argparse
import ctypes
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import REPO, TORUS_KO, case, results, skip  # noqa: E402
import rellib  # noqa: E402
import torus_lab as tl  # noqa: E402

RUNS = "/run/torus-rel"
KO = TORUS_KO
HUB = "chub"
BATCH = 10              # namespaces created and deleted per round
# unreclaimable slab growth that counts as a leak: at least 1 MiB of
# noise, else 512 bytes a cycle (a leaked net_device, torus node or
# struct net is several kB)
LEAK_FLOOR_KB, LEAK_PER_CYCLE = 1024, 512

SYS_finit_module, SYS_delete_module = 313, 176      # x86_64
O_NONBLOCK = 0o4000
_libc = ctypes.CDLL(None, use_errno=True)


def leak_limit_kb(cycles):
    return max(LEAK_FLOOR_KB, cycles * LEAK_PER_CYCLE // 1024)


def insmod():
    """finit_module(2): no insmod process per cycle."""
    fd = os.open(KO, os.O_RDONLY)
    try:
        if _libc.syscall(SYS_finit_module, fd, b"", 0) != 0:
            err = ctypes.get_errno()
            raise OSError(err, "insmod torus: %s" % os.strerror(err))
    finally:
        os.close(fd)


def rmmod():
    if _libc.syscall(SYS_delete_module, b"torus", O_NONBLOCK) != 0:
        err = ctypes.get_errno()
        raise OSError(err, "rmmod torus: %s" % os.strerror(err))


def ifnames(ns):
    with tl.netns(ns):
        return sorted(n for _, n in socket.if_nameindex())


def wait_ifnames(ns, want, timeout=30):
    """Deleting a namespace deletes its cables' far ends from a work
    item: wait until ns has exactly the interfaces `want`."""
    deadline = time.monotonic() + timeout
    while True:
        got = ifnames(ns)
        if got == sorted(want) or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def ip_batch(lines, force=False):
    path = os.path.join("/tmp", "churn-%d.ip" % os.getpid())
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    try:
        tl.run([tl.IP] + (["-force"] if force else []) + ["-batch", path])
    finally:
        os.unlink(path)


def torus_batch(lines):
    tl.Rack([1]).torus_batch(lines)


def link_up_all(ns, names):
    def up(nl):
        for n in names:
            nl.link_up(n)
    tl.in_netns(ns, up)


# ---- netns churn ----

def netns_churn(cycles, fig):
    """Rounds of BATCH namespaces; each gets tor0, a cable to the hub
    and one to the next namespace of its round (both ends enslaved),
    everything up; then the round's namespaces are deleted."""
    ip_batch(["netns add %s" % HUB, "link add tor0 netns %s type torus" %
              HUB])
    link_up_all(HUB, ["lo", "tor0"])
    done, times, leftovers = 0, [], []

    def one_round(n):
        names = ["c%d" % i for i in range(n)]
        t = time.monotonic()
        ip_batch(["netns add %s" % c for c in names] +
                 ["link add tor0 netns %s type torus" % c for c in names])
        lines = []
        for i, c in enumerate(names):
            lines.append("link add px dir +x netns %s master tor0 peer h%d "
                         "dir -x netns %s master tor0" % (c, i, HUB))
            if n > 1:
                lines.append("link add py dir +y netns %s master tor0 peer "
                             "my dir -y netns %s master tor0" %
                             (c, names[(i + 1) % n]))
        torus_batch(lines)
        for c in names:
            link_up_all(c, ["lo", "tor0", "px"] +
                        (["py", "my"] if n > 1 else []))
        link_up_all(HUB, ["h%d" % i for i in range(n)])
        ip_batch(["netns del %s" % c for c in names])
        left = wait_ifnames(HUB, ["lo", "tor0"])
        times.append(time.monotonic() - t)
        return left

    try:
        one_round(2)            # warm-up: caches, first-use allocations
        rellib.netns_kick()
        base_ns = rellib.cache_objects("net_namespace")
        before = rellib.snapshot()
        t0 = time.monotonic()
        while done < cycles:
            n = min(BATCH, cycles - done)
            left = one_round(n)
            done += n
            if left != ["lo", "tor0"]:
                leftovers.append(left)
        secs = time.monotonic() - t0
        unfreed = rellib.wait_netns_freed(base_ns)
        after = rellib.snapshot()
    finally:
        ip_batch(["netns del %s" % HUB], force=True)
    d = rellib.memory_delta(before, after)
    fig["netns"] = {"cycles": done, "seconds": round(secs, 1),
                    "ms_per_cycle": round(1000 * secs / max(done, 1), 1),
                    "round_s_max": round(max(times), 2),
                    "hub_leftovers": len(leftovers),
                    "netns_not_freed": unfreed, "memory": d}
    return d, leftovers, unfreed


# ---- module churn ----

def two_node_fabric():
    """m0 and m1, a 2x1x1 mesh over three cables (one mapped), pinged."""
    for ns in ("m0", "m1"):
        def add(nl, ns=ns):
            body = struct.pack("BBHiII", socket.AF_UNSPEC, 0, 0, 0, 0, 0)
            body += tl._nla(3, b"tor0\0")               # IFLA_IFNAME
            body += tl._nla(18 | 0x8000,                # IFLA_LINKINFO
                            tl._nla(1, b"torus\0"))     # IFLA_INFO_KIND
            nl.request(tl.RTM_NEWLINK, body, tl.NLM_F_CREATE | 0x200)
        tl.in_netns(ns, add)
    torus_batch([
        "link add px dir +x netns m0 master tor0 peer mx dir -x netns m1 "
        "master tor0",
        "link add py dir +y netns m0 master tor0 peer my dir -y netns m1 "
        "master tor0",
        "link add pz dir +z netns m0 master tor0 peer mz dir -z netns m1",
        "-n m0 node set dev tor0 id 1 coord 0,0,0 dims 2,1,1 wrap 0,0,0",
        "-n m1 node set dev tor0 id 2 coord 1,0,0 dims 2,1,1 wrap 0,0,0",
        "-n m0 port map set dev tor0 +x px",
        "-n m1 port map set dev tor0 -x mx"])
    for ns, ports, a in (("m0", ["px", "py", "pz"], "10.0.0.0"),
                         ("m1", ["mx", "my", "mz"], "10.1.0.0")):
        def setup(nl, ports=ports, a=a):
            for n in ["lo", "tor0"] + ports:
                nl.link_up(n)
            nl.addr_add("tor0", a, 8)
        tl.in_netns(ns, setup)
    return tl.ping_many("m0", ["10.1.0.0"], tries=3, wait=1.0)["10.1.0.0"]


def module_churn(cycles, fig):
    ip_batch(["netns add m0", "netns add m1"])
    link_up_all("m0", ["lo"])
    link_up_all("m1", ["lo"])
    problems, times, pings = [], [], 0

    def one_cycle():
        t = time.monotonic()
        insmod()
        ok = two_node_fabric()
        rmmod()
        times.append(time.monotonic() - t)
        left = [ifnames(ns) for ns in ("m0", "m1")]
        if left != [["lo"], ["lo"]]:
            problems.append("left after rmmod: %s" % left)
        return ok

    try:
        if rellib.module_refcnt() is not None:
            rmmod()
        one_cycle()             # warm-up
        before = rellib.snapshot()
        before_vm = rellib.meminfo()["VmallocUsed"]
        t0 = time.monotonic()
        for _ in range(cycles):
            try:
                pings += one_cycle()
            except (OSError, RuntimeError) as e:
                problems.append(str(e))
                break
        secs = time.monotonic() - t0
        after = rellib.snapshot()
        after_vm = rellib.meminfo()["VmallocUsed"]
    finally:
        if rellib.module_refcnt() is None:
            insmod()
        ip_batch(["netns del m0", "netns del m1"], force=True)
    d = rellib.memory_delta(before, after)
    d["vmalloc_kb_delta"] = after_vm - before_vm
    fig["module"] = {"cycles": len(times) - 1, "seconds": round(secs, 1),
                     "ms_per_cycle": round(1000 * secs / max(cycles, 1), 1),
                     "pings_ok": pings, "memory": d}
    return d, problems, pings


# ---- daemon kills ----

def daemon_kills(kills, gap, seed, fig):
    """SIGKILL a random torusd and start it again every `gap` s from the
    daemons' start on, `kills` times, watching every node: once placed,
    a node's coordinates, extents and wrap must never change."""
    rng = random.Random(seed)
    spec = tl.normalize_spec({"dims": "4x4x4", "miswire": "nodes",
                              "seed": 3, "prefix": "d"})
    lab = tl.Lab(spec, run_dir=os.path.join(RUNS, "d"),
                 log=lambda m: print("# " + m, flush=True))
    placed_as, moves = {}, []
    live = [lab.rack.ns(c) for c in lab.live]

    def watch():
        nodes = lab.observe()
        sig = lab.signature(nodes)
        for ns in live:
            s = sig.get(ns)
            if s and s[0] == "placed":
                if ns not in placed_as:
                    placed_as[ns] = s[2:]
                elif placed_as[ns] != s[2:]:
                    moves.append((ns, placed_as[ns], s[2:]))
        return sum(1 for ns in live if sig.get(ns) and
                   sig[ns][0] == "placed")

    try:
        lab.build()
        mem0 = rellib.meminfo()
        lab.start()
        n_kills, mid, t0 = 0, 0, time.monotonic()
        all_placed = False      # every node placed at least once
        last_watch = 0.0
        while n_kills < kills:
            ns = rng.choice(live)
            p = lab.procs[ns]
            p.send_signal(signal.SIGKILL)
            p.wait()
            with open(os.path.join(lab.run_dir, ns + ".log"), "a") as logf:
                with tl.netns(ns):
                    lab.procs[ns] = subprocess.Popen(
                        lab.daemon_args(lab.info[ns]),
                        stdin=subprocess.DEVNULL, stdout=logf,
                        stderr=subprocess.STDOUT)
            n_kills += 1
            if not all_placed:
                mid += 1
            # one observation costs a torus -batch over 64 namespaces
            # (seconds on a busy host): at most one per second; a move
            # stays in the kernel, the next observation sees it
            if time.monotonic() - last_watch >= 1.0:
                last_watch = time.monotonic()
                all_placed = all_placed or watch() == len(live)
            time.sleep(gap)
        kill_secs = time.monotonic() - t0
        lab.t_start = time.monotonic()
        conv, secs, nodes = lab.wait()
        watch()
        res, nodes = lab.verify(conv)
        wrong = lab.wait_addresses(nodes)
        assert not wrong, "torusd's plan addresses wrong on %s" % \
            sorted(wrong)[:4]
        ping = lab.ping_check(nodes, res)
        rss = 0
        for p in lab.procs.values():
            with open("/proc/%d/status" % p.pid) as f:
                rss += int(next(line for line in f
                                if line.startswith("VmRSS:")).split()[1])
        mem1 = rellib.meminfo()
    except BaseException:
        # shown here: a failing destroy below would hide it
        traceback.print_exc(file=sys.stdout)
        raise
    finally:
        lab.destroy()
    fig["daemons"] = {
        "kills": n_kills, "kills_before_all_placed": mid,
        "kill_seconds": round(kill_secs, 1),
        "converged_s_after_last_kill": secs, "converged": conv,
        "placed": res["placed"], "moves": len(moves),
        "ping": {"ok": ping["ok"], "must": ping["must"],
                 "failed": len(ping["failed"])},
        "torusd_rss_kb_total": rss,
        "mem_available_kb_delta": mem1["MemAvailable"] -
        mem0["MemAvailable"]}
    return res, moves, ping


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--netns", type=int, default=1000,
                    help="namespace create/delete cycles")
    ap.add_argument("--modules", type=int, default=100,
                    help="insmod/rmmod cycles")
    ap.add_argument("--kills", type=int, default=100,
                    help="torusd SIGKILL/restart cycles (0: none)")
    ap.add_argument("--gap", type=float, default=0.2,
                    help="seconds between two kills")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args(argv)
    fig = {}
    if rellib.module_refcnt() is None:
        insmod()
    mark = rellib.dmesg_mark("churn")
    rellib.netns_kick()
    rellib.kmemleak_clear()

    @case("churn_netns_cycles")
    def netns():
        d, left, unfreed = netns_churn(args.netns, fig)
        assert not left, "hub kept ports after %d rounds, e.g. %s" % (
            len(left), left[0])
        assert not unfreed, "%d namespaces not freed" % unfreed
        lim = leak_limit_kb(args.netns)
        assert d["sunreclaim_kb_delta"] < lim, \
            "unreclaimable slab grew by %d kB (limit %d): %s" % (
                d["sunreclaim_kb_delta"], lim, d["top_caches"][:3])
        f = fig["netns"]
        return "%d cycles, %.1f ms each, SUnreclaim %+d kB" % (
            f["cycles"], f["ms_per_cycle"], d["sunreclaim_kb_delta"])

    @case("churn_module_cycles")
    def module():
        d, problems, pings = module_churn(args.modules, fig)
        assert not problems, problems[0]
        assert pings == args.modules, "%d of %d cycles pinged" % (
            pings, args.modules)
        lim = leak_limit_kb(args.modules)
        assert d["sunreclaim_kb_delta"] < lim, \
            "unreclaimable slab grew by %d kB (limit %d): %s" % (
                d["sunreclaim_kb_delta"], lim, d["top_caches"][:3])
        f = fig["module"]
        return "%d cycles, %.0f ms each, SUnreclaim %+d kB, vmalloc " \
            "%+d kB" % (f["cycles"], f["ms_per_cycle"],
                        d["sunreclaim_kb_delta"], d["vmalloc_kb_delta"])

    @case("churn_daemon_kills")
    def daemons():
        res, moves, ping = daemon_kills(args.kills, args.gap, args.seed,
                                        fig)
        assert not moves, "%d moves after placement, e.g. %s: %s -> %s" % (
            (len(moves),) + moves[0])
        assert res["ok"] and res["placed"] == 64, \
            "converged %s, %d placed, inconsistent %s" % (
                res["converged"], res["placed"],
                res.get("inconsistent", [])[:2])
        assert ping["must"] == 63 and not ping["failed"], \
            "pings failed: %s" % ping["failed"][:6]
        f = fig["daemons"]
        return "%d kills (%d before all were placed), converged %.1f s " \
            "after the last" % (f["kills"], f["kills_before_all_placed"],
                                f["converged_s_after_last_kill"])

    netns()
    module()
    if args.kills == 0:
        pass    # make check: the kills belong to the full runs
    elif tl.find_torusd():
        daemons()
    else:
        skip("churn_daemon_kills", "torusd not built (make tools)")

    return rellib.finish("churn", mark, fig, args.json)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
