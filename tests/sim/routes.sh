# SPDX-License-Identifier: GPL-2.0-or-later
# tests/sim/routes.sh — torus-sim --routes cases (sourced by run.sh: uses
# its run/pass/fail helpers, $SIM, $out and $err).  The exact checks
# against brute force are the unit tests (tests/unit/test_troute.c);
# these run the tool end to end and check its files and counts.

rdir=$(mktemp -d)
trap 'rm -rf "$rdir" "$out" "$err"' EXIT

# the paper's model on a mesh: lambs found, the verifier proves them
run routes-paper-verified '.verify_bad_total == 0 and .lambs.mean > 0 and
	(.per_run | all(.verify.bad == 0 and .verify.one_round > 0 and
	.verify.two_round > 0 and .lambs <= .cover_weight))' \
	--routes paper --dims 12x12x12 --mesh xyz --dead-count 90 --runs 3 \
	--verify

# freedom: fewer lambs than the paper's model on the same faults
paper=$(timeout 60 "$SIM" -j --routes paper --dims 12x12x12 --mesh xyz \
	--dead-count 90 --runs 4 | jq '.lambs.mean')
free=$(timeout 60 "$SIM" -j --routes free --dims 12x12x12 --mesh xyz \
	--dead-count 90 --runs 4 --verify | jq 'select(.verify_bad_total == 0)
	| .lambs.mean')
if [ -n "$paper" ] && [ -n "$free" ] &&
   jq -en --argjson p "$paper" --argjson f "$free" '$f < $p' >/dev/null; then
	pass routes-free-beats-paper
else
	fail routes-free-beats-paper "paper ${paper:-?} free ${free:-?}"
fi

# files: faults and lambs written, read back, the same counts; a lamb
# removed by hand is a bad pair the verifier finds (exit 1)
if timeout 60 "$SIM" -j --routes paper --dims 10x10x10 --mesh xyz \
	--dead-count 120 --seed 7 --faults-out "$rdir/f" --lambs-out "$rdir/l" \
	>"$rdir/a.json" &&
   timeout 60 "$SIM" -j --routes paper --dims 10x10x10 --mesh xyz \
	--faults "$rdir/f" --lambs "$rdir/l" --verify \
	--faults-out "$rdir/f2" >"$rdir/b.json" &&
   [ "$(grep -v '^#' "$rdir/f")" = "$(grep -v '^#' "$rdir/f2")" ] &&
   jq -e --slurpfile a "$rdir/a.json" '.per_run[0].dead ==
	$a[0].per_run[0].dead and .per_run[0].lambs == $a[0].per_run[0].lambs
	and .per_run[0].verify.bad == 0' "$rdir/b.json" >/dev/null; then
	pass routes-file-round-trip
else
	fail routes-file-round-trip "$(head -c 300 "$rdir/b.json" 2>/dev/null)"
fi
grep -v '^#' "$rdir/l" | tail -n +2 >"$rdir/l2"
timeout 60 "$SIM" -j --routes paper --dims 10x10x10 --mesh xyz \
	--faults "$rdir/f" --lambs "$rdir/l2" --verify >"$rdir/c.json"
rc=$?
if [ "$rc" = 1 ] && jq -e '.per_run[0].verify.bad > 0' "$rdir/c.json" \
	>/dev/null; then
	pass routes-verifier-finds-planted-pair
else
	fail routes-verifier-finds-planted-pair "exit $rc"
fi

# one node's table: every destination accounted for; the deadlock check
run routes-table-cdg '.per_run | all(.table.direct + .table.via +
	.table.unreachable + 1 == 512 and .table.unreachable == .dead + .lambs
	and .cdg.acyclic and .cdg.channels > 0)' \
	--routes free --dims 8x8x8 --dead-count 20 --cut-count 10 --runs 2 \
	--table first --cdg --verify

# bad input: exit 2 with a message
bad=0
for args in "--routes x" "--routes paper --dims 0x4" \
	    "--routes paper --mesh q" "--routes paper --dead-frac 1.5" \
	    "--routes paper --dims 4x4 --dead-count 16" \
	    "--routes paper --dims 4x4 --table 9,9" \
	    "--routes paper --faults /nonexistent"; do
	# shellcheck disable=SC2086
	"$SIM" $args >/dev/null 2>"$err"
	rc=$?
	if [ "$rc" -eq 0 ] || [ ! -s "$err" ]; then
		fail routes-bad-args "'$args': exit $rc, want an error"
		bad=1
	fi
done
[ "$bad" = 0 ] && pass routes-bad-args
"$SIM" --routes paper --help | grep -q -- '--lambs-out' && pass routes-help ||
	fail routes-help

# the collectives' combining tree over the survivors (tcoll_tree.c):
# one tree of every survivor but the lambs, no deeper than the fault-free
# one by much, fan-in bounded by the directions (mesh: the paper's lambs)
run routes-coll-tree '.coll_tree.max_roots == 1 and
	.coll_tree.fault_free_depth == 45 and .coll_tree.max_depth <= 45 + 4
	and .coll_tree.max_fan_in <= 6 and (.per_run | all(.coll_tree.members
	== 4096 - .dead - .lambs and (.coll_tree.fan_in | add) ==
	.coll_tree.members))' \
	--routes paper --dims 16x16x16 --mesh xyz --dead-frac 0.03 --runs 3
