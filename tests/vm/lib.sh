# SPDX-License-Identifier: GPL-2.0-or-later
# tests/vm/lib.sh — helpers for scripts run in the test VM (POSIX sh).
#
#   . "$(dirname "$0")/lib.sh"      # or: . tests/vm/lib.sh (cwd = repo root)
#
#   pass NAME               prints "PASS: vm/NAME"
#   fail NAME MSG...        prints "FAIL: vm/NAME: MSG" (counts a failure)
#   skip NAME REASON...     prints "SKIP: vm/NAME: REASON"
#   check NAME CMD...       runs CMD: pass NAME if it succeeds, else fail
#   wait_until SECS CMD...  retries CMD every 0.1 s until it succeeds;
#                           returns 1 after SECS seconds
#   dmesg_mark [TEXT]       writes a marker into the kernel log
#   check_dmesg_clean [NAME]
#                           fails NAME (default "dmesg") if the kernel log
#                           since the last dmesg_mark (or boot) contains
#                           WARNING/BUG/Oops/KASAN/leak reports, else passes
#   require_vm              exits with SKIP lines unless TORUS_VM=1
#   finish                  exits 1 if any fail was reported, else 0
#
# Result lines follow the project's test output format:
#   ^(PASS|FAIL|SKIP): <suite>/<name>[: detail]
# TORUS_TEST_PREFIX (default "vm") replaces the "vm" suite prefix.
# TORUS_ONLY_CASES (comma-separated glob patterns; tests/run --repeat
# vm/CASE): pass, fail and skip print nothing, and fail counts nothing,
# for a NAME that matches none of them.

TORUS_TEST_PREFIX=${TORUS_TEST_PREFIX:-vm}
TORUS_FAILS=${TORUS_FAILS:-0}
TORUS_DMESG_PATTERN='WARNING:|BUG:|Oops|KASAN|general protection|Call Trace:|unreferenced object|suspected memory leak'

_selected() {
	[ -n "${TORUS_ONLY_CASES:-}" ] || return 0
	_sel_rest=$TORUS_ONLY_CASES,
	while [ -n "$_sel_rest" ]; do
		_sel_p=${_sel_rest%%,*}
		_sel_rest=${_sel_rest#*,}
		# shellcheck disable=SC2254
		[ -n "$_sel_p" ] && case $1 in $_sel_p) return 0 ;; esac
	done
	return 1
}

pass() {
	_selected "$1" || return 0
	echo "PASS: $TORUS_TEST_PREFIX/$1"
}

fail() {
	_n=$1
	shift
	_selected "$_n" || return 0
	TORUS_FAILS=$((TORUS_FAILS + 1))
	if [ $# -gt 0 ]; then
		echo "FAIL: $TORUS_TEST_PREFIX/$_n: $*"
	else
		echo "FAIL: $TORUS_TEST_PREFIX/$_n"
	fi
}

skip() {
	_n=$1
	shift
	_selected "$_n" || return 0
	if [ $# -gt 0 ]; then
		echo "SKIP: $TORUS_TEST_PREFIX/$_n: $*"
	else
		echo "SKIP: $TORUS_TEST_PREFIX/$_n"
	fi
}

check() {
	_n=$1
	shift
	if "$@"; then pass "$_n"; else fail "$_n" "$* (exit $?)"; fi
}

wait_until() {
	_t=$1
	shift
	# deadline in tenths of a second, from /proc/uptime (no date(1) forks)
	_now() { read -r _u _ < /proc/uptime; _u=${_u%.*}${_u#*.}; echo "${_u%?}"; }
	_end=$(($(_now) + _t * 10))
	while :; do
		"$@" && return 0
		[ "$(_now)" -ge "$_end" ] && return 1
		sleep 0.1
	done
}

dmesg_mark() {
	TORUS_DMESG_MARK="torus-test-mark-$$-$(cat /proc/uptime | cut -d' ' -f1)${1:+ $1}"
	echo "$TORUS_DMESG_MARK" > /dev/kmsg
}

check_dmesg_clean() {
	_n=${1:-dmesg}
	if [ -n "${TORUS_DMESG_MARK:-}" ]; then
		_log=$(dmesg | awk -v m="$TORUS_DMESG_MARK" 'f; index($0, m) { f = 1 }')
	else
		_log=$(dmesg)
	fi
	_bad=$(printf '%s\n' "$_log" | grep -E "$TORUS_DMESG_PATTERN")
	if [ -n "$_bad" ]; then
		fail "$_n" "kernel log has problems"
		printf '%s\n' "$_bad" | head -n 20 | sed 's/^/    /'
		return 1
	fi
	pass "$_n"
}

require_vm() {
	if [ "${TORUS_VM:-}" != 1 ]; then
		skip "${1:-all}" "not inside the test VM (use tests/vm/run)"
		exit 0
	fi
}

finish() {
	[ "$TORUS_FAILS" -eq 0 ]
	exit $?
}
