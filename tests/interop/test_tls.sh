#!/bin/sh
# TLS (VeNCrypt) on varg-server, against real clients: TigerVNC's vncviewer
# with X509Vnc and X509None ends with the exact picture; the bytes after
# the negotiation hold no RFB plaintext (a recording relay; the same check
# finds it in a plain session); plain clients are refused with the reason;
# garbage, stalled handshakes, a client verifying against another CA
# (openssl s_client) and 60 handshakes at once do not keep a good client
# out; a certificate of one's own; varg-relay with TLS on both sides,
# its upstream pinned (another pin stops it, status 4).
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"
TRACE=$S/traces/samples/heatmap-scroll.vtr
probe="python3 $S/tests/vg_tlsprobe.py"
N=19
tap_plan $N
for tool in Xvfb vncviewer vncsnapshot vncpasswd openssl python3 xwd convert; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		for _ in $(seq 1 $N); do tap_skip "$tool is not installed (scripts/setup)"; done
		exit 0
	fi
done

echo secret-pw | vncpasswd -f >"$work/pw"
chmod 600 "$work/pw"
last_frame "$TRACE" "$work/expected.png" || { tap_not_ok "export the trace's last frame"; exit 1; }
start_xvfb 1024x768 || exit 1
CERT=$XDG_STATE_HOME/varg/beliefs/tls-cert.pem

# tigervnc NAME PORT ARGS...: vncviewer full screen on the Xvfb, in the
# background (VV_PID); ZRLE only, as TigerVNC's automatic choice changes
# encodings in the middle of the stream on slow links.
tigervnc() {
	name=$1; port=$2; shift 2
	DISPLAY=$XDPY timeout -k 5 60 vncviewer -FullScreen -AutoSelect=0 -PreferredEncoding ZRLE \
		-X509CRL /dev/null "$@" "127.0.0.1::$port" >"$work/$name.vv.log" 2>&1 &
	VV_PID=$!
	pids="$pids $VV_PID"
}
screen_is() {
	DISPLAY=$XDPY xwd -silent -root 2>/dev/null | convert xwd:- "png:$work/screen.png" 2>/dev/null &&
		"$B/tests/vg_imgcmp" "$work/screen.png" "$1" >"$work/cmp.txt" 2>&1
}
# shows NAME: the viewer's picture becomes the trace's last frame.
shows() {
	wait_for 30 screen_is "$work/expected.png" && return 0
	echo "# $1: $(cat "$work/cmp.txt")"; sed 's/^/#   vncviewer: /' "$work/$1.vv.log" | tail -8
	return 1
}
stop_vv() { kill "$VV_PID" 2>/dev/null; wait "$VV_PID" 2>/dev/null; }

# --- --tls with a password: X509Vnc.
start_server tls --trace "$TRACE" --speed 0 --tls --password-file "$work/pw" || exit 1
TLS_PORT=$PORT
TLS_PID=$SERVER_PID
printed=$(sed -n 's/^varg-server: certificate SHA-256 fingerprint //p' "$work/tls.out")
real=$(openssl x509 -in "$CERT" -noout -fingerprint -sha256 | sed 's/^[^=]*=//')
echo "# printed $printed"
tap_check "the server prints its certificate's SHA-256 fingerprint" test -n "$printed" -a "$printed" = "$real"
modes=$(stat -c %a "$CERT" "$(dirname "$CERT")/tls-key.pem" | tr '\n' ' ')
tap_check "the generated certificate and key are private ($modes)" test "$modes" = "600 600 "

