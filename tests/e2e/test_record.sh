#!/bin/sh
# varg-trace record against a real X server (Xvfb) and real X clients:
# the last recorded frame equals what xwd reads from the screen, with
# XDamage and with polling; SIGINT ends a recording with a valid trace;
# pointer and key events made with xdotool become input records; a storm
# of cursor changes is recorded at most 60 times a second.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"
vt=$B/traces/varg-trace
probe=$B/tests/vg_xprobe

tap_plan 20

if ! command -v Xvfb >/dev/null || ! command -v xwd >/dev/null || ! command -v xdotool >/dev/null; then
	for i in $(seq 1 20); do tap_skip "Xvfb, xwd and xdotool are needed (scripts/setup)"; done
	exit 0
fi
start_xvfb 640x480 || exit 1
export DISPLAY=$XDPY

# screenshot OUT.ppm: the whole screen as xwd reads it.
screenshot() { xwd -root -silent | xwdtopnm >"$1" 2>/dev/null; }

# record_drawing NAME ARGS...: records while vg_xprobe scrolls its pattern
# for 2 s, until 1 s after it is done; then takes a screenshot.
record_drawing() {
	rn=$1; shift
	"$vt" record --display "$XDPY" -o "$work/$rn.vtr" -q "$@" 2>"$work/$rn.err" &
	rec=$!
	sleep 0.5
	"$probe" draw 20 100 >"$work/$rn.probe" &
	probe_pid=$!
	pids="$pids $probe_pid"
	wait_line "$work/$rn.probe" done || return 1
	sleep 1
	kill -INT "$rec"
	wait "$rec" || { sed 's/^/#   /' "$work/$rn.err"; return 1; }
	screenshot "$work/$rn-screen.ppm"
	kill "$probe_pid"
	wait "$probe_pid" 2>/dev/null
	return 0
}

frames() { "$B/tests/vg_tracedump" "$1" | grep -c '^frame'; }

xdotool mousemove 77 55
tap_check "the capture module: whole first grab, empty second, XFixes cursor" "$B/tests/vg_xcapture_check" 77 55
tap_check "record with XDamage" record_drawing damage
n=$(frames "$work/damage.vtr")
tap_check "the scrolling was recorded step by step ($n frames)" test "$n" -ge 15
last_frame "$work/damage.vtr" "$work/damage-last.png"
tap_check "the trace's last frame equals xwd's screen" same_image "$work/damage-last.png" "$work/damage-screen.ppm"

tap_check "record by polling" record_drawing poll --poll --fps 30
n=$(frames "$work/poll.vtr")
tap_check "polling saw the steps too ($n frames)" test "$n" -ge 15
last_frame "$work/poll.vtr" "$work/poll-last.png"
tap_check "last frame (polling) equals xwd's screen" same_image "$work/poll-last.png" "$work/poll-screen.ppm"

# Input: xdotool moves, clicks and types while the recorder runs.
"$vt" record --display "$XDPY" -o "$work/input.vtr" -q --duration 3 2>"$work/input.err" &
rec=$!
sleep 0.7
xdotool mousemove 123 234 sleep 0.2 click 1 sleep 0.2 mousemove 300 40 sleep 0.2 key b
wait "$rec"
tap_check "record --duration ends by itself" test $? -eq 0
"$B/tests/vg_tracedump" "$work/input.vtr" >"$work/input.txt"
tap_check "pointer move recorded" grep -q '^pointer [0-9]* 123 234 0$' "$work/input.txt"
tap_check "button 1 down and up recorded" \
	sh -c "grep -q '^pointer [0-9]* 123 234 1\$' '$work/input.txt' && grep -q '^pointer [0-9]* 300 40 0\$' '$work/input.txt'"
tap_check "key b down and up recorded" \
	sh -c "grep -q '^key [0-9]* 98 1\$' '$work/input.txt' && grep -q '^key [0-9]* 98 0\$' '$work/input.txt'"

