#!/bin/sh
# varg-relay between a real varg-server and real viewers: Varg and stock
# viewers behind it end exactly on the trace's last frame, the relay takes
# one viewer's bytes from upstream however many watch, a warm relay takes
# under half of them, relays chain, the relay outlives its upstream and
# connects again, and input and clipboard cross it both ways to a real X
# display. Bad options and a missing upstream fail cleanly.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_sshd.sh"
probe=$B/tests/vg_xprobe
input=$B/tests/vg_vncinput
trace=$S/traces/samples/treeview-scroll.vtr
relay=$B/server/varg-relay

tap_plan 32

# start_relay NAME UPSTREAM_PORT ARGS...: varg-relay on a free port, its
# cache in $work/relay-cache-NAME unless ARGS say otherwise; sets PORT
# (where viewers connect) and RELAY_PID.
start_relay() {
	name=$1; up=$2; shift 2
	$VG_WRAP "$relay" --port 0 --stats-json "$work/$name.json" "$@" \
		"localhost::$up" >"$work/$name.out" 2>"$work/$name.err" &
	RELAY_PID=$!
	pids="$pids $RELAY_PID"
	PORT=""
	for _ in $(seq 1 100); do
		PORT=$(sed -n 's/^varg-relay: listening on [0-9.]*:\([0-9]*\) .*/\1/p' "$work/$name.out" 2>/dev/null)
		[ -n "$PORT" ] && return 0
		kill -0 "$RELAY_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "# relay $name did not start:"; sed 's/^/#   /' "$work/$name.err"
	return 1
}

# stop_relay: SIGTERM, and its exit status in RELAY_STATUS.
stop_relay() {
	kill "$RELAY_PID" 2>/dev/null
	wait "$RELAY_PID"
	RELAY_STATUS=$?
}

# The bytes a stats file's "viewers" list says ENCODING viewers were sent.
viewer_bytes() {
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
print(" ".join(str(v["bytes_sent"]) for v in j["viewers"] if v["encoding"] == sys.argv[2]))' "$1" "$2"
}

tap_check "no upstream is a usage error" fails_cleanly 2 "$relay"
tap_check "a bad upstream address is a usage error" fails_cleanly 2 "$relay" "host:port:x"
tap_check "a bad --cache-size is a usage error" fails_cleanly 2 "$relay" --cache-size 12Q localhost:1
tap_check "a reachable address without a password is refused" fails_cleanly 2 "$relay" --listen 0.0.0.0 localhost:1
tap_check "an upstream that is not there fails cleanly" fails_cleanly 1 "$relay" --port 0 --timeout 3 127.0.0.1::1

last_frame "$trace" "$work/last.png"

# The yardstick: one Varg viewer straight on the server, cold.
start_server direct --trace "$trace" --speed 3 --wait-clients 1 --beliefs-dir "$work/beliefs-direct" || exit 1
IDLE=3 viewer direct
wait "$pid_direct"
stop_server
direct_bytes=$(json_num "$work/direct.json" bytes_received)

# Cold: the server waits for the relay; two Varg viewers and a stock one
# join the relay as soon as it listens, while the trace plays.
start_server up --trace "$trace" --speed 3 --wait-clients 1 --beliefs-dir "$work/beliefs-up" \
	--stats-json "$work/up.json" || exit 1
up_port=$PORT
up_pid=$SERVER_PID
start_relay r1 "$up_port" --cache-dir "$work/relay-cache" --beliefs-dir "$work/beliefs-r1" || exit 1
r1_port=$PORT
r1_pid=$RELAY_PID
IDLE=4 viewer a
IDLE=4 viewer b
IDLE=4 viewer s --no-varg --encodings "zrle hextile"
wait "$pid_a"; a_status=$?
wait "$pid_b"; b_status=$?
wait "$pid_s"; s_status=$?
tap_check "Varg viewers behind the relay ended cleanly" test "$a_status$b_status" = 00
tap_check "the first ends on the trace's last frame" same_image "$work/a.png" "$work/last.png"
tap_check "the second ends on it too" same_image "$work/b.png" "$work/last.png"
tap_check "they were sent Varg" sh -c "grep -q '\"encoding\": \"varg\"' '$work/a.json' && grep -q '\"encoding\": \"varg\"' '$work/b.json'"
tap_check "a stock viewer behind the relay ends on it too" \
	sh -c "test $s_status -eq 0 && grep -q '\"encoding\": \"zrle' '$work/s.json'" 
