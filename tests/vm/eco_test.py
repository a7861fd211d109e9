#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""VM scenarios for the ecosystem around torus.ko (runs inside the VM).

DKMS builds the module from the repository root (the top-level Kbuild)
and installs it under updates/dkms, where modprobe finds it: the module
tests/pkg/run.sh built and installed with dkms on the host, or with
--dkms-full (make dkms-vm) the whole dkms add/install in the guest
(~10 min under TCG).  Stock iproute2 `ip` creates, shows and explains
torus and torport links through the plugins of tools/iproute2
(IP_LIB_DIR points at build/ip, or the torus-tools package puts them
where ip looks by default).

The guest's root is the host's, read-only over 9p: the directories DKMS
or the package write get a tmpfs overlay for the length of the case.  Leaves torus.ko loaded from TORUS_KO, as it
found it.  Prints PASS:/FAIL:/SKIP: lines for the aggregator.
"""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import REPO, TORUS_KO, case, results, skip  # noqa: E402
from torus_lab import run  # noqa: E402

KVER = os.uname().release
PLUGIN_DIR = os.path.join(REPO, "build", "ip")
PKG_ROOT = os.path.join(REPO, "build", "pkg", "root")


def dkms_version():
    with open(os.path.join(REPO, "dkms.conf")) as f:
        for line in f:
            if line.startswith("PACKAGE_VERSION="):
                return line.split("=", 1)[1].strip().strip('"')
    raise AssertionError("dkms.conf has no PACKAGE_VERSION")


def torus_loaded():
    return os.path.isdir("/sys/module/torus")


def unload_torus():
    if torus_loaded():
        run(["rmmod", "torus"])


class Overlays:
    """A tmpfs upper layer over each read-only directory, undone in
    reverse order on exit."""

    def __init__(self, dirs):
        self.dirs = dirs
        self.mounted = []
        self.tmp = None

    def __enter__(self):
        self.tmp = tempfile.mkdtemp(prefix="eco-ovl-")
        run(["mount", "-t", "tmpfs", "eco-ovl", self.tmp])
        self.mounted.append(self.tmp)
        for i, d in enumerate(self.dirs):
            os.makedirs(d, exist_ok=True)
            up = os.path.join(self.tmp, "up%d" % i)
            work = os.path.join(self.tmp, "work%d" % i)
            os.makedirs(up)
            os.makedirs(work)
            run(["mount", "-t", "overlay", "overlay", "-o",
                 "lowerdir=%s,upperdir=%s,workdir=%s" % (d, up, work), d])
            self.mounted.append(d)
        return self

    def __exit__(self, *exc):
        # lazily: this very process may have mapped a file of the
        # overlay (a Python extension loaded on first use)
        for d in reversed(self.mounted):
            run(["umount", "-l", d])
        os.rmdir(self.tmp)


def modprobe_path(args):
    """The file `modprobe -v ARGS` inserted, from its "insmod PATH" line."""
    out = run(["modprobe", "-v"] + args).stdout
    for line in out.splitlines():
        if line.startswith("insmod "):
            return line.split()[1]
    raise AssertionError("modprobe %s inserted nothing: %r" % (args, out))


def check_node_device():
    """The loaded module works: a node device comes and goes."""
    run(["ip", "link", "add", "eco0", "type", "torus"])
    run(["ip", "link", "del", "eco0"])


@case("dkms_module_loads_from_updates_dkms")
def dkms_host_built_case():
    """tests/pkg/run.sh ran dkms add/build/install on the host against
    this kernel's headers into build/pkg/root (depmod -b there): modprobe
    from that tree loads updates/dkms/torus.ko."""
    unload_torus()
    path = modprobe_path(["-d", PKG_ROOT, "torus"])
    want = "%s/lib/modules/%s/updates/dkms/torus.ko" % (PKG_ROOT, KVER)
    assert path == want, "modprobe loaded %s, not %s" % (path, want)
    assert torus_loaded(), "modprobe torus loaded nothing"
    check_node_device()
    run(["rmmod", "torus"])
    return "host dkms build, loaded " + path


@case("dkms_add_install_in_the_guest")
def dkms_full_case():
    """The whole DKMS flow in the guest, as a user types it: dkms add .
    from the source tree, dkms install (build, install, depmod), modprobe
    from /lib/modules/KVER/updates/dkms, dkms remove."""
    ver = dkms_version()
    src = os.path.join(REPO, "build", "pkg", "src", "torus-dkms")
    assert os.path.exists(os.path.join(src, "dkms.conf")), \
        "no %s: run tests/pkg/run.sh on the host first" % src
    unload_torus()
    with Overlays(["/usr/src", "/var/lib/dkms",
                   "/lib/modules/" + KVER]) as ovl:
        tree = os.path.join(ovl.tmp, "torus")
        shutil.copytree(src, tree, ignore=shutil.ignore_patterns(
            "*.o", "*.ko", "*.mod*", ".*.cmd", "Module.symvers",
            "modules.order"))
        res = subprocess.run(["dkms", "add", "."], cwd=tree,
                             capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, "dkms add .: " + res.stdout + res.stderr
        res = run(["dkms", "install", "torus/" + ver, "-k", KVER],
                  check=False, timeout=3600)
        assert res.returncode == 0, "dkms install: %s%s" % (
            res.stdout[-1500:], res.stderr)
        status = run(["dkms", "status", "torus/" + ver]).stdout
        assert "installed" in status, "dkms status: " + status
        want = "/lib/modules/%s/updates/dkms/torus.ko" % KVER
        path = modprobe_path(["torus"])
        assert path == want, "modprobe loaded %s, not %s" % (path, want)
        check_node_device()
        run(["rmmod", "torus"])
        run(["dkms", "remove", "torus/" + ver, "--all"])
        assert not os.path.exists(want), "dkms remove left " + want
    return "dkms %s for %s" % (ver, KVER)


# ---- stock ip with the plugins of tools/iproute2 ----

NS = ("eco-a", "eco-b")


def ip(*args, plugins=True, check=True):
    env = dict(os.environ)
    env.pop("IP_LIB_DIR", None)
    if plugins:
        env["IP_LIB_DIR"] = PLUGIN_DIR
    res = subprocess.run(["/usr/sbin/ip"] + list(args), capture_output=True,
                         text=True, timeout=60, env=env)
    if check and res.returncode != 0:
        raise AssertionError("ip %s: exit %d: %s" % (
            " ".join(args), res.returncode, res.stderr.strip()))
    return res


def link_json(ns, dev, plugins=True):
    js = json.loads(ip("-n", ns, "-d", "-j", "link", "show", "dev", dev,
                       plugins=plugins).stdout)
    assert len(js) == 1, "ip -j link show %s: %r" % (dev, js)
    return js[0]


def netns_reset():
    for ns in NS:
        ip("netns", "del", ns, check=False)
    for ns in NS:
        ip("netns", "add", ns)


@case("ip_link_help_torport_prints_the_grammar")
def help_case():
    out = ip("link", "help", "torport").stdout
    for words in ("type torport dir LABEL", "peer name NAME dir LABEL",
                  "netns NS", "+x | -x"):
        assert words in out, "ip link help torport lacks %r: %s" % (
            words, out)
    # without the plugin ip knows no such kind (the plugin is what works)
    bare = ip("link", "help", "torport", plugins=False, check=False)
    assert "peer name NAME dir LABEL" not in bare.stdout + bare.stderr, \
        "stock ip printed the grammar without the plugin"


@case("ip_torport_pair_across_netns_labels_carrier_traffic")
def torport_case():
    a, b = NS
    netns_reset()
    ip("-n", a, "link", "add", "tpa", "type", "torport", "dir", "+x",
       "peer", "name", "tpb", "dir", "-x", "netns", b)
    ja, jb = link_json(a, "tpa"), link_json(b, "tpb")
    for js, me, peer in ((ja, "+x", "-x"), (jb, "-x", "+x")):
        info = js["linkinfo"]
        assert info["info_kind"] == "torport", info
        data = info.get("info_data", {})
        assert data.get("dir") == me and data.get("peer_dir") == peer, \
            "%s: info_data %r, want dir %s peer_dir %s" % (
                js["ifname"], data, me, peer)
        assert "link_netnsid" in js, "%s: no link_netnsid" % js["ifname"]
    # the same devices through stock ip without the plugin: no labels,
    # so the assertions above are the plugin's doing
    plain = link_json(a, "tpa", plugins=False)["linkinfo"]
    assert "dir" not in plain.get("info_data", {}), plain
    text = ip("-n", a, "-d", "link", "show", "dev", "tpa").stdout
    assert "torport dir +x peer_dir -x" in text, text
    # the cable: carrier only with both ends up, then IP traffic
    ip("-n", a, "link", "set", "tpa", "up")
    assert link_json(a, "tpa")["operstate"] != "UP", "carrier with one end up"
    ip("-n", b, "link", "set", "tpb", "up")
    ip("-n", a, "addr", "add", "10.213.0.1/30", "dev", "tpa")
    ip("-n", b, "addr", "add", "10.213.0.2/30", "dev", "tpb")
    deadline = time.monotonic() + 10
    while link_json(a, "tpa")["operstate"] != "UP":
        assert time.monotonic() < deadline, "tpa has no carrier"
        time.sleep(0.1)
    res = run(["ip", "netns", "exec", a, "ping", "-c", "3", "-i", "0.2",
               "-W", "2", "10.213.0.2"], check=False)
    assert res.returncode == 0, "ping over the cable: " + res.stdout
    # ip link del of one end takes the cable
    ip("-n", a, "link", "del", "tpa")
    gone = ip("-n", b, "link", "show", "dev", "tpb", check=False)
    assert gone.returncode != 0, "tpb outlived its peer"


@case("ip_torus_node_and_port_details")
def node_case():
    a, b = NS
    netns_reset()
    ip("-n", a, "link", "add", "tor0", "type", "torus")
    ip("-n", a, "link", "add", "px", "type", "torport", "dir", "-y",
       "peer", "name", "mx", "dir", "+y", "netns", b)
    ip("-n", a, "link", "set", "px", "master", "tor0")
    run(["torus", "-n", a, "node", "set", "dev", "tor0", "id", "77",
         "coord", "1,2", "dims", "4,3", "wrap", "1,0", "state", "placed"])
    data = link_json(a, "tor0")["linkinfo"]["info_data"]
    want = {"node_id": "77", "state": "placed", "coord": [1, 2],
            "dims": [4, 3], "wrap": [1, 0], "ports": 1}
    got = {k: data.get(k) for k in want}
    assert got == want, "tor0 info_data %r, want %r" % (data, want)
    text = ip("-n", a, "-d", "link", "show", "dev", "tor0").stdout
    assert "coord 1,2 dims 4,3 wrap 1,0 ports 1" in text, text
    port = link_json(a, "px")["linkinfo"]
    assert port.get("info_slave_kind") == "torus", port
    assert port.get("info_slave_data", {}).get("dir") == "-y", port
    # ip link add ... type torus takes no options: the kernel's word
    res = ip("-n", a, "link", "add", "tor1", "type", "torus", "dims", "4",
             check=False)
    assert res.returncode != 0, "type torus took an option"
    for ns in NS:
        ip("netns", "del", ns, check=False)


@case("deb_tools_puts_the_plugins_where_stock_ip_looks")
def deb_case(deb):
    """The files of torus-tools (made by make deb / tests/pkg/run.sh),
    unpacked over /usr (dpkg-deb -x), give stock ip the plugins without
    IP_LIB_DIR; gone again with the overlay.  (dpkg -i works too but
    reads dpkg's whole database over 9p: ~100 s under load.)"""
    a, b = NS
    netns_reset()
    with Overlays(["/usr"]) as ovl:
        # the package holds only /usr; / itself is read-only
        unpacked = os.path.join(ovl.tmp, "deb")
        run(["dpkg-deb", "-x", deb, unpacked])
        run(["cp", "-a", os.path.join(unpacked, "usr") + "/.", "/usr/"])
        out = ip("link", "help", "torport", plugins=False).stdout
        assert "peer name NAME dir LABEL" in out, out
        ip("-n", a, "link", "add", "tpa", "type", "torport", "dir", "+z",
           "peer", "name", "tpb", "dir", "-z", "netns", b, plugins=False)
        data = link_json(a, "tpa", plugins=False)["linkinfo"]["info_data"]
        assert data.get("dir") == "+z", data
        res = run(["/usr/sbin/torus", "-n", a, "node", "help"], check=False)
        assert "torus node set" in res.stdout + res.stderr, \
            "the packaged torus does not run"
    gone = link_json(a, "tpa", plugins=False)["linkinfo"]
    assert "dir" not in gone.get("info_data", {}), gone
    for ns in NS:
        ip("netns", "del", ns, check=False)
    return os.path.basename(deb)


def main():
    if not os.environ.get("TORUS_VM"):
        print("eco_test.py runs inside the VM: tests/vm/run -- "
              "python3 tests/vm/eco_test.py", file=sys.stderr)
        return 2
    full = "--dkms-full" in sys.argv[1:]
    pkg_ko = "%s/lib/modules/%s/updates/dkms/torus.ko" % (PKG_ROOT, KVER)
    if os.path.exists(pkg_ko):
        dkms_host_built_case()
    else:
        skip("dkms_module_loads_from_updates_dkms",
             "no %s (tests/pkg/run.sh makes it)" % pkg_ko)
    if full:
        if shutil.which("dkms"):
            dkms_full_case()
        else:
            skip("dkms_add_install_in_the_guest", "no dkms (make deps)")
    if not torus_loaded() and os.path.exists(TORUS_KO):
        run(["insmod", TORUS_KO])
    if not os.path.exists(os.path.join(PLUGIN_DIR, "link_torport.so")):
        skip("ip_plugins", "no %s (make tools)" % PLUGIN_DIR)
    else:
        help_case()
        torport_case()
        node_case()
    debs = sorted(glob.glob(os.path.join(REPO, "build", "pkg", "deb",
                                         "torus-tools_*.deb")))
    if debs:
        deb_case(debs[-1])
    else:
        skip("deb_tools_puts_the_plugins_where_stock_ip_looks",
             "no build/pkg/deb/torus-tools_*.deb (tests/pkg/run.sh)")
    return 1 if results["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
