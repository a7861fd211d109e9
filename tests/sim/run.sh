#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/sim/run.sh — torus-sim at small sizes (make check).
#
#   tests/sim/run.sh                 uses build/bin/torus-sim
#   TORUS_SIM=path tests/sim/run.sh
#   tests/sim/run.sh --full          only the paper's machine at full size
#                                    (65,536 nodes, about 15 s of CPU and
#                                    300 MB: make check-full, suite sim-full)
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
	timeout "${RUN_TIMEOUT:-60}" "$SIM" -j "$@" >"$out" 2>"$err"
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

if [ "${1:-}" = --full ]; then
	# the paper's experiment as typed, default options: it fits (link
	# state is not measured, its databases would take 14 GB, and says
	# so), every block oriented, consistent with the truth; the core's
	# state and link state's reported apart
	RUN_TIMEOUT=900 run paper-65536-default '.converged and .consistent
		and .nodes == 65536 and .orientation_success == 1 and
		.runs_wrong == 0 and .ls_runs_too_large == 1 and
		.ls_runs_measured == 0 and .core_bytes_per_node < 4096 and
		.ls_state_bytes_per_node < 1024' \
		--dims 32x32x64 --block 8x8x8 --miswire blocks \
		--node-fail 0.15 --link-fail 0.15
	exit $failed
fi

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
# a ring of two: both cables join the same pair and each node's map has
# its own sign on that axis; neighbours that differ only by it agree
# (before: a 5-D machine stayed split in two frames, and at 10% faults
# a 4-D one left up to 8% of its main component unplaced)
run ring2-5d-one-frame '.consistent and .converged and
	.main_placed_fraction_min == 1' --dims 6x6x4x3x2 --miswire nodes \
	--node-fail 0.15 --link-fail 0.15 --seed 1044
run ring2-4d-faults '.runs_inconsistent == 0 and .runs_not_converged == 0
	and .main_placed_fraction_min > 0.98' --dims 4x4x4x2 \
	--miswire nodes --node-fail 0.1 --link-fail 0.1 --seed 1 --runs 20
run bound-bgl '(.lower_bound_eq8 > 0.99999999) and
	(.lower_bound_eq8 < 1) and (.lower_bound > 0.999999)' \
	--dims 32x32x64 --block 8x8x8 --node-fail 0.15 --link-fail 0.15 \
	--max-rounds 1 --no-ls

# link state: once placed, every node's database derives the truth's
# fault set (checked exactly with tc_ls_faults); then a node is killed
# and revived, a cable cut and restored, each agreed on again
ls_events='.ls_agree and .ls_runs_measured == .runs and
	([.ls_events[] | .rounds_max] | length == 4 and all(. != null))'
run ls-faults-8x8x8 "$ls_events and .ls_reporters_max > 0" \
	--dims 8x8x8 --node-fail 0.03 --link-fail 0.02 --ls-events --seed 2
run ls-blocks-8x8x8 "$ls_events" --dims 8x8x8 --block 4x4x4 \
	--miswire blocks --node-fail 0.03 --ls-events --runs 2
run ls-mesh-6x5x4 "$ls_events" --dims 6x5x4 --mesh xyz --miswire nodes \
	--link-fail 0.03 --ls-events --seed 4
run ls-loss-6x6x6 '.ls_agree and .msgs_lost > 0' --dims 6x6x6 \
	--node-fail 0.03 --loss 0.02 --seed 3
# heavy faults: a node powered off next to a fault leaves its last
# record everywhere (nobody can withdraw it), and a cable an end leaves
# out of its port map is down (before: 7 of 40 runs agreed)
run ls-events-f10 "$ls_events" --dims 8x8x8 --node-fail 0.1 \
	--link-fail 0.1 --ls-events --seed 1000 --runs 20
