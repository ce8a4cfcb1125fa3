#!/bin/sh
# varg-server --http against a real headless Chromium running noVNC from
# Debian's novnc package: the files served and refused, noVNC over
# WebSocket on the RFB port ending with the trace's last frame exactly
# (Varg's page, standard encodings) or within JPEG's error (noVNC's own
# page); the Varg decoder in WebAssembly ending exact with varg-viewer's
# bytes, and warm after a reload; passwords and view-only as for raw RFB,
# the same through varg-relay, and RFB viewers still served on the port;
# with --http-port, browsers on a port of their own, a request that comes
# late still answered there, and the RFB port serving no files;
# with --tls, Chromium trusting the test's own CA over https:// and
# wss:// ending exact, plain http:// and ws:// refused. VG_SKIP_BROWSER=1
# skips it; otherwise a missing browser is a failure (scripts/setup
# installs it).
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"
TRACE=$S/traces/samples/treeview-scroll.vtr
# The browser driver; what it says on standard error (why a page did not
# come up, its console) goes to the TAP log as comments, through fd 3,
# whatever the call's own output is redirected to.
exec 3>&1
browse() {
	/usr/bin/python3 "$S/tests/vg_browser.py" "$@" 2>"$work/browser.err"
	b_rc=$?
	sed 's/^/#   browser: /' "$work/browser.err" >&3
	return $b_rc
}
browser=browse
NOVNC=/usr/share/novnc
plan=45
tap_plan $plan
if [ "${VG_SKIP_BROWSER:-0}" = 1 ]; then
	for i in $(seq $plan); do tap_skip "VG_SKIP_BROWSER=1"; done
	exit 0
fi
for need in chromium curl vncpasswd Xvfb openssl certutil; do
	command -v "$need" >/dev/null || { echo "# $need is missing: run scripts/setup (or VG_SKIP_BROWSER=1)"; exit 1; }
done
[ -f "$NOVNC/core/rfb.js" ] || { echo "# no noVNC in $NOVNC: run scripts/setup"; exit 1; }
/usr/bin/python3 -c 'import websocket' 2>/dev/null ||
	{ echo "# python3-websocket is missing: run scripts/setup"; exit 1; }
export VG_BROWSER_PROFILE="$work/chromium"

tap_check "--http with no such directory fails in one line" \
	fails_saying 2 "not a directory" "$B/server/varg-server" --trace "$TRACE" --http="$work/none"

last_frame "$TRACE" "$work/last.png" || exit 1
# The server plays the trace as fast as its first client takes it.
start_server web --trace "$TRACE" --speed 0 --wait-clients 1 --http || exit 1
url=http://127.0.0.1:$PORT
tap_check "it says where browsers go" grep -q "browsers open $url/ (files from $NOVNC)" "$work/web.out"

# code ARGS...: the HTTP status curl gets.
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
tap_check "/ leads to Varg's page" \
	test "$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "$url/")" = "302 $url/varg.html"
curl -s "$url/varg.html" >"$work/varg.html"
curl -s -D "$work/rfb.head" "$url/core/rfb.js" >"$work/rfb.js"
tap_check "Varg's page and noVNC's files are served as they are" \
	sh -c "cmp -s '$work/varg.html' '$S/viewer/web/varg.html' && cmp -s '$work/rfb.js' '$NOVNC/core/rfb.js'"
tap_check "scripts as JavaScript (modules need it)" grep -qi '^content-type: text/javascript' "$work/rfb.head"
mod=$(sed -n 's/^[Ll]ast-[Mm]odified: \(.*\)\r$/\1/p' "$work/rfb.head")
tap_check "unchanged files are not sent again (304)" \
	test "$(code -H "If-Modified-Since: $mod" "$url/core/rfb.js")" = 304
