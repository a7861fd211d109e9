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
    bench-coll.py --mpi [--sizes 8,27,64] [--quick]      (make bench-mpi)

--mpi compares the MPIs alone, in the manner of the usual MPI latency
benchmarks (barrier; allreduce of 8 B to 1 MiB; bcast and reduce of 8 B
and 1 MiB; doubles, summed, every rank checked), four ways in the same
boot: Open MPI over TCP on tor0, Open MPI with libtorus_mpi.so, MPICH
with its libtorus_mpi.so (the same program built with mpicc.mpich:
build/bin/coll_mpi.mpich), and Open MPI's shared memory with all ranks
in one namespace, the upper anchor.  It prints the goals at
64 ranks (barrier and 8-byte allreduce through the shim 10x faster than
TCP and faster than shared memory, a 1 MiB broadcast 5x faster than TCP)
with what this run measured, and writes results-mpi.{json,md}.

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
from torus_lab import Rack  # noqa: E402
import mpi_launch  # noqa: E402  (beside this file)

BIN = os.path.join(REPO, "build", "bin")
SHIM = os.path.join(REPO, "build", "lib", "%s", "libtorus_mpi.so")
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


def mpi_ops(quick):
    """(op, bytes, iterations) of make bench-mpi: fewer iterations where
    an operation takes longer (under TCG a 1 MiB allreduce over TCP on
    64 ranks takes seconds)."""
    def iters(nbytes):
        many = 100 if nbytes <= 512 else 20 if nbytes <= 32768 else 3
        return max(1, many // 5) if quick else many
    out = [("barrier", 0, iters(0))]
    out += [("allreduce", b, iters(b))
            for b in (8, 64, 512, 4096, 32768, 262144, 1 << 20)]
    out += [(op, b, iters(b)) for op in ("bcast", "reduce")
            for b in (8, 1 << 20)]
    return out


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


def run_mpi(rack, specs, mpi="openmpi", shim=False):
    """The specs as one job, one rank per node namespace, under MPI
    ("openmpi" over TCP on tor0, "mpich"), with its libtorus_mpi.so
    preloaded if SHIM: {(op, bytes): result}, wall seconds."""
    n = len(rack.nodes)
    prog = os.path.join(BIN, "coll_mpi" + (".mpich" if mpi == "mpich"
                                           else ""))
    name = "%s%s-%d" % (mpi, "-shim" if shim else "", n)
    cmd = mpi_launch.command(
        rack, rack.nodes, mpi,
        [prog, "-c", "-w", "2"] + ["%s:%d:%d" % x for x in specs],
        {"LD_PRELOAD": SHIM % mpi} if shim else {},
        os.path.join(OUT, "hosts-%d" % n))
    rc, so, se, wall, printed = mpi_launch.run(
        cmd, mpi_launch.env(PREFIX), os.path.join(OUT, name),
        lambda so, se: len(parse_lines(so)) >= len(specs), 3000)
    if rc:
        sys.stderr.write("%s: rc %d: %s\n" % (name, rc, se[-600:]))
    elif rc is None and printed:
        print("# %s: ended %.0f s after its last line" % (
            name, mpi_launch.EXIT_GRACE), flush=True)
    return {(x["op"], x["bytes"]): x for x in parse_lines(so)}, wall


def run_shm(rack, specs):
    """The specs under Open MPI with every rank in the first node's
    namespace, over shared memory: {(op, bytes): result}, wall seconds."""
    cmd = ["ip", "netns", "exec", rack.ns(rack.nodes[0]), "mpirun",
           "-np", str(len(rack.nodes)), "--oversubscribe", "--mca", "btl",
           "vader,self", os.path.join(BIN, "coll_mpi"), "-c", "-w", "2"] + [
               "%s:%d:%d" % x for x in specs]
    t0 = time.monotonic()
    r = subprocess.run(cmd, env=mpi_launch.env(PREFIX), capture_output=True,
                       text=True, timeout=3000)
    wall = time.monotonic() - t0
    if r.returncode:
        sys.stderr.write("mpirun shm: rc %d: %s\n" % (r.returncode,
                                                      r.stderr[-600:]))
    return {(x["op"], x["bytes"]): x for x in parse_lines(r.stdout)}, wall


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
    ap.add_argument("--mpi", action="store_true",
                    help="the MPIs alone: Open MPI over TCP, Open MPI and "
                    "MPICH with libtorus_mpi.so, Open MPI's shared memory "
                    "(make bench-mpi)")
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    if a.mpi:
        return bench_mpi(a)
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
                tcp, tcp_wall = run_mpi(rack, specs)
                print("# mpi-tcp: %.0f s with start-up" % tcp_wall,
                      flush=True)
                if os.path.exists(SHIM % "openmpi"):
                    shim, shim_wall = run_mpi(rack, specs, shim=True)
                    print("# mpi-shim: %.0f s with start-up" % shim_wall,
                          flush=True)
            if not a.no_mpi:
                shm, shm_wall = run_shm(rack, specs)
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


MPI_COLUMNS = (("tcp_us", "Open MPI TCP on tor0"),
               ("shim_us", "Open MPI with libtorus_mpi.so"),
               ("mpich_shim_us", "MPICH with libtorus_mpi.so"),
               ("shm_us", "Open MPI shared memory"))


def size_name(nbytes):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= div and nbytes % div == 0:
            return "%d %s" % (nbytes // div, unit)
    return "%d B" % nbytes if nbytes else ""


def mpi_goals(rows):
    """The goals at 64 ranks, each with what this run measured: [(goal,
    met, or None when not measured; the measured ratio)]."""
    shims = (("shim_us", "Open MPI"), ("mpich_shim_us", "MPICH"))

    def at(op, nbytes):
        return next((r for r in rows if r["nodes"] == 64 and
                     r["op"] == op and r["bytes"] == nbytes), None)

    def good(v):
        return v is not None and v > 0

    def goal(what, r, base, col, factor):
        if not r or not good(r[base]) or not good(r[col]):
            return (what, None, "not measured")
        x = r[base] / r[col]
        return (what, x > factor, "%.2fx" % x)

    out = []
    for op, nbytes in (("barrier", 0), ("allreduce", 8)):
        name = ("%s %s" % (op, size_name(nbytes))).strip()
        r = at(op, nbytes)
        for col, mpi in shims:
            out.append(goal("%s, %s with the shim, at least 10x faster "
                            "than Open MPI over TCP" % (name, mpi),
                            r, "tcp_us", col, 10 - 1e-9))
            out.append(goal("%s, %s with the shim, faster than Open MPI's "
                            "shared memory" % (name, mpi),
                            r, "shm_us", col, 1))
    r = at("bcast", 1 << 20)
    for col, mpi in shims:
        out.append(goal("bcast 1 MiB, %s with the shim, at least 5x faster "
                        "than Open MPI over TCP" % mpi, r, "tcp_us", col,
                        5 - 1e-9))
    return out


def bench_mpi(a):
    """make bench-mpi: the four MPI columns per rack size."""
    rows, status = [], 0
    specs = mpi_ops(a.quick)
    for n in [int(x) for x in a.sizes.split(",")]:
        rack, secs = build_rack(n, a.mtu)
        print("# %d nodes: rack built in %.1f s" % (n, secs), flush=True)
        try:
            res = {}
            res["tcp_us"], wall = run_mpi(rack, specs)
            print("# %d ranks, Open MPI over TCP: %.0f s with start-up" % (
                n, wall), flush=True)
            res["shim_us"], wall = run_mpi(rack, specs, shim=True)
            print("# %d ranks, Open MPI with the shim: %.0f s with "
                  "start-up" % (n, wall), flush=True)
            if os.path.exists(os.path.join(BIN, "coll_mpi.mpich")) and \
                    os.path.exists(SHIM % "mpich"):
                res["mpich_shim_us"], wall = run_mpi(rack, specs, "mpich",
                                                     shim=True)
                print("# %d ranks, MPICH with the shim: %.0f s with "
                      "start-up" % (n, wall), flush=True)
            else:
                res["mpich_shim_us"] = None
                print("# no MPICH build (make deps; make)", flush=True)
            res["shm_us"], wall = run_shm(rack, specs)
            print("# %d ranks, Open MPI shared memory: %.0f s with "
                  "start-up" % (n, wall), flush=True)
        finally:
            rack.destroy(quiet=True)
        for op, nbytes, iters in specs:
            row = dict(nodes=n, op=op, bytes=nbytes, iters=iters)
            for col, _ in MPI_COLUMNS:
                x = res[col].get((op, nbytes)) if res[col] is not None \
                    else None
                row[col] = x["avg_us"] if x and x["ok"] else \
                    NOT_RUN if res[col] is None else None
                if row[col] is None:
                    status = 1
            rows.append(row)
            print("%2d ranks %-9s %8s: %s" % (
                n, op, size_name(nbytes), ", ".join(
                    "%s %s us" % (name, fmt_us(row[col]))
                    for col, name in MPI_COLUMNS)), flush=True)
        # after each size, so a run stopped early keeps what it measured
        write_mpi_results(rows)
    write_mpi_results(rows, show=True)
    return status


def write_mpi_results(rows, show=False):
    goals = mpi_goals(rows)
    with open(os.path.join(OUT, "results-mpi.json"), "w") as f:
        json.dump({"rows": rows, "goals": [
            dict(goal=g, met=m, measured=x) for g, m, x in goals]}, f,
            indent=1)
    md = ["| ranks | operation | " + " | ".join(
        "%s (us)" % name for _, name in MPI_COLUMNS) +
        " | TCP / Open MPI shim | TCP / MPICH shim | shared memory / "
        "Open MPI shim |", "|---|---|" + "---|" * (len(MPI_COLUMNS) + 3)]
    for r in rows:
        md.append("| %d | %s | %s | %s | %s | %s |" % (
            r["nodes"], (r["op"] + " " + size_name(r["bytes"])).strip(),
            " | ".join(fmt_us(r[c]) for c, _ in MPI_COLUMNS),
            ratio(r["tcp_us"], r["shim_us"]),
            ratio(r["tcp_us"], r["mpich_shim_us"]),
            ratio(r["shm_us"], r["shim_us"])))
    md.append("")
    for g, m, x in goals:
        md.append("* %s: %s" % (g, x if m is None else "%s (%s)" % (
            x, "met" if m else "not met")))
    with open(os.path.join(OUT, "results-mpi.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    if show:
        print("\n".join(md))


if __name__ == "__main__":
    sys.exit(main())