# every daemon reloaded at its own tick: an adjacency formed while the
# far end was not placed yet is synced from both ends (before: 7 of 40
# runs kept a record withdrawn long since)
run ls-reload-mesh '.ls_agree and .ls_runs_measured == .runs' \
	--dims 4x4x4 --mesh xyz --restart 200 --seed 1000 --runs 40
# the check can fail: a database too small for the faults disagrees
run ls-overflow-disagrees '(.ls_agree | not) and .ls_overflow > 0' \
	--dims 8x8x8 --node-fail 0.05 --ls-records 4

# memory per node: the core's own state, O(1) (1,176 bytes on a 3-D
# torus), its link-state database apart (sized by the bound: 512 records)
run memory-core-3d '.core_bytes_per_node < 1200 and
	.ls_state_bytes_per_node > 512 * 12 and .ls_bound == 512 and
	.state_bytes_per_node == .core_bytes_per_node +
	.ls_state_bytes_per_node' --dims 8x8x8 --max-rounds 1
# the same at the paper's 65,536 nodes, flat and in blocks (1,672 bytes:
# 32 face records in flight), one round
run memory-core-65536 '.core_bytes_per_node < 1200 and .nodes == 65536' \
	--dims 32x32x64 --no-ls --max-rounds 1
run memory-core-65536-blocks '.core_bytes_per_node < 1700 and
	.nodes == 65536' --dims 32x32x64 --block 8x8x8 --miswire blocks \
	--no-ls --max-rounds 1
# link state is measured where its databases fit: the paper's machine
# with 15% faults would need over 10 GB of them, so it is not, and
# says so (discovery runs as with --no-ls); --ls measures anyway
run ls-too-large-not-measured '.ls_runs_too_large == 1 and
	.ls_runs_measured == 0 and .ls_bytes_needed > 2e9 and
	.ls_bound == 1 and .per_run[0].ls_too_large' \
	--dims 32x32x64 --block 8x8x8 --node-fail 0.15 --link-fail 0.15 \
	--max-rounds 1
run ls-forced-small '.ls_runs_measured == .runs and .ls_runs_too_large == 0
	and .ls_agree' --dims 4x4x4 --node-fail 0.05 --ls --runs 2

# ---- time: the harness, on any core ----
time_keys='[ "moved", "moved_rewired", "moved_after_growth",
	"moved_beyond_growth", "wrong",
	"wrong_coord", "wrong_dims", "wrong_portmap", "wrong_frame",
	"first_wrong", "wrong_checks", "converged_at", "last_event",
	"grown_at", "liars", "msgs_lost", "msgs_duplicated", "msgs_delayed",
	"queue_drops", "refuted", "resurveys", "oversize_msgs",
	"main_placed_fraction" ]'
