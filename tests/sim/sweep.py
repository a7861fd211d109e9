#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/sim/sweep.py - torus-sim over a table of rows (make sim-sweep).

    tests/sim/sweep.py                  every row; build/sim-sweep.{json,md}
    tests/sim/sweep.py --quick --check  the make check subset: one
                                        PASS:/FAIL: line per row (fewer
                                        seeds, discovery only: --no-ls)
    tests/sim/sweep.py --rows 'i11-*'   rows whose name matches a glob
                                        (repeat --rows for several)
    tests/sim/sweep.py --list           the rows, without running them

Rows (see ROWS below):
  i6-*    shapes and faults: 8x8x8, 9x7x5, 12x10x6 with a mesh y axis, 8x8x8 all
          mesh, 6x6x4x3x2 (flat: miswire none and nodes), 16x16x16 in
          4x4x4 blocks and 32x32x64 in 8x8x8 blocks (miswire none and
          blocks), node and cable faults 0, 5/5, 10/10, 15/15 percent;
          100 seeds (5 at 65,536 nodes).
  i11-*   histories: 4x4x4, 8x8x8, 6x6x6 flat (miswire nodes) and
          16x16x16 in 4x4x4 blocks, each with starts spread over 10x the
          quiet time (300 ticks), 5% loss, 5 daemon restarts, one lying
          neighbour; i11-*-grow also adds a slab; 100 seeds.
  t-*     one time option at a time on 6x6x6 flat, 100 seeds: which
          fault breaks what.
  g-*     a ring grown every way it can grow (miswire nodes, 100 seeds):
          from a ring of two, by a slab wider than two, by a multiple of
          its extent, beside rings of two (5% loss); alone and with 5
          daemon restarts.
  m-*     fabrics with mesh axes (lines) in time: the i11 history,
          restarts alone, every daemon reloaded at random ticks, and a
          ring grown beside a line (100 seeds).
  x-*     cables plugged back crossed (each into a wrong node and port)
          on fabrics with one or two mesh axes, alone and with starts
          spread over 300 ticks and 5% loss (100 seeds).

