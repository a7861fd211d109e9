#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/bench/bench-routes.sh - the install time of a node's whole route
# exception table (40,000 exceptions in a 64x32x32 fabric, one
# ROUTE_BATCH request), this build beside a baseline build of torus.ko in
# the same VM run (make bench-routes).
#
#   ROUTES_BASELINE=REF  the commit whose kernel/ is the baseline
#                        (default e0944e0: the sorted array, before the
#                        hashed table)
#   ROUTES_EXCEPTIONS=N  default 40000
set -eu
cd "$(dirname "$0")/../.."
ref=${ROUTES_BASELINE:-e0944e0}
n=${ROUTES_EXCEPTIONS:-40000}
base=build/baseline
kver=${KVER:-$(ls -1 /lib/modules | sort -rV | head -n 1)}
rm -rf "$base"
mkdir -p "$base"
git archive "$ref" kernel uapi | tar -x -C "$base"
make -s -C "/lib/modules/$kver/build" M="$PWD/$base/kernel" CONFIG_TORUS=m \
	modules
tests/vm/run --timeout 1800 -- python3 tests/vm/routing_test.py \
	--exceptions "$n" --rounds 5 --baseline-ko "$base/kernel/torus.ko"
# torusd's own install path (td_nl_route_replace) beside "torus route
# batch" with the same table, in one VM run
tests/vm/run --timeout 1800 -- python3 tests/vm/route_install_bench.py \
	--exceptions "$n" --rounds 5 --json build/vm/route-install.json
