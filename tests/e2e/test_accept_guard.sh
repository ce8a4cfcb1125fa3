#!/bin/sh
# The accept path holds against peers that send 1-3 bytes (which made
# LibVNCServer 0.9.14's WebSocket peek spin forever in its accept thread):
# a good viewer still connects and ends exact, the server does not spin,
# SIGTERM still ends it, and a WebSocket handshake still works.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
TRACE=$S/traces/samples/heatmap-scroll.vtr
tap_plan 6

command -v bash >/dev/null || { echo "# bash is needed for its /dev/tcp peers"; exit 1; }
last_frame "$TRACE" "$work/expected.png" || { tap_not_ok "export the trace's last frame"; exit 1; }
start_server guard --trace "$TRACE" --speed 0 || exit 1

# peer DELAY BYTES HOLD: connects, waits DELAY s, sends BYTES, keeps the
# connection HOLD s. A DELAY of a few hundredths of a second lands the
# bytes inside the library's own 100 ms peek, after the screening.
peer() {
	bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0 || exit 0; sleep $1; printf "$2" >&3; sleep $3' \
		"$PORT" "$@" 2>/dev/null &
	pids="$pids $!"
}
for _ in $(seq 1 20); do peer 0 ab 0; done
peer 0 a 10; peer 0 ab 10; peer 0 abc 10
for d in 0.01 0.03 0.05 0.07; do peer "$d" ab 10; done
sleep 0.5

VIEWER_TIMEOUT=30 CACHE= viewer good
wait "$pid_good"
st=$?
tap_check "a good viewer connects after 27 short peers (exit $st)" test "$st" -eq 0
tap_check "and ends with the trace's last frame" same_image "$work/good.png" "$work/expected.png"

# CPU ticks (1/100 s) the server used in one second, after any stalled
# handshake has been cut (3 s at most).
ticks() { awk '{ print $14 + $15 }' "/proc/$SERVER_PID/stat"; }
sleep 3
t0=$(ticks); sleep 1; t1=$(ticks)
echo "# server CPU over 1 s: $((t1 - t0)) ticks"
tap_check "the server does not spin" test $((t1 - t0)) -lt 50

# A WebSocket client still gets LibVNCServer's handshake. Twice more after
# the 3 s a stuck handover may take to be cut: under ThreadSanitizer, or
# on a loaded machine, the held peers' handovers can still be queued
# ahead of the first try (seen once in six runs); a wedged accept path
# fails all three.
websocket() {
	bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0 || exit 1
printf "GET / HTTP/1.1\r\nHost: localhost\r\nOrigin: http://localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: binary\r\n\r\n" >&3
timeout 5 head -1 <&3' "$PORT" >"$work/ws.txt" 2>&1
	echo "# WebSocket answer: $(cat "$work/ws.txt")"
}
websocket
for _ in 1 2; do
	grep -q '^HTTP/1.1 101' "$work/ws.txt" && break
	sleep 3.5
	websocket
done
tap_check "a WebSocket handshake is still answered (101)" grep -q '^HTTP/1.1 101' "$work/ws.txt"

# Peers still hold connections; SIGTERM must end the server all the same.
kill -TERM "$SERVER_PID"
gone=no
ends_within 50 "$SERVER_PID" && gone=yes
tap_check "SIGTERM ends the server within 5 s" test "$gone" = yes
[ "$gone" = yes ] || kill -9 "$SERVER_PID" 2>/dev/null
wait "$SERVER_PID"
st=$?
tap_check "with status 0 (got $st)" test "$st" -eq 0
# A sanitizer's report on the way out is the only trace of why.
[ "$st" -eq 0 ] || sed 's/^/#   /' "$work/guard.err" | tail -40
tap_done
