#!/bin/sh
# Progressive refinement end to end: a server with --refine-ms that finds
# the link slow (VARG_TEST_LINK_RATE makes loopback look like one) shows
# large missed regions approximately first, then exactly; every picture
# ends exact. A viewer that asks for exact pixels only (--lossless-only, as
# an older viewer) and a server without --refine-ms get no approximation.
# By default instead, large updates that would miss the first-paint
# target go in bands, all exact, and scrolls meanwhile still move; a
# target they meet whole, or --band-ms 0, sends them whole. The pixel
# model codes new pixels where the link's rate makes it pay: over the slow
# link, not over a fast one.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
IDLE=${IDLE:-2}
tap_plan 24

# run NAME TRACE RATE SERVER-ARGS -- VIEWER-ARGS: the trace played to one
# viewer as if the link carried RATE bytes/s; says what was approximate.
run() {
	name=$1 trace=$2 rate=$3; shift 3
	sargs=""
	while [ "$1" != -- ]; do sargs="$sargs $1"; shift; done
	shift
	last_frame "$trace" "$work/$name.expected.png" || return 1
	# shellcheck disable=SC2086
	VARG_TEST_LINK_RATE=$rate start_server "$name" --trace "$trace" --speed 0 --wait-clients 1 \
		--update-log "$work/$name.ulog" $sargs || return 1
	viewer "$name" "$@"
	eval wait "\$pid_$name"
	st=$?
	stop_server
	echo "#   $name: exit $st, $(json_num "$work/$name.json" bytes_received) bytes," \
		"$(json_num "$work/$name.json" messages) approximations," \
		"$(json_num "$work/$name.json" moved_pixels) pixels moved," \
		"$(awk '$4 > 0 { n += $4 } END { print n + 0 }' "$work/$name.ulog") pixels approximate"
	[ $st -eq 0 ] && same_image "$work/$name.png" "$work/$name.expected.png"
}
approximations() { json_num "$work/$1.json" messages; }
# by_model NAME: "N M" when the server coded the new pixels of N of M
# updates by the pixel model, "0 0" when by none.
by_model() {
	sed -n 's/.*pixels of \([0-9]*\) of \([0-9]*\) updates by the pixel model.*/\1 \2/p' \
		"$work/$1.err" | tail -1 | grep . || echo "0 0"
}

TV=$S/traces/samples/treeview-scroll.vtr
HM=$S/traces/samples/heatmap-scroll.vtr
tap_check "TreeView over a 20 kB/s link: exact" run tv "$TV" 20000 --refine-ms 100 --
tap_check "  ... after approximations" test "$(approximations tv)" -gt 0
tap_check "  ... none left at the end" test "$(json_num "$work/tv.json" pixels_now)" = 0
tap_check "  ... and timed" test "$(json_num "$work/tv.json" periods)" -gt 0
tap_check "heat map over a 5 kB/s link: exact" run hm "$HM" 5000 --refine-ms 100 --
tap_check "  ... after approximations" test "$(approximations hm)" -gt 0
tap_check "a viewer that takes exact pixels only: exact" run lossless "$TV" 20000 --refine-ms 100 -- --lossless-only
tap_check "  ... and got no approximation" test "$(approximations lossless)" = 0
tap_check "a server with neither --refine-ms nor bands: exact" run off "$TV" 20000 --band-ms 0 --
tap_check "  ... and sent no approximation" test "$(approximations off)" = 0
tap_check "  ... nor bands" sh -c "! grep -q 'updates banded' '$work/off.err'"
# Bands, by default: the same link, the missed pixels of large updates
# sent in parts.
tap_check "heat map over a 20 kB/s link in bands: exact" run band "$HM" 20000 --
tap_check "  ... in bands" grep -q 'updates banded' "$work/band.err"
tap_check "  ... and no approximation" test "$(approximations band)" = 0
bm=$(by_model band)
echo "#   new pixels by the pixel model in $bm updates"
tap_check "  ... most by the pixel model" test $((${bm% *} * 2)) -gt "${bm#* }"
tap_check "  ... and to a viewer that takes exact pixels only: exact" \
	run lossband "$HM" 20000 -- --lossless-only
tap_check "  ... in bands" grep -q 'updates banded' "$work/lossband.err"
# A scroll while a band's rest is owed still moves what the viewer holds,
# and carries what it owes along: as many pixels moved as without bands.
tap_check "heat map over a 20 kB/s link whole: exact" run whole "$HM" 20000 --band-ms 0 --
moved() { json_num "$work/$1.json" moved_pixels; }
tap_check "  ... bands moved as much" test "$(moved band)" -ge "$(($(moved whole) * 95 / 100))"
# Every update reaches the viewer within a minute's target: none banded.
tap_check "a first-paint target that whole updates meet: exact" \
	run target "$HM" 20000 --first-paint-ms 60000 --
tap_check "  ... and no bands" sh -c "! grep -q 'updates banded' '$work/target.err'"
# A link of a gigabyte a second: the literal methods, the model only tried.
# The chooser goes by measured times, and the model is near the line at
# this rate: on a busy machine 3 to 10 of 79 updates went by it (with the
# model chosen, 78 to 80 of 79 to 81), so "few" is a quarter at most.
tap_check "heat map over a 1 GB/s link: exact" run fast "$HM" 1000000000 --
bm=$(by_model fast)
echo "#   new pixels by the pixel model in $bm updates"
tap_check "  ... few by the pixel model" test $((${bm% *} * 4)) -le "${bm#* }"
tap_check "  ... the rest by the literal methods, timed" \
	grep -q 'the literal methods [0-9.]* ns' "$work/fast.err"
tap_done
