#!/bin/sh
# The viewer's SDL window under Xvfb, against real servers: TigerVNC's Xvnc
# with an X client on its display that logs the keys and buttons it gets,
# x11vnc, and varg-server. Checks the window's pixels against the far
# screen, keys (shifted, non-Latin, function keys), clicks and wheel, the
# clipboard both ways, reconnection after the server restarts, a wrong
# password, a password file, and -via through an sshd on loopback.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_sshd.sh"
TRACE=${VG_TEST_TRACE:-$S/traces/samples/heatmap-scroll.vtr}
# Under LeakSanitizer, the used-suppressions report would add stderr lines.
[ -z "${LSAN_OPTIONS:-}" ] || export LSAN_OPTIONS="$LSAN_OPTIONS:print_suppressions=0"
tap_plan 33

for tool in Xvfb Xvnc x11vnc xdotool xwd convert xclip xrandr vncpasswd; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		for _ in $(seq 1 33); do tap_skip "$tool is not installed (scripts/setup)"; done
		exit 0
	fi
done

# free_display: a display number with no X server and a free VNC port.
free_display() {
	for d in $(shuf -i 20-99); do
		[ -e "/tmp/.X$d-lock" ] || [ -e "/tmp/.X11-unix/X$d" ] && continue
		ss -ltn 2>/dev/null | grep -q ":$((5900 + d)) " && continue
		echo "$d"
		return 0
	done
	return 1
}

# xvnc NAME LOGGER-ARGS ARGS...: an Xvnc server on a free display with a
# logging test client; sets DISP (display number).
xvnc() {
	name=$1; largs=$2; shift 2
	DISP=$(free_display) || return 1
	Xvnc ":$DISP" -geometry 800x600 -depth 24 -rfbport $((5900 + DISP)) -localhost \
		-nolisten tcp -AlwaysShared "$@" >"$work/$name.xvnc.log" 2>&1 &
	pids="$pids $!"
	wait_for 10 xdpyinfo_ok ":$DISP" || return 1
	# shellcheck disable=SC2086
	DISPLAY=":$DISP" "$B/tests/vg_xevlog" $largs >"$work/$name.ev" 2>&1 &
	pids="$pids $!"
	wait_for 10 grep -qs ready "$work/$name.ev"
}

xdpyinfo_ok() { DISPLAY=$1 xdotool getmouselocation >/dev/null 2>&1; }

# far_got NAME PATTERN: the far logger saw a line matching PATTERN.
far_got() { grep -Eq "$2" "$work/$1.ev"; }

# stop_viewer: SIGTERM, as a user's Ctrl-C; the exit status in VST.
stop_viewer() {
	kill "$VPID" 2>/dev/null
	wait "$VPID" 2>/dev/null
	VST=$?
}

# Each of these holds while every pattern has been logged on the far side.
keys_plain() { far_got far '^key press a$' && far_got far '^key press B$' && far_got far '^key press Shift_L$'; }
keys_other() {
	far_got far '^key press F5$' && far_got far '^key press Control_L$' &&
		far_got far '^key press c$' && far_got far '^key press Return$'
}
clicks() {
	far_got far '^button press 1 100 50$' && far_got far '^button release 1 100 50$' &&
		far_got far '^button press 3 100 50$'
}
dead_keys() { far_got far '^key press eacute$' && far_got far '^key press udiaeresis$'; }
wheel() { far_got far '^button press 4 ' && far_got far '^button press 5 '; }

# The near display, where the viewer's window lives.
start_xvfb 1280x1024 || exit 1
NEAR=$XDPY

# --- Xvnc, no authentication: pixels, keys, pointer, clipboard.
xvnc far --hand -SecurityTypes None || { echo "# Xvnc did not start"; sed 's/^/#   /' "$work/far.xvnc.log"; exit 1; }
FAR=":$DISP"
shot_root "$FAR" "$work/far.png"
window_viewer xvnc --record "$work/win.vtr" "localhost:$DISP"
tap_check "the window shows exactly Xvnc's screen (1:1)" window_ends "$work/far.png" 15

