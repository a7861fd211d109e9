#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make bench-coll: collectives in torus.ko (libtorus) beside Open MPI.

Runs inside the test VM (tests/vm/run).  For each rack size (2x2x2,
3x3x3, 4x4x4 tori of namespaces placed by hand) it measures barrier,
allreduce of 8 bytes and of 8 KiB (doubles, summed) and a 1 MiB
broadcast, three ways, in the same boot:

  torus    every node runs tests/bench/coll_bench (libtorus) at once;
  mpi-tcp  Open MPI, one rank per node namespace, TCP over the fabric
           (btl tcp and the runtime's own traffic on tor0); mpirun runs
           in the namespace of 0,0,0 and starts each node's daemon with
           tests/bench/mpi-netns-agent (ip netns exec + its own host
           name), as its rsh launch agent;
  mpi-shm  Open MPI, all ranks in one namespace, shared memory (vader);
  mpi-shim the mpi-tcp run again with libtorus_mpi.so preloaded: the
           same unmodified program, its collectives in the module
           (torus-mpi(7)).

The broadcast runs once more with its result copied through the
module's answers (TORUS_COLL_PLACE=0) instead of placed in the callers'
buffers: the row "bcast-copied", what placement gains.

Every rank of every run is checked (-c).  Open MPI's ranks poll while
they wait; with more ranks than the VM's 2 CPUs they are told to yield
(mpi_yield_when_idle), as Open MPI itself does when it sees the node
oversubscribed.  Prints the table and writes build/bench-coll/results.json
and results.md.

    bench-coll.py [--sizes 8,27,64] [--mtu 1500] [--no-tcp] [--no-mpi]
                  [--baseline-module KO [--baseline-bench BIN]] [--quick]

--baseline-module runs the torus.ko rows again, in the same boot, with
another build of the module (say the last release's: build it in a git
worktree), on a rack built anew: the column "baseline".  Its
--baseline-bench is that build's coll_bench (default: this one's), for
a module that does not speak this build's libtorus.
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools", "lab"))
from torus_lab import Rack, addr4  # noqa: E402

BIN = os.path.join(REPO, "build", "bin")
AGENT = os.path.join(HERE, "mpi-netns-agent")
SHIM = os.path.join(REPO, "build", "lib", "openmpi", "libtorus_mpi.so")
OUT = os.path.join(REPO, "build", "bench-coll")
DIMS = {8: [2, 2, 2], 27: [3, 3, 3], 64: [4, 4, 4]}
PREFIX = "k"
NOT_RUN = -1.0      # a column this run left out (--no-tcp, --no-mpi)


def ops(quick):
    """(op, bytes, iterations) of the comparison."""
    if quick:
        return [("barrier", 0, 20), ("allreduce", 8, 20),
                ("allreduce", 8192, 5), ("bcast", 1 << 20, 1)]
    return [("barrier", 0, 200), ("allreduce", 8, 200),
            ("allreduce", 8192, 50), ("bcast", 1 << 20, 5)]


def mpi_env():
    return dict(os.environ, COLL_NS_PREFIX=PREFIX,
                OMPI_ALLOW_RUN_AS_ROOT="1",
                OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", TMPDIR="/var/tmp",
                OMPI_MCA_plm_rsh_agent=AGENT,
                OMPI_MCA_plm_rsh_no_tree_spawn="1",
                OMPI_MCA_mpi_yield_when_idle="1")


def parse_lines(text):
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def run_torus(rack, op, nbytes, iters, place=True, bench=None):
    # TORUS_COLL_PLACE=0: results copied through the module's answers
    env = dict(os.environ, TORUS_COLL_PLACE="1" if place else "0")
    runs = rack.run_each(
        rack.nodes, [bench or os.path.join(BIN, "coll_bench"), "-c", "-t",
                     "120000", "-n", str(iters), "-w", "2", op,
                     str(nbytes)], 1200, env)
    worst, ok, errs = 0.0, True, []
    for rc, so, se in runs.values():
        res = parse_lines(so)
        if rc != 0 or not res or not res[0]["ok"]:
            ok = False
            errs.append(se.strip()[-200:])
            continue
        worst = max(worst, res[0]["avg_us"])
    return (worst if ok else None), errs


