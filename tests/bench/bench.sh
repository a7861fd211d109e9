#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/bench/bench.sh — torus fabric vs. veth + ip_forward, in one VM run.
#
#   make bench                          # builds, then runs this in the VM
#   tests/vm/run --timeout 900 -- tests/bench/bench.sh
#
# Builds two 7-node lines of network namespaces:
#
#   torus  n0..n6: one tor0 node device each (1-axis mesh, dims 7, wrap 0,
#          node K at coordinate K, address 10.K.0.0/8), neighbours joined by
#          torport cables (+x on the lower node, -x on the upper one).
#          Transit nodes forward by coordinates; their IP stack is not used.
#   veth   v0..v6: neighbours joined by veth pairs, link i (vi <-> vi+1) is
#          192.168.i.0/24 (.1 on vi, .2 on vi+1), net.ipv4.ip_forward=1 on
#          v1..v5, static routes both ways.
#
# so that node 0 -> node K crosses K cables (K-1 forwarding nodes) on both.
# For K = 1, 3, 6 it measures ping RTT (ping -c PING_COUNT -i 0.01) and
# iperf3 TCP throughput (median of IPERF_REPS runs of -t IPERF_TIME -O 1),
# torus and veth interleaved (the order alternates), after an unrecorded
# warm-up run on each fabric; prints a table with torus/veth ratios and
# writes build/bench/results.json.
#
# MTU: tor0 has IP MTU 1468 (1500-byte ports minus the 32-byte torus
# header).  The veth links are set to MTU 1468 too (BENCH_VETH_MTU), so both
# fabrics carry the same IP packet sizes (same TCP MSS).
#
# Exit status: 0 when every measurement produced numbers, 1 (with the
# reason) when setup or a measurement failed (e.g. 100% ping loss, iperf3
# error).  Missing the goal (torus >= veth at 6 hops) is reported but is not
# a failure unless BENCH_STRICT=1.
#
# Environment: BENCH_HOPS (default "1 3 6"), PING_COUNT (100),
# IPERF_TIME (5), IPERF_REPS (3), BENCH_VETH_MTU (1468), BENCH_OUT (build/bench/results.json),
# BENCH_STRICT (0).

set -u

HOPS=${BENCH_HOPS:-1 3 6}
PING_COUNT=${PING_COUNT:-100}
IPERF_TIME=${IPERF_TIME:-5}
IPERF_REPS=${IPERF_REPS:-3}
VETH_MTU=${BENCH_VETH_MTU:-1468}
OUT=${BENCH_OUT:-build/bench/results.json}
STRICT=${BENCH_STRICT:-0}
N=7                     # nodes per line: 0..6
PORT=5201
T=torus
TMP=$(mktemp -d /tmp/bench.XXXXXX)

log() { echo "bench: $*"; }
die() {
	echo "bench: FAIL: $*" >&2
	exit 1
}

if [ "${TORUS_VM:-}" != 1 ]; then
	die "run me in the VM: tests/vm/run -- tests/bench/bench.sh (or make bench)"
fi
for c in ip $T ping iperf3 jq awk ss; do
	command -v "$c" >/dev/null || die "$c not found on PATH"
done
for k in $HOPS; do
	case $k in
	[1-6]) ;;
	*) die "BENCH_HOPS: hop count '$k' not in 1..$((N - 1))" ;;
	esac
done

cleanup() {
	local f
	for f in "$TMP"/iperf-*.pid; do
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
		ip netns add "n$i" || die "ip netns add n$i"
		ip -n "n$i" link add tor0 type torus || die "n$i: ip link add tor0 type torus"
	done
	: >"$b"
	for i in $(seq 0 $((N - 2))); do
		echo "link add px dir +x netns n$i master tor0 peer mx dir -x netns n$((i + 1)) master tor0" >>"$b"
	done
	for i in $(seq 0 $((N - 1))); do
		echo "-n n$i node set dev tor0 id $((i + 1)) coord $i dims $N wrap 0 state placed role static" >>"$b"
		if [ "$i" -eq 0 ]; then
			echo "-n n$i port map dev tor0 +x px" >>"$b"
		elif [ "$i" -eq $((N - 1)) ]; then
			echo "-n n$i port map dev tor0 -x mx" >>"$b"
		else
			echo "-n n$i port map dev tor0 +x px -x mx" >>"$b"
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
	local i j

	for i in $(seq 0 $((N - 1))); do
		ip netns add "v$i" || die "ip netns add v$i"
	done
	# link i: v$i "vr" <-> v$((i+1)) "vl", 192.168.i.0/24
	for i in $(seq 0 $((N - 2))); do
		ip -n "v$i" link add vr type veth peer name vl netns "v$((i + 1))" ||
			die "veth v$i <-> v$((i + 1))"
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
		if [ "$i" -gt 0 ] && [ "$i" -lt $((N - 1)) ]; then
			ip netns exec "v$i" sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward' ||
				die "v$i: ip_forward=1"
		fi
	done
}

