#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/bench/bench.sh — what a forwarding hop costs: the torus fabric vs.
# veth + ip_forward, 31 hops, in one VM run.
#
#   make bench                          # builds, then runs this in the VM
#   tests/vm/run --timeout 1800 -- tests/bench/bench.sh
#
# Builds two 32-node lines of network namespaces:
#
#   torus  n0..n31: one tor0 node device each (1-axis mesh, dims 32, wrap 0,
#          static coordinates: node K at coordinate K, address 10.K.0.0/8),
#          neighbours joined by torport cables (+x on the lower node, -x on
#          the upper one).  Transit nodes forward by coordinates in the
#          ports' rx_handler; their IP stack is not used.
#   veth   v0..v31: neighbours joined by veth pairs, link i (vi <-> vi+1) is
#          192.168.i.0/24 (.1 on vi, .2 on vi+1), net.ipv4.ip_forward=1 on
#          v1..v30, static routes both ways.
#
# so that node 0 -> node K crosses K cables (K-1 forwarding nodes) on both.
# Torus and veth are measured interleaved (the order alternates), after an
# unrecorded warm-up on each fabric:
#
#   rtt  ping -c PING_COUNT -i 0.01 at 1, 8, 16, 31 hops (RTT_HOPS), in
#        RTT_ROUNDS rounds; per round the median RTT of each point and a
#        least-squares line through them: slope = us per hop.
#   pps  udpblast (tests/bench/udpblast.c): the sender in node 0 sends
#        64-byte UDP payloads (PPS_LEN) at the rate one socket manages
#        (sendmmsg, pinned to CPU 0), the receiver (pinned to CPU 1)
#        counts over a fixed window of PPS_WINDOW s from the first datagram;
#        loss = 1 - received/sent over the whole run.  At 1 and 31 hops
#        (PPS_HOPS), PPS_REPS times.  Since one CPU runs the sender and
#        every hop (netif_rx queues to the local CPU's backlog), 1/pps is
#        the cost of a packet, and (1/pps(31) - 1/pps(1)) / 30 the cost
#        of one forwarding hop.
#   tcp  iperf3 TCP -t IPERF_TIME -O 1 at 1 and 31 hops (TCP_HOPS),
#        IPERF_REPS times.
#
# Every figure is the median of its repetitions, with min and max; the
# ratios torus/veth are what matter (TCG timings are noisy).  Then, unless
# BENCH_PROFILE=0, one profile of the 31-hop UDP blast on each fabric: perf
# (cpu-clock samples by symbol) and the ftrace function profiler (hits and
# average time of the per-hop functions).  Prints tables, writes
# build/bench/results.json and build/bench/profile.txt.
#
# MTU: tor0 has IP MTU 1468 (1500-byte ports minus the 32-byte torus
# header).  The veth links are set to MTU 1468 too (BENCH_VETH_MTU), so both
# fabrics carry the same IP packet sizes (same TCP MSS).
#
# Exit status: 0 when every measurement produced numbers, 1 (with the
# reason) when setup or a measurement failed.  Missing the goal (torus
# forwards >= 2x the packets per second of veth at 31 hops) is reported but
# is not a failure unless BENCH_STRICT=1.
#
# Environment (defaults): RTT_HOPS ("1 8 16 31"), RTT_ROUNDS (3),
# PING_COUNT (30), PPS_HOPS ("1 31"), PPS_REPS (3), PPS_WINDOW (2),
# PPS_LEN (64), TCP_HOPS ("1 31"), IPERF_TIME (3), IPERF_REPS (3),
# BENCH_PROFILE (1), PROFILE_DEPTH (6), BENCH_VETH_MTU (1468),
# BENCH_OUT (build/bench/results.json), BENCH_STRICT (0).

set -u

N=32                    # nodes per line: 0..31
RTT_HOPS=${RTT_HOPS:-1 8 16 31}
RTT_ROUNDS=${RTT_ROUNDS:-3}
PING_COUNT=${PING_COUNT:-30}
PPS_HOPS=${PPS_HOPS:-1 31}
PPS_REPS=${PPS_REPS:-3}
PPS_WINDOW=${PPS_WINDOW:-2}
PPS_LEN=${PPS_LEN:-64}
TCP_HOPS=${TCP_HOPS:-1 31}
IPERF_TIME=${IPERF_TIME:-3}
IPERF_REPS=${IPERF_REPS:-3}
PROFILE=${BENCH_PROFILE:-1}
VETH_MTU=${BENCH_VETH_MTU:-1468}
OUT=${BENCH_OUT:-build/bench/results.json}
PROFILE_OUT=$(dirname "$OUT")/profile.txt
STRICT=${BENCH_STRICT:-0}
GOAL_PPS_RATIO=2
TCP_PORT=5201
UDP_PORT=5300
T=torus
TMP=$(mktemp -d /tmp/bench.XXXXXX)

log() { echo "bench: [$(cut -d' ' -f1 /proc/uptime)] $*"; }
die() {
	echo "bench: FAIL: $*" >&2
	exit 1
}