tap_check "... exactly" same_image "$work/s.png" "$work/last.png"

# A relay of the relay: a viewer two hops away sees the same picture.
start_relay r2 "$r1_port" --cache-dir "$work/relay2-cache" --beliefs-dir "$work/beliefs-r2" || exit 1
r2_pid=$RELAY_PID
IDLE=2 viewer c
wait "$pid_c"
tap_check "relays chain: a viewer behind two ends exactly" same_image "$work/c.png" "$work/last.png"
kill "$r2_pid"; wait "$r2_pid"

# -via: the relay reaches its upstream through an sshd started here.
via_ok=no
start_sshd && via_ok=yes
if [ $via_ok = yes ]; then
	VARG_VIA_SSH=$SSH_CMD
	export VARG_VIA_SSH
	start_relay rvia "$up_port" -via "$(id -un)@127.0.0.1" --cache-dir "$work/relay-via-cache" \
		--beliefs-dir "$work/beliefs-rvia" || exit 1
	unset VARG_VIA_SSH
	rvia_pid=$RELAY_PID
	IDLE=2 viewer f
	wait "$pid_f"
	tap_check "-via: a relay through an SSH tunnel serves the exact picture" same_image "$work/f.png" "$work/last.png"
	kill "$rvia_pid"; wait "$rvia_pid"
	tap_check "-via: and leaves no ssh behind" test -z "$(pgrep -f -- "-L 127.0.0.1:[0-9]*:localhost:$up_port " 2>/dev/null)"
else
	tap_skip "-via: no sshd could be started on loopback (scripts/setup installs openssh-server)"
	tap_skip "-via: no sshd could be started on loopback"
fi

kill -USR1 "$r1_pid"
for _ in $(seq 1 50); do grep -q "^varg-relay: summary" "$work/r1.err" && break; sleep 0.1; done
tap_check "SIGUSR1 prints the relay's summary, naming its viewers" \
	sh -c "grep -q '^varg-relay: summary' '$work/r1.err' && grep -q '^  clients:' '$work/r1.err'"
RELAY_PID=$r1_pid
stop_relay
tap_check "SIGTERM stops the relay cleanly" test "$RELAY_STATUS" -eq 0
cold=$(json_num "$work/r1.json" upstream_bytes_received)
echo "# one viewer straight: $direct_bytes bytes; the relay took $cold for its viewers"
tap_check "the relay took about one viewer's bytes upstream (within 10 %)" \
	test "$cold" -gt 0 -a "$((cold * 10))" -le "$((direct_bytes * 11))"
tap_check "its stats list each viewer's bytes" \
	test "$(viewer_bytes "$work/r1.json" varg | wc -w)" -ge 2 -a -n "$(viewer_bytes "$work/r1.json" zrle)"
sent_up=$(python3 -c 'import json,sys; print(sum(v["bytes_sent"] for v in json.load(open(sys.argv[1]))["viewers"]))' "$work/r1.json")
tap_check "and more went to them than came from upstream" test "$sent_up" -gt "$cold"
kill "$up_pid"; wait "$up_pid"
cold_sent=$(json_num "$work/up.json" bytes_sent)

# Warm: the same server identity and the relay's cache; the trace again.
start_server up2 --trace "$trace" --speed 3 --wait-clients 1 --beliefs-dir "$work/beliefs-up" \
	--stats-json "$work/up2.json" || exit 1
up_port=$PORT
up_pid=$SERVER_PID
start_relay r3 "$up_port" --cache-dir "$work/relay-cache" --beliefs-dir "$work/beliefs-r1" || exit 1
IDLE=4 viewer d
wait "$pid_d"
tap_check "a viewer behind the warm relay ends exactly" same_image "$work/d.png" "$work/last.png"

