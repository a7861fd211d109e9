# SPDX-License-Identifier: GPL-2.0-or-later
# bash completion for torus(8), installed as
# /usr/share/bash-completion/completions/torus by make install.
# The grammar is the tool's usage text (torus OBJECT help); a test
# (tests/pkg/run.sh) checks that every object and command it names is
# offered here.

_torus_devs()
{
	local d
	for d in /sys/class/net/*; do
		[ -e "$d" ] && printf '%s\n' "${d##*/}"
	done
}

_torus_netns()
{
	ip netns list 2> /dev/null | while read -r ns _; do
		printf '%s\n' "$ns"
	done
}

_torus_dirs()
{
	printf '%s\n' +x -x +y -y +z -z +a -a +b -b +c -c +d -d +e -e
}

# the words offered after KEYWORD, one a line; nothing for free values
_torus_value()
{
	case $1 in
	dev | master | port) _torus_devs ;;
	netns) _torus_netns ;;
	dir) _torus_dirs ;;
	state) printf '%s\n' unconfigured discovering oriented placed failed ;;
	role) printf '%s\n' none static leader follower ;;
	wrap) printf '%s\n' torus mesh 1 0 ;;
	type) printf '%s\n' int8 int16 int32 int64 uint8 uint16 uint32 uint64 \
		float double ;;
	op) printf '%s\n' sum prod min max band bor bxor land lor lxor minloc maxloc ;;
	parent | children) _torus_dirs ;;
	esac
}

_torus_commands()
{
	case $1 in
	link) echo add del set help ;;
	node) echo show set rediscover help ;;
	port) echo show map set help ;;
	cable) echo set help ;;
	route) echo show get add del batch plans path help ;;
	stats) echo reset help ;;
	monitor) echo dev help ;;
	neighbor) echo show help ;;
	coll) echo barrier allreduce reduce broadcast bcast tree help ;;
	topo) echo show from netns path svg dot help ;;
	esac
}

# the keywords of OBJECT COMMAND
_torus_keywords()
{
	case "$1 $2" in
	"link add") echo dir netns master peer ;;
	"link set") echo master nomaster ;;
	"node show" | "node rediscover" | "neighbor show" | "stats reset" | \
	"route show" | "route get" | "route path")
		echo dev ;;
	"route plans") echo show set flush dev ;;
	"node set") echo dev id coord dims wrap state role reason hoplimit ;;
	"port show") echo dev port ;;
	"port map") echo show set flush dev; _torus_dirs ;;
	"port set") echo dir ;;
	"cable set") echo up down loss ;;
	"route add") echo via plan1 dir plan dev ;;
	"route del") echo dev ;;
	"route batch") echo replace dev ;;
	"coll barrier") echo dev group timeout repeat ;;
	"coll allreduce") echo dev group type op timeout repeat ;;
	"coll reduce") echo dev group type op root timeout repeat ;;
	"coll broadcast"|"coll bcast") echo dev group type root count timeout ;;
	"coll tree") echo show set dev auto default parent children ;;
	topo\ *) echo from netns path svg dot ;;
	esac
}

_torus()
{
	local cur prev words cword i obj= cmd=
	local opts="-j -json -p -pretty -s -stats -n -netns -b -batch -force
		-h -help -V -Version"
	local objects="link node port cable route stats monitor neighbor coll
		topo"

	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()

	case $prev in
	-n | -netns)
		COMPREPLY=($(compgen -W "$(_torus_netns)" -- "$cur"))
		return ;;
	-b | -batch)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	esac

	# the object and command typed so far, past the options
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-n | -netns | -b | -batch) ((i++)) ;;
		-*) ;;
		*)
			if [ -z "$obj" ]; then
				obj=${COMP_WORDS[i]}
			elif [ -z "$cmd" ]; then
				cmd=${COMP_WORDS[i]}
				break
			fi ;;
		esac
	done

	if [ -z "$obj" ]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$objects help" -- "$cur"))
		fi
	elif [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "$(_torus_commands "$obj")" -- "$cur"))
	elif [ "$obj" = cable ] && [ "$prev" = set ]; then
		COMPREPLY=($(compgen -W "$(_torus_devs)" -- "$cur"))
	elif [ "$obj $cmd" = "route batch" ] && [ "$prev" = batch ]; then
		COMPREPLY=($(compgen -f -- "$cur"))
	elif [ "$obj" = topo ] && [[ $prev == svg || $prev == from ||
				    $prev == --svg || $prev == --from ]]; then
		COMPREPLY=($(compgen -f -- "$cur"))
	elif [ "$obj" = topo ] && [[ $prev == netns || $prev == --netns ]]; then
		COMPREPLY=($(compgen -W "$(_torus_netns)" -- "$cur"))
	else
		local values
		values=$(_torus_value "$prev")
		if [ -n "$values" ]; then
			COMPREPLY=($(compgen -W "$values" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_torus_keywords "$obj" "$cmd")" \
				-- "$cur"))
		fi
	fi
}

complete -F _torus torus
