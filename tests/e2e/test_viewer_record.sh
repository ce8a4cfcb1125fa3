#!/bin/sh
# varg-viewer --record on real processes: varg-server plays the bundled
# TreeView session to a headless viewer that records it, once over Varg
# and once over plain ZRLE; the recorded trace must end with exactly the
# session's last frame. SIGINT in the middle leaves a complete trace, bad
# paths and a full disk fail with one line, and cursor shapes recorded
# from Xvfb travel through server and viewer into the viewer's trace.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"
TRACE=${VG_TEST_TRACE:-$S/traces/samples/treeview-scroll.vtr}
vt=$B/traces/varg-trace
dump=$B/tests/vg_tracedump
tap_plan 24

# last_hash TRACE: the frame hash of the trace's last frame record.
last_hash() { "$dump" "$1" | awk '$1 == "frame" { h = $4 } END { print h }'; }
frames() { "$dump" "$1" | grep -c '^frame'; }
# reads_whole TRACE: varg-trace info reads it to its end record.
reads_whole() { "$vt" info "$1" >"$1.info" 2>&1 || { sed 's/^/#   /' "$1.info"; return 1; }; }

last_frame "$TRACE" "$work/expected.png" || { tap_not_ok "export the session's last frame"; exit 1; }
want_hash=$(last_hash "$TRACE")
src_frames=$(frames "$TRACE")

# record_session NAME ARGS...: plays the session at full speed to one
# recording viewer; its trace is $work/NAME.vtr.
record_session() {
	rs=$1; shift
	start_server "$rs-server" --trace "$TRACE" --speed 0 --wait-clients 1 --pace-timeout 5000 || return 1
	viewer "$rs" --record "$work/$rs.vtr" "$@"
	eval wait "\$pid_$rs"
	st=$?
	stop_server
	[ "$st" -eq 0 ] || { echo "# viewer exit $st:"; sed 's/^/#   /' "$work/$rs.log"; return 1; }
}

# check_recording NAME: the trace reads to its end record, its last frame
# is the session's (hash and exported image), and it has a sane number of
# frames: at least two, at most one per update the session holds, twice.
check_recording() {
	cr=$1
	tap_check "$cr: the recorded trace reads whole (varg-trace info)" reads_whole "$work/$cr.vtr"
	got=$(last_hash "$work/$cr.vtr")
	echo "# $cr: $(frames "$work/$cr.vtr") frames recorded of $src_frames, last hash $got, want $want_hash"
	tap_check "$cr: last recorded frame has the session's last frame hash" test "$got" = "$want_hash"
	last_frame "$work/$cr.vtr" "$work/$cr-last.png"
	tap_check "$cr: exported last frame equals the session's exported last frame" \
		same_image "$work/$cr-last.png" "$work/expected.png"
	n=$(frames "$work/$cr.vtr")
	tap_check "$cr: frame count is sane ($n of $src_frames)" test "$n" -ge 2 -a "$n" -le $((2 * src_frames))
}

tap_check "Varg viewer records the session" record_session varg
check_recording varg
tap_check "ZRLE viewer (--no-varg) records the session" record_session zrle --no-varg --encodings zrle
check_recording zrle

# SIGINT after a few seconds of a real-time play: a complete trace whose
# last frame is one of the session's frames.
start_server live --trace "$TRACE" --speed 1 --wait-clients 1 || exit 1
IDLE=60 viewer live --record "$work/live.vtr"
sleep 4
kill -INT "$pid_live"
wait "$pid_live"
st=$?
stop_server
tap_check "SIGINT ends the recording viewer with status 0" test "$st" -eq 0
tap_check "the interrupted recording is a complete trace" reads_whole "$work/live.vtr"
got=$(last_hash "$work/live.vtr")
echo "# interrupted: $(frames "$work/live.vtr") frames, last hash $got"
tap_check "its last frame is one of the session's frames" \
	sh -c "'$dump' '$TRACE' | grep -q '^frame .* $got\$'"

# Bad paths fail at once; a full disk fails with one line and status 1.
tap_check "an unwritable --record path is one error, status 1" \
	fails_saying 1 "--record: cannot create" "$B/viewer/varg-viewer" --headless --record "$work/no/such/dir/x.vtr" localhost::5999
