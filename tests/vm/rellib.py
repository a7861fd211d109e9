# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers of the reliability scenarios (storm_test.py, churn_test.py):
the torus generic netlink family spoken directly from Python (a process
start costs ~50 ms under TCG), kernel memory snapshots for leak checks,
kernel log marks, and the figures file.  Runs inside the test VM."""

import json
import os
import socket
import struct
import subprocess
import time

NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_REQUEST, NLM_F_ACK = 1, 4
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
# uapi/linux/torus.h
TORUS_CMD_CABLE_SET = 5
TORUS_A_PORT_IFINDEX, TORUS_A_CARRIER = 14, 15

# what tests/vm/lib.sh and tests/vm/run --check-dmesg call a problem
DMESG_BAD = ("WARNING:", "BUG:", "Oops", "KASAN", "Call Trace:",
             "suspected memory leak", "unreferenced object",
             "unregister_netdevice: waiting")


def _nla(kind, data):
    ln = 4 + len(data)
    return struct.pack("HH", ln, kind) + data + bytes((4 - ln % 4) % 4)


def _attrs(data):
    out, off = {}, 0
    while off + 4 <= len(data):
        ln, kind = struct.unpack_from("HH", data, off)
        if ln < 4:
            break
        out[kind & 0x3FFF] = data[off + 4:off + ln]
        off += (ln + 3) & ~3
    return out


class Genl:
    """A generic netlink socket on the torus family in the calling
    thread's network namespace (open it inside torus_lab.netns())."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  16)   # NETLINK_GENERIC
        self.sock.bind((0, 0))
        self.seq = 0
        reply = self._talk(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                           _nla(CTRL_ATTR_FAMILY_NAME, b"torus\0"))
        self.family = struct.unpack("H", reply[CTRL_ATTR_FAMILY_ID][:2])[0]

    def close(self):
        self.sock.close()

    def _talk(self, family, cmd, body):
        """One request; returns the reply's attributes ({} for an ACK);
        raises OSError with the kernel's errno."""
        self.seq += 1
        msg = struct.pack("BBH", cmd, 1, 0) + body
        self.sock.send(struct.pack("IHHII", 16 + len(msg), family,
                                   NLM_F_REQUEST | NLM_F_ACK, self.seq, 0) +
                       msg)
        reply = {}
        while True:
            data = self.sock.recv(65536)
            off = 0
            while off + 16 <= len(data):
                ln, typ, _, seq, _ = struct.unpack_from("IHHII", data, off)
                if seq == self.seq:
                    if typ == NLMSG_ERROR:
                        err = struct.unpack_from("i", data, off + 16)[0]
                        if err:
                            raise OSError(-err, "genetlink: %s" %
                                          os.strerror(-err))
                        return reply
                    if typ != NLMSG_DONE:
                        reply = _attrs(data[off + 20:off + ln])
                off += (ln + 3) & ~3

    def cable_set(self, ifindex, up):
        """Cut (up=False) or restore a torport cable: both ends."""
        self._talk(self.family, TORUS_CMD_CABLE_SET,
                   _nla(TORUS_A_PORT_IFINDEX, struct.pack("I", ifindex)) +
                   _nla(TORUS_A_CARRIER, struct.pack("B", 1 if up else 0)))


# ---- kernel memory ----

def slabinfo():
    """{cache: (active objects, object size)} from /proc/slabinfo."""
    out = {}
    with open("/proc/slabinfo") as f:
        for line in f:
            if line.startswith(("slabinfo", "#")):
                continue
            v = line.split()
            out[v[0]] = (int(v[1]), int(v[3]))
    return out


def meminfo():
    out = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":", 1)
            out[k] = int(v.split()[0])
    return out


def module_refcnt(name="torus", reads=20, gap=0.05):
    """The module's reference count, the least of READS reads GAP s
    apart: a netlink dump in progress (a daemon's) holds the module
    for the dump's length, a leaked reference holds it in every read."""
    least = None
    for i in range(reads):
        try:
            with open("/sys/module/%s/refcnt" % name) as f:
                n = int(f.read())
        except OSError:
            return None
        least = n if least is None else min(least, n)
        if least == 0:
            break
        time.sleep(gap)
    return least


SLAB_SYSFS = "/sys/kernel/slab"


def settle_memory(timeout=30):
    """Let deferred frees run before a snapshot: netns cleanup is a work
    item and tasks and sockets are freed after an RCU grace period,
    which a busy TCG guest takes seconds to end.  Waits until the
    unreclaimable slab stops shrinking (two readings 1 s apart within
    64 kB).  The caches are not shrunk: that walks every partial slab
    with interrupts off, which a busy TCG guest reports as a soft
    lockup."""
    subprocess.run(["sync"], check=False)
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("2\n")
        now = meminfo()["SUnreclaim"]
        if last is not None and last - now < 64:
            break
        last = now
        time.sleep(1)


