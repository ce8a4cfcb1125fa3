#!/bin/sh
# One slow-viewer case of tests/e2e/test_stress.sh, run in a network namespace
# of its own (unshare -n, as root):
#   vg_slowcase.sh OUT NAME [SLOW-VIEWER-ARGS...]
# Plays the heat-map trace at its own speed to a fast Varg viewer on
# loopback and, given SLOW-VIEWER-ARGS, to a second varg-viewer behind
# vg_slowlink at 200 kB/s. The namespace's TCP send buffers are capped at
# 64 kB: with the usual 4 MB cap one update of this trace fits in the
# kernel and a server would never feel a slow reader, as it does with
# bigger screens or many slow viewers. Writes KEY=VALUE lines to OUT:
# fast_exact, fast_ms (from the first frame to the fast viewer showing
# the last), fast_p90_ms, lag_ms (how far the player fell behind its
# clock), rss0_kb / rss_max_kb (server memory before the viewers and at
# most), slow_exact, slow_bytes.
res_file=$1 label=$2
shift 2
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
TRACE=$S/traces/samples/heatmap-scroll.vtr
ip link set lo up || exit 77
sysctl -qw net.ipv4.tcp_wmem="4096 16384 65536" || exit 77
"$B/tests/vg_tracedump" "$TRACE" | awk '$1 == "frame" { print n++, $2 }' >"$work/times"
last_frame "$TRACE" "$work/expected.png" || exit 1

want=1
[ $# -gt 0 ] && want=2
start_server s --trace "$TRACE" --speed 1 --wait-clients $want --frame-log "$work/s.log" || exit 1
rss0=$(awk '/^VmRSS:/ { print $2 }' "/proc/$SERVER_PID/status")
if [ $# -gt 0 ]; then
	"$B/tests/vg_slowlink" 0 127.0.0.1 "$PORT" 200000 >"$work/link.out" 2>"$work/link.err" &
	link_pid=$!
	pids="$pids $link_pid"
	lport=""
	for _ in $(seq 50); do
		lport=$(sed -n 's/^port //p' "$work/link.out")
		[ -n "$lport" ] && break
		sleep 0.1
	done
	PORT=$lport IDLE=10 viewer slow "$@"
fi
IDLE=3 viewer fast --frame-log "$work/fast.log"
rss_max=$rss0
# watch_rss PID: until PID ends, keeps the server's largest resident size
# in rss_max (kB).
watch_rss() {
	while kill -0 "$1" 2>/dev/null; do
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$SERVER_PID/status")
		[ "${rss:-0}" -gt "$rss_max" ] && rss_max=$rss
		sleep 0.5
	done
}
watch_rss "$pid_fast"
wait "$pid_fast"
fast_st=$?
fast_exact=no
[ $fast_st -eq 0 ] && same_image "$work/fast.png" "$work/expected.png" && fast_exact=yes
slow_exact=- slow_bytes=-
if [ $# -gt 0 ]; then
	watch_rss "$pid_slow"
	wait "$pid_slow"
	slow_st=$?
	slow_exact=no
	[ $slow_st -eq 0 ] && same_image "$work/slow.png" "$work/expected.png" && slow_exact=yes
	slow_bytes=$(json_num "$work/slow.json" bytes_received)
	wait "$link_pid"
	sed 's/^/#   /' "$work/link.err"
fi
stop_server
lat=$("$S/scripts/wan-latency" "$work/s.log" "$work/fast.log")
# The fast viewer is done when it shows the last frame: duration_ms.
fast_ms=$(echo "$lat" | sed -n 's/.*duration_ms=\([0-9]*\).*/\1/p')
p90=$(echo "$lat" | sed -n 's/.*p90_ms=\([0-9.a-z]*\).*/\1/p')
lag=$(awk 'NR == FNR { t[$1] = $2; next }
	FNR == 1 { d0 = $1; t0 = t[$2] }
	{ l = ($1 - d0) - (t[$2] - t0); if (l > m) m = l }
	END { printf "%.0f", m / 1e6 }' "$work/times" "$work/s.log")
cat >"$res_file" <<EOF
fast_exact=$fast_exact
fast_ms=${fast_ms:-0}
fast_p90_ms=${p90:-null}
lag_ms=$lag
rss0_kb=$rss0
rss_max_kb=$rss_max
slow_exact=$slow_exact
slow_bytes=$slow_bytes
EOF
echo "#   $label: $(tr '\n' ' ' <"$res_file")"
