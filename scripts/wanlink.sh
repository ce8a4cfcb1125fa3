# Sourced by scripts/wan-bench and scripts/relay-bench: emulated wide-area
# links between network namespaces (doc/wan-bench.md). The caller sets
# build, work, link (netem or tun) and pids, and adds wanlink_pids to its
# cleanup.

# profile NAME: sets rate (bytes/s) and rtt_us, Table 7 (MB = 10^6 bytes).
profile() {
	case "$1" in
		gigabit) rate=80000000; rtt_us=200 ;;
		fast-ethernet) rate=8000000; rtt_us=200 ;;
		princeton-boston) rate=2130000; rtt_us=11000 ;;
		princeton-san-diego) rate=380000; rtt_us=72000 ;;
		princeton-tromso) rate=200000; rtt_us=120000 ;;
		*) return 1 ;;
	esac
}

# new_netns NAME: a network namespace with loopback up; exit 77 when
# namespaces are not permitted here.
new_netns() {
	if ! err=$(ip netns add "$1" 2>&1); then
		echo "$(basename "$0"): network namespaces are not permitted here: ip netns add: $err" >&2
		exit 77
	fi
	ip -n "$1" link set lo up
}

# link_join NS_A NS_B DEV RATE RTT_US NET: joins two namespaces by a link
# of RATE bytes/s and RTT_US round trip, device DEV on both sides,
# addresses NET.1 (A) and NET.2 (B); sets limit.
link_join() {
	# Packets in flight one way plus one bandwidth-delay product of queue,
	# at least 16: near the BDP, not netem's default of 1,000 packets.
	# On a LAN (a round trip under a millisecond) at least 64 (96 kB), as
	# a switch port buffers: with 16, a 25 kB update lost its last
	# packets and waited 200 ms for TCP's retransmission timeout.
	limit=$(( ($4 * $5 * 3 / 2 / 1000000 + 1499) / 1500 ))
	[ "$limit" -ge 16 ] || limit=16
	[ "$5" -ge 1000 ] || [ "$limit" -ge 64 ] || limit=64
	if [ "$link" = netem ]; then
		ip link add "$3" netns "$1" type veth peer name "$3" netns "$2"
	else
		# The last link's "ready" must not be read for this one's: the
		# shell truncates the file in the child, after the loop below
		# may have started reading it.
		rm -f "$work/$3.out"
		"$build/tests/vg_wanlink" --ns-a "/run/netns/$1" --ns-b "/run/netns/$2" --dev "$3" \
			--rate "$4" --delay-us $(($5 / 2)) --limit "$limit" \
			>"$work/$3.out" 2>"$work/$3.err" &
		wanlink_pid=$!
		pids="$pids $wanlink_pid"
		wanlink_pids="${wanlink_pids:-} $wanlink_pid"
		# A link that never comes up ends the run with a reason, not in
		# silence.
		for _ in $(seq 1 300); do
			grep -q ready "$work/$3.out" 2>/dev/null && break
			kill -0 "$wanlink_pid" 2>/dev/null || break
			sleep 0.1
		done
		grep -q ready "$work/$3.out" || {
			cat "$work/$3.err" >&2
			echo "$(basename "$0"): the user-space link $3 was not ready in 30 s" >&2
			exit 1
		}
	fi
	for ns in "$1" "$2"; do
		ip -n "$ns" link set "$3" mtu 1500 up
		if ! err=$(ip netns exec "$ns" ethtool -K "$3" tso off gso off gro off 2>&1) && [ "$link" = netem ]; then
			echo "$(basename "$0"): ethtool refused to turn offloads off: $err" >&2
			exit 1
		fi
		if [ "$link" = netem ] &&
		   ! err=$(ip netns exec "$ns" tc qdisc add dev "$3" root netem rate $(($4 * 8))bit \
				delay "$(($5 / 2))us" limit "$limit" 2>&1); then
			echo "$(basename "$0"): tc refused netem: $err (this kernel lacks sch_netem; --link tun emulates the link in user space)" >&2
			exit 3
		fi
	done
	ip -n "$1" addr add "$6.1/24" dev "$3"
	ip -n "$2" addr add "$6.2/24" dev "$3"
}

# link_up PROFILE: namespaces $ns_s and $ns_v joined by the profile's link
# (device vgwan, 10.199.0.1 and .2); sets rate, rtt_us and limit.
link_up() {
	profile "$1"
	new_netns "$ns_s"
	new_netns "$ns_v"
	link_join "$ns_s" "$ns_v" vgwan "$rate" "$rtt_us" 10.199.0
}