# The upstream goes away (its counts are the warm relay's bytes): the
# relay serves on and connects again.
kill "$up_pid"; wait "$up_pid"
warm_sent=$(json_num "$work/up2.json" bytes_sent)
[ -n "$warm_sent" ] || { echo "# no counts from the server:"; sed "s/^/#   /" "$work/up2.err" "$work/up2.json"; }
echo "# the server sent the cold relay $cold_sent bytes, the warm one $warm_sent"
tap_check "a warm relay takes under half a cold one's bytes" \
	test "$warm_sent" -gt 0 -a "$((warm_sent * 2))" -lt "$cold_sent"
sleep 1
tap_check "the relay outlives its upstream" kill -0 "$RELAY_PID"
start_server up3 --port "$up_port" --trace "$S/traces/samples/heatmap-scroll.vtr" --speed 4 \
	--beliefs-dir "$work/beliefs-up" || exit 1
up_pid=$SERVER_PID
for _ in $(seq 1 150); do
	grep -q "connected again" "$work/r3.err" && break
	sleep 0.1
done
tap_check "and connects again when it is back" grep -q "connected again" "$work/r3.err"
last_frame "$S/traces/samples/heatmap-scroll.vtr" "$work/last-heatmap.png"
grep -q "trace played" "$work/up3.err" || sleep 4
PORT=$(sed -n 's/^varg-relay: listening on [0-9.]*:\([0-9]*\) .*/\1/p' "$work/r3.out")
IDLE=2 viewer e
wait "$pid_e"
tap_check "a viewer then sees the new upstream's picture exactly" same_image "$work/e.png" "$work/last-heatmap.png"
# Upstream gone again: a stop must not wait out the backoff (by now 4 s).
kill "$up_pid"; wait "$up_pid"
sleep 4
kill "$RELAY_PID"
tap_check "a relay waiting to connect again stops within 2 s" ends_within 20 "$RELAY_PID"
stop_relay
tap_check "the relay counted both connections" test "$(json_num "$work/r3.json" upstream_connections)" -eq 2

# Input and clipboard across the relay to a real X display.
if ! command -v Xvfb >/dev/null || ! command -v xclip >/dev/null; then
	for i in $(seq 1 6); do tap_skip "Xvfb and xclip are needed (scripts/setup)"; done
	exit 0
fi
start_xvfb 640x480 || exit 1
export DISPLAY=$XDPY
"$probe" log >"$work/probe.log" &
pids="$pids $!"
wait_line "$work/probe.log" ready
start_server x --display "$XDPY" --beliefs-dir "$work/beliefs-x" || exit 1
start_relay rx "$PORT" --no-persistent-cache --beliefs-dir "$work/beliefs-rx" || exit 1
"$input" "127.0.0.1:$PORT" move 60 70 click 1 type 'rY' sleep 300
tap_check "an input client behind the relay ran" test $? -eq 0
sleep 0.5
tap_check "its pointer and button reached the X display" \
	sh -c "grep -qx 'motion 60 70' '$work/probe.log' && grep -qx 'button 1 1 60 70' '$work/probe.log'"
tap_check "its keys reached it" sh -c "grep -qx 'char 0x72' '$work/probe.log' && grep -qx 'char 0x59' '$work/probe.log'"
"$input" "127.0.0.1:$PORT" wait-cut 'from the display' &
cut_pid=$!
sleep 0.7
printf 'from the display' | xclip -selection clipboard -i
wait "$cut_pid"
tap_check "the display's clipboard reaches a viewer behind the relay" test $? -eq 0
"$input" "127.0.0.1:$PORT" cut 'from the site'
sleep 0.7
tap_check "a viewer's clipboard reaches the display" \
	test "$(timeout 5 xclip -selection clipboard -o)" = 'from the site'
start_relay rv "$(sed -n 's/^varg-server: listening on [0-9.]*:\([0-9]*\) .*/\1/p' "$work/x.out")" \
	--view-only --no-persistent-cache --beliefs-dir "$work/beliefs-rv" || exit 1
"$input" "127.0.0.1:$PORT" move 200 210 click 1 sleep 300
sleep 0.5
tap_check "a view-only relay passes no input" sh -c "! grep -q 'motion 200 210' '$work/probe.log'"
tap_done
