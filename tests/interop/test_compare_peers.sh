#!/bin/sh
# scripts/compare-peers against the real peers: TigerVNC's Xvnc shows the
# heat-map sample through `varg-trace play` while real viewers count its
# Tight and ZRLE bytes; varg-server plays the same session to a Varg and
# three stock viewers. Every viewer must end with the last frame, and Varg
# must send fewer bytes than each standard encoding. Also the play
# command's usage errors.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
TRACE=${VG_TEST_TRACE:-$S/traces/samples/heatmap-scroll.vtr}
tap_plan 6

if ! command -v Xvnc >/dev/null; then
	tap_not_ok "Xvnc is installed (scripts/setup installs tigervnc-standalone-server)"
	exit 1
fi
tap_check "play without --display: usage error" fails_cleanly 2 "$B/traces/varg-trace" play "$TRACE"
tap_check "play on a display that is not there: one line, exit 1" \
	fails_saying 1 "cannot open display" "$B/traces/varg-trace" play --display :987 "$TRACE"

"$S/scripts/compare-peers" --speed 4 "$B" "$TRACE" >"$work/peers.out" 2>"$work/peers.err"
st=$?
sed 's/^/# /' "$work/peers.out" | grep -v ',' 
tap_check "compare-peers ran (exit $st)" test $st -eq 0
rows=$(grep -v '^trace,' "$work/peers.out" | grep -c ',exact$')
tap_check "all six viewers ended exact ($rows)" test "$rows" -eq 6
varg=$(sed -n 's/^[^,]*,varg-server,varg,\([0-9]*\),.*/\1/p' "$work/peers.out")
worse=$(awk -F, -v v="${varg:-0}" '$3 != "varg" && $4 ~ /^[0-9]+$/ && $4 <= v' "$work/peers.out" | wc -l)
tap_check "Varg ($varg bytes) sends fewer than every standard encoding" test "${varg:-0}" -gt 0 -a "$worse" -eq 0
tiger=$(grep -c '^[^,]*,TigerVNC,' "$work/peers.out")
tap_check "TigerVNC's Tight and ZRLE were measured ($tiger)" test "$tiger" -eq 2
[ $st -eq 0 ] || sed 's/^/# /' "$work/peers.err"
tap_done