# A recording relay in front: what crosses the network.
$probe record 0 "$TLS_PORT" "$work/tls.cap" >"$work/rec.out" 2>&1 &
pids="$pids $!"
wait_for 5 grep -q port "$work/rec.out"
REC=$(sed -n 's/^port //p' "$work/rec.out")
tigervnc x509vnc "$REC" -SecurityTypes X509Vnc -X509CA "$CERT" -PasswordFile "$work/pw"
tap_check "vncviewer with X509Vnc ends with the exact picture" shows x509vnc
stop_vv
# plaintext FILE: RFB's version after the first 12 bytes, or ServerInit's
# desktop name (u32 length, "varg"), anywhere.
plaintext() {
	python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
sys.exit(0 if (b"RFB 003" in d[12:] or b"\0\0\0\4varg" in d) else 1)' "$1"
}
tls_records() {
	python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
sys.exit(0 if len(d) > 1000 and b"\x16\x03\x03" in d[:64] else 1)' "$1"
}
echo "# recorded $(wc -c <"$work/tls.cap.1") bytes from the server"
tap_check "the recorded session is TLS after the negotiation" tls_records "$work/tls.cap.1"
no_plaintext() { ! plaintext "$1"; }
tap_check "and holds no RFB plaintext (version, desktop name)" no_plaintext "$work/tls.cap.1"

# A plain client against --tls: refused, with the reason.
timeout 20 vncsnapshot -quiet "127.0.0.1::$TLS_PORT" "$work/snap.jpg" >"$work/snap.log" 2>&1
echo "# vncsnapshot: $(tr '\n' ' ' <"$work/snap.log")"
tap_check "vncsnapshot (RFB 3.3) is refused with the reason" grep -q "requires TLS" "$work/snap.log"
out=$("$B/tests/vg_authprobe" 127.0.0.1 "$TLS_PORT" 8 1)
echo "# RFB 3.8 probe choosing None: $out"
tap_check "an RFB 3.8 client is offered VeNCrypt alone, and None is refused" test "$out" = "offered=19 result=closed"

# Hostile and heavy peers, held while a good client connects.
python3 -c 'import os, socket, sys, time
for _ in range(5):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    s.sendall(b"RFB 003.008\n\x13\x00\x02\x00\x00\x01\x05" + os.urandom(3000))
    s.settimeout(10)
    try:
        while s.recv(4096):
            pass
    except OSError:
        pass
print("garbage done")' "$TLS_PORT" >"$work/garbage.out" 2>&1
tap_check "garbage after the negotiation is closed" grep -q "garbage done" "$work/garbage.out"
$probe connect "$TLS_PORT" --count 20 --stall 40 >"$work/stall.out" 2>&1 &
pids="$pids $!"
$probe negotiate-proxy 0 "$TLS_PORT" >"$work/proxy.out" 2>&1 &
pids="$pids $!"
wait_for 5 grep -q port "$work/proxy.out"
PROXY=$(sed -n 's/^port //p' "$work/proxy.out")
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=other \
	-keyout "$work/other.key" -out "$work/other.pem" >/dev/null 2>&1
timeout 20 openssl s_client -connect "127.0.0.1:$PROXY" -CAfile "$work/other.pem" -verify_return_error \
	</dev/null >"$work/s_client.out" 2>&1
st=$?
echo "# s_client: $(grep -m1 -i 'verify' "$work/s_client.out")"
tap_check "openssl s_client verifying against another CA fails (status $st)" \
	sh -c "test $st -ne 0 && grep -qi 'verify' '$work/s_client.out'"
out=$($probe connect "$TLS_PORT" --ca "$CERT" --count 60)
echo "# 60 at once: $out"
if [ "$out" != "ok 60 261 TLSv1.3" ]; then
	grep -v "TLS handshake timed out\|TLS session ended" "$work/tls.err" | tail -20 | sed 's/^/#   server: /'
fi
tap_check "60 handshakes at once all succeed, verified" test "$out" = "ok 60 261 TLSv1.3"
tigervnc good "$TLS_PORT" -SecurityTypes X509Vnc -X509CA "$CERT" -PasswordFile "$work/pw"
tap_check "beside 20 stalled handshakes a good client ends exact" shows good
stop_vv
ticks() { awk '{ print $14 + $15 }' "/proc/$TLS_PID/stat"; }
t0=$(ticks); sleep 1; t1=$(ticks)
tap_check "and the server does not spin ($((t1 - t0)) ticks in 1 s)" test $((t1 - t0)) -lt 50

# --- --tls without a password: X509None.
start_server tlsnone --trace "$TRACE" --speed 0 --tls || exit 1
tigervnc x509none "$PORT" -SecurityTypes X509None -X509CA "$CERT"
tap_check "vncviewer with X509None ends with the exact picture" shows x509none
stop_vv
stop_server