def run_mpi(rack, tcp, specs, shim=False):
    n = len(rack.nodes)
    args = [os.path.join(BIN, "coll_mpi"), "-c", "-w", "2"] + [
        "%s:%d:%d" % s for s in specs]
    if tcp:
        hosts = os.path.join(OUT, "hosts-%d" % n)
        with open(hosts, "w") as f:
            for c in rack.nodes:
                f.write("%s slots=1\n" % addr4(c))
        cmd = ["mpirun", "--hostfile", hosts, "-np", str(n),
               "--mca", "btl", "tcp,self",
               "--mca", "btl_tcp_if_include", "tor0",
               "--mca", "oob_tcp_if_include", "tor0"] + (
                   ["-x", "LD_PRELOAD=" + SHIM] if shim else []) + args
        # mpirun's own node is named like the others (the agent's rule)
        cmd = ["ip", "netns", "exec", rack.ns(rack.nodes[0]), "unshare",
               "--uts", "sh", "-c", 'hostname %s; exec "$@"' %
               addr4(rack.nodes[0]), "sh"] + cmd
    else:
        cmd = ["ip", "netns", "exec", rack.ns(rack.nodes[0]), "mpirun",
               "-np", str(n), "--oversubscribe", "--mca", "btl",
               "vader,self"] + args
    t0 = time.monotonic()
    r = subprocess.run(cmd, env=mpi_env(), capture_output=True, text=True,
                       timeout=3000)
    wall = time.monotonic() - t0
    res = {(x["op"], x["bytes"]): x for x in parse_lines(r.stdout)}
    if r.returncode:
        sys.stderr.write("mpirun %s: rc %d: %s\n" % (
            "shim" if shim else "tcp" if tcp else "shm", r.returncode,
            r.stderr[-600:]))
    return res, wall


def load_module(path):
    """Replace the loaded torus.ko by the one at @path (no rack up)."""
    subprocess.run(["rmmod", "torus"], check=True)
    subprocess.run(["insmod", path], check=True)


def build_rack(n, mtu):
    rack = Rack(DIMS[n], [True] * 3, prefix=PREFIX)
    secs = rack.build(static=True)
    if mtu != 1500:
        set_mtu(rack, mtu)
    return rack, secs


def run_baseline(n, mtu, path, specs, bench=None):
    """The torus rows with the module at @path (and the coll_bench at
    @bench): {(op, bytes): us}."""
    here_ko = os.path.join(REPO, "kernel", "torus.ko")
    load_module(path)
    out = {}
    try:
        rack, _ = build_rack(n, mtu)
        try:
            for op, nbytes, iters in specs:
                t, errs = run_torus(rack, op, nbytes, iters, bench=bench)
                if t is None:
                    print("# baseline %s %d failed: %s" % (op, nbytes,
                                                          errs[:2]))
                out[(op, nbytes)] = t
        finally:
            rack.destroy(quiet=True)
    finally:
        load_module(here_ko)
    return out


def set_mtu(rack, mtu):
    """Every port of every node to @mtu (tor0 follows its ports)."""
    for c in rack.nodes:
        cmds = "".join("link set %s mtu %d\n" % (rack.port(c, a, n), mtu)
                       for a, n in rack.ports(c))
        subprocess.run(["ip", "-n", rack.ns(c), "-batch", "-"], input=cmds,
                       text=True, check=True)


def fmt_us(v):
    if v is None:
        return "failed"
    if v == NOT_RUN:
        return "not run"
    return "%.0f" % v if v >= 100 else "%.1f" % v


