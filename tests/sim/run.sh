#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/sim/run.sh — torus-sim at small sizes (make check).
#
#   tests/sim/run.sh                 uses build/bin/torus-sim
#   TORUS_SIM=path tests/sim/run.sh
#
# Every case runs the simulator on the real discovery core and asserts on
# its -j output (jq): every live node placed, the coordinates consistent
# with the simulator's ground truth, and so on.  Prints one line per case:
#   PASS: sim/<case>   FAIL: sim/<case>: why   SKIP: sim/<case>: why
# Exit status 1 if any case failed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$here/../.." && pwd)
SIM=${TORUS_SIM:-$REPO/build/bin/torus-sim}
failed=0

pass() { echo "PASS: sim/$1"; }
fail() { echo "FAIL: sim/$1${2:+: $2}"; failed=1; }

if ! command -v jq >/dev/null 2>&1; then
	echo "SKIP: sim/all: jq not installed (make deps)"
	exit 0
fi
if [ ! -x "$SIM" ]; then
	fail build "$SIM missing (make -C daemon && make -C tools/sim)"
	exit 1
fi

# run NAME JQ-ASSERTION SIM-ARGS...: the assertion must hold on the JSON
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

run() {
	local name=$1 expr=$2 rc
	shift 2
	timeout 60 "$SIM" -j "$@" >"$out" 2>"$err"
	rc=$?
	if [ "$rc" -gt 1 ]; then
		fail "$name" "exit $rc: $(head -c 300 "$err")"
		return
	fi
	if ! jq -e . "$out" >/dev/null 2>&1; then
		fail "$name" "no JSON (exit $rc): $(head -c 300 "$err")"
		return
	fi
	if jq -e "$expr" "$out" >/dev/null; then
		pass "$name"
	else
		fail "$name" "$(jq -c '{live, placed, unplaced, unplaced_reasons,
			converged, consistent, rounds, diameter,
			bad: [.per_run[] | {bad_coord, bad_dims, bad_portmap,
			bad_frames, split_components}]}' "$out")"
	fi
}

# every live node placed, consistent, within the round cap
all_placed='.converged and .consistent and .unplaced == 0 and .placed == .live'

run keys '[ "nodes", "diameter", "rounds", "converged", "placed",
	"unplaced", "consistent", "msgs_per_node", "bytes_per_node",
	"state_bytes_per_node", "wall_s", "live", "rounds_to_placed",
	"unplaced_reasons", "node_steps_per_s", "runs",
	"orientation_success", "lower_bound", "seed" ] - keys == []' \
	--dims 2x2x2
run none-4x4x4 "$all_placed" --dims 4x4x4 --miswire none
for s in 1 2 3; do
	run nodes-4x4x4-seed$s "$all_placed" --dims 4x4x4 --miswire nodes \
		--seed $s
done
run blocks-4x4x4-b2 "$all_placed" --dims 4x4x4 --block 2x2x2 \
	--miswire blocks
run blocks-8x8x8-b4 "$all_placed and .orientation_success == 1" \
	--dims 8x8x8 --block 4x4x4 --miswire blocks --seed 7
run mesh-3x3 "$all_placed" --dims 3x3 --wrap 0,0 --miswire nodes
run mesh-z-4x4x4 "$all_placed" --dims 4x4x4 --mesh z --miswire nodes \
	--seed 5
run torus-2x2x2x2 "$all_placed" --dims 2x2x2x2 --miswire nodes
run line-8x1 "$all_placed" --dims 8x1 --miswire nodes
# with faults: whatever is placed is right; the rest says why
run faults-4x4x4 '.consistent and .placed + .unplaced == .live and
	([.unplaced_reasons | keys[] | select(startswith("("))] == [])' \
	--dims 4x4x4 --miswire nodes --node-fail 0.05 --link-fail 0.05 \
	--seed 3
run faults-blocks-8x8x8 '.consistent and .placed + .unplaced == .live' \
	--dims 8x8x8 --block 4x4x4 --miswire blocks --node-fail 0.1 \
	--link-fail 0.1 --runs 3
run bound-bgl '(.lower_bound_eq8 > 0.99999999) and
	(.lower_bound_eq8 < 1) and (.lower_bound > 0.999999)' \
	--dims 32x32x64 --block 8x8x8 --node-fail 0.15 --link-fail 0.15 \
	--max-rounds 1

# one seed, one result
a=$("$SIM" -j --dims 4x4x4 --miswire nodes --node-fail 0.1 --seed 11 |
	jq -c 'del(.wall_s, .node_steps_per_s, .per_run[].wall_s,
		.per_run[].node_steps_per_s)')
b=$("$SIM" -j --dims 4x4x4 --miswire nodes --node-fail 0.1 --seed 11 |
	jq -c 'del(.wall_s, .node_steps_per_s, .per_run[].wall_s,
		.per_run[].node_steps_per_s)')
if [ -n "$a" ] && [ "$a" = "$b" ]; then pass reproducible; else
	fail reproducible "two runs of seed 11 differ"; fi

# bad input: exit 2 with a message
bad=0
for args in "--dims 0x4" "--dims 4x4x" "--dims 4x4x4 --block 3x3x3" \
	    "--dims 4x4 --block 2x2x2" "--miswire sideways" \
	    "--node-fail 1.5" "--link-fail -0.1" "--miswire blocks" \
	    "--runs 0" "--seed x" "--mesh w" "--dims 4x4 --wrap 1,0,1" \
	    "--frobnicate" "extra"; do
	# shellcheck disable=SC2086
	"$SIM" $args >/dev/null 2>"$err"
	rc=$?
	if [ "$rc" -ne 2 ] || [ ! -s "$err" ]; then
		fail "bad-args" "'$args': exit $rc, want 2 and a message"
		bad=1
	fi
done
[ "$bad" = 0 ] && pass bad-args
"$SIM" --help | grep -q -- '--node-fail' && pass help || fail help

exit $failed
