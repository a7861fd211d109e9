#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/unit/par.sh - run unit test binaries side by side.
#
#   par.sh [-j N] [-s BIN:K]... BIN...
#
# Runs each BIN (a unit.h binary, or a command: its words separated by
# spaces, none with a space of its own), N at
# a time (default: the CPUs), BIN of "-s BIN:K" as K shards (UNIT_SHARD
# i/K: every K-th case, unit.h), and prints each one's output (stdout and
# stderr) whole, in the order given, as soon as it and those before it
# have ended, so that a reader and tests/run see the usual sequence.
# Exit status: 1 if any failed.
set -uo pipefail

jobs=$(nproc 2>/dev/null || echo 2)
declare -A shards=()
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=$2; shift 2 ;;
	-s) shards[${2%:*}]=${2##*:}; shift 2 ;;
	*) break ;;
	esac
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmds=() envs=()
for b in "$@"; do
	k=${shards[$b]:-1}
	for ((i = 0; i < k; i++)); do
		cmds+=("$b")
		if [ "$k" -gt 1 ]; then envs+=("$i/$k"); else envs+=(""); fi
	done
done

n=${#cmds[@]} next=0 shown=0 running=0 status=0
declare -A pidjob=() done_rc=()
show() { # print what has ended, in order
	while [ "$shown" -lt "$n" ] && [ -n "${done_rc[$shown]:-}" ]; do
		cat "$tmp/$shown"
		[ "${done_rc[$shown]}" = 0 ] || status=1
		shown=$((shown + 1))
	done
}
while [ "$shown" -lt "$n" ]; do
	while [ "$running" -lt "$jobs" ] && [ "$next" -lt "$n" ]; do
		read -ra cmd <<< "${cmds[$next]}"
		if [ -n "${envs[$next]}" ]; then
			UNIT_SHARD=${envs[$next]} "${cmd[@]}" > "$tmp/$next" 2>&1 &
		else
			"${cmd[@]}" > "$tmp/$next" 2>&1 &
		fi
		pidjob[$!]=$next
		next=$((next + 1))
		running=$((running + 1))
	done
	if [ "$running" -gt 0 ]; then
		wait -n -p pid
		rc=$?
		done_rc[${pidjob[$pid]}]=$rc
		running=$((running - 1))
	fi
	show
done
exit $status