printf 'HEAD /core/rfb.js HTTP/1.0\r\n\r\n' | nc -q 5 127.0.0.1 "$PORT" >"$work/head.out"
tap_check "HEAD: the length, no body" \
	sh -c "grep -qi '^content-length: $(wc -c <"$NOVNC/core/rfb.js")' '$work/head.out' &&
	       test \"\$(tail -c 4 '$work/head.out' | od -An -tx1 | tr -d ' ')\" = 0d0a0d0a"
tap_check "a missing file and a directory are not found (404)" \
	sh -c "test \"\$(curl -s -o /dev/null -w '%{http_code}' '$url/nothing.js')\" = 404 &&
	       test \"\$(curl -s -o /dev/null -w '%{http_code}' '$url/core')\" = 404"
tap_check "paths out of the directory are refused (.., %2e%2e)" \
	sh -c "test \"\$(curl -s --path-as-is -o /dev/null -w '%{http_code}' '$url/../../etc/passwd')\" = 400 &&
	       test \"\$(curl -s -o /dev/null -w '%{http_code}' '$url/core/%2e%2e/%2e%2e/etc/passwd')\" = 400"
tap_check "POST is refused (405)" test "$(code -X POST -d x "$url/varg.html")" = 405
long=$(head -c 9000 /dev/zero | tr '\0' a)
tap_check "a 9000-byte path is refused (414), 9000 bytes of headers too (431)" \
	sh -c "test \"\$(curl -s -o /dev/null -w '%{http_code}' '$url/$long')\" = 414 &&
	       test \"\$(curl -s -o /dev/null -w '%{http_code}' -H 'X-Long: $long' '$url/varg.html')\" = 431"

$browser canvas "$url/varg.html#varg=0" "$work/last.png" "$work/page.png" --timeout 90 \
	--status-js "window.varg && varg.status()"
tap_check "noVNC on Varg's page, standard encodings, ends with the trace's last frame exactly" test $? -eq 0
# The same port still serves VNC viewers.
IDLE=3 viewer after
wait "$pid_after"
tap_check "a Varg viewer on the same port ends exact" same_image "$work/after.png" "$work/last.png"
IDLE=3 viewer after_stock --no-varg --encodings "tight zrle"
wait "$pid_after_stock"
tap_check "a stock VNC viewer on the same port ends exact" same_image "$work/after_stock.png" "$work/last.png"
$browser canvas "$url/vnc.html?autoconnect=true" "$work/last.png" "$work/novnc.png" --timeout 20 >/dev/null 2>&1
tap_check "noVNC's own page (JPEG at its default quality) ends close to it" \
	same_image "$work/novnc.png" "$work/last.png" 3
stop_server
# A symbolic link out of the directory is not followed.
mkdir -p "$work/www"
ln -s /etc/passwd "$work/www/passwd"
echo '<p>own</p>' >"$work/www/index.html"
start_server own --trace "$TRACE" --http="$work/www" || exit 1
tap_check "--http=DIR: its index.html at /, a link out of it refused (403)" \
	sh -c "test \"\$(curl -s 'http://127.0.0.1:$PORT/')\" = '<p>own</p>' &&
	       test \"\$(curl -s -o /dev/null -w '%{http_code}' 'http://127.0.0.1:$PORT/passwd')\" = 403"
stop_server

# Varg in the browser: the receiver in WebAssembly, its cache in
# IndexedDB, against varg-viewer on the same trace.
# varg_bytes JSON: the bytes the server sent its Varg viewers.
varg_bytes() {
	/usr/bin/python3 -c 'import json, sys
print(sum(v["bytes_sent"] for v in json.load(open(sys.argv[1]))["viewers"] if v["encoding"] == "varg"))' "$1"
}
# browser_run NAME [PORT]: a browser on Varg's page against a fresh server
# on the trace (with the options in $SERVER_EXTRA), until the last frame
# is exact; then the page closes (and saves its cache) and the server
# stops. Sets BYTES.
SERVER_EXTRA=""
browser_run() {
	start_server "$1" --trace "$TRACE" --speed 0 --wait-clients 1 --http \
		--stats-json "$work/$1.json" ${2:+--port "$2"} $SERVER_EXTRA || return 1
	$browser canvas "http://127.0.0.1:$PORT/" "$work/last.png" "$work/$1.png" --timeout 90 \
		--status-js "window.varg && varg.status()" \
		--print-js "[varg.mode, varg.stats()]" --then "varg.close()" >"$work/$1.page"
	rc=$?
	echo "#   $1: $(cat "$work/$1.page")"
	stop_server
	BYTES=$(varg_bytes "$work/$1.json")
	return $rc
}
if [ ! -f "$B/viewer/web/varg-wasm.wasm" ]; then
	echo "# the WebAssembly receiver is not built: make web (it needs emscripten: scripts/setup)"
	for i in 1 2 3 4 5 6; do tap_not_ok "Varg in the browser (not built)"; done