DISPLAY=$NEAR xdotool mousemove --window "$WID" 100 50
sleep 0.3
DISPLAY=$NEAR xdotool key --delay 50 a shift+b Cyrillic_a F5 ctrl+c Return
tap_check "plain and shifted keys arrive" wait_for 5 keys_plain
tap_check "a non-Latin keysym arrives" wait_for 5 far_got far '^key press (Cyrillic_a|U0430)$'
DISPLAY=$NEAR xdotool key --delay 50 dead_acute e dead_diaeresis u
tap_check "dead keys compose (é, ü)" wait_for 5 dead_keys
tap_check "function keys, Control chords and Return arrive" wait_for 5 keys_other
DISPLAY=$NEAR xdotool click 1 click 3
tap_check "clicks arrive where the pointer is" wait_for 5 clicks
DISPLAY=$NEAR xdotool click 4 click 5
tap_check "the wheel arrives" wait_for 5 wheel

# The far window's cursor (hand2) is the one shown over the viewer.
# Every opaque pixel of the far cursor is the same in the local one (RFB's
# 1-bit mask cannot carry the far cursor's translucent shadow).
cursor_same() {
	DISPLAY=$NEAR "$B/tests/vg_xcursor" --opaque | sort >"$work/cur-near"
	DISPLAY=$FAR "$B/tests/vg_xcursor" --opaque | sort >"$work/cur-far"
	[ -s "$work/cur-far" ] && [ -z "$(comm -13 "$work/cur-near" "$work/cur-far")" ]
}
cursor_shown() {
	wait_for 15 cursor_same && return 0
	echo "# far opaque pixels missing locally:"
	comm -13 "$work/cur-near" "$work/cur-far" | head -5 | sed 's/^/#   /'
	DISPLAY=$NEAR "$B/tests/vg_xcursor" picture | sed 's/^/#   near /'
	DISPLAY=$FAR "$B/tests/vg_xcursor" picture | sed 's/^/#   far /'
	return 1
}
tap_check "the server's cursor shape is the local pointer's" cursor_shown
DISPLAY=$NEAR xdotool mousemove 2 2
sleep 0.3
tap_check "and only over the window" test "$(DISPLAY=$NEAR "$B/tests/vg_xcursor" --opaque | sort)" != "$(cat "$work/cur-near")"
DISPLAY=$NEAR xdotool mousemove --window "$WID" 100 50

# Scaled to a smaller window, the pointer still lands on the right pixel.
DISPLAY=$NEAR xdotool windowsize "$WID" 400 300
sleep 0.5
DISPLAY=$NEAR xdotool mousemove --window "$WID" 150 100 click 2
tap_check "scaled to 400x300, a click lands at the same far pixel" wait_for 5 far_got far '^button press 2 300 200$'

printf 'from far away' | DISPLAY=$FAR xclip -selection clipboard -i 2>/dev/null
near_clip() { [ "$(DISPLAY=$NEAR xclip -o -selection clipboard 2>/dev/null)" = "$1" ]; }
far_clip() { [ "$(DISPLAY=$FAR xclip -o -selection clipboard 2>/dev/null)" = "$1" ]; }
tap_check "server clipboard reaches the viewer's display" wait_for 10 near_clip 'from far away'
printf 'near text, café' | DISPLAY=$NEAR xclip -selection clipboard -i 2>/dev/null
tap_check "viewer clipboard reaches the server (Latin-1)" wait_for 10 far_clip 'near text, café'
# The far desktop grows: the window follows, 1:1 again.
DISPLAY=$NEAR xdotool windowsize "$WID" 800 600
if DISPLAY=$FAR xrandr -s 1024x768 >/dev/null 2>&1; then
	sleep 0.5
	shot_root "$FAR" "$work/far-big.png"
	tap_check "after a desktop-size change the window shows the new size exactly" \
		window_ends "$work/far-big.png" 15
	DISPLAY=$FAR xrandr -s 800x600 >/dev/null 2>&1
else
	tap_skip "xrandr cannot resize Xvnc here"
