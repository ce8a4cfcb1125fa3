#!/bin/sh
# varg-session on real parts: it starts Xvfb, runs the command on it,
# shares the display and prints the connect lines; a viewer gets exactly
# the command's screen; when the command exits, or on SIGTERM, no Xvfb and
# no varg-server is left behind.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
session=$S/server/varg-session
VARG_SERVER=$B/server/varg-server
export VARG_SERVER

tap_plan 9

tap_check "no command is a usage error" fails_cleanly 2 "$session" --geometry 320x200
tap_check "a bad geometry is a usage error" fails_cleanly 2 "$session" --geometry big -- true
if ! command -v Xvfb >/dev/null || ! command -v xwd >/dev/null; then
	for i in $(seq 1 7); do tap_skip "Xvfb and xwd are needed (scripts/setup)"; done
	exit 0
fi

# The command draws, then waits for the viewer's snapshot and reads the
# screen itself before it ends.
"$session" --geometry 480x320 -- sh -c "'$B/tests/vg_xprobe' draw 5 40 >/dev/null & p=\$!; sleep 1; \
	while [ ! -f '$work/seen' ]; do sleep 0.1; done; xwd -root -silent | xwdtopnm >'$work/screen.ppm' 2>/dev/null; \
	kill \$p; sleep 0.3" \
	>"$work/session.out" 2>"$work/session.err" &
sess=$!
PORT=""
for _ in $(seq 1 100); do
	PORT=$(sed -n 's/.*varg-viewer localhost::\([0-9]*\) .*/\1/p' "$work/session.out" | head -1)
	[ -n "$PORT" ] && break
	sleep 0.1
done
tap_check "the connect line is printed" test -n "$PORT"
tap_check "so is the ssh -L line" grep -q "ssh -N -L $PORT:localhost:$PORT " "$work/session.out"
dpy=$(sed -n 's/.* on display :\([0-9]*\) .*/\1/p' "$work/session.out")
sleep 1
IDLE=2 viewer v
wait "$pid_v"
touch "$work/seen"
wait "$sess"
tap_check "varg-session ends with the command's status" test $? -eq 0
tap_check "the viewer got the command's screen" same_image "$work/v.png" "$work/screen.ppm"
tap_check "Xvfb and varg-server are gone" \
	sh -c "[ -n '$dpy' ] && [ ! -e /tmp/.X$dpy-lock ] && ! ps -eo args | grep -q '^[^ ]*varg-server --display :$dpy '"

# SIGTERM while the command runs (Ctrl-C takes the same path; a shell
# starts background jobs with SIGINT ignored, so a test cannot send it).
"$session" --geometry 320x200 -- sleep 60 >"$work/int.out" 2>"$work/int.err" &
sess=$!
for _ in $(seq 1 100); do grep -q 'varg-viewer localhost::' "$work/int.out" && break; sleep 0.1; done
dpy=$(sed -n 's/.* on display :\([0-9]*\) .*/\1/p' "$work/int.out")
kill -TERM "$sess"
wait "$sess"
tap_check "SIGTERM stops the session (status 143)" test $? -eq 143
tap_check "and leaves no Xvfb behind" sh -c "sleep 0.3; [ -n '$dpy' ] && [ ! -e /tmp/.X$dpy-lock ]"
tap_done
