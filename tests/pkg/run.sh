#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/pkg/run.sh - packaging checks on the host (tests/run pkg):
# the top-level Kbuild, DKMS against the target kernel's headers (into
# private trees under build/pkg, never the host's /usr/src, /var/lib/dkms
# or /lib/modules), the iproute2 plugins' ABI against stock /usr/sbin/ip,
# make install into a DESTDIR, make deb and the bash completion of torus.
# Leaves build/pkg/root, a module tree holding only updates/dkms/torus.ko,
# for the VM to modprobe from, and build/pkg/deb for it to dpkg -i
# (tests/vm/eco_test.py).  Prints PASS:/FAIL:/SKIP: pkg/<case> lines.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
REPO=$PWD
. tests/pkg/lib.sh

status=0
pass() { echo "PASS: pkg/$1"; }
fail() { echo "FAIL: pkg/$1 -- $2"; status=1; }
skip() { echo "SKIP: pkg/$1 -- $2"; }

KVER=${KVER:-$(target_kver)}
P=$REPO/build/pkg
VERSION=$(dkms_conf_version dkms.conf)

rm -rf "$P"

# make install into a DESTDIR: every file where Debian's tools look
case=make_install_destdir
DEST=$P/destdir
MULTIARCH=$(gcc -print-multiarch)
want=(usr/sbin/torus usr/sbin/torusd usr/bin/torus-sim usr/lib/torus/torus_lab.py
	usr/share/man/man8/torus.8 usr/share/man/man8/torusd.8
	usr/share/man/man8/torus-lab.8 usr/share/man/man8/torus-sim.8
	usr/share/man/man8/ip-link-torus.8 usr/share/bash-completion/completions/torus
	"usr/lib/$MULTIARCH/ip/link_torus.so" "usr/lib/$MULTIARCH/ip/link_torport.so"
	"usr/lib/$MULTIARCH/ip/link_torus_slave.so"
	"usr/lib/systemd/system/torusd@.service"
	"usr/src/torus-$VERSION/dkms.conf" "usr/src/torus-$VERSION/Kbuild"
	"usr/src/torus-$VERSION/kernel/Kbuild" "usr/src/torus-$VERSION/kernel/torus_main.c"
	"usr/src/torus-$VERSION/uapi/linux/torus.h")
if ! out=$(make --no-print-directory install DESTDIR="$DEST" 2>&1); then
	fail $case "$(tail -n 5 <<< "$out")"
else
	missing=
	for f in "${want[@]}"; do [ -f "$DEST/$f" ] || missing="$missing $f"; done
	# nothing outside DESTDIR's prefix, no build products in the source
	stray=$(cd "$DEST" && find . -type f ! -path './usr/*' -o -name '*.o' -o -name '*.mod.c')
	if [ -n "$missing" ]; then
		fail $case "not installed:$missing"
	elif [ -n "$stray" ]; then
		fail $case "stray files: $stray"
	elif ! "$DEST/usr/sbin/torus" help > /dev/null 2>&1 &&
	     ! "$DEST/usr/sbin/torus" -h > /dev/null 2>&1; then
		fail $case "the installed torus does not run"
	elif [ "$(readlink "$DEST/usr/sbin/torus-lab")" != /usr/lib/torus/torus-lab ] ||
	     ! python3 "$DEST/usr/lib/torus/torus-lab" --help > /dev/null 2>&1; then
		fail $case "torus-lab: no /usr/sbin/torus-lab -> /usr/lib/torus/torus-lab that runs"
	else
		pass $case
	fi
fi
# dkms.conf's MAKE is the top-level Kbuild's own command,
#   make -C /lib/modules/KVER/build M=<the source tree's root> modules
# so this one build shows both
case=kbuild_and_dkms_build_torus_for_the_target_kernel
D=(--sourcetree "$P/usr/src" --dkmstree "$P/dkms")
if [ -z "$KVER" ]; then
	skip $case "no kernel headers"
elif ! command -v dkms > /dev/null; then
	skip $case "no dkms (make deps)"
elif [ "$(id -u)" != 0 ]; then
	skip $case "dkms wants root"
