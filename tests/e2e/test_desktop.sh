#!/bin/sh
# varg-server --display on a real Xvfb with real X clients: a Varg viewer
# and a stock LibVNCClient viewer see exactly what xwd reads; pointer,
# buttons and keys sent by a VNC client (shifted and non-Latin ones too)
# reach an X client; the clipboard crosses both ways; a RandR size change
# reaches a connected viewer; passwords and view-only are enforced.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"
probe=$B/tests/vg_xprobe
input=$B/tests/vg_vncinput

tap_plan 20

if ! command -v Xvfb >/dev/null || ! command -v xwd >/dev/null || ! command -v xterm >/dev/null ||
   ! command -v xclip >/dev/null || ! command -v xrandr >/dev/null || ! command -v vncpasswd >/dev/null; then
	for i in $(seq 1 20); do tap_skip "Xvfb, xwd, xterm, xclip, xrandr and vncpasswd are needed (scripts/setup)"; done
	exit 0
fi
# 800x600 so that RandR can make it smaller later (Xvfb cannot grow).
start_xvfb 800x600 || exit 1
export DISPLAY=$XDPY
screenshot() { xwd -root -silent | xwdtopnm >"$1" 2>/dev/null; }

tap_check "no source is a usage error" fails_cleanly 2 "$B/server/varg-server"
tap_check "two sources are a usage error" fails_cleanly 2 "$B/server/varg-server" --display "$XDPY" --vnc localhost:1

xterm -geometry 50x10+20+30 -fa '' -e sh -c 'echo varg shares this; sleep 300' 2>/dev/null &
pids="$pids $!"
sleep 1
start_server x --display "$XDPY" --stats-json "$work/stats.json" || exit 1
x_pid=$SERVER_PID
IDLE=2 viewer v1
wait "$pid_v1"
tap_check "the Varg viewer got the screen" test $? -eq 0
screenshot "$work/screen1.ppm"
tap_check "the Varg viewer's image equals xwd's" same_image "$work/v1.png" "$work/screen1.ppm"
IDLE=2 viewer s1 --no-varg --encodings "hextile zlib"
wait "$pid_s1"
tap_check "a stock viewer's image equals xwd's" same_image "$work/s1.png" "$work/screen1.ppm"

# Input: the probe's window covers the screen and logs what it gets.
"$probe" log >"$work/probe.log" &
probe_pid=$!
pids="$pids $probe_pid"
wait_line "$work/probe.log" ready
"$input" "127.0.0.1:$PORT" move 100 120 click 1 move 300 200 click 3 click 4 type 'aB!' key 0x6c1 key 0xff0d sleep 300
tap_check "the input client ran" test $? -eq 0
sleep 0.5
tap_check "pointer motion arrived" grep -qx 'motion 100 120' "$work/probe.log"
tap_check "button 1 pressed and released at (100, 120)" \
	sh -c "grep -qx 'button 1 1 100 120' '$work/probe.log' && grep -qx 'button 1 0 100 120' '$work/probe.log'"
tap_check "button 3 and the wheel (4) at (300, 200)" \
	sh -c "grep -qx 'button 3 1 300 200' '$work/probe.log' && grep -qx 'button 4 1 300 200' '$work/probe.log'"
tap_check "plain, shifted and Shift-needing characters typed (a B !)" \
	sh -c "grep -x 'char 0x[0-9a-f]*' '$work/probe.log' | grep -v 'char 0xffe[12]' | head -3 | tr '\n' ' ' |
	       grep -qx 'char 0x61 char 0x42 char 0x21 '"
tap_check "a keysym with no key (Cyrillic a) through a spare keycode" grep -qx 'char 0x6c1' "$work/probe.log"
tap_check "Return" grep -qx 'char 0xff0d' "$work/probe.log"

# Clipboard, both ways.
"$input" "127.0.0.1:$PORT" wait-cut 'from X' &
cut_pid=$!
sleep 0.7
printf 'from X' | xclip -selection clipboard -i
wait "$cut_pid"
tap_check "X clipboard text reaches a VNC client" test $? -eq 0
"$input" "127.0.0.1:$PORT" cut 'from the viewer'
sleep 0.5
tap_check "a VNC client's text reaches the X clipboard" \
	test "$(timeout 5 xclip -selection clipboard -o)" = 'from the viewer'
kill "$probe_pid"

# RandR: the screen gets smaller while a Varg viewer is connected.
IDLE=4 viewer v2
sleep 1.5
xrandr --fb 640x480 >/dev/null 2>&1
sleep 0.5
xterm -geometry 30x5+200+100 -e sh -c 'echo after the resize; sleep 300' 2>/dev/null &
pids="$pids $!"
wait "$pid_v2"
screenshot "$work/screen2.ppm"
tap_check "the connected viewer followed the resize to 640x480" same_image "$work/v2.png" "$work/screen2.ppm"
kill "$x_pid"
wait "$x_pid"
tap_check "SIGTERM ends the server cleanly" test $? -eq 0
tap_check "--stats-json counts the clients and a resize" \
	sh -c "[ \"\$(sed -n 's/.*\"clients_total\": \([0-9]*\).*/\1/p' '$work/stats.json')\" -ge 5 ] &&
	       grep -q '\"resizes\": 1' '$work/stats.json'"

# Passwords: a full one and a view-only one.
echo full-pw | vncpasswd -f >"$work/pw"
echo view-pw | vncpasswd -f >"$work/vpw"
chmod 600 "$work/pw" "$work/vpw"
start_server auth --display "$XDPY" --password-file "$work/pw" --viewonly-password-file "$work/vpw" || exit 1
"$input" -p wrong "127.0.0.1:$PORT" sleep 10
tap_check "a wrong password is refused" test $? -eq 3
"$probe" log >"$work/probe2.log" &
probe_pid=$!
pids="$pids $probe_pid"
wait_line "$work/probe2.log" ready
"$input" -p view-pw "127.0.0.1:$PORT" move 50 60 type q sleep 200
st=$?
sleep 0.5
tap_check "the view-only password connects but its input is ignored" \
	sh -c "[ $st -eq 0 ] && ! grep -q '^char\|^motion 50 60' '$work/probe2.log'"
"$input" -p full-pw "127.0.0.1:$PORT" move 70 80 type w sleep 200
sleep 0.5
tap_check "the full password connects and its input arrives" \
	sh -c "grep -qx 'motion 70 80' '$work/probe2.log' && grep -qx 'char 0x77' '$work/probe2.log'"
stop_server
tap_done
