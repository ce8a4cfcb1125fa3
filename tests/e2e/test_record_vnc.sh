#!/bin/sh
# varg-trace record --vnc: recording what a VNC server serves, through the
# LibVNCClient mirror. From varg-server playing a trace, every recorded
# frame is one of the trace's frames and the last one is its last (round
# trip exact); from TigerVNC's Xvnc while an X client scrolls, the last
# frame equals the server's screen as xwd reads it.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"
vt=$B/traces/varg-trace
dump=$B/tests/vg_tracedump
sample=$S/traces/samples/heatmap-scroll.vtr

tap_plan 10

# From varg-server: it starts playing when the recorder connects.
start_server main --trace "$sample" --wait-clients 1 || exit 1
"$vt" record --vnc "127.0.0.1:$PORT" -o "$work/srv.vtr" -q --duration 16 2>"$work/srv.err"
st=$?
stop_server
tap_check "record --vnc from varg-server ends after --duration" test "$st" -eq 0
"$dump" "$sample" | awk '$1 == "frame" { print $4 }' | sort -u >"$work/sample.hashes"
"$dump" "$work/srv.vtr" | awk '$1 == "frame" { print $4 }' >"$work/srv.hashes"
n=$(wc -l <"$work/srv.hashes")
tap_check "the recording has frames of the whole session ($n)" test "$n" -ge 20
# The screen before playback starts is black; every other recorded frame
# must be one of the trace's: the player never copies a frame in while a
# stock encoder reads the framebuffer.
other=$(sed 1d "$work/srv.hashes" | sort -u | comm -23 - "$work/sample.hashes" | wc -l)
tap_check "recorded frames are the trace's frames ($other of $n mixed)" test "$other" -eq 0
tap_check "the last recorded frame is the trace's last" \
	test "$(tail -1 "$work/srv.hashes")" = "$("$dump" "$sample" | awk '$1 == "frame" { h = $4 } END { print h }')"

# The same with the player pausing 40 ms in the middle of each copy (an
# encoder that read the framebuffer meanwhile would send half a frame) and
# each stock pass 80 ms late after LibVNCServer took its modified region (a
# frame written meanwhile would be sent only where that region covers it:
# 3 of 26 frames mixed before the pass sent the region it locked).
VARG_TEST_COPY_DELAY_MS=40 VARG_TEST_PASS_DELAY_MS=80 start_server slow --trace "$sample" --wait-clients 1 || exit 1
"$vt" record --vnc "127.0.0.1:$PORT" -o "$work/slow.vtr" -q --duration 10 2>"$work/slow.err"
stop_server
"$dump" "$work/slow.vtr" | awk '$1 == "frame" { print $4 }' >"$work/slow.hashes"
n=$(wc -l <"$work/slow.hashes")
other=$(sed 1d "$work/slow.hashes" | sort -u | comm -23 - "$work/sample.hashes" | wc -l)
tap_check "with slow copies, no recorded frame mixes two ($other of $n mixed)" \
	test "$n" -ge 20 -a "$other" -eq 0

# From Xvnc while vg_xprobe scrolls.
if ! command -v Xvnc >/dev/null || ! command -v xwd >/dev/null; then
	for i in 1 2 3; do tap_skip "Xvnc and xwd are needed (scripts/setup)"; done
else
	start_xvnc 400x300 || exit 1
	export DISPLAY=$XDPY
	"$vt" record --vnc "localhost:$VNC_PORT" -o "$work/xvnc.vtr" -q 2>"$work/xvnc.err" &
	rec=$!
	sleep 0.7
	"$B/tests/vg_xprobe" draw 20 80 >"$work/probe.out" &
	probe=$!
	pids="$pids $probe"
	for _ in $(seq 1 100); do grep -q done "$work/probe.out" && break; sleep 0.1; done
	sleep 1
	kill -INT "$rec"
	wait "$rec"
	tap_check "record --vnc from Xvnc stops cleanly at SIGINT" test $? -eq 0
	xwd -root -silent | xwdtopnm >"$work/xvnc-screen.ppm" 2>/dev/null
	n=$("$dump" "$work/xvnc.vtr" | grep -c '^frame')
	tap_check "the scrolling was recorded ($n frames)" test "$n" -ge 10
	last_frame "$work/xvnc.vtr" "$work/xvnc-last.png"
	tap_check "last frame equals Xvnc's screen" same_image "$work/xvnc-last.png" "$work/xvnc-screen.ppm"
fi

tap_check "a VNC server that is not there fails cleanly" fails_cleanly 1 "$vt" record --vnc 127.0.0.1:1 -o "$work/x.vtr"
tap_check "--vnc without a port is a usage error" fails_cleanly 1 "$vt" record --vnc localhost -o "$work/x.vtr"
tap_done