# node K's address on each fabric, as seen from node 0
addr_torus() { echo "10.$1.0.0"; }
addr_veth() { echo "192.168.$(($1 - 1)).2"; }

start_iperf_servers() {
	local k ns
	for k in $HOPS; do
		for ns in "n$k" "v$k"; do
			[ -f "$TMP/iperf-$ns.pid" ] && continue
			ip netns exec "$ns" iperf3 -s -D -p $PORT -I "$TMP/iperf-$ns.pid" \
				--logfile "$TMP/iperf-$ns.log" ||
				die "$ns: iperf3 -s failed"
		done
	done
	for k in $HOPS; do
		for ns in "n$k" "v$k"; do
			local ok=0 t
			for t in $(seq 1 100); do
				if ip netns exec "$ns" ss -Hltn "sport = :$PORT" | grep -q LISTEN; then
					ok=1
					break
				fi
				sleep 0.1
			done
			[ $ok = 1 ] || die "$ns: iperf3 server not listening on $PORT after 10 s: $(cat "$TMP/iperf-$ns.log" 2>/dev/null)"
		done
	done
}

# ---------------------------------------------------------------- measuring
# Results go to R[fabric,k,key].
declare -A R

# measure_ping FABRIC K
measure_ping() {
	local fab=$1 k=$2 src dst out loss rtt
	if [ "$fab" = torus ]; then src=n0; dst=$(addr_torus "$k"); else src=v0; dst=$(addr_veth "$k"); fi
	# warm-up: neighbour resolution, first-packet paths
	ip netns exec $src ping -q -c 3 -i 0.05 -w 10 "$dst" >/dev/null 2>&1 ||
		die "$fab $k hops: $src cannot ping $dst (warm-up, 100% loss): $(ip netns exec $src ping -c 1 -w 2 "$dst" 2>&1 | tail -n 3 | tr '\n' ' ')"
	out=$(ip netns exec $src ping -q -c "$PING_COUNT" -i 0.01 -w 60 "$dst" 2>&1)
	loss=$(echo "$out" | sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p')
	rtt=$(echo "$out" | sed -n 's/^rtt min\/avg\/max\/mdev = \([0-9.\/]*\) ms.*/\1/p')
	[ -n "$loss" ] || die "$fab $k hops: cannot parse ping output: $out"
	if [ -z "$rtt" ] || [ "${loss%%.*}" = 100 ]; then
		die "$fab $k hops: ping $dst from $src: ${loss}% packet loss: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
	fi
	IFS=/ read -r R[$fab,$k,rtt_min] R[$fab,$k,rtt_avg] R[$fab,$k,rtt_max] R[$fab,$k,rtt_mdev] <<<"$rtt"
	R[$fab,$k,loss]=$loss
	log "$(printf '%-5s %d hop(s) ping %-12s rtt min/avg/max/mdev %s ms, %s%% loss' \
		"$fab" "$k" "$dst" "$rtt" "$loss")"
}

# measure_iperf FABRIC K [warm]   (warm: a short unrecorded warm-up run)
measure_iperf() {
	local fab=$1 k=$2 warm=${3:-} src dst j err bps retr t=$IPERF_TIME omit="-O 1"
	[ -n "$warm" ] && { t=2; omit=; }
	if [ "$fab" = torus ]; then src=n0; dst=$(addr_torus "$k"); else src=v0; dst=$(addr_veth "$k"); fi
	j="$TMP/iperf-$fab-$k.json"
	ip netns exec $src iperf3 -c "$dst" -p $PORT -t "$t" $omit -J >"$j" 2>"$j.err"
	local rc=$?
	err=$(jq -r '.error // empty' "$j" 2>/dev/null)
	bps=$(jq -r '.end.sum_received.bits_per_second // empty' "$j" 2>/dev/null)
	retr=$(jq -r '.end.sum_sent.retransmits // 0' "$j" 2>/dev/null)
	if [ $rc -ne 0 ] || [ -n "$err" ] || [ -z "$bps" ]; then
		die "$fab $k hops: iperf3 -c $dst from $src failed (exit $rc): ${err:-$(head -c 300 "$j" "$j.err" | tr '\n' ' ')}"
	fi
	if awk -v b="$bps" 'BEGIN { exit !(b <= 0) }'; then
		die "$fab $k hops: iperf3 -c $dst: no data received (0 bit/s)"
	fi
	[ -n "$warm" ] && return 0
	R[$fab,$k,bps_runs]="${R[$fab,$k,bps_runs]:-}${R[$fab,$k,bps_runs]:+,}$bps"
	R[$fab,$k,retr]=$((${R[$fab,$k,retr]:-0} + ${retr:-0}))
	log "$(printf '%-5s %d hop(s) iperf3 %-12s %s Mbit/s, %s retransmits' \
		"$fab" "$k" "$dst" "$(awk -v b="$bps" 'BEGIN { printf "%.1f", b / 1e6 }')" "${retr:-0}")"
}

# median of a comma-separated list (mean of the middle two for an even count)
median() {
	echo "$1" | tr , '\n' | sort -g |
		awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2); printf "%.0f", (NR % 2) ? v[m] : (v[m] + v[m + 1]) / 2 }'
}