def snapshot():
    """Kernel memory figures for before/after comparison."""
    settle_memory()
    mi, si = meminfo(), slabinfo()
    return {"slab_kb": mi["Slab"], "sunreclaim_kb": mi["SUnreclaim"],
            "mem_available_kb": mi["MemAvailable"],
            "slab_active_bytes": sum(n * sz for n, sz in si.values()),
            "caches": si, "torus_refcnt": module_refcnt()}


def memory_delta(before, after, top=6):
    """The figures of two snapshots: deltas and the caches that grew
    most (by bytes)."""
    grew = []
    for name, (n, sz) in after["caches"].items():
        n0 = before["caches"].get(name, (0, sz))[0]
        if n != n0:
            grew.append((name, n - n0, (n - n0) * sz))
    grew.sort(key=lambda g: -g[2])
    return {
        "slab_kb_before": before["slab_kb"], "slab_kb_after": after["slab_kb"],
        "sunreclaim_kb_delta": after["sunreclaim_kb"] -
        before["sunreclaim_kb"],
        "slab_active_bytes_delta": after["slab_active_bytes"] -
        before["slab_active_bytes"],
        "mem_available_kb_delta": after["mem_available_kb"] -
        before["mem_available_kb"],
        "top_caches": [{"cache": g[0], "objects": g[1], "bytes": g[2]}
                       for g in grew[:top]],
        "torus_refcnt_before": before["torus_refcnt"],
        "torus_refcnt_after": after["torus_refcnt"],
    }


def cache_objects(name):
    """Exact count of a cache's objects in use (shrinks that cache)."""
    try:
        with open(os.path.join(SLAB_SYSFS, name, "shrink"), "w") as f:
            f.write("1\n")
    except OSError:
        pass
    return slabinfo().get(name, (0, 0))[0]


def netns_kick():
    """Create and delete one throw-away namespace.  On this kernel the
    last batch of deleted namespaces stays allocated until another
    namespace is deleted (seen with plain namespaces too, no torus
    device: 20 deleted, 19 still in the net_namespace cache until the
    next deletion).  Leak counts kick first."""
    subprocess.run(["ip", "netns", "add", "rel-kick"], check=False)
    subprocess.run(["ip", "netns", "del", "rel-kick"], check=False)


def wait_netns_freed(baseline, timeout=60):
    """Wait until the net_namespace cache is back to `baseline` objects
    (plus the one kick namespace that may lag); returns how many are
    left beyond that (0 when all deleted namespaces were freed)."""
    deadline = time.monotonic() + timeout
    while True:
        netns_kick()
        left = cache_objects("net_namespace") - baseline - 1
        if left <= 0 or time.monotonic() > deadline:
            return max(left, 0)
        time.sleep(2)


# ---- kmemleak (only when the kernel has it) ----

KMEMLEAK = "/sys/kernel/debug/kmemleak"


def kmemleak_available():
    return os.path.exists(KMEMLEAK)


def kmemleak_clear():
    if kmemleak_available():
        with open(KMEMLEAK, "w") as f:
            f.write("clear\n")


def kmemleak_scan():
    """Number of unreferenced objects reported after a scan, or None."""
    if not kmemleak_available():
        return None
    with open(KMEMLEAK, "w") as f:
        f.write("scan\n")
    with open(KMEMLEAK) as f:
        return f.read().count("unreferenced object")


# ---- kernel log ----

def dmesg_mark(text):
    mark = "torus-rel-mark %.3f %s" % (time.monotonic(), text)
    with open("/dev/kmsg", "w") as f:
        f.write(mark + "\n")
    return mark


def dmesg_problems(mark):
    """Problem lines in the kernel log since mark."""
    log = subprocess.run(["dmesg"], capture_output=True,
                         text=True).stdout.splitlines()
    for i, line in enumerate(log):
        if mark in line:
            log = log[i + 1:]
            break
    return [line for line in log if any(b in line for b in DMESG_BAD)]


# ---- figures ----

def write_figures(path, figures):
    """Strict JSON (no NaN/Infinity), written whole or not at all."""
    if not path:
        return
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump(figures, f, indent=1, sort_keys=True, allow_nan=False)
        f.write("\n")
    os.replace(path + ".tmp", path)


def finish(name, mark, fig, path):
    """The common end of a reliability scenario: the kernel log (and
    kmemleak, where the kernel has it) since MARK must be clean; then the
    figures FIG are printed and written to PATH. Returns the exit status."""
    from vmtest import case, results

    @case("%s_kernel_log_clean" % name)
    def klog():
        bad = dmesg_problems(mark)
        leaks = kmemleak_scan()
        fig["kmemleak"] = leaks
        assert not bad, "kernel log: %s" % bad[:3]
        assert not leaks, "kmemleak: %d unreferenced objects" % leaks
        return "kmemleak %s" % ("not in this kernel" if leaks is None
                                else "clean")
    klog()

    fig["pass"], fig["fail"] = results["pass"], results["fail"]
    print("# %s figures: " % name + json.dumps(fig, sort_keys=True,
                                               allow_nan=False), flush=True)
    write_figures(path, fig)
    return 0 if results["fail"] == 0 else 1
