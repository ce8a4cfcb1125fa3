#!/bin/sh
# varg-trace import --fbs against real captures: a recorder in the middle
# (tests/vg_fbsproxy, as rfbproxy does) writes what TigerVNC's Xvnc sends
# to a real viewer while an X client scrolls, once per encoding; the
# imported trace's last frame must equal the server's screen (xwd) and the
# viewer's. Damaged and foreign files give one clear error.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"
vt=$B/traces/varg-trace
encodings="raw copyrect rre hextile zlib zrle tight"

tap_plan 31

if ! command -v Xvnc >/dev/null || ! command -v xwd >/dev/null; then
	for i in $(seq 1 31); do tap_skip "Xvnc and xwd are needed (scripts/setup)"; done
	exit 0
fi

start_xvnc 480x320 || { echo "Bail out! Xvnc did not start"; exit 1; }
export DISPLAY=$XDPY

# capture NAME ENC PORT: records a viewer's session with the server on
# PORT (showing $DISPLAY) through the proxy while the probe scrolls;
# leaves NAME.fbs, NAME-viewer.png and NAME-screen.ppm.
capture() {
	cn=$1 enc=$2 server_port=$3
	"$B/tests/vg_fbsproxy" 0 127.0.0.1 "$server_port" "$work/$cn.fbs" >"$work/$cn.port" &
	proxy=$!
	pids="$pids $proxy"
	port=""
	for _ in $(seq 1 50); do
		port=$(sed -n 's/^port //p' "$work/$cn.port")
		[ -n "$port" ] && break
		sleep 0.1
	done
	timeout 60 "$B/viewer/varg-viewer" --headless --no-varg --encodings "$enc" --exit-when-idle 2 \
		--snapshot "$work/$cn-viewer.png" -q "localhost::$port" 2>"$work/$cn-viewer.err" &
	viewer=$!
	sleep 0.5
	"$B/tests/vg_xprobe" draw 12 60 >"$work/$cn.probe" &
	probe=$!
	wait "$viewer"
	st=$?
	xwd -root -silent | xwdtopnm >"$work/$cn-screen.ppm" 2>/dev/null
	kill "$probe" 2>/dev/null
	wait "$probe" 2>/dev/null
	wait "$proxy" 2>/dev/null
	[ "$st" -eq 0 ] && return 0
	sed 's/^/#   /' "$work/$cn-viewer.err"
	case "$cn" in x11vnc-*) tail -5 "$work/x11vnc.log" | sed 's/^/#   x11vnc: /' ;; esac
	return 1
}

# check NAME ENC: imports NAME.fbs and compares its last frame.
check() {
	cn=$1 enc=$2
	if "$vt" import --quiet --fbs "$work/$cn.fbs" -o "$work/$cn.vtr" 2>"$work/$cn.import.err" &&
	   last_frame "$work/$cn.vtr" "$work/$cn-last.png"; then
		frames=$("$B/tests/vg_tracedump" "$work/$cn.vtr" | grep -c '^frame')
		tap_check "$cn: the capture imports, $frames frames" test "$frames" -ge 5
		tap_check "$cn: last frame equals the server's screen" same_image "$work/$cn-last.png" "$work/$cn-screen.ppm"
		tap_check "$cn: last frame equals the viewer's" same_image "$work/$cn-last.png" "$work/$cn-viewer.png"
	else
		sed 's/^/#   /' "$work/$cn.import.err"
		tap_not_ok "$cn: the capture imports"
		tap_not_ok "$cn: last frame equals the server's screen"
		tap_not_ok "$cn: last frame equals the viewer's"
	fi
}

for enc in $encodings; do
	capture "xvnc-$enc" "$enc" "$VNC_PORT"
	check "xvnc-$enc" "$enc"
done

# TigerVNC has no Zlib encoding; x11vnc (LibVNCServer) on Xvfb has, and
# its own Tight and its own pseudo-encodings.
if command -v x11vnc >/dev/null && command -v Xvfb >/dev/null; then
	start_xvfb 480x320 || exit 1
	export DISPLAY=$XDPY
	x_port=""
	start_x11vnc "$XDPY" -nocursor && x_port=$X11VNC_PORT
	for enc in zlib tight; do
		if [ -n "$x_port" ]; then
			capture "x11vnc-$enc" "$enc" "$x_port"
			check "x11vnc-$enc" "$enc"
		else
			for i in 1 2 3; do tap_not_ok "x11vnc did not start"; done
		fi
	done
else
	for i in $(seq 1 6); do tap_skip "x11vnc and Xvfb are needed (scripts/setup)"; done
fi

# A capture cut inside a block keeps what comes before, with a warning.
size=$(stat -c %s "$work/xvnc-zrle.fbs")
head -c $((size - 7)) "$work/xvnc-zrle.fbs" >"$work/cut.fbs"
"$vt" import --quiet --fbs "$work/cut.fbs" -o "$work/cut.vtr" 2>"$work/cut.err"
tap_check "a cut capture imports what comes before the cut" \
	sh -c "[ $? -eq 0 ] && grep -q 'ends inside the block' '$work/cut.err' && '$vt' info '$work/cut.vtr' >/dev/null"
printf 'FBS 001.000\n\0\0\0\30RFB 003.008\n\1\2XXXXXXXXXX\0\0\0\0' >"$work/bad.fbs"
tap_check "a stream that is not what it claims fails cleanly" fails_cleanly 1 "$vt" import --quiet --fbs "$work/bad.fbs" -o "$work/bad.vtr"
tap_check "a PNG is not an FBS file" fails_cleanly 1 "$vt" import --quiet --fbs "$work/xvnc-raw-viewer.png" -o "$work/bad.vtr"
tap_check "no output is left after a failed import" test ! -e "$work/bad.vtr"
tap_done
