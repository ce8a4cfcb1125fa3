#!/bin/sh
# varg-server --vnc in front of TigerVNC's Xvnc: a Varg viewer sees
# exactly what xwd reads from Xvnc's screen, a client's pointer and keys
# reach an X client on it, and the clipboard crosses both ways; a RandR
# resize of Xvnc's screen reaches a Varg and a stock viewer exactly. Then
# the same proxy in front of x11vnc sharing an Xvfb: exact image, input.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"
probe=$B/tests/vg_xprobe
input=$B/tests/vg_vncinput

tap_plan 14

tap_check "a VNC server that is not there fails cleanly" fails_cleanly 1 "$B/server/varg-server" --port 0 --vnc 127.0.0.1:64999
if ! command -v Xvnc >/dev/null || ! command -v xwd >/dev/null || ! command -v xclip >/dev/null; then
	for i in $(seq 1 13); do tap_skip "Xvnc, xwd and xclip are needed (scripts/setup)"; done
	exit 0
fi
start_xvnc 400x300 || exit 1
export DISPLAY=$XDPY
"$probe" log >"$work/probe.log" &
pids="$pids $!"
wait_line "$work/probe.log" ready
start_server proxy --vnc "127.0.0.1:$VNC_PORT" || exit 1
IDLE=2 viewer v1
wait "$pid_v1"
xwd -root -silent | xwdtopnm >"$work/screen.ppm" 2>/dev/null
tap_check "the Varg viewer's image equals Xvnc's screen" same_image "$work/v1.png" "$work/screen.ppm"

# input_arrives WHERE PROBE X Y: an input client moves to X,Y, clicks and
# types "xY" through the proxy; the X event log PROBE must show all three.
input_arrives() {
	"$input" "127.0.0.1:$PORT" move "$3" "$4" click 1 type 'xY' sleep 300
	tap_check "$1: the input client ran" test $? -eq 0
	sleep 0.5
	tap_check "$1: pointer and button arrived" \
		sh -c "grep -qx 'motion $3 $4' '$2' && grep -qx 'button 1 1 $3 $4' '$2'"
	tap_check "$1: keys arrived" \
		sh -c "grep -qx 'char 0x78' '$2' && grep -qx 'char 0x59' '$2'"
}
input_arrives "behind Xvnc" "$work/probe.log" 40 50

"$input" "127.0.0.1:$PORT" wait-cut 'from Xvnc' &
cut_pid=$!
sleep 0.7
printf 'from Xvnc' | xclip -selection clipboard -i
wait "$cut_pid"
tap_check "Xvnc's clipboard reaches a client through the proxy" test $? -eq 0
"$input" "127.0.0.1:$PORT" cut 'to Xvnc'
sleep 0.5
tap_check "a client's text reaches Xvnc's clipboard" test "$(timeout 5 xclip -selection clipboard -o)" = 'to Xvnc'

# The upstream screen resized with RandR while a Varg and a stock viewer
# watch through the proxy: both follow to the new size, exactly.
IDLE=3 viewer rv
IDLE=3 viewer rs --no-varg --encodings hextile
sleep 1
xrandr -s 800x600 2>&1 | sed 's/^/#   xrandr: /'
wait "$pid_rv"
st_rv=$?
wait "$pid_rs"
st_rs=$?
xwd -root -silent | xwdtopnm >"$work/resized.ppm" 2>/dev/null
echo "#   Xvnc's screen now: $(head -2 "$work/resized.ppm" | tail -1)"
# resized_ok STATUS NAME: the viewer ended well with the resized screen.
resized_ok() { [ "$1" -eq 0 ] && same_image "$work/$2.png" "$work/resized.ppm"; }
tap_check "Xvnc's screen was resized to 800x600" test "$(head -2 "$work/resized.ppm" | tail -1)" = "800 600"
tap_check "after Xvnc's RandR resize the Varg viewer equals its screen" resized_ok $st_rv rv
tap_check "after Xvnc's RandR resize the stock viewer equals its screen" resized_ok $st_rs rs
stop_server

# x11vnc sharing an Xvfb, behind the proxy.
if ! command -v x11vnc >/dev/null || ! command -v Xvfb >/dev/null; then
	for i in $(seq 1 4); do tap_skip "x11vnc and Xvfb are needed (scripts/setup)"; done
	tap_done
	exit $?
fi
start_xvfb 360x280 || exit 1
XD2=$XDPY
DISPLAY=$XD2 "$probe" log >"$work/probe2.log" &
pids="$pids $!"
wait_line "$work/probe2.log" ready
# -nocursor: x11vnc would paint the pointer into the picture xwd does not see.
start_x11vnc "$XD2" -nocursor || exit 1
# x11vnc listens before its first read of the screen, and a client that
# connects in between keeps a black picture until something changes
# there. The proxy's upstream connection lives on, so it must not be that
# client: wait until a direct stock client sees the screen.
x11vnc_serves_screen() {
	DISPLAY=$XD2 xwd -root -silent | xwdtopnm >"$work/screen2.ppm" 2>/dev/null
	for try in $(seq 1 20); do
		PORT=$X11VNC_PORT IDLE=1 viewer "d$try" --no-varg --encodings hextile
		eval wait "\$pid_d$try"
		if "$B/tests/vg_imgcmp" "$work/d$try.png" "$work/screen2.ppm" >/dev/null 2>&1; then
			[ "$try" -gt 1 ] && echo "# x11vnc served the screen to direct client $try"
			return 0
		fi
	done
	echo "# x11vnc never served the screen"
	return 1
}
x11vnc_serves_screen || exit 1
start_server proxy2 --vnc "127.0.0.1:$X11VNC_PORT" || exit 1
IDLE=3 viewer x1
wait "$pid_x1"
DISPLAY=$XD2 xwd -root -silent | xwdtopnm >"$work/screen2.ppm" 2>/dev/null
name="behind x11vnc: the Varg viewer's image equals the screen"
if same_image "$work/x1.png" "$work/screen2.ppm"; then
	tap_ok "$name"
else
	tap_not_ok "$name"
	for f in x1.log proxy2.out proxy2.err; do
		echo "# $f:"; tail -n 20 "$work/$f" | sed 's/^/#   /'
	done
	echo "# x11vnc:"; tail -n 20 "$work/x11vnc.log" | sed 's/^/#   /'
fi
input_arrives "behind x11vnc" "$work/probe2.log" 30 40
stop_server
tap_done
