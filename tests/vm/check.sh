#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/vm/check.sh - every VM scenario, run inside the test VM by
# tests/run (tests/vm/run -- tests/vm/check.sh).  Each scenario prints
# PASS:/FAIL:/SKIP: lines; the exit status is non-zero if any failed.
cd "$(dirname "$0")/../.." || exit 1
. tests/vm/lib.sh
require_vm

status=0
python3 tests/vm/datapath_test.py || status=1
# collectives on a 3x3x3 rack: exact double sums, a member deleted
python3 tests/vm/coll_test.py || status=1
# unmodified MPI programs on the module's collectives (libtorus_mpi.so),
# Open MPI and MPICH, C and Fortran, one rank per node of a 2x2x2 rack
python3 tests/vm/mpi_test.py || status=1
python3 tests/vm/fabric_test.py || status=1
# fabric_test.py ends with rmmod torus: discovery_test.py insmods it again
python3 tests/vm/discovery_test.py || status=1
# torusd itself: plan addresses, cables into the wrong node, reloads,
# lifecycle (ends with rmmod + insmod), wake-ups
python3 tests/vm/daemon_test.py || status=1
python3 tests/vm/control_test.py --routes 3000 || status=1
# lambs, plans and vc in route get, table generations, and the install
# time of 40,000 exceptions (make bench-routes adds a baseline module)
python3 tests/vm/routing_test.py --exceptions 40000 || status=1
# torusd reroutes a 4x4x4 rack under ping and TCP load while 3 cables
# are cut and 2 nodes killed, then releases the routes (daemon/routes.c)
python3 tests/vm/reroute_test.py --json build/vm/reroute.json || status=1
# the short flood, without the veth pair's rate beside it (a figure,
# no check); make reliability floods for 60 s, and it and make
# check-full run the fault storm and the churn of namespaces, module
# loads and daemon kills (tests/vm/reliability.sh)
python3 tests/vm/hostile_flood.py --duration 5 --baseline-secs 0 \
	--json build/vm/reliability/hostile.json || status=1
# namespaces and module loads come and go without a leak (the short run)
python3 tests/vm/churn_test.py --netns 50 --modules 5 --kills 0 \
	--json build/vm/reliability/churn.json || status=1
# the module DKMS built on the host (tests/pkg/run.sh), stock ip with the
# plugins of tools/iproute2; make dkms-vm runs dkms itself in the guest
python3 tests/vm/eco_test.py || status=1
# veth pairs as ports labelled with torus port set: discovery, pings,
# a TCP stream with GSO (tests/vm/two/run: NICs between two machines)
python3 tests/vm/ethport_test.py || status=1
# torus topo on a rack's kernel state, torus-lab run --svg
python3 tests/vm/topo_test.py || status=1
# tools/wireshark/torus.lua on a capture of a discovered rack (tshark)
python3 tests/vm/wireshark_test.py || status=1
exit $status
