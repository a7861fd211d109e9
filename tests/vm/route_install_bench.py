#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Install time of a node's whole exception table from torusd's own path
(runs in the VM; make bench-routes): the same table of N "via"
exceptions in a 64x32x32 fabric (65,536 nodes, as routing_test.py's)
installed with td_nl_route_replace() (daemon/tnl.c, libnl: what torusd
sends after a route computation, built by torusd-route-install) and, as
the baseline, with "torus route batch FILE replace" (libmnl), alternately,
best of R rounds each.  The tool's figure includes its process start and
file parsing; torusd's is timed inside from message build to ACK, and
outside too (process included) for the like-for-like ratio.

    route_install_bench.py [--exceptions N] [--rounds R] [--json FILE]
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import REPO, case, results  # noqa: E402
import torus_lab as tl  # noqa: E402
from routing_test import DIMS, scattered  # noqa: E402

NS = "rib0"
TOOL = os.path.join(REPO, "build", "bin", "torusd-route-install")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exceptions", type=int, default=40000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    fig = {}

    @case("route_install_%d_from_torusd_path" % args.exceptions)
    def bench():
        path = "/tmp/route-install.txt"
        with open(path, "w") as f:
            for dst in scattered(args.exceptions):
                if dst != (0, 0, 0):
                    f.write("%s via %d,0,0\n" % (tl.fmt(dst), dst[0]))
        n = sum(1 for _ in open(path))
        tl.run(["ip", "netns", "add", NS])
        try:
            tl.run(["ip", "-n", NS, "link", "add", "tor0", "type", "torus"])
            tl.run(["torus", "-n", NS, "node", "set", "dev", "tor0", "coord",
                    "0,0,0", "dims", ",".join(map(str, DIMS)), "wrap",
                    "1,1,1"])
            tool, ours, inner = [], [], []
            for _ in range(args.rounds):
                t0 = time.perf_counter()
                tl.run(["torus", "-n", NS, "route", "batch", path,
                        "replace"])
                tool.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                res = tl.run(["ip", "netns", "exec", NS, TOOL, "tor0", path,
                              "1"])
                ours.append(time.perf_counter() - t0)
                inner.append(json.loads(res.stdout)["best_ms"])
            node = tl.loads_strict(tl.run(["torus", "-n", NS, "-j", "node",
                                           "show"]).stdout)[0]
            assert node["routes"] == n, "%d of %d installed" % (
                node["routes"], n)
            # the same cost as exec + parse: "torus route batch" of one
            # line, timed the same way
            with open(path + ".1", "w") as f:
                f.write("1,0,0 via 1,0,0\n")
            start = []
            for _ in range(args.rounds):
                t0 = time.perf_counter()
                tl.run(["torus", "-n", NS, "route", "batch", path + ".1",
                        "replace"])
                start.append(time.perf_counter() - t0)
        finally:
            tl.run(["ip", "netns", "del", NS], check=False)
        fig.update({"exceptions": n, "rounds": args.rounds,
                    "tool_batch_ms": round(min(tool) * 1e3, 1),
                    "tool_batch_1_ms": round(min(start) * 1e3, 1),
                    "torusd_path_ms": round(min(inner), 1),
                    "torusd_path_process_ms": round(min(ours) * 1e3, 1)})
        fig["ratio_torusd_to_tool"] = round(
            fig["torusd_path_process_ms"] / fig["tool_batch_ms"], 2)
        return "%d exceptions, best of %d: torus route batch %.1f ms " \
            "(one line: %.1f ms), torusd's path %.1f ms (%.1f ms with " \
            "its process start; ratio %.2f)" % (
                n, args.rounds, fig["tool_batch_ms"],
                fig["tool_batch_1_ms"], fig["torusd_path_ms"],
                fig["torusd_path_process_ms"], fig["ratio_torusd_to_tool"])

    if not os.access(TOOL, os.X_OK):
        print("SKIP: vm/route_install_%d_from_torusd_path -- %s not built"
              % (args.exceptions, TOOL), flush=True)
        return 0
    bench()
    print("# route install figures: " + json.dumps(fig, sort_keys=True),
          flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(fig, f, sort_keys=True, indent=1)
    return 0 if results["fail"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