if [ "${TORUS_VM:-}" != 1 ]; then
	die "run me in the VM: tests/vm/run -- tests/bench/bench.sh (or make bench)"
fi
for c in ip $T ping iperf3 jq awk ss taskset udpblast; do
	command -v "$c" >/dev/null || die "$c not found on PATH (make tools builds udpblast)"
done
for k in $RTT_HOPS $PPS_HOPS $TCP_HOPS; do
	case $k in
	*[!0-9]* | '' | 0) die "hop count '$k' not in 1..$((N - 1))" ;;
	esac
	[ "$k" -lt "$N" ] || die "hop count '$k' not in 1..$((N - 1))"
done
[ "$(echo $RTT_HOPS | wc -w)" -ge 2 ] || die "RTT_HOPS: a slope needs two hop counts at least"

cleanup() {
	local f
	for f in "$TMP"/*.pid; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	for i in $(seq 0 $((N - 1))); do
		ip netns del "n$i" 2>/dev/null
		ip netns del "v$i" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

# ---------------------------------------------------------------- torus line
setup_torus() {
	local i b="$TMP/torus.batch"

	for i in $(seq 0 $((N - 1))); do
		echo "netns add n$i"
		echo "link add tor0 netns n$i type torus"
	done >"$TMP/ip-torus.batch"
	ip -b "$TMP/ip-torus.batch" || die "ip -b: namespaces and tor0 devices of the torus line"
	: >"$b"
	for i in $(seq 0 $((N - 2))); do
		echo "link add px dir +x netns n$i master tor0 peer mx dir -x netns n$((i + 1)) master tor0" >>"$b"
	done
	for i in $(seq 0 $((N - 1))); do
		echo "-n n$i node set dev tor0 id $((i + 1)) coord $i dims $N wrap 0 state placed role static" >>"$b"
		if [ "$i" -eq 0 ]; then
			echo "-n n$i port map set dev tor0 +x px" >>"$b"
		elif [ "$i" -eq $((N - 1)) ]; then
			echo "-n n$i port map set dev tor0 -x mx" >>"$b"
		else
			echo "-n n$i port map set dev tor0 +x px -x mx" >>"$b"
		fi
	done
	$T -b "$b" || die "torus -b: building the torus line failed"
	for i in $(seq 0 $((N - 1))); do
		{
			echo "link set lo up"
			[ "$i" -lt $((N - 1)) ] && echo "link set px up"
			[ "$i" -gt 0 ] && echo "link set mx up"
			echo "link set tor0 up"
			echo "addr add 10.$i.0.0/8 dev tor0"
		} >"$TMP/ip-n$i.batch"
		ip -n "n$i" -b "$TMP/ip-n$i.batch" || die "n$i: ip -b failed"
	done
}

# ----------------------------------------------------------------- veth line
setup_veth() {
	local i j fwd want

	# A new namespace copies net.ipv4.ip_forward from the initial one
	# (net.core.devconf_inherit_init_net 0): the forwarding nodes v1..v30
	# are made with it on, the two ends with it off, without a process
	# per namespace.
	fwd=$(cat /proc/sys/net/ipv4/ip_forward)
	{
		echo "netns add v0"
		echo "netns add v$((N - 1))"
	} >"$TMP/ip-veth-ends.batch"
	for i in $(seq 1 $((N - 2))); do
		echo "netns add v$i"
	done >"$TMP/ip-veth-fwd.batch"
	# link i: v$i "vr" <-> v$((i+1)) "vl", 192.168.i.0/24
	for i in $(seq 0 $((N - 2))); do
		echo "link add vr netns v$i type veth peer name vl netns v$((i + 1))"
	done >"$TMP/ip-veth-links.batch"
	echo 0 >/proc/sys/net/ipv4/ip_forward &&
		ip -b "$TMP/ip-veth-ends.batch" &&
		echo 1 >/proc/sys/net/ipv4/ip_forward &&
		ip -b "$TMP/ip-veth-fwd.batch" ||
		die "ip -b: namespaces of the veth line"
	echo "$fwd" >/proc/sys/net/ipv4/ip_forward
	ip -b "$TMP/ip-veth-links.batch" || die "ip -b: veth pairs"
	for i in 0 1 $((N - 2)) $((N - 1)); do
		want=$([ "$i" -gt 0 ] && [ "$i" -lt $((N - 1)) ] && echo 1 || echo 0)
		[ "$(ip netns exec "v$i" cat /proc/sys/net/ipv4/ip_forward)" = "$want" ] ||
			die "v$i: ip_forward is not $want"
	done
	for i in $(seq 0 $((N - 1))); do
		{
			echo "link set lo up"
			if [ "$i" -lt $((N - 1)) ]; then
				echo "link set dev vr mtu $VETH_MTU up"
				echo "addr add 192.168.$i.1/24 dev vr"
			fi
			if [ "$i" -gt 0 ]; then
				echo "link set dev vl mtu $VETH_MTU up"
				echo "addr add 192.168.$((i - 1)).2/24 dev vl"
			fi
			# static routes: links to the right via the right
			# neighbour, links to the left via the left one
			for j in $(seq $((i + 1)) $((N - 2))); do
				echo "route add 192.168.$j.0/24 via 192.168.$i.2 dev vr"
			done
			for j in $(seq 0 $((i - 2))); do
				echo "route add 192.168.$j.0/24 via 192.168.$((i - 1)).1 dev vl"
			done
		} >"$TMP/ip-v$i.batch"
		ip -n "v$i" -b "$TMP/ip-v$i.batch" || die "v$i: ip -b failed"
	done
}

# source namespace and node K's address on each fabric, as seen from node 0
src_ns() { if [ "$1" = torus ]; then echo n0; else echo v0; fi; }
dst_ns() { if [ "$1" = torus ]; then echo "n$2"; else echo "v$2"; fi; }
dst_addr() { if [ "$1" = torus ]; then echo "10.$2.0.0"; else echo "192.168.$(($2 - 1)).2"; fi; }

start_iperf_servers() {
	local k ns t ok
	for k in $TCP_HOPS; do
		for fab in torus veth; do
			ns=$(dst_ns $fab "$k")
			[ -f "$TMP/iperf-$ns.pid" ] && continue
			ip netns exec "$ns" iperf3 -s -D -p $TCP_PORT -I "$TMP/iperf-$ns.pid" \
				--logfile "$TMP/iperf-$ns.log" ||
				die "$ns: iperf3 -s failed"
			ok=0
			for t in $(seq 1 100); do
				if ip netns exec "$ns" ss -Hltn "sport = :$TCP_PORT" | grep -q LISTEN; then
					ok=1
					break
				fi
				sleep 0.1
			done
			[ $ok = 1 ] || die "$ns: iperf3 server not listening on $TCP_PORT after 10 s: $(cat "$TMP/iperf-$ns.log" 2>/dev/null)"
		done
	done
}

# "a b" -> "b a"
swap() { echo "$2 $1"; }

# ------------------------------------------------------------ statistics
# All over comma-separated lists of numbers.
median() {
	echo "$1" | tr , '\n' | sort -g |
		awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2); printf "%.6g", (NR % 2) ? v[m] : (v[m] + v[m + 1]) / 2 }'
}
# {"median": m, "min": a, "max": b, "runs": [...]}: strict JSON
stats_json() {
	if [ -z "$1" ]; then
		echo null
		return
	fi
	jq -cn --argjson runs "[$1]" \
		'($runs | sort) as $s | ($s | length) as $n |
		 {median: (if $n % 2 == 1 then $s[($n - 1) / 2] else ($s[$n / 2 - 1] + $s[$n / 2]) / 2 end),
		  min: $s[0], max: $s[-1], runs: $runs}'
}
# a / b, or "null" when b is not positive (never NaN or Infinity in JSON)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.4g", a / b; else print "null" }'; }
append() { R[$1]="${R[$1]:-}${R[$1]:+,}$2"; }

# Results go to R[key]; lists of runs are comma-separated.
declare -A R

# ----------------------------------------------------------------- rtt
# measure_ping FABRIC K ROUND: median RTT (us) of PING_COUNT pings
measure_ping() {
	local fab=$1 k=$2 round=$3 src dst out med loss
	src=$(src_ns $fab)
	dst=$(dst_addr $fab "$k")
	out=$(ip netns exec "$src" ping -n -c "$PING_COUNT" -i 0.01 -w 60 "$dst" 2>&1)
	loss=$(echo "$out" | sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p')
	med=$(echo "$out" | sed -n 's/.* time=\([0-9.]*\) ms.*/\1/p' |
		sort -g | awk '{ v[NR] = $1 * 1000 } END { if (NR) { m = int((NR + 1) / 2); printf "%.1f", (NR % 2) ? v[m] : (v[m] + v[m + 1]) / 2 } }')
	[ -n "$med" ] || die "$fab $k hops: ping $dst from $src: no replies: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
	append "rtt,$fab,$k" "$med"
	append "rtt_loss,$fab,$k" "${loss:-0}"
	R[rtt_round,$fab,$round]="${R[rtt_round,$fab,$round]:-} $k:$med"
	log "$(printf 'round %d %-5s %2d hop(s) ping %-14s median rtt %7.1f us, %s%% loss' \
		"$round" "$fab" "$k" "$dst" "$med" "${loss:-?}")"
}

