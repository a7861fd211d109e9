#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""VM scenarios of torusd itself (runs inside the test VM).

* A 4x4x4 rack, every node cabled in its own rotation, with dead nodes
  and cut cables: torusd gives every placed node its plan addresses (and
  nobody else adds any); every placed node pings every other placed node
  whose dimension-ordered path the faults leave; the neighbor table is
  served to "torus neighbor show"; a cable replugged into the wrong node
  is left out of the port map and what goes that way is counted as
  no_port; after the leader's node and daemon die, SIGHUP to every daemon
  with a changed timer moves nobody.
* A three-node line: a rediscovery (SIGUSR1) under a new leader renumbers
  the line and the addresses follow; a node whose kernel placement goes
  loses them.  Then the line again, every torusd started with
  daemon/torusd@.service's credentials (a user of its own, as
  DynamicUser= allocates, with CAP_NET_ADMIN and CAP_NET_RAW alone, and
  /run/torusd made its): placed alike, no capability warning, only the
  two capabilities left, and root's "torus neighbor show" answered.
* Lifecycle: start-up errors reach the caller of a daemonizing torusd,
  -f logs with <N> priorities, the daemon exits once when torus.ko is
  unloaded.
* Wake-ups: a fault-free 4x4x4 rack, sleeping (default) against
  --no-sleep, counted from the daemons' voluntary context switches.

