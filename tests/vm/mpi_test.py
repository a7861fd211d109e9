#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""VM scenarios for libtorus_mpi.so: unmodified MPI programs on the
fabric's collectives (runs inside the test VM).

A torus of namespaces placed by hand (2x2x2, or --dims); one rank per node namespace,
ranks in the fabric's order (x fastest), launched by Open MPI's mpirun
or MPICH's mpiexec in the namespace of 0,0,0 with
tests/bench/mpi-netns-agent as the remote shell.  The programs are
tests/mpi/mpi_check.c (every type and op, checked against results it
computes itself; under MPICH with --large only) and
tests/mpi/mpi_fortran.f90 (on 2 ranks, all of them with --large); the
shim is preloaded.
Prints PASS:/FAIL:/SKIP: lines for the aggregator.

    mpi_test.py [--dims 3x3x3] [--large]
                --large: 131,072 elements for every type and op
                (make check-full runs both on 3x3x3)

Under TCG, starting 27 ranks takes 80-90 s and 8 ranks 11-25 s, so
make check runs 2x2x2.
"""

import argparse
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import case, results, skip  # noqa: E402
from torus_lab import Rack  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "bench"))
import mpi_launch  # noqa: E402  (tests/bench/mpi_launch.py)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
LIB = os.path.join(REPO, "build", "lib", "%s", "libtorus_mpi.so")
PROG = os.path.join(REPO, "build", "tests", "mpi", "%s.%s")
OUT = os.path.join(REPO, "build", "vm", "mpi")
PREFIX = "m"
# the fallbacks mpi_check makes on purpose: a user-defined op
# (allreduce) and a derived type (bcast)
STATS = re.compile(r"^torus-mpi: rank (\d+): fabric/fallback: barrier "
                   r"(\d+)/(\d+) bcast (\d+)/(\d+) reduce (\d+)/(\d+) "
                   r"allreduce (\d+)/(\d+)$")


def fabric_order(rack):
    """the rack's nodes by fabric rank, x + X * (y + Y * z)"""
    return sorted(rack.nodes, key=lambda c: (c[2], c[1], c[0]))


def launch(rack, mpi, prog, args=(), env=None, timeout=900, ranks=None,
           tag=""):
    """Run PROG (mpi_check or mpi_fortran, built for MPI) with the shim,
    one rank per node (the first RANKS nodes in fabric order, default
    all), its output in build/vm/mpi/PROG-MPI[-TAG].{out,err}:
    (returncode, stdout, stderr, seconds)."""
    nodes = fabric_order(rack)[:ranks]
    shim = {"LD_PRELOAD": LIB % mpi}
    shim.update(env or {})
    cmd = mpi_launch.command(rack, nodes, mpi, [PROG % (prog, mpi)] +
                             list(args), shim, os.path.join(OUT, "hosts"))
    base = os.path.join(OUT, "%s-%s%s" % (prog, mpi, tag and "-" + tag))
    rc, so, se, secs, printed = mpi_launch.run(
        cmd, mpi_launch.env(PREFIX), base,
        lambda so, se: printed_all(so, se, len(nodes),
                                   "TORUS_MPI_STATS" in shim), timeout)
    assert rc is not None or printed, \
        "%s under %s: no end after %d s; output in %s.*" % (
            prog, mpi, timeout, base)
    if rc is None:
        # every rank printed all it prints at MPI_Finalize; the exit is
        # the MPI's
        rc = 0
        print("# %s under %s: ended %d s after its last line" % (
            prog, mpi, mpi_launch.EXIT_GRACE), flush=True)
    return rc, so, se, secs


def printed_all(so, se, n, counters):
    """whether the program printed its last line, and each of its N
    ranks its counters when asked (the shim prints them before
    PMPI_Finalize)"""
    if not re.search(r"^(\d+ passed, \d+ failed|fortran (not )?ok)$", so,
                     re.M):
        return False
    return not counters or len(
        [x for x in se.splitlines() if STATS.match(x.strip())]) == n


