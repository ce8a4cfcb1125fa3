#!/bin/sh
# varg-viewer against varg-server over TLS: with the Varg encoding and a
# standard one the viewer ends with the trace's last frame, encrypted,
# trusting the certificate whose fingerprint the server printed; a server
# offering TLS beside plain RFB gets TLS; with a password (X509Vnc) too;
# --tls refuses one without it;
# through -via (an sshd started here) the certificate is remembered under
# the server's name on the gateway, not the tunnel's local port.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_sshd.sh"
TRACE=$S/traces/samples/heatmap-scroll.vtr
tap_plan 15

last_frame "$TRACE" "$work/expected.png" || { echo "Bail out! cannot export the trace's last frame"; exit 1; }

# ended_exact NAME: the viewer ended well with the trace's last frame.
ended_exact() {
	eval "wait \$pid_$1"
	st=$?
	[ "$st" -eq 0 ] || { echo "# $1 ended with $st:"; sed 's/^/#   /' "$work/$1.log"; return 1; }
	same_image "$work/$1.png" "$work/expected.png"
}
encrypted() { grep -q '"encrypted": true' "$work/$1.json"; }

start_server req --tls --trace "$TRACE" --speed 0 --wait-clients 2 --pace-timeout 5000 || exit 1
fp=$(sed -n 's/^varg-server: certificate SHA-256 fingerprint //p' "$work/req.out")
cert=$(sed -n 's/^varg-server: TLS required; certificate //p' "$work/req.out")
echo "#   the server's certificate: $fp"
tap_check "varg-server --tls prints its certificate's fingerprint" test -n "$fp"
viewer varg --tls
viewer hextile --tls --no-varg --encodings hextile
tap_check "Varg over TLS ends with the trace's last frame" ended_exact varg
tap_check "and Varg rectangles came, encrypted" \
	sh -c "[ \"$(json_num "$work/varg.json" varg)\" -gt 0 ] && grep -q '\"encrypted\": true' '$work/varg.json'"
tap_check "hextile over TLS ends with the trace's last frame" ended_exact hextile
tap_check "the certificate remembered is the one the server printed" \
	grep -qF "$fp" "$work/cache-varg/known-hosts"
stop_server

# The same server state (the same certificate), TLS offered beside plain.
start_server offer --trace "$TRACE" --speed 0 --wait-clients 2 --pace-timeout 5000 || exit 1
viewer pinned --tls-fingerprint "$fp"
viewer byca --tls-ca "$cert"
tap_check "TLS offered beside plain: pinned to the printed fingerprint, ends exact" ended_exact pinned
tap_check "TLS offered beside plain: the viewer took it" encrypted pinned
tap_check "the generated certificate file serves as --tls-ca" ended_exact byca
stop_server

# X509Vnc: --tls with a password; the password goes inside TLS.
if command -v vncpasswd >/dev/null; then
	echo secret-pw | vncpasswd -f >"$work/pw"
	chmod 600 "$work/pw"
	start_server vnc --tls --password-file "$work/pw" --trace "$TRACE" --speed 0 --wait-clients 1 \
		--pace-timeout 5000 || exit 1
	viewer x509vnc --tls --tls-fingerprint "$fp" --passwd "$work/pw"
	tap_check "X509Vnc (--tls and a password): Varg ends with the trace's last frame" ended_exact x509vnc
	tap_check "X509Vnc: encrypted" encrypted x509vnc
	stop_server
else
	tap_skip "vncpasswd is needed (scripts/setup)"
	tap_skip "vncpasswd is needed (scripts/setup)"
fi

start_server plain --no-tls --trace "$TRACE" --loop || exit 1
tap_check "varg-server --no-tls: varg-viewer --tls refuses it, status 4" \
	fails_saying 4 "does not offer TLS" "$B/viewer/varg-viewer" --headless --tls "localhost::$PORT"
stop_server

if ! start_sshd; then
	for i in 1 2 3 4; do tap_skip "sshd and ssh are needed for -via (scripts/setup)"; done
	tap_done
	exit $?
fi
start_server via --tls --trace "$TRACE" --speed 0 --wait-clients 1 --pace-timeout 5000 || exit 1
VARG_VIA_SSH=$SSH_CMD
export VARG_VIA_SSH
gw="$(id -un)@127.0.0.1"
# via NAME: a headless viewer through the gateway, to its end.
via() {
	timeout 120 "$B/viewer/varg-viewer" --headless --exit-when-idle 2 --cache-dir "$work/cache-via" \
		--snapshot "$work/$1.png" --stats-json "$work/$1.json" -via "$gw" "localhost::$PORT" \
		>"$work/$1.log" 2>&1
	st=$?
	[ "$st" -eq 0 ] || { echo "# $1 ended with $st:"; sed 's/^/#   /' "$work/$1.log"; }
	return $st
}
via via1
tap_check "-via: the viewer ends with the trace's last frame, encrypted" \
	sh -c "[ $st -eq 0 ] && grep -q '\"encrypted\": true' '$work/via1.json' && '$B/tests/vg_imgcmp' '$work/via1.png' '$work/expected.png'"
tap_check "-via: remembered under the name on the gateway" \
	grep -qF "[localhost%20via%20$(id -un)%40127.0.0.1%3A%3A$PORT]" "$work/cache-via/known-hosts"
via via2
tap_check "-via again, through a new tunnel: the certificate is known" \
	grep -q '"trust": "known"' "$work/via2.json"
tap_check "-via again: the trace's last frame" same_image "$work/via2.png" "$work/expected.png"
unset VARG_VIA_SSH
stop_server
tap_done