Prints PASS:/FAIL:/SKIP: lines for the aggregator.  Run alone:
tests/vm/run -- python3 tests/vm/daemon_test.py [rack line life sleep]
"""

import concurrent.futures
import json
import os
import re
import select
import signal
import socket
import stat
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import REPO, TORUS_KO, case, results, skip  # noqa: E402
import torus_lab as tl  # noqa: E402

RUNS = "/run/torus-daemon-test"
FIGURES = os.path.join(REPO, "build", "vm", "daemon.json")
figures = {}


def torus(ns, *args):
    return tl.run(["torus", "-n", ns] + list(args)).stdout


def torus_json(ns, *args):
    return tl.loads_strict(tl.run(["torus", "-n", ns, "-j"] +
                                  list(args)).stdout)


def ensure_module():
    if subprocess.run("lsmod | grep -q '^torus '", shell=True).returncode:
        tl.run(["insmod", TORUS_KO])


def lab_log(msg):
    print("# " + msg, flush=True)


def torusd_ctl_path(dev="tor0"):
    """torusd's control socket for DEV in the current network namespace
    (lib/ctlsock.h): /run/torusd/ctl-NETNS-DEV."""
    ino = os.stat("/proc/thread-self/ns/net").st_ino
    return "/run/torusd/ctl-%d-%s" % (ino, dev)


def ask_torusd(ns, req, dev="tor0"):
    """torusd's answer to REQ on its socket /run/torusd/ctl-NETNS-DEV in
    namespace ns: {key: value} of the words after "ok".  The reply must
    come from a root process (SCM_CREDENTIALS), as the torus tool wants."""
    def ask():
        path = torusd_ctl_path(dev)
        st = os.lstat(path)
        assert stat.S_ISSOCK(st.st_mode) and st.st_uid == 0 and \
            not st.st_mode & 0o002, "%s is not torusd's" % path
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
            s.settimeout(5)
            s.connect(path)
            s.send(req.encode())
            data, anc, _, _ = s.recvmsg(65536, socket.CMSG_SPACE(12))
            creds = [struct.unpack("iII", d[:12]) for lvl, typ, d in anc
                     if lvl == socket.SOL_SOCKET and
                     typ == socket.SCM_CREDENTIALS]
            assert creds and creds[0][1] == 0, \
                "reply on %s not from root: %s" % (path, creds)
            return data.decode()
        finally:
            s.close()
    # a daemon just started answers once it has bound its socket: the
    # kernel may already show the placement a restart resumes
    for attempt in range(50):
        try:
            with tl.netns(ns):
                text = ask()
            break
        except (ConnectionRefusedError, FileNotFoundError):
            if attempt == 49:
                raise
            time.sleep(0.2)
    lines = text.splitlines()
    assert lines and lines[0] == "ok", text
    return dict(w.split("=", 1) for ln in lines[1:] for w in ln.split())


def cpu_ticks(pids):
    total = 0
    for pid in pids:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])     # utime + stime
    return total


def wakeups_per_s(lab, secs):
    """Wake-ups per second of all the rack's daemons, as they count them
    (epoll_wait returns, and those for the timer), and their CPU share."""
    nss = sorted(lab.procs)
    pids = [lab.procs[ns].pid for ns in nss]
    a = [ask_torusd(ns, "stats") for ns in nss]
    c0, t0 = cpu_ticks(pids), time.monotonic()
    time.sleep(secs)
    b = [ask_torusd(ns, "stats") for ns in nss]
    c1, t1 = cpu_ticks(pids), time.monotonic()
    dt = t1 - t0

    def rate(key):
        return sum(int(y[key]) - int(x[key]) for x, y in zip(a, b)) / dt
    return {"wakeups": round(rate("wakeups"), 1),
            "timer_wakeups": round(rate("timer_wakeups"), 1),
            "ticks": round(rate("ticks"), 1),
            "cpu": round((c1 - c0) / os.sysconf("SC_CLK_TCK") / dt, 3)}


# ---- the faulty rack ----

def faulty_rack():
    os.makedirs(os.path.join(RUNS, "a"), exist_ok=True)
    conf = os.path.join(RUNS, "a", "torusd.conf")
    with open(conf, "w") as f:
        f.write("# rewritten by the reload case\n")
    spec = tl.normalize_spec({"dims": "4x4x4", "miswire": "nodes",
                              "seed": 5, "dead": "2", "cut": "3",
                              "prefix": "a", "daemon_args": "-c " + conf})
    lab = tl.Lab(spec, run_dir=os.path.join(RUNS, "a"), log=lab_log)
    box = {}

    @case("daemon_addresses_by_plan_after_faults")
    def addresses():
        lab.build()
        lab.start()
        conv, secs, nodes = lab.wait()
        res, nodes = lab.verify(conv)
        box["res"], box["nodes"] = res, nodes
        # what the truth says: converged, consistent, the extents and
        # wrap found, every unplaced node next to a fault, the port
        # maps torusd installed right (torus-lab(8), JSON RESULT)
        assert res["ok"], "converged %s, consistent %s, dims_ok %s, " \
            "%d placed, unexcused %s, port maps wrong %s" % (
                conv, res.get("consistent"), res.get("dims_ok"),
                res["placed"], res.get("unexcused"),
                res.get("portmaps_bad"))
        assert res["live"] == 62 and res["placed"], \
            "%d live, %d placed" % (res["live"], res["placed"])
        # torusd alone: the lab adds no address in a run with daemons
        wrong = lab.wait_addresses(nodes)
        assert not wrong, "%d nodes without exactly their plan " \
            "addresses, e.g. %s" % (len(wrong), sorted(wrong.items())[0])
        unplaced = [u["ns"] for u in res["unplaced"]]
        return "%d placed, %d unplaced (%s), 2 dead, 3 cut; converged " \
            "in %.1f s" % (res["placed"], len(unplaced),
                           " ".join(unplaced) or "none", secs)

    @case("daemon_addresses_all_pairs_ping")
    def all_pairs():
        res, nodes = box["res"], box["nodes"]
        placed = [c for c in lab.live
                  if (nodes.get(lab.rack.ns(c)) or {}).get("state") ==
                  "placed"]
        must = ok = 0
        failed = []
        # a few sources at a time: each waits for its echoes
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            for p in pool.map(lambda c: lab.ping_check(nodes, res, src=c),
                              placed):
                must += p["must"]
                ok += p["must"] - len(p["failed"])
                failed += ["%s->%s" % (p["from"], f) for f in p["failed"]]
        figures["all_pairs"] = {"sources": len(placed), "must": must,
                                "ok": ok}
        if failed:
            srcs = sorted({f.split("->")[0] for f in failed})
            print("# failing sources: %s" % " ".join(srcs), flush=True)
            for ns in sorted(lab.procs):
                with open(os.path.join(lab.run_dir, ns + ".log")) as f:
                    for ln in f:
                        if "does not serve" in ln or "refused" in ln:
                            print("# %s: %s" % (ns, ln.strip()), flush=True)
            for ns in srcs[:3]:
                print("# %s neighbors:\n%s" % (
                    ns, torus(ns, "neighbor", "show")), flush=True)
                print("# %s ports:\n%s" % (
                    ns, torus(ns, "port", "show")), flush=True)
        assert must > len(placed) * 30, "only %d pairs must work" % must
        assert not failed, "%d of %d pairs failed: %s" % (
            len(failed), must, " ".join(failed[:6]))
        return "%d sources, %d/%d pairs whose path the faults leave" % (
            len(placed), ok, must)

    @case("daemon_neighbor_show")
    def neighbors():
        nodes = box["nodes"]
        ns = next(lab.rack.ns(c) for c in lab.live
                  if nodes[lab.rack.ns(c)]["state"] == "placed")
        table = torus_json(ns, "neighbor", "show", "dev", "tor0")
        assert len(table) == 6, table
        resolved = [n for n in table if n["status"] == "resolved"]
        assert resolved, table
        for n in resolved:
            assert n["id"] != "0" and n["carrier"] and \
                n["serves"] == n["want"] and n["refused"] is None, n
        text = torus(ns, "neighbor", "show")
        assert len(text.strip().splitlines()) == 6, text
        with open(os.path.join(lab.run_dir, ns + ".state.json")) as f:
            state = tl.loads_strict(f.read())
        assert len(state["neighbors"]) == 6, state
        return "%s: %d of 6 cables resolved" % (ns, len(resolved))

    @case("daemon_wrong_node_cable_not_mapped")
    def wrong_node():
        """Replug a cable of A (to B) into C, two hops away: A must not
        serve that direction with it; a ping from A to B never leaves by
        it: torus.ko takes a local detour round the unmapped port (or,
        with no way round, drops it as no_port), or torusd's routes,
        which know the cable is down, route it round (an exception),
        instead of reaching C."""
        nodes = box["nodes"]
        rack = lab.rack
        cut = {(c, a, n) for c, a, n in rack.cut}
        cut |= {(rack.neighbor(c, a, n), a, not n) for c, a, n in rack.cut}

        def healthy(c):
            return c in lab.live and \
                nodes[rack.ns(c)]["state"] == "placed" and \
                all(rack.neighbor(c, ax, ng) in lab.live and
                    (c, ax, ng) not in cut
                    for ax in range(3) for ng in (False, True))
        a = next(c for c in lab.live if healthy(c) and
                 healthy(rack.neighbor(c, 0, False)) and
                 healthy(rack.neighbor(rack.neighbor(c, 0, False), 0,
                                       False)) and
                 healthy(rack.neighbor(rack.neighbor(rack.neighbor(
                     c, 0, False), 0, False), 1, False)))
        b = rack.neighbor(a, 0, False)
        c = rack.neighbor(rack.neighbor(b, 0, False), 1, False)
        d = rack.neighbor(c, 0, True)     # C's cable toward -x ends there
        pa, pc = rack.port(a, 0, False), rack.port(c, 0, True)
        la, lc = rack.label(a, 0, False), rack.label(c, 0, True)
        ns_a, ns_b, ns_c = rack.ns(a), rack.ns(b), rack.ns(c)
        b_addr = tl.addr(nodes[ns_b]["coord"])
        before = torus_json(ns_a, "-s", "node", "show", "dev", "tor0")[0]
        # unplug A's +x cable and C's -x cable, plug A into C
        tl.run(["torus", "-n", ns_a, "link", "del", pa])
        tl.run(["torus", "-n", ns_c, "link", "del", pc])
        tl.run(["torus", "link", "add", pa, "dir", tl.dir_name(*la),
                "netns", ns_a, "master", "tor0", "peer", pc, "dir",
                tl.dir_name(*lc), "netns", ns_c, "master", "tor0"])
        tl.in_netns(ns_a, lambda nl: nl.link_up(pa))
        tl.in_netns(ns_c, lambda nl: nl.link_up(pc))
        hold = (lab.spec["dead_timer"] + 2 * lab.spec["quiet"]) / 1000.0 + 3
        t0 = time.monotonic()
        ports = []
        while time.monotonic() - t0 < hold:
            time.sleep(1)
            ports = {p["ifname"]: p for p in
                     torus_json(ns_a, "port", "show", "dev", "tor0")}
        gd = ports[pa].get("global_dir")
        assert gd in (None, "none"), "%s: A's replugged port %s serves " \
            "%s" % (ns_a, pa, gd)
        table = {n["port"]: n for n in
                 torus_json(ns_a, "neighbor", "show", "dev", "tor0")}
        assert table[pa]["refused"] or table[pa]["status"] in \
            ("unresolved", "conflict", "none"), table[pa]
        oks = tl.ping_many(ns_a, [b_addr], tries=2, wait=1.0)
        routed = torus_json(ns_a, "route", "get", tl.fmt(
            nodes[ns_b]["coord"])).get("exception", False)
        after = torus_json(ns_a, "-s", "node", "show", "dev", "tor0")[0]
        grew = after["stats"]["drop"].get("no_port", 0) - \
            before["stats"]["drop"].get("no_port", 0)
        detoured = after["stats"].get("detours", 0) - \
            before["stats"].get("detours", 0)
        assert grew >= 1 or detoured >= 1 or routed, "neither a detour, " \
            "a no_port drop nor an exception: %s" % after["stats"]
        assert not oks[b_addr] or detoured >= 1 or routed, \
            "ping %s -> %s (%s) answered without a detour or an " \
            "exception: over a cable into the wrong node" % (
                ns_a, ns_b, b_addr)
        box["moved_cable"] = (ns_a, ns_c, ns_b, rack.ns(d))
        return "%s +x into %s: port unmapped (%s, %s), ping to %s %s, " \
            "detours +%d, no_port +%d, exception %s" % (
                ns_a, ns_c, table[pa]["status"], table[pa]["refused"],
                ns_b, "answered" if oks[b_addr] else "dropped", detoured,
                grew, routed)

    @case("daemon_reload_resumes_after_leader_died")
    def reload_resumes():
        """The leader's node and daemon die; every other daemon gets a
        SIGHUP with a changed timer: nobody moves (a reload that
        restarted discovery without resuming the kernel's placement
        would renumber the fabric under a new leader)."""
        before = lab.observe()
        leader = next(ns for ns, o in before.items()
                      if o and o.get("role") == "leader" and
                      ns in lab.procs)
        lab.procs[leader].send_signal(signal.SIGKILL)
        lab.procs[leader].wait()
        lab.killed.add(leader)
        coord = next(c for c in lab.live if lab.rack.ns(c) == leader)
        for ax in range(3):
            for ng in (False, True):
                subprocess.run(["torus", "-n", leader, "cable", "set",
                                lab.rack.port(coord, ax, ng), "down"],
                               capture_output=True)
        time.sleep((lab.spec["dead_timer"] + lab.spec["quiet"]) / 1000.0
                   + 2)
        want = lab.signature(lab.observe())
        with open(os.path.join(lab.run_dir, "torusd.conf"), "w") as f:
            f.write("orient = 1234\n")
        others = [ns for ns, p in lab.procs.items()
                  if ns != leader and p.poll() is None]
        for ns in others:
            lab.procs[ns].send_signal(signal.SIGHUP)
        hold = 2 * (lab.spec["dead_timer"] + lab.spec["quiet"]) / 1000.0 + 3
        t0, changed = time.monotonic(), {}
        while time.monotonic() - t0 < hold:
            time.sleep(1)
            got = lab.signature(lab.observe())
            for ns in others:
                # becoming a lamb (torusd's routes round the dead
                # leader) is no move
                if got[ns] and want[ns] and got[ns][1] == "lamb":
                    got[ns] = (got[ns][0], want[ns][1]) + got[ns][2:]
                if got[ns] != want[ns] and ns not in changed:
                    changed[ns] = (want[ns], got[ns])
        logs = 0
        for ns in others:
            with open(os.path.join(lab.run_dir, ns + ".log")) as f:
                logs += "settings changed: restarting" in f.read()
        assert logs == len(others), "%d of %d daemons restarted " \
            "discovery on SIGHUP" % (logs, len(others))
        assert not changed, "%d of %d nodes moved after the reload, " \
            "e.g. %s: %s" % (len(changed), len(others),
                             *sorted(changed.items())[0])
        return "leader %s dead; %d daemons reloaded, watched %.0f s, " \
            "none moved" % (leader, len(others), hold)

    try:
        if addresses():
            all_pairs()
            neighbors()
            wrong_node()
            reload_resumes()
    finally:
        lab.destroy()


# ---- a three-node line: renumbering and unplacing ----

LINE = ("l0", "l1", "l2")


def line_daemon(ns, logf):
    conf = os.path.join(RUNS, ns + ".conf")
    with tl.netns(ns):
        return subprocess.Popen(
            # timers a starved VM (TCG, other jobs) does not trip over
            ["torusd", "-i", "tor0", "-f", "-c", conf, "--axes", "1",
             "--tick", "50", "--hello", "250", "--dead", "1500",
             "--quiet", "750", "--state-file",
             os.path.join(RUNS, ns + ".state.json")],
            stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT)


def line_coords():
    out = {}
    for ns in LINE:
        o = torus_json(ns, "node", "show", "dev", "tor0")[0]
        out[ns] = tuple(o["coord"]) if o["state"] == "placed" else None
    return out


def line_addrs(ns):
    return sorted(a for a in tl.in_netns(ns, lambda nl: nl.addr_list(
        "tor0")) if tl.in_plan(a))


def wait_for(pred, secs):
    t0 = time.monotonic()
    while time.monotonic() - t0 < secs:
        if pred():
            return True
        time.sleep(0.3)
    return pred()


UNIT = os.path.join(REPO, "daemon", "torusd@.service")
# a uid as DynamicUser= allocates one (61184-65519), unused in the VM
UNIT_UID = 63001
CTL_DIR = "/run/torusd"


def unit_service():
    """The [Service] settings of daemon/torusd@.service: {key: value}
    (the last assignment of each)."""
    out, section = {}, None
    with open(UNIT) as f:
        for ln in f:
            ln = ln.strip()
            if not ln or ln[0] in "#;":
                continue
            if ln.startswith("["):
                section = ln
            elif section == "[Service]":
                k, v = ln.split("=", 1)
                out[k] = v
    return out


def unit_argv(ns, uid):
    """torusd on tor0 as the unit starts it: its ExecStart, run by
    setpriv with the unit's user (uid), ambient capabilities, bounding
    set and no_new_privs.  The state file is the unit's, one per
    namespace here (the instances of the VM share /run)."""
    u = unit_service()
    assert u.get("DynamicUser") == "yes" or u.get("User"), \
        "the unit runs torusd as root"

    def caps(key):
        return ",".join("+" + c.lower()[len("cap_"):]
                        for c in u[key].split())
    ambient = caps("AmbientCapabilities")
    argv = u["ExecStart"].split()
    argv[0] = "torusd"
    argv = [a.replace("/%I.json", "/%s-%%I.json" % ns).replace(
        "%I", "tor0") for a in argv]
    return (["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid,
             "--clear-groups", "--inh-caps=" + ambient,
             "--ambient-caps=" + ambient,
             "--bounding-set=-all," + caps("CapabilityBoundingSet")] +
            (["--no-new-privs"] if u.get("NoNewPrivileges") == "yes"
             else []) + argv, int(u.get("UMask", "0022"), 8))


def proc_status(pid):
    with open("/proc/%d/status" % pid) as f:
        return dict(ln.rstrip("\n").split(":\t", 1) for ln in f
                    if ":\t" in ln)


def chown_tree(path, uid):
    """what systemd does to RuntimeDirectory= for User=: the directory
    and all in it made the user's"""
    for root, dirs, files in os.walk(path):
        for n in dirs + files:
            os.lchown(os.path.join(root, n), uid, uid)
    os.chown(path, uid, uid)


