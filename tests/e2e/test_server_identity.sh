#!/bin/sh
# The server's identity is a random key in its state directory: a server
# restarted on another port keeps it (its viewers stay warm), another
# state directory or a second server running at once gets another, and a
# damaged key is replaced with a warning.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"
TRACE=$S/traces/samples/treeview-scroll.vtr
tap_plan 9

last_frame "$TRACE" "$work/expected.png" || { tap_not_ok "export the trace's last frame"; exit 1; }
cache=$work/cache
keys=$XDG_STATE_HOME/varg/beliefs

# run_viewer NAME: a viewer with the shared persistent cache, to its end.
run_viewer() {
	CACHE=$cache viewer "$1"
	eval wait "\$pid_$1"
	st=$?
	echo "# $1: $(json_num "$work/$1.json" bytes_received) bytes"
	[ $st -eq 0 ] && same_image "$work/$1.png" "$work/expected.png"
}
sessions_ended() {
	for _ in $(seq 1 100); do
		[ "$(grep -c 'Varg session ended' "$work/$1.err")" -ge 1 ] && return 0
		sleep 0.1
	done
	return 1
}
# server_on NAME: a server on a port of its own (start_server's random one).
server_on() {
	n=$1; shift
	start_server "$n" --trace "$TRACE" --speed 0 --wait-clients 1 "$@"
}

server_on a || exit 1
port_a=$PORT
tap_check "cold run ends exact" run_viewer cold
sessions_ended a
stop_server
server_on b || exit 1
echo "# ports: $port_a, then $PORT"
tap_check "the server restarted on another port ends exact" run_viewer warm
sessions_ended b
stop_server
tap_check "and the viewer kept one cache namespace" test "$(ls -d "$cache"/id-* | wc -l)" -eq 1
cold=$(json_num "$work/cold.json" bytes_received)
warm=$(json_num "$work/warm.json" bytes_received)
tap_check "and started warm: $warm bytes against $cold cold" test $((warm * 2)) -le "$cold"
tap_check "the key file is private (0600)" test "$(stat -c %a "$keys/server-key")" = 600

# Two servers at once from one state directory: two identities.
server_on c1 || exit 1
p1=$SERVER_PID
server_on c2 || exit 1
tap_check "a second server running at once takes another key" \
	test -s "$keys/server-key-2" -a "$(cat "$keys/server-key")" != "$(cat "$keys/server-key-2")"
stop_server
SERVER_PID=$p1 stop_server

# Another state directory: another identity.
server_on other --beliefs-dir "$work/other" || exit 1
stop_server
tap_check "another state directory has another key" \
	test -s "$work/other/server-key" -a "$(cat "$keys/server-key")" != "$(cat "$work/other/server-key")"

# A damaged key: replaced, with a warning.
echo "not a key" >"$work/other/server-key"
server_on damaged --beliefs-dir "$work/other" || exit 1
stop_server
tap_check "a damaged key is replaced" grep -qx '[0-9a-f]\{32\}' "$work/other/server-key"
tap_check "with a warning" grep -q 'damaged: a new server identity' "$work/damaged.err"
tap_done
