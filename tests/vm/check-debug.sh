#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/vm/check-debug.sh — the VM scenarios on the debug kernel (KASAN,
# kmemleak, lockdep), run by "make check-debug" through
#   tests/vm/run --kernel build/vm-debug/obj/vmlinux \
#       --module build/vm-debug/mod/torus.ko --check-dmesg -- tests/vm/check-debug.sh
# After the scenarios, kmemleak scans twice (a leak must survive two scans)
# and every suspected leak whose backtrace mentions torus fails the run.
cd "$(dirname "$0")/../.." || exit 1
status=0
bash tests/vm/check.sh || status=1
kml=/sys/kernel/debug/kmemleak
if [ -w "$kml" ]; then
	echo scan > "$kml"; sleep 5; echo scan > "$kml"
	leaks=$(awk 'BEGIN { RS = "unreferenced object" } NR > 1 && /torus/ { print "unreferenced object" $0 }' "$kml")
	total=$(grep -c '^unreferenced object' "$kml")
	if [ -n "$leaks" ]; then
		echo "FAIL: vm-debug/kmemleak ($total suspected leaks, these in torus):"
		printf '%s\n' "$leaks" | head -n 60
		status=1
	else
		echo "PASS: vm-debug/kmemleak ($total suspected leaks outside torus)"
	fi
else
	echo "FAIL: vm-debug/kmemleak (no $kml: not the debug kernel?)"
	status=1
fi
if dmesg | grep -q 'KernelAddressSanitizer initialized'; then
	echo "PASS: vm-debug/kasan-active"
else
	echo "FAIL: vm-debug/kasan-active (no KASAN banner in dmesg)"
	status=1
fi
exit $status
