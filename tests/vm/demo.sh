#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/vm/demo.sh - the README's first command (make demo) runs this in
# the test VM: a 4x4x4 torus of 64 network namespaces, cabled with
# torport pairs, given its coordinates and port maps by hand with the
# torus tool, pinged across, and its port table printed.  When torusd is
# built, a second rack is miswired node by node and discovers itself.
cd "$(dirname "$0")/../.." || exit 1
set -e

echo "== building a 4x4x4 torus: 64 namespaces, 192 torport cables"
torus-lab build --dims 4x4x4 --static
echo
echo "== node (0,0,0) as the torus tool shows it"
torus -n n0-0-0 node show
echo
echo "== ping from (0,0,0) to the 63 other nodes (10.x.y.z = coordinates)"
torus-lab ping-all --dims 4x4x4 --from 0,0,0
echo
echo "== the longest path: 6 hops to (2,2,2)"
torus -n n0-0-0 route get 2,2,2
ip netns exec n0-0-0 ping -c 3 10.2.2.2
echo
echo "== port table of (0,0,0), with counters"
torus -n n0-0-0 -s port show
echo
echo "== the same as JSON"
torus -n n0-0-0 -j port show
torus-lab destroy

if command -v torusd >/dev/null 2>&1 && torus-lab --help | grep -q ' run'; then
	echo
	echo "== self-discovery: every node cabled in its own rotation or reflection"
	torus-lab run --dims 4x4x4 --miswire nodes --seed 1 --ping
	torus-lab destroy
fi
echo
echo "demo: ok"
