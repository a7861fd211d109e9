# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared harness of the Python VM scenarios: result lines for the
aggregator (PASS:/FAIL:/SKIP: vm/<case>) and a decorator that turns an
assertion or an exception in a case into a FAIL line with its reason."""

import errno
import fnmatch
import os
import shutil
import stat
import subprocess
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

# TORUS_ONLY_CASES: comma-separated glob patterns (tests/run --repeat
# vm/CASE passes them through tests/vm/run); a case whose name matches
# none is not run and prints no result line.
ONLY_CASES = [p.strip() for p in
              os.environ.get("TORUS_ONLY_CASES", "").split(",") if p.strip()]

# Each case's logs: TORUS_TEST_LOGS/<case>/[TORUS_TEST_LOG_SUB/] gets the
# kernel log of the case (dmesg.log) and a copy of the run directories of
# the labs alive during it (labs/); tests/run sets both (the suite's
# directory under build/test-logs, and run-<k> under --repeat) and writes
# output.log beside them from the suite's output.
TEST_LOGS = os.environ.get("TORUS_TEST_LOGS") or os.path.join(
    REPO, "build", "test-logs", "vm")
TEST_LOG_SUB = os.environ.get("TORUS_TEST_LOG_SUB", "")
LOG_FILE_MAX = 20 << 20     # larger files of a run directory are not copied


def selected(name):
    """Whether case NAME is to run (TORUS_ONLY_CASES)."""
    return not ONLY_CASES or any(fnmatch.fnmatchcase(name, p)
                                 for p in ONLY_CASES)


def report(name, ok, msg=""):
    if not selected(name):
        return
    results["pass" if ok else "fail"] += 1
    print("%s: vm/%s%s" % ("PASS" if ok else "FAIL", name,
                            "" if ok or not msg else " -- " + msg),
          flush=True)


def skip(name, why):
    if not selected(name):
        return
    results["skip"] += 1
    print("SKIP: vm/%s -- %s" % (name, why), flush=True)


def _log_note(what, e):
    print("# test logs: %s: %s: %s" % (what, type(e).__name__, e),
          flush=True)


class _KernelLog:
    """The kernel log from now on: the records of /dev/kmsg after its
    end at the start (no process started), else the lines of dmesg after
    those it had at the start."""

    def __init__(self):
        self.fd, self.lines = None, None
        try:
            self.fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
            os.lseek(self.fd, 0, os.SEEK_END)
        except OSError:
            self.close()
            self.lines = len(self._dmesg())

    @staticmethod
    def _dmesg():
        return subprocess.run(["dmesg"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, timeout=30,
                              check=False).stdout.decode(
                                  errors="replace").splitlines()

    def read(self):
        if self.fd is None:
            return "".join(l + "\n" for l in self._dmesg()[self.lines:])
        out = []
        while True:
            try:
                rec = os.read(self.fd, 8192)
            except OSError as e:
                if e.errno == errno.EPIPE:  # overwritten: skip ahead
                    out.append("# (kernel log records lost)\n")
                    continue
                if e.errno == errno.EAGAIN:
                    break
                raise
            if not rec:
                break
            # "prio,seq,usec,flags[,...];text\n[ KEY=value\n]..."
            head, _, rest = rec.decode(errors="replace").partition(";")
            text = rest.split("\n")[0]
            f = head.split(",")
            usec = int(f[2]) if len(f) > 2 and f[2].isdigit() else 0
            out.append("[%5d.%06d] %s\n" % (usec // 1000000,
                                             usec % 1000000, text))
        return "".join(out)

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _snapshot(top):
    """{path: (size, mtime)} of the regular files under TOP."""
    snap = {}
    for d, _, names in os.walk(top):
        for n in names:
            p = os.path.join(d, n)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                snap[p] = (st.st_size, st.st_mtime_ns)
    return snap


def _ignorer(before=None):
    """copytree's ignore: sockets, fifos, devices, files over
    LOG_FILE_MAX, and the files still as in BEFORE (a _snapshot)."""
    def ignore(src, names):
        skip_ = []
        for n in names:
            p = os.path.join(src, n)
            try:
                st = os.lstat(p)
            except OSError:
                skip_.append(n)
                continue
            if stat.S_ISDIR(st.st_mode) or stat.S_ISLNK(st.st_mode):
                continue
            if not stat.S_ISREG(st.st_mode) or st.st_size > LOG_FILE_MAX \
                    or (before and before.get(p) ==
                        (st.st_size, st.st_mtime_ns)):
                skip_.append(n)
        return skip_
    return ignore


_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                  "0123456789._-")


def case_log_dir(name):
    safe = "".join(c if c in _SAFE else "_" for c in name)
    if safe in ("", ".", ".."):
        safe = "_" + safe
    return os.path.join(TEST_LOGS, safe, TEST_LOG_SUB)


def _save_logs(name, klog, labs, before=None):
    """Keep case NAME's kernel log and its labs' run directories (of
    those in BEFORE, {run_dir: _snapshot}, only the files changed since);
    any failure is a '#' line, never the case's."""
    before = before or {}
    try:
        d = case_log_dir(name)
        os.makedirs(d, exist_ok=True)
    except Exception as e:
        _log_note(name, e)
        return
    try:
        with open(os.path.join(d, "dmesg.log"), "w") as f:
            f.write(klog.read())
    except Exception as e:
        _log_note(name + " dmesg.log", e)
    taken = set()
    for src in labs:
        try:
            if not os.path.isdir(src):
                continue
            base = os.path.basename(os.path.normpath(src)) or "lab"
            dst, i = base, 1
            while dst in taken:
                i += 1
                dst = "%s.%d" % (base, i)
            taken.add(dst)
            # copyfile: the contents only, fewer 9p round trips
            shutil.copytree(src, os.path.join(d, "labs", dst),
                            symlinks=True, ignore=_ignorer(before.get(src)),
                            copy_function=shutil.copyfile,
                            dirs_exist_ok=True)
        except Exception as e:
            _log_note("%s labs %s" % (name, src), e)