# --- the same recording of a plain session finds the plaintext.
start_server plain --trace "$TRACE" --speed 0 --no-tls || exit 1
$probe record 0 "$PORT" "$work/plain.cap" >"$work/rec2.out" 2>&1 &
pids="$pids $!"
wait_for 5 grep -q port "$work/rec2.out"
REC2=$(sed -n 's/^port //p' "$work/rec2.out")
tigervnc plain "$REC2" -SecurityTypes None
shows plain >/dev/null
stop_vv
tap_check "the plaintext check finds RFB in a plain session (it can fail)" plaintext "$work/plain.cap.1"
stop_server

# --- a certificate of one's own.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
	-addext subjectAltName=IP:127.0.0.1 -keyout "$work/own.key" -out "$work/own.pem" >/dev/null 2>&1
start_server own --trace "$TRACE" --speed 0 --tls --tls-cert "$work/own.pem" --tls-key "$work/own.key" || exit 1
printed=$(sed -n 's/^varg-server: certificate SHA-256 fingerprint //p' "$work/own.out")
real=$(openssl x509 -in "$work/own.pem" -noout -fingerprint -sha256 | sed 's/^[^=]*=//')
out=$($probe connect "$PORT" --ca "$work/own.pem")
echo "# own certificate: $out"
tap_check "--tls-cert and --tls-key: that certificate, verified" \
	test "$out" = "ok 1 260 TLSv1.3" -a "$printed" = "$real"

# --- varg-relay with TLS on both sides: its downstream requires it, its
# upstream (a server in the default mode) is pinned to the certificate
# that server printed; a viewer through it ends exact.
start_server up --trace "$TRACE" --speed 0 || exit 1
UPORT=$PORT
upfp=$(sed -n 's/^varg-server: certificate SHA-256 fingerprint //p' "$work/up.out")
RPORT=$(random_port)
"$B/server/varg-relay" --port "$RPORT" --tls --beliefs-dir "$work/relay-state" --no-persistent-cache \
	--upstream-tls --upstream-tls-fingerprint "$upfp" --stats-json "$work/relay.json" "127.0.0.1::$UPORT" \
	>"$work/relay.out" 2>"$work/relay.err" &
RELAY_PID=$!
pids="$pids $RELAY_PID"
wait_for 15 grep -q "listening" "$work/relay.out"
RCERT=$work/relay-state/tls-cert.pem
out=$($probe connect "$RPORT" --ca "$RCERT")
echo "# relay: $out"
tap_check "varg-relay --tls: VeNCrypt with its own certificate" test "$out" = "ok 1 260 TLSv1.3"
out=$("$B/tests/vg_authprobe" 127.0.0.1 "$RPORT" 8 1)
tap_check "and no plain type ($out)" test "$out" = "offered=19 result=closed"
PORT=$RPORT
viewer through --tls --tls-ca "$RCERT"
wait "$pid_through"
st=$?
tap_check "a viewer through the relay, TLS on both sides, ends exact (exit $st)" \
	sh -c "[ $st -eq 0 ] && grep -q '\"encrypted\": true' '$work/through.json' &&
	       '$B/tests/vg_imgcmp' '$work/through.png' '$work/expected.png'"
kill "$RELAY_PID"; wait "$RELAY_PID" 2>/dev/null
# Pinned to another certificate: the relay refuses the upstream, status 4,
# naming both fingerprints.
"$B/server/varg-relay" --port "$(random_port)" --no-persistent-cache --beliefs-dir "$work/relay-state" \
	--upstream-tls-fingerprint "$real" "127.0.0.1::$UPORT" >"$work/relay2.out" 2>"$work/relay2.err"
st=$?
echo "# $(cat "$work/relay2.err")"
tap_check "a relay pinned to another certificate stops, status 4, naming both" \
	sh -c "[ $st -eq 4 ] && grep -qF '$upfp' '$work/relay2.err' && grep -qF '$real' '$work/relay2.err'"
tap_done