else
	mkdir -p "$P/usr/src" "$P/dkms" "$P/root/lib/modules/$KVER"
	# the VM's full DKMS run (make dkms-vm) copies the repository as a
	# fresh clone has it; here dkms takes the module source make install
	# put in /usr/src/torus-VERSION, as a package does
	copy_source_tree "$REPO" "$P/src/torus-dkms"
	if ! out=$(cd "$DEST/usr/src/torus-$VERSION" && dkms add . "${D[@]}" 2>&1 &&
		dkms build "torus/$VERSION" -k "$KVER" "${D[@]}" 2>&1 &&
		dkms install "torus/$VERSION" -k "$KVER" "${D[@]}" \
			--installtree "$P/root/lib/modules" --no-depmod 2>&1); then
		fail $case "$(tail -n 8 <<< "$out")"
	elif [ "$(modinfo -F vermagic "$P/root/lib/modules/$KVER/updates/dkms/torus.ko" |
		cut -d' ' -f1)" != "$KVER" ]; then
		fail $case "updates/dkms/torus.ko is not built for $KVER"
	elif ! depmod -b "$P/root" "$KVER" 2> /dev/null ||
	     ! grep -q '^updates/dkms/torus.ko:' "$P/root/lib/modules/$KVER/modules.dep"; then
		fail $case "no updates/dkms/torus.ko in the installed tree"
	else
		pass $case
	fi
fi

# every symbol a plugin leaves undefined is libc's or exported by ip
case=ip_plugins_link_against_stock_ip
ip_bin=$(command -v ip || echo /usr/sbin/ip)
plugins=(build/ip/link_torport.so build/ip/link_torus.so build/ip/link_torus_slave.so)
if [ ! -x "$ip_bin" ]; then
	skip $case "no ip (iproute2)"
elif ! ls "${plugins[@]}" > /dev/null 2>&1; then
	fail $case "not built (make tools): ${plugins[*]}"