def ratio(a, b):
    return "%.1fx" % (a / b) if a and b and a > 0 and b > 0 else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="8,27,64")
    ap.add_argument("--mtu", type=int, default=1500,
                    help="MTU of every port (both sides use it)")
    ap.add_argument("--no-tcp", action="store_true",
                    help="leave out Open MPI over TCP (its start-up is "
                    "minutes at 64 nodes under TCG)")
    ap.add_argument("--no-mpi", action="store_true",
                    help="leave out Open MPI entirely (module A/B runs)")
    ap.add_argument("--baseline-module", metavar="KO",
                    help="also run the torus.ko rows with this build of "
                    "the module, in the same boot")
    ap.add_argument("--baseline-bench", metavar="BIN",
                    help="the coll_bench built with the baseline module "
                    "(default: this build's)")
    ap.add_argument("--quick", action="store_true",
                    help="few iterations (the smoke run)")
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    rows = []
    status = 0
    for n in [int(x) for x in a.sizes.split(",")]:
        rack, secs = build_rack(n, a.mtu)
        print("# %d nodes: rack built in %.1f s, port MTU %d" % (
            n, secs, a.mtu), flush=True)
        try:
            specs = ops(a.quick)
            tcp, shm, shim = None, None, None
            if not a.no_tcp and not a.no_mpi:
                tcp, tcp_wall = run_mpi(rack, True, specs)
                print("# mpi-tcp: %.0f s with start-up" % tcp_wall,
                      flush=True)
                if os.path.exists(SHIM):
                    shim, shim_wall = run_mpi(rack, True, specs, shim=True)
                    print("# mpi-shim: %.0f s with start-up" % shim_wall,
                          flush=True)
            if not a.no_mpi:
                shm, shm_wall = run_mpi(rack, False, specs)
                print("# mpi-shm: %.0f s with start-up" % shm_wall,
                      flush=True)
            for op, nbytes, iters in specs:
                t, errs = run_torus(rack, op, nbytes, iters)
                if t is None:
                    status = 1
                    print("# torus %s %d failed: %s" % (op, nbytes, errs[:2]))
                row = dict(nodes=n, op=op, bytes=nbytes, iters=iters,
                           mtu=a.mtu, torus_us=t)
                for name, res in (("mpi_tcp_us", tcp), ("mpi_shm_us", shm),
                                  ("mpi_shim_us", shim)):
                    x = res.get((op, nbytes)) if res is not None else None
                    row[name] = x["avg_us"] if x and x["ok"] else \
                        NOT_RUN if res is None else None
                rows.append(row)
                print("%2d nodes %-9s %7d B: torus %s us, mpi-tcp %s us "
                      "(%s), mpi-shm %s us (%s), mpi-shim %s us (tcp/shim "
                      "%s)" % (
                          n, op, nbytes, fmt_us(t), fmt_us(row["mpi_tcp_us"]),
                          ratio(row["mpi_tcp_us"], t),
                          fmt_us(row["mpi_shm_us"]),
                          ratio(row["mpi_shm_us"], t),
                          fmt_us(row["mpi_shim_us"]),
                          ratio(row["mpi_tcp_us"], row["mpi_shim_us"])),
                      flush=True)
            # the broadcast again, its result copied through the
            # module's answers rather than placed: what placement gains
            for op, nbytes, iters in specs:
                if op != "bcast":
                    continue
                t, errs = run_torus(rack, op, nbytes, iters, place=False)
                if t is None:
                    status = 1
                    print("# torus copied %s failed: %s" % (op, errs[:2]))
                placed = next(r["torus_us"] for r in rows if r["nodes"] == n
                              and r["op"] == op and r["bytes"] == nbytes)
                rows.append(dict(nodes=n, op="bcast-copied", bytes=nbytes,
                                 iters=iters, mtu=a.mtu, torus_us=t,
                                 mpi_tcp_us=NOT_RUN, mpi_shm_us=NOT_RUN,
                                 mpi_shim_us=NOT_RUN))
                print("%2d nodes %-9s %7d B: torus, copied not placed, %s us "
                      "(placed: %s faster)" % (n, op, nbytes, fmt_us(t),
                                               ratio(t, placed)), flush=True)
        finally:
            rack.destroy(quiet=True)
        if a.baseline_module:
            base = run_baseline(n, a.mtu, a.baseline_module, ops(a.quick),
                                a.baseline_bench)
            for r in rows:
                if r["nodes"] != n:
                    continue
                r["baseline_us"] = NOT_RUN if r["op"] == "bcast-copied" \
                    else base.get((r["op"], r["bytes"]))
                print("%2d nodes %-9s %7d B: torus %s us, baseline module "
                      "%s us (%s)" % (
                          n, r["op"], r["bytes"], fmt_us(r["torus_us"]),
                          fmt_us(r["baseline_us"]),
                          ratio(r["baseline_us"], r["torus_us"])),
                      flush=True)
    tag = ("" if a.mtu == 1500 else "-mtu%d" % a.mtu) + \
        ("-no-tcp" if a.no_tcp else "") + ("-no-mpi" if a.no_mpi else "") + \
        ("-baseline" if a.baseline_module else "")
    with open(os.path.join(OUT, "results%s.json" % tag), "w") as f:
        json.dump(rows, f, indent=1)
    md = ["| nodes | operation | torus.ko (us) | Open MPI TCP on tor0 (us) "
          "| ratio | Open MPI shared memory (us) | ratio | Open MPI with "
          "libtorus_mpi.so (us) | TCP / shim |" +
          (" baseline torus.ko (us) | ratio |" if a.baseline_module else ""),
          "|---|---|---|---|---|---|---|---|---|" +
          ("---|---|" if a.baseline_module else "")]
    for r in rows:
        what = r["op"] + (" %s" % ("8 B" if r["bytes"] == 8 else
                                   "8 KiB" if r["bytes"] == 8192 else
                                   "1 MiB" if r["bytes"] else ""))
        md.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["nodes"], what.strip(), fmt_us(r["torus_us"]),
            fmt_us(r["mpi_tcp_us"]), ratio(r["mpi_tcp_us"], r["torus_us"]),
            fmt_us(r["mpi_shm_us"]), ratio(r["mpi_shm_us"], r["torus_us"]),
            fmt_us(r["mpi_shim_us"]),
            ratio(r["mpi_tcp_us"], r["mpi_shim_us"])) +
            (" %s | %s |" % (fmt_us(r.get("baseline_us")),
                             ratio(r.get("baseline_us"), r["torus_us"]))
             if a.baseline_module else ""))
    with open(os.path.join(OUT, "results%s.md" % tag), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    return status


if __name__ == "__main__":
    sys.exit(main())