# SIGINT in the middle of a drawing: the trace is complete and valid.
"$probe" draw 1000 20 >/dev/null &
busy=$!
pids="$pids $busy"
"$vt" record --display "$XDPY" -o "$work/int.vtr" -q 2>"$work/int.err" &
rec=$!
sleep 1.5
kill -INT "$rec"
wait "$rec"
tap_check "SIGINT ends the recording with status 0" test $? -eq 0
tap_check "the interrupted trace is complete and valid" "$vt" info "$work/int.vtr"
kill "$busy"

# Replay: xdotool clicks and types into a logging window while the
# recorder runs; replaying the trace into a fresh display must deliver the
# same button and key events, at the same places, to the same program.
"$probe" log >"$work/orig.log" &
logger=$!
pids="$pids $logger"
wait_line "$work/orig.log" ready
"$vt" record --display "$XDPY" -o "$work/replay.vtr" -q --duration 4 2>"$work/replay.err" &
rec=$!
sleep 0.7
xdotool mousemove 50 60 click 1 sleep 0.3 mousemove 200 100 sleep 0.2 click 3 sleep 0.2 type hi
xdotool key Return sleep 0.2 mousemove 300 200 sleep 0.2 mousedown 1 sleep 0.2 mousemove 320 220 sleep 0.2 mouseup 1
wait "$rec"
kill "$logger"
first=$XDPY
start_xvfb 640x480 || exit 1
DISPLAY=$XDPY "$probe" log >"$work/replayed.log" &
logger=$!
pids="$pids $logger"
wait_line "$work/replayed.log" ready
tap_check "replay-input plays the recording into a fresh display" \
	"$vt" replay-input -q --display "$XDPY" "$work/replay.vtr"
sleep 0.5
kill "$logger"
grep -E '^(button|key)' "$work/orig.log" >"$work/orig.events"
grep -E '^(button|key)' "$work/replayed.log" >"$work/replayed.events"
n=$(wc -l <"$work/orig.events")
tap_check "the replayed display got the same $n button and key events" \
	sh -c "[ $n -ge 12 ] && cmp -s '$work/orig.events' '$work/replayed.events' || { diff '$work/orig.events' '$work/replayed.events' | sed 's/^/# /'; exit 1; }"
export DISPLAY=$first
XDPY=$first

# A program that makes its cursor busy around every drawing call (as R's
# X11 device does): 3,000 changes in under two seconds are recorded at
# most 60 times a second, and the last recorded is the cursor it left.
xdotool mousemove 320 240
"$vt" record --display "$XDPY" -o "$work/storm.vtr" -q --duration 4 2>"$work/storm.err" &
rec=$!
sleep 0.5
"$probe" cursors 1500 >"$work/storm.probe" &
storm=$!
pids="$pids $storm"
wait_line "$work/storm.probe" done
wait "$rec"
"$vt" record --display "$XDPY" -o "$work/after.vtr" -q --duration 1 2>>"$work/storm.err"
kill "$storm"
n=$("$B/tests/vg_tracedump" "$work/storm.vtr" | grep -c '^cursor')
tap_check "a storm of cursor changes is recorded at most 60 a second ($n records in 4 s)" \
	test "$n" -ge 2 -a "$n" -le 250
last_cursor() { "$B/tests/vg_tracedump" "$1" | awk '$1 == "cursor" { h = $NF } END { print h }'; }
first_cursor() { "$B/tests/vg_tracedump" "$1" | awk '$1 == "cursor" { print $NF; exit }'; }
tap_check "... and its last record is the cursor left on the screen" \
	test "$(last_cursor "$work/storm.vtr")" = "$(first_cursor "$work/after.vtr")"

tap_check "a display that is not there fails cleanly" fails_cleanly 1 "$vt" record --display :987 -o "$work/x.vtr"
tap_check "record without -o is a usage error" fails_cleanly 2 "$vt" record --display "$XDPY"
tap_check "replay-input without --display is a usage error" fails_cleanly 2 "$vt" replay-input "$work/replay.vtr"
tap_done
