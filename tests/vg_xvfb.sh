# Sourced by tests that need an X display: private Xvfb, Xvnc and x11vnc
# servers, each added to $pids for the caller's cleanup (vg_e2e.sh).

# start_xvfb WIDTHxHEIGHT: a private Xvfb; sets XDPY (":N"). It may take
# seconds on a loaded machine (a browser closing beside it took more than
# ten once): up to 30 s.
start_xvfb() {
	rm -f "$work/displayfd"
	Xvfb -displayfd 3 -screen 0 "${1}x24" -nolisten tcp -noreset \
		3>"$work/displayfd" >"$work/xvfb.log" 2>&1 &
	xvfb_pid=$!
	pids="$pids $xvfb_pid"
	XDPY=""
	for _ in $(seq 1 300); do
		n=$(cat "$work/displayfd" 2>/dev/null)
		case "$n" in *[0-9]*) XDPY=":$(echo "$n" | tr -dc 0-9)"; return 0 ;; esac
		kill -0 "$xvfb_pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$xvfb_pid" 2>/dev/null; then
		echo "# Xvfb did not name its display within 30 s:"
	else
		echo "# Xvfb exited before naming its display:"
	fi
	sed 's/^/#   /' "$work/xvfb.log"
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

# start_xvnc WIDTHxHEIGHT [ARGS...]: TigerVNC's Xvnc, no authentication
# unless ARGS say otherwise (e.g. -SecurityTypes X509None ...), on a free
# display and a random VNC port, tried until one is free (the port
# XVNC_PORT if set, tried once); sets XDPY (":N") and VNC_PORT.
start_xvnc() {
	geometry=$1; shift
	for _ in 1 2 3 4 5 6 7 8; do
		VNC_PORT=${XVNC_PORT:-$(random_port)}
		rm -f "$work/displayfd"
		Xvnc -displayfd 3 -rfbport "$VNC_PORT" -SecurityTypes None -geometry "$geometry" -depth 24 \
			-localhost -nolisten tcp "$@" 3>"$work/displayfd" >"$work/xvnc.log" 2>&1 &
		xvnc=$!
		for _ in $(seq 1 50); do
			grep -q '[0-9]' "$work/displayfd" 2>/dev/null && break
			kill -0 "$xvnc" 2>/dev/null || break
			sleep 0.1
		done
		# A VNC port already taken ends Xvnc just after it names its display.
		sleep 0.3
		if kill -0 "$xvnc" 2>/dev/null && grep -q '[0-9]' "$work/displayfd"; then
			pids="$pids $xvnc"
			XDPY=":$(tr -dc 0-9 <"$work/displayfd")"
			return 0
		fi
		kill "$xvnc" 2>/dev/null
		wait "$xvnc" 2>/dev/null
		[ -n "${XVNC_PORT:-}" ] && break
	done
	echo "# Xvnc did not start:"; sed 's/^/#   /' "$work/xvnc.log"
	return 1
}

# port_answers PORT: something accepts a TCP connection on 127.0.0.1:PORT.
port_answers() {
	python3 -c 'import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()' "$1" 2>/dev/null
}

# start_x11vnc DISPLAY ARGS...: x11vnc, no password, sharing DISPLAY on a
# random port, tried until one is free and answers; sets X11VNC_PORT.
start_x11vnc() {
	xd=$1; shift
	for _ in 1 2 3 4 5 6 7 8; do
		X11VNC_PORT=$(random_port)
		x11vnc -display "$xd" -rfbport "$X11VNC_PORT" -localhost -nopw -forever -shared -quiet "$@" \
			>"$work/x11vnc.log" 2>&1 &
		xpid=$!
		for _ in $(seq 1 100); do
			grep -q "PORT=$X11VNC_PORT" "$work/x11vnc.log" && break
			kill -0 "$xpid" 2>/dev/null || break
			sleep 0.1
		done
		# Announced is not answering: under load a test once found
		# the port of an announced x11vnc refusing connections.
		if grep -q "PORT=$X11VNC_PORT" "$work/x11vnc.log" && wait_for 5 port_answers "$X11VNC_PORT"; then
			pids="$pids $xpid"
			return 0
		fi
		kill "$xpid" 2>/dev/null
		wait "$xpid" 2>/dev/null
	done
	echo "# x11vnc did not start:"; sed 's/^/#   /' "$work/x11vnc.log"
	return 1
}

# start_wm DISPLAY: evilwm on DISPLAY, waited for until it has announced
# itself (_NET_SUPPORTING_WM_CHECK on the root window). Installed is not
# running: evilwm's default font ("variable") is not among Debian's base
# X fonts and without a font it exits at once, so it gets "fixed".
start_wm() {
	if ! command -v evilwm >/dev/null 2>&1; then
		echo "# no evilwm installed (scripts/setup installs it)"
		return 1
	fi
	DISPLAY=$1 evilwm -fn fixed >"$work/wm.log" 2>&1 &
	wm_pid=$!
	pids="$pids $wm_pid"
	for _ in $(seq 1 100); do
		DISPLAY=$1 xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q 'window id' && return 0
		kill -0 "$wm_pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "# the window manager did not start on $1:"
	sed 's/^/#   /' "$work/wm.log"
	return 1
}

# wait_for SECONDS CMD...: retries CMD every 0.2 s until it succeeds, for
# at most SECONDS of wall time (however long CMD takes).
wait_for() {
	end=$(($(date +%s) + $1)); shift
	while :; do
		"$@" && return 0
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# The helpers below drive a varg-viewer window on the display $NEAR.

# window_viewer NAME ARGS...: varg-viewer with a window on $NEAR, its
# output in $work/NAME.log; sets VPID and WID (its X window) once the
# window shows.
window_viewer() {
	name=$1; shift
	# A UTF-8 locale: X input methods compose dead keys only there.
	LC_ALL=C.UTF-8 DISPLAY=$NEAR SDL_VIDEODRIVER=x11 timeout 120 $VG_WRAP "$B/viewer/varg-viewer" \
		--cache-dir "$work/cache-$name" "$@" >"$work/$name.log" 2>&1 &
	VPID=$!
	pids="$pids $VPID"
	WID=""
	for _ in $(seq 1 50); do
		WID=$(DISPLAY=$NEAR xdotool search --pid "$VPID" --name '^varg-viewer' 2>/dev/null | head -1)
		[ -n "$WID" ] && return 0
		kill -0 "$VPID" 2>/dev/null || break
		sleep 0.2
	done
	echo "# viewer $name has no window:"; sed 's/^/#   /' "$work/$name.log"
	return 1
}

# shot_window OUT.png / shot_root DISPLAY OUT.png: exact screenshots
# (ImageMagick reads the DirectColor visual SDL's window may have).
shot_window() { DISPLAY=$NEAR xwd -silent -id "$WID" 2>/dev/null | convert xwd:- "png:$1" 2>/dev/null; }
shot_root() { DISPLAY=$1 xwd -silent -root 2>/dev/null | convert xwd:- "png:$2" 2>/dev/null; }

# window_matches REF: the window shows exactly the image REF.
window_matches() {
	shot_window "$work/win.png" && "$B/tests/vg_imgcmp" "$work/win.png" "$1" >"$work/cmp.txt" 2>&1
}

# window_ends REF SECONDS: window_matches within SECONDS; says why not.
window_ends() {
	wait_for "$2" window_matches "$1" && return 0
	echo "# window vs $1: $(cat "$work/cmp.txt")"
	DISPLAY=$NEAR xwininfo -id "$WID" | grep -E 'Absolute|Width|Height' | sed 's/^/# /'
	return 1
}
