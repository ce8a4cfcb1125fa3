#!/bin/sh
# The coder of Varg updates end to end (protocol 1.0): zstd with the
# viewer's window, a small window honoured; the pixel model is the
# server's choice (--pixel-model) unless the viewer is lean (--lean);
# MOVE runs come from a server that sends them (--no-moves: none); every
# picture ends exact.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
TRACE=${VG_TEST_TRACE:-$S/traces/samples/treeview-scroll.vtr}
IDLE=${IDLE:-2}
tap_plan 13

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

tap_check "defaults: exact" run both --
tap_check "  ... with the viewer's default 16 MiB window" test "$(json_num "$work/both.json" zstd_window_log)" = 24
tap_check "a viewer's 1 MiB window: exact" run small -- --zstd-window 1M
tap_check "  ... and honoured" test "$(json_num "$work/small.json" zstd_window_log)" = 20
tap_check "the scrolls copied within the picture" test "$(json_num "$work/both.json" moves)" -gt 0
tap_check "a server that sends no moves (--no-moves): exact" run nomovesrv --no-moves --
tap_check "  ... and sent none" test "$(json_num "$work/nomovesrv.json" moves)" = 0
tap_check "the pixel model (--pixel-model on): exact" run model --pixel-model on --
tap_check "  ... and used" grep -q "updates by the pixel model" "$work/model.err"
tap_check "the pixel model to a lean viewer (--lean): exact" run lean --pixel-model on --zstd-level 9 -- --lean
tap_check "  ... and not used" sh -c '! grep -q "updates by the pixel model" "$1"' - "$work/lean.err"
# The trace plays at full speed, so every run sends the same updates; the
# literal methods' bytes and the lean viewer's match. The zstd level is
# set: by default it follows the round trip a loaded machine stretches.
tap_check "the literal methods (--pixel-model off): exact" run lit --pixel-model off --zstd-level 9 --
# Varg rectangles' bytes: the wire's also count round-trip probes, whose
# number follows the machine's load.
lit=$(json_num "$work/lit.json" varg_bytes)
lean=$(json_num "$work/lean.json" varg_bytes)
model=$(json_num "$work/model.json" varg_bytes)
echo "# Varg bytes: literal methods $lit, lean viewer $lean, pixel model $model"
tap_check "the lean viewer got the literal methods' bytes ($lean = $lit)" test "$lean" = "$lit"
tap_done
