#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# cli.sh - command line tests of the torus tool that need neither the
# module nor root: help, usage errors and their exit codes, batch mode.
# Prints one "PASS: unit/cli_<case>" or "FAIL: unit/cli_<case>" per case
# and exits 1 if any failed.
#
#	TORUS=build/tests/unit/torus sh tests/unit/cli.sh

TORUS=${TORUS:-build/bin/torus}
# a sanitizer report must not pass for an expected exit status 1
export ASAN_OPTIONS="exitcode=99:detect_leaks=1"
export UBSAN_OPTIONS="halt_on_error=1:exitcode=98:print_stacktrace=1"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0

# run ARGS...: exit status in $rc, output in $tmp/out and $tmp/err
run()
{
	"$TORUS" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

sanitizer_clean()
{
	! grep -q -e 'AddressSanitizer' -e 'LeakSanitizer' \
		-e 'runtime error' "$tmp/err"
}

result()
{
	if [ "$1" = 0 ] && sanitizer_clean; then
		echo "PASS: unit/cli_$2"
	else
		echo "FAIL: unit/cli_$2"
		sed 's/^/    /' "$tmp/err" >&2
		failed=1
	fi
}

# expect NAME STATUS PATTERN ARGS...: exit STATUS, PATTERN in stdout+stderr
expect()
{
	name=$1 status=$2 pattern=$3
	shift 3
	run "$@"
	ok=0
	if [ "$rc" != "$status" ]; then
		echo "    $name: exit $rc, want $status" >&2
		ok=1
	elif [ -n "$pattern" ] &&
	     ! cat "$tmp/out" "$tmp/err" | grep -q -e "$pattern"; then
		echo "    $name: no \"$pattern\" in the output" >&2
		ok=1
	fi
	result $ok "$name"
}

expect help 0 'torus link add NAME dir LABEL' help
expect help_option 0 'OBJECT := ' --help
expect help_short 0 'torus route get COORD' -h
for obj in link node port cable route stats monitor; do
	expect "help_$obj" 0 "torus $obj" "$obj" help
done
expect version 0 'version' -V
expect no_args 2 'Usage: torus' 
expect unknown_object 2 'unknown object "frobnicate"' frobnicate
expect unknown_option 2 'unknown option "-q"' -q node show
expect unknown_keyword 2 'unknown keyword "frob"' node show frob
expect no_abbreviation 2 'unknown keyword "sho"' node sho
expect no_option_abbreviation 2 'unknown option "-jso"' -jso node show
expect missing_value 2 'missing argument after "dev"' node show dev
expect bad_coord 2 'invalid coord "1,,2"' node set coord 1,,2
expect bad_coord_range 2 'invalid coord "256"' node set coord 256
expect bad_dims 2 'invalid dims "0"' node set dims 0
expect bad_wrap 2 'invalid wrap "yes"' node set wrap yes
expect bad_state 2 'invalid state "done"' node set state done
expect nothing_to_set 2 'nothing to set' node set dev tor0
expect bad_label 2 'invalid dir "+q"' link add a dir +q peer b dir -x
expect link_missing_peer 2 'missing "peer NAME"' link add a dir +x
expect link_missing_dir 2 'missing "dir LABEL" for b' \
	link add a dir +x peer b
expect bad_loss 2 'invalid loss "101"' cable set tp0 loss 101
expect cable_nothing 2 'nothing to set' cable set tp0
expect route_bad_dst 2 'invalid coordinates "1,x"' route get 1,x
expect route_missing_dst 2 'missing COORD' route get dev tor0
expect route_add_no_target 2 'missing "via COORD", "dir DIR" or "plan N"' \
	route add 1,2
expect route_add_plan_0_alone 2 'missing "via COORD", "dir DIR" or "plan N"' \
	route add 1,2 plan 0
expect route_add_bad_plan 2 'invalid plan "8"' route add 1,2 plan 8
expect route_add_plan1_needs_via 2 'needs "via COORD"' \
	route add 1,2 dir +x plan1 2
expect route_plans_bad 2 'invalid plan "1:xx"' route plans set 1:xx
expect route_plans_twice 2 'plan 1 given twice' route plans set 1:yx 1:xy
expect route_plans_set_none 2 'missing PLAN' route plans set dev tor0
expect route_plans_flush_plan 2 'takes no PLAN' route plans flush 1:yx
# the old grammar, where a bare list replaced the plans, is refused
expect route_plans_old_grammar 2 'unknown keyword "1:yx"' route plans 1:yx
expect route_path_missing_dst 2 'missing COORD' route path dev tor0
expect route_path_bad_dst 2 'invalid coordinates "1,x"' route path 1,x
expect route_path_two_dsts 2 'unknown' route path 1,2 3,4
printf '1,0 dir +x\n# two\n\n2,0 sideways\n' >"$tmp/routes"
expect route_batch_bad_line 2 "$tmp/routes, line 4" route batch "$tmp/routes"
printf '1,0 dir +x via 0,1\n' >"$tmp/routes"
expect route_batch_both 2 'not both' route batch "$tmp/routes"
printf '1,0 dir +x dev tor0\n' >"$tmp/routes"
expect route_batch_dev_in_file 2 'belongs on the command line' \
	route batch "$tmp/routes"
expect route_batch_no_file 1 'cannot open' route batch "$tmp/no-such-file"
expect route_batch_missing_file 2 'missing FILE' route batch replace
expect portmap_bad_dir 2 'invalid direction "x"' port map set dev tor0 x tp0
expect portmap_missing_port 2 'missing argument after "+x"' \
	port map set dev tor0 +x
expect portmap_twice 2 'direction "+x" given twice' \
	port map set +x lo +x lo
expect portmap_set_none 2 'missing "DIR PORT"' port map set dev tor0
# the old grammar, where "port map dev DEV" cleared the map, is refused
expect portmap_old_grammar 2 'unknown keyword "dev"' port map dev tor0
expect portmap_help 0 'torus port map flush' port map help
expect port_set_bad_dir 2 'invalid dir "+q"' port set eth0 dir +q
expect port_set_missing_dir 2 'missing "dir LABEL"' port set eth0
expect port_set_help 0 'torus port set PORT dir' port help
expect netns_missing 1 'cannot open network namespace "no-such-ns"' \
	-n no-such-ns node show

# requests NAME WANT ARGS...: the requests ARGS send, to a made-up
# "torus" family (tests/unit/fake_genl.c, preloaded), are exactly WANT
# (lines "NAME do|dump", joined by ";"): a read never sends a change
requests()
{
	name=$1 want=$2
	shift 2
	if [ -z "${FAKE_GENL:-}" ] || [ ! -f "$FAKE_GENL" ]; then
		echo "SKIP: unit/cli_$name: no fake family (FAKE_GENL unset: make -C tools test sets it)"
		return
	fi
	: >"$tmp/genl"
	ASAN_OPTIONS="$ASAN_OPTIONS:verify_asan_link_order=0" \
	LD_PRELOAD="$FAKE_GENL" FAKE_GENL_LOG="$tmp/genl" \
		"$TORUS" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	got=$(paste -s -d ';' "$tmp/genl")
	ok=0
	if [ "$rc" != 0 ] || [ "$got" != "$want" ]; then
		echo "    $name: exit $rc, requests \"$got\", want \"$want\"" >&2
		ok=1
	fi
	result $ok "$name"
}

case ${FAKE_GENL:-} in
''|/*) ;;
*) FAKE_GENL=$(pwd)/$FAKE_GENL ;;
esac
# a bare "port map" or "route plans" shows, as iproute2's objects do
requests portmap_bare_reads 'port_get dump' port map
requests portmap_show_reads 'port_get dump' port map show dev lo
requests portmap_flush_changes 'portmap_set do' port map flush dev lo
requests portmap_set_changes 'portmap_set do' port map set dev lo +x lo
requests plans_bare_reads 'node_get dump' route plans
requests plans_show_reads 'node_get do' route plans show dev lo
requests plans_flush_changes 'plan_set do' route plans flush dev lo
requests plans_set_changes 'plan_set do' route plans set 1:yx dev lo

# topo: keywords like every other object, the old option spelling too
printf '{"dims":[2],"wrap":[true],"nodes":[]}\n' >"$tmp/topo.json"
expect topo_from_keyword 0 '"dims":\[2\]' -j topo show from "$tmp/topo.json"
expect topo_from_option 0 '"dims":\[2\]' -j topo --from "$tmp/topo.json"
expect topo_dot_keyword 0 'graph' topo from "$tmp/topo.json" dot
expect topo_from_and_path 2 'read the kernel: not with from' \
	topo from "$tmp/topo.json" path 0 1
expect topo_svg_and_dot 2 'pick one' topo from "$tmp/topo.json" svg - dot
expect topo_help 0 'torus topo \[ show \] \[ from FILE \]' topo help

# without the module: an error, never a crash (with it: success)
run node show
if [ "$rc" = 0 ] || { [ "$rc" = 1 ] && grep -q '^Error: ' "$tmp/err"; }; then
	result 0 node_show_no_crash
else
	result 1 node_show_no_crash
fi

# batch: line numbers, stop at the first failure, -force goes on
cat >"$tmp/batch" <<'EOB'
# a comment, then a blank line

help
node show frob
route get 1,x
EOB
run -b "$tmp/batch"
ok=1
if [ "$rc" = 2 ] && grep -q "Command failed $tmp/batch:4" "$tmp/err" &&
   ! grep -q ":5" "$tmp/err"; then
	ok=0
fi
result $ok batch_stops

run -force -b "$tmp/batch"
ok=1
if [ "$rc" = 2 ] && grep -q "Command failed $tmp/batch:4" "$tmp/err" &&
   grep -q "Command failed $tmp/batch:5" "$tmp/err"; then
	ok=0
fi
result $ok batch_force

printf '%s\n' 'help' '-n no-such-ns node show' | "$TORUS" -b - \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
ok=1
if [ "$rc" = 1 ] && grep -q 'Command failed -:2' "$tmp/err"; then
	ok=0
fi
result $ok batch_stdin_netns

printf 'node set reason "unterminated\n' >"$tmp/batch"
run -b "$tmp/batch"
ok=1
if [ "$rc" = 2 ] && grep -q 'unterminated quote' "$tmp/err"; then
	ok=0
fi
result $ok batch_quote

expect batch_missing_file 1 'cannot open' -b "$tmp/no-such-file"
expect batch_extra_args 2 'unexpected "node" after -batch FILE' \
	-b "$tmp/batch" node show

# collectives: the grammar, before any request
expect coll_help 0 'torus coll allreduce' coll help
expect coll_allreduce_no_values 2 'missing VALUE' coll allreduce op sum
expect coll_allreduce_bad_type 2 'invalid type "quad"' \
	coll allreduce type quad 1
expect coll_allreduce_bad_op 2 'invalid op "avg"' coll allreduce op avg 1
expect coll_allreduce_bad_double 2 'invalid value "1.5x"' \
	coll allreduce type double 1.5x
expect coll_allreduce_int8_range 2 'invalid value "128"' \
	coll allreduce type int8 128
expect coll_allreduce_uint_negative 2 'invalid value "-1"' \
	coll allreduce type uint32 -1
expect coll_broadcast_no_root 2 'missing root' coll broadcast count 2
expect coll_reduce_no_root 2 'missing root' coll reduce op minloc 1
expect coll_bad_group 2 'invalid group "xx"' coll barrier group xx
expect coll_bcast_bad_count 2 'invalid count "0"' coll bcast root 0,0,0 count 0
expect coll_timeout_zero 2 'invalid timeout "0"' coll barrier timeout 0
expect coll_tree_set_no_parent 2 'missing parent' \
	coll tree set children +x
expect coll_tree_bad_dir 2 'invalid children "+q"' \
	coll tree set parent -x children +q

exit $failed
