#!/bin/sh
# Cursor shapes through the VNC mirror, which asks for them, from
# TigerVNC's Xvnc showing a window with the hand2 cursor. Xvnc sends a
# client the shape while the pointer is where that client last put it
# (elsewhere it paints the pointer into the picture): a recorder that
# sends no input has it at 0,0, a proxy's clients move it through the
# proxy. varg-trace record --vnc writes the hand as record --display of
# the same X display sees it (Xvnc crops a cursor to what is not
# transparent and dithers its alpha into RFB's 1-bit mask), and
# varg-server --vnc forwards the same shape to a Varg and a stock
# viewer, whose recordings hold it.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"
vt=$B/traces/varg-trace
dump=$B/tests/vg_tracedump
input=$B/tests/vg_vncinput

tap_plan 9

if ! command -v Xvnc >/dev/null || ! command -v xdotool >/dev/null || ! command -v xwd >/dev/null; then
	for _ in $(seq 1 9); do tap_skip "Xvnc, xdotool and xwd are needed (scripts/setup)"; done
	exit 0
fi

# shape DUMP: the last cursor record's size, hot spot, opaque pixels and
# pixels' hash; geometry DUMP: the same without the hash.
shape() { grep '^cursor' "$1" | tail -1 | awk '{ print $3, $4, $5, $6, $7, $8 }'; }
geometry() { grep '^cursor' "$1" | tail -1 | awk '{ print $3, $4, $5, $6, $7 }'; }
count() { grep -c '^cursor' "$1"; }
# cropped_from SMALL BIG: SMALL (w h hx hy opaque) is a crop of BIG with
# the hot spot on the same pixel, and has opaque pixels.
cropped_from() {
	set -- $1 $2
	[ $# -eq 10 ] && [ "$1" -le "$6" ] && [ "$2" -le "$7" ] && [ "$3" -le "$8" ] &&
		[ "$4" -le "$9" ] && [ $(($8 - $3 + $1)) -le "$6" ] && [ $(($9 - $4 + $2)) -le "$7" ] &&
		[ "$5" -gt 0 ]
}

start_xvnc 320x240 || exit 1
DISPLAY=$XDPY "$B/tests/vg_xevlog" --hand >"$work/xev.log" 2>&1 &
pids="$pids $!"
wait_line "$work/xev.log" ready
"$vt" record --display "$XDPY" --no-input -q -o "$work/x.vtr" 2>"$work/x.err" &
xrec=$!
"$vt" record --vnc "localhost:$VNC_PORT" -q -o "$work/v.vtr" 2>"$work/v.err" &
vrec=$!
sleep 1
DISPLAY=$XDPY xdotool mousemove 0 0 2>/dev/null
sleep 1.5
kill -INT "$xrec" "$vrec"
wait "$xrec"
xst=$?
wait "$vrec"
vst=$?
tap_check "record --display and record --vnc of Xvnc stop cleanly" test "$xst" -eq 0 -a "$vst" -eq 0
"$dump" "$work/x.vtr" >"$work/x.dump"
"$dump" "$work/v.vtr" >"$work/v.dump"
echo "# --display: $(count "$work/x.dump") cursor records; last: $(shape "$work/x.dump")"
echo "# --vnc: $(count "$work/v.dump") cursor records; last: $(shape "$work/v.dump")"
tap_check "record --vnc writes cursor records" test "$(count "$work/v.dump")" -ge 1
tap_check "its last is --display's hand, cropped, hot spot on the same pixel" \
	cropped_from "$(geometry "$work/v.dump")" "$(geometry "$work/x.dump")"
"$vt" info "$work/v.vtr" >"$work/v.info" 2>&1
tap_check "varg-trace info counts them" grep -q "cursor [1-9]" "$work/v.info"

# Through varg-server --vnc, the pointer moved by a client of the proxy.
start_server proxy --vnc "127.0.0.1:$VNC_PORT" || exit 1
IDLE=3 viewer vv --record "$work/vv.vtr"
IDLE=3 viewer vs --record "$work/vs.vtr" --no-varg --encodings hextile
sleep 0.5
"$input" "127.0.0.1:$PORT" move 100 100 sleep 300
tap_check "a client moved the pointer through the proxy" test $? -eq 0
wait "$pid_vv"
vvst=$?
wait "$pid_vs"
vsst=$?
stop_server
tap_check "a Varg and a stock viewer record through varg-server --vnc" test "$vvst" -eq 0 -a "$vsst" -eq 0
"$dump" "$work/vv.vtr" >"$work/vv.dump"
"$dump" "$work/vs.vtr" >"$work/vs.dump"
echo "# Varg viewer: $(count "$work/vv.dump") cursor records, last: $(shape "$work/vv.dump")"
echo "# stock viewer: $(count "$work/vs.dump") cursor records, last: $(shape "$work/vs.dump")"
# What came through the 1-bit mask once crosses it again unchanged.
tap_check "the Varg viewer got Xvnc's hand: record --vnc's size, hot spot and pixels" \
	test -n "$(shape "$work/vv.dump")" -a "$(shape "$work/vv.dump")" = "$(shape "$work/v.dump")"
tap_check "the stock viewer got it too" \
	test -n "$(shape "$work/vs.dump")" -a "$(shape "$work/vs.dump")" = "$(shape "$work/v.dump")"
last_frame "$work/vv.vtr" "$work/vv-last.png"
DISPLAY=$XDPY xwd -root -silent | xwdtopnm >"$work/screen.ppm" 2>/dev/null
tap_check "the pointer is not painted into the picture: the viewer's equals Xvnc's screen" \
	same_image "$work/vv-last.png" "$work/screen.ppm"
tap_done
