#!/bin/sh
# Fingerprints end to end: varg-server sends segments the viewer holds as
# optimistic fingerprints and checks them with SHA-1; the picture stays
# exact with the default 40-bit and with 12-bit fingerprints.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
TRACE=${VG_TEST_TRACE:-$S/traces/samples/heatmap-scroll.vtr}
tap_plan 6

last_frame "$TRACE" "$work/expected.png" || { tap_not_ok "export the trace's last frame"; exit 1; }

for bits in 40 12; do
	start_server fp$bits --trace "$TRACE" --speed 0 --wait-clients 1 --fp-bits $bits || exit 1
	viewer v$bits
	eval wait "\$pid_v$bits"
	st=$?
	hits=$(json_num "$work/v$bits.json" cache_hits)
	echo "# $bits-bit fingerprints: $(json_num "$work/v$bits.json" bytes_received) bytes," \
		"$hits cache hits, $(json_num "$work/v$bits.json" cache_misses) misses," \
		"$(json_num "$work/v$bits.json" corrections) corrections," \
		"$(json_num "$work/v$bits.json" checks) SHA-1 checks"
	if [ $st -eq 0 ] && same_image "$work/v$bits.png" "$work/expected.png"; then
		tap_ok "$bits-bit fingerprints: the viewer ends exact"
	else
		sed 's/^/# /' "$work/v$bits.log"
		tap_not_ok "$bits-bit fingerprints: the viewer ends exact"
	fi
	tap_check "$bits-bit fingerprints: segments came from the viewer's cache" test "${hits:-0}" -gt 0
	stop_server
done

# The segment cache is on disk, in this server's namespace, private.
dir=$(ls -d "$work"/cache-v40/* 2>/dev/null | head -1)
tap_check "the viewer's persistent cache lives in a per-server directory" test -n "$dir"
tap_check "the cache directory is private (0700)" test "$(stat -c %a "$dir" 2>/dev/null)" = 700
tap_done