Per row: runs inconsistent at the end, runs with a node placed wrongly
at some tick (wrong > 0), runs where a placed node moved although its
own cables did not change (moved > 0; with growth, in brackets, the runs
where a node moved otherwise than the renumbering the growth forces:
once, along the grown ring, by the slab's width), runs not converged,
the placed fraction of the main component (mean, min) and the unplaced
reasons.
With --check, a row passes when all four run counts are 0.

Options: --sim PATH (default build/bin/torus-sim, or $TORUS_SIM),
--out FILE (build/sim-sweep.json), --md FILE (build/sim-sweep.md),
--jobs N (parallel torus-sim processes, default 1), --seed N (first
seed, default 1000), --timeout S (per row, default 3600).
Exit status: with --check 1 if a row failed, else 1 only when torus-sim
could not run.
"""
import argparse
import concurrent.futures
import datetime
import fnmatch
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

FAULTS = [0.0, 0.05, 0.10, 0.15]

# shapes and faults: (name, dims args, modes, seeds)
SHAPES6 = [
    ("8x8x8", ["--dims", "8x8x8"], ["none", "nodes"], 100),
    ("9x7x5", ["--dims", "9x7x5"], ["none", "nodes"], 100),
    ("12x10x6-mesh-y", ["--dims", "12x10x6", "--mesh", "y"],
     ["none", "nodes"], 100),
    ("8x8x8-mesh", ["--dims", "8x8x8", "--mesh", "xyz"],
     ["none", "nodes"], 100),
    ("6x6x4x3x2", ["--dims", "6x6x4x3x2"], ["none", "nodes"], 100),
    ("16x16x16-b4", ["--dims", "16x16x16", "--block", "4x4x4"],
     ["none", "blocks"], 100),
    ("32x32x64-b8", ["--dims", "32x32x64", "--block", "8x8x8"],
     ["none", "blocks"], 5),
]

# histories: 10x the quiet time (30 ticks = 1.5 s at 50 ms), 5% loss,
# restarts, growth by a slab, one lying neighbour
TIME11 = ["--start-spread", "300", "--loss", "0.05", "--restart", "5",
          "--liar", "1"]
SHAPES11 = [
    ("4x4x4", ["--dims", "4x4x4", "--miswire", "nodes"], "x:1"),
    ("8x8x8", ["--dims", "8x8x8", "--miswire", "nodes"], "x:2"),
    ("6x6x6", ["--dims", "6x6x6", "--miswire", "nodes"], "x:2"),
    ("16x16x16-b4", ["--dims", "16x16x16", "--block", "4x4x4",
                     "--miswire", "blocks"], "z:4"),
]

# one time option at a time
SINGLE = [
    ("spread-random", ["--start-spread", "300"]),
    ("spread-ids", ["--start-spread", "300", "--start-order", "ids"]),
    ("spread-axes", ["--start-spread", "300", "--start-order", "axes"]),
    ("loss", ["--loss", "0.05"]),
    ("dup", ["--dup", "0.05"]),
    ("reorder", ["--reorder", "0.05"]),
    ("restart-resume", ["--restart", "5"]),
    ("restart-fresh", ["--restart", "5:fresh"]),
    ("recable", ["--recable", "3"]),
    ("wrong-plug", ["--wrong-plug", "1"]),
    ("grow", ["--grow", "x:2"]),
    ("liar-lying", ["--liar", "1:lying"]),
    ("liar-random", ["--liar", "1:random"]),
]


# rings grown in every way a ring can grow: from a ring of two (no sign),
# by a slab wider than two (newcomers cabled only to newcomers), by a
# multiple of the extent (no turn shows it), alone and with restarts
GROWTH = [
    ("2to4", ["--dims", "4x4x4", "--grow", "x:2"]),
    ("2to6", ["--dims", "6x6x6", "--grow", "x:4"]),
    ("4to8", ["--dims", "8x8x8", "--grow", "x:4"]),
    ("6to12", ["--dims", "12x4x4", "--grow", "x:6"]),
    ("5to10", ["--dims", "10x5x4", "--grow", "x:5"]),
    ("4to6-beside-2", ["--dims", "6x4x2x2", "--grow", "x:2",
                       "--loss", "0.05"]),
]
GROWTH_TIME = [
    ("", []),
    ("-restarts", ["--restart", "5"]),
]

# lines: a resumed node counts a line from its start, as the kernel
# keeps it, the frame from its leader (tcore_resume.c)
MESH = [
    ("8x8x8-mesh-y", ["--dims", "8x8x8", "--mesh", "y"] + TIME11),
    ("12x10x6-mesh-y", ["--dims", "12x10x6", "--mesh", "y"] + TIME11),
    ("6x6x6-mesh-xz", ["--dims", "6x6x6", "--mesh", "xz"] + TIME11),
    ("5x5x5-mesh-z-restarts", ["--dims", "5x5x5", "--mesh", "z",
                               "--restart", "5"]),
    ("4x4x4-mesh-xyz-reload", ["--dims", "4x4x4", "--mesh", "xyz",
                               "--restart", "200"]),
    ("6x6x6-mesh-z-grow", ["--dims", "6x6x6", "--mesh", "z",
                           "--grow", "x:2"] + TIME11),
]

# crossed plugs on fabrics with mesh axes: a line's end that is only a
# refuted cable must not be taken for the line's end, nor its far node
# for a neighbour (with the time options of a busy rack, and without)
CROSSED = [
    ("10x5x4-mesh-xy", ["--dims", "10x5x4", "--mesh", "xy",
                        "--wrong-plug", "1"]),
    ("8x6x5-mesh-z", ["--dims", "8x6x5", "--mesh", "z", "--wrong-plug", "1"]),
    ("12x10x6-mesh-y", ["--dims", "12x10x6", "--mesh", "y",
                        "--wrong-plug", "1"]),
    ("6x6x6-mesh-xz", ["--dims", "6x6x6", "--mesh", "xz",
                       "--wrong-plug", "1"]),
    ("6x6x6-mesh-x-2", ["--dims", "6x6x6", "--mesh", "x",
                        "--wrong-plug", "2"]),
    ("9x7x5-mesh-yz-2", ["--dims", "9x7x5", "--mesh", "yz",
                         "--wrong-plug", "2"]),
]
CROSSED_TIME = [
    ("", []),
    ("-time", ["--start-spread", "300", "--loss", "0.05"]),
]


def pct(f):
    return "%d" % round(f * 100)


def family_rows(prefix, shapes, variants):
    """a row per shape (--dims first) and variant (a name suffix and the
    options it adds), miswire nodes, no faults, 100 seeds"""
    return [{
        "name": "%s-%s%s" % (prefix, name, suffix), "shape": args[1],
        "mode": "nodes", "faults": "0/0",
        "time": " ".join(args[2:] + more),
        "args": args + ["--miswire", "nodes"] + more,
        "seeds": 100} for name, args in shapes for suffix, more in variants]


def rows_all():
    rows = []
    for name, dims, modes, seeds in SHAPES6:
        for mode in modes:
            for f in FAULTS:
                args = dims + ["--miswire", mode]
                if f:
                    args += ["--node-fail", "%g" % f, "--link-fail", "%g" % f]
                rows.append({
                    "name": "i6-%s-%s-f%s" % (name, mode, pct(f)),
                    "shape": name, "mode": mode,
                    "faults": "%s/%s" % (pct(f), pct(f)),
                    "time": "", "args": args, "seeds": seeds})
    # the histories without growth, then with it (a ring grown in the
    # middle of its coordinates must renumber: see README)
    for name, args, grow in SHAPES11:
        mode = "blocks" if "--block" in args else "nodes"
        rows.append({
            "name": "i11-%s" % name, "shape": name, "mode": mode,
            "faults": "0/0",
            "time": "spread 300, loss 5%, 5 restarts, 1 liar",
            "args": args + TIME11, "seeds": 100})
        rows.append({
            "name": "i11-%s-grow" % name, "shape": name, "mode": mode,
            "faults": "0/0",
            "time": "spread 300, loss 5%%, 5 restarts, grow %s, 1 liar"
                    % grow,
            "args": args + ["--grow", grow] + TIME11, "seeds": 100})
    for name, args in SINGLE:
        rows.append({
            "name": "t-6x6x6-%s" % name, "shape": "6x6x6", "mode": "nodes",
            "faults": "0/0", "time": " ".join(args),
            "args": ["--dims", "6x6x6", "--miswire", "nodes"] + args,
            "seeds": 100})
    rows += family_rows("g", GROWTH, GROWTH_TIME)
    for name, args in MESH:
        rows.append({
            "name": "m-%s" % name, "shape": args[1], "mode": "nodes",
            "faults": "0/0", "time": " ".join(args[4:]),
            "args": args + ["--miswire", "nodes"], "seeds": 100})
    rows += family_rows("x", CROSSED, CROSSED_TIME)
    return rows


# make check: a few rows, few seeds, under 2 minutes on this machine
QUICK = {
    "i6-8x8x8-nodes-f5": 20,
    "i6-9x7x5-nodes-f15": 20,
    "i6-16x16x16-b4-blocks-f10": 20,
    "i11-4x4x4": 20,
    "i11-6x6x6": 10,
    "i11-16x16x16-b4": 10,
    "t-6x6x6-loss": 20,
    "t-6x6x6-recable": 20,
    "t-6x6x6-liar-random": 20,
    "m-5x5x5-mesh-z-restarts": 20,
    "x-10x5x4-mesh-xy": 100,
    "x-8x6x5-mesh-z": 100,
    "x-12x10x6-mesh-y": 100,
    "x-6x6x6-mesh-xz": 100,
    "x-6x6x6-mesh-x-2": 100,
    "x-9x7x5-mesh-yz-2": 100,
}


BIG_NODES = 16384


def nodes(row):
    """the row's node count, from its --dims"""
    dims = row["args"][row["args"].index("--dims") + 1]
    n = 1
    for d in dims.split("x"):
        n *= int(d)
    return n


def run_row(sim, row, seed, timeout):
    cmd = [sim, "-j", "--seed", str(seed), "--runs", str(row["seeds"])]
    cmd += row["args"]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout,
                           check=False)
    except subprocess.TimeoutExpired:
        return {"error": "timeout after %d s" % timeout, "cmd": cmd}
    wall = time.monotonic() - t0
    if p.returncode > 1:
        return {"error": "exit %d: %s" % (p.returncode,
                                          p.stderr.decode()[:300]),
                "cmd": cmd}
    try:
        j = json.loads(p.stdout)
    except ValueError:
        return {"error": "no JSON: %s" % p.stderr.decode()[:300],
                "cmd": cmd}
    runs = j["per_run"]
    fr = [r["main_placed_fraction"] for r in runs]
    return {
        "cmd": " ".join(cmd[1:]),
        "runs": len(runs),
        "runs_inconsistent": sum(1 for r in runs if not r["consistent"]),
        "runs_wrong": sum(1 for r in runs if r["wrong"] > 0),
        "runs_moved": sum(1 for r in runs if r["moved"] > 0),
        # moves other than the one renumbering a ring's growth forces
        "runs_moved_unforced": sum(
            1 for r in runs if r["moved"] - r["moved_after_growth"] +
            r.get("moved_beyond_growth", r["moved_after_growth"]) > 0),
        "runs_not_converged": sum(1 for r in runs if not r["converged"]),
        "placed_fraction_mean": sum(fr) / len(fr),
        "placed_fraction_min": min(fr),
        "wrong": j["wrong"],
        "wrong_by": {k: j["wrong_" + k]
                     for k in ("coord", "dims", "portmap", "frame")},
        "moved": j["moved"],
        "moved_rewired": j["moved_rewired"],
        "moved_after_growth": j["moved_after_growth"],
        "moved_beyond_growth": j.get("moved_beyond_growth"),
        "unplaced_reasons": j["unplaced_reasons"],
        "oversize_msgs": j["oversize_msgs"],
        "queue_drops": j["queue_drops"],
        "bad_rx": sum(r["bad_rx"] for r in runs),
        "wall_s": round(wall, 1),
    }