# least-squares line through "k:y k:y ...": prints "slope intercept"
fit_line() {
	echo "$1" | tr ' ' '\n' | awk -F: 'NF == 2 { n++; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2 }
		END { d = n * sxx - sx * sx; if (n < 2 || d == 0) { print "null null"; exit }
		      s = (n * sxy - sx * sy) / d; printf "%.3f %.3f\n", s, (sy - s * sx) / n }'
}

# ----------------------------------------------------------------- pps
# measure_pps FABRIC K [warm]
measure_pps() {
	local fab=$1 k=$2 warm=${3:-} src dns dst rx tx rxpps txpps sent total loss t
	src=$(src_ns $fab)
	dns=$(dst_ns $fab "$k")
	dst=$(dst_addr $fab "$k")
	t=$(awk -v w="$PPS_WINDOW" 'BEGIN { print w + 2 }')
	rx="$TMP/udp-rx.json"
	tx="$TMP/udp-tx.json"
	ip netns exec "$dns" taskset -c 1 udpblast recv -p $UDP_PORT -w "$PPS_WINDOW" -W 20 \
		>"$rx" 2>"$rx.err" &
	local rpid=$!
	wait_until_listening "$dns" || die "$fab $k hops: udpblast recv not listening: $(cat "$rx.err")"
	ip netns exec "$src" taskset -c 0 udpblast send -p $UDP_PORT -l "$PPS_LEN" -t "$t" "$dst" \
		>"$tx" 2>"$tx.err" || die "$fab $k hops: udpblast send failed: $(cat "$tx.err")"
	wait $rpid || die "$fab $k hops: udpblast recv failed: $(cat "$rx.err")"
	[ -n "$warm" ] && return 0
	rxpps=$(jq -r .pps "$rx")
	total=$(jq -r .total_packets "$rx")
	txpps=$(jq -r .pps "$tx")
	sent=$(jq -r .sent "$tx")
	loss=$(awk -v r="$total" -v s="$sent" 'BEGIN { printf "%.3f", (s > 0 ? 100 * (1 - r / s) : 0) }')
	append "pps,$fab,$k" "$rxpps"
	append "pps_tx,$fab,$k" "$txpps"
	append "pps_loss,$fab,$k" "$loss"
	log "$(printf '%-5s %2d hop(s) udp %-14s received %9.0f pps (window %s s), sent %9.0f pps, loss %s%%' \
		"$fab" "$k" "$dst" "$rxpps" "$PPS_WINDOW" "$txpps" "$loss")"
}

