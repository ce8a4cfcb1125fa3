#!/bin/sh
# scripts/live-bench: its latency arithmetic on logs worked out by hand,
# its one-line errors, and a short real run (the xterm, its first six
# actions, at 1280x1024 over the gigabit profile) of Varg and TigerVNC's
# Xvnc: every run ends exact and both probes saw every action's effect.
# Then, where scripts/setup --peers installed Xpra (not on CI: skipped),
# the same short run of Xpra's shadow server and client. No timing is
# asserted.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
bench=$S/scripts/live-bench
tap_plan 12

# Actions at 1000, 2000 and 3000 ms. The shared screen changes to b and c
# after the first (settling on c), not at all after the second, to d and e
# after the third. The viewer shows b at 1030 and c at 1050 ms; then jumps
# from c to e at 3080 ms. First change 30 and 80 ms, exact 50 and 80 ms.
ms=1000000
cat >"$tmp/in.log" <<EOF
$((1000 * ms)) 1 key Return
$((2000 * ms)) 2 wheel up
$((3000 * ms)) 3 key Return
done
EOF
cat >"$tmp/s.log" <<EOF
origin 0 0 64 64 0x1
$((500 * ms)) 000000000000000a 0 0 64 64
$((1010 * ms)) 000000000000000b 0 0 64 8
$((1020 * ms)) 000000000000000c 0 8 64 8
$((3010 * ms)) 000000000000000d 0 0 64 8
$((3040 * ms)) 000000000000000e 0 0 64 8
EOF
cat >"$tmp/v.log" <<EOF
origin 1 20 64 64 0x2
$((600 * ms)) 000000000000000a 0 0 64 64
$((1030 * ms)) 000000000000000b 0 0 64 8
$((1050 * ms)) 000000000000000c 0 8 64 8
$((3080 * ms)) 000000000000000e 0 0 64 16
EOF
# latency VIEWER_LOG EXACT_END LAT: the awk on the input, the shared
# screen's log and VIEWER_LOG, 4 s of session, 1,000 bytes (250 resent),
# 0.4 s of server CPU, 0.2 s of viewer CPU.
latency() {
	awk -v who=x -v app=y -v profile=z -v rep=1 -v t0=0 -v t1=4 -v hz=100 -v bytes=1000 -v resent=250 -v sc=40 -v vc=20 \
		-v exact="$2" -v load=1.0 -v lat="$3" -f "$S/scripts/live-latency.awk" "$tmp/in.log" "$tmp/s.log" "$1"
}
out=$(latency "$tmp/v.log" yes "$tmp/lat")
echo "# $out"
tap_check "latency: first change and exact picture per action, by hand" test "$out" = \
	"system=x app=y profile=z rep=1 actions=3 events=2 noeffect=1 missed=0 first_p50_ms=30.0 first_p90_ms=80.0 exact_p50_ms=50.0 exact_p90_ms=80.0 exact_p99_ms=80.0 app_p50_ms=10.0 bytes=1000 duration_s=4.00 server_cpu=0.100 viewer_cpu=0.050 exact_end=yes server_changes=5 viewer_changes=4 load=1.0 resent_bytes=250"
tap_check "latency: one sample line per timed action, its kind and when the screen settled" \
	test "$(tr '\n' ' ' <"$tmp/lat")" = "30 50 key 20 80 80 key 40 "
pooled=$(echo "$out" | awk -f "$S/scripts/live-latency.awk" -v pool=1 - "$tmp/lat")
echo "# $pooled"
tap_check "latency pooled: exact and settled by kind of action" \
	sh -c "echo '$pooled' | grep -q ' exact_key=2/50.0/80.0 settled_key=2/20.0/40.0\$'"

# The viewer never gets to e: the third action is missed.
head -4 "$tmp/v.log" >"$tmp/v2.log"
out=$(latency "$tmp/v2.log" no "$tmp/lat2")
echo "# $out"
tap_check "latency: an action whose picture never came is missed" \
	sh -c "echo '$out' | grep -q 'events=2 noeffect=1 missed=1 first_p50_ms=30.0 first_p90_ms=30.0 exact_p50_ms=50.0'"

tap_check "unknown system is one error" fails_cleanly 2 "$bench" --build "$B" --systems rdp
tap_check "bad size is one error" fails_cleanly 2 "$bench" --build "$B" --size 1280by1024

run_bench() {
	"$bench" --build "$B" --systems varg,xvnc-tight --apps xterm --profiles gigabit --size 1280x1024 \
		--reps 1 --actions 6 --json "$tmp/live.json" "$@"
}
bench_netem_or_tun 4 run_bench
tap_check "live-bench ran" test $rc -eq 0
runs() { grep -c '"system": "[a-z-]*", "app": "xterm", "profile": "gigabit", "rep": 1,' "$tmp/live.json"; }
tap_check "JSON: one run of each system" test "$(runs)" -eq 2
tap_check "every run ended exact" test "$(grep -c '"exact_end": "yes"' "$tmp/live.json")" -eq 4
# The server side's retransmissions, counted by ss in its namespace.
tap_check "JSON: every run and row says how many bytes were resent" \
	test "$(grep -c '"resent_bytes": [0-9][0-9]*[,}]' "$tmp/live.json")" -eq 4
# Six Returns, six new pages: each changed the shared screen, and the viewer
# showed each settled picture.
seen() {
	n=$(grep -c '"actions": 6, "events": 6, "noeffect": 0, "missed": 0,' "$tmp/live.json")
	echo "# runs with all six actions seen on both screens: $n"
	[ "$n" -eq 2 ]
}
tap_check "the probes saw every action's effect" seen

run_xpra() {
	"$bench" --build "$B" --systems xpra --apps xterm --profiles gigabit --size 1280x1024 \
		--reps 1 --actions 6 --json "$tmp/xpra.json" "$@"
}
bench_netem_or_tun 1 run_xpra
xpra_exact() {
	[ $rc -eq 0 ] && grep -q '"exact_end": "yes"' "$tmp/xpra.json" &&
		grep -q '"actions": 6, "events": 6, "noeffect": 0, "missed": 0,' "$tmp/xpra.json"
}
tap_check "xpra: its run ends exact and the probes saw every action's effect" xpra_exact
tap_done
