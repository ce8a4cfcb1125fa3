#!/bin/sh
# Authentication, walked by hand (tests/vg_authprobe) against a real
# varg-server with a password: no security type and no protocol version
# lets a client in without it; guessing is slowed down per source address;
# a password file others can read is refused.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
TRACE=$S/traces/samples/heatmap-scroll.vtr
probe=$B/tests/vg_authprobe
tap_plan 14
if ! command -v vncpasswd >/dev/null; then
	for i in $(seq 14); do tap_skip "vncpasswd is needed (scripts/setup)"; done
	exit 0
fi
echo secret-pw | vncpasswd -f >"$work/pw"
chmod 644 "$work/pw"
tap_check "a password file others can read is refused, in one line" \
	fails_cleanly 1 "$B/server/varg-server" --trace "$TRACE" --password-file "$work/pw"
chmod 600 "$work/pw"

# Without a password the probe does get in: it can tell. VeNCrypt (19)
# is offered after the plain type (server/vg_tlsgate.h).
start_server open --trace "$TRACE" --loop || exit 1
out=$("$probe" 127.0.0.1 "$PORT" 8 1)
echo "#   no password, None: $out"
tap_check "without a password, security type None gets in (the probe can tell)" \
	test "$out" = "offered=1,19 result=access"
stop_server

start_server auth --trace "$TRACE" --loop --password-file "$work/pw" || exit 1
# Each probe from an address of its own: the guard counts per address.
a=10
# probe_as WANT MINOR TYPE [PASSWORD]: the probe's line is WANT.
probe_as() {
	want=$1; shift
	a=$((a + 1))
	got=$("$probe" --from "127.0.0.$a" 127.0.0.1 "$PORT" "$@")
	echo "#   RFB 3.$1, type $2${3:+, password $3}: $got"
	test "$got" = "$want"
}
tap_check "RFB 3.3: the server picks VNC authentication; no password, no access" \
	probe_as "offered=2 result=auth-failed" 3 2
tap_check "RFB 3.7: only VNC authentication offered; choosing None is refused" \
	probe_as "offered=2,19 result=closed" 7 1
tap_check "RFB 3.8: only VNC authentication offered; choosing None is refused" \
	probe_as "offered=2,19 result=closed" 8 1
unoffered() {
	for t in 0 5 16 18 255; do
		probe_as "offered=2,19 result=closed" 8 $t || return 1
	done
}
tap_check "RFB 3.8: types never offered (0, RA2, Tight, TLS, 255) are refused" unoffered
tap_check "RFB 3.8: a wrong password fails" probe_as "offered=2,19 result=auth-failed" 8 2 wrong
tap_check "RFB 3.3: the right password gets in" probe_as "offered=2 result=access" 3 2 secret-p
tap_check "RFB 3.8: the right password gets in" probe_as "offered=2,19 result=access" 8 2 secret-p

# Guessing: three free wrong tries from one address, then it is refused
# for 10 s (doubling with each further failure) even with the right
# password; other addresses are not affected.
guess() {
	"$probe" --from 127.0.0.99 127.0.0.1 "$PORT" 8 2 "$@"
}
g=""
for i in 1 2 3 4; do
	g="$g $(guess wrong$i | sed 's/.*result=//')"
done
echo "#   four wrong passwords from 127.0.0.99:$g"
tap_check "wrong passwords fail" test "$g" = " auth-failed auth-failed auth-failed auth-failed"
t0=$(date +%s)
out=$(guess secret-p)
echo "#   then the right one: $out"
tap_check "after the fourth failure the address is refused, right password or not" \
	test "$out" = "offered=- result=closed"
grep -m3 "wrong password\|refused" "$work/auth.err" | sed 's/^/#   server: /'
tap_check "the server said for how long" grep -q "this address is refused for 10 s" "$work/auth.err"
tap_check "another address is not affected" probe_as "offered=2,19 result=access" 8 2 secret-p
while [ $(( $(date +%s) - t0 )) -lt 11 ]; do sleep 1; done
out=$(guess secret-p)
echo "#   11 s later, the right password: $out"
tap_check "once the block has passed the right password gets in" \
	test "$out" = "offered=2,19 result=access"
stop_server
tap_done
