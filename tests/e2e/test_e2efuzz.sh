#!/bin/sh
# Bad peers at every stage, against real processes over real sockets:
# clients that go wrong at each step of the handshake and the session
# against varg-server and against varg-relay, then servers that go wrong
# at each step against varg-viewer and varg-relay. Afterwards the server must still serve a good viewer
# exactly, and every viewer must have ended by itself with status 0-3
# (not a crash, not a sanitizer's report). `make stress` runs it longer
# (VG_E2EFUZZ_RUNS, VG_E2EFUZZ_SECONDS); VG_E2EFUZZ_SEED replays a seed.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
TRACE=$S/traces/samples/heatmap-scroll.vtr
runs=${VG_E2EFUZZ_RUNS:-150}
secs=${VG_E2EFUZZ_SECONDS:-15}
seed=${VG_E2EFUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
tap_plan 11

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

# The relay reads both sides: bad site viewers, then bad upstreams.
start_server up --trace "$TRACE" --speed 0 || exit 1
up_pid=$SERVER_PID
"$B/server/varg-relay" --port 0 --no-persistent-cache --beliefs-dir "$work/relay-beliefs" \
	"localhost::$PORT" >"$work/relay.out" 2>"$work/relay.err" &
relay_pid=$!
pids="$pids $relay_pid"
PORT=""
for _ in $(seq 1 100); do
	PORT=$(sed -n 's/^varg-relay: listening on [0-9.]*:\([0-9]*\) .*/\1/p' "$work/relay.out")
	[ -n "$PORT" ] && break
	sleep 0.1
done
"$B/tests/vg_e2efuzz" server "$PORT" "$seed" "$((runs / 2))" "$((secs / 2 + 1))" >"$work/relay-client-fuzz.log" 2>&1
st=$?
tail -1 "$work/relay-client-fuzz.log" | sed 's/^/# clients of the relay: /'
tap_check "the bad clients of the relay ran, and it still runs" sh -c "test $st -eq 0 && kill -0 $relay_pid"
CACHE= viewer good2
wait "$pid_good2"
tap_check "a good viewer behind it still gets an exact picture" same_image "$work/good2.png" "$work/expected.png"
kill -TERM "$relay_pid"
wait "$relay_pid"
st=$?
tap_check "the relay ends cleanly (status $st)" test "$st" -eq 0
grep -E 'ERROR: (Address|Leak|Undefined)Sanitizer|runtime error' "$work/relay.err" | head -5 | sed 's/^/# /'
tap_check "and reported nothing" sh -c "! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error' '$work/relay.err'"
kill "$up_pid"; wait "$up_pid"

"$B/tests/vg_e2efuzz" viewer "$seed" "$((runs / 5))" "$secs" -- \
	"$B/server/varg-relay" --port 0 --no-persistent-cache --beliefs-dir "$work/relay-beliefs" \
	--timeout 3 --no-reconnect >"$work/relay-server-fuzz.log" 2>&1
st=$?
grep -B1 FAILED "$work/relay-server-fuzz.log" | head -10 | sed 's/^/# /'
tail -1 "$work/relay-server-fuzz.log" | sed 's/^/# upstreams: /'
tap_check "every relay facing a bad upstream ended by itself, status 0-3" test "$st" -eq 0
tap_done