else
	exported=$(nm -D --defined-only "$ip_bin" | awk '{print $3}')
	bad=
	for so in "${plugins[@]}"; do
		kind=$(basename "$so" .so)
		kind=${kind#link_}
		nm -D --defined-only "$so" | grep -q " ${kind}_link_util$" ||
			bad="$bad $so:no-${kind}_link_util"
		for sym in $(nm -D --undefined-only "$so" | awk '$2 !~ /@/ && $1 == "U" {print $2}'); do
			grep -qx "$sym" <<< "$exported" || bad="$bad $so:$sym"
		done
	done
	if [ -n "$bad" ]; then fail $case "$bad"; else pass $case; fi
fi

# the two packages hold what make install installs, man pages gzipped
case=make_deb_packages_hold_the_install
if [ ! -d "$DEST" ]; then
	skip $case "make install failed"
elif ! out=$(scripts/mkdeb "$VERSION" "$P/deb" 2>&1); then
	fail $case "$(tail -n 5 <<< "$out")"
else
	debs=$(for d in "$P"/deb/torus-*.deb; do dpkg-deb -c "$d"; done |
		awk '$1 !~ /^d/ {print substr($6, 3)}' | sort)
	installed=$(cd "$DEST" && find . ! -type d | cut -c3- |
		sed 's|^\(usr/share/man/.*\.8\)$|\1.gz|' | sort)
	ctl=$(dpkg-deb -f "$P/deb/torus-tools_${VERSION}_$(dpkg --print-architecture).deb" Depends)
	if [ "$debs" != "$installed" ]; then
		fail $case "$(diff <(echo "$installed") <(echo "$debs") | grep '^[<>]' | head -n 5 | tr '\n' ' ')"
	elif ! grep -q libmnl0 <<< "$ctl"; then
		fail $case "torus-tools Depends lacks libmnl0: $ctl"
	else
		pass $case
	fi
fi

case=bash_completion_offers_the_tool_grammar
if [ ! -x build/bin/torus ]; then
	fail $case "no build/bin/torus (make tools)"
elif ! out=$(bash tests/pkg/completion_test.sh build/bin/torus \
		tools/completion/torus.bash 2>&1); then
	fail $case "$out"
else
	pass $case
fi

# debian/: dpkg-buildpackage in a copy of the tree, lintian clean
case=dpkg_buildpackage_lintian_clean
if ! command -v dpkg-buildpackage > /dev/null || ! command -v lintian > /dev/null ||
   ! dpkg-checkbuilddeps > /dev/null 2>&1; then
	skip $case "no dpkg-buildpackage, lintian or build dependencies (make deps)"
elif ! out=$(scripts/dpkg-build "$P/dpkg" 2>&1); then
	fail $case "$(tail -n 8 <<< "$out" | tr '\n' ' ')"
else
	arch=$(dpkg --print-architecture)
	tools=$(dpkg-deb -c "$P/dpkg/torus-tools_${VERSION}_$arch.deb")
	dkms=$P/dpkg/torus-dkms_${VERSION}_all.deb
	missing=
	for f in usr/sbin/torus usr/sbin/torusd usr/bin/torus-sim usr/sbin/torus-lab \
		"usr/lib/$MULTIARCH/ip/link_torport.so" lib/systemd/system/torusd@.service \
		usr/share/man/man8/torus.8.gz usr/share/bash-completion/completions/torus \
		"usr/lib/$MULTIARCH/wireshark/plugins/torus.lua"; do
		grep -q " \./$f\( \|$\)" <<< "$tools" || missing="$missing $f"
	done
	if [ -n "$missing" ]; then
		fail $case "torus-tools lacks:$missing"
	elif ! grep -q '^dkms' <<< "$(dpkg-deb -f "$dkms" Depends)" ||
	     ! grep -q "usr/src/torus-$VERSION/dkms.conf" <<< "$(dpkg-deb -c "$dkms")" ||
	     ! dpkg-deb -I "$dkms" postinst > /dev/null 2>&1; then
		fail $case "torus-dkms: no dkms dependency, dkms.conf or postinst"
	elif grep -q '^[EW]: ' "$P/dpkg/lintian.txt"; then
		fail $case "lintian: $(grep '^[EW]: ' "$P/dpkg/lintian.txt" | head -n 3 | tr '\n' ' ')"
	else
		pass $case
	fi
fi

# the torus-dkms package's own source, handed to DKMS as its postinst
# does (dkms add, build), builds the module for the target kernel, and
# it is the source make install puts in /usr/src
case=dkms_builds_the_torus_dkms_package
deb=$P/dpkg/torus-dkms_${VERSION}_all.deb
if [ ! -f "$deb" ] || [ -z "$KVER" ] || ! command -v dkms > /dev/null ||
   [ "$(id -u)" != 0 ]; then
	skip $case "no torus-dkms package, kernel headers, dkms or root"
else
	X=$P/dkms-deb
	DD=(--sourcetree "$X/usr/src" --dkmstree "$X/dkms")
	mkdir -p "$X/dkms"
	if ! out=$(dpkg-deb -x "$deb" "$X" 2>&1 &&
		dkms add "torus/$VERSION" "${DD[@]}" 2>&1 &&
		dkms build "torus/$VERSION" -k "$KVER" "${DD[@]}" 2>&1); then
		fail $case "$(tail -n 8 <<< "$out" | tr '\n' ' ')"
	else
		ko=$(find "$X/dkms/torus/$VERSION/$KVER" -name torus.ko | head -n 1)
		if [ -z "$ko" ] ||
		   [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" != "$KVER" ]; then
			fail $case "no torus.ko for $KVER from the package's source"
		elif ! d=$(diff -r "$X/usr/src/torus-$VERSION" \
				"$DEST/usr/src/torus-$VERSION" 2>&1); then
			fail $case "its source is not make install's: $(head -n 3 <<< "$d" | tr '\n' ' ')"
		else
			echo "# $case: $(find "$X/usr/src/torus-$VERSION" -type f | wc -l) source files, torus.ko for $KVER"
			pass $case
		fi
	fi
fi

# torus topo and torus-sim --svg: pictures checked in headless chromium
python3 tests/pkg/topo_test.py || status=1

exit $status
