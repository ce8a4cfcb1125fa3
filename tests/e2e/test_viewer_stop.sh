#!/bin/sh
# varg-viewer can be stopped, and gives up in time, at every blocking
# point before a connection stands: a server that accepts and never
# speaks, an SSH tunnel that never opens, the window mode's handshake.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"
tap_plan 10

command -v nc >/dev/null || { echo "# nc (netcat-openbsd) is needed: scripts/setup installs it"; exit 1; }

# silent: a server that accepts and says nothing, on $SILENT.
silent() {
	for _ in 1 2 3 4 5 6 7 8; do
		SILENT=$(random_port)
		(sleep 60 | nc -l 127.0.0.1 "$SILENT" >/dev/null 2>&1) &
		pids="$pids $!"
		for _ in $(seq 1 30); do
			ss -ltn "sport = :$SILENT" | grep -q LISTEN && return 0
			sleep 0.1
		done
	done
	echo "# nc did not listen"
	return 1
}

# stopped_by SIG STATUS TEXT CMD...: starts CMD, sends SIG once it waits,
# and checks it ends within 2 s with STATUS and one stderr line with TEXT.
stopped_by() {
	sig=$1 want=$2 text=$3; shift 3
	"$@" >"$work/out" 2>"$work/err" &
	p=$!
	sleep 1
	kill -0 "$p" 2>/dev/null || { echo "# it ended before the signal:"; sed 's/^/#   /' "$work/err"; return 1; }
	kill "-$sig" "$p"
	ends_within 20 "$p" || { echo "# still running 2 s after SIG$sig"; kill -9 "$p"; wait "$p"; return 1; }
	wait "$p"
	st=$?
	echo "#   exit $st: $(cat "$work/err")"
	[ "$st" -eq "$want" ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -qF -- "$text" "$work/err"
}

V="$B/viewer/varg-viewer"
silent || exit 1
start=$(date +%s)
tap_check "a silent server: --timeout 2 gives up with one line, status 1" \
	fails_saying 1 "did not complete the handshake within 2 s" \
	"$V" --headless --no-persistent-cache --timeout 2 "localhost::$SILENT"
tap_check "within 4 s" test $(($(date +%s) - start)) -le 4
silent || exit 1
tap_check "a silent server: SIGTERM during the handshake ends it, status 143" \
	stopped_by TERM 143 "stopped during the handshake" "$V" --headless --no-persistent-cache "localhost::$SILENT"
silent || exit 1
tap_check "a silent server: SIGINT during the handshake ends it, status 130" \
	stopped_by INT 130 "stopped during the handshake" "$V" --headless --no-persistent-cache "localhost::$SILENT"
tap_check "a bad --timeout is refused" fails_saying 2 "--timeout" "$V" --headless --timeout 0.01 localhost::1

# -via with an ssh that never opens its tunnel.
cat >"$work/fake-ssh" <<'EOS'
#!/bin/sh
echo $$ >"${0%/*}/fake-ssh.pid"
exec sleep 60
EOS
chmod +x "$work/fake-ssh"
tap_check "-via: SIGTERM while waiting for the tunnel ends it, status 143" \
	stopped_by TERM 143 "stopped while waiting for the tunnel" \
	env VARG_VIA_SSH="$work/fake-ssh" "$V" --headless --no-persistent-cache -via gateway localhost:1
ssh_gone() { sleep 0.2; ! kill -0 "$(cat "$work/fake-ssh.pid")" 2>/dev/null; }
tap_check "and leaves no ssh behind" ssh_gone

# The window: the same handshake, and SIGTERM also once connected.
start_xvfb 800x600 || exit 1
silent || exit 1
tap_check "window: SIGTERM during the handshake ends it, status 143" \
	stopped_by TERM 143 "stopped during the handshake" \
	env DISPLAY="$XDPY" SDL_VIDEODRIVER=x11 "$V" --no-persistent-cache "localhost::$SILENT"
TRACE=$S/traces/samples/heatmap-scroll.vtr
start_server win --trace "$TRACE" --speed 0 || exit 1
DISPLAY="$XDPY" SDL_VIDEODRIVER=x11 "$V" --no-persistent-cache "localhost::$PORT" >"$work/win.out" 2>"$work/win.err" &
wp=$!
sleep 2
kill -TERM "$wp"
ended=no
ends_within 30 "$wp" && ended=yes
tap_check "window: SIGTERM once connected ends it within 3 s" test "$ended" = yes
[ "$ended" = yes ] || kill -9 "$wp"
wait "$wp"
st=$?
tap_check "with status 0, as asked (got $st)" test "$st" -eq 0
tap_done