wait_until_listening() {
	local t
	for t in $(seq 1 100); do
		ip netns exec "$1" ss -Hlun "sport = :$UDP_PORT" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# ----------------------------------------------------------------- tcp
# measure_tcp FABRIC K [warm]
measure_tcp() {
	local fab=$1 k=$2 warm=${3:-} src dst j err bps retr t=$IPERF_TIME omit="-O 1"
	[ -n "$warm" ] && { t=2; omit=; }
	src=$(src_ns $fab)
	dst=$(dst_addr $fab "$k")
	j="$TMP/iperf-$fab-$k.json"
	ip netns exec "$src" iperf3 -c "$dst" -p $TCP_PORT -t "$t" $omit -J >"$j" 2>"$j.err"
	local rc=$?
	err=$(jq -r '.error // empty' "$j" 2>/dev/null)
	bps=$(jq -r '.end.sum_received.bits_per_second // empty' "$j" 2>/dev/null)
	retr=$(jq -r '.end.sum_sent.retransmits // 0' "$j" 2>/dev/null)
	if [ $rc -ne 0 ] || [ -n "$err" ] || [ -z "$bps" ]; then
		die "$fab $k hops: iperf3 -c $dst from $src failed (exit $rc): ${err:-$(head -c 300 "$j" "$j.err" | tr '\n' ' ')}"
	fi
	awk -v b="$bps" 'BEGIN { exit !(b <= 0) }' && die "$fab $k hops: iperf3 -c $dst: no data received (0 bit/s)"
	[ -n "$warm" ] && return 0
	append "tcp,$fab,$k" "$bps"
	R[tcp_retr,$fab,$k]=$((${R[tcp_retr,$fab,$k]:-0} + ${retr:-0}))
	log "$(printf '%-5s %2d hop(s) iperf3 %-14s %8.1f Mbit/s, %s retransmits' \
		"$fab" "$k" "$dst" "$(awk -v b="$bps" 'BEGIN { print b / 1e6 }')" "${retr:-0}")"
}

# ------------------------------------------------------------- profiling
# One forwarding hop is one call of __netif_receive_skb_one_core on the
# receiving port, on either fabric: the torus rx_handler runs inside it, and
# so does ip_rcv -> ip_forward -> ip_output -> veth_xmit.  function_graph
# times it and its callees (inclusive, to PROFILE_DEPTH levels); the
# tracer's own cost inflates every figure, more so for deep call trees, so
# compare the shares, not the absolute times.
TRACING=/sys/kernel/debug/tracing
PROFILE_ROOT=__netif_receive_skb_one_core
PROFILE_DEPTH=${PROFILE_DEPTH:-6}

# ftrace_profile: aggregate the function_graph trace on stdin over the
# forwarding hops (root calls that deliver nothing locally): per function,
# calls per hop, median and mean inclusive time per call (us), and its
# share of the hop (calls/hop x median / median hop).  Medians, because the
# guest is preempted by the host now and then, which inflates a few calls
# by milliseconds.
ftrace_profile() {
	awk -F'|' -v root="$PROFILE_ROOT" '
		function dur(left) {
			return match(left, /[0-9.]+ us/) ? substr(left, RSTART, RLENGTH - 3) + 0 : -1
		}
		NF >= 2 {
			r = $2
			n = ""
			if (match(r, /} \/\* [A-Za-z0-9_.]+/))
				n = substr(r, RSTART + 5, RLENGTH - 5)
			else if (match(r, /[A-Za-z0-9_.]+( \[[a-z_]+\])?\(\);/))
				n = substr(r, RSTART, RLENGTH - 3)
			sub(/ \[[a-z_]+\]$/, "", n)
			if (r ~ (root "\\(\\) \\{")) {
				buf = ""
				local = 0
				next
			}
			if (n == "")
				next
			d = dur($1)
			if (d < 0)
				next
			if (n ~ /^ip_local_deliver/)
				local = 1
			buf = buf n "\t" d "\n"
			if (n == root) {
				if (!local)
					printf "%s", buf
				buf = ""
			}
		}' | sort -t"$(printf '\t')" -k1,1 -k2,2g | awk -F'\t' -v root="$PROFILE_ROOT" '
		function flush() {
			if (name == "")
				return
			med[name] = (cnt % 2) ? v[(cnt + 1) / 2] : (v[cnt / 2] + v[cnt / 2 + 1]) / 2
			mean[name] = sum / cnt
			calls[name] = cnt
		}
		$1 != name { flush(); name = $1; cnt = 0; sum = 0 }
		{ v[++cnt] = $2; sum += $2 }
		END {
			flush()
			hops = calls[root]
			if (!hops) { print "no complete forwarding hop traced"; exit }
			printf "%d forwarding hops traced; one hop (%s): median %.2f us, mean %.2f us\n", hops, root, med[root], mean[root]
			printf "%-36s %9s %10s %10s %7s\n", "function (inclusive)", "calls/hop", "median us", "mean us", "share"
			for (f in calls)
				printf "%-36s %9.2f %10.2f %10.2f %6.1f%%\n", f, calls[f] / hops, med[f], mean[f], 100 * calls[f] / hops * med[f] / med[root] | "sort -k5 -g -r | head -n 30"
		}'
}