run time-keys "(.per_run[0] | keys) as \$k | $time_keys - \$k == [] and
	([\"runs_wrong\", \"runs_moved\", \"runs_inconsistent\",
	  \"runs_not_converged\", \"main_placed_fraction_min\",
	  \"time\"] - keys == []) and .time.hello_ticks == 10 and
	.time.dead_ticks == 40 and .quiet_ticks == 30" \
	--dims 2x2x2 --start-spread 0
# no history at all, torusd's timers: the static result, and nothing moves
run time-clean "$all_placed and .wrong == 0 and .moved == 0 and
	.per_run[0].converged_at != null" --dims 4x4x4 --miswire nodes \
	--start-spread 0 --runs 3
# messages lost, doubled and late are counted; settled runs stay right
run time-net "$all_placed and .msgs_lost > 0 and .msgs_duplicated > 0 and
	.msgs_delayed > 0 and .wrong == 0 and .moved == 0" --dims 4x4x4 \
	--miswire nodes --loss 0.05 --dup 0.05 --reorder 0.05 --runs 3
# the checks must be able to fail: take two nodes for each other
run time-checks-fail '.wrong >= 2 and .wrong_coord >= 2 and
	(.consistent | not) and .per_run[0].first_wrong != null and
	.per_run[0].bad_coord >= 1' --dims 4x4x4 --miswire nodes \
	--truth-swap 1
# a ring that grows moves nodes unless its seam is the frame's edge
# (or the core keeps wrong coordinates): the move detector must see it
run time-growth-moves '([.per_run[] | select(.consistent)] | length) == 0
	or .moved + .moved_rewired > 0' --dims 6x6x6 --miswire nodes \
	--grow x:2 --runs 5
run time-growth-truth '.per_run | all(.grown_at != null and
	.live == 216)' --dims 6x6x6 --miswire nodes --grow x:2 --runs 2
# a ring grown by a slab is surveyed again: the grown extent, never a
# wrong place on the way, only moves after the growth; rings whose old
# and new extents share a factor the window cannot refute (6 -> 8 and
# 8 -> 10: the turns prove it), a single ring, and every miswiring;
# afterwards every live cable is back in the port map (before, the
# cables whose turn showed the growth stayed out as miswired for good:
# about 100 ports of 8x8x8 grown by 2, 300 of 16x16x16 in blocks)
grown='.wrong == 0 and .runs_inconsistent == 0 and
	.runs_not_converged == 0 and .moved == .moved_after_growth and
	.moved_beyond_growth == 0 and
	.resurveys > 0 and ([.per_run[].missing_portmap] | add) == 0'
run time-grow-4to6 "$all_placed and $grown" --dims 6x4x4 \
	--miswire nodes --grow x:2 --runs 10
run time-grow-6to8 "$all_placed and $grown" --dims 8x6x4 \
	--miswire nodes --grow x:2 --runs 10
run time-grow-8to10 "$all_placed and $grown" --dims 10x4x4 --grow x:2 \
	--runs 10
run time-grow-ring "$all_placed and $grown" --dims 6 --grow x:2 --runs 10
# a ring of two has no sign (its two cables join the same pair): grown,
# its axis is oriented again from the leader (before: every run with
# miswired nodes ended inconsistent, not converged, its maps wrong)
run time-grow-2to4 "$all_placed and $grown" --dims 4x4x4 --miswire nodes \
	--grow x:2 --runs 10
# ... with daemons restarting: squares from neighbour tables of before
# the growth oriented nodes wrongly and the survey restarted for good
# (before: seeds 1073 and 1089 never converged), and a cable whose ends
# were oriented again one after the other was marked miswired for good
# (before: 1 or 2 ports out of the port map in 15 runs of 100)
run time-grow-2to6-restarts "$all_placed and $grown" --dims 6x6x6 \
	--miswire nodes --grow x:4 --restart 5 --seed 1070 --runs 20
# a newcomer whose neighbours became current at the end of the survey,
# with nothing else changed, elects again (before: seed 1023 left node
# (4,5,1) unplaced, "no cable orientation could be resolved")
run time-grow-restart-newcomer "$all_placed and $grown" --dims 6x6x6 \
	--miswire nodes --grow x:2 --restart 5 --seed 1023 --runs 1
# a slab wider than two: its inner newcomers, cabled only to newcomers,
# follow the ones that joined the placed frame (before: they kept a frame
# of their own that outranked them by id, the grown ring never closed, 10
# of 40 runs of 8x8x8 grown 4 -> 8 and 18 of 40 of 6x6x6 grown 2 -> 6)
run time-grow-4to8 "$all_placed and $grown" --dims 8x8x8 \
	--grow x:4 --seed 5013 --runs 5
# grown by a multiple of its extent (6 -> 12) a ring shows no turn the
# old extent does not divide and no window refutes it: the newcomer that
# lands on the leader's place proves it (before: every run wrong)
run time-grow-6to12 "$all_placed and $grown" --dims 12x4x4 \
	--miswire nodes --grow x:6 --runs 10
run time-grow-blocks "$all_placed and $grown" --dims 8x8x8 --block 2x2x2 \
	--miswire blocks --grow z:2 --runs 5
# with loss, a node may follow while one of its cables is silent: once
# the cable speaks again the axis is oriented, placed or not (before: 16
# ports of 5 runs stayed out of the port map)
run time-grow-loss "$all_placed and $grown" --dims 8x8x8 --miswire nodes \
	--grow x:2 --loss 0.05 --seed 1000 --runs 5
# a liar's made-up neighbour table refutes no honest ring: on rings of
# 4 (where five in a row would) its neighbours are placed all the same
run time-liar-neighbours-placed "$all_placed and .wrong == 0" \
	--dims 4x4x4 --miswire nodes --liar 1 --runs 10
run time-grow-timed "$grown" --dims 6x6x6 --miswire nodes --grow y:2 \
	--start-spread 100 --loss 0.02 --runs 10
# restarts around a growth: a leader restarted before it placed anchors
# the survey all the same (before: seed 1004 never finished it and 203
# nodes kept places modulo the old extent), and a leader resumed next to
# a newcomer placed before the growth was seen keeps its own place
# (before: seed 5084 took the newcomer's, 49 nodes wrong)
run time-grow-leader-restarted '.wrong == 0 and .runs_not_converged == 0
	and .runs_inconsistent == 0 and .moved_beyond_growth == 0' \
	--dims 6x6x6 --miswire nodes --grow x:2 --restart 5 --seed 1000 \
	--runs 10
run time-grow-leader-resumed '.wrong == 0 and .runs_not_converged == 0
	and .runs_inconsistent == 0 and .moved_beyond_growth == 0' \
	--dims 4x4x4 --grow z:1 --restart 5 --seed 5080 --runs 10
# blocks powered on over minutes: a face that timed out before its
# other cables came up is tried again (before: 2x2x2 blocks spread over
# 100 ticks placed nobody, and 8 of 20 8x8x8 runs did not converge)
run time-blocks-staggered "$all_placed and .wrong == 0 and .moved == 0" \
	--dims 4x4x4 --block 2x2x2 --miswire blocks --start-spread 300 \
	--runs 10
run time-blocks-staggered-faults '.runs_not_converged == 0 and
	.runs_inconsistent == 0 and .wrong == 0 and
	.main_placed_fraction_min == 1' --dims 8x8x8 --block 2x2x2 \
	--miswire blocks --start-spread 300 --node-fail 0.05 --loss 0.05 \
	--seed 1 --runs 5
# starved daemons: loops that stall for up to 10 s (200 ticks), blocks
# powered on over 85 s.  A face times out while a block mate is stalled
# after every cable on it was heard of: it is tried again later (before:
# the faces closing the x ring stayed failed, nobody placed in 8000)
run time-blocks-stalled "$all_placed and .wrong == 0" --dims 4x4x4 \
	--block 2x2x2 --miswire blocks --stall 0.01:200 --start-spread 1700 \
	--seed 26 --max-rounds 8000
# an MTU below the core's messages: the oversize counter fires
run time-oversize '.oversize_msgs > 0 and .placed == 0' --dims 4x4x4 \
	--mtu 40
# a liar is no honest node: it is neither placed nor checked
run time-liar-excluded '.per_run | all(.liars == 1 and .live == 63 and
	.placed + .unplaced == 63)' --dims 4x4x4 --miswire nodes \
	--liar 1:random --runs 2