def ok(res):
    """No run inconsistent, wrong or unconverged, and no placed node
    moved but as a ring's growth forces: once, by the slab's width (the
    arc behind it; a ring's coordinates are consecutive)."""
    return "error" not in res and not (
        res["runs_inconsistent"] or res["runs_wrong"] or
        res["runs_moved_unforced"] or res["runs_not_converged"])


def moved_cell(res):
    """runs that moved nodes; with growth, how many of them moved a node
    otherwise than the growth forces"""
    if not res["moved_after_growth"]:
        return "%d" % res["runs_moved"]
    return "%d (%d beyond growth)" % (res["runs_moved"],
                                      res["runs_moved_unforced"])


def reasons_str(reasons, top=3):
    items = sorted(reasons.items(), key=lambda kv: -kv[1])
    s = "; ".join("%s: %d" % kv for kv in items[:top])
    if len(items) > top:
        s += "; +%d more" % (len(items) - top)
    return s


HEAD = ("| row | shape | mode | faults | time | seeds | inconsistent | "
        "wrong>0 | moved>0 | not converged | placed main (mean, min) | "
        "unplaced reasons |")


def md_line(row, res):
    if "error" in res:
        return "| %s | %s | %s | %s | %s | %d | error: %s | | | | | |" % (
            row["name"], row["shape"], row["mode"], row["faults"],
            row["time"], row["seeds"], res["error"].replace("|", "/"))
    return "| %s | %s | %s | %s | %s | %d | %d | %d | %s | %d | %.4f, %.4f | %s |" % (
        row["name"], row["shape"], row["mode"], row["faults"], row["time"],
        res["runs"], res["runs_inconsistent"], res["runs_wrong"],
        moved_cell(res), res["runs_not_converged"],
        res["placed_fraction_mean"], res["placed_fraction_min"],
        reasons_str(res["unplaced_reasons"]).replace("|", "/"))


