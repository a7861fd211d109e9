#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Malformed node-list and placement requests, sent as raw generic netlink
from inside a node's namespace: prints {case: [errno, extack message]} as
JSON.

    coll_nl_probe.py IFNAME OWN_RANK OTHER_RANK SIZE ROOT OWN

ROOT: the coordinates (x,y,...) of a node other than this one; OWN: this
node's.

The numbers of commands and attributes are read from the uapi header, so
the probe follows it.  Every case must fail at once, with EINVAL and the
module's reason (coll_test.py checks them): EINVAL, EFAULT for a
buffer the caller cannot write (or, a broadcast's root, read), or
EMSGSIZE for a result no answer could carry unplaced.
"""

import ctypes
import json
import mmap
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from routing_test import Genl, coord_nest, nla  # noqa: E402

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "..", "..", "uapi", "linux", "torus.h")


def enum(text, name):
    """{NAME: value} of a plain enum of the header (no initialisers but
    the first)."""
    body = re.search(r"enum %s \{(.*?)\};" % name, text, re.S).group(1)
    out, v = {}, 0
    for m in re.finditer(r"^\s*(\w+)(?:\s*=\s*(\d+))?,", body, re.M):
        if m.group(2):
            v = int(m.group(2))
        out[m.group(1)] = v
        v += 1
    return out


def place_cases(g, cmd, a, kind, ctype, ifname, root, own, max_count):
    """Results placed in this process's memory (TORUS_A_COLL_PLACE), where
    they cannot be, a broadcast's root that neither gives its data nor
    places them, or more elements than may be: each is refused, and no
    operation starts."""
    buf = ctypes.create_string_buffer(64)
    good = (ctypes.addressof(buf) + 7) & ~7
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int, ctypes.c_long]
    read_only = libc.mmap(None, mmap.PAGESIZE, mmap.PROT_READ,
                          mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    name = nla(a["TORUS_A_IFNAME"], ifname.encode() + b"\0")

    def bcast(type_name, addr, count=2, at=root):
        return name + \
            nla(a["TORUS_A_COLL_KIND"], bytes([kind["TORUS_COLL_BCAST"]])) + \
            nla(a["TORUS_A_COLL_TYPE"], bytes([ctype[type_name]])) + \
            nla(a["TORUS_A_COLL_COUNT"], struct.pack("I", count)) + \
            coord_nest(a["TORUS_A_COLL_ROOT"], at) + \
            (nla(a["TORUS_A_COLL_PLACE"], struct.pack("Q", addr))
             if addr is not None else b"")

    cases = {
        "place_misaligned": bcast("TORUS_COLL_INT64", good + 4),
        "place_small_elements": bcast("TORUS_COLL_INT32", good),
        "place_barrier": name + nla(a["TORUS_A_COLL_KIND"], bytes(
            [kind["TORUS_COLL_BARRIER"]])) +
        nla(a["TORUS_A_COLL_PLACE"], struct.pack("Q", good)),
        "place_unmapped": bcast("TORUS_COLL_INT64", 4096),
        "place_read_only": bcast("TORUS_COLL_INT64", read_only),
        "root_place_unmapped": bcast("TORUS_COLL_INT64", 4096, at=own),
        "root_without_data": bcast("TORUS_COLL_INT64", None, at=own),
        "count_unplaced_beyond": bcast("TORUS_COLL_INT64", None,
                                       count=max_count + 1),
        # 64 KiB of result: more than an attribute holds (nla_len is u16)
        "result_beyond_an_attribute": bcast("TORUS_COLL_DOUBLE", None,
                                            count=max_count),
    }
    out = {}
    for case, attrs in cases.items():
        err, msg = g.talk(g.request(g.family, cmd, attrs))
        out[case] = [err, msg.rstrip(b"\0").decode()]
    return out


def main():
    ifname, own, other, size = sys.argv[1], *map(int, sys.argv[2:5])
    root = [int(x) for x in sys.argv[5].split(",")]
    own_coord = [int(x) for x in sys.argv[6].split(",")]
    text = open(HEADER).read()
    cmd = enum(text, "torus_cmd")["TORUS_CMD_COLL"]
    a = enum(text, "torus_attr")
    kind = enum(text, "torus_coll_kind")
    group_list = int(re.search(r"#define TORUS_COLL_GROUP_LIST\s+(0x\w+)",
                               text).group(1), 16)

    def u16(at, v):
        return nla(a[at], struct.pack("H", v))

    def ranks(*r):
        return nla(a["TORUS_A_COLL_MEMBERS"], struct.pack("%dI" % len(r),
                                                          *r))

    head = nla(a["TORUS_A_IFNAME"], ifname.encode() + b"\0") + \
        nla(a["TORUS_A_COLL_KIND"], bytes([kind["TORUS_COLL_BARRIER"]]))
    lst = u16("TORUS_A_COLL_GROUP", group_list | 5)
    pair = sorted({own, other})
    cases = {
        "list_without_members": lst,
        "members_without_list": ranks(*pair),
        "axes_beyond_any_fabric": u16("TORUS_A_COLL_GROUP", 0x100),
        "members_not_ascending": lst + ranks(*reversed(pair)),
        "members_repeated": lst + ranks(own, own),
        "members_partial_rank": lst + nla(a["TORUS_A_COLL_MEMBERS"],
                                          struct.pack("IH", own, 0)),
        "self_not_member": lst + ranks(other),
        "member_beyond_fabric": lst + ranks(own, size),
    }
    # a broadcast whose root is no member
    bcast = nla(a["TORUS_A_IFNAME"], ifname.encode() + b"\0") + \
        nla(a["TORUS_A_COLL_KIND"], bytes([kind["TORUS_COLL_BCAST"]])) + \
        nla(a["TORUS_A_COLL_TYPE"], b"\0") + \
        nla(a["TORUS_A_COLL_COUNT"], struct.pack("I", 1))
    g = Genl()
    out = {}
    for name, attrs in cases.items():
        err, msg = g.talk(g.request(g.family, cmd, head + attrs))
        out[name] = [err, msg.rstrip(b"\0").decode()]
    err, msg = g.talk(g.request(g.family, cmd, bcast + lst + ranks(own) +
                                coord_nest(a["TORUS_A_COLL_ROOT"], root)))
    out["root_not_member"] = [err, msg.rstrip(b"\0").decode()]
    # a combining tree whose nest breaks its policy (NLA_POLICY_NESTED)
    tree_set = enum(text, "torus_cmd")["TORUS_CMD_COLL_TREE_SET"]
    tree = enum(text, "torus_coll_tree_attr")
    ifn = nla(a["TORUS_A_IFNAME"], ifname.encode() + b"\0")
    for name, inner in {
        "tree_children_beyond_directions": nla(
            tree["TORUS_COLL_TREE_A_CHILDREN"], struct.pack("I", 1 << 20)),
        "tree_parent_not_u8": nla(tree["TORUS_COLL_TREE_A_PARENT"],
                                  struct.pack("I", 1)),
    }.items():
        err, msg = g.talk(g.request(g.family, tree_set, ifn + nla(
            a["TORUS_A_COLL_TREE"] | 0x8000, inner)))
        out[name] = [err, msg.rstrip(b"\0").decode()]
    max_count = int(re.search(r"#define TORUS_COLL_MAX_COUNT\s+(\d+)",
                              text).group(1))
    out.update(place_cases(g, cmd, a, kind, enum(text, "torus_coll_type"),
                           ifname, root, own_coord, max_count))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
