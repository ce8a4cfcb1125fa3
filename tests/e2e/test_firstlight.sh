#!/bin/sh
# First light, on real processes and sockets: varg-server plays the bundled
# trace to a Varg viewer, to plain viewers using each standard encoding and
# to vncsnapshot, all at once; every one must end with the last frame.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
TRACE=${VG_TEST_TRACE:-$S/traces/samples/heatmap-scroll.vtr}
tap_plan 13

last_frame "$TRACE" "$work/expected.png" || { tap_not_ok "export the trace's last frame"; exit 1; }

start_server main --trace "$TRACE" --speed 0 --wait-clients 5 --pace-timeout 5000 || exit 1
viewer varg
viewer hextile --no-varg --encodings hextile
viewer zlib --no-varg --encodings zlib
viewer zrle --no-varg --encodings zrle
viewer tight --no-varg --encodings "tight"
for v in varg hextile zlib zrle tight; do
	eval wait "\$pid_$v"
	st=$?
	if [ $st -eq 0 ] && same_image "$work/$v.png" "$work/expected.png"; then
		tap_ok "$v viewer ends with the trace's last frame"
	else
		sed 's/^/# /' "$work/$v.log"
		tap_not_ok "$v viewer ends with the trace's last frame (exit $st)"
	fi
done

# The Varg viewer got Varg rectangles only: LibVNCServer's encoders never
# sent it pixels.
varg_rects=$(json_num "$work/varg.json" varg)
other_rects=$(json_num "$work/varg.json" other)
echo "# varg viewer: $varg_rects Varg rectangles, $other_rects others, $(json_num "$work/varg.json" bytes_received) bytes"
echo "# hextile viewer: $(json_num "$work/hextile.json" bytes_received) bytes"
tap_check "Varg viewer received only Varg rectangles" test "${varg_rects:-0}" -gt 0 -a "${other_rects:-1}" -eq 0
tap_check "plain viewer received no Varg rectangle" test "$(json_num "$work/hextile.json" varg)" -eq 0

# vncsnapshot (hextile; it writes JPEG, so compare with a tolerance).
display=$((PORT - 5900))
if timeout 60 vncsnapshot -quiet -encodings hextile -quality 100 "localhost:$display" "$work/snap.jpg" >/dev/null 2>&1 &&
   djpeg -pnm "$work/snap.jpg" >"$work/snap.ppm" && same_image "$work/snap.ppm" "$work/expected.png" 2.0; then
	tap_ok "vncsnapshot sees the last frame"
else
	tap_not_ok "vncsnapshot sees the last frame"
fi
stop_server

# The race of LIBVNC-NOTES: with a delay after each Varg write, update
# requests land while LibVNCServer still holds a stale region. With the fix
# no non-Varg rectangle may reach the Varg viewer.
VARG_TEST_SEND_DELAY_MS=3 start_server race --trace "$TRACE" --speed 0 --wait-clients 1 || exit 1
viewer race
wait "$pid_race"
other=$(json_num "$work/race.json" other)
echo "# with a 3 ms send delay: $(json_num "$work/race.json" varg) Varg rectangles, $other others"
if [ "${other:-1}" -eq 0 ] && same_image "$work/race.png" "$work/expected.png"; then
	tap_ok "no stale LibVNCServer update reaches a Varg viewer under send delays"
else
	tap_not_ok "no stale LibVNCServer update reaches a Varg viewer under send delays"
	sed 's/^/#   viewer: /' "$work/race.log"; sed 's/^/#   server: /' "$work/race.err"
fi
stop_server
# The same run without the fix shows what the test guards against.
VARG_TEST_NO_RACE_FIX=1 VARG_TEST_SEND_DELAY_MS=3 start_server norace --trace "$TRACE" --speed 0 --wait-clients 1 || exit 1
viewer norace
wait "$pid_norace"
leaked=$(json_num "$work/norace.json" other)
echo "# without the request-hook fix: $leaked stale non-Varg rectangles leaked"
tap_check "without the fix, stale rectangles do leak (the check above can fail)" \
	test "${leaked:-0}" -gt 0
stop_server

# Misbehaving clients: one stops reading with a tiny receive buffer, one
# hangs up in the middle of its first update. The others are not disturbed.
# Play starts when the stalled client and both viewers are in: the
# stalled one first, so that a slow start of it (a loaded sanitizer run)
# cannot hold play back while the viewers sit idle on the first frame.
# IDLE is long for the same reason: a viewer that waits for the other to
# join must not take the pause for the end.
start_server bad --trace "$TRACE" --speed 0 --wait-clients 3 --pace-timeout 100 || exit 1
"$B/tests/vg_badclient" "$PORT" stall 600 >"$work/stall.out" 2>&1 &
stall_pid=$!
pids="$pids $stall_pid"
for _ in $(seq 1 300); do
	grep -q stalling "$work/stall.out" && break
	sleep 0.1
done
"$B/tests/vg_badclient" "$PORT" hangup 0 >/dev/null 2>&1
IDLE=15
viewer good_varg
viewer good_hextile --no-varg --encodings hextile
ok=1
for v in good_varg good_hextile; do
	eval wait "\$pid_$v" || ok=0
	same_image "$work/$v.png" "$work/expected.png" || ok=0
done
tap_check "viewers beside a stalled and a vanished client end exact" test $ok -eq 1
tap_check "the server survives misbehaving clients" kill -0 "$SERVER_PID"
kill "$stall_pid" 2>/dev/null
stop_server
tap_check "the server exits cleanly on SIGTERM" grep -q "Varg updates" "$work/bad.err"
tap_done
