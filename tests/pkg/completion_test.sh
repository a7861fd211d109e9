#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/pkg/completion_test.sh TORUS COMPLETION - every object and command
# that TORUS's usage texts name is offered by the bash completion, and a
# few values are; prints the words missing, exits 1 if any.
set -uo pipefail
torus=$1
. "$2"

offered() { # WORDS... (the last one is being completed)
	COMP_WORDS=(torus "$@")
	COMP_CWORD=$#
	COMPREPLY=()
	_torus
	printf '%s\n' "${COMPREPLY[@]}"
}

missing=
want() { # WORD WORDS...: WORD is among the completions of WORDS
	local w=$1
	shift
	offered "$@" | grep -xF -- "$w" > /dev/null || missing="$missing [torus $* -> $w]"
}

objects=$("$torus" help 2>&1 | tr '\n' ' ' |
	sed -n 's/.*OBJECT := { \([^}]*\)}.*/\1/p' | tr -d '|')
[ -n "$objects" ] || { echo "no OBJECT list in: $torus help"; exit 1; }
for obj in $objects; do
	want "$obj" ""
	cmds=$("$torus" "$obj" help 2>&1 |
		sed -n "s/^\(Usage:\)\? *torus $obj \([a-z][a-z0-9]*\).*/\2/p" | sort -u)
	for cmd in $cmds; do
		want "$cmd" "$obj" ""
	done
done
want placed node set dev tor0 state ""
want leader node set role ""
want -x link add tpa dir ""
want peer link add tpa dir +x ""
want lo node show dev ""
want coord node set ""
want loss cable set tp0 ""
want svg topo ""
want dot topo path 0,0 1,1 ""
want from topo show ""

if [ -n "$missing" ]; then
	echo "not offered:$missing"
	exit 1
fi
