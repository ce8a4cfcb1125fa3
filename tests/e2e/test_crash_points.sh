#!/bin/sh
# A viewer killed (SIGKILL) at every point of its saves: right after each
# change it makes to its segment cache directory (container header, chunk
# and tombstone writes, the seal, the history and cache identity files),
# then started again on the same cache against a server that kept its
# beliefs. Every restarted viewer must end with the trace's last frame
# exactly, and the directory must not fill with leftovers.
#
# The points come from a preloaded library (tests/vg_killat.so) that counts
# the changes and kills the process after the N-th. Short (make check):
# every third point of a session; VG_STRESS=full: every point.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
TRACE=${VG_TEST_TRACE:-$S/traces/samples/treeview-scroll.vtr}
SHIM=$B/tests/vg_killat.so
IDLE=${IDLE:-2}
STEP=3
[ "${VG_STRESS:-short}" = full ] && STEP=1
CACHE=$work/cache
# ASan wants its runtime first; the shim only forwards to it.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
export ASAN_OPTIONS

[ -f "$SHIM" ] || { echo "1..0 # SKIP $SHIM not built"; exit 0; }
last_frame "$TRACE" "$work/expected.png" || { echo "1..1"; tap_not_ok "export the trace's last frame"; exit 1; }

# session NAME [KILL-AT]: the trace played once (a server of its own,
# beliefs saved every second) to a viewer on $CACHE, killed after its
# KILL-AT-th change there if given; sets st to its exit status and
# changes to the number of changes it made (when it was not killed).
session() {
	start_server "$1" --trace "$TRACE" --speed 0 --wait-clients 1 --beliefs-save 1 || return 1
	rm -f "$work/count"
	wrap=$VG_WRAP
	VG_WRAP="$wrap env LD_PRELOAD=$SHIM VG_KILLAT_DIR=$CACHE VG_KILLAT=${2:-0} VG_KILLAT_COUNT=$work/count"
	viewer "$1"
	VG_WRAP=$wrap
	eval wait "\$pid_$1" 2>/dev/null
	st=$?
	changes=$(cat "$work/count" 2>/dev/null || echo 0)
	stop_server
}

# exact NAME: the viewer ended by itself with the trace's last frame, and
# owed nothing it had asked for again.
exact() {
	if [ "$st" -eq 0 ] && same_image "$work/$1.png" "$work/expected.png" &&
		[ "$(json_num "$work/$1.json" owed_pixels)" = 0 ]; then
		return 0
	fi
	echo "#   $1: exit $st"
	sed 's/^/#     /' "$work/$1.log" | head -5
	return 1
}

# The server: killed after each change to its state directory (belief
# files, its identity key), restarted; a viewer on a warm cache ends exact.
# server_session NAME [KILL-AT]: sets sst to the server's exit status.
state=$XDG_STATE_HOME/varg
server_session() {
	rm -f "$work/count"
	wrap=$VG_WRAP
	VG_WRAP="$wrap env LD_PRELOAD=$SHIM VG_KILLAT_DIR=$state VG_KILLAT=${2:-0} VG_KILLAT_COUNT=$work/count"
	start_server "$1" --trace "$TRACE" --speed 0 --wait-clients 1 --beliefs-save 1
	VG_WRAP=$wrap
	viewer "$1"
	eval wait "\$pid_$1" 2>/dev/null
	kill "$SERVER_PID" 2>/dev/null
	wait "$SERVER_PID" 2>/dev/null
	sst=$?
	changes=$(cat "$work/count" 2>/dev/null || echo 0)
}
CACHE=$work/cache-server
server_session server_count
n_server=$changes
# A cold and a warm session tell how many changes each makes; so does one
# of the server's.
CACHE=$work/cache-count
session cold && exact cold || { echo "1..1"; tap_not_ok "a first session ends exact"; exit 1; }
n_cold=$changes
session warm && exact warm || { echo "1..1"; tap_not_ok "a warm session ends exact"; exit 1; }
n_warm=$changes
[ "$n_cold" -gt 0 ] && [ "$n_warm" -gt 0 ] && [ "$n_server" -gt 0 ] ||
	{ echo "1..1"; tap_not_ok "the shim counts the changes ($n_cold, $n_warm, $n_server)"; exit 1; }
cold_points=$(seq 1 "$STEP" "$n_cold")
server_points=$(seq 1 "$STEP" "$n_server")
warm_points=$(seq 1 "$STEP" "$n_warm")
count() { echo "$1" | wc -l; }
tap_plan $(($(count "$cold_points") + $(count "$warm_points") + $(count "$server_points") + 3))
echo "# a cold session makes $n_cold changes to its cache, a warm one $n_warm"
tap_ok "the cache survives a cold and a warm session (both exact)"

# point NAME K: the session killed after change K, then one more on the
# same cache, which must end exact.
killed=0
point() {
	session "${1}_kill$2" "$2"
	[ "$st" -eq 137 ] && killed=$((killed + 1))
	what="killed after change $2"
	[ "$st" -eq 137 ] || what="ended before change $2 (exit $st)"
	session "${1}_after$2"
	cor=$(json_num "$work/${1}_after$2.json" corrections)
	hits=$(json_num "$work/${1}_after$2.json" cache_hits)
	tap_check "$1: $what, restarted: exact ($hits hits, $cor corrections)" exact "${1}_after$2"
}

# Cold: each point on a new cache, killed in its first session (the
# server saved beliefs about it meanwhile).
echo "# cold: killing the first session after each of: $(echo $cold_points)"
for k in $cold_points; do
	CACHE=$work/cache-cold$k
	point cold "$k"
done
# Warm: one cache through every point in turn, as a user's would be.
echo "# warm: killing a later session after each of: $(echo $warm_points)"
CACHE=$work/cache-warm
session warm_first
for k in $warm_points; do
	point warm "$k"
done
echo "# server: a session makes $n_server changes to its state; killing after each of: $(echo $server_points)"
for k in $server_points; do
	server_session "server_kill$k" "$k"
	[ "$sst" -eq 137 ] && killed=$((killed + 1))
	what="killed after change $k"
	[ "$sst" -eq 137 ] || what="ended before change $k (exit $sst)"
	session "server_after$k"
	tap_check "server: $what, restarted: exact ($(json_num "$work/server_after$k.json" corrections) corrections)" \
		exact "server_after$k"
done
total=$(($(count "$cold_points") + $(count "$warm_points") + $(count "$server_points")))
tap_check "viewer and server were killed at $killed of $total points" test "$killed" -gt 0
left=$(find "$work" -path '*cache*' -name '*.tmp-*' | wc -l)
tap_check "no half-written files left behind ($left)" test "$left" -eq 0
tap_done