fi
stop_viewer
exited_0() {
	[ "$VST" -eq 0 ] && return 0
	echo "# exit $VST:"; sed 's/^/#   /' "$work/xvnc.log" | tail -20
	return 1
}
tap_check "the viewer exits 0 when asked to stop" exited_0

# --record: the window's session is a trace holding the keys and clicks
# sent (KEY 'a' is keysym 97, button 1 is mask 1); a desktop-size change
# ends it, complete, as varg-trace record --vnc does.
"$B/tests/vg_tracedump" "$work/win.vtr" >"$work/win.dump" 2>&1
echo "# recorded: $(grep -c '^frame' "$work/win.dump") frames, $(grep -c '^pointer' "$work/win.dump") pointer, $(grep -c '^key' "$work/win.dump") key events"
win_trace_whole() {
	wt=$("$B/traces/varg-trace" info "$work/win.vtr" 2>&1) || { echo "# $wt"; return 1; }
	echo "$wt" | grep -E '^(geometry|records)' | sed 's/^/# /'
}
tap_check "the window's recording is a complete trace" win_trace_whole
tap_check "it holds the keys sent" grep -q '^key [0-9]* 97 1$' "$work/win.dump"
tap_check "and the pointer with a button down" grep -q '^pointer [0-9]* [0-9]* [0-9]* 1$' "$work/win.dump"

# --- view-only: the same keys and clicks go nowhere.
lines=$(wc -l <"$work/far.ev")
window_viewer viewonly -viewonly "localhost:$DISP"
shown=$?
# (Its picture holds Xvnc's cursor: a view-only viewer asks for no shape.)
sleep 2
DISPLAY=$NEAR xdotool mousemove --window "$WID" 30 30 click 1 key x
sleep 1
# Only a viewer that is connected and got the input can show it goes nowhere.
viewonly_quiet() {
	[ "$shown" -eq 0 ] && kill -0 "$VPID" 2>/dev/null && [ "$(wc -l <"$work/far.ev")" -eq "$lines" ]
}
tap_check "-viewonly sends no input" viewonly_quiet
stop_viewer

# --- x11vnc on the same display, a standard encoding, scaled to 1:1.
start_x11vnc "$FAR" -noxdamage
window_viewer x11vnc --no-varg --encodings zrle "localhost::$X11VNC_PORT"
tap_check "the window shows exactly x11vnc's screen (ZRLE)" window_ends "$work/far.png" 15
stop_viewer

# --- passwords: a wrong one, then the right one from a vncpasswd file.
echo "right-pw" | vncpasswd -f >"$work/right.pw"
echo "wrong-pw" | vncpasswd -f >"$work/wrong.pw"
chmod 600 "$work/right.pw" "$work/wrong.pw"
xvnc locked "" -SecurityTypes VncAuth -PasswordFile "$work/right.pw" || exit 1
LOCKED=$DISP
tap_check "wrong password: one clear line, exit 3" fails_saying 3 "authentication failed" \
	env DISPLAY=$NEAR SDL_VIDEODRIVER=x11 "$B/viewer/varg-viewer" -passwd "$work/wrong.pw" "localhost:$LOCKED"
shot_root ":$LOCKED" "$work/locked-ref.png"
"$B/viewer/varg-viewer" --headless -passwd "$work/right.pw" --exit-when-idle 2 \
	--snapshot "$work/locked.png" "localhost:$LOCKED" >"$work/locked.log" 2>&1
st=$?
tap_check "the right password from a vncpasswd file connects" test "$st" -eq 0 -a -s "$work/locked.png"
tap_check "and shows the locked server's screen" same_image "$work/locked.png" "$work/locked-ref.png"