def _labs_now():
    """(labs alive, how many were made so far), or (None, None) when
    torus_lab is not in use."""
    tl = sys.modules.get("torus_lab")
    if tl is None or not hasattr(tl, "LABS_MADE"):
        return None, None
    return list(tl.LABS_ALIVE.values()), len(tl.LABS_MADE)


def _labs_since(alive0, made0):
    """The run directories of the labs alive at the case's start, made
    during it, or alive at its end, each once."""
    tl = sys.modules.get("torus_lab")
    if tl is None or not hasattr(tl, "LABS_MADE"):
        return []
    dirs = list(alive0 or []) + tl.LABS_MADE[made0 or 0:] + \
        list(tl.LABS_ALIVE.values())
    return list(dict.fromkeys(dirs))


def case(name):
    """Run the decorated function as test case NAME: a returned string is
    shown beside the timing; the wrapper returns whether it passed (None,
    body not run and no result line, when NAME is not selected by
    TORUS_ONLY_CASES).  Pass or fail, the case's logs are kept under
    TEST_LOGS/NAME/ (see case_log_dir): its kernel log, and its labs' run
    directories, whole for a failed case; a passed case keeps only the
    files made or changed during it (each file costs ~15 ms over 9p
    under TCG, and a 4x4x4 lab has over 128)."""
    def wrap(fn):
        def run(*a, **kw):
            if not selected(name):
                return None
            t0 = time.monotonic()
            klog, alive0, made0, before = None, None, None, {}
            try:
                klog = _KernelLog()
                alive0, made0 = _labs_now()
                for d in alive0 or []:
                    before[d] = _snapshot(d)
            except Exception as e:
                _log_note(name, e)

            def save(passed=False):
                nonlocal klog
                if klog is None:    # not set up, or saved already
                    return
                try:
                    _save_logs(name, klog, _labs_since(alive0, made0),
                               before if passed else None)
                except Exception as e:
                    _log_note(name, e)
                finally:
                    klog.close()
                    klog = None
            try:
                msg = fn(*a, **kw)
                save(passed=True)
                # before the result line: tests/run files the lines up to
                # a result line under that case
                print("#   %s: %.1f s%s" % (name, time.monotonic() - t0,
                                           " (" + msg + ")" if msg else ""),
                      flush=True)
                report(name, True)
                return True
            except AssertionError as e:
                save()
                report(name, False, str(e))
            except Exception as e:  # a broken step is a failed case
                save()
                traceback.print_exc(file=sys.stdout)
                report(name, False, "%s: %s" % (type(e).__name__, e))
            except BaseException:
                save()
                raise
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
