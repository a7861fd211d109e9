#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What an operation costs its requester, and what becomes of it when the
requester goes away, as raw generic netlink from inside a node's
namespace.  Each mode joins an operation the other nodes never join, so
it waits for its timeout, and prints what it saw as JSON.

Requests go to a node list of two, this node and a partner that never
joins (numbered apart from the fabric's own operations, which the probe
must not advance on one node alone).

    coll_requester_probe.py memory IFNAME OWN_RANK PARTNER_RANK
        (run without CAP_IPC_LOCK) an allreduce of 8,190 doubles (an
        exact sum) placed in 16 pages of this process: while it waits,
        the pages in VmLck and the bytes charged to this process's
        memory cgroup; after the answer, VmLck again; then the same
        request with RLIMIT_MEMLOCK one page short.
    coll_requester_probe.py closed IFNAME OWN_RANK PARTNER_RANK
        a request from a socket that is closed at once; a second socket
        bound to the same port id listens past the timeout.
"""

import ctypes
import errno
import re
import json
import mmap
import os
import resource
import select
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coll_nl_probe import HEADER, enum  # noqa: E402
from coll_readonly_probe import attrs_of  # noqa: E402
from routing_test import Genl, nla  # noqa: E402

# the most doubles one TORUS_A_COLL_DATA holds: 16 pages placed
COUNT = 8190
TIMEOUT_MS = 1500
# the probe's own node list
LIST_NUMBER = 4000


def vm_locked_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmLck:"):
                return int(line.split()[1])
    raise RuntimeError("no VmLck in /proc/self/status")


def memory_cgroup():
    """A memory cgroup of its own for this process: its memory.current
    path.  cgroup2 is mounted under /tmp when nothing has mounted it."""
    root = None
    with open("/proc/mounts") as f:
        for line in f:
            dev, where, fstype = line.split()[:3]
            if fstype == "cgroup2":
                root = where
    if root is None:
        root = "/tmp/torus-cgroup2"
        os.makedirs(root, exist_ok=True)
        if os.system("mount -t cgroup2 none %s" % root):
            raise RuntimeError("cannot mount cgroup2")
    with open(os.path.join(root, "cgroup.subtree_control"), "w") as f:
        f.write("+memory")
    mine = os.path.join(root, "torus-probe-%d" % os.getpid())
    os.mkdir(mine)
    with open(os.path.join(mine, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))
    return mine


def memory_current(cg):
    with open(os.path.join(cg, "memory.current")) as f:
        return int(f.read())


def leave_cgroup(cg):
    parent = os.path.dirname(cg)
    with open(os.path.join(parent, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))
    os.rmdir(cg)


def answer_of(sock, family, timeout):
    """The attributes of the module's answer to an earlier request, or
    None when none comes within @timeout seconds."""
    end = time.monotonic() + timeout
    while True:
        left = end - time.monotonic()
        if left <= 0 or not select.select([sock], [], [], left)[0]:
            return None
        data = sock.recv(1 << 20)
        off = 0
        while off < len(data):
            ln, typ = struct.unpack_from("IH", data, off)
            if typ == family:
                return attrs_of(data[off + 20:off + ln])
            off += (ln + 3) & ~3


class Request:
    def __init__(self):
        text = open(HEADER).read()
        self.cmd = enum(text, "torus_cmd")["TORUS_CMD_COLL"]
        self.a = enum(text, "torus_attr")
        self.kind = enum(text, "torus_coll_kind")
        self.ctype = enum(text, "torus_coll_type")
        self.op = enum(text, "torus_coll_op")
        self.group_list = int(re.search(
            r"#define TORUS_COLL_GROUP_LIST\s+(0x\w+)", text).group(1), 16)
        self.members = []

    def allreduce(self, ifname, ctype, count, place=None):
        a = self.a
        return nla(a["TORUS_A_IFNAME"], ifname.encode() + b"\0") + \
            nla(a["TORUS_A_COLL_GROUP"], struct.pack(
                "H", self.group_list | LIST_NUMBER)) + \
            nla(a["TORUS_A_COLL_MEMBERS"], struct.pack(
                "%dI" % len(self.members), *self.members)) + \
            nla(a["TORUS_A_COLL_KIND"],
                bytes([self.kind["TORUS_COLL_ALLREDUCE"]])) + \
            nla(a["TORUS_A_COLL_TYPE"], bytes([self.ctype[ctype]])) + \
            nla(a["TORUS_A_COLL_OP"], bytes([self.op["TORUS_COLL_SUM"]])) + \
            nla(a["TORUS_A_COLL_DATA"], bytes(8 * count)) + \
            nla(a["TORUS_A_COLL_COUNT"], struct.pack("I", count)) + \
            nla(a["TORUS_A_COLL_TIMEOUT_MS"],
                struct.pack("I", TIMEOUT_MS)) + \
            (nla(a["TORUS_A_COLL_PLACE"], struct.pack("Q", place))
             if place is not None else b"")

    def error_of(self, got):
        err = got.get(self.a["TORUS_A_COLL_ERROR"]) if got else None
        return struct.unpack("I", err)[0] if err else 0


def memory(ifname, members):
    r = Request()
    r.members = members
    size = (COUNT * 8 + mmap.PAGESIZE - 1) & ~(mmap.PAGESIZE - 1)
    pages = size // mmap.PAGESIZE
    buf = mmap.mmap(-1, size, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                    mmap.PROT_READ | mmap.PROT_WRITE)
    buf.write(bytes(size))  # faulted in: charged before the baseline
    addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    out = {"pages": pages}
    cg = memory_cgroup()
    try:
        g = Genl()
        resource.setrlimit(resource.RLIMIT_MEMLOCK, (size, size))
        before = memory_current(cg)
        err, msg = g.talk(g.request(g.family, r.cmd, r.allreduce(
            ifname, "TORUS_COLL_DOUBLE", COUNT, place=addr)))
        out["join"] = [err, msg.rstrip(b"\0").decode()]
        if not err:
            time.sleep(0.5)
            out["locked_kb_waiting"] = vm_locked_kb()
            out["charged_waiting"] = memory_current(cg) - before
            got = answer_of(g.s, g.family, TIMEOUT_MS / 1000 + 10)
            out["answer_error"] = r.error_of(got) if got else None
            out["locked_kb_after"] = vm_locked_kb()
        short = size - mmap.PAGESIZE
        resource.setrlimit(resource.RLIMIT_MEMLOCK, (short, short))
        err, msg = g.talk(g.request(g.family, r.cmd, r.allreduce(
            ifname, "TORUS_COLL_DOUBLE", COUNT, place=addr)))
        out["over_limit"] = [err, msg.rstrip(b"\0").decode()]
        if not err:
            answer_of(g.s, g.family, TIMEOUT_MS / 1000 + 10)
        out["locked_kb_end"] = vm_locked_kb()
    finally:
        leave_cgroup(cg)
    print(json.dumps(out))


def closed(ifname, members):
    r = Request()
    r.members = members
    first = Genl()
    portid = first.s.getsockname()[0]
    err, msg = first.talk(first.request(first.family, r.cmd, r.allreduce(
        ifname, "TORUS_COLL_INT64", 1)))
    out = {"join": [err, msg.rstrip(b"\0").decode()]}
    first.s.close()
    # a later socket that takes the same port id
    second = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
    for _ in range(50):
        try:
            second.bind((portid, 0))
            break
        except OSError as e:
            if e.errno != errno.EADDRINUSE:
                raise
            time.sleep(0.1)
    out["same_portid"] = second.getsockname()[0] == portid
    got = answer_of(second, first.family, TIMEOUT_MS / 1000 + 1.5)
    out["received"] = got is not None
    if got is not None:
        out["received_error"] = r.error_of(got)
    print(json.dumps(out))


def main():
    mode, ifname = sys.argv[1], sys.argv[2]
    members = sorted(int(x) for x in sys.argv[3:5])
    {"memory": memory, "closed": closed}[mode](ifname, members)


if __name__ == "__main__":
    main()