# ---------------------------------------------------------------------- run
START=$(cut -d' ' -f1 /proc/uptime)
log "kernel $(uname -r), $(nproc) CPU(s); hops: $HOPS; ping -c $PING_COUNT -i 0.01; iperf3 -t $IPERF_TIME -O 1 x $IPERF_REPS"
setup_torus
setup_veth
TOR_MTU=$(ip -n n0 -o link show tor0 | sed -n 's/.* mtu \([0-9]*\).*/\1/p')
log "built: torus line n0..n$((N - 1)) (tor0 mtu $TOR_MTU), veth line v0..v$((N - 1)) (mtu $VETH_MTU)"
start_iperf_servers

# Warm-up (unrecorded): the first TCP runs in a fresh TCG VM are much
# slower than later ones (translation cache), whatever the fabric.
last=${HOPS##* }
log "warm-up: iperf3 -t 2 over $last hops on both fabrics (not recorded)"
for fab in torus veth; do measure_iperf "$fab" "$last" warm; done

# interleaved, alternating which fabric goes first
first=torus
for k in $HOPS; do
	if [ $first = torus ]; then order="torus veth"; first=veth; else order="veth torus"; first=torus; fi
	for fab in $order; do measure_ping "$fab" "$k"; done
	for _ in $(seq 1 "$IPERF_REPS"); do
		for fab in $order; do measure_iperf "$fab" "$k"; done
		order=$(echo $order | awk '{ print $2, $1 }')
	done
	for fab in torus veth; do R[$fab,$k,bps]=$(median "${R[$fab,$k,bps_runs]}"); done
done

# torus counters: any drop is worth knowing about (a few bad_addr drops
# per node are expected: IPv6 link-local/multicast packets the kernel sends
# on tor0 when it comes up are outside the address plan)
for i in $(seq 0 $((N - 1))); do
	$T -n "n$i" -j -s node show 2>/dev/null | jq -r --arg n "n$i" \
		'.[] | select(.stats.drops > 0) | "bench: torus drops on \($n): \(.stats.drops) (" +
		 ([.stats.drop | to_entries[] | select(.value > 0) | "\(.key) \(.value)"] | join(", ")) + ")"'
done

END=$(cut -d' ' -f1 /proc/uptime)

# -------------------------------------------------------------------- table
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
mbit() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }

echo
echo "torus fabric vs. veth + ip_forward (same VM, TCG; torus tor0 MTU $TOR_MTU, veth MTU $VETH_MTU)"
echo "rtt: ping -c $PING_COUNT -i 0.01 average; ratio = torus/veth (<= 1.00: torus at least as fast)"
echo "tput: iperf3 TCP -t $IPERF_TIME -O 1, received, median of $IPERF_REPS runs; ratio = torus/veth (>= 1.00: torus at least as fast)"
echo
printf '%4s | %14s | %13s | %5s | %15s | %14s | %5s\n' \
	hops "torus rtt (ms)" "veth rtt (ms)" ratio "torus (Mbit/s)" "veth (Mbit/s)" ratio
printf '%s\n' "-----+----------------+---------------+-------+-----------------+----------------+------"
for k in $HOPS; do
	R[rtt_ratio,$k]=$(ratio "${R[torus,$k,rtt_avg]}" "${R[veth,$k,rtt_avg]}")
	R[bps_ratio,$k]=$(ratio "${R[torus,$k,bps]}" "${R[veth,$k,bps]}")
	printf '%4s | %14s | %13s | %5s | %15s | %14s | %5s\n' "$k" \
		"${R[torus,$k,rtt_avg]}" "${R[veth,$k,rtt_avg]}" "${R[rtt_ratio,$k]}" \
		"$(mbit "${R[torus,$k,bps]}")" "$(mbit "${R[veth,$k,bps]}")" "${R[bps_ratio,$k]}"
done
echo

