#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""VM scenarios for discovery (runs inside the test VM).

torus-lab builds miswired racks with faults, writes the truth, runs
torusd on every live node and checks the result against the truth:
coordinates equal to the truth under one isometry, extents, wrap and
port maps right, unplaced nodes only next to faults, pings by the
discovered addresses.  Without torusd the daemon scenarios SKIP; the
wiring scenario (static configuration from the truth) always runs.
Prints PASS:/FAIL:/SKIP: lines for the aggregator.
"""

import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import (REPO, TORUS_KO, case, case_log_dir, results,  # noqa: E402
                    skip)
import torus_lab as tl  # noqa: E402

RUNS = "/run/torus-lab-test"


def summary(res):
    """One line on what went wrong, for FAIL messages."""
    out = []
    if not res.get("converged"):
        out.append("not converged")
    if res.get("inconsistent"):
        out.append("%d inconsistent, e.g. %s" % (
            len(res["inconsistent"]), res["inconsistent"][0]))
    if not res.get("dims_ok", True):
        out.append("dims %s wrap %s, expected %s %s" % (
            res.get("dims"), res.get("wrap"), res.get("expected_dims"),
            res.get("expected_wrap")))
    if res.get("portmaps_bad"):
        out.append("%d wrong port map entries, e.g. %s" % (
            len(res["portmaps_bad"]), res["portmaps_bad"][0]))
    bad = [u for u in res.get("unplaced", []) if not u["excused"]]
    if bad:
        out.append("%d unplaced away from faults, e.g. %s (%s: %s)" % (
            len(bad), bad[0]["ns"], bad[0]["state"], bad[0]["reason"]))
    if res.get("exited"):
        out.append("torusd exited: %s" % res["exited"][:3])
    if not res.get("placed"):
        out.append("nothing placed")
    return "; ".join(out) or "ok"


def save_logs(name, run_dir):
    """Daemon logs, state files and the truth of case lab_NAME's lab to
    labs.tar.gz in the case's log directory on the host (one file: many
    small ones over 9p are slow)."""
    try:
        d = case_log_dir("lab_" + name)
        os.makedirs(d, exist_ok=True)
        tmp = shutil.make_archive(os.path.join("/tmp", name), "gztar",
                                  run_dir)
        shutil.copy(tmp, os.path.join(d, "labs.tar.gz"))
        os.unlink(tmp)
    except OSError as e:
        print("# could not save logs of %s: %s" % (name, e))


def ensure_module():
    if subprocess.run("lsmod | grep -q '^torus '", shell=True).returncode:
        tl.run(["insmod", TORUS_KO])


# ---- without the daemon: the wiring the truth file describes ----

@case("lab_wiring_truth")
def check_wiring():
    """A miswired 4x3x2 rack with a dead node and a cut cable: every
    port's label, peer and carrier are those of the truth file; with
    coordinates and port maps set by hand from the truth, verify() finds
    the identity and every fault-free DOR path pings."""
    spec = tl.normalize_spec({"dims": "4x3x2", "wrap": "1,1,0",
                              "miswire": "nodes", "seed": 11,
                              "dead": "1", "cut": "1", "prefix": "w"})
    lab = tl.Lab(spec, run_dir=os.path.join(RUNS, "w"))
    try:
        t = time.monotonic()
        lab.build()
        tb = time.monotonic() - t
        nodes, ports = lab.observe(ports=True)
        truth = lab.truth
        dead = {tuple(c) for c in truth["dead"]}
        cut = {(c["ns"], c["port"]) for c in truth["cut"]}
        ends = {}
        for cab in truth["cables"]:
            a, b = cab["a"], cab["b"]
            ends[(a["ns"], a["port"])] = (a, b, cab["cut"])
            ends[(b["ns"], b["port"])] = (b, a, cab["cut"])
        checked = 0
        for nd in truth["nodes"]:
            got = {p["ifname"]: p for p in ports[nd["ns"]]}
            want = {k[1]: v for k, v in ends.items() if k[0] == nd["ns"]}
            assert sorted(got) == sorted(want), "%s: ports %s, want %s" % (
                nd["ns"], sorted(got), sorted(want))
            for name, (me, other, is_cut) in want.items():
                p = got[name]
                assert p["dir"] == me["label"], (nd["ns"], p, me)
                assert p["peer"] == other["port"], (nd["ns"], p, other)
                alive = not nd["dead"] and \
                    tuple(other["coord"]) not in dead and not is_cut
                assert p["carrier"] is alive, \
                    "%s %s: carrier %s, want %s" % (nd["ns"], name,
                                                     p["carrier"], alive)
                checked += 1
        assert cut and all(not got_p["carrier"] for got_p in
                           [next(p for p in ports[ns] if p["ifname"] == pn)
                            for ns, pn in cut])
        lab.rack.configure_static()
        res, nodes = lab.verify()
        assert res["ok"], summary(res)
        assert all(i["sign"] == 1 and i["offset"] == 0 and
                   i["axis"] == i["from"] for i in res["isometry"]), \
            res["isometry_text"]
        lab.add_static_addresses(nodes)
        pings = lab.ping_check(nodes, res)
        assert pings["must"] >= 10 and not pings["failed"], pings
        return "%d ports, %d/%d pings (%d must), build %.1f s" % (
            checked, pings["ok"], pings["pinged"], pings["must"], tb)
    finally:
        lab.destroy()


# ---- with torusd ----

def run_cli(name, args):
    """torus-lab run ARGS -j; returns its JSON result."""
    env = dict(os.environ, TORUS_LAB_DIR=RUNS)
    t0 = time.monotonic()
    res = subprocess.run([sys.executable, os.path.join(
        REPO, "tools", "lab", "torus-lab"), "run", "-j"] + args,
        capture_output=True, text=True, env=env, timeout=600)
    try:
        out = tl.loads_strict(res.stdout)
    except ValueError:
        raise AssertionError("torus-lab run: exit %d, no JSON: %s %s" % (
            res.returncode, res.stdout[-300:], res.stderr[-500:]))
    t1 = time.monotonic()
    if out.get("run_dir"):
        save_logs(name, out["run_dir"])
    print("# torus-lab run %.1f s, logs saved in %.1f s" % (
        t1 - t0, time.monotonic() - t1), flush=True)
    for k in ("converged", "seconds", "nodes", "placed", "unplaced",
              "consistent", "isometry", "dims", "wrap", "live"):
        assert k in out, "JSON result without %r" % k
    assert (res.returncode == 0) == out["ok"], "exit %d but ok=%s" % (
        res.returncode, out["ok"])
    return out


def describe(res):
    return "%d/%d placed in %.1f s, %s; phases %s" % (
        res["placed"], res["live"], res["seconds"] or 0,
        res.get("isometry_text"),
        " ".join("%s %.1f" % kv for kv in (res.get("phases") or {}).items()))


def ping_case(name, res, expect_all):
    @case(name)
    def check():
        p = res.get("ping")
        assert p, "no ping result"
        assert p["must"] > 0, "no destination with a fault-free path"
        assert not expect_all or p["must"] == res["live"] - 1, \
            "only %d of %d destinations checked" % (p["must"],
                                                    res["live"] - 1)
        assert not p["failed"], "%d of %d must-work pings failed: %s" % (
            len(p["failed"]), p["must"], " ".join(p["failed"][:8]))
        return "%d/%d ok, %d must work, %d more by detours" % (
            p["ok"], p["pinged"], p["must"], p["extra_ok"])
    check()


def blocks_rotated():
    """4x4x4 of 2x2x2 blocks, each mounted in a random rotation."""
    box = {}

    @case("lab_blocks_rotated")
    def check():
        res = box["res"] = run_cli("blocks_rotated", [
            "--dims", "4x4x4", "--block", "2x2x2", "--seed", "1",
            "--prefix", "b", "--ping"])
        assert res["ok"] or (res["converged"] and res["consistent"] and
                             res["dims_ok"] and not res["unexcused"] and
                             res.get("portmaps_ok")), summary(res)
        assert res["placed"] == 64 and not res["unplaced"], summary(res)
        return describe(res)
    if check() or "res" in box:
        ping_case("lab_blocks_rotated_ping_all", box["res"], True)


def flat_rotated(restart_all=False):
    """4x4x4, every node cabled in a random rotation or reflection; then
    the leader's torusd is killed: no coordinate may change; one daemon
    is restarted, and with @restart_all (make check-full) all of them."""
    spec = tl.normalize_spec({"dims": "4x4x4", "miswire": "nodes",
                              "seed": 2, "prefix": "f"})
    lab = tl.Lab(spec, run_dir=os.path.join(RUNS, "f"),
                 log=lambda m: print("# " + m, flush=True))
    box = {}
    # a daemon that runs again within this is never taken for dead
    window = (lab.spec["dead_timer"] - lab.spec["hello"]) / 1000.0

    @case("lab_flat_rotated")
    def check():
        ph, t = {}, time.monotonic()
        lab.build()
        ph["build"], t = time.monotonic() - t, time.monotonic()
        lab.start()
        ph["start"], t = time.monotonic() - t, time.monotonic()
        conv, secs, nodes = lab.wait()
        ph["wait"], t = time.monotonic() - t, time.monotonic()
        res, nodes = lab.verify(conv)
        ph["verify"], t = time.monotonic() - t, time.monotonic()
        res["seconds"], res["phases"] = secs, ph
        box["res"], box["nodes"] = res, nodes
        wrong = lab.wait_addresses(nodes)
        ph["addresses"] = time.monotonic() - t
        assert res["ok"], summary(res)
        assert not wrong, "plan addresses not as torusd should set " \
            "them on %d nodes, e.g. %s" % (len(wrong), sorted(
                wrong.items())[0])
        assert res["placed"] == 64, summary(res)
        return describe(res)

    @case("lab_flat_rotated_ping_all")
    def check_ping():
        p = lab.ping_check(box["nodes"], box["res"])
        assert p["must"] == 63 and not p["failed"], \
            "%d of %d failed: %s" % (len(p["failed"]), p["must"],
                                     " ".join(p["failed"][:8]))
        return "%d/%d ok" % (p["ok"], p["pinged"])

    @case("lab_leader_killed_coords_unchanged")
    def check_kill():
        k = lab.kill_leader()
        assert k["leader"], "no node has role leader"
        assert not k["changed"], "%d nodes changed after killing %s, " \
            "e.g. %s" % (len(k["changed"]), k["leader"], k["changed"][0])
        res, nodes = lab.verify()
        assert res["consistent"] and res["placed"] == 64, summary(res)
        p = lab.ping_check(nodes, res)
        assert not p["failed"], "after the kill, pings failed: %s" % \
            " ".join(p["failed"][:8])
        return "leader %s, watched %.0f s, %d/%d pings" % (
            k["leader"], k["seconds"], p["ok"], p["pinged"])

    def routes_generations(nodes=None):
        """Each node's count of installed route sets (None: no answer),
        from @nodes as observed, or from a new observation."""
        nodes = lab.observe() if nodes is None else nodes
        return {ns: o.get("routes_generation", 0) if o else None
                for ns, o in nodes.items()}

    def ping_loss(out):
        """From ping's output (not -q): the percentage lost, and which
        echoes went unanswered with the slowest answer: a gap in the
        middle is a loss, a tail answered too late for ping's last wait
        (a starved guest)."""
        loss = [w for w in out.split(",") if "packet loss" in w]
        sent = [w.split()[-3] for w in out.split(",") if "transmitted" in w]
        answers = [dict(w.split("=", 1) for w in line.split() if "=" in w)
                   for line in out.splitlines() if " bytes from " in line]
        got = {int(a["icmp_seq"]) for a in answers if "icmp_seq" in a}
        rtts = [float(a["time"]) for a in answers if "time" in a]
        lost = sorted(set(range(1, int(sent[0]) + 1)) - got) \
            if sent else "all"
        return (float(loss[0].split("%")[0]) if loss else 100.0,
                "echoes lost %s, slowest answer %.0f ms" % (
                    lost, max(rtts, default=0)))

    @case("lab_daemon_restarted_routes_kept")
    def check_restart_one():
        """One torusd restarted (SIGKILL) while its neighbors run: every
        cable of its node answers within the dead timer, so it reports
        none down and no other node installs new routes; it keeps the
        kernel's routes while its link state settles, then installs its
        own; a ping from its node meanwhile loses nothing.  That holds
        when it runs again within the dead timer less a hello; on a
        loaded machine it may not, and its silence is then a fault the
        fabric routes around: only the ping is checked (15% loss)."""
        src = lab.rack.ns((0, 0, 0))
        far = lab.rack.ns((2, 2, 2))
        target = tl.addr(box["nodes"][far]["coord"])
        gen0 = routes_generations()
        ping = subprocess.Popen(
            ["ip", "netns", "exec", src, "ping", "-n", "-i", "0.05",
             "-c", "100", "-W", "1", target],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(0.5)
        back = lab.restart(src, wait=True)
        timely = back is not None and back < window
        out, _ = ping.communicate(timeout=60)
        # twice the dead timer: settled, and its first set computed
        time.sleep(2 * lab.spec["dead_timer"] / 1000.0 + 1)
        gen1 = routes_generations()
        others = sorted(ns for ns in gen0 if ns != src and
                        gen0[ns] is not None and gen1[ns] != gen0[ns])
        pct, echoes = ping_loss(out)
        own = (gen1[src] - gen0[src]) % 2 ** 32
        assert own >= 1, "%s installed no route set" % src
        if not timely:
            assert pct <= 15.0, "ping lost %.1f%% during a restart " \
                "slower than the dead timer: %s; %s" % (
                    pct, out.strip().splitlines()[-2:], echoes)
            return "not checked: %s ran again after %s s, slower than " \
                "%.1f s; %d other nodes installed routes, %.1f%% ping " \
                "loss" % (src, "%.1f" % back if back else "> 30", window,
                          len(others), pct)
        assert not others, "%d other nodes installed routes after %s's " \
            "daemon restarted (running again after %.1f s), e.g. %s" % (
                len(others), src, back, others[0])
        assert own <= 2, "%s installed %d route sets" % (src, own)
        assert pct == 0.0, "ping lost %.1f%% during the restart: %s; %s" \
            % (pct, out.strip().splitlines()[-2:], echoes)
        return "0 of %d other nodes installed routes, %s %d, running " \
            "again after %.1f s; 0%% ping loss" % (len(gen0) - 1, src,
                                                   own, back)

    @case("lab_daemons_restarted_traffic_flows")
    def check_restart():
        """torusd holds nothing the kernel needs: every daemon stopped
        and started again while a ping runs loses (almost) nothing and
        moves nobody (when they are all running again within the dead
        timer; slower, their silence is a fault rerouted around, and
        back, losing at most 15%).  A restarted daemon keeps the kernel's routes
        while its link state settles: on this fault-free rack each node
        installs one route set after the restart, never one computed
        around cables that only had not spoken yet."""
        src = lab.rack.ns((0, 0, 0))
        far = lab.rack.ns((2, 2, 2))
        target = tl.addr(box["nodes"][far]["coord"])
        nodes = lab.observe()
        before = lab.signature(nodes)
        gen0 = routes_generations(nodes)
        drops0 = lab.drop_counts()
        port_drops0 = lab.drop_counts(ports=True)
        ping = subprocess.Popen(
            ["ip", "netns", "exec", src, "ping", "-n", "-i", "0.05",
             "-c", "200", "-W", "1", target],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(1)
        # SIGKILL: a clean exit would take the node's addresses away
        lab.stop(signal.SIGKILL)
        lab.start()
        running = lab.wait_running()
        conv, _, _ = lab.wait()
        out, _ = ping.communicate(timeout=60)
        nodes = lab.observe()
        after = lab.signature(nodes)
        gen1 = routes_generations(nodes)
        installs = {ns: (gen1[ns] - gen0[ns]) % 2 ** 32
                    for ns in gen1 if gen0[ns] is not None and
                    gen1[ns] is not None}
        moved = [ns for ns in before if before[ns] != after[ns]]
        pct, echoes = ping_loss(out)
        assert conv, "not converged after the restart"
        assert not moved, "%d nodes changed, e.g. %s: %s -> %s" % (
            len(moved), moved[0], before[moved[0]], after[moved[0]])
        # a daemon still silent when a neighbor's settling ends is
        # reported down, rightly: only daemons all running within one
        # dead timer less a hello show that no silence is taken for a
        # fault
        started = running if running is not None else float("inf")
        def grown(before, after, prefix=""):
            return {prefix + k: n - before.get(k, 0)
                    for k, n in after.items() if n > before.get(k, 0)}

        drops = grown(drops0, lab.drop_counts())
        # the cables' own drops (a full receive buffer) besides tor0's
        drops.update(grown(port_drops0, lab.drop_counts(ports=True), "port_"))
        churned = sorted(ns for ns, n in installs.items() if n > 1)
        assert started >= window or not churned, \
            "%d nodes installed more than one route set, e.g. %s: %d " \
            "(all running in %.1f s; fabric drops %s, ping %s)" % (
                len(churned), churned[0], installs[churned[0]], started,
                drops, out.strip().splitlines()[-2:])
        # slower than the dead timer, silent daemons are faults the
        # fabric reroutes around (and back): a second or so of loss, not
        # more (1.5 s of 10)
        allowed = 2.0 if started < window else 15.0
        assert pct <= allowed, "ping lost %.1f%% during the restart: %s; " \
            "%s; fabric drops %s; all running in %.1f s, at most %d " \
            "route sets installed on a node" % (
                pct, out.strip().splitlines()[-2:], echoes, drops, started,
                max(installs.values(), default=0))
        return "%.1f%% ping loss over the restart of %d daemons, " \
            "all running in %.1f s; route sets installed per node: %d at " \
            "most%s; fabric drops %s; %s" % (
                pct, len(lab.procs), started,
                max(installs.values(), default=0),
                "" if started < window else
                " (not checked: slower than %.1f s)" % window, drops or 0,
                echoes)

    try:
        check()
        if "res" in box and box["res"]["placed"]:
            check_ping()
            check_kill()
            check_restart_one()
            if restart_all:
                check_restart()
    finally:
        lab.destroy()
        save_logs("flat_rotated", lab.run_dir)


def flat_faults():
    """The same rack with 2 dead nodes and 3 cut cables."""
    box = {}

    @case("lab_flat_faults")
    def check():
        res = box["res"] = run_cli("flat_faults", [
            "--dims", "4x4x4", "--miswire", "nodes", "--seed", "2",
            "--dead", "2", "--cut", "3", "--prefix", "g", "--ping"])
        ok = res["converged"] and res["consistent"] and res["dims_ok"] \
            and not res["unexcused"] and res.get("portmaps_ok")
        assert ok, summary(res)
        assert res["live"] == 62, res["live"]
        return describe(res) + ", unplaced: %s" % (
            ", ".join("%s (%s)" % (u["ns"], u["reason"])
                      for u in res["unplaced"]) or "none")
    if check() or "res" in box:
        ping_case("lab_flat_faults_ping_all", box["res"], False)


# make check-full's: "faults" (make check discovers a rack with the
# same faults once, in tests/vm/daemon_test.py's faulty rack) and
# "restart", "flat" with every daemon restarted at the end (64 daemons
# restarted at once under TCG take 45-50 s to run again, longer than
# the dead timer, so the case can check only the ping loss then)
DEFAULT = ("wiring", "blocks", "flat")


def main(argv):
    """discovery_test.py [wiring|blocks|flat|faults|restart ...]
    (default: wiring blocks flat)"""
    t0 = time.monotonic()
    want = list(argv or DEFAULT)
    restart_all = "restart" in want
    if restart_all and "flat" not in want:
        want.append("flat")
    ensure_module()
    if "wiring" in want:
        check_wiring()
    daemon = {"blocks": blocks_rotated,
              "flat": lambda: flat_rotated(restart_all),
              "faults": flat_faults}
    if not tl.find_torusd():
        names = {"blocks": ["lab_blocks_rotated"],
                 "flat": ["lab_flat_rotated",
                          "lab_leader_killed_coords_unchanged"],
                 "restart": ["lab_daemons_restarted_traffic_flows"],
                 "faults": ["lab_flat_faults"]}
        for k, cases in names.items():
            for name in cases if k in want else []:
                skip(name, "torusd not built (make -C daemon)")
    else:
        for k in ("blocks", "flat", "faults"):
            if k in want:
                daemon[k]()
    print("# discovery scenarios: %.1f s" % (time.monotonic() - t0),
          flush=True)
    return 0 if results["fail"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
