#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/bench/bench-reroute.sh - the reroute scenario (tests/vm/reroute_test.py)
# run REROUTE_RUNS times per configuration in one VM, with this build's
# torusd beside a baseline torusd built from REROUTE_BASELINE, on a quiet
# and on a busy guest (make bench-reroute); build/bench-reroute/results.*
#
#   REROUTE_BASELINE=REF  the commit whose daemon is the baseline
#                         (default c10336c: the holdoff that doubled from
#                         200 ms and reset after 1 s without computation)
#   REROUTE_RUNS=N        runs per configuration (default 3)
#   REROUTE_LOADS=L,...   spinning processes in the guest (default 0,2)
set -eu
cd "$(dirname "$0")/../.."
ref=${REROUTE_BASELINE:-c10336c}
base=build/baseline-torusd
rm -rf "$base"
mkdir -p "$base"
git archive "$ref" daemon lib uapi tests/unit | tar -x -C "$base"
make -s -C "$base/daemon" ../build/bin/torusd
# this build's, copied: a rebuild meanwhile does not reach the runs
cp build/bin/torusd "$base/torusd.this"
tests/vm/run --timeout 5400 --mem 2048 -- python3 tests/bench/bench-reroute.py \
	--torusd "$base/torusd.this" --baseline-torusd "$base/build/bin/torusd" \
	--baseline-name "$ref" --runs "${REROUTE_RUNS:-3}" \
	--loads "${REROUTE_LOADS:-0,2}"