# restarts with the placement resumed leave nodes where they were
run time-restart-runs '.per_run | all(.last_event > 0)' --dims 4x4x4 \
	--miswire nodes --restart 3
# ... on a ring of two too, whose map's sign at coordinate 1 is the far
# label's (before: the resumed node took label 0's, its neighbour's map
# was wrong, 43 of 100 runs)
run time-restart-ring2 '.wrong == 0 and .moved == 0 and
	.runs_inconsistent == 0' --dims 2x4x4 --miswire nodes --restart 20 \
	--seed 5000 --runs 10
# a ring grown beside a ring of two: the origin rule surveys every ring
# again, and a ring of two surveyed again shows its cables by their
# labels as before (before: its sign from the path it was oriented
# along, and 4 of 30 runs had a port map contradicting the far end's)
run time-grow-beside-ring2 '.wrong == 0 and .moved_beyond_growth == 0 and
	.runs_inconsistent == 0 and .runs_not_converged == 0' \
	--dims 6x4x2x2 --grow x:2 --loss 0.05 --seed 7000 --runs 30
# ... on lines too, which the kernel counts from their start and the
# frame from its leader (before: a resumed node's record folded 0..4
# into -3..1, 17 of 30 runs wrong)
run time-restart-mesh '.wrong == 0 and .moved == 0 and
	.runs_inconsistent == 0 and .runs_not_converged == 0' --dims 5x5x5 \
	--mesh z --miswire nodes --restart 5 --seed 7000 --runs 30
