#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""scripts/test-times on made-up tests/run times: suite totals from the
"(suite)" rows, the slowest cases first, a clear error on a file that is
not tests/run's.  Prints one PASS:/FAIL: unit/test_times_<case> line per
case."""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "test-times")

TSV = """suite\tcase\tseconds
unit\tunit/a\t1.50
unit\tunit/b\t0.25
unit\t(suite)\t2.00
vm\tvm/boot_and_rack\t40.00
vm\tvm/ping\t3.00
vm\tvm/rack_freed\t12.00
vm\t(suite)\t56.00
"""


def run(text, *args):
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
        f.write(text)
    try:
        return subprocess.run([sys.executable, SCRIPT, f.name] + list(args),
                              capture_output=True, text=True)
    finally:
        os.unlink(f.name)


def case_totals():
    out = run(TSV).stdout
    assert "| unit | 2 | 2.0 |" in out, out
    assert "| vm | 3 | 56.0 |" in out, out
    assert "| all | 5 | 58.0 |" in out, out


def case_slowest_first():
    out = run(TSV, "--slowest", "2").stdout
    line = [ln for ln in out.splitlines() if ln.startswith("| vm | `")][0]
    assert line == "| vm | `vm/boot_and_rack` 40.0, `vm/rack_freed` 12.0 |", line


def case_one_suite():
    out = run(TSV, "--suite", "vm").stdout
    assert "| unit |" not in out and "| vm | 3 | 56.0 |" in out, out


def case_refuses_other_files():
    res = run("name,value\n")
    assert res.returncode == 1 and "not tests/run's times" in res.stderr, \
        (res.returncode, res.stderr)


def main():
    failed = 0
    for name in ("totals", "slowest_first", "one_suite",
                 "refuses_other_files"):
        try:
            globals()["case_" + name]()
            print("PASS: unit/test_times_%s" % name, flush=True)
        except AssertionError as e:
            failed += 1
            print("FAIL: unit/test_times_%s: %s" % (name, e), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
