# Sourced by tests that need an X display: start_xvfb WIDTHxHEIGHT starts
# a private Xvfb and sets XDPY (":N"); the caller's cleanup kills $pids.
start_xvfb() {
	rm -f "$work/displayfd"
	Xvfb -displayfd 3 -screen 0 "${1}x24" -nolisten tcp -noreset \
		3>"$work/displayfd" >"$work/xvfb.log" 2>&1 &
	pids="$pids $!"
	XDPY=""
	for _ in $(seq 1 100); do
		n=$(cat "$work/displayfd" 2>/dev/null)
		case "$n" in *[0-9]*) XDPY=":$(echo "$n" | tr -dc 0-9)"; return 0 ;; esac
		sleep 0.1
	done
	echo "# Xvfb did not start:"; sed 's/^/#   /' "$work/xvfb.log"
	return 1
}

# wait_line FILE TEXT: waits up to 10 s for a line TEXT in FILE.
wait_line() {
	for _ in $(seq 1 100); do
		grep -qx "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "# no '$2' in $1"
	return 1
}