else
	browser_run cold
	rc=$?
	tap_check "Varg in the browser ends with the trace's last frame exactly" \
		sh -c "test $rc -eq 0 && grep -q '^\[\"varg\"' '$work/cold.page'"
	cold=$BYTES
	cold_port=$PORT
	start_server native --trace "$TRACE" --speed 0 --wait-clients 1 --stats-json "$work/native.json" || exit 1
	IDLE=3 viewer native
	wait "$pid_native"
	stop_server
	native=$(varg_bytes "$work/native.json")
	echo "#   bytes: browser $cold, varg-viewer $native"
	tap_check "it receives within 2 % of varg-viewer's bytes" \
		test $((cold * 100)) -le $((native * 102)) -a $((cold * 100)) -ge $((native * 98))
	# The same address: a browser keeps a cache per origin.
	browser_run warm "$cold_port"
	tap_check "a reload, the server restarted, ends exact too" test $? -eq 0
	echo "#   bytes: cold $cold, warm $BYTES"
	tap_check "and starts warm from IndexedDB: under half the bytes" test $((BYTES * 2)) -lt "$cold"
	# Emptied from the page, the cache starts cold again.
	start_server forget --trace "$TRACE" --http --port "$cold_port" || exit 1
	$browser eval "http://127.0.0.1:$PORT/" "window.varg && varg.stats() && varg.stats().updates > 0" \
		--then "varg.clearCache().then(() => varg.close())" >/dev/null
	forgot=$?
	stop_server
	browser_run cleared "$cold_port"
	echo "#   bytes: cold $cold, after emptying the cache $BYTES"
	tap_check "a cache emptied from the page starts cold again" \
		test "$forgot" -eq 0 -a $((BYTES * 10)) -gt $((cold * 9))
	# The pixel model, which viewers far away get, decoded in WebAssembly.
	SERVER_EXTRA="--pixel-model on"
	browser_run model
	rc=$?
	SERVER_EXTRA=""
	echo "#   bytes: cold $cold, with the pixel model $BYTES"
	tap_check "with the pixel model (the server says so), it ends exact too" \
		sh -c "test $rc -eq 0 && grep -q 'updates by the pixel model' '$work/model.err'"
fi

# A port for browsers only (--http-port): a request a browser sends well
# after it connects is answered there, not greeted with RFB; Chromium ends
# exact through it; the RFB port serves no files but greets a viewer.
tap_check "--http-port without --http fails in one line" \
	fails_saying 2 "goes with --http" "$B/server/varg-server" --trace "$TRACE" --http-port 6001
tap_check "--http-port equal to --port fails in one line" \
	fails_saying 2 "must differ from --port" "$B/server/varg-server" --trace "$TRACE" --http --port 6001 --http-port 6001
