#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every -j output that runs without the module, through a strict parser.

torus-sim and torus-lab (plan, and the errors of non-finite input) run
here; the torus tool's -j output needs torus.ko and is parsed strictly by
the VM scenarios (tests/vm/fabric_test.py json_strict_odd_ifname_big_id
and every torus_lab.Rack.torus_json call); bench results files
(build/bench/*.json) are checked here when a bench has written them, and
by the bench scripts themselves.  Prints PASS:/FAIL:/SKIP: json/<case>.

    TORUS_SIM=build/bin/torus-sim python3 tests/unit/json_outputs.py
"""

import glob
import os
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "tools", "lab"))
import json_strict  # noqa: E402
import torus_lab  # noqa: E402

SIM = os.environ.get("TORUS_SIM", os.path.join(REPO, "build", "bin",
                                               "torus-sim"))
LAB = [sys.executable, os.path.join(REPO, "tools", "lab", "torus-lab")]
failed = 0


def case(name, fn, *args):
    global failed
    try:
        msg = fn(*args)
    except Exception as e:  # noqa: BLE001 - a broken step fails the case
        print("    %s: %s" % (type(e).__name__, e), file=sys.stderr)
        if not isinstance(e, AssertionError):
            traceback.print_exc()
        print("FAIL: json/%s" % name, flush=True)
        failed += 1
        return
    if isinstance(msg, str) and msg.startswith("SKIP"):
        print("SKIP: json/%s: %s" % (name, msg[5:]), flush=True)
    else:
        print("PASS: json/%s" % name, flush=True)


def run_json(args, want_rc=(0, 1)):
    """Run, parse its stdout strictly; the exit status must be in want_rc
    (torus-sim exits 1 when a run did not converge)."""
    res = subprocess.run(args, capture_output=True, timeout=300)
    assert res.returncode in want_rc, "%s: exit %d: %s" % (
        " ".join(args), res.returncode, res.stderr.decode("utf-8", "replace"))
    return json_strict.parse(res.stdout)


# ---- torus-sim ----

def sim(*args):
    out = run_json([SIM, "-j"] + list(args))
    assert isinstance(out, dict) and out["per_run"], out
    return out


def sim_small_blocks_bound_null():
    """Eq. 6 does not apply to blocks under 5 a side: null, not -nan."""
    out = sim("--dims", "8x8x8", "--block", "4x4x4", "--miswire", "blocks")
    for k in ("lower_bound", "lower_bound_fail", "lower_bound_faces"):
        assert out[k] is None, (k, out[k])


def sim_bound_from_5():
    out = sim("--dims", "10x10x10", "--block", "5x5x5", "--miswire",
              "blocks", "--node-fail", "0.01", "--max-rounds", "1")
    assert 0 < out["lower_bound"] <= 1, out["lower_bound"]
    assert 0 <= out["lower_bound_fail"] < 1, out["lower_bound_fail"]
    assert out["lower_bound_faces"] == 24, out["lower_bound_faces"]


def sim_bgl_eq8():
    out = sim("--dims", "32x32x64", "--block", "8x8x8", "--node-fail",
              "0.15", "--link-fail", "0.15", "--max-rounds", "1")
    assert 0.99999999 < out["lower_bound_eq8"] < 1, out
    assert isinstance(out["lower_bound_eq8_fail"], float), out


SIM_CASES = [
    ("sim_2x2x2", ["--dims", "2x2x2"]),
    ("sim_mesh_3x3", ["--dims", "3x3", "--wrap", "0,0", "--miswire",
                      "nodes"]),
    ("sim_4d", ["--dims", "2x2x2x2", "--miswire", "nodes"]),
    ("sim_blocks_4x4x4_b2", ["--dims", "4x4x4", "--block", "2x2x2",
                             "--miswire", "blocks"]),
    # unplaced nodes with reasons, several runs, null rounds_to_placed
    ("sim_faults_runs", ["--dims", "4x4x4", "--miswire", "nodes",
                         "--node-fail", "0.3", "--link-fail", "0.2",
                         "--runs", "3", "--seed", "4"]),
    ("sim_cut_short", ["--dims", "6x6", "--miswire", "nodes",
                       "--max-rounds", "2"]),
    # a history: nulls for ticks that never came, the time object
    ("sim_time_history", ["--dims", "4x4x4", "--miswire", "nodes",
                          "--start-spread", "50", "--loss", "0.05",
                          "--restart", "2", "--wrong-plug", "1",
                          "--grow", "x:1", "--liar", "1", "--runs", "2"]),
]


# ---- torus-lab ----

PLANS = [
    ("lab_plan_torus", ["--dims", "4x4x4"]),
    ("lab_plan_blocks_faults", ["--dims", "4x4x4", "--block", "2x2x2",
                                "--dead", "2", "--cut", "3", "--seed", "5",
                                "--settle", "0.5", "--stall", "10"]),
    ("lab_plan_mesh_nodes", ["--dims", "3x3", "--wrap", "mesh",
                             "--miswire", "nodes"]),
]


def lab_plan(args):
    out = run_json(LAB + ["-j", "plan"] + args, want_rc=(0,))
    assert out["nodes"] and out["spec"]["settle"] >= 0, out["spec"]
    # lab ids are 48-bit: exact as JSON numbers (below 2^53)
    assert all(0 < nd["id"] < 1 << 48 for nd in out["nodes"])


def lab_nonfinite_rejected():
    """--settle/--stall nan, inf: exit 2 with a clear error, no output."""
    for opt in ("--settle", "--stall"):
        for v in ("nan", "NaN", "inf", "-inf", "Infinity", "1e999", "-1"):
            res = subprocess.run(LAB + ["-j", "plan", "--dims", "2x2",
                                        opt + "=" + v],
                                 capture_output=True, text=True, timeout=60)
            assert res.returncode == 2 and not res.stdout, (opt, v, res)
            assert "must be a finite number" in res.stderr, res.stderr


def lab_spec_file_nonfinite_rejected():
    """The same through spec files, key = value and JSON (whose NaN
    literal the strict parser refuses)."""
    texts = ["dims = 2x2\nsettle = nan\n",
             '{"dims": "2x2", "stall": Infinity}',
             '{"dims": "2x2", "settle": NaN}']
    for text in texts:
        with tempfile.NamedTemporaryFile("w", suffix=".spec") as f:
            f.write(text)
            f.flush()
            res = subprocess.run(LAB + ["-j", "plan", "--spec", f.name],
                                 capture_output=True, text=True, timeout=60)
        assert res.returncode == 2 and not res.stdout, (text, res)
        assert "finite" in res.stderr or "not strict JSON" in res.stderr, \
            res.stderr


def lab_dumps_refuses_nan():
    for v in (float("nan"), float("inf"), float("-inf")):
        try:
            torus_lab.dumps({"x": v})
        except ValueError:
            continue
        raise AssertionError("dumps wrote %r" % v)
    assert torus_lab.dumps({"x": 1.5}) == '{"x": 1.5}'


def strict_parser_refuses():
    """The parser this test relies on refuses what it must."""
    for raw in (b'{"a": NaN}', b'[Infinity]', b'[-Infinity]',
                b'{"a": -nan}', b'["\xe9"]', b'["\xed\xa0\x80"]'):
        try:
            json_strict.parse(raw)
        except ValueError:
            continue
        raise AssertionError("accepted %r" % raw)
    assert json_strict.parse('["\\u00e9\\u0001"]'.encode()) == ["\xe9\x01"]
    assert json_strict.parse(b'"13441520399186018479"') == \
        "13441520399186018479"


def bench_results_files():
    files = sorted(glob.glob(os.path.join(REPO, "build", "bench", "*.json")))
    if not files:
        return "SKIP no build/bench/*.json (make bench, make bench-sim)"
    for path in files:
        with open(path, "rb") as f:
            json_strict.parse(f.read())
    return None


def topo_document():
    """torus -j topo --from: a document with odd names reads back
    strictly and unchanged (the one -j output of torus that needs no
    module)."""
    tool = os.path.join(REPO, "build", "bin", "torus")
    if not os.access(tool, os.X_OK):
        return "SKIP no build/bin/torus (make tools)"
    doc = {"dims": [2, 2], "wrap": [True, False],
           "nodes": [{"name": "n\u00e9\"<&>\\", "coord": [1, 0],
                      "state": "placed", "role": "lamb", "reason": ""},
                     {"name": "u", "coord": None, "state": "unplaced",
                      "role": "none", "reason": "tab\there"}],
           "cables": [{"from": [0, 0], "axis": 0, "cut": True}],
           "path": [[0, 0], [1, 0]]}
    res = subprocess.run([tool, "-j", "topo", "from", "-"],
                         input=torus_lab.dumps(doc).encode(),
                         capture_output=True, timeout=60)
    assert res.returncode == 0, res.stderr
    back = json_strict.parse(res.stdout)
    assert back == doc, back
    return None


def main():
    case("strict_parser_refuses", strict_parser_refuses)
    case("topo_document", topo_document)
    if os.access(SIM, os.X_OK):
        for name, args in SIM_CASES:
            case(name, sim, *args)
        case("sim_small_blocks_bound_null", sim_small_blocks_bound_null)
        case("sim_bound_from_5", sim_bound_from_5)
        case("sim_bgl_eq8", sim_bgl_eq8)
    else:
        print("FAIL: json/sim: %s missing (make tools)" % SIM)
        global failed
        failed += 1
    for name, args in PLANS:
        case(name, lab_plan, args)
    case("lab_nonfinite_rejected", lab_nonfinite_rejected)
    case("lab_spec_file_nonfinite_rejected",
         lab_spec_file_nonfinite_rejected)
    case("lab_dumps_refuses_nan", lab_dumps_refuses_nan)
    case("bench_results_files", bench_results_files)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
