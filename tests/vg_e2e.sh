# Sourced by end-to-end tests: starts real varg-server processes on free
# loopback ports and cleans up after them.
B=${VG_TOP_BUILDDIR:-.}
S=${VG_TOP_SRCDIR:-.}
work=$(mktemp -d "${TMPDIR:-/tmp}/varg-e2e.XXXXXX")
# fails_cleanly (tap.sh) keeps its scratch files in $tmp.
tmp=$work
# Servers keep their beliefs about viewers here, not in the real state dir.
XDG_STATE_HOME=$work/state
export XDG_STATE_HOME
# Viewers remember servers' TLS certificates in their cache directory,
# also without a segment cache: here, not in the real one, where another
# test's server on the same port would show another certificate.
XDG_CACHE_HOME=$work/cache-home
export XDG_CACHE_HOME
pids=""
# VG_WRAP: a command put before every varg-server and varg-viewer (e.g.
# valgrind, see scripts/valgrind-e2e); empty normally.
VG_WRAP=${VG_WRAP:-}

e2e_cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	# Bounded: x11vnc, for one, can hang in its SIGTERM handler once its
	# X server is gone.
	for p in $pids; do
		ends_within 50 "$p" || kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$work"
}
trap e2e_cleanup EXIT INT TERM

# random_port: a TCP port to try for a server; the caller checks that the
# server could take it.
random_port() { echo $((20000 + $(od -An -N2 -tu2 /dev/urandom) % 20000)); }

# start_server NAME ARGS...: starts varg-server on a free port; sets PORT.
# The port is a random one, another tried if it is taken, not the first
# free from 5900: there every server of a parallel suite looks first, and
# a test that restarts a server on its port must find it free. A --port
# in ARGS wins.
start_server() {
	name=$1; shift
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		try_server "$name" --port "$(random_port)" "$@" && return 0
		grep -q "cannot listen" "$work/$name.err" 2>/dev/null || break
	done
	echo "# server $name did not start:"; sed 's/^/#   /' "$work/$name.err"
	return 1
}

# try_server NAME ARGS...: one attempt of start_server.
try_server() {
	name=$1; shift
	$VG_WRAP "$B/server/varg-server" "$@" >"$work/$name.out" 2>"$work/$name.err" &
	pids="$pids $!"
	SERVER_PID=$!
	PORT=""
	for _ in $(seq 1 "${START_TRIES:-100}"); do
		PORT=$(sed -n 's/^varg-server: listening on [0-9.]*:\([0-9]*\) .*/\1/p' "$work/$name.out" 2>/dev/null)
		[ -n "$PORT" ] && return 0
		kill -0 "$SERVER_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$SERVER_PID" 2>/dev/null || wait "$SERVER_PID" 2>/dev/null
	return 1
}

stop_server() {
	kill "$SERVER_PID" 2>/dev/null
	wait "$SERVER_PID" 2>/dev/null
}

# viewer NAME ARGS...: a headless varg-viewer in the background, snapshot
# and stats in $work/NAME.png and $work/NAME.json, its segment caches in
# $CACHE if set (none if set empty), else in $work/cache-NAME.
viewer() {
	name=$1; shift
	cache=${CACHE-$work/cache-$name}
	timeout "${VIEWER_TIMEOUT:-300}" $VG_WRAP "$B/viewer/varg-viewer" --headless --exit-when-idle "${IDLE:-6}" \
		--snapshot "$work/$name.png" --stats-json "$work/$name.json" \
		${cache:+--cache-dir "$cache"} "$@" \
		"localhost::$PORT" >"$work/$name.log" 2>&1 &
	pids="$pids $!"
	eval "pid_$name=$!"
}

# json_num FILE KEY: the number after "KEY": in a stats file.
json_num() {
	sed -n "s/.*\"$2\": *\([0-9][0-9]*\).*/\1/p" "$1" | head -1
}

# same_image A B [MAX_MEAN]: compares two images, quietly unless they differ.
same_image() {
	if out=$("$B/tests/vg_imgcmp" "$@" 2>&1); then
		return 0
	fi
	echo "# $1 vs $2: $out"
	return 1
}

# last_frame TRACE OUT.png: the trace's final frame.
last_frame() {
	rm -rf "$work/frames"
	"$B/traces/varg-trace" export --frames "$work/frames" "$1" >/dev/null 2>&1 || return 1
	cp "$(ls "$work"/frames/*.png | tail -1)" "$2"
}

# ends_within TENTHS PID: whether PID ends within TENTHS tenths of a second.
ends_within() {
	for _ in $(seq 1 "$1"); do
		kill -0 "$2" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# bench_netem_or_tun SKIPS CMD...: runs a benchmark script, its output in
# $tmp/bench.out and $tmp/bench.err, and shows that output; if tc refused
# netem (exit 3: this kernel has no sch_netem) says so and runs it again
# with --link tun. When it exits 77 (no network namespaces, a missing
# program) skips SKIPS checks and ends the test. Sets rc.
bench_netem_or_tun() {
	skips=$1; shift
	rc=0
	"$@" >"$tmp/bench.out" 2>"$tmp/bench.err" || rc=$?
	if [ $rc -eq 3 ]; then
		# Said, not hidden: the user-space link instead.
		echo "# $(tail -1 "$tmp/bench.err")"
		echo "# running again with --link tun"
		rc=0
		"$@" --link tun >"$tmp/bench.out" 2>"$tmp/bench.err" || rc=$?
	fi
	sed 's/^/# /' "$tmp/bench.out" "$tmp/bench.err"
	if [ $rc -eq 77 ]; then
		for _ in $(seq 1 "$skips"); do tap_skip "$(tail -1 "$tmp/bench.err")"; done
		tap_done
		exit
	fi
}
