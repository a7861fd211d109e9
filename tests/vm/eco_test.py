#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""VM scenarios for the ecosystem around torus.ko (runs inside the VM).

DKMS builds the module from the repository root (the top-level Kbuild)
and installs it under updates/dkms, where modprobe finds it; stock
iproute2 `ip` creates, shows and explains torus and torport links through
the plugins of tools/iproute2 (IP_LIB_DIR points at build/ip).

The guest's root is the host's, read-only over 9p: the directories DKMS
writes (/usr/src, /var/lib/dkms, /lib/modules/KVER) get a tmpfs overlay
for the length of the case.  Leaves torus.ko loaded from TORUS_KO, as it
found it.  Prints PASS:/FAIL:/SKIP: lines for the aggregator.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmtest import REPO, TORUS_KO, case, results, skip  # noqa: E402
from torus_lab import run  # noqa: E402

KVER = os.uname().release
PLUGIN_DIR = os.path.join(REPO, "build", "ip")


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
        for d in reversed(self.mounted):
            run(["umount", d], check=False)
        os.rmdir(self.tmp)


def copy_tracked_tree(dst):
    """The repository as a fresh clone has it (no build/ outputs): the
    files git tracks plus the new ones it does not ignore."""
    files = run(["git", "-C", REPO, "ls-files", "-z", "--cached",
                 "--others", "--exclude-standard"]).stdout.split("\0")
    for rel in filter(None, files):
        src = os.path.join(REPO, rel)
        if not os.path.isfile(src):
            continue  # deleted in the work tree
        os.makedirs(os.path.dirname(os.path.join(dst, rel)), exist_ok=True)
        shutil.copy2(src, os.path.join(dst, rel))


@case("dkms_builds_installs_and_loads_torus")
def dkms_case():
    ver = dkms_version()
    unload_torus()
    with Overlays(["/usr/src", "/var/lib/dkms",
                   "/lib/modules/" + KVER]) as ovl:
        tree = os.path.join(ovl.tmp, "torus")
        copy_tracked_tree(tree)
        # the two commands of the README, as a user types them
        res = subprocess.run(["dkms", "add", "."], cwd=tree,
                             capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, "dkms add .: " + res.stdout + res.stderr
        res = run(["dkms", "install", "torus/" + ver, "-k", KVER],
                  check=False, timeout=900)
        if res.returncode != 0:
            log = "/var/lib/dkms/torus/%s/build/make.log" % ver
            tail = open(log).read()[-2000:] if os.path.exists(log) else ""
            raise AssertionError("dkms install: %s%s\n%s" % (
                res.stdout[-1500:], res.stderr, tail))
        status = run(["dkms", "status", "torus/" + ver]).stdout
        assert "installed" in status, "dkms status: " + status
        path = run(["modinfo", "-n", "torus"]).stdout.strip()
        want = "/lib/modules/%s/updates/dkms/torus.ko" % KVER
        assert path.startswith(want), "modinfo -n torus: " + path
        run(["modprobe", "torus"])
        assert torus_loaded(), "modprobe torus loaded nothing"
        with open("/sys/module/torus/srcversion") as f:
            loaded = f.read().strip()
        built = run(["modinfo", "-F", "srcversion", path]).stdout.strip()
        assert loaded == built, "loaded srcversion %s, dkms built %s" % (
            loaded, built)
        # the module works: a node device comes up
        run(["ip", "link", "add", "eco0", "type", "torus"])
        run(["ip", "link", "del", "eco0"])
        run(["rmmod", "torus"])
        run(["dkms", "remove", "torus/" + ver, "--all"])
        left = os.path.exists(want) or os.path.exists(want + ".xz")
        assert not left, "dkms remove left " + want
    return "dkms %s for %s, loaded from %s" % (ver, KVER, path)


def main():
    if not os.environ.get("TORUS_VM"):
        print("eco_test.py runs inside the VM: tests/vm/run -- "
              "python3 tests/vm/eco_test.py", file=sys.stderr)
        return 2
    if shutil.which("dkms"):
        dkms_case()
    else:
        skip("dkms_builds_installs_and_loads_torus", "no dkms (make deps)")
    if not torus_loaded() and os.path.exists(TORUS_KO):
        run(["insmod", TORUS_KO])
    return 1 if results["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
