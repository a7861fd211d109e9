#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/vm/check-full.sh - the VM runs too long for make check, run inside
# the test VM by tests/run vm-full (make check-full): every collective
# on 64 nodes, MPI programs on 27 ranks, the 60 s fault storm, 1000 namespaces, 100 insmod/rmmod
# and 100 torusd kill cycles, hostile frames at full speed for 60 s.
cd "$(dirname "$0")/../.." || exit 1
. tests/vm/lib.sh
require_vm

status=0
python3 tests/vm/coll_test.py --full || status=1
# MPI programs through libtorus_mpi.so on 27 ranks: every type and op at
# every count, under Open MPI and MPICH
python3 tests/vm/mpi_test.py --dims 3x3x3 --large || status=1
# a second miswired 4x4x4 rack with 2 dead nodes and 3 cut cables, by
# torus-lab run (make check discovers daemon_test.py's faulty rack), and
# the flat rack again with all 64 daemons restarted under a ping
python3 tests/vm/discovery_test.py faults restart || status=1
tests/vm/reliability.sh full build/vm/reliability-full || status=1
python3 tests/vm/hostile_flood.py --duration 60 \
	--json build/vm/reliability-full/hostile.json || status=1
exit $status
