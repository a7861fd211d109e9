#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fault storm (runs inside the test VM): a 4x4x4 rack, every node
cabled in its own rotation, torusd everywhere.  Once it has converged,
random cables are cut and restored at RATE per second for SECONDS (over
generic netlink from this process: no exec per cut) while a rolling ping
sweep runs from every node to every other and two iperf3 TCP streams
cross the fabric.  Then: every daemon converges again to the truth, no
node moved, all pairs ping, the kernel log is clean, the slab and the
module refcount are back where they were.

    storm_test.py [--seconds S] [--rate R] [--seed N] [--json FILE]

Prints PASS:/FAIL:/SKIP: vm/storm_* lines and a figures line; --json
writes the figures (strict JSON).
"""

import argparse
import json
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import REPO, TORUS_KO, case, results, skip  # noqa: E402
import rellib  # noqa: E402
import torus_lab as tl  # noqa: E402

RUNS = "/run/torus-rel"
# growth of unreclaimable slab over the storm that counts as a leak
# (a torport, a node or an skb leaked per cut would exceed it many
# times over; page and socket caches of the daemons move by less)
LEAK_LIMIT_KB = 2048
IPERF_RATE = "20M"      # per stream: leaves CPU for the rest under TCG


def ensure_module():
    if rellib.module_refcnt() is None:
        tl.run(["insmod", TORUS_KO])


class PingSweep(multiprocessing.Process):
    """Every node in turn pings all others (one ICMP round, 0.5 s for
    the answers) until stopped; counts echoes sent and answered.  A
    process of its own, so that it does not slow the cable cutter down
    through the GIL."""

    def __init__(self, lab, nodes):
        super().__init__(daemon=True)
        self.addrs = {lab.rack.ns(c): tl.addr(nodes[lab.rack.ns(c)]["coord"])
                      for c in lab.live}
        self.stop_ev = multiprocessing.Event()
        self.sent = multiprocessing.Value("q", 0)
        self.answered = multiprocessing.Value("q", 0)

    def counts(self):
        return self.sent.value, self.answered.value

    def run(self):
        order = sorted(self.addrs)
        i = 0
        while not self.stop_ev.is_set():
            src = order[i % len(order)]
            i += 1
            targets = [a for ns, a in self.addrs.items() if ns != src]
            got = tl.ping_many(src, targets, tries=1, wait=0.5)
            with self.sent.get_lock():
                self.sent.value += len(targets)
            with self.answered.get_lock():
                self.answered.value += sum(got.values())


def start_iperf(lab, nodes, pairs, seconds):
    """iperf3 servers and clients for (client, server) true coordinates;
    returns the client and the server processes."""
    procs, servers = [], []
    for k, (cli, srv) in enumerate(pairs):
        port = str(5201 + k)
        with tl.netns(lab.rack.ns(srv)):
            servers.append(subprocess.Popen(
                ["iperf3", "-s", "-1", "-p", port],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    time.sleep(0.5)
    for k, (cli, srv) in enumerate(pairs):
        with tl.netns(lab.rack.ns(cli)):
            procs.append(subprocess.Popen(
                ["iperf3", "-c", tl.addr(nodes[lab.rack.ns(srv)]["coord"]),
                 "-p", str(5201 + k), "-t", str(seconds), "-b", IPERF_RATE,
                 "-J"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True))
    return procs, servers


def iperf_result(proc, baseline):
    """The client's totals, and its rate over the first `baseline`
    seconds (no cuts yet) beside the rest (the storm)."""
    out, _ = proc.communicate(timeout=120)
    try:
        js = json.loads(out)
    except ValueError:
        return {"ok": False, "error": out.strip()[-200:]}
    if "error" in js:
        return {"ok": False, "error": js["error"]}
    end = js.get("end", {})
    sent = end.get("sum_sent", {})
    ivs = [iv["sum"] for iv in js.get("intervals", [])]

    def rate(ivs):
        secs = sum(iv["seconds"] for iv in ivs)
        return round(sum(iv["bytes"] for iv in ivs) * 8 / 1e6 / secs, 1) \
            if secs else 0.0
    return {"ok": proc.returncode == 0 and sent.get("bytes", 0) > 0,
            "mbit_s_before_cuts": rate([iv for iv in ivs
                                        if iv["end"] <= baseline + 0.5]),
            "mbit_s_during_cuts": rate([iv for iv in ivs
                                        if iv["start"] >= baseline + 1]),
            "bytes": sent.get("bytes", 0),
            "mbit_s": round(sent.get("bits_per_second", 0) / 1e6, 1),
            "retransmits": sent.get("retransmits", 0)}


def storm(lab, seconds, rate, rng):
    """Cut a random live cable every 1/rate s and restore each after a
    random 0.2-1.0 s; at the end restore all.  Returns the counts."""
    socks, ends = {}, []
    for cab in lab.truth["cables"]:
        ns, port = cab["a"]["ns"], cab["a"]["port"]
        with tl.netns(ns):
            if ns not in socks:
                socks[ns] = rellib.Genl()
            ends.append((ns, socket.if_nametoindex(port)))
    cut = {}            # cable index -> restore time
    n_cut = n_restored = errors = 0
    lat = []

    def cable(i, up):
        nonlocal errors
        t = time.monotonic()
        try:
            socks[ends[i][0]].cable_set(ends[i][1], up)
        except OSError:
            errors += 1
            return False
        lat.append(time.monotonic() - t)
        return True

    planned = int(round(seconds * rate))
    t0 = time.monotonic()
    try:
        # the count is fixed, not the time: a guest stalled by a busy
        # host (seen: 5 s) catches up rather than cutting less
        while (n_cut < planned or cut) and errors <= 10:
            now = time.monotonic()
            for i in [i for i, t in cut.items() if t <= now]:
                n_restored += cable(i, True)
                del cut[i]
            # cuts due by now: a late loop catches up, the rate holds
            due = min(planned, int((now - t0) * rate) + 1)
            for _ in range(due - n_cut):
                i = rng.choice([i for i in range(len(ends))
                                if i not in cut])
                if cable(i, False):
                    n_cut += 1
                    cut[i] = now + rng.uniform(0.2, 1.0)
            wake = list(cut.values())
            if n_cut < planned:
                wake.append(t0 + n_cut / rate)
            if wake:
                time.sleep(max(0.0, min(wake) - time.monotonic()))
    finally:
        for s in socks.values():
            s.close()
    lat.sort()
    secs = time.monotonic() - t0
    return {"cuts": n_cut, "restores": n_restored, "errors": errors,
            "planned": planned, "seconds": round(secs, 2),
            "cuts_per_s": round(n_cut / secs, 2),
            "cables": len(ends),
            "call_ms_median": round(1000 * lat[len(lat) // 2], 2)
            if lat else None,
            "call_ms_max": round(1000 * lat[-1], 2) if lat else None}


def ping_all_pairs(lab, nodes):
    """Every live node pings every other by its discovered address;
    returns (pairs, failed pairs)."""
    addrs = {lab.rack.ns(c): tl.addr(nodes[lab.rack.ns(c)]["coord"])
             for c in lab.live}
    pairs, failed = 0, []
    for src in sorted(addrs):
        targets = [a for ns, a in addrs.items() if ns != src]
        got = tl.ping_many(src, targets, tries=3, wait=1.0)
        pairs += len(targets)
        failed += ["%s->%s" % (src, t) for t, ok in got.items() if not ok]
    return pairs, failed


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--rate", type=float, default=10,
                    help="cable cuts per second")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--baseline", type=float, default=10,
                    help="seconds of ping sweep without cuts first")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    fig = {"seconds": args.seconds, "rate": args.rate, "seed": args.seed}

    ensure_module()
    if not tl.find_torusd():
        skip("storm", "torusd not built (make tools)")
        return 0
    mark = rellib.dmesg_mark("storm")
    rellib.netns_kick()
    rellib.kmemleak_clear()
    base_netns = rellib.cache_objects("net_namespace")
    mem_empty = rellib.snapshot()
    spec = tl.normalize_spec({"dims": "4x4x4", "miswire": "nodes",
                              "seed": 2, "prefix": "s"})
    lab = tl.Lab(spec, run_dir=os.path.join(RUNS, "s"),
                 log=lambda m: print("# " + m, flush=True))
    box = {}

    @case("storm_rack_converged")
    def converge():
        lab.build()
        lab.start()
        conv, secs, nodes = lab.wait()
        res, nodes = lab.verify(conv)
        assert res["ok"] and res["placed"] == 64, res.get("inconsistent") \
            or "converged %s, %d placed" % (conv, res["placed"])
        wrong = lab.wait_addresses(nodes)
        assert not wrong, "torusd's plan addresses wrong on %s" % \
            sorted(wrong)[:4]
        box["nodes"] = nodes
        fig["first_convergence_s"] = secs
        return "converged in %.1f s" % secs

    @case("storm_cables_cut_and_restored")
    def run_storm():
        nodes = box["nodes"]
        box["sig"] = lab.signature(lab.observe())
        box["mem"] = rellib.snapshot()
        drops0 = lab.drop_counts()
        sweep = PingSweep(lab, nodes)
        iperf, servers = start_iperf(lab, nodes, [((0, 0, 0), (2, 2, 2)),
                                         ((3, 1, 0), (1, 3, 2))],
                            int(args.baseline + args.seconds) + 3)
        sweep.start()
        try:
            # the same sweep without cuts first: the baseline loss of a
            # busy TCG guest, measured in the same run
            time.sleep(1)
            b0 = sweep.counts()
            time.sleep(args.baseline)
            s0 = sweep.counts()
            # 64 daemons, the sweep and iperf3 fill both CPUs under TCG:
            # the cutter runs first (real-time) so that the rate holds
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
            try:
                st = storm(lab, args.seconds, args.rate, rng)
            finally:
                os.sched_setscheduler(0, os.SCHED_OTHER,
                                      os.sched_param(0))
            box["t_end"] = time.monotonic()
            s1 = sweep.counts()
        finally:
            sweep.stop_ev.set()
            sweep.join()
        fig["storm"] = st
        drops = lab.drop_counts()
        fig["kernel_drops"] = {k: v - drops0.get(k, 0)
                               for k, v in drops.items()
                               if v != drops0.get(k, 0)}
        fig["ping_sweep"] = {
            "sent": s1[0] - s0[0], "answered": s1[1] - s0[1],
            "lost": (s1[0] - s0[0]) - (s1[1] - s0[1])}
        fig["ping_sweep"]["loss_pct"] = round(
            100.0 * fig["ping_sweep"]["lost"] /
            max(1, fig["ping_sweep"]["sent"]), 2)
        base = {"seconds": args.baseline, "sent": s0[0] - b0[0],
                "answered": s0[1] - b0[1]}
        base["lost"] = base["sent"] - base["answered"]
        base["loss_pct"] = round(100.0 * base["lost"] /
                                 max(1, base["sent"]), 2)
        fig["ping_sweep_baseline"] = base
        fig["tcp"] = [iperf_result(p, args.baseline) for p in iperf]
        for p in servers:
            if p.poll() is None:
                p.kill()
            p.wait()
        assert st["cuts"] == st["planned"] == st["restores"] and \
            not st["errors"], "%d cuts, %d restores of %d, %d errors" % (
                st["cuts"], st["restores"], st["planned"], st["errors"])
        return "%d cuts, %d restores in %.1f s; ping sweep lost %d of %d " \
            "(%.1f%%; %.1f%% without cuts)" % (
                st["cuts"], st["restores"], st["seconds"],
                fig["ping_sweep"]["lost"], fig["ping_sweep"]["sent"],
                fig["ping_sweep"]["loss_pct"], base["loss_pct"])

    @case("storm_tcp_streams_survive")
    def tcp():
        bad = [t for t in fig["tcp"] if not t["ok"]]
        assert not bad, "iperf3: %s" % bad
        return ", ".join("%.1f Mbit/s before the cuts, %.1f during, %d "
                         "retransmits" % (t["mbit_s_before_cuts"],
                                          t["mbit_s_during_cuts"],
                                          t["retransmits"])
                         for t in fig["tcp"])

    @case("storm_daemons_reconverge")
    def reconverge():
        lab.t_start = box["t_end"]
        conv, secs, nodes = lab.wait()
        res, nodes = lab.verify(conv)
        fig["reconvergence_s"] = secs
        fig["reconverge_wall_s"] = round(time.monotonic() - box["t_end"], 2)
        box["nodes_after"] = nodes
        assert conv and res["ok"] and res["placed"] == 64, \
            "converged %s, %d placed, inconsistent %s" % (
                conv, res["placed"], res.get("inconsistent", [])[:2])
        return "last change %.1f s after the storm" % secs

    @case("storm_no_node_moved")
    def unmoved():
        after = lab.signature(box["nodes_after"])
        moved = [ns for ns in box["sig"] if box["sig"][ns] != after[ns]]
        fig["moved"] = len(moved)
        assert not moved, "%d nodes changed, e.g. %s: %s -> %s" % (
            len(moved), moved[0], box["sig"][moved[0]], after[moved[0]])

    @case("storm_ping_all_pairs_after")
    def ping_after():
        t = time.monotonic()
        pairs, failed = ping_all_pairs(lab, box["nodes_after"])
        fig["ping_after"] = {"pairs": pairs, "failed": len(failed),
                             "seconds": round(time.monotonic() - t, 1)}
        assert pairs == 64 * 63 and not failed, "%d of %d failed: %s" % (
            len(failed), pairs, " ".join(failed[:6]))
        return "%d/%d pairs" % (pairs - len(failed), pairs)

    @case("storm_no_slab_leak")
    def no_leak():
        d = rellib.memory_delta(box["mem"], rellib.snapshot())
        fig["memory_storm"] = d
        assert d["torus_refcnt_after"] == d["torus_refcnt_before"], \
            "module refcount %s -> %s" % (d["torus_refcnt_before"],
                                          d["torus_refcnt_after"])
        assert d["sunreclaim_kb_delta"] < LEAK_LIMIT_KB, \
            "unreclaimable slab grew by %d kB: %s" % (
                d["sunreclaim_kb_delta"], d["top_caches"][:3])
        return "SUnreclaim %+d kB, active slab objects %+d bytes" % (
            d["sunreclaim_kb_delta"], d["slab_active_bytes_delta"])

    try:
        ok = converge()
        if ok and run_storm():
            tcp()
            reconverge()
            if "nodes_after" in box:
                unmoved()
                ping_after()
            no_leak()
    finally:
        lab.destroy()

    @case("storm_rack_freed")
    def freed():
        left = rellib.wait_netns_freed(base_netns)
        d = rellib.memory_delta(mem_empty, rellib.snapshot())
        fig["memory_rack"] = d
        assert not left, "%d namespaces not freed" % left
        assert d["torus_refcnt_after"] == d["torus_refcnt_before"], \
            "module refcount %s -> %s" % (d["torus_refcnt_before"],
                                          d["torus_refcnt_after"])
        # no slab limit here: after 64 namespaces go at once the slab
        # pages stay fragmented (+4 MB seen, no cache growing by the
        # rack's size); churn_netns_cycles is the leak test that counts
        return "SUnreclaim %+d kB after the rack is gone (a figure)" % \
            d["sunreclaim_kb_delta"]
    freed()

    return rellib.finish("storm", mark, fig, args.json)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
