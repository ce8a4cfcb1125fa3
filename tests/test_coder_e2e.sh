#!/bin/sh
# The coder of Varg updates end to end: a viewer and server that both
# take zstd use it (fewer bytes); a viewer that offers no zstd window
# (as an older viewer) and a server that offers no zstd (as an older
# server) both fall back to zlib; MOVE runs go only to a viewer that
# announced them and from a server that sends them; every picture ends
# exact.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
TRACE=${VG_TEST_TRACE:-$S/traces/samples/treeview-scroll.vtr}
IDLE=${IDLE:-2}
tap_plan 14

last_frame "$TRACE" "$work/expected.png" || { tap_not_ok "export the trace's last frame"; exit 1; }

# run NAME SERVER-ARGS -- VIEWER-ARGS: the trace played to one viewer on a
# cache of its own; prints its bytes and window.
run() {
	name=$1; shift
	sargs=""
	while [ "$1" != -- ]; do sargs="$sargs $1"; shift; done
	shift
	# shellcheck disable=SC2086
	start_server "$name" --trace "$TRACE" --speed 0 --wait-clients 1 $sargs || return 1
	viewer "$name" "$@"
	eval wait "\$pid_$name"
	st=$?
	stop_server
	echo "#   $name: exit $st, $(json_num "$work/$name.json" bytes_received) bytes," \
		"zstd window 2^$(json_num "$work/$name.json" zstd_window_log)"
	[ $st -eq 0 ] && same_image "$work/$name.png" "$work/expected.png"
}

tap_check "both take zstd: exact" run both --
tap_check "  ... with the viewer's default 16 MiB window" test "$(json_num "$work/both.json" zstd_window_log)" = 24
tap_check "a viewer that offers no zstd (--zstd-window 0): exact" run oldviewer -- --zstd-window 0
tap_check "  ... over zlib" test "$(json_num "$work/oldviewer.json" zstd_window_log)" = 0
tap_check "a server that offers no zstd (--zstd-level 0): exact" run oldserver --zstd-level 0 --
tap_check "  ... over zlib" test "$(json_num "$work/oldserver.json" zstd_window_log)" = 0
tap_check "a viewer's 1 MiB window: exact" run small -- --zstd-window 1M
tap_check "  ... and honoured" test "$(json_num "$work/small.json" zstd_window_log)" = 20
tap_check "both take moves: the scrolls copied within the picture" test "$(json_num "$work/both.json" moves)" -gt 0
tap_check "a viewer that takes no moves (--no-moves): exact" run nomoves -- --no-moves
tap_check "  ... and sent none" test "$(json_num "$work/nomoves.json" moves)" = 0
tap_check "a server that sends no moves (--no-moves): exact" run nomovesrv --no-moves --
tap_check "  ... and sent none" test "$(json_num "$work/nomovesrv.json" moves)" = 0
zstd=$(json_num "$work/both.json" bytes_received)
zlib=$(json_num "$work/oldviewer.json" bytes_received)
echo "# zstd $zstd bytes, zlib $zlib bytes"
tap_check "zstd sends fewer bytes than zlib ($zstd < $zlib)" test "$zstd" -lt "$zlib"
tap_done
