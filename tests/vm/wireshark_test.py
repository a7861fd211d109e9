#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Wireshark dissector (tools/wireshark/torus.lua) on a capture made
in a rack (runs inside the VM).

torus-lab discovers a 3x3 torus with torusd; tcpdump captures every
interface of one node's namespace while it pings every other node; tshark
decodes the capture with the dissector (-T json) and the decoded fields
are checked against the kernel's own state: control frames one hop long
with the discovery TLVs of a sender id the kernel knows, data frames
whose header coordinates are those of the inner IPv4 packet's addresses
(the address plan), the ICMP inside decoded by Wireshark.  The capture
and tshark's JSON stay in build/vm/wireshark.  Prints PASS:/FAIL:/SKIP:.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import REPO, case, results, skip  # noqa: E402
from torus_lab import TORUS, run  # noqa: E402

OUT = os.path.join(REPO, "build", "vm", "wireshark")
LUA = os.path.join(REPO, "tools", "wireshark", "torus.lua")
PREFIX = "ws"
SRC_NS = PREFIX + "0-0"


def layer_list(layers, key):
    v = layers.get(key)
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def field(tree, key):
    """The first value of @key anywhere under @tree (tshark nests
    subtrees as KEY_tree objects, duplicates as lists)."""
    if isinstance(tree, list):
        for t in tree:
            v = field(t, key)
            if v is not None:
                return v
        return None
    if not isinstance(tree, dict):
        return None
    if key in tree:
        v = tree[key]
        return v[0] if isinstance(v, list) else v
    for v in tree.values():
        if isinstance(v, (dict, list)):
            got = field(v, key)
            if got is not None:
                return got
    return None


def capture(nodes):
    """tcpdump on every interface of SRC_NS while it pings the others."""
    pcap = os.path.join(OUT, "fabric.pcap")
    if os.path.exists(pcap):
        os.unlink(pcap)
    dump = subprocess.Popen(["ip", "netns", "exec", SRC_NS, "tcpdump", "-i",
                             "any", "-U", "-n", "-w", pcap],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while not os.path.exists(pcap) and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1)
    pinged = 0
    for ns, nd in sorted(nodes.items()):
        if ns == SRC_NS:
            continue
        c = nd["coord"] + [0, 0]
        res = run(["ip", "netns", "exec", SRC_NS, "ping", "-c", "1", "-W",
                   "3", "10.%d.%d.0" % (c[0], c[1])], check=False)
        pinged += res.returncode == 0
    time.sleep(2)           # a few more hellos
    dump.send_signal(signal.SIGINT)
    dump.wait(timeout=30)
    return pcap, pinged


@case("wireshark_dissector_decodes_a_rack_capture")
def dissector_case():
    res = json.loads(run(["torus-lab", "-j", "run", "--dims", "3x3",
                          "--prefix", PREFIX, "--seed", "1", "--keep"],
                         check=False, timeout=600).stdout)
    try:
        assert res.get("converged"), "the rack did not converge: %s" % res
        nodes = {}
        for i in range(3):
            for j in range(3):
                ns = "%s%d-%d" % (PREFIX, i, j)
                nodes[ns] = json.loads(run([TORUS, "-n", ns, "-j", "node",
                                            "show"]).stdout)[0]
        pcap, pinged = capture(nodes)
    finally:
        run(["torus-lab", "destroy", "--prefix", PREFIX], check=False)
    assert pinged == 8, "%d of 8 pings answered" % pinged
    out = run(["tshark", "-X", "lua_script:" + LUA, "-r", pcap, "-Y", "torus",
               "-T", "json", "--no-duplicate-keys"], timeout=300).stdout
    with open(os.path.join(OUT, "fabric.json"), "w") as f:
        f.write(out)
    packets = [p["_source"]["layers"] for p in json.loads(out)]
    ids = {int(nd["id"]) for nd in nodes.values()}
    ctrl = [p for p in packets if field(p["torus"], "torus.type") == "2"]
    data = [p for p in packets if field(p["torus"], "torus.type") == "1"]
    assert ctrl, "no control frame decoded"
    bad = []
    seen_ids = set()
    trusted = 0
    for p in ctrl:
        t = p["torus"]
        if field(t, "torus.hop_limit") != "1":
            bad.append("control frame with hop limit %s" %
                       field(t, "torus.hop_limit"))
        kind = field(t, "torus.ctrl.kind")
        if kind == "discovery":
            sid = field(t, "torus.ctrl.id")
            if sid is not None:
                seen_ids.add(int(sid, 16))
            # a placed rack trusts its cables: the labels are shown
            trusted += field(t, "torus.ctrl.trusted") not in (None, "none")
        elif kind == "link state":
            sid = field(t, "torus.ctrl.id")
            if sid is None or int(sid, 16) not in ids:
                bad.append("link-state sender %s" % sid)
            if field(t, "torus.ls.geometry") is None:
                bad.append("link state without its geometry")
        else:
            bad.append("control message of kind %s" % kind)
    if not trusted:
        bad.append("no discovery frame shows a trusted cable")
    if not seen_ids or not seen_ids <= ids:
        bad.append("sender ids %s, nodes' %s" % (sorted(seen_ids),
                                                 sorted(ids)))
    icmp = 0
    for p in data:
        t = p["torus"]
        dst = [int(v) for v in field(t, "torus.dst").split(",")]
        src = [int(v) for v in field(t, "torus.src").split(",")]
        if "ip" not in p:
            bad.append("data frame without a decoded IP packet")
            continue
        want = ("10.%d.%d.0" % (src[0], src[1]),
                "10.%d.%d.0" % (dst[0], dst[1]))
        got = (field(p["ip"], "ip.src"), field(p["ip"], "ip.dst"))
        if got != want:
            bad.append("header %s -> %s, inner IP %s -> %s" %
                       (src, dst, got[0], got[1]))
        icmp += "icmp" in p
    # requests out and replies in, at least one each per destination
    if icmp < 16:
        bad.append("%d ICMP packets decoded inside data frames" % icmp)
    assert not bad, "; ".join(sorted(set(bad))[:5])
    return "%d control, %d data frames, %d ICMP, senders %d" % (
        len(ctrl), len(data), icmp, len(seen_ids))


def main():
    if not os.environ.get("TORUS_VM"):
        print("wireshark_test.py runs inside the VM: tests/vm/run -- "
              "python3 tests/vm/wireshark_test.py", file=sys.stderr)
        return 2
    os.makedirs(OUT, exist_ok=True)
    missing = [t for t in ("tshark", "tcpdump") if not shutil.which(t)]
    if missing:
        skip("wireshark_dissector_decodes_a_rack_capture",
             "no %s (make deps)" % " ".join(missing))
    else:
        dissector_case()
    return 1 if results["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
