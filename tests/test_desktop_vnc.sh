#!/bin/sh
# varg-server --vnc in front of TigerVNC's Xvnc: a Varg viewer sees
# exactly what xwd reads from Xvnc's screen, a client's pointer and keys
# reach an X client on it, and the clipboard crosses both ways.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"
probe=$B/tests/vg_xprobe
input=$B/tests/vg_vncinput

tap_plan 7

tap_check "a VNC server that is not there fails cleanly" fails_cleanly 1 "$B/server/varg-server" --port 0 --vnc 127.0.0.1:64999
if ! command -v Xvnc >/dev/null || ! command -v xwd >/dev/null || ! command -v xclip >/dev/null; then
	for i in $(seq 1 6); do tap_skip "Xvnc, xwd and xclip are needed (scripts/setup)"; done
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

"$input" "127.0.0.1:$PORT" move 40 50 click 1 type 'xY' sleep 300
tap_check "the input client ran" test $? -eq 0
sleep 0.5
tap_check "pointer and button reached Xvnc" \
	sh -c "grep -qx 'motion 40 50' '$work/probe.log' && grep -qx 'button 1 1 40 50' '$work/probe.log'"
tap_check "keys reached Xvnc" \
	sh -c "grep -qx 'char 0x78' '$work/probe.log' && grep -qx 'char 0x59' '$work/probe.log'"

"$input" "127.0.0.1:$PORT" wait-cut 'from Xvnc' &
cut_pid=$!
sleep 0.7
printf 'from Xvnc' | xclip -selection clipboard -i
wait "$cut_pid"
tap_check "Xvnc's clipboard reaches a client through the proxy" test $? -eq 0
"$input" "127.0.0.1:$PORT" cut 'to Xvnc'
sleep 0.5
tap_check "a client's text reaches Xvnc's clipboard" test "$(timeout 5 xclip -selection clipboard -o)" = 'to Xvnc'
tap_done