def line():
    """l0 -x|+x l1 -x|+x l2, l2 cabled mirrored (its +x toward l1), as a
    mesh: which end is 0 depends on the leader's orientation."""
    os.makedirs(RUNS, exist_ok=True)
    procs = {}
    ids = {"l0": 3, "l1": 2, "l2": 1}

    def write_ids():
        for ns in LINE:
            with open(os.path.join(RUNS, ns + ".conf"), "w") as f:
                f.write("id = %d\n" % ids[ns])

    def build():
        for ns in LINE:
            tl.run(["ip", "netns", "add", ns])
            tl.run(["ip", "-n", ns, "link", "add", "tor0", "type", "torus"])
        for cmd in ("link add a0 dir +x netns l0 master tor0 peer a1 dir -x "
                    "netns l1 master tor0",
                    "link add b1 dir +x netns l1 master tor0 peer b2 dir +x "
                    "netns l2 master tor0"):
            tl.run(["torus"] + cmd.split())
        for ns, ports in (("l0", ["a0"]), ("l1", ["a1", "b1"]),
                          ("l2", ["b2"])):
            tl.in_netns(ns, lambda nl, ports=ports: [
                nl.link_up(p) for p in ["lo", "tor0"] + ports])

    def teardown():
        """the line's torusd killed, its namespaces deleted"""
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
        for ns in LINE:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)

    @case("daemon_rediscovery_replaces_addresses")
    def renumber():
        build()
        # nobody to ask yet: the command says so instead of vanishing
        r = subprocess.run(["torus", "-n", "l0", "node", "rediscover",
                            "dev", "tor0"], capture_output=True, text=True)
        assert r.returncode != 0 and "no daemon" in r.stderr, r
        write_ids()
        for ns in LINE:
            procs[ns] = line_daemon(ns, open(os.path.join(
                RUNS, ns + ".log"), "w"))
        assert wait_for(lambda: None not in line_coords().values(), 30), \
            "not placed: %s" % line_coords()
        first = line_coords()
        assert first == {"l0": (0,), "l1": (1,), "l2": (2,)}, first
        assert wait_for(lambda: line_addrs("l0") == sorted(
            tl.plan_addresses((0,))), 5), line_addrs("l0")
        # new ids (none the old leader's): l2 leads.  A reload resumes
        # (nobody moves) ...
        ids.update({"l0": 1, "l2": 4})
        write_ids()
        for p in procs.values():
            p.send_signal(signal.SIGHUP)
        time.sleep(2)
        assert line_coords() == first, "reload moved: %s" % line_coords()
        # ... a rediscovery of every node at once starts afresh: l2's frame
        # numbers from its end.  (One node rediscovering alone rejoins the
        # placed frame; that is the tool's case below.)  "At once": the
        # cables are down until all three have taken the signal, so that
        # none rejoins the old frame of one a starved guest let lag.
        for ns, port in (("l0", "a0"), ("l1", "b1")):
            tl.run(["torus", "-n", ns, "cable", "set", port, "down"])
        for p in procs.values():
            p.send_signal(signal.SIGUSR1)

        def signalled():
            for ns in LINE:
                with open(os.path.join(RUNS, ns + ".log")) as f:
                    if "SIGUSR1: rediscovering" not in f.read():
                        return False
            return True
        assert wait_for(signalled, 10), "SIGUSR1 not taken by all"
        for ns, port in (("l0", "a0"), ("l1", "b1")):
            tl.run(["torus", "-n", ns, "cable", "set", port, "up"])
        assert wait_for(lambda: line_coords() == {
            "l0": (2,), "l1": (1,), "l2": (0,)}, 30), line_coords()
        ok = wait_for(lambda: line_addrs("l0") == sorted(
            tl.plan_addresses((2,))) and line_addrs("l2") == sorted(
            tl.plan_addresses((0,))), 10)
        assert ok, "addresses l0 %s l2 %s" % (line_addrs("l0"),
                                              line_addrs("l2"))
        # asked by the tool, through the module: l0 rediscovers alone and
        # finds its place again in the placed frame
        tl.run(["torus", "-n", "l0", "node", "rediscover", "dev", "tor0"])
        def asked():
            with open(os.path.join(RUNS, "l0.log")) as f:
                return "torus node rediscover: rediscovering" in f.read()
        assert wait_for(asked, 5), "l0 was not asked"
        assert wait_for(lambda: line_coords() == {
            "l0": (2,), "l1": (1,), "l2": (0,)}, 30), line_coords()
        return "l0 0 -> 2, l2 2 -> 0: %s" % " ".join(line_addrs("l0"))

    @case("daemon_unplaced_node_loses_addresses")
    def unplace():
        assert line_addrs("l2"), "l2 has no address to lose"
        # cut off and rediscovering: the kernel keeps forwarding, and the
        # addresses of its placement
        tl.run(["torus", "-n", "l2", "cable", "set", "b2", "down"])
        procs["l2"].send_signal(signal.SIGUSR1)
        time.sleep(2)
        kept = line_addrs("l2")
        assert kept == sorted(tl.plan_addresses((0,))), kept
        # its placement taken away: the addresses go
        tl.run(["torus", "-n", "l2", "node", "set", "dev", "tor0",
                "state", "discovering"])
        assert wait_for(lambda: not line_addrs("l2"), 10), line_addrs("l2")
        # l1 exits cleanly: its addresses go, the kernel keeps placed
        procs["l1"].send_signal(signal.SIGTERM)
        procs["l1"].wait(timeout=10)
        assert not line_addrs("l1"), line_addrs("l1")
        assert line_coords()["l1"] == (1,), line_coords()
        return "l2: kept while its kernel was placed, removed when not; " \
            "l1: removed on SIGTERM"

    @case("daemon_runs_as_unit_user")
    def unit_user():
        """the line afresh, each torusd as torusd@.service runs it"""
        teardown()
        build()
        ids.update({"l0": 3, "l1": 2, "l2": 1})
        write_ids()
        # RuntimeDirectory=torusd, RuntimeDirectoryMode=0755, the user's
        os.makedirs(CTL_DIR, exist_ok=True)
        chown_tree(CTL_DIR, UNIT_UID)
        os.chmod(CTL_DIR, 0o755)
        for ns in LINE:
            argv, umask = unit_argv(ns, UNIT_UID)
            argv += ["-c", os.path.join(RUNS, ns + ".conf"), "--axes", "1",
                     "--tick", "50", "--hello", "250", "--dead", "1500",
                     "--quiet", "750", "--pidfile",
                     os.path.join(CTL_DIR, ns + "-tor0.pid")]
            with tl.netns(ns):
                procs[ns] = subprocess.Popen(
                    argv, stdin=subprocess.DEVNULL, umask=umask,
                    stdout=open(os.path.join(RUNS, ns + ".unit.log"), "w"),
                    stderr=subprocess.STDOUT)
        assert wait_for(lambda: None not in line_coords().values(), 30), \
            "not placed: %s" % line_coords()
        assert line_coords() == {"l0": (0,), "l1": (1,), "l2": (2,)}, \
            line_coords()
        for ns in LINE:
            p = procs[ns]
            assert p.poll() is None, "%s: torusd exited %s" % (ns, p.poll())
            st = proc_status(p.pid)
            assert st["Uid"].split() == [str(UNIT_UID)] * 4, st["Uid"]
            caps = {k: int(st[k], 16) for k in
                    ("CapEff", "CapPrm", "CapInh", "CapAmb", "CapBnd")}
            # CAP_NET_ADMIN 12 | CAP_NET_RAW 13; nothing for what it execs
            assert caps["CapEff"] == caps["CapPrm"] == 0x3000 and \
                not caps["CapInh"] and not caps["CapAmb"] and \
                caps["CapBnd"] == 0x3000, "%s: %s" % (ns, caps)
            with open(os.path.join(RUNS, ns + ".unit.log")) as f:
                log = f.read()
            assert "capabilit" not in log.lower(), log
            for path in (CTL_DIR + "/%s-tor0.json" % ns,
                         CTL_DIR + "/%s-tor0.pid" % ns):
                assert wait_for(lambda: os.path.exists(path), 5), path
                assert os.stat(path).st_uid == UNIT_UID, path
            with open(CTL_DIR + "/%s-tor0.pid" % ns) as f:
                assert int(f.read()) == p.pid
        # root's tool trusts the owner of /run/torusd
        with tl.netns("l1"):
            sock = torusd_ctl_path()
        assert os.stat(sock).st_uid == UNIT_UID, sock
        table = torus_json("l1", "neighbor", "show", "dev", "tor0")
        assert sorted(n["id"] for n in table) == ["1", "3"], table
        # a clean stop, as systemctl stop: its files go
        procs["l1"].send_signal(signal.SIGTERM)
        assert procs["l1"].wait(timeout=10) == 0
        assert not os.path.exists(sock) and not os.path.exists(
            CTL_DIR + "/l1-tor0.pid")
        return "uid %d, CapEff 0x3000, neighbor show from root: %s" % (
            UNIT_UID, " ".join("%s:%s" % (n["port"], n["id"])
                               for n in table))

    try:
        if renumber():
            unplace()
        unit_user()
    finally:
        teardown()
        # root's again, for the scenarios after this one
        if os.path.isdir(CTL_DIR):
            chown_tree(CTL_DIR, 0)


