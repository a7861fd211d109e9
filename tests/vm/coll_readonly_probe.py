#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A broadcast's root whose data are a file it mapped read-only, as raw
generic netlink from inside the root's namespace.

    coll_readonly_probe.py IFNAME ROOT FILE COUNT

ROOT: this node's coordinates (x,y,...); FILE: at least COUNT doubles,
mapped PROT_READ, MAP_SHARED and given as the broadcast's data
(TORUS_A_COLL_PLACE, no TORUS_A_COLL_DATA).  Prints "joined" once the
module took the request, then the answer as JSON: {"error": errno or
0, "placed": bool}.  coll_test.py sends hostile frames in between and
checks the file afterwards.
"""

import ctypes
import json
import mmap
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coll_nl_probe import HEADER, enum  # noqa: E402
from routing_test import Genl, coord_nest, nla  # noqa: E402


def answer(g):
    """The module's later answer to the request: (errno, placed)."""
    while True:
        data = g.s.recv(1 << 20)
        off = 0
        while off < len(data):
            ln, typ = struct.unpack_from("IH", data, off)
            if typ == g.family:
                return attrs_of(data[off + 20:off + ln])
            off += (ln + 3) & ~3


def attrs_of(body):
    out = {}
    at = 0
    while at + 4 <= len(body):
        alen, atype = struct.unpack_from("HH", body, at)
        out[atype & 0x3fff] = body[at + 4:at + alen]
        at += (alen + 3) & ~3
    return out


def main():
    ifname, root, path, count = sys.argv[1], sys.argv[2], sys.argv[3], \
        int(sys.argv[4])
    own = [int(x) for x in root.split(",")]
    text = open(HEADER).read()
    cmd = enum(text, "torus_cmd")["TORUS_CMD_COLL"]
    a = enum(text, "torus_attr")
    kind = enum(text, "torus_coll_kind")
    ctype = enum(text, "torus_coll_type")

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int, ctypes.c_long]
    fd = os.open(path, os.O_RDONLY)
    addr = libc.mmap(None, mmap.PAGESIZE, mmap.PROT_READ, mmap.MAP_SHARED,
                     fd, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap")

    g = Genl()
    req = nla(a["TORUS_A_IFNAME"], ifname.encode() + b"\0") + \
        nla(a["TORUS_A_COLL_KIND"], bytes([kind["TORUS_COLL_BCAST"]])) + \
        nla(a["TORUS_A_COLL_TYPE"], bytes([ctype["TORUS_COLL_DOUBLE"]])) + \
        nla(a["TORUS_A_COLL_COUNT"], struct.pack("I", count)) + \
        nla(a["TORUS_A_COLL_TIMEOUT_MS"], struct.pack("I", 20000)) + \
        coord_nest(a["TORUS_A_COLL_ROOT"], own) + \
        nla(a["TORUS_A_COLL_PLACE"], struct.pack("Q", addr))
    err, msg = g.talk(g.request(g.family, cmd, req))
    if err:
        print(json.dumps({"error": err, "message": msg.decode(),
                          "placed": False}))
        return
    print("joined", flush=True)
    got = answer(g)
    error = got.get(a["TORUS_A_COLL_ERROR"])
    print(json.dumps({
        "error": struct.unpack("I", error)[0] if error else 0,
        "placed": a["TORUS_A_COLL_PLACED"] in got}))


if __name__ == "__main__":
    main()
