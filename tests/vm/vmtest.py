# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared harness of the Python VM scenarios: result lines for the
aggregator (PASS:/FAIL:/SKIP: vm/<case>) and a decorator that turns an
assertion or an exception in a case into a FAIL line with its reason."""

import os
import sys
import time
import traceback

REPO = os.path.realpath(os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tools", "lab"))
# the module the VM was given (tests/vm/run --module), for scenarios that
# rmmod it and load it again
TORUS_KO = os.environ.get("TORUS_KO") or os.path.join(REPO, "kernel",
                                                      "torus.ko")

results = {"pass": 0, "fail": 0, "skip": 0}


def report(name, ok, msg=""):
    results["pass" if ok else "fail"] += 1
    print("%s: vm/%s%s" % ("PASS" if ok else "FAIL", name,
                            "" if ok or not msg else " -- " + msg),
          flush=True)


def skip(name, why):
    results["skip"] += 1
    print("SKIP: vm/%s -- %s" % (name, why), flush=True)


def case(name):
    """Run the decorated function as test case NAME: a returned string is
    shown beside the timing; the wrapper returns whether it passed."""
    def wrap(fn):
        def run(*a, **kw):
            t0 = time.monotonic()
            try:
                msg = fn(*a, **kw)
                report(name, True)
                print("#   %s: %.1f s%s" % (name, time.monotonic() - t0,
                                           " (" + msg + ")" if msg else ""),
                      flush=True)
                return True
            except AssertionError as e:
                report(name, False, str(e))
            except Exception as e:  # a broken step is a failed case
                report(name, False, "%s: %s" % (type(e).__name__, e))
                traceback.print_exc(file=sys.stdout)
            return False
        return run
    return wrap


def coll_bench_slowest(rack, nodes, args, timeout, env=None, size=None):
    """coll_bench -c ARGS on every node of `nodes` at once (libtorus, each
    result checked by coll_bench itself): the slowest node's average in
    us.  A node that failed, or whose communicator is not `size` nodes,
    fails the case with its name and what it printed."""
    from torus_lab import loads_strict
    worst = 0.0
    for c, (rc, so, se) in rack.run_each(
            nodes, ["coll_bench", "-c"] + list(args), timeout,
            env).items():
        assert rc == 0, "coll_bench %s on %s: %s" % (
            " ".join(args), rack.ns(c), se.strip()[-300:])
        r = loads_strict(so)
        assert r["ok"] and (size is None or r["size"] == size), \
            "coll_bench %s on %s: %s" % (" ".join(args), rack.ns(c), r)
        worst = max(worst, r["avg_us"])
    return worst
