#!/bin/sh
# scripts/wan-latency on frame logs worked out by hand; scripts/wan-bench's
# one-line errors; and a short real run over an emulated fast-ethernet link
# between two network namespaces: JSON keys, exact final pictures, and Varg
# sending fewer bytes than Zlib and Hextile; then one over a distant link,
# where the server must see the round trip through the TLS gate and code
# new pixels by the pixel model. No timing is asserted.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
lat=$S/scripts/wan-latency
bench=$S/scripts/wan-bench
tap_plan 14

# Server: frames 0..4 at 0, 100, 200, 300, 400 ms; frame 2 repeats frame 1
# (not an update). Viewer: shows A at 30 ms, B at 150 ms, then jumps to E at
# 470 ms (D was replaced before it was sent). Updates: 0, 1, 3, 4, with
# latencies 30, 50, 170 and 70 ms.
ms=1000000
cat >"$tmp/s.log" <<EOF
$((1000 * ms)) 0 00000000000000aa
$((1100 * ms)) 1 00000000000000bb
$((1200 * ms)) 2 00000000000000bb
$((1300 * ms)) 3 00000000000000dd
$((1400 * ms)) 4 00000000000000ee
EOF
cat >"$tmp/v.log" <<EOF
$((1030 * ms)) 0 00000000000000aa
$((1150 * ms)) 1 00000000000000bb
$((1470 * ms)) 2 00000000000000ee
EOF
out=$("$lat" --samples "$tmp/cdf" "$tmp/s.log" "$tmp/v.log")
echo "# $out"
tap_check "wan-latency: percentiles, shares and exactness by hand" \
	test "$out" = "updates=4 shown=4 p50_ms=50.0 p90_ms=170.0 p99_ms=170.0 share_under_100ms=0.7500 share_under_200ms=1.0000 duration_ms=470.0 exact=true"
tap_check "wan-latency: sorted samples" test "$(tr '\n' ' ' <"$tmp/cdf")" = "30.000 50.000 70.000 170.000 "

# The viewer never gets past B: two updates unseen, the picture not exact,
# and the percentiles that fall on unseen updates are null.
head -2 "$tmp/v.log" >"$tmp/v2.log"
out=$("$lat" "$tmp/s.log" "$tmp/v2.log")
echo "# $out"
tap_check "wan-latency: updates never shown rank last" \
	test "$out" = "updates=4 shown=2 p50_ms=50.0 p90_ms=null p99_ms=null share_under_100ms=0.5000 share_under_200ms=0.5000 duration_ms=150.0 exact=false"

# First paint: the viewer reads UPDATE 3, written from frame 4's pixels,
# at 420 ms with part of it approximate; exact at 470 ms. Frames 3 and 4 are
# first shown at 420 ms (120 and 20 ms), exactly at 470 ms (170 and 70 ms).
cat >"$tmp/u.log" <<EOF
$((1010 * ms)) 1 $((1005 * ms)) 0
$((1110 * ms)) 2 $((1105 * ms)) 0
$((1410 * ms)) 3 $((1405 * ms)) 5000
$((1415 * ms)) 4 $((1405 * ms)) 0
EOF
cat >"$tmp/v5.log" <<EOF
$((1030 * ms)) 0 00000000000000aa 1 0
$((1150 * ms)) 1 00000000000000bb 2 0
$((1420 * ms)) 2 0000000000000012 3 5000
$((1470 * ms)) 3 00000000000000ee 4 0
EOF
out=$("$lat" --updates "$tmp/u.log" --first-samples "$tmp/fcdf" "$tmp/s.log" "$tmp/v5.log")
echo "# $out"
tap_check "wan-latency: first paint and exact, by hand" \
	test "$out" = "updates=4 shown=4 p50_ms=50.0 p90_ms=170.0 p99_ms=170.0 share_under_100ms=0.7500 share_under_200ms=1.0000 duration_ms=470.0 exact=true first_p50_ms=30.0 first_p90_ms=120.0 first_p99_ms=120.0 first_share_under_200ms=1.0000"
tap_check "wan-latency: sorted first-paint samples" test "$(tr '\n' ' ' <"$tmp/fcdf")" = "20.000 30.000 50.000 120.000 "

echo "garbage" >"$tmp/bad.log"
tap_check "wan-latency: a bad line is one error" fails_cleanly 3 "$lat" "$tmp/s.log" "$tmp/bad.log"
tap_check "wan-bench: unknown profile is one error" fails_cleanly 2 "$bench" --build "$B" --profiles mars
tap_check "wan-bench: unknown link is one error" fails_cleanly 2 "$bench" --build "$B" --link carrier-pigeon

# A short trace: 24 frames of 480x360, 100 ms apart.
"$B/traces/varg-synth" --width 480 --height 360 --frames 24 -o "$tmp/frames" >/dev/null &&
	"$B/traces/varg-trace" import --quiet --frames "$tmp/frames" -o "$tmp/short.vtr"
run_bench() {
	"$bench" --build "$B" --trace "$tmp/short.vtr" --profiles fast-ethernet \
		--methods varg,varg-refine,zlib,hextile --json "$tmp/wan.json" "$@"
}
bench_netem_or_tun 4 run_bench
tap_check "wan-bench ran" test $rc -eq 0

keys_ok() {
	for m in varg zlib hextile; do
		for k in p50_ms p90_ms p99_ms share_under_100ms share_under_200ms bytes exact; do
			grep -q "\"$m\": {.*\"$k\": " "$tmp/wan.json" || { echo "# $m: no $k"; return 1; }
		done
	done
	grep -q '"varg-refine": {.*"first_paint": { "p50_ms": ' "$tmp/wan.json" || { echo "# varg-refine: no first paint"; return 1; }
	grep -q '"fast-ethernet": {' "$tmp/wan.json"
}
tap_check "JSON: fast-ethernet, every method, every key, first paint" keys_ok
tap_check "every viewer ended with the exact last frame" \
	test "$(grep -c '"exact": true' "$tmp/wan.json")" -eq 4
bytes() { sed -n "s/.*\"$1\": {.*\"bytes\": \([0-9]*\).*/\1/p" "$tmp/wan.json"; }
fewer() {
	v=$(bytes varg) z=$(bytes zlib) h=$(bytes hextile)
	echo "# bytes: varg $v, zlib $z, hextile $h"
	[ -n "$v" ] && [ -n "$z" ] && [ -n "$h" ] && [ "$v" -lt "$z" ] && [ "$v" -lt "$h" ]
}
tap_check "Varg sent fewer bytes than Zlib and Hextile" fewer

# Princeton-San Diego's 72 ms: the server reads the round trip of the
# network socket behind the TLS bridge (a socketpair has none) and chooses
# the pixel model, which the viewer's statistics count.
far_bench() {
	"$bench" --build "$B" --trace "$tmp/short.vtr" --profiles princeton-san-diego \
		--methods varg --keep "$tmp/far" "$@"
}
bench_netem_or_tun 2 far_bench
tap_check "wan-bench ran over Princeton-San Diego" test $rc -eq 0
far_model() {
	f="$tmp/far/princeton-san-diego.varg.1.json"
	n=$(sed -n 's/.*"model_updates": *\([0-9]*\).*/\1/p' "$f" 2>/dev/null)
	echo "# encrypted: $(sed -n 's/.*"encrypted": *\([a-z]*\).*/\1/p' "$f"), model updates: ${n:-none}"
	grep -q '"encrypted": true' "$f" && [ "${n:-0}" -gt 0 ]
}
tap_check "over TLS and a 72 ms round trip the pixel model coded updates" far_model
tap_done