def stats(stderr, n):
    """{rank: (fabric, fallback) per kind} from TORUS_MPI_STATS lines"""
    out = {}
    for line in stderr.splitlines():
        m = STATS.match(line.strip())
        if m:
            v = [int(x) for x in m.groups()]
            out[v[0]] = [(v[i], v[i + 1]) for i in (1, 3, 5, 7)]
    assert len(out) == n, "%d of %d ranks printed their counters" % (
        len(out), n)
    return out


def check_results(rc, so, n):
    bad = [x for x in so.splitlines() if x.startswith("not ok")]
    total = re.search(r"^(\d+) passed, (\d+) failed$", so, re.M)
    assert total, "no summary line; rc %d; stdout ends: %s" % (
        rc, so[-400:])
    assert not bad and rc == 0 and total.group(2) == "0", \
        "%s failed: %s" % (total.group(2), "; ".join(bad[:5]))
    return int(total.group(1))


def run_check(rack, mpi, large, env, quick=False):
    n = len(rack.nodes)
    dims = "x".join(str(d) for d in rack.dims)
    level = ["-l"] if large else ["-q"] if quick else []
    rc, so, se, secs = launch(rack, mpi, "mpi_check",
                              ["-d", dims, "-p"] + level, env)
    passed = check_results(rc, so, n)
    st = stats(se, n)
    for rank, kinds in st.items():
        # every kind went to the fabric; only the two planned fallbacks
        assert all(f > 0 for f, _ in kinds), \
            "rank %d: a kind never went to the fabric: %s" % (rank, kinds)
        assert kinds[1][1] == 1 and kinds[3][1] == 1 and \
            kinds[0][1] == 0 and kinds[2][1] == 0, \
            "rank %d: unexpected fallbacks (barrier, bcast, reduce, " \
            "allreduce): %s" % (rank, [b for _, b in kinds])
    return passed, st, se, secs


@case("mpi_openmpi_every_type_and_op")
def check_openmpi(rack, large):
    """mpi_check under Open MPI: every case right, every kind of call on
    the fabric but the two planned fallbacks, and nothing printed but
    the counters asked for (TORUS_MPI_LOG unset)."""
    passed, st, se, secs = run_check(rack, "openmpi", large,
                                     {"TORUS_MPI_STATS": "1"})
    noise = [x for x in se.splitlines() if x.strip() and
             not STATS.match(x.strip())]
    assert not noise, "printed without being asked: %s" % noise[:3]
    f = st[0]
    return "%d cases in %.0f s; rank 0 on the fabric: %d allreduce, " \
        "%d bcast, %d reduce, %d barrier" % (
            passed, secs, f[3][0], f[1][0], f[2][0], f[0][0])


@case("mpi_mpich_every_kind_of_call")
def check_mpich(rack, large):
    """mpi_check -q under MPICH (every type and op with --large), with
    TORUS_MPI_LOG=1: every result right,
    and each communicator mapped as its shape says (the world the whole
    fabric, a line of x an axis group, a plane two axes, an irregular
    set a node list)."""
    passed, st, se, secs = run_check(rack, "mpich", large,
                                     {"TORUS_MPI_STATS": "1",
                                      "TORUS_MPI_LOG": "1"},
                                     quick=not large)
    maps = [x for x in se.splitlines() if "communicator of" in x]
    x, y, z = rack.dims
    n = x * y * z
    odd = len([r for r in range(n) if r % 5 == 0 or r == 7])
    for want in ("of %d ranks: fabric, the whole fabric" % n,
                 "of %d ranks: fabric, axis group 0x1 of %d nodes" % (x, x),
                 "of %d ranks: fabric, axis group 0x3 of %d nodes" % (
                     x * y, x * y),
                 "of %d ranks: fabric, node list" % odd,
                 "of %d ranks: fabric, node list" % (n - odd)):
        assert any(want in x for x in maps), \
            "no communicator %s: %s" % (want, maps[:8])
    return "%d cases in %.0f s" % (passed, secs)


