#!/bin/sh
# varg-viewer over TLS (VeNCrypt) against TigerVNC's Xvnc: X509None and
# X509Vnc end with exactly Xvnc's screen, say so in the statistics and
# count the wire's bytes; --tls-ca and --tls-fingerprint accept the right
# certificate and refuse another; trust on first use remembers the first
# certificate and stops at a changed one, naming both fingerprints;
# --tls refuses a server without TLS, which otherwise still works.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"

tap_plan 24
for tool in Xvnc xwd xwdtopnm openssl vncpasswd convert display; do
	if ! command -v "$tool" >/dev/null; then
		for i in $(seq 1 24); do tap_skip "Xvnc, xwd, xwdtopnm, openssl, vncpasswd and ImageMagick are needed (scripts/setup)"; done
		exit 0
	fi
done

# A CA, a certificate for localhost signed by it, another CA, and a
# self-signed certificate for the same name.
mkcert() { # NAME SUBJECT [openssl req args...]
	name=$1 subj=$2; shift 2
	openssl req -newkey rsa:2048 -nodes -keyout "$work/$name.key" -subj "$subj" "$@" \
		>"$work/openssl.log" 2>&1
}
mkcert ca "/CN=Varg test CA" -x509 -days 2 -out "$work/ca.pem"
mkcert ca2 "/CN=Another CA" -x509 -days 2 -out "$work/ca2.pem"
mkcert srv "/CN=localhost" -out "$work/srv.csr"
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$work/san.ext"
openssl x509 -req -in "$work/srv.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
	-days 2 -extfile "$work/san.ext" -out "$work/srv.pem" >>"$work/openssl.log" 2>&1
mkcert new "/CN=localhost" -x509 -days 2 -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
	-out "$work/new.pem"
if [ ! -s "$work/srv.pem" ] || [ ! -s "$work/new.pem" ]; then
	echo "Bail out! openssl could not make the certificates:"; sed 's/^/#   /' "$work/openssl.log"
	exit 1
fi
fp_of() { openssl x509 -in "$1" -noout -fingerprint -sha256 | sed 's/.*=//'; }
fp_srv=$(fp_of "$work/srv.pem")
fp_new=$(fp_of "$work/new.pem")
echo "#   certificates: $fp_srv (CA-signed), $fp_new (self-signed)"
echo secret-pw | vncpasswd -f >"$work/pw"
chmod 600 "$work/pw"

# A picture for every Xvnc's root window: the same on each, and not a
# flat one.
convert -size 320x200 -seed 7 plasma:fractal "$work/pic.png"
# picture: shows it on $XDPY.
picture() { DISPLAY=$XDPY display -window root "$work/pic.png" >/dev/null 2>&1; :; }
# tls_xvnc NAME CERT KEY SECURITYTYPES [ARGS...]: an Xvnc offering those
# types, showing the picture; its display in XD_NAME, its port in
# PORT_NAME, its pid in PID_NAME.
tls_xvnc() {
	name=$1 cert=$2 key=$3 types=$4; shift 4
	start_xvnc 320x200 -SecurityTypes "$types" -X509Cert "$cert" -X509Key "$key" "$@" || return 1
	picture
	eval "XD_$name=\$XDPY PORT_$name=\$VNC_PORT PID_$name=\$xvnc"
}
# screen DISPLAY FILE: what Xvnc shows, as a PPM.
screen() { DISPLAY=$1 xwd -root -silent | xwdtopnm >"$2" 2>/dev/null; }
# run NAME PORT ARGS...: a headless viewer to its end; its status in $st.
run() {
	name=$1 port=$2; shift 2
	PORT=$port IDLE=2 viewer "$name" "$@"
	eval "wait \$pid_$name"
	st=$?
	[ "$st" -eq 0 ] || { echo "# $name ended with $st:"; sed 's/^/#   /' "$work/$name.log"; }
}
json_str() { sed -n "s/.*\"$2\": \"\([^\"]*\)\".*/\1/p" "$1" | head -1; }
encrypted() { grep -q '"encrypted": true' "$work/$1.json" && grep -q '"version": "TLSv1\.[23]"' "$work/$1.json"; }
# refused NAME STATUS TEXT PORT ARGS...: the viewer exits with STATUS, in
# one line that says TEXT.
refused() {
	name=$1 want=$2 text=$3 port=$4; shift 4
	fails_saying "$want" "$text" "$B/viewer/varg-viewer" --headless --exit-when-idle 2 \
		--cache-dir "$CACHE" "$@" "localhost::$port"
}

# X509None, certificate signed by our CA.
tls_xvnc A "$work/srv.pem" "$work/srv.key" X509None || exit 1
screen "$XD_A" "$work/a.ppm"
CACHE=$work/cache
run first "$PORT_A"
tap_check "X509None: the viewer ends well" test "$st" -eq 0
tap_check "X509None: the picture is exactly Xvnc's screen" same_image "$work/first.png" "$work/a.ppm"
tap_check "X509None: the statistics say TLS" encrypted first
echo "#   $(grep '"tls"' "$work/first.json")"
tap_check "X509None: the JSON names the certificate" test "$(json_str "$work/first.json" fingerprint)" = "$fp_srv"
tap_check "first use: the certificate's fingerprint is remembered" \
	grep -qF "$fp_srv" "$work/cache/known-hosts"
