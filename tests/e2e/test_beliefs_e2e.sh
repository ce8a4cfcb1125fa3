#!/bin/sh
# Warm reconnects end to end: varg-server remembers, on disk, what each
# viewer cache holds (per cache identity), so a viewer that comes back with
# its persistent cache gets fingerprints instead of pixels, also after the
# server restarts; stale, damaged and cleared caches still end exact. A
# cache that holds nothing of the server announces its capabilities and
# gets its first update coded ahead of its VIEWER HELLO; one that does
# waits for the HELLO and starts warm.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
TRACE=${VG_TEST_TRACE:-$S/traces/samples/treeview-scroll.vtr}
tap_plan 21

last_frame "$TRACE" "$work/expected.png" || { tap_not_ok "export the trace's last frame"; exit 1; }
main=$work/cache-main

# run_viewer NAME ARGS...: runs a viewer to its end; ok if it exits 0 and
# ends with the trace's last frame.
run_viewer() {
	v=$1
	viewer "$@"
	eval wait "\$pid_$v"
	st=$?
	echo "# $v: $(json_num "$work/$v.json" bytes_received) bytes," \
		"$(json_num "$work/$v.json" cache_hits) hits, $(json_num "$work/$v.json" cache_misses) misses," \
		"$(json_num "$work/$v.json" corrections) corrections"
	if [ $st -eq 0 ] && same_image "$work/$v.png" "$work/expected.png"; then
		return 0
	fi
	sed 's/^/#   /' "$work/$v.log"
	return 1
}

# sessions_ended NAME N: waits until server NAME logged N ended sessions
# (the belief file is written just before).
sessions_ended() {
	for _ in $(seq 1 100); do
		[ "$(grep -c 'Varg session ended' "$work/$1.err")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

bytes() { json_num "$work/$1.json" bytes_received; }
# warm_pays_half WARM COLD: WARM drew every segment from its cache (no
# pixels at all), its history came back from the last session, and it
# received at most half the bytes of COLD.
warm_pays_half() {
	echo "# warm/cold bytes: $(($(bytes "$1") * 100 / $(bytes "$2"))) %"
	[ "$(json_num "$work/$1.json" cache_hits)" -eq "$(json_num "$work/$1.json" segments)" ] &&
		[ "$(json_num "$work/$1.json" history_restored)" -gt 0 ] &&
		[ "$(($(bytes "$1") * 2))" -le "$(bytes "$2")" ]
}

# 1. Cold: a viewer with an empty persistent cache.
start_server s1 --trace "$TRACE" --speed 0 --wait-clients 1 || exit 1
port=$PORT
CACHE=$main tap_check "cold run ends exact" run_viewer cold
tap_check "cold run: the first update was coded ahead of the VIEWER HELLO" \
	grep -q '"coded_ahead": true' "$work/cold.json"
tap_check "the viewer noted which server answered at its address" \
	grep -q "^server=" "$main/servers"
sessions_ended s1 1
stop_server
files=$(ls "$XDG_STATE_HOME"/varg/beliefs/*/*.vgb 2>/dev/null)
tap_check "the server saved one belief file" test "$(echo "$files" | grep -c .)" = 1
tap_check "the belief directory is private (0700)" \
	test "$(stat -c %a "$(dirname "$(echo "$files" | head -1)")")" = 700
ns=$(ls -d "$main"/*/ | head -1)
# The identity file: 8-byte magic, 4-byte version, the 16-byte identity.
id=$(od -An -tx1 -j12 -N16 "$ns/identity" | tr -d ' \n')
f=$(ls "$XDG_STATE_HOME"/varg/beliefs/*/"$id.vgb")
tap_check "the server's belief file is named after the viewer's cache identity" test -s "$f"

# 2. Warm after a server restart (same port, so the same server identity).
start_server s2 --trace "$TRACE" --speed 0 --wait-clients 1 --port "$port" || exit 1
CACHE=$main tap_check "warm run after a server restart ends exact" run_viewer warm
tap_check "warm run draws every segment from its cache and receives at most half the bytes" warm_pays_half warm cold
tap_check "the server loaded beliefs from disk" grep -q "beliefs from earlier sessions" "$work/s2.err"
tap_check "warm run: no repairs" test "$(json_num "$work/warm.json" corrections)" = 0
tap_check "warm run waited for its VIEWER HELLO" grep -q '"coded_ahead": false' "$work/warm.json"
sessions_ended s2 1

# 3. Warm without a restart: the same server, now serving its last frame,
# against a viewer with a new cache.
CACHE=$main tap_check "warm reconnect without a restart ends exact" run_viewer again
CACHE=$work/cache-fresh tap_check "a new cache ends exact" run_viewer fresh
# The trace has played: both get its last frame only, which repeats
# itself enough that even a new cache hits; the warm one gets no pixels.
tap_check "warm reconnect: more hits and fewer bytes than a new cache, no repairs" \
	test "$(json_num "$work/again.json" cache_hits)" -gt "$(json_num "$work/fresh.json" cache_hits)" \
	-a "$(bytes again)" -lt "$(bytes fresh)" -a "$(json_num "$work/again.json" corrections)" = 0
sessions_ended s2 3

# 4. Stale: another cache directory carrying the same identity but none of
# the segments; the server believes, the viewer misses and asks again.
mkdir -p "$work/cache-stale/$(basename "$ns")"
cp "$ns/identity" "$work/cache-stale/$(basename "$ns")/"
cp "$main/servers" "$work/cache-stale/"
CACHE=$work/cache-stale tap_check "stale cache ends exact" run_viewer stale
tap_check "stale cache: misses were repaired" test "$(json_num "$work/stale.json" corrections)" -gt 0
sessions_ended s2 4
grep "Varg session ended" "$work/s2.err" | tail -1 | sed 's/^/# /'
tap_check "the server logs the miss rate at disconnect" grep -q "miss rate [1-9]" "$work/s2.err"

# 5. A damaged belief file: a warning, a cold start, an exact end.
head -c 100 "$f" >"$f.cut" && mv "$f.cut" "$f"
CACHE=$main tap_check "damaged belief file: the viewer ends exact" run_viewer damaged
tap_check "damaged belief file: the server warns and goes on" \
	sh -c "grep -q 'belief file .* unusable' '$work/s2.err' && kill -0 $SERVER_PID" ||
	sed 's/^/#   /' "$work/s2.err"

# 6. --clear-cache renews the identity; --no-persistent-cache leaves no file.
old=$(od -An -tx1 "$ns/identity")
CACHE=$main run_viewer cleared --clear-cache >/dev/null
tap_check "--clear-cache gives the cache a new identity" \
	test "$old" != "$(od -An -tx1 "$ns/identity")"
sessions_ended s2 6
before=$(ls "$XDG_STATE_HOME"/varg/beliefs/*/ | wc -l)
CACHE= run_viewer mem --no-persistent-cache >/dev/null
sessions_ended s2 7
tap_check "a viewer without a persistent cache leaves no belief file" \
	test "$(ls "$XDG_STATE_HOME"/varg/beliefs/*/ | wc -l)" = "$before"
stop_server
tap_done