def fortran(rack, mpi, ranks):
    """The Fortran program on @ranks ranks: its verdict, every call on
    the fabric by the counters, and with TORUS_MPI_LOG=3 every rank
    naming each call it served (the nonblocking one too under MPICH)"""
    rc, so, se, secs = launch(rack, mpi, "mpi_fortran", [],
                              {"TORUS_MPI_STATS": "1",
                               "TORUS_MPI_LOG": "3"}, timeout=300,
                              ranks=ranks)
    assert rc == 0 and so.strip() == "fortran ok", \
        "rc %d: %s %s" % (rc, so[-300:], se[-300:])
    st = stats(se, ranks)
    # MPI_IALLREDUCE reaches the shim only under MPICH, whose Fortran
    # library calls MPI_Iallreduce (Open MPI's calls PMPI_Iallreduce)
    want = [1, 1, 1, 3 if mpi == "mpich" else 2]
    for rank, kinds in st.items():
        assert [f for f, _ in kinds] == want and \
            all(b == 0 for _, b in kinds), \
            "rank %d: not every call on the fabric: %s" % (rank, kinds)
    # 5 doubles, 4 integers in place, and under MPICH the nonblocking
    # sum of 4 integers
    served = ["allreduce of 40 bytes", "allreduce of 16 bytes",
              "barrier of 0 bytes"] + (
                  ["nonblocking allreduce of 16 bytes"]
                  if mpi == "mpich" else [])
    for rank in range(ranks):
        lines = [x for x in se.splitlines()
                 if x.startswith("torus-mpi: rank %d: " % rank)]
        missing = [w for w in served
                   if not any(w + " on the fabric" in x for x in lines)]
        assert not missing, "rank %d did not log %s (TORUS_MPI_LOG=3)" % (
            rank, missing)
    return "%d ranks in %.0f s" % (ranks, secs)


# Fortran and the strict mode need no more than a line of 2 ranks: under
# TCG, Open MPI takes 40-60 s to start 8 ranks with its rsh agent

@case("mpi_openmpi_fortran_allreduce")
def check_fortran_openmpi(rack, ranks):
    """A Fortran program (mpif.h): MPI_INIT, MPI_ALLREDUCE (in place
    too), MPI_REDUCE, MPI_BCAST, MPI_BARRIER, all on the fabric: Open
    MPI's Fortran library calls PMPI_ functions, so the shim's own
    Fortran entry points must take them"""
    return fortran(rack, "openmpi", ranks)


@case("mpi_mpich_fortran_allreduce")
def check_fortran_mpich(rack, ranks):
    return fortran(rack, "mpich", ranks)


@case("mpi_strict_fails_loudly")
def check_strict(rack):
    """TORUS_MPI_ENABLE=2: a call the fabric cannot serve (a user op)
    is an error, with the reason on stderr, not a silent fallback"""
    rc, so, se, secs = launch(rack, "mpich", "mpi_check", ["-f"],
                              {"TORUS_MPI_ENABLE": "2"}, timeout=300,
                              ranks=2, tag="strict")
    assert rc != 0, "the job succeeded: %s" % so[-300:]
    assert "not on the fabric (TORUS_MPI_ENABLE=2): a user-defined op" \
        in se, "no reason given: %s" % se[-500:]
    return "exit %d in %.0f s" % (rc, secs)


def have(mpi):
    return os.path.exists(LIB % mpi) and \
        os.path.exists(PROG % ("mpi_check", mpi)) and \
        shutil.which("mpicc." + mpi)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dims", default="2x2x2")
    ap.add_argument("--large", action="store_true")
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith((".out", ".err")):
            os.unlink(os.path.join(OUT, f))
    rack = Rack([int(d) for d in a.dims.split("x")], [True] * 3,
                prefix=PREFIX)
    rack.build(static=True)
    try:
        few = len(rack.nodes) if a.large else 2
        if have("openmpi"):
            check_openmpi(rack, a.large)
            check_fortran_openmpi(rack, few)
        else:
            skip("mpi_openmpi_every_type_and_op", "no Open MPI build")
        if have("mpich"):
            # the C matrix under MPICH in make check-full; the Fortran
            # program's counters show the MPICH build on the fabric
            if a.large:
                check_mpich(rack, a.large)
            check_fortran_mpich(rack, few)
            check_strict(rack)
        else:
            skip("mpi_mpich_every_kind_of_call", "no MPICH build")
    finally:
        rack.destroy(quiet=True)
    return 1 if results["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
