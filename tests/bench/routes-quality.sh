#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/bench/routes-quality.sh — the lamb figures of README "Fault-tolerant
# routes": torus-sim --routes over shapes x fault rates x modes, verified.
#
#   tests/bench/routes-quality.sh [OUTDIR]   (default build/routes-quality)
#
# Seeds per row: SEEDS_SMALL (16^3, 64x64; default 20), SEEDS_BIG (32^3;
# default 10), SEEDS_BIG10 (32^3 at 10%; default 2), and the headline
# rows (32^3 mesh and torus at 983 faults) HEADLINE_SEEDS (default 100).
# Prints a Markdown table; the JSON of every row is kept in OUTDIR.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$here/../.." && pwd)
SIM=${TORUS_SIM:-$REPO/build/bin/torus-sim}
out=${1:-$REPO/build/routes-quality}
mkdir -p "$out"
small=${SEEDS_SMALL:-20} big=${SEEDS_BIG:-10} big10=${SEEDS_BIG10:-2}
head=${HEADLINE_SEEDS:-100}

row() { # NAME MODE SEEDS ARGS...
	local name=$1 mode=$2 seeds=$3 f
	shift 3
	f="$out/$name-$mode.json"
	"$SIM" -j --routes "$mode" --runs "$seeds" --verify "$@" >"$f" || true
	jq -r --arg n "$name" --arg m "$mode" '"| \($n) | \($m) | \(.runs) | " +
		"\(.dead_count) | \(.lambs.mean) | \(.lambs.min) | \(.lambs.max) | " +
		"\(.cover_weight_mean) | \(.verify_bad_total) | " +
		"\(.lamb_ms_mean | floor) |"' "$f"
}

echo "| shape, faults | mode | seeds | dead | lambs mean | min | max | class-cover mean | bad pairs | ms/run |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for mode in paper free; do
	row "32x32x32-mesh-983" $mode "$head" --dims 32x32x32 --mesh xyz \
		--dead-count 983
	row "32x32x32-torus-983" $mode "$head" --dims 32x32x32 --dead-count 983
done
for pct in 1 3 5 10; do
	frac=$(printf '0.%02d' "$pct")
	n32=$big
	[ "$pct" = 10 ] && n32=$big10
	for mode in paper free; do
		row "16x16x16-mesh-$pct%" $mode "$small" --dims 16x16x16 \
			--mesh xyz --dead-frac "$frac"
		row "16x16x16-torus-$pct%" $mode "$small" --dims 16x16x16 \
			--dead-frac "$frac"
		row "32x32x32-mesh-$pct%" $mode "$n32" --dims 32x32x32 \
			--mesh xyz --dead-frac "$frac"
		row "32x32x32-torus-$pct%" $mode "$n32" --dims 32x32x32 \
			--dead-frac "$frac"
		row "64x64-mesh-$pct%" $mode "$small" --dims 64x64 --mesh xy \
			--dead-frac "$frac"
	done
done
