#!/bin/sh
# Bad peers at every stage, against real processes over real sockets:
# clients that go wrong at each step of the handshake and the session
# against varg-server, then servers that go wrong at each step against
# varg-viewer. Afterwards the server must still serve a good viewer
# exactly, and every viewer must have ended by itself with status 0-3
# (not a crash, not a sanitizer's report). `make stress` runs it longer
# (VG_E2EFUZZ_RUNS, VG_E2EFUZZ_SECONDS); VG_E2EFUZZ_SEED replays a seed.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
TRACE=$S/traces/samples/heatmap-scroll.vtr
runs=${VG_E2EFUZZ_RUNS:-150}
secs=${VG_E2EFUZZ_SECONDS:-15}
seed=${VG_E2EFUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
tap_plan 6

last_frame "$TRACE" "$work/expected.png" || { tap_not_ok "export the trace's last frame"; exit 1; }
start_server fuzz --trace "$TRACE" --speed 0 || exit 1
echo "# seed $seed, up to $runs runs or $secs s a side"
"$B/tests/vg_e2efuzz" server "$PORT" "$seed" "$runs" "$secs" >"$work/client-fuzz.log" 2>&1
st=$?
tail -1 "$work/client-fuzz.log" | sed 's/^/# clients: /'
tap_check "the bad clients ran" test "$st" -eq 0
tap_check "the server is still running" kill -0 "$SERVER_PID"
CACHE= viewer good
wait "$pid_good"
tap_check "a good viewer still gets an exact picture" same_image "$work/good.png" "$work/expected.png"
kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
st=$?
tap_check "the server ends cleanly (status $st; a sanitizer's report fails it)" test "$st" -eq 0
grep -E 'ERROR: (Address|Leak|Undefined)Sanitizer|runtime error' "$work/fuzz.err" | head -5 | sed 's/^/# /'
tap_check "and reported nothing" sh -c "! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error' '$work/fuzz.err'"

"$B/tests/vg_e2efuzz" viewer "$seed" "$((runs / 5))" "$secs" -- \
	"$B/viewer/varg-viewer" --headless --no-persistent-cache --timeout 3 --exit-when-idle 1 \
	>"$work/server-fuzz.log" 2>&1
st=$?
grep -B1 FAILED "$work/server-fuzz.log" | head -10 | sed 's/^/# /'
tail -1 "$work/server-fuzz.log" | sed 's/^/# servers: /'
tap_check "every viewer facing a bad server ended by itself, status 0-3" test "$st" -eq 0
tap_done
