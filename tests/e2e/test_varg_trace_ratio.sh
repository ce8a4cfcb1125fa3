#!/bin/sh
# varg-trace ratio: figures on a tiny trace worked out by hand, the JSON
# keys, one-line errors, and the same bytes as the live server-to-viewer
# path.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
vt=$B/traces/varg-trace
# The bundled traces, or one given, for the live comparison at the end.
TRACES=${VG_TEST_TRACE:-$(ls "$S"/traces/samples/*.vtr)}
tap_plan $((14 + 5 * $(echo $TRACES | wc -w)))

# ppm FILE X Y W H: a 16x8 black image with a white W x H block at X,Y.
ppm() {
	{
		printf 'P6\n16 8\n255\n'
		y=0
		while [ $y -lt 8 ]; do
			x=0
			while [ $x -lt 16 ]; do
				if [ $x -ge $2 ] && [ $x -lt $(($2 + $4)) ] && [ $y -ge $3 ] && [ $y -lt $(($3 + $5)) ]; then
					printf '\377\377\377'
				else
					printf '\000\000\000'
				fi
				x=$((x + 1))
			done
			y=$((y + 1))
		done
	} >"$1"
}

# Three frames: black, a 4x2 white block at (2,3), the same again. The
# trace stores its first frame whole, and the viewer starts with nothing,
# so the first update is the whole 16 x 8 frame (as with the live server);
# the second frame changes 4 x 2 pixels; the third nothing.
mkdir -p "$tmp/tiny"
ppm "$tmp/tiny/frame-0000.ppm" 0 0 0 0
ppm "$tmp/tiny/frame-0001.ppm" 2 3 4 2
ppm "$tmp/tiny/frame-0002.ppm" 2 3 4 2
"$vt" import --quiet --frames "$tmp/tiny" -o "$tmp/tiny.vtr"
tap_check "ratio runs on a tiny trace" sh -c "'$vt' ratio '$tmp/tiny.vtr' --json '$tmp/tiny.json' >'$tmp/tiny.txt' 2>'$tmp/tiny.err'"
sed 's/^/#   /' "$tmp/tiny.err"
num() { json_num "$tmp/tiny.json" "$1"; }
# raw: 3 frames x 16 x 8 x 4 = 1536; differencing: (16 x 8 + 4 x 2) x 4.
tap_check "raw bytes = 3 x 16 x 8 x 4" test "$(num raw_bytes)" = 1536
tap_check "two updates of three frames" test "$(num updates)" = 2 -a "$(num frames)" = 3
tap_check "differencing keeps 512 + 32 = 544 bytes" grep -q '"diff": {"bytes": 544,' "$tmp/tiny.json"
# LibVNCServer Raw, per update a 4-byte header, a 12-byte rectangle header
# and the pixels: (4 + 12 + 512) + (4 + 12 + 32) = 576.
tap_check "LibVNCServer Raw sends 528 + 48 = 576 bytes" grep -q '"raw": {"bytes": 576,' "$tmp/tiny.json"
tap_check "the Varg viewer ends exact" grep -q '^varg viewer after the last update: exact' "$tmp/tiny.txt"
ok=1
for k in frames updates raw_bytes stages diff segment zlib sha1 ms_mean ms_p90 total_bytes \
	total_ratio segmenters varg varg-nomotion varg-nosimilar static content2d karprabin \
	encodings hextile tight zrle ms_total wan gigabit fast-ethernet princeton-boston \
	princeton-san-diego princeton-tromso p50_ms p90_ms p99_ms share_under_100ms share_under_200ms; do
	grep -q "\"$k\":" "$tmp/tiny.json" || { echo "# key $k missing"; ok=0; }
done
tap_check "the JSON has every documented key" test $ok = 1
tap_check "--sweep prints one line per value" sh -c "'$vt' ratio '$tmp/tiny.vtr' --sweep column-width=8,16 | grep -c '^column-width=' | grep -qx 2"

# Bad options and bad traces: one line, exit 2 or 1.
tap_check "unknown segmenter" fails_cleanly 2 "$vt" ratio --segmenter nope "$tmp/tiny.vtr"
tap_check "bad --fp-bits" fails_cleanly 2 "$vt" ratio --fp-bits 3 "$tmp/tiny.vtr"
tap_check "bad --sweep" fails_cleanly 2 "$vt" ratio --sweep width=1 "$tmp/tiny.vtr"
tap_check "missing trace" fails_cleanly 1 "$vt" ratio "$tmp/none.vtr"
size=$(wc -c <"$tmp/tiny.vtr")
head -c $((size - 5)) "$tmp/tiny.vtr" >"$tmp/cut.vtr"
tap_check "truncated trace" fails_cleanly 1 "$vt" ratio "$tmp/cut.vtr"
cp "$tmp/tiny.vtr" "$tmp/flip.vtr"
printf '\377' | dd of="$tmp/flip.vtr" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
tap_check "damaged trace" fails_cleanly 1 "$vt" ratio "$tmp/flip.vtr"

# The live path: varg-server plays each bundled trace to one varg-viewer
# (a fresh, memory-only cache), one update per frame (--speed 0 waits for
# the viewer). Both run the same code for an update (pipeline/vg_pipeline.h:
# differ, movement estimation, moves, segmenter, sender) on the same
# inputs, so both count exactly the same bytes: the Varg rectangles'
# bodies with their 4-byte length fields (the viewer's varg_bytes, the
# tool's varg_rect_bytes), not the RFB headers around them.
# live_vs_tool NAME TRACE TOOL-OPTION SERVER-OPTION: the tool's Varg bytes
# and the live viewer's, the literal pixels by the literal methods and
# zstd or by the pixel model, on both sides for every update (by default
# the server would choose per update by the link's rate, and might try
# the model on a busy machine). zstd's level is the tool's default on both
# sides: the server would pick 3 for a viewer on the same host (a LAN's
# round trip).
live_vs_tool() {
	"$vt" ratio -q --no-variants --no-stock $3 --json "$tmp/$1-tool.json" "$2" >/dev/null \
		2>"$tmp/$1-tool.err"
	tool=$(json_num "$tmp/$1-tool.json" varg_rect_bytes)
	if start_server "$1" --trace "$2" --speed 0 --wait-clients 1 --pace-timeout 5000 --zstd-level 9 $4; then
		viewer "$1"
		eval wait "\$pid_$1"
		live=$(json_num "$work/$1.json" varg_bytes 2>/dev/null)
		[ -n "$live" ] || sed "s/^/# viewer: /" "$work/$1.log"
		stop_server
	else
		live=""
	fi
	echo "# $1: tool $tool Varg bytes; live viewer $live"
}
for trace in $TRACES; do
	# a shell name: the viewer's pid is kept in pid_NAME
	t=$(basename "$trace" .vtr | tr -c "a-zA-Z0-9\n" _)
	live_vs_tool "$t" "$trace" --no-pixmodel "--pixel-model off"
	tap_check "$t: the live viewer got exactly the tool's Varg bytes" \
		test "${tool:-0}" -gt 0 -a "${tool:-0}" = "${live:-}"
	lit=$tool
	live_vs_tool "${t}_model" "$trace" "" "--pixel-model on"
	tap_check "$t: with the pixel model too, and it sends fewer bytes" \
		test "${tool:-0}" -gt 0 -a "${tool:-0}" = "${live:-}" -a "${tool:-0}" -lt "${lit:-0}"
	tap_check "$t: the tool's pixels went by the pixel model" \
		grep -q '"model_updates": [1-9]' "$tmp/${t}_model-tool.json"
	tap_check "$t: the tool's viewer ends exact" grep -q '"exact": true' "$tmp/$t-tool.json"
	tap_check "$t: ... and with the pixel model" grep -q '"exact": true' "$tmp/${t}_model-tool.json"
done
tap_done