wport=$(random_port)
start_server webport --trace "$TRACE" --speed 0 --wait-clients 1 --http --http-port "$wport" || exit 1
tap_check "it says browsers go to their own port" grep -q "browsers open http://127.0.0.1:$wport/" "$work/webport.out"
# late_get PORT: connects, says nothing for 1.5 s (past the second a
# shared port waits), then asks for /varg.html; prints what came before
# the request and the reply's status line.
late_get() {
	/usr/bin/python3 - "$1" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
time.sleep(1.5)
s.setblocking(False)
try:
    early = s.recv(64)
except BlockingIOError:
    early = b""
s.setblocking(True)
s.sendall(b"GET /varg.html HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
reply = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    reply += b
print("early=%r status=%s" % (early, reply.split(b"\r\n", 1)[0].decode("latin-1")))
PY
}
out=$(late_get "$wport")
echo "#   late request: $out"
tap_check "a request 1.5 s after connecting is answered, nothing said before" \
	test "$out" = "early=b'' status=HTTP/1.1 200 OK"
$browser canvas "http://127.0.0.1:$wport/" "$work/last.png" "$work/webport.png" --timeout 90 \
	--status-js "window.varg && varg.status()" --then "varg.close()" >/dev/null
tap_check "Chromium on the browsers' port ends with the last frame exactly" test $? -eq 0
greeting=$(/usr/bin/python3 -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
print(s.recv(12).decode("latin-1").strip())' "$PORT")
tap_check "the RFB port greets a VNC viewer and serves no files" \
	sh -c "test '$greeting' = 'RFB 003.008' && test \"\$(curl -s -o /dev/null -w '%{http_code}' 'http://127.0.0.1:$PORT/varg.html')\" != 200"
stop_server

# Passwords and view-only, on a real X display whose probe logs its keys.
start_xvfb 640x480 || exit 1
DISPLAY=$XDPY "$B/tests/vg_xprobe" log >"$work/probe.log" &
pids="$pids $!"
wait_line "$work/probe.log" ready || exit 1
echo full-pw | vncpasswd -f >"$work/pw"
echo view-pw | vncpasswd -f >"$work/vpw"
chmod 600 "$work/pw" "$work/vpw"
start_server x --display "$XDPY" --password-file "$work/pw" --viewonly-password-file "$work/vpw" \
	--http || exit 1
url=http://127.0.0.1:$PORT
connected="window.varg && varg.status().startsWith('Connected')"
# key PASSWORD KEYSYM: a browser with PASSWORD connects and presses KEYSYM.
key() {
	$browser eval "$url/varg.html#password=$1" "$connected" --timeout 60 \
		--then "varg.rfb.sendKey($2, null, true); varg.rfb.sendKey($2, null, false)" >/dev/null
}
key full-pw 0x61
tap_check "the full password connects" test $? -eq 0
sleep 0.5
tap_check "its key reaches the X display" grep -qx 'char 0x61' "$work/probe.log"
key view-pw 0x62
tap_check "the view-only password connects" test $? -eq 0
sleep 0.5
tap_check "its key does not reach the X display" sh -c "! grep -q 'char 0x62' '$work/probe.log'"
out=$($browser eval "$url/varg.html#password=wrong" \
	"window.varg && varg.status().startsWith('Refused') && varg.status()" --timeout 30 2>&1)
tap_check "a wrong password is refused" test $? -eq 0
echo "#   page: $out"
tap_check "and the server logged it" grep -q "client 127.0.0.1: wrong password" "$work/x.err"
stop_server

# Behind a relay: the site's browsers get the relay's page and screen.
start_server up --trace "$TRACE" --speed 0 --wait-clients 1 || exit 1
up=$PORT
for _ in 1 2 3 4 5; do
	rport=$(random_port)
	"$B/server/varg-relay" --port "$rport" --http --cache-dir "$work/relay-cache" "localhost::$up" \
		>"$work/relay.out" 2>"$work/relay.err" &
	relay=$!
	pids="$pids $relay"
	for _ in $(seq 50); do grep -q "browsers open" "$work/relay.out" 2>/dev/null && break; sleep 0.1; done
	grep -q "browsers open" "$work/relay.out" && break
done
tap_check "varg-relay --http says where browsers go" grep -q "browsers open http://127.0.0.1:$rport/" "$work/relay.out"
$browser canvas "http://127.0.0.1:$rport/" "$work/last.png" "$work/relayed.png" --timeout 90 \
	--status-js "window.varg && varg.status()"
tap_check "a browser behind varg-relay ends with the last frame exactly" test $? -eq 0
kill "$relay"
tap_check "the relay stops on SIGTERM" ends_within 50 "$relay"

# HTTPS and WSS: the server requires TLS, with a certificate for
# localhost signed by the test's own CA, which Chromium trusts through an
# NSS database under a HOME of its own (certutil, libnss3-tools).
ca=$work/ca
mkdir -p "$ca" "$work/home-trusts/.pki/nssdb" "$work/home-not"
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n' \
	>"$ca/ext"
if openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=Varg test CA" \
	-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
	-keyout "$ca/ca.key" -out "$ca/ca.pem" 2>"$ca/log" &&
   openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
	-keyout "$ca/srv.key" -out "$ca/srv.csr" 2>>"$ca/log" &&
   openssl x509 -req -in "$ca/srv.csr" -CA "$ca/ca.pem" -CAkey "$ca/ca.key" -CAcreateserial -days 2 \
	-extfile "$ca/ext" -out "$ca/srv.pem" 2>>"$ca/log" &&
   chmod 600 "$ca/srv.key" &&
   certutil -d "sql:$work/home-trusts/.pki/nssdb" -N --empty-password &&
   certutil -d "sql:$work/home-trusts/.pki/nssdb" -A -t "C,," -n "Varg test CA" -i "$ca/ca.pem"; then
	tap_ok "a CA, a certificate for localhost, and a browser profile trusting the CA"
else
	sed 's/^/# /' "$ca/log"
	tap_not_ok "a CA, a certificate for localhost, and a browser profile trusting the CA (certutil: libnss3-tools)"
fi
start_server tls --trace "$TRACE" --speed 0 --wait-clients 1 --http --tls \
	--tls-cert "$ca/srv.pem" --tls-key "$ca/srv.key" || exit 1
surl=https://localhost:$PORT
tap_check "it says browsers go to https://" grep -q "browsers open https://127.0.0.1:$PORT/" "$work/tls.out"
curl -s --cacert "$ca/ca.pem" "$surl/varg.html" >"$work/tls-varg.html"
tap_check "https:// serves Varg's page with the server's certificate" \
	cmp -s "$work/tls-varg.html" "$S/viewer/web/varg.html"
tap_check "plain http:// is refused (403), saying to use https://" \
	sh -c "test \"\$(curl -s -o '$work/plain.body' -w '%{http_code}' 'http://127.0.0.1:$PORT/varg.html')\" = 403 &&
	       grep -q 'https://' '$work/plain.body' && ! grep -q 'RFB' '$work/plain.body'"
tap_check "so is a plain ws:// upgrade" \
	test "$(curl -s -o /dev/null -w '%{http_code}' -H 'Upgrade: websocket' -H 'Connection: Upgrade' \
		-H 'Sec-WebSocket-Version: 13' -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' \
		"http://127.0.0.1:$PORT/websockify")" = 403
HOME=$work/home-not $browser eval "$surl/varg.html#varg=0" "window.varg && varg.status()" --timeout 8 \
	>"$work/untrusted.page" 2>&1
tap_check "a browser that does not trust the CA gets no page" test $? -ne 0
HOME=$work/home-trusts $browser canvas "$surl/varg.html" "$work/last.png" "$work/tls.png" --timeout 90 \
	--status-js "window.varg && varg.status()" --print-js "[varg.rfb._url, varg.status()]" \
	--then "varg.close()" >"$work/tls.page"
rc=$?
echo "#   page: $(cat "$work/tls.page")"
tap_check "Chromium over https:// and wss:// ends with the trace's last frame exactly" test $rc -eq 0
tap_check "its WebSocket is wss://, and the page says the session is encrypted" \
	sh -c "grep -q '\"wss://localhost:$PORT/' '$work/tls.page' && grep -q 'encrypted (TLS)' '$work/tls.page'"
stop_server
tap_done