tap_check "first use: the JSON says so" test "$(json_str "$work/first.json" trust)" = "first use"
run again "$PORT_A"
tap_check "second use: the remembered certificate is trusted" test "$(json_str "$work/again.json" trust)" = known
# Raw pixels, so that Xvnc's encoder makes no choices: the bytes on the
# wire differ from a plain session's by what TLS adds.
run rawtls "$PORT_A" --no-varg --encodings raw
n_tls=$(json_num "$work/rawtls.json" bytes_received)
tap_check "--tls-ca with the signing CA is trusted" run ca "$PORT_A" --tls-ca "$work/ca.pem"
tap_check "--tls-ca with another CA is refused, saying why" \
	refused ca2 4 "certificate" "$PORT_A" --tls-ca "$work/ca2.pem"
tap_check "--tls-fingerprint with the certificate's is trusted" run pin "$PORT_A" --tls-fingerprint "$fp_srv"
tap_check "--tls-fingerprint with another is refused" \
	refused pin2 4 "$fp_srv" "$PORT_A" --tls-fingerprint "$fp_new"

# The same address, a new certificate: stopped, both fingerprints named.
kill "$PID_A"
wait "$PID_A" 2>/dev/null
XVNC_PORT=$PORT_A tls_xvnc A "$work/new.pem" "$work/new.key" X509None || exit 1
changed() {
	refused changed 4 "$fp_new" "$PORT_A" || return 1
	grep -qF "$fp_srv" "$tmp/err" && grep -q -- "--tls-fingerprint" "$tmp/err"
}
tap_check "a changed certificate stops the connection, naming both fingerprints" changed
tap_check "the remembered fingerprint is kept" grep -qF "$fp_srv" "$work/cache/known-hosts"
tap_check "accepting the new certificate with --tls-fingerprint works" \
	run accept "$PORT_A" --tls-fingerprint "$fp_new"
tap_check "and then it is the one remembered" run after "$PORT_A"
# varg-trace record --vnc (as varg-server --vnc) takes TLS too, trusting
# on first use in the user's cache directory.
"$B/traces/varg-trace" record --vnc "localhost:$PORT_A" -o "$work/rec.vtr" -q --duration 3 \
	2>"$work/rec.err"
rec_st=$?
sed 's/^/#   /' "$work/rec.err"
recorded() { [ "$rec_st" -eq 0 ] && last_frame "$work/rec.vtr" "$work/rec.png" && same_image "$work/rec.png" "$work/a.ppm"; }
tap_check "record --vnc over X509None: the last frame is Xvnc's screen" recorded
tap_check "record --vnc: the certificate is remembered on first use" \
	grep -qF "$fp_new" "$XDG_CACHE_HOME/varg/known-hosts"
kill "$PID_A"
wait "$PID_A" 2>/dev/null

# X509Vnc: the VNC password inside TLS.
tls_xvnc V "$work/srv.pem" "$work/srv.key" X509Vnc -rfbauth "$work/pw" || exit 1
screen "$XD_V" "$work/v.ppm"
run vnc "$PORT_V" --passwd "$work/pw"
tap_check "X509Vnc: the picture is exactly Xvnc's screen" same_image "$work/vnc.png" "$work/v.ppm"
tap_check "X509Vnc: the statistics say TLS" encrypted vnc
echo wrong-pw | vncpasswd -f >"$work/wrong"
tap_check "X509Vnc: a wrong password is refused (status 3)" \
	refused wrongpw 3 "authentication" "$PORT_V" --passwd "$work/wrong"

# No TLS offered: refused with --tls, otherwise a plain session.
start_xvnc 320x200 || exit 1
picture
screen "$XDPY" "$work/p.ppm"
tap_check "--tls refuses a server that does not offer TLS" \
	refused plaintls 4 "TLS" "$VNC_PORT" --tls
run plain "$VNC_PORT"
tap_check "without --tls a plain server still works, exactly" same_image "$work/plain.png" "$work/p.ppm"
tap_check "and the statistics say it is not encrypted" grep -q '"encrypted": false' "$work/plain.json"
# The same screen as A's, in raw pixels: TLS adds its handshake and
# record headers on the wire, and the counter sees them.
run rawplain "$VNC_PORT" --no-varg --encodings raw
n_plain=$(json_num "$work/rawplain.json" bytes_received)
echo "#   bytes received: $n_tls over TLS, $n_plain plain"
tap_check "the byte counter counts the wire (TLS > plain + a certificate)" test "$n_tls" -gt $((n_plain + 500))
tap_done