# ... and when every daemon is reloaded, each at its own tick (before:
# 49 of 50 runs wrong)
run time-reload-mesh '.wrong == 0 and .moved == 0 and
	.runs_inconsistent == 0 and .runs_not_converged == 0' --dims 4x4x4 \
	--mesh xyz --restart 200 --seed 7000 --runs 20

# one history per seed
hist=(--dims 4x4x4 --miswire nodes --start-spread 100 --start-order axes
	--loss 0.05 --dup 0.02 --reorder 0.02 --restart 2:fresh --recable 1
	--wrong-plug 1 --grow y:1 --liar 1 --seed 4)
a=$("$SIM" -j "${hist[@]}" | jq -c 'del(.wall_s, .node_steps_per_s,
	.per_run[].wall_s, .per_run[].node_steps_per_s)')
b=$("$SIM" -j "${hist[@]}" | jq -c 'del(.wall_s, .node_steps_per_s,
	.per_run[].wall_s, .per_run[].node_steps_per_s)')
if [ -n "$a" ] && [ "$a" = "$b" ]; then pass time-reproducible; else
	fail time-reproducible "two runs of one history differ"; fi
# nodes sleep to their next deadline (tc_skip()): the same history
# ticked every round gives the same result, and most ticks are slept
nosleep='del(.wall_s, .node_steps_per_s, .node_ticks_slept,
	.per_run[].wall_s, .per_run[].node_steps_per_s,
	.per_run[].node_ticks_slept)'
a=$("$SIM" -j "${hist[@]}" | jq -cS "$nosleep")
b=$("$SIM" -j --no-sleep "${hist[@]}" | jq -cS "$nosleep")
# (discovery alone: link state's floods are inputs that wake nodes)
slept=$("$SIM" -j --no-ls "${hist[@]}" |
	jq '.node_ticks_slept * 2 > .node_ticks')
if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$slept" = true ]; then
	pass time-sleep-same-result
else
	fail time-sleep-same-result "sleeping changed the result, or slept little"
fi

# the sweep's quick rows (make sim-sweep runs them all): 0 wrong, 0
# inconsistent, no moves, converged
if command -v python3 >/dev/null 2>&1; then
	TORUS_SIM=$SIM timeout 600 python3 "$here/sweep.py" --quick --check --jobs 2 \
		|| failed=1
else
	echo "SKIP: sim/sweep: python3 not installed (make deps)"
fi

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
	    "--frobnicate" "extra" "--start-order sideways" "--loss 1.5" \
	    "--stall 1.5" "--stall 0.1:0" "--stall 0.1:x" \
	    "--dup -1" "--restart 3:later" "--restart x" "--grow w:1" \
	    "--grow x:7" "--grow x" "--liar 1:honest" \
	    "--dims 8x8x8 --block 4x4x4 --grow x:2" "--mtu 0" \
	    "--no-ls --ls-events" "--ls-records 0"; do
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

# ---- routes: lambs, verifier, tables, deadlock check ----
# shellcheck source=tests/sim/routes.sh
. "$here/routes.sh"

exit $failed
