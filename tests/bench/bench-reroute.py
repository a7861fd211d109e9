#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Reroute figures over many runs (inside the test VM; make bench-reroute):
tests/vm/reroute_test.py run again and again, with this build's torusd
and a baseline torusd (TORUSD=...), on a quiet guest and on a guest kept
busy by spinning processes, so that what holds in general is seen, not
what held once.  Per configuration: how often a survivor pair lost an
echo 1 s or more after a fault, echoes lost, and the time until every
survivor has routes for the new fault set, per kind of fault.

    bench-reroute.py --baseline-torusd PATH [--runs N] [--loads 0,2]
                     [--json FILE] [--md FILE]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.realpath(os.path.join(HERE, "..", ".."))
TEST = os.path.join(TOP, "tests", "vm", "reroute_test.py")


def log(msg):
    print("# " + msg, flush=True)


def one_run(torusd, load):
    """One reroute_test.py run: its figures, or None if it failed."""
    spin = [subprocess.Popen(["sh", "-c", "while :; do :; done"])
            for _ in range(load)]
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        env = dict(os.environ, TORUSD=torusd)
        t = time.monotonic()
        res = subprocess.run([sys.executable, TEST, "--json", f.name,
                              "--no-collectives"],
                             env=env, capture_output=True, text=True)
        secs = time.monotonic() - t
        for p in spin:
            p.kill()
            p.wait()
        fails = [ln for ln in res.stdout.splitlines()
                 if ln.startswith("FAIL:")]
        try:
            fig = json.load(open(f.name))
        except ValueError:
            fig = None
    return fig, fails, secs


def kind(fault):
    return fault.split()[0]      # cut, kill, restore


def summary(runs):
    """runs: [(figures, fails, secs)] -> one row per kind of fault."""
    out = {"runs": len(runs), "failed_runs": sum(1 for _, f, _ in runs if f),
           "fail_lines": [ln for _, f, _ in runs for ln in f][:6],
           "seconds": round(sum(s for _, _, s in runs), 1), "kinds": {}}
    for k in ("cut", "kill", "restore"):
        fs = [f for fig, _, _ in runs if fig for f in fig["faults"]
              if kind(f["fault"]) == k and "last_lost_s" in f]
        if not fs:
            continue
        routes = sorted(f["routes_installed_s"] for f in fs)
        out["kinds"][k] = {
            "faults": len(fs),
            "late_losses": sum(1 for f in fs if f["last_lost_s"] >= 1.0),
            "last_lost_s_max": max(f["last_lost_s"] for f in fs),
            "echoes_lost": sum(f["echoes_lost"] for f in fs),
            "faults_losing_echoes": sum(1 for f in fs if f["echoes_lost"]),
            "routes_s_median": round(statistics.median(routes), 3),
            "routes_s_p90": routes[min(len(routes) - 1,
                                       int(0.9 * len(routes)))],
            "routes_s_max": routes[-1],
            "routes_under_1s": sum(1 for r in routes if r < 1.0),
        }
    return out


def markdown(res):
    lines = ["| torusd | guest load | runs (failed) | fault | faults | "
             "echo lost >= 1 s after | faults losing echoes (echoes) | "
             "routes on every survivor: median / p90 / max | routes < 1 s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in res["rows"]:
        s = row["summary"]
        for k, v in s["kinds"].items():
            lines.append(
                "| %s | %d | %d (%d) | %s | %d | %d (max %.2f s) | %d (%d) | "
                "%.2f / %.2f / %.2f s | %d of %d |" % (
                    row["torusd"], row["load"], s["runs"], s["failed_runs"],
                    k, v["faults"], v["late_losses"], v["last_lost_s_max"],
                    v["faults_losing_echoes"], v["echoes_lost"],
                    v["routes_s_median"], v["routes_s_p90"],
                    v["routes_s_max"], v["routes_under_1s"], v["faults"]))
    return "\n".join(lines) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline-torusd", required=True)
    ap.add_argument("--baseline-name", default="baseline")
    ap.add_argument("--torusd", default=os.path.join(TOP, "build", "bin",
                                                      "torusd"),
                    help="this build's torusd (default build/bin/torusd)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--loads", default="0,2",
                    help="spinning processes in the guest, per config")
    ap.add_argument("--json", default="build/bench-reroute/results.json")
    ap.add_argument("--md", default="build/bench-reroute/results.md")
    args = ap.parse_args(argv)
    this = args.torusd
    res = {"runs": args.runs, "rows": []}
    for load in [int(v) for v in args.loads.split(",")]:
        for name, path in (("this build", this),
                           (args.baseline_name, args.baseline_torusd)):
            runs = []
            for i in range(args.runs):
                fig, fails, secs = one_run(path, load)
                runs.append((fig, fails, secs))
                log("%s, guest load %d, run %d: %.0f s, %s" % (
                    name, load, i + 1, secs,
                    "failed: %s" % fails if fails else "passed"))
            res["rows"].append({"torusd": name, "load": load,
                                "summary": summary(runs)})
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    md = markdown(res)
    with open(args.md, "w") as f:
        f.write(md)
    print(md, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