start_server full --trace "$TRACE" --speed 0 --wait-clients 1 || exit 1
tap_check "a full disk (/dev/full) is one error, status 1" \
	fails_cleanly 1 "$B/viewer/varg-viewer" --headless --no-persistent-cache --exit-when-idle 5 \
	--record /dev/full "localhost::$PORT"
stop_server

# Cursor shapes: recorded from Xvfb while a window with the hand2 cursor
# comes up under the pointer, played by varg-server as a rich cursor,
# recorded again by the viewer.
if ! command -v Xvfb >/dev/null || ! command -v xdotool >/dev/null; then
	for _ in 1 2 3 4 5 6 7 8 9; do tap_skip "Xvfb and xdotool are needed (scripts/setup)"; done
	exit 0
fi
start_xvfb 320x240 || exit 1
"$vt" record --display "$XDPY" --no-input -q -o "$work/x.vtr" 2>"$work/x.err" &
xrec=$!
sleep 1
DISPLAY=$XDPY "$B/tests/vg_xevlog" --hand >"$work/xev.log" 2>&1 &
pids="$pids $!"
wait_line "$work/xev.log" ready
DISPLAY=$XDPY xdotool mousemove 100 100 2>/dev/null
sleep 1
kill -INT "$xrec"
wait "$xrec"
"$dump" "$work/x.vtr" >"$work/x.dump"
echo "# from Xvfb: $(grep -c '^cursor' "$work/x.dump") cursor records; last: $(grep '^cursor' "$work/x.dump" | tail -1)"
tap_check "varg-trace record --display writes cursor records" \
	test "$(grep -c '^cursor' "$work/x.dump")" -ge 2
reads_whole "$work/x.vtr"
tap_check "varg-trace info counts them" grep -q "cursor [1-9]" "$work/x.vtr.info"

TRACE=$work/x.vtr
tap_check "a viewer records the played trace" record_session xcur
"$dump" "$work/xcur.vtr" >"$work/xcur.dump"
echo "# viewer's last cursor: $(grep '^cursor' "$work/xcur.dump" | tail -1)"
# Size and hot spot survive; RFB's 1-bit mask keeps at least one opaque pixel.
shape() { grep '^cursor' "$1" | tail -1 | awk '{ print $3, $4, $5, $6 }'; }
tap_check "the viewer's trace holds the server's cursor: same size and hot spot" \
	test -n "$(shape "$work/xcur.dump")" -a "$(shape "$work/xcur.dump")" = "$(shape "$work/x.dump")"
tap_check "with opaque pixels" test "$(grep '^cursor' "$work/xcur.dump" | tail -1 | awk '{ print $7 }')" -gt 0
# Over Varg the shapes come as CURSOR messages, with their alpha: the
# viewer's last shape is the trace's pixel for pixel, and no rich cursor
# came. A viewer without Varg still gets rich cursors.
cursors() { sed -n 's/.*"cursors": { "varg": \([0-9]*\), "rich": \([0-9]*\) }.*/\1 \2/p' "$1"; }
pixhash() { grep '^cursor' "$1" | tail -1 | awk '{ print $8 }'; }
echo "# Varg viewer's cursors (CURSOR, rich): $(cursors "$work/xcur.json")"
tap_check "over Varg the shapes came as CURSOR messages, no rich cursor" \
	test "$(cursors "$work/xcur.json" | awk '$1 >= 1 && $2 == 0 { print "yes" }')" = yes
tap_check "the viewer's last shape is the trace's, pixel for pixel" \
	test -n "$(pixhash "$work/x.dump")" -a "$(pixhash "$work/xcur.dump")" = "$(pixhash "$work/x.dump")"
tap_check "a viewer without Varg records the played trace" record_session xrich --no-varg
"$dump" "$work/xrich.vtr" >"$work/xrich.dump"
echo "# plain viewer's cursors (CURSOR, rich): $(cursors "$work/xrich.json"); last: $(grep '^cursor' "$work/xrich.dump" | tail -1)"
tap_check "without Varg the shapes came as rich cursors: same size and hot spot" \
	test "$(cursors "$work/xrich.json" | awk '$1 == 0 && $2 >= 1 { print "yes" }')" = yes -a \
	"$(shape "$work/xrich.dump")" = "$(shape "$work/x.dump")"
