#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/fuzz/run.sh - run the libFuzzer harnesses (build them first:
# make -C tests/fuzz).
#
#   run.sh [--long] [HARNESS...]    default: every harness
#
# Short (tests/run fuzz): each harness starts from its seed corpus
# (tests/fuzz/corpus/<h>, with the inputs that once crashed) in a fresh
# work directory, for FUZZ_RUNS (200000) runs or FUZZ_TIME (30) seconds,
# whichever ends first, with a fixed seed, FUZZ_JOBS (the CPUs) at once.
# --long (make fuzz): FUZZ_RUNS (10^7) runs each, no time limit, keeping
# what it finds in build/fuzz/work/<h> for the next long run.
# Prints "PASS: fuzz/<h>" or "FAIL: fuzz/<h>: why", and a "# fuzz/<h>:"
# line with the runs, exec/s (wall clock and per CPU second: the machine
# may be shared), coverage and time; --long also writes the
# table to build/fuzz/report.txt.  A crash, leak, sanitizer report,
# broken invariant, timeout (FUZZ_TIMEOUT, 10 s per input) or run that
# ends early is a FAIL; the input is in build/fuzz/artifacts/.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
bin=$top/build/fuzz
all=(wire core frame kframe records mnlg)

long=0
if [ "${1:-}" = --long ]; then
	long=1
	shift
fi
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=("${all[@]}")

if [ "$long" = 1 ]; then
	runs=${FUZZ_RUNS:-10000000}
	time_opt=()
	[ -z "${FUZZ_TIME:-}" ] || time_opt=(-max_total_time="$FUZZ_TIME")
	seed_opt=()
else
	runs=${FUZZ_RUNS:-200000}
	time_opt=(-max_total_time="${FUZZ_TIME:-30}")
	seed_opt=(-seed=1)
fi

mkdir -p "$bin/artifacts" "$bin/logs"
report=${FUZZ_REPORT:-$bin/report.txt}
[ "$long" = 0 ] || printf '%-8s %10s %8s %9s %7s %10s %6s %7s %7s %s\n' harness \
	runs seconds exec/s cpu_s exec/cpu_s cov ft corpus seeds > "$report"

# the last value of "stat::NAME: value" in a log
# (logs hold binary bytes: libFuzzer's recommended dictionary)
stat() { sed -n "s/^stat::$1: *//p" "$2" | tail -n 1; }

# one harness: its "# fuzz/" and result lines; status 1 if it failed
fuzz_one() { # HARNESS
	local h=$1 exe seeds log work start rc secs cpu done_line execs rate
	local cpu_rate cov ft corp nseeds why
	exe=$bin/fuzz_$h
	seeds=$here/corpus/$h
	log=$bin/logs/$h.log
	[ "$long" = 0 ] || log=$bin/logs/$h-long.log
	if [ ! -x "$exe" ] || [ ! -d "$seeds" ]; then
		echo "FAIL: fuzz/$h: no $exe or $seeds (make -C tests/fuzz)"
		return 1
	fi
	if [ "$long" = 1 ]; then
		work=$bin/work/$h
		mkdir -p "$work"
	else
		work=$(mktemp -d "$bin/work-$h.XXXXXX")
	fi
	start=$(date +%s.%N)
	# the fuzzer's own user and system time (the machine may be shared)
	TIMEFORMAT='%3U %3S'
	{ time "$exe" -runs="$runs" "${time_opt[@]}" "${seed_opt[@]}" \
		-timeout="${FUZZ_TIMEOUT:-10}" -print_final_stats=1 \
		-artifact_prefix="$bin/artifacts/$h-" \
		"$work" "$seeds" > "$log" 2>&1; } 2> "$log.cpu"
	rc=$?
	secs=$(echo "$(date +%s.%N) - $start" | bc)
	cpu=$(tr ' ' + < "$log.cpu" | bc)
	[ "$long" = 1 ] || rm -rf "$work"

	done_line=$(grep -aE '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)
	execs=$(stat number_of_executed_units "$log")
	rate=$(echo "${execs:-0} / $secs" | bc)
	cpu_rate=$(echo "${execs:-0} / ($cpu + 0.001)" | bc)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done_line")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$done_line")
	corp=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$done_line")
	nseeds=$(find "$seeds" -type f | wc -l)
	printf '# fuzz/%s: %s runs in %.0f s (%s exec/s; %.1f s CPU, %s exec per CPU s), cov %s ft %s, corpus %s inputs from %s seeds\n' \
		"$h" "${execs:-?}" "$secs" "${rate:-?}" "$cpu" "$cpu_rate" \
		"${cov:-?}" "${ft:-?}" "${corp:-?}" "$nseeds"
	if [ "$rc" -ne 0 ] || [ -z "$done_line" ]; then
		why=$(grep -a -m1 -E 'ERROR: |runtime error|invariant failed|Test unit written' "$log")
		echo "FAIL: fuzz/$h: exit $rc: ${why:-see $log} (log: $log)"
		return 1
	fi
	if [ "$long" = 1 ] && [ "${execs:-0}" -lt "$runs" ] && [ -z "${FUZZ_TIME:-}" ]; then
		echo "FAIL: fuzz/$h: only $execs of $runs runs"
		return 1
	fi
	echo "PASS: fuzz/$h"
	[ "$long" = 0 ] || printf '%-8s %10s %8.0f %9s %7.0f %10s %6s %7s %7s %s\n' \
		"$h" "$execs" "$secs" "$rate" "$cpu" "$cpu_rate" "$cov" "$ft" \
		"$corp" "$nseeds" >> "$report"
}

# the short runs side by side (FUZZ_JOBS, default the CPUs: libFuzzer
# uses one), each a run of this script for one harness
# (tests/unit/par.sh prints each one's lines in order as it ends)
status=0
if [ "$long" = 0 ] && [ ${#harnesses[@]} -gt 1 ]; then
	cmds=()
	for h in "${harnesses[@]}"; do
		cmds+=("$here/run.sh $h")
	done
	bash "$here/../unit/par.sh" -j "${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}" \
		"${cmds[@]}" || status=1
else
	for h in "${harnesses[@]}"; do
		fuzz_one "$h" || status=1
	done
fi
[ "$long" = 0 ] || { echo "# report: $report"; cat "$report"; }
exit $status