# profile_fabric FABRIC: a 31-hop blast under perf, then under ftrace
profile_fabric() {
	local fab=$1 k=${PPS_HOPS##* } src dns dst ppid
	src=$(src_ns $fab)
	dns=$(dst_ns $fab "$k")
	dst=$(dst_addr $fab "$k")

	echo "=== $fab, $k hops, udpblast -l $PPS_LEN: perf record -a -F 997 (cpu-clock), busiest symbols, idle left out"
	# perf first: under TCG it takes seconds to start sampling
	perf record -a -F 997 -o "$TMP/perf-$fab.data" -- sleep 6 >/dev/null 2>&1 &
	ppid=$!
	ip netns exec "$dns" udpblast recv -p $UDP_PORT -w 1 -W 20 >/dev/null 2>&1 &
	wait_until_listening "$dns"
	sleep 1
	ip netns exec "$src" taskset -c 0 udpblast send -p $UDP_PORT -l "$PPS_LEN" -t 4 "$dst" >/dev/null 2>&1
	if wait $ppid; then
		perf report -i "$TMP/perf-$fab.data" --stdio --no-children --sort comm,sym 2>&1 |
			grep -v '^#' | grep -v '^$' | grep -v -e swapper -e '\] native_safe_halt' | head -n 25
	else
		echo "(perf record failed)"
	fi
	wait
	echo
	echo "=== $fab, $k hops: ftrace function_graph under $PROFILE_ROOT (one forwarding hop), depth $PROFILE_DEPTH"
	echo 0 >$TRACING/tracing_on
	echo nop >$TRACING/current_tracer
	echo 8192 >$TRACING/buffer_size_kb
	echo $PROFILE_ROOT >$TRACING/set_graph_function
	echo "$PROFILE_DEPTH" >$TRACING/max_graph_depth
	echo 1 >$TRACING/options/funcgraph-tail
	echo 0 >$TRACING/options/funcgraph-irqs
	echo function_graph >$TRACING/current_tracer
	ip netns exec "$dns" udpblast recv -p $UDP_PORT -w 0.5 -W 20 >/dev/null 2>&1 &
	wait_until_listening "$dns"
	echo >$TRACING/trace
	echo 1 >$TRACING/tracing_on
	ip netns exec "$src" taskset -c 0 udpblast send -p $UDP_PORT -l "$PPS_LEN" -t 1 "$dst" >/dev/null 2>&1
	echo 0 >$TRACING/tracing_on
	wait
	ftrace_profile <$TRACING/trace
	echo "--- one hop as traced:"
	awk -v root="$PROFILE_ROOT" '$0 ~ root "\\(\\) \\{" { n++ } n == 20 { print } n == 20 && $0 ~ "} /\\* " root " \\*/" { exit }' $TRACING/trace
	echo nop >$TRACING/current_tracer
	echo >$TRACING/set_graph_function
	echo 0 >$TRACING/max_graph_depth
	echo
}

# ---------------------------------------------------------------------- run
START=$(cut -d' ' -f1 /proc/uptime)
log "kernel $(uname -r), $(nproc) CPU(s); $N nodes per line; rtt at $RTT_HOPS hops x $RTT_ROUNDS rounds of $PING_COUNT pings; pps at $PPS_HOPS hops x $PPS_REPS (window $PPS_WINDOW s, $PPS_LEN-byte payload); tcp at $TCP_HOPS hops x $IPERF_REPS (iperf3 -t $IPERF_TIME -O 1)"
setup_torus
setup_veth
TOR_MTU=$(ip -n n0 -o link show tor0 | sed -n 's/.* mtu \([0-9]*\).*/\1/p')
log "built: torus line n0..n$((N - 1)) (tor0 mtu $TOR_MTU), veth line v0..v$((N - 1)) (mtu $VETH_MTU) in $(awk -v a="$START" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s"
start_iperf_servers

# Warm-up (unrecorded): neighbour resolution and, above all, the TCG
# translation cache: the first runs in a fresh VM are much slower than
# later ones, whatever the fabric.
last=${RTT_HOPS##* }
for fab in torus veth; do
	ip netns exec "$(src_ns $fab)" ping -q -c 3 -i 0.05 -w 10 "$(dst_addr $fab "$last")" >/dev/null 2>&1 ||
		die "$fab: $(src_ns $fab) cannot ping $(dst_addr $fab "$last") ($last hops): $(ip netns exec "$(src_ns $fab)" ping -c 1 -w 2 "$(dst_addr $fab "$last")" 2>&1 | tail -n 2 | tr '\n' ' ')"
done
log "warm-up: udpblast and iperf3 on both fabrics (not recorded)"
for fab in torus veth; do
	measure_pps "$fab" "${PPS_HOPS##* }" warm
	measure_tcp "$fab" "${TCP_HOPS##* }" warm
done

order="torus veth"
for round in $(seq 1 "$RTT_ROUNDS"); do
	for k in $RTT_HOPS; do
		for fab in $order; do measure_ping "$fab" "$k" "$round"; done
		order=$(swap $order)
	done
	for fab in torus veth; do
		read -r s i <<<"$(fit_line "${R[rtt_round,$fab,$round]}")"
		append "slope,$fab" "$s"
		append "intercept,$fab" "$i"
		log "round $round $fab: rtt = $i us + $s us/hop"
	done
done

for k in $PPS_HOPS; do
	for _ in $(seq 1 "$PPS_REPS"); do
		for fab in $order; do measure_pps "$fab" "$k"; done
		order=$(swap $order)
	done
done

for k in $TCP_HOPS; do
	for _ in $(seq 1 "$IPERF_REPS"); do
		for fab in $order; do measure_tcp "$fab" "$k"; done
		order=$(swap $order)
	done
done

# torus counters, summed over the nodes: any drop is worth knowing about
# (a few bad_addr drops per node are expected: IPv6 link-local/multicast
# packets the kernel sends on tor0 when it comes up are outside the
# address plan)
for i in $(seq 0 $((N - 1))); do
	echo "-n n$i node show"
done >"$TMP/show.batch"
$T -j -s -b "$TMP/show.batch" 2>/dev/null | jq -r -s --arg n "$N" \
	'[.[][] | .stats.drop | to_entries[] | select(.value > 0)] | group_by(.key) |
	 map("\(.[0].key) \(map(.value) | add)") |
	 "bench: torus drops summed over \($n) nodes: " + (if length == 0 then "none" else join(", ") end)'

END=$(cut -d' ' -f1 /proc/uptime)

mkdir -p "$(dirname "$OUT")" || die "mkdir $(dirname "$OUT")"
if [ "$PROFILE" = 1 ]; then
	if ! command -v perf >/dev/null || ! [ -w $TRACING/current_tracer ]; then
		log "profile: perf or tracefs missing, skipped"
	else
		for fab in torus veth; do profile_fabric $fab; done >"$PROFILE_OUT" 2>&1
		log "wrote $PROFILE_OUT"
	fi
fi

# ------------------------------------------------------------------ tables
us_per_pkt() { awk -v p="$1" 'BEGIN { if (p > 0) printf "%.3f", 1e6 / p; else print "null" }'; }
first_pps=${PPS_HOPS%% *}
last_pps=${PPS_HOPS##* }
for fab in torus veth; do
	for k in $RTT_HOPS; do R[rtt_med,$fab,$k]=$(median "${R[rtt,$fab,$k]}"); done
	R[slope_med,$fab]=$(median "${R[slope,$fab]}")
	R[intercept_med,$fab]=$(median "${R[intercept,$fab]}")
	for k in $PPS_HOPS; do R[pps_med,$fab,$k]=$(median "${R[pps,$fab,$k]}"); done
	for k in $TCP_HOPS; do R[tcp_med,$fab,$k]=$(median "${R[tcp,$fab,$k]}"); done
	# cost of one forwarding hop from the two pps points
	R[hop_us,$fab]=null
	if [ "$first_pps" != "$last_pps" ]; then
		R[hop_us,$fab]=$(awk -v a="${R[pps_med,$fab,$first_pps]}" -v b="${R[pps_med,$fab,$last_pps]}" \
			-v ka="$first_pps" -v kb="$last_pps" \
			'BEGIN { if (a > 0 && b > 0) printf "%.3f", (1e6 / b - 1e6 / a) / (kb - ka); else print "null" }')
	fi
done

echo
echo "torus fabric vs. veth + ip_forward, $N-node lines (same VM, TCG; torus tor0 MTU $TOR_MTU, veth MTU $VETH_MTU)"
echo "median of the runs [min..max]; ratio = torus/veth"
echo
echo "RTT (median of $PING_COUNT pings, us; median of $RTT_ROUNDS rounds)"
printf '%5s | %22s | %22s | %5s\n' hops torus veth ratio
for k in $RTT_HOPS; do
	printf '%5s | %22s | %22s | %5s\n' "$k" \
		"$(printf '%.1f [%s..%s]' "${R[rtt_med,torus,$k]}" "$(echo "${R[rtt,torus,$k]}" | tr , '\n' | sort -g | sed -n '1p')" "$(echo "${R[rtt,torus,$k]}" | tr , '\n' | sort -g | tail -n1)")" \
		"$(printf '%.1f [%s..%s]' "${R[rtt_med,veth,$k]}" "$(echo "${R[rtt,veth,$k]}" | tr , '\n' | sort -g | sed -n '1p')" "$(echo "${R[rtt,veth,$k]}" | tr , '\n' | sort -g | tail -n1)")" \
		"$(ratio "${R[rtt_med,torus,$k]}" "${R[rtt_med,veth,$k]}")"
done
for fab in torus veth; do
	printf 'rtt slope %-5s %8s us/hop [%s], intercept %s us\n' "$fab" "${R[slope_med,$fab]}" "${R[slope,$fab]}" "${R[intercept_med,$fab]}"
done
echo "slope ratio torus/veth: $(ratio "${R[slope_med,torus]}" "${R[slope_med,veth]}")"
echo
echo "UDP, $PPS_LEN-byte payload, received packets/s over $PPS_WINDOW s ($PPS_REPS runs)"
printf '%5s | %28s | %28s | %5s\n' hops torus veth ratio
for k in $PPS_HOPS; do
	printf '%5s | %28s | %28s | %5s\n' "$k" \
		"$(printf '%.0f [%s] loss %s%%' "${R[pps_med,torus,$k]}" "$(echo "${R[pps,torus,$k]}" | tr , '\n' | sort -g | awk 'NR==1{a=$1} {b=$1} END {printf "%.0f..%.0f", a, b}')" "$(median "${R[pps_loss,torus,$k]}")")" \
		"$(printf '%.0f [%s] loss %s%%' "${R[pps_med,veth,$k]}" "$(echo "${R[pps,veth,$k]}" | tr , '\n' | sort -g | awk 'NR==1{a=$1} {b=$1} END {printf "%.0f..%.0f", a, b}')" "$(median "${R[pps_loss,veth,$k]}")")" \
		"$(ratio "${R[pps_med,torus,$k]}" "${R[pps_med,veth,$k]}")"
done
echo "cost of one forwarding hop, (1/pps($last_pps) - 1/pps($first_pps)) / $((last_pps - first_pps)): torus ${R[hop_us,torus]} us, veth ${R[hop_us,veth]} us, ratio $(ratio "${R[hop_us,torus]}" "${R[hop_us,veth]}")"
echo
echo "TCP, iperf3 -t $IPERF_TIME -O 1, received Mbit/s ($IPERF_REPS runs)"
printf '%5s | %22s | %22s | %5s\n' hops torus veth ratio
for k in $TCP_HOPS; do
	printf '%5s | %22s | %22s | %5s\n' "$k" \
		"$(echo "${R[tcp,torus,$k]}" | tr , '\n' | sort -g | awk -v m="${R[tcp_med,torus,$k]}" 'NR==1{a=$1} {b=$1} END {printf "%.0f [%.0f..%.0f]", m / 1e6, a / 1e6, b / 1e6}')" \
		"$(echo "${R[tcp,veth,$k]}" | tr , '\n' | sort -g | awk -v m="${R[tcp_med,veth,$k]}" 'NR==1{a=$1} {b=$1} END {printf "%.0f [%.0f..%.0f]", m / 1e6, a / 1e6, b / 1e6}')" \
		"$(ratio "${R[tcp_med,torus,$k]}" "${R[tcp_med,veth,$k]}")"
done
echo

pps_ratio=$(ratio "${R[pps_med,torus,$last_pps]}" "${R[pps_med,veth,$last_pps]}")
goal=$(awk -v r="$pps_ratio" -v g=$GOAL_PPS_RATIO 'BEGIN { print (r != "null" && r >= g) ? "true" : "false" }')
echo "goal at $last_pps hops (torus forwards >= ${GOAL_PPS_RATIO}x the packets/s of veth): $([ "$goal" = true ] && echo met || echo "NOT met") (ratio $pps_ratio)"
echo "bench time: $(awk -v a="$START" -v b="$END" 'BEGIN { printf "%.0f", b - a }') s (VM uptime, without profiling)"

# -------------------------------------------------------------------- json
fabric_json() {
	local fab=$1 k rtt='{}' pps='{}' tcp='{}'
	for k in $RTT_HOPS; do
		rtt=$(jq -cn --argjson a "$rtt" --arg k "$k" --argjson s "$(stats_json "${R[rtt,$fab,$k]}")" \
			--argjson l "$(stats_json "${R[rtt_loss,$fab,$k]}")" '$a + {($k): ($s + {loss_pct: $l})}')
	done
	for k in $PPS_HOPS; do
		pps=$(jq -cn --argjson a "$pps" --arg k "$k" --argjson rx "$(stats_json "${R[pps,$fab,$k]}")" \
			--argjson tx "$(stats_json "${R[pps_tx,$fab,$k]}")" --argjson l "$(stats_json "${R[pps_loss,$fab,$k]}")" \
			--argjson us "$(us_per_pkt "${R[pps_med,$fab,$k]}")" \
			'$a + {($k): {rx_pps: $rx, tx_pps: $tx, loss_pct: $l, us_per_packet: $us}}')
	done
	for k in $TCP_HOPS; do
		tcp=$(jq -cn --argjson a "$tcp" --arg k "$k" --argjson s "$(stats_json "${R[tcp,$fab,$k]}")" \
			--argjson r "${R[tcp_retr,$fab,$k]:-0}" '$a + {($k): {bits_per_second: $s, retransmits: $r}}')
	done
	jq -cn --argjson rtt "$rtt" --argjson pps "$pps" --argjson tcp "$tcp" \
		--argjson slope "$(stats_json "${R[slope,$fab]}")" --argjson icpt "$(stats_json "${R[intercept,$fab]}")" \
		--argjson hop "${R[hop_us,$fab]}" \
		'{rtt_median_us: $rtt, rtt_slope_us_per_hop: $slope, rtt_intercept_us: $icpt,
		  udp: $pps, udp_us_per_forwarding_hop: $hop, tcp: $tcp}'
}
{
	ratios=$(jq -cn \
		--argjson slope "$(ratio "${R[slope_med,torus]}" "${R[slope_med,veth]}")" \
		--argjson pps "$pps_ratio" \
		--argjson pps1 "$(ratio "${R[pps_med,torus,$first_pps]}" "${R[pps_med,veth,$first_pps]}")" \
		--argjson hop "$(ratio "${R[hop_us,torus]}" "${R[hop_us,veth]}")" \
		--argjson tcp "$(ratio "${R[tcp_med,torus,${TCP_HOPS##* }]}" "${R[tcp_med,veth,${TCP_HOPS##* }]}")" \
		--argjson tcp1 "$(ratio "${R[tcp_med,torus,${TCP_HOPS%% *}]}" "${R[tcp_med,veth,${TCP_HOPS%% *}]}")" \
		--arg lp "$last_pps" --arg fp "$first_pps" --arg lt "${TCP_HOPS##* }" --arg ft "${TCP_HOPS%% *}" \
		'{rtt_slope: $slope, ("udp_pps_" + $lp): $pps, ("udp_pps_" + $fp): $pps1,
		  udp_us_per_forwarding_hop: $hop, ("tcp_" + $lt): $tcp, ("tcp_" + $ft): $tcp1}')
	jq -n --argjson torus "$(fabric_json torus)" --argjson veth "$(fabric_json veth)" \
		--argjson ratio "$ratios" \
		--arg kernel "$(uname -r)" --argjson cpus "$(nproc)" --argjson nodes $N \
		--argjson tmtu "$TOR_MTU" --argjson vmtu "$VETH_MTU" \
		--arg rtt "ping -n -c $PING_COUNT -i 0.01 at hops $RTT_HOPS, median RTT per run, $RTT_ROUNDS rounds, least-squares slope per round" \
		--arg pps "udpblast -l $PPS_LEN (UDP payload bytes), sender on CPU 0, receiver on CPU 1, received over a ${PPS_WINDOW} s window, at hops $PPS_HOPS, $PPS_REPS runs" \
		--arg tcp "iperf3 -t $IPERF_TIME -O 1 at hops $TCP_HOPS, $IPERF_REPS runs" \
		--argjson goal "$goal" --argjson gr $GOAL_PPS_RATIO --argjson gh "$last_pps" \
		--arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		'{date: $date, kernel: $kernel, cpus: $cpus,
		  setup: {nodes_per_line: $nodes, torus_mtu: $tmtu, veth_mtu: $vmtu,
		          rtt: $rtt, udp: $pps, tcp: $tcp, ratio: "torus / veth",
		          statistics: "median, min, max and runs of the repetitions"},
		  torus: $torus, veth: $veth, ratio: $ratio,
		  goal: {hops: $gh, udp_pps_ratio_at_least: $gr, udp_pps_ratio: $ratio["udp_pps_\($gh)"], met: $goal}}'
} >"$OUT.tmp" || die "writing $OUT"
# strict: jq 1.6 writes what other parsers refuse (NaN, huge infinities)
python3 "$(dirname "$0")/../unit/json_strict.py" "$OUT.tmp" ||
	die "$OUT: not strict JSON"
mv "$OUT.tmp" "$OUT" || die "writing $OUT"
log "wrote $OUT"

if [ "$STRICT" = 1 ] && [ "$goal" != true ]; then
	die "goal not met at $last_pps hops (BENCH_STRICT=1)"
fi
exit 0
