#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Reroute under load (runs inside the test VM): a 4x4x4 rack built by
torus-lab with torusd on every node, ping flows and one long TCP stream
across it, while 3 cables are cut and 2 nodes killed (torusd SIGKILLed,
namespace deleted), one fault at a time.  torusd computes the fault-
tolerant routes from the link state and installs them (daemon/routes.c).

Per fault: the time until every survivor has installed routes for the
new fault set (from torusd's state files), and until every pair of a
few probe sources and every survivor answers again, with the echoes
lost meanwhile (one echo per pair every 0.1 s, tests/vm/prober.py).  Over the whole run: the
ping flows' and the stream's losses and longest stall.  Then: every
survivor pair the wiring connects answers (all pairs), lambs say
"role": "lamb" exactly where torusd's set has them, and once the cables
are restored every node's exceptions are released to what the dead
nodes alone need, with a new table generation; a first round (cables
cut and restored, nobody killed) shows every table empty again.

    reroute_test.py [--json FILE] [--keep]
"""

import argparse
import contextlib
import datetime
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import case, results, skip  # noqa: E402
import torus_lab as tl  # noqa: E402
from prober import Prober  # noqa: E402

RUN_DIR = "/run/torus-reroute"
# faults, in true coordinates: the fabric stays connected
CUTS = [((0, 0, 0), 0, False), ((1, 0, 0), 1, False), ((2, 2, 2), 2, False)]
KILLS = [(1, 1, 1), (2, 3, 0)]
# ping flows whose dimension-ordered paths cross the faults
FLOWS = [((0, 0, 0), (2, 0, 0)), ((0, 1, 1), (2, 1, 1))]
STREAM = ((2, 2, 1), (2, 2, 3))     # crosses the cut (2,2,2)+z
PROBES = [(0, 0, 0), (0, 1, 1), (2, 2, 1), (3, 3, 3)]
PING_INTERVAL = 0.05
PROBE_INTERVAL = 0.1            # one echo per probed pair this often
REACH_GOAL_S = 1.0              # no echo sent later than this is lost
OUTAGE_NODE = (3, 0, 0)         # ignores echoes for OUTAGE_S, once
OUTAGE_S = 0.5
REACH_TIMEOUT = 30.0
# after placement the link state may flap for a while on a starved guest
# (neighbours placed late count as cut until they are): waited for
SETTLE_TIMEOUT = 120.0


def log(msg):
    print("# " + msg, flush=True)


@contextlib.contextmanager
def niced(inc):
    """Processes started inside run `inc` nicer than the rack's daemons:
    a child inherits the nice value of the thread that forks it, and on
    Linux that value is the thread's own (the prober's is untouched)."""
    old = os.getpriority(os.PRIO_PROCESS, 0)
    os.setpriority(os.PRIO_PROCESS, 0, old + inc)
    try:
        yield
    finally:
        os.setpriority(os.PRIO_PROCESS, 0, old)


class Scenario:
    def __init__(self, run_dir):
        self.run_dir = run_dir
        spec = tl.normalize_spec({"dims": "4x4x4", "miswire": "none",
                                  "prefix": "r", "seed": 7})
        self.lab = tl.Lab(spec, run_dir=run_dir, log=log)
        self.rack = self.lab.rack
        self.iso = None
        self.dead = set()           # true coordinates killed
        self.cut = set()            # (coord, axis, neg) cut
        self.fig = {"faults": []}
        self.prober = None

    # -- where things are --

    def addr(self, true):
        return tl.addr4(self.iso.coord(true))

    def live(self):
        return [c for c in self.rack.nodes if c not in self.dead]

    def state(self, true):
        path = os.path.join(self.run_dir,
                            self.rack.ns(true) + ".state.json")
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None         # being replaced, or not yet written

    def expected_faults(self):
        """(dead, cut cables) as the link state must show them: the
        killed nodes' cables count as cut too."""
        cables = set()
        for c, a, neg in self.cut:
            n = self.rack.neighbor(c, a, neg)
            cables.add(frozenset((c, n)))
        for c in self.dead:
            for a in range(3):
                for neg in (False, True):
                    cables.add(frozenset((c, self.rack.neighbor(c, a,
                                                                neg))))
        return len(self.dead), len(cables)

    # -- waiting --

    def wait_routes(self, t_fault, timeout=REACH_TIMEOUT):
        """Until every survivor's state file shows routes for the current
        fault set; the latest computation's time after t_fault (s)."""
        dead, cuts = self.expected_faults()
        deadline = time.monotonic() + timeout
        while True:
            sts = [self.state(c) for c in self.live()]
            rs = [s.get("routes") if s else None for s in sts]
            if all(r and r["dead"] == dead and r["cut"] == cuts
                   for r in rs):
                return max(r["computed_at_ms"] for r in rs) / 1e3 - t_fault
            if time.monotonic() > deadline:
                bad = [(self.rack.ns(c), r and (r["dead"], r["cut"]))
                       for c, r in zip(self.live(), rs)
                       if not r or (r["dead"], r["cut"]) != (dead, cuts)]
                raise AssertionError(
                    "routes for %d dead, %d cut not installed after %.0f s "
                    "on %s" % (dead, cuts, timeout, bad[:4]))
            time.sleep(0.05)

    def wait_reachable(self, t_fault, timeout=REACH_TIMEOUT):
        """Until every probed pair answers again (prober.Prober): when
        the slowest pair got through for good, after t_fault, and the
        echoes lost on the way."""
        deadline = time.monotonic() + timeout
        while True:
            got = self.prober.settled(t_fault)
            if got:
                return got
            if time.monotonic() > deadline:
                raise AssertionError("not reachable %.0f s after the "
                                     "fault: %s" % (timeout, [
                                         (tl.fmt(s), tl.fmt(d)) for s, d in
                                         self.prober.missing(t_fault)[:4]]))
            time.sleep(0.1)

    # -- faults --

    @staticmethod
    def assert_goal(faults):
        """Every survivor pair talks again within REACH_GOAL_S: no echo
        sent that long after a fault was lost."""
        late = [(f["fault"], f["last_lost_s"]) for f in faults
                if f["last_lost_s"] >= REACH_GOAL_S]
        assert not late, "echoes lost %.1f s or more after the fault: %s" \
            % (REACH_GOAL_S, late)

    def set_cable(self, cable, state):
        c, a, neg = cable
        self.rack.set_cable(c, a, neg, state)

    def kill(self, c):
        """SIGKILL the node's torusd, then delete its namespace: the
        node dies then (until then its kernel forwarded).  The time the
        deletion started."""
        ns = self.rack.ns(c)
        p = self.lab.procs.pop(ns)
        p.kill()
        p.wait()
        self.lab.killed.add(ns)
        t_death = time.time()
        tl.run([tl.IP, "netns", "del", ns])
        return t_death

    def carrier_down_s(self, nodes, since):
        """The latest, over nodes, of the first "carrier down" (or "is
        gone") their torusd logged after since, in s after since; None
        if one has not logged it."""
        worst = 0.0
        for c in nodes:
            seen = None
            path = os.path.join(self.run_dir, self.rack.ns(c) + ".log")
            with open(path, errors="replace") as f:
                for line in f:
                    if "carrier down" not in line and "is gone" not in line:
                        continue
                    # "<6>2026-11-24T10:50:19.105 torusd[info]: ...",
                    # local time, as time.time() is read here
                    t = datetime.datetime.strptime(
                        line[3:26], "%Y-%m-%dT%H:%M:%S.%f").timestamp()
                    if t >= since - 0.0005:
                        seen = t - since
                        break
            if seen is None:
                return None
            worst = max(worst, seen)
        return round(worst, 3)

    def fault(self, what, act, watch=()):
        """act() makes the fault (a kill returns when the node died);
        watch: the nodes whose torusd must see a cable go down."""
        t = time.time()
        t_death = act() or t
        # probed from the fault on: the kernel's local detours may
        # carry traffic before the routes arrive
        reach = self.wait_reachable(t)
        t_reach = reach["reachable_s"]
        t_routes = self.wait_routes(t)
        f = {"fault": what, "routes_installed_s": round(t_routes, 3),
             "reachable_s": t_reach, "last_lost_s": reach["last_lost_s"],
             "echoes_lost": reach["lost"],
             "pairs_lost": reach["pairs_lost"]}
        extra = ""
        if t_death != t:
            f["node_died_s"] = round(t_death - t, 3)
            # 0 when no pair lost an echo at all
            f["reachable_after_death_s"] = round(
                max(0.0, t + t_reach - t_death), 3) if t_reach else 0.0
            extra += " (%.2f s after the namespace deletion began, %.2f s " \
                "after the SIGKILL)" % (f["reachable_after_death_s"],
                                        f["node_died_s"])
        if watch:
            f["carrier_down_s"] = self.carrier_down_s(watch, t_death)
            extra += "; carrier down at the neighbours after %s s" % \
                f["carrier_down_s"]
        self.fig["faults"].append(f)
        log("%s: probes reach every survivor after %.2f s (%d echoes lost "
            "on %d of %d pairs), routes on every survivor after %.2f s%s" % (
                what, t_reach, reach["lost"], reach["pairs_lost"],
                reach["pairs"], t_routes, extra))
        return f