# goal: torus at least matches veth at the largest hop count measured
last=${HOPS##* }
goal_rtt=$(awk -v r="${R[rtt_ratio,$last]}" 'BEGIN { print (r != "n/a" && r <= 1.0) ? "true" : "false" }')
goal_bps=$(awk -v r="${R[bps_ratio,$last]}" 'BEGIN { print (r != "n/a" && r >= 1.0) ? "true" : "false" }')
goal_word() { [ "$1" = true ] && echo met || echo "NOT met"; }
echo "goal at $last hops (torus >= veth): latency $(goal_word "$goal_rtt") (ratio ${R[rtt_ratio,$last]}), throughput $(goal_word "$goal_bps") (ratio ${R[bps_ratio,$last]})"
echo "bench time: $(awk -v a="$START" -v b="$END" 'BEGIN { printf "%.0f", b - a }') s (VM uptime)"

# --------------------------------------------------------------------- json
mkdir -p "$(dirname "$OUT")" || die "mkdir $(dirname "$OUT")"
{
	points='[]'
	for k in $HOPS; do
		p=$(jq -n \
			--argjson hops "$k" \
			--argjson t_min "${R[torus,$k,rtt_min]}" --argjson t_avg "${R[torus,$k,rtt_avg]}" \
			--argjson t_max "${R[torus,$k,rtt_max]}" --argjson t_mdev "${R[torus,$k,rtt_mdev]}" \
			--argjson t_loss "${R[torus,$k,loss]}" --argjson t_bps "${R[torus,$k,bps]}" \
			--argjson t_retr "${R[torus,$k,retr]}" --argjson t_runs "[${R[torus,$k,bps_runs]}]" \
			--argjson v_min "${R[veth,$k,rtt_min]}" --argjson v_avg "${R[veth,$k,rtt_avg]}" \
			--argjson v_max "${R[veth,$k,rtt_max]}" --argjson v_mdev "${R[veth,$k,rtt_mdev]}" \
			--argjson v_loss "${R[veth,$k,loss]}" --argjson v_bps "${R[veth,$k,bps]}" \
			--argjson v_retr "${R[veth,$k,retr]}" --argjson v_runs "[${R[veth,$k,bps_runs]}]" \
			'{hops: $hops,
			  torus: {rtt_ms: {min: $t_min, avg: $t_avg, max: $t_max, mdev: $t_mdev},
			          loss_pct: $t_loss, tcp_bits_per_second: $t_bps,
			          tcp_bits_per_second_runs: $t_runs, tcp_retransmits: $t_retr},
			  veth:  {rtt_ms: {min: $v_min, avg: $v_avg, max: $v_max, mdev: $v_mdev},
			          loss_pct: $v_loss, tcp_bits_per_second: $v_bps,
			          tcp_bits_per_second_runs: $v_runs, tcp_retransmits: $v_retr},
			  ratio: {rtt_avg: (if $v_avg > 0 then $t_avg / $v_avg else null end),
			          tcp_throughput: (if $v_bps > 0 then $t_bps / $v_bps else null end)}}') ||
			die "jq: building results for $k hops"
		points=$(jq -n --argjson a "$points" --argjson p "$p" '$a + [$p]')
	done
	jq -n --argjson points "$points" \
		--arg kernel "$(uname -r)" --argjson cpus "$(nproc)" \
		--argjson tmtu "$TOR_MTU" --argjson vmtu "$VETH_MTU" \
		--argjson count "$PING_COUNT" --argjson t "$IPERF_TIME" --argjson reps "$IPERF_REPS" \
		--argjson grtt "$goal_rtt" --argjson gbps "$goal_bps" --argjson last "$last" \
		--arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		'{date: $date, kernel: $kernel, cpus: $cpus,
		  setup: {nodes: 7, torus_mtu: $tmtu, veth_mtu: $vmtu,
		          ping: "ping -c \($count) -i 0.01", iperf3: "iperf3 -t \($t) -O 1 (TCP), median of \($reps) runs",
		          ratio: "torus / veth"},
		  points: $points,
		  goal: {hops: $last, rtt_met: $grtt, throughput_met: $gbps}}'
} >"$OUT.tmp" || die "writing $OUT"
# strict: jq 1.6 writes what other parsers refuse (NaN, huge infinities)
python3 "$(dirname "$0")/../unit/json_strict.py" "$OUT.tmp" ||
	die "$OUT: not strict JSON"
mv "$OUT.tmp" "$OUT" || die "writing $OUT"
log "wrote $OUT"

if [ "$STRICT" = 1 ] && { [ "$goal_rtt" != true ] || [ "$goal_bps" != true ]; }; then
	die "goal not met at $last hops (BENCH_STRICT=1)"
fi
exit 0
