#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# daemon/torusd@.service passes systemd-analyze verify (syntax, known
# directives, an executable ExecStart: the build's torusd stands in
# for /usr/sbin/torusd), and carries the hardening torusd(8) promises:
# an unprivileged user with CAP_NET_ADMIN and CAP_NET_RAW alone.
here=$(cd "$(dirname "$0")/../.." && pwd)
unit=$here/daemon/torusd@.service
torusd=$here/build/bin/torusd
name=unit/systemd_unit_verifies
if ! command -v systemd-analyze > /dev/null; then
	echo "SKIP: $name (no systemd-analyze)"
	exit 0
fi
if [ ! -x "$torusd" ]; then
	echo "FAIL: $name (no $torusd: make -C daemon)"
	exit 1
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sed "s|/usr/sbin/torusd|$torusd|" "$unit" > "$dir/torusd@.service"
out=$(cd "$dir" && systemd-analyze verify --man=no ./torusd@tor0.service 2>&1)
rc=$?
missing=
for d in Type=notify "CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_RAW\$" \
	 "AmbientCapabilities=CAP_NET_ADMIN CAP_NET_RAW\$" \
	 ProtectKernelTunables=yes ProtectSystem=strict PrivateTmp=yes \
	 RestrictAddressFamilies= SystemCallFilter=@system-service \
	 ExecReload= RuntimeDirectory=torusd RuntimeDirectoryPreserve=yes; do
	grep -q "^$d" "$unit" || missing="$missing $d"
done
# not root: a dynamic user, one name for every instance (they share
# /run/torusd, made that user's), or a static user
if grep -q '^DynamicUser=yes' "$unit"; then
	grep -q '^User=.' "$unit" || missing="$missing User=(shared)"
else
	grep -q '^User=.' "$unit" || missing="$missing DynamicUser=yes|User="
fi
if [ "$rc" -eq 0 ] && [ -z "$out" ] && [ -z "$missing" ]; then
	echo "PASS: $name"
else
	echo "FAIL: $name (rc $rc: $out; missing:$missing)"
	exit 1
fi
