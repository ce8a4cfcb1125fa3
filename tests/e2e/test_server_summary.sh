#!/bin/sh
# Monitoring: SIGUSR1 makes a running varg-server print its summary
# (per-stage times, shared segmentation, each viewer's bytes) on stderr and
# keep serving; --stats-interval prints status lines with the ratio and
# latency once Varg updates went out.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
TRACE=${VG_TEST_TRACE:-$S/traces/samples/heatmap-scroll.vtr}
tap_plan 7

start_server sum --trace "$TRACE" --speed 0 --wait-clients 2 --no-persistent-cache \
	--stats-interval 1 || exit 1
CACHE= viewer a
CACHE= viewer b --no-varg --encodings zrle
# While both viewers are still connected (they leave when idle).
for _ in $(seq 1 300); do
	grep -q "trace played" "$work/sum.err" && break
	sleep 0.1
done
kill -USR1 "$SERVER_PID"
for _ in $(seq 1 50); do
	[ "$(grep -c "^  viewer " "$work/sum.err")" -ge 2 ] && break
	sleep 0.1
done
wait "$pid_a"; wait "$pid_b"
sed -n '/summary/,$p' "$work/sum.err" | sed 's/^/# /'
tap_check "SIGUSR1 prints the summary" grep -q "^varg-server: summary" "$work/sum.err"
tap_check "the summary has per-stage times of Varg updates" \
	grep -Eq "^    varg  segmenter +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+" "$work/sum.err"
tap_check "... the stock encoder's and the capture-to-send latency" \
	grep -Eq "^    stock latency +[0-9.]+" "$work/sum.err"
tap_check "... and the raw/sent ratio and belief hit rate" \
	sh -c "grep -q 'Varg ratio raw/sent: [0-9.]*:1' '$work/sum.err' && grep -q 'hit rate [0-9.]* %' '$work/sum.err'"
tap_check "... and each viewer's bytes and encoding" \
	sh -c "grep -Eq '^  viewer .*: varg, [0-9]+ bytes, .*belief hit rate' '$work/sum.err' && grep -Eq '^  viewer .*: zrle, [0-9]+ bytes' '$work/sum.err'"
tap_check "the server still runs after SIGUSR1" kill -0 "$SERVER_PID"
tap_check "--stats-interval prints status lines with ratio and latency" \
	grep -Eq "status: .*Varg: ratio [0-9.]+:1, latency p50 [0-9.]+ ms" "$work/sum.err"
stop_server
tap_done