# --- varg-server: the window ends exact, also across a server restart.
# A window manager from here on: full screen is its job.
wm=no
start_wm "$NEAR" && wm=yes
last_frame "$TRACE" "$work/expected.png" || exit 1
start_server varg --trace "$TRACE" --speed 0 --wait-clients 1 || exit 1
window_viewer varg --snapshot "$work/varg.png" --stats-json "$work/varg.json" "localhost::$PORT"
tap_check "Varg: the window ends with the trace's last frame" window_ends "$work/expected.png" 30
# F8 then s: the overlay covers part of the picture, and measures the round
# trip with Varg PINGs; F8 then s again: the picture is whole again.
overlay_shows() { ! window_matches "$work/expected.png"; }
# The server is frozen meanwhile: the window answers all the same.
kill -STOP "$SERVER_PID"
DISPLAY=$NEAR xdotool mousemove --window "$WID" 20 20 key F8 s
tap_check "F8 s shows the statistics overlay, even with the server frozen" wait_for 5 overlay_shows
kill -CONT "$SERVER_PID"
sleep 1.5
DISPLAY=$NEAR xdotool key F8 s
tap_check "F8 s again hides it" window_ends "$work/expected.png" 10
full_size() { [ "$(DISPLAY=$NEAR xdotool getwindowgeometry "$WID" | sed -n 's/.*Geometry: //p')" = "$1" ]; }
if [ "$wm" = yes ]; then
	DISPLAY=$NEAR xdotool key F8 f
	tap_check "F8 f: full screen" wait_for 5 full_size 1280x1024
	DISPLAY=$NEAR xdotool key F8 f
	tap_check "F8 f again: back to the frame's size" wait_for 5 full_size 1024x768
else
	tap_not_ok "F8 f: full screen (no window manager runs: scripts/setup installs evilwm)"
	tap_not_ok "F8 f again: back to the frame's size (no window manager runs)"
fi
stop_server
"$B/server/varg-server" --verbose --port "$PORT" --trace "$TRACE" --speed 0 --wait-clients 1 \
	>"$work/varg2.out" 2>"$work/varg2.err" &
SERVER_PID=$!
pids="$pids $SERVER_PID"
tap_check "the viewer reconnects after the server restarts" wait_for 20 grep -q 'reconnected' "$work/varg.log"
# The window still shows the first server's last frame: wait for the
# second to play its trace through before looking.
wait_for 60 grep -q 'trace played' "$work/varg2.err"
ends_again() {
	window_ends "$work/expected.png" 30 && return 0
	sed 's/^/# server: /' "$work/varg2.err" | tail -5
	sed 's/^/# viewer: /' "$work/varg.log" | tail -5
	return 1
}
tap_check "and ends exact again" ends_again
stop_viewer
tap_check "its snapshot at exit is exact too" same_image "$work/varg.png" "$work/expected.png"
# With the overlay on from the start, the viewer measures the round trip.
window_viewer rtt --stats --stats-json "$work/rtt.json" "localhost::$PORT"
sleep 3
stop_viewer
rtt=$(sed -n 's/.*"rtt_ms": *\([0-9.-]*\).*/\1/p' "$work/rtt.json")
echo "# round trip measured by PING/PONG: $rtt ms"
tap_check "the overlay's PING got its PONG (rtt_ms >= 0)" awk -v r="${rtt:--1}" 'BEGIN { exit !(r >= 0) }'

# --- -via: through an sshd started here on loopback.
via_ok=no
start_sshd && via_ok=yes
if [ "$via_ok" = yes ]; then
	VARG_VIA_SSH="$SSH_CMD" \
		"$B/viewer/varg-viewer" --headless -via "$(id -un)@127.0.0.1" --exit-when-idle 3 \
		--snapshot "$work/via.png" --cache-dir "$work/cache-via" "localhost::$PORT" >"$work/via.log" 2>&1
	st=$?
	sed 's/^/# via: /' "$work/via.log"
	via_exact() { test "$st" -eq 0 -a -s "$work/via.png" && same_image "$work/via.png" "$work/expected.png"; }
	tap_check "-via: through the SSH tunnel the viewer ends exact" via_exact
	tap_check "-via: no ssh is left behind" test -z "$(pgrep -f -- "-L 127.0.0.1:[0-9]*:localhost:$PORT " 2>/dev/null)"
else
	tap_skip "-via: no sshd could be started on loopback"
	tap_skip "-via: no sshd could be started on loopback"
fi
tap_done