def write_partial(path, rows, results):
    done = [dict(r, **res) for r, res in zip(rows, results) if res]
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"rows": done}, f, indent=1)


def git_head():
    try:
        return subprocess.run(["git", "-C", REPO, "rev-parse", "--short",
                               "HEAD"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL,
                              check=False).stdout.decode().strip()
    except OSError:
        return ""


def main():
    ap = argparse.ArgumentParser(
        description="torus-sim over a table of rows (make sim-sweep)")
    ap.add_argument("--sim", default=os.environ.get(
        "TORUS_SIM", os.path.join(REPO, "build/bin/torus-sim")))
    ap.add_argument("--out", default=os.path.join(REPO, "build/sim-sweep.json"))
    ap.add_argument("--md", default=os.path.join(REPO, "build/sim-sweep.md"))
    ap.add_argument("--quick", action="store_true",
                    help="the make check subset, fewer seeds")
    ap.add_argument("--check", action="store_true",
                    help="PASS:/FAIL: per row; fail on any bad run")
    ap.add_argument("--rows", action="append",
                    help="glob of row names (again: any of them; "
                         "default every row)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--timeout", type=int, default=3600)
    ap.add_argument("--update", action="store_true",
                    help="keep the other rows of --out, replace these")
    a = ap.parse_args()

    globs = a.rows or ["*"]
    rows = [r for r in rows_all()
            if any(fnmatch.fnmatch(r["name"], g) for g in globs)]
    if a.quick:
        # discovery only: link state, measured once everybody is placed,
        # took 15 of 16 s of a 4096-node run; its own cases are in
        # tests/sim/run.sh, and the full sweep measures it on every row
        rows = [dict(r, seeds=QUICK[r["name"]], args=r["args"] + ["--no-ls"])
                for r in rows if r["name"] in QUICK]
    if a.list:
        for r in rows:
            print("%-34s %4d seeds  %s" % (r["name"], r["seeds"],
                                          " ".join(r["args"])))
        return 0
    if not os.access(a.sim, os.X_OK):
        print("FAIL: sim/sweep: %s missing (make tools)" % a.sim)
        return 1

    t0 = time.monotonic()
    results = [None] * len(rows)
    # a run of 65,536 nodes holds some 10 GB: two at once do not fit in
    # this machine's 24 GB, so the big rows run one at a time, last
    small = [i for i, r in enumerate(rows) if nodes(r) < BIG_NODES]
    big = [i for i, r in enumerate(rows) if nodes(r) >= BIG_NODES]
    for batch, jobs in ((small, a.jobs), (big, 1)):
        with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as ex:
            futs = {ex.submit(run_row, a.sim, rows[i], a.seed,
                              a.timeout): i for i in batch}
            for fut in concurrent.futures.as_completed(futs):
                i = futs[fut]
                results[i] = fut.result()
                if not a.check:
                    print(md_line(rows[i], results[i]), file=sys.stderr,
                          flush=True)
                    # what is done so far survives an interrupted sweep
                    write_partial(a.out + ".partial", rows, results)
    total = time.monotonic() - t0

    failed = 0
    lines = [HEAD, "|" + "---|" * 12]
    for r, res in zip(rows, results):
        lines.append(md_line(r, res))
        if a.check:
            name = "sim/sweep-%s" % r["name"]
            if ok(res):
                print("PASS: %s" % name)
            else:
                failed = 1
                why = res.get("error") or (
                    "%d inconsistent, %d wrong, %d moved (beyond growth), "
                    "%d not converged of %d runs (wrong by %s)" % (
                        res["runs_inconsistent"], res["runs_wrong"],
                        res["runs_moved_unforced"], res["runs_not_converged"],
                        res["runs"], res["wrong_by"]))
                print("FAIL: %s: %s" % (name, why))
        elif "error" in res:
            failed = 1

    doc = {
        "generated": datetime.datetime.now(datetime.timezone.utc)
        .strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": git_head(),
        "first_seed": a.seed,
        "quick": a.quick,
        "wall_s": round(total, 1),
        "rows": [dict(r, **res) for r, res in zip(rows, results)],
    }
    if a.update and os.path.exists(a.out):
        # the rows run now replace theirs, in the table's order
        with open(a.out) as f:
            old = json.load(f)
        new = {r["name"]: r for r in doc["rows"]}
        merged = [new.pop(r["name"], r) for r in old["rows"]]
        doc["rows"] = merged + list(new.values())
        doc["wall_s"] = round(old.get("wall_s", 0) + total, 1)
        lines = [HEAD, "|" + "---|" * 12] + [
            md_line(r, r) for r in doc["rows"]]
    if not a.check:
        for path, text in ((a.out, json.dumps(doc, indent=1) + "\n"),
                           (a.md, "\n".join(lines) + "\n")):
            os.makedirs(os.path.dirname(os.path.abspath(path)),
                        exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        if os.path.exists(a.out + ".partial"):
            os.unlink(a.out + ".partial")
        print("\n".join(lines))
        print("\n%d rows in %.0f s; %s, %s" % (len(rows), total, a.out,
                                               a.md))
    return failed


if __name__ == "__main__":
    sys.exit(main())