# ---- lifecycle ----

def lifecycle():
    os.makedirs(RUNS, exist_ok=True)
    tl.run(["ip", "netns", "add", "z0"])
    tl.run(["ip", "netns", "add", "z1"])
    tl.run(["ip", "-n", "z0", "link", "add", "tor0", "type", "torus"])
    tl.run(["ip", "-n", "z1", "link", "add", "tor0", "type", "torus"])
    tl.run(["torus", "link", "add", "p0", "dir", "+x", "netns", "z0",
            "master", "tor0", "peer", "p1", "dir", "-x", "netns", "z1",
            "master", "tor0"])
    for ns, p in (("z0", "p0"), ("z1", "p1")):
        tl.in_netns(ns, lambda nl, p=p: [nl.link_up(d)
                                         for d in ("lo", "tor0", p)])

    def in_z0(args, **kw):
        return subprocess.run(["ip", "netns", "exec", "z0"] + args,
                              capture_output=True, text=True, timeout=30,
                              **kw)

    @case("daemon_start_errors_reach_the_caller")
    def start_errors():
        r = in_z0(["torusd", "-i", "tor0", "--pidfile",
                   "/nonexistent/dir/torusd.pid"])
        assert r.returncode == 1 and "pidfile" in r.stderr, \
            "pidfile failure: exit %d, stderr %r" % (r.returncode,
                                                     r.stderr)
        assert not subprocess.run(["pgrep", "-x", "torusd"],
                                  capture_output=True).stdout, \
            "a torusd survived its failed start"
        r = in_z0(["torusd", "-i", "nosuch0"])
        assert r.returncode == 1 and "nosuch0" in r.stderr, r
        pidfile = os.path.join(RUNS, "z0.pid")
        r = in_z0(["torusd", "-i", "tor0", "--pidfile", pidfile])
        assert r.returncode == 0, r
        # ready when the parent returns: the pidfile is there already
        with open(pidfile) as f:
            pid = int(f.read())
        os.kill(pid, 0)
        # a second one is refused, and says so to its caller
        r2 = in_z0(["torusd", "-i", "tor0"])
        os.kill(pid, signal.SIGTERM)
        assert r2.returncode == 1 and "another torusd" in r2.stderr, r2
        return "pidfile error exit 1, ready with pid %d on return" % pid

    @case("daemon_foreground_logs_priorities")
    def prefixes():
        for env in ({}, {"JOURNAL_STREAM": "8:1234"}):
            p = subprocess.Popen(
                ["ip", "netns", "exec", "z0", "torusd", "-i", "tor0", "-f"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                env=dict(os.environ, **env))
            # a starved guest may take longer than any fixed wait to
            # start it: until its first line, then a little more
            first, deadline = "", time.monotonic() + 20
            while not first and time.monotonic() < deadline:
                if select.select([p.stdout], [], [], 0.5)[0]:
                    first = p.stdout.readline()
            time.sleep(1.0)
            p.send_signal(signal.SIGTERM)
            out, _ = p.communicate(timeout=10)
            out = first + out
            lines = [ln for ln in out.splitlines() if ln]
            assert lines and all(re.match(r"<[0-7]>", ln) for ln in lines), \
                out[:400]
            # the journal stamps lines itself; a file gets a timestamp
            stamped = [bool(re.match(r"<[0-7]>\d{4}-", ln)) for ln in lines]
            assert all(stamped) != bool(env) and any(stamped) != bool(env), \
                lines[:3]
        return "%d lines, e.g. %r" % (len(lines), lines[0][:60])

    @case("daemon_notifies_the_service_manager")
    def notify():
        # a socket of our own in place of systemd's (Type=notify)
        path = os.path.join(RUNS, "notify.sock")
        if os.path.exists(path):
            os.unlink(path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        sock.settimeout(20)
        got = []

        def expect(word):
            while True:
                msg = sock.recv(4096).decode()
                got.append(msg)
                if word in msg.split("\n"):
                    return msg

        p = subprocess.Popen(
            ["ip", "netns", "exec", "z0", "torusd", "-i", "tor0", "-f"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=dict(os.environ, NOTIFY_SOCKET=path))
        try:
            ready = expect("READY=1")
            assert "STATUS=" in ready, ready
            p.send_signal(signal.SIGHUP)
            expect("RELOADING=1")
            again = expect("READY=1")
            p.send_signal(signal.SIGTERM)
            expect("STOPPING=1")
            p.wait(timeout=10)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            sock.close()
            os.unlink(path)
        return "%s; after SIGHUP %s" % (ready.replace("\n", " "),
                                        again.replace("\n", " "))

    @case("daemon_exits_when_module_unloaded")
    def unload():
        logf = os.path.join(RUNS, "z0.unload.log")
        with open(logf, "w") as f:
            p = subprocess.Popen(["ip", "netns", "exec", "z0", "torusd",
                                  "-i", "tor0", "-f"], stdout=f,
                                 stderr=subprocess.STDOUT)
        time.sleep(2)
        # the devices go with the module
        r = subprocess.run(["rmmod", "torus"], capture_output=True,
                           text=True)
        assert r.returncode == 0, "rmmod: %s" % r.stderr
        try:
            rc = p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            raise AssertionError("torusd still runs 10 s after rmmod")
        with open(logf) as f:
            log = f.read()
        errors = [ln for ln in log.splitlines() if ln.startswith("<3>")]
        assert rc == 1, "exit %d" % rc
        assert len(errors) <= 3, "%d error lines:\n%s" % (
            len(errors), "\n".join(errors[:8]))
        assert "gone" in log, log[-500:]
        return "exit %d: %s" % (rc, errors[-1][3:] if errors else "")

    try:
        start_errors()
        prefixes()
        notify()
        unload()
    finally:
        subprocess.run("pkill -x torusd", shell=True)
        for ns in ("z0", "z1"):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        ensure_module()


# ---- wake-ups ----

def sleeping():
    # nine daemons show a sleeping loop as well as 27 and start faster
    spec = tl.normalize_spec({"dims": "3x3", "miswire": "nodes",
                              "seed": 7, "prefix": "w"})
    lab = tl.Lab(spec, run_dir=os.path.join(RUNS, "w"), log=lab_log)

    def start_running():
        """Start the rack's daemons and wait until each logged that it
        runs: a restart finds the placement in the kernel, so wait()
        may return before a daemon starved by its 8 peers has bound
        the socket wakeups_per_s() asks."""
        lab.start()
        running = lab.wait_running()
        assert_alive()
        assert running is not None, "not running after 120 s: %s" % \
            sorted(ns for ns in lab.procs if " running on " not in log(ns))
        return running

    def log(ns):
        with open(os.path.join(lab.run_dir, ns + ".log")) as f:
            return f.read()

    def assert_alive():
        gone = lab.exited()
        assert not gone, "torusd exited: %s; %s's log ends: %s" % (
            gone, min(gone), log(min(gone))[-400:])

    @case("daemon_sleeps_to_the_next_deadline")
    def check():
        lab.build()
        run1 = start_running()
        conv, secs, nodes = lab.wait()
        assert conv, "not converged"
        time.sleep(2)
        sleep = wakeups_per_s(lab, 3)
        assert_alive()
        lab.stop(signal.SIGKILL)
        lab.spec["daemon_args"] = "--no-sleep"
        run2 = start_running()
        conv2, _, _ = lab.wait()
        time.sleep(2)
        tick = wakeups_per_s(lab, 3)
        assert_alive()
        moved = [ns for ns, o in lab.signature(lab.observe()).items()
                 if o != lab.signature(nodes)[ns]]
        figures["wakeups_per_s_9_nodes"] = {"sleeping": sleep,
                                             "every_tick": tick}
        assert conv2 and not moved, "restart moved %s" % moved[:4]
        assert sleep["timer_wakeups"] < tick["timer_wakeups"] / 4 and \
            sleep["wakeups"] < tick["wakeups"], \
            "sleeping %s, ticking %s" % (sleep, tick)
        return ("9 daemons, per second: sleeping %s; --no-sleep %s; "
                "all running %.1f s and %.1f s after their start" % (
                    sleep, tick, run1, run2))

    try:
        check()
    finally:
        lab.destroy()


SCENARIOS = {"sleep": sleeping, "rack": faulty_rack, "line": line,
             "life": lifecycle}


def main(argv):
    want = argv or ["sleep", "rack", "line", "life"]
    ensure_module()
    if not tl.find_torusd():
        skip("daemon", "torusd not built (make -C daemon)")
        return 0
    t0 = time.monotonic()
    for name in want:
        SCENARIOS[name]()
    os.makedirs(os.path.dirname(FIGURES), exist_ok=True)
    with open(FIGURES, "w") as f:
        f.write(json.dumps(figures, indent=1) + "\n")
    print("# daemon scenarios: %.1f s" % (time.monotonic() - t0),
          flush=True)
    return 0 if results["fail"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