class Flows:
    """Ping flows (iputils ping, one process each) and a TCP stream of
    paced 4 KiB writes, with its longest gap between received bytes."""

    def __init__(self, sc):
        self.sc = sc
        self.pings = []
        self.stop = threading.Event()
        self.rx = 0
        self.tx = 0
        self.gap = 0.0
        self.error = None

    def start(self):
        for src, dst in FLOWS:
            with tl.netns(self.sc.rack.ns(src)):
                p = subprocess.Popen(
                    ["ping", "-n", "-q", "-i", str(PING_INTERVAL),
                     self.sc.addr(dst)], stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT, text=True)
            self.pings.append(p)
        cli, srv = STREAM
        with tl.netns(self.sc.rack.ns(srv)):
            ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            ls.bind((self.sc.addr(srv), 5201))
            ls.listen(1)
        with tl.netns(self.sc.rack.ns(cli)):
            cs = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        cs.settimeout(10)
        cs.connect((self.sc.addr(srv), 5201))
        ss, _ = ls.accept()
        ls.close()
        self.threads = [threading.Thread(target=self.send, args=(cs,)),
                        threading.Thread(target=self.recv, args=(ss,))]
        for t in self.threads:
            t.start()

    def send(self, s):
        chunk = bytes(4096)
        try:
            while not self.stop.is_set():
                s.sendall(chunk)
                self.tx += len(chunk)
                time.sleep(0.01)
            s.shutdown(socket.SHUT_WR)
        except OSError as e:
            self.error = "send: %s" % e
        finally:
            s.close()

    def recv(self, s):
        s.settimeout(30)
        last = time.monotonic()
        try:
            while True:
                data = s.recv(65536)
                now = time.monotonic()
                if not data:
                    break
                self.gap = max(self.gap, now - last)
                last = now
                self.rx += len(data)
        except OSError as e:
            self.error = "recv: %s" % e
        finally:
            s.close()

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(60)
        out = []
        for p in self.pings:
            p.send_signal(2)        # SIGINT: ping prints its summary
            text = p.communicate(timeout=10)[0]
            tx = rx = 0
            for line in text.splitlines():
                if "packets transmitted" in line:
                    w = line.replace(",", "").split()
                    tx, rx = int(w[0]), int(w[3])
            out.append({"sent": tx, "received": rx, "lost": tx - rx})
        return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--keep", action="store_true",
                    help="leave the rack for inspection")
    ap.add_argument("--run-dir", default=RUN_DIR,
                    help="torusd logs and state files (default %s)" %
                    RUN_DIR)
    ap.add_argument("--save", help="copy the run directory here at the "
                    "end (the guest's /run is gone with the VM)")
    ap.add_argument("--no-collectives", action="store_true",
                    help="leave out the collectives case (a torusd "
                    "older than its trees: make bench-reroute)")
    args = ap.parse_args(argv)
    if not tl.find_torusd():
        skip("reroute_under_load", "torusd not built (make tools)")
        return 0
    sc = Scenario(args.run_dir)
    lab = sc.lab
    ok = {"up": False}

    @case("reroute_rack_converges_with_routes")
    def converge():
        lab.build()
        lab.start()
        conv, secs, nodes = lab.wait()
        # a port map may lag the placement on a starved guest: retried
        for _ in range(20):
            res, nodes = lab.verify(conv)
            if res.get("portmaps_ok", True) or not res["converged"]:
                break
            time.sleep(1.0)
        assert res["ok"] and res["placed"] == 64, {
            k: res.get(k) for k in ("converged", "consistent", "dims_ok",
                                    "unexcused", "portmaps_ok", "placed",
                                    "exited", "portmaps_bad")}
        sc.iso = tl.Isometry.from_json(res["isometry"], lab.truth["dims"],
                                       lab.truth["wrap"])
        assert not lab.wait_addresses(nodes), "plan addresses missing"
        t0 = time.time()
        settle = max(0.0, sc.wait_routes(t0, SETTLE_TIMEOUT))
        sts = [sc.state(c)["routes"] for c in sc.live()]
        assert all(r["exceptions"] == 0 and r["lambs"] == 0 and
                   not r["refused"] for r in sts), sts[:2]
        ok["up"] = True
        sc.prober = Prober(PROBES, sc.live, sc.rack.ns, sc.addr,
                           interval=PROBE_INTERVAL)
        sc.prober.start()
        sc.fig["converged_s"] = secs
        sc.fig["link_state_settled_s"] = round(settle, 2)
        return "converged %.1f s, link state without faults %.1f s later; " \
            "routes computed on all 64 (at most %.1f ms, %.1f ms CPU), " \
            "no exception" % (secs, settle,
                              max(r["compute_ms"] for r in sts),
                              max(r["compute_cpu_ms"] for r in sts))

    @case("reroute_prober_sees_an_outage")
    def calibrate():
        """The instrument can fail: a node that ignores echoes for
        OUTAGE_S (its namespace's icmp_echo_ignore_all) is seen by every
        probe source, and only it, for about that long."""
        key = "net.ipv4.icmp_echo_ignore_all"
        t = time.time()
        sc.rack.exec(OUTAGE_NODE, ["sysctl", "-qw", key + "=1"])
        on = time.time() - t        # ignoring from before this on
        rounds = sc.prober.rounds
        time.sleep(OUTAGE_S)
        while sc.prober.rounds < rounds + 3:    # a starved prober
            time.sleep(0.05)
        sc.rack.exec(OUTAGE_NODE, ["sysctl", "-qw", key + "=0"])
        off = time.time() - t       # answering from before this on
        got = sc.wait_reachable(t)
        sc.fig["outage"] = dict(got, outage_s=OUTAGE_S)
        assert got["pairs_lost"] == len(PROBES), got
        # the first echo answered for good left after the outage ended
        assert on + OUTAGE_S - PROBE_INTERVAL <= got["reachable_s"] <= \
            off + PROBE_INTERVAL + 2.0, (on, off, got)
        return "%.2f s of ignored echoes seen as %.2f s, %d echoes lost on " \
            "%d of %d pairs" % (OUTAGE_S, got["reachable_s"], got["lost"],
                                got["pairs_lost"], got["pairs"])

    @case("reroute_cut_and_restore_releases_everything")
    def cut_restore():
        gens = {ns: o["routes_generation"]
                for ns, o in lab.observe().items()}
        for cable in CUTS:
            sc.cut.add(cable)
            sc.fault("cut %s%s" % (tl.fmt(cable[0]),
                                   tl.dir_name(cable[1], cable[2])),
                     lambda cable=cable: sc.set_cable(cable, "down"))
        exc = sum(sc.state(c)["routes"]["exceptions"] for c in sc.live())
        assert exc > 0, "three cuts on DOR paths and no exception"
        sc.assert_goal(sc.fig["faults"][-3:])
        for cable in CUTS:
            sc.cut.discard(cable)
            sc.fault("restore", lambda cable=cable: sc.set_cable(cable,
                                                                 "up"))
        nodes = lab.observe()
        full = [ns for ns, o in nodes.items() if o["routes"]]
        stale = [ns for ns, o in nodes.items()
                 if o["routes_generation"] == gens[ns]]
        assert not full, "exceptions left on %s" % full[:4]
        assert not stale, "table generation unchanged on %s" % stale[:4]
        sc.assert_goal(sc.fig["faults"][-3:])
        return "%d exceptions over the rack with 3 cuts, 0 after" % exc

    flows = Flows(sc)

    @case("reroute_under_load")
    def under_load():
        flows.start()
        time.sleep(1.0)
        for cable in CUTS:
            sc.cut.add(cable)
            sc.fault("cut %s%s" % (tl.fmt(cable[0]),
                                   tl.dir_name(cable[1], cable[2])),
                     lambda cable=cable: sc.set_cable(cable, "down"),
                     [cable[0], sc.rack.neighbor(*cable)])
        for c in KILLS:
            sc.dead.add(c)
            sc.fault("kill %s" % tl.fmt(c), lambda c=c: sc.kill(c),
                     [sc.rack.neighbor(c, a, neg) for a in range(3)
                      for neg in (False, True)])
        time.sleep(1.0)
        pings = flows.finish()
        sc.fig["pings"] = pings
        sc.fig["stream"] = {"bytes_sent": flows.tx,
                            "bytes_received": flows.rx,
                            "longest_gap_s": round(flows.gap, 3),
                            "error": flows.error}
        assert not flows.error, flows.error
        assert flows.rx == flows.tx, "stream: %d of %d bytes" % (flows.rx,
                                                                flows.tx)
        sc.assert_goal(sc.fig["faults"][-5:])
        worst = max(f["reachable_s"] for f in sc.fig["faults"][-5:])
        deaths = [f["reachable_after_death_s"]
                  for f in sc.fig["faults"][-2:]]
        return "worst fault to reachability %.2f s (kills: %s s after the " \
            "node died); ping flows lost %s of %s; stream %d kB, longest " \
            "gap %.2f s" % (
                worst, deaths, [p["lost"] for p in pings],
                [p["sent"] for p in pings], flows.rx // 1024, flows.gap)

    @case("reroute_all_survivor_pairs_reachable")
    def all_pairs():
        live = sc.live()
        missed = []
        for s in live:
            targets = [sc.addr(c) for c in live if c != s]
            got = tl.ping_many(sc.rack.ns(s), targets, tries=3, wait=1.0)
            missed += [(tl.fmt(s), t) for t, good in got.items() if not good]
        sc.fig["all_pairs"] = {"pairs": len(live) * (len(live) - 1),
                               "failed": len(missed)}
        assert not missed, "%d pairs fail, e.g. %s" % (len(missed),
                                                        missed[:4])
        return "%d ordered pairs" % (len(live) * (len(live) - 1))

    @case("reroute_lambs_say_so")
    def lambs():
        nodes = lab.observe()
        sts = {sc.rack.ns(c): sc.state(c)["routes"] for c in sc.live()}
        wrong = [ns for ns, r in sts.items()
                 if (nodes[ns]["role"] == "lamb") != r["lamb"]]
        counts = {r["lambs"] for r in sts.values()}
        lambs = [ns for ns, r in sts.items() if r["lamb"]]
        assert not wrong, "role and lamb set disagree on %s" % wrong[:4]
        assert len(counts) == 1 and counts == {len(lambs)}, \
            "nodes disagree on the lamb set: %s" % sorted(counts)
        exc = sum(r["exceptions"] for r in sts.values())
        sc.fig["lambs"] = len(lambs)
        sc.fig["exceptions_faulted"] = exc
        return "%d lambs %s, %d exceptions over %d survivors" % (
            len(lambs), lambs, exc, len(sts))

    @case("reroute_collectives_around_the_dead")
    def collectives():
        """torusd installs a combining tree around the 2 dead nodes and
        the 3 cut cables (daemon/core/tcoll_tree.c): every survivor's
        state file says so, and a barrier and an allreduce on all 62
        survivors complete with the exact sum (on the default tree the
        dead nodes' cables would fail them with ENOLINK).  The prober
        rests meanwhile: its few thousand echoes a second and 62
        starting processes overran the guest's 2 CPUs, hellos were lost
        and cables reported cut under the operations."""
        with sc.prober.paused():
            return collectives_around_the_dead()

    def drops(nodes):
        """The frames the nodes' devices and ports dropped, by reason."""
        out = {}
        for c in nodes:
            recs = [("node", sc.rack.node_json(c))] + [
                ("port", p) for p in sc.rack.ports_json(c).values()]
            for obj, rec in recs:
                for k, v in rec.get("stats", {}).get("drop", {}).items():
                    out[obj + " " + k] = out.get(obj + " " + k, 0) + v
        return out

    def collectives_around_the_dead():
        live = sc.live()
        trees = {c: sc.state(c)["routes"]["coll_tree"] for c in live}
        bad = [tl.fmt(c) for c, t in trees.items()
               if not t["installed"] or t["default"] or
               t["members"] != len(live) or t["roots"] != 1]
        assert not bad, "trees not installed around the faults on %s: %s" \
            % (bad[:4], trees[live[0]])
        roots = [c for c, t in trees.items() if t["parent"] is None]
        assert len(roots) == 1, roots
        logs = {c: os.path.join(sc.run_dir, sc.rack.ns(c) + ".log")
                for c in live}
        log_starts = {c: os.path.getsize(p) for c, p in logs.items()}

        def logged_since(c, start):
            with open(logs[c], errors="replace") as f:
                f.seek(start)
                return f.read()

        def tree_changes(failed=False):
            """What moved the trees since the case began: the survivors
            whose tree differs now, and what their daemons logged of
            trees (an operation that times out on a stable tree is a
            defect; on one torusd changed under it, a race); after a
            failure, also the frames the rack dropped since it was built
            (two commands per node: a few seconds each under TCG)."""
            moved = [tl.fmt(c) for c in live
                     if sc.state(c)["routes"]["coll_tree"] != trees[c]]
            said = {c: [line.strip() for line in
                        logged_since(c, log_starts[c]).splitlines()
                        if "collective tree" in line or "routes: " in line]
                    for c in live}
            said = {tl.fmt(c): lines for c, lines in said.items() if lines}
            first = sorted(said.items())[:1]
            dropped = ""
            try:
                if failed:
                    dropped = "; frames the rack dropped by reason %s" % {
                        k: v for k, v in drops(live).items() if v}
            except Exception as e:     # never hides the failure itself
                dropped = "; drops unread: %s" % e
            return "trees changed on %d survivors %s%s; torusd logged trees " \
                "or routes on %d survivors, e.g. %s" % (
                    len(moved), moved[:4], dropped, len(said), first)

        retried = []

        def coll_once(args_of, nodes):
            starts = {c: os.path.getsize(logs[c]) for c in live}
            t0 = time.monotonic()
            # 62 processes starting at once on the guest's 2 CPUs kept
            # daemons from their hellos for a dead timer (a cable
            # reported cut, the trees changed under the operation): they
            # start nicer than the daemons
            with niced(10):
                procs = {c: subprocess.Popen(
                    [tl.TORUS, "-j", "-n", sc.rack.ns(c), "coll"] +
                    args_of(c), stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, text=True)
                    for c in nodes}
            out = {}
            for c, p in procs.items():
                so, se = p.communicate(timeout=120)
                out[c] = (p.returncode, so, se.strip())
            installed = [tl.fmt(c) for c in live
                         if "collective tree" in logged_since(c, starts[c])]
            return out, installed, time.monotonic() - t0

        def coll(args_of, nodes=live):
            """Every node runs the operation; if torusd installed another
            tree under it (a fault came or went: a starved guest's daemon
            may miss its hellos), the module fails it on every node
            (ENETRESET where the tree changed while the node was in it,
            ECONNABORTED at the others; where the daemons' views differed
            for a while, a member may wait for a neighbour that joined on
            the other tree until its timeout, and then fails the others)
            and the next operation runs on the new tree: that is checked,
            and the operation run once more.  On a stable tree any
            failure fails the case."""
            out, installed, took = coll_once(args_of, nodes)
            errs = {r[2] for r in out.values() if r[0]}
            if installed and len(errs) and \
                    all(r[0] for r in out.values()) and \
                    all("reset" in e or "abort" in e or "timed out" in e
                        for e in errs):
                retried.append("%s failed on all %d in %.1f s after a tree "
                               "install on %d nodes" % (
                                   args_of(nodes[0])[0], len(out), took,
                                   len(installed)))
                log("retried: " + retried[-1])
                out, installed, took = coll_once(args_of, nodes)
            # the errors by kind: the one node that did not time out
            # names the fault
            kinds = {}
            for c, r in out.items():
                if r[0]:
                    kinds.setdefault(r[2], []).append(tl.fmt(c))
            assert not kinds, "failed on %d in %.1f s: %s; trees installed " \
                "during it on %s; %s" % (
                    sum(len(v) for v in kinds.values()), took,
                    {k: (len(v), v[:3]) for k, v in kinds.items()},
                    installed[:4], tree_changes(failed=True))
            return out

        coll(lambda c: ["barrier", "timeout", "30000"])
        vals = {c: 1000 * c[0] + 100 * c[1] + 10 * c[2] + 7 for c in live}
        out = coll(lambda c: ["allreduce", "type", "int64", "op", "sum",
                              "timeout", "30000", str(vals[c])])
        def result(text):
            js = tl.loads_strict(text)
            return tuple((js[0] if isinstance(js, list) else js)["result"])

        got = {result(r[1]) for r in out.values()}
        want = sum(vals.values())
        assert got == {(want,)}, "allreduce: got %s want %d" % (got, want)
        # a node list of every 5th survivor that is no lamb, by its
        # placed rank: only they run, and their frames go member to
        # member by torusd's routes around the dead and the cut cables
        members = [c for c in live
                   if not sc.state(c)["routes"]["lamb"]][::5]

        def placed_rank(c):
            node = sc.rack.node_json(c)
            r = 0
            for a in reversed(range(len(node["dims"]))):
                r = r * node["dims"][a] + node["coord"][a]
            return r

        ranks = ",".join(str(placed_rank(c)) for c in members)
        out = coll(lambda c: ["allreduce", "type", "int64", "group", ranks,
                              "timeout", "30000", str(vals[c])], members)
        got = {result(r[1]) for r in out.values()}
        list_want = sum(vals[c] for c in members)
        assert got == {(list_want,)}, "node list: got %s want %d" % (
            got, list_want)
        depth = max(t["max_depth"] for t in trees.values())
        during = tree_changes()
        # a tool puts a survivor back on its default tree: torusd puts
        # the tree around the faults back (at once on the kernel's node
        # event, or at its audit within 5 s) and logs it
        victim = live[len(live) // 2]
        start = os.path.getsize(logs[victim])

        def tree_kind():
            js = tl.loads_strict(subprocess.run(
                [tl.TORUS, "-j", "-n", sc.rack.ns(victim), "coll", "tree",
                 "show", "dev", "tor0"], capture_output=True, text=True,
                check=True).stdout)
            return (js[0] if isinstance(js, list) else js)["tree"]

        def repaired():
            return "installing it again" in logged_since(victim, start)

        subprocess.run([tl.TORUS, "-n", sc.rack.ns(victim), "coll", "tree",
                        "set", "dev", "tor0", "default"], check=True)
        t0 = time.monotonic()
        while not repaired() or tree_kind() != "installed":
            assert time.monotonic() - t0 < 20, \
                "torusd did not put the tree back on %s" % tl.fmt(victim)
            time.sleep(0.2)
        back = time.monotonic() - t0
        return "trees around the faults on all %d survivors (root %s, " \
            "depth %d, fan-in %d at most); barrier and int64 sum (%d) " \
            "on all; a node list of %d survivors sums (%d) over torusd's " \
            "routes, 2 nodes dead; a tree reset by hand reinstalled by " \
            "torusd's audit after %.1f s; during the operations: %s; " \
            "run again after a tree change: %s" % (
                len(live), tl.fmt(roots[0]), depth,
                max(t["max_fan_in"] for t in trees.values()), want,
                len(members), list_want, back, during, retried or "none")

    @case("reroute_path_matches_kernel")
    def paths():
        """torus route path from one node to every survivor: each path
        walks hop by hop over live nodes and uncut cables to its
        destination, and its first hop, plan and vc are what the
        kernel's route get says."""
        src = PROBES[0]
        exp = {c: sc.iso.coord(c) for c in sc.rack.nodes}
        dims = sc.iso.dims()
        bad_nodes = {exp[c] for c in sc.dead}
        bad_cables = {frozenset((exp[c], exp[sc.rack.neighbor(c, a, neg)]))
                      for c, a, neg in sc.cut}
        dsts = [c for c in sc.live() if c != src]
        ns = sc.rack.ns(src)
        lines = []
        for c in dsts:
            d = tl.fmt(exp[c])
            lines += ["-n %s route path %s" % (ns, d),
                      "-n %s route get %s" % (ns, d),
                      "-n %s node show dev tor0" % ns]
        out = sc.rack.torus_batch(lines, json_out=True, force=True)
        wrong, kinds, moved = [], {}, 0
        for i, c in enumerate(dsts):
            path, get, node = out[3 * i:3 * i + 3]
            if not path or not get or not node:
                wrong.append((tl.fmt(c), "no answer"))
                continue
            # a flapping link state may have installed another set in
            # between, and a port may be down for a moment (a detour)
            if node[0]["routes_generation"] != path["generation"] or \
                    get["why"] == "detour":
                moved += 1
                continue
            kinds[path["kind"]] = kinds.get(path["kind"], 0) + 1
            at = tuple(exp[src])
            for h in path["hops"]:
                a, neg = tl.parse_dir(h["dir"])
                nxt = list(at)
                nxt[a] = (at[a] + (-1 if neg else 1)) % dims[a]
                nxt = tuple(nxt)
                if tuple(h["node"]) != at or nxt in bad_nodes or \
                        frozenset((at, nxt)) in bad_cables:
                    wrong.append((tl.fmt(c), "hop %s" % h))
                    break
                at = nxt
            else:
                if at != tuple(exp[c]):
                    wrong.append((tl.fmt(c), "ends at %s" % (at,)))
                elif path["hops"] and (
                        get["next_dir"] != path["hops"][0]["dir"] or
                        get["vc"] != path["hops"][0]["vc"] or
                        get["plan"] != path["hops"][0]["plan"]):
                    wrong.append((tl.fmt(c), "kernel %s/%s/%s, path %s" % (
                        get["next_dir"], get["plan"], get["vc"],
                        path["hops"][0])))
        assert not wrong, "%d paths wrong: %s" % (len(wrong), wrong[:3])
        assert moved < len(dsts) // 2, "%d of %d paths changed while " \
            "compared" % (moved, len(dsts))
        assert kinds.get("via"), "no via route to check: %s" % kinds
        via = next(c for i, c in enumerate(dsts)
                   if out[3 * i] and out[3 * i]["kind"] == "via")
        text = sc.rack.exec(src, [tl.TORUS, "route", "path",
                                  tl.fmt(exp[via])]).stdout
        log("torus route path %s:\n# " % tl.fmt(exp[via]) +
            text.strip().replace("\n", "\n# "))
        return "%d paths from %s: %s, %d not compared (routes changed)" % (
            len(dsts), tl.fmt(exp[src]), kinds, moved)

    @case("reroute_restore_releases_cable_routes")
    def restore():
        before = {ns: (o["routes"], o["routes_generation"])
                  for ns, o in lab.observe().items() if o}
        for cable in CUTS:
            sc.cut.discard(cable)
            sc.fault("restore", lambda cable=cable: sc.set_cable(cable,
                                                                 "up"))
        nodes = {ns: o for ns, o in lab.observe().items() if o}
        sts = {sc.rack.ns(c): sc.state(c)["routes"] for c in sc.live()}
        mismatch = [ns for ns, r in sts.items()
                    if nodes[ns]["routes"] != r["exceptions"]]
        stale = [ns for ns in sts
                 if nodes[ns]["routes_generation"] == before[ns][1]]
        lambs = [ns for ns, o in nodes.items() if o["role"] == "lamb"]
        exc = sum(nodes[ns]["routes"] for ns in sts)
        assert not mismatch, "kernel and torusd disagree on %s" % \
            mismatch[:4]
        assert not stale, "table generation unchanged on %s" % stale[:4]
        assert not lambs, "lambs left: %s" % lambs
        assert exc < sc.fig["exceptions_faulted"], \
            "%d exceptions, %d before" % (exc, sc.fig["exceptions_faulted"])
        sc.fig["exceptions_dead_only"] = exc
        sc.assert_goal(sc.fig["faults"][-3:])
        return "exceptions %d -> %d (what 2 dead nodes need), no lamb" % (
            sc.fig["exceptions_faulted"], exc)

    def restart_torusd(c, extra=(), env=None):
        """torusd of node c stopped (SIGTERM) and started again with
        extra arguments; its log goes to NS.LOG_NAME.log."""
        ns = sc.rack.ns(c)
        p = lab.procs.pop(ns)
        p.terminate()
        p.wait(30)
        with open(os.path.join(sc.run_dir, ns + ".log"), "a") as logf, \
                tl.netns(ns):
            lab.procs[ns] = subprocess.Popen(
                lab.daemon_args(lab.info[ns]) + list(extra),
                stdin=subprocess.DEVNULL, stdout=logf,
                stderr=subprocess.STDOUT, env=env)

    @case("reroute_torusd_refuses_a_cyclic_set")
    def refuse():
        """torusd restarted on a node with every plan in one virtual
        channel class (--test-one-channel-class), whose channel graph
        has cycles: it logs the refusal, says so in STATUS= and in the
        state file, and the kernel keeps the table the torusd before it
        installed (same exceptions, same generation)."""
        c = max(sc.live(), key=lambda c: (sc.state(c) or {}).get(
            "routes", {}).get("exceptions", 0))
        ns = sc.rack.ns(c)
        before = lab.observe()[ns]
        sock_path = os.path.join(sc.run_dir, "notify.sock")
        note = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        note.bind(sock_path)
        note.setblocking(False)
        log_path = os.path.join(sc.run_dir, ns + ".log")
        start = os.path.getsize(log_path)
        try:
            restart_torusd(c, ["--test-one-channel-class"],
                           dict(os.environ, NOTIFY_SOCKET=sock_path))
            deadline = time.monotonic() + REACH_TIMEOUT
            while True:
                st = sc.state(c)
                r = st and st.get("routes")
                if r and r["computed"] and r["refused"]:
                    break
                assert time.monotonic() < deadline, \
                    "no refusal in %s's state file after %.0f s: %s" % (
                        ns, REACH_TIMEOUT, r)
                time.sleep(0.1)
            after = lab.observe()[ns]
            status = []
            while True:
                try:
                    status += [ln for ln in note.recv(4096).decode()
                               .splitlines() if ln.startswith("STATUS=")]
                except BlockingIOError:
                    break
        finally:
            note.close()
            os.unlink(sock_path)
        with open(log_path) as f:
            f.seek(start)
            refusals = [ln for ln in f if "routes refused" in ln]
        restart_torusd(c)
        assert refusals and "[error]" in refusals[0], \
            "no error logged: %s" % refusals[:1]
        assert any("routes refused" in m for m in status), status[-3:]
        kept = {k: (before[k], after[k])
                for k in ("routes", "routes_generation")}
        assert all(b == a for b, a in kept.values()), \
            "the kernel's table changed: %s" % kept
        return "%s refused (%s); the kernel kept %d exceptions, " \
            "generation %d" % (ns, refusals[0].split("routes refused: ")[-1]
                               .split(":")[0], after["routes"],
                               after["routes_generation"])

    try:
        converge()
        if ok["up"]:
            calibrate()
            cut_restore()
            under_load()
            all_pairs()
            lambs()
            if not args.no_collectives:
                collectives()
            paths()
            restore()
            refuse()
    finally:
        if sc.prober:
            sc.prober.stop()
            if sc.prober.errors:
                log("prober: %s" % sc.prober.errors)
        if args.save:
            shutil.rmtree(args.save, ignore_errors=True)
            os.makedirs(args.save)
            for name in os.listdir(args.run_dir):
                if name.endswith((".log", ".json")):
                    shutil.copy(os.path.join(args.run_dir, name), args.save)
        if not args.keep:
            lab.destroy()
    worst = [f["reachable_s"] for f in sc.fig["faults"]]
    sc.fig["worst_reachable_s"] = max(worst) if worst else None
    print("# reroute figures: " + json.dumps(sc.fig, sort_keys=True),
          flush=True)
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)),
                    exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(sc.fig, f, sort_keys=True, indent=1)
    return 0 if results["fail"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
