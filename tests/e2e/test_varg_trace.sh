#!/bin/sh
# varg-trace end to end: import/export round trips are bit-exact, bad input
# and bad options give one line on stderr and a non-zero exit.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
src=${VG_TOP_SRCDIR:-.}
bld=${VG_TOP_BUILDDIR:-.}
vt=$bld/traces/varg-trace
synth=$bld/traces/varg-synth
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vg-vt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

tap_plan 30

same_dirs() { # same_dirs A B: the same files with the same bytes
	[ "$(ls "$1")" = "$(ls "$2")" ] || return 1
	for f in $(ls "$1"); do cmp -s "$1/$f" "$2/$f" || { echo "# $f differs"; return 1; }; done
}

# Round trips at odd sizes, from PNG and from PPM.
"$synth" -W 97 -H 61 -n 12 -o "$tmp/png" >/dev/null &&
"$synth" -W 97 -H 61 -n 12 --format ppm -o "$tmp/ppm" >/dev/null
tap_check "varg-synth draws PNG and PPM frames" test -f "$tmp/png/frame-0011.png" -a -f "$tmp/ppm/frame-0011.ppm"
tap_check "import from PNG" "$vt" import --quiet --frames "$tmp/png" -o "$tmp/a.vtr"
tap_check "import from PPM" "$vt" import --quiet --frames "$tmp/ppm" -o "$tmp/b.vtr"
tap_check "export as PPM" "$vt" export --format ppm --frames "$tmp/a-ppm" "$tmp/a.vtr"
rm "$tmp/ppm/timestamps.txt" "$tmp/a-ppm/timestamps.txt"
(cd "$tmp/ppm" && for f in frame-*.ppm; do n=${f#frame-}; mv "$f" "frame-00$n"; done)
tap_check "PNG -> trace -> PPM is bit-exact" same_dirs "$tmp/ppm" "$tmp/a-ppm"
tap_check "export as PNG" "$vt" export --frames "$tmp/b-png" "$tmp/b.vtr"
tap_check "re-import the export" "$vt" import --quiet --frames "$tmp/b-png" -o "$tmp/c.vtr"
"$vt" export --format ppm --frames "$tmp/c-ppm" "$tmp/c.vtr" >/dev/null
"$vt" export --format ppm --frames "$tmp/b-ppm" "$tmp/b.vtr" >/dev/null
tap_check "PPM -> trace -> PNG -> trace -> PPM is bit-exact, times too" same_dirs "$tmp/b-ppm" "$tmp/c-ppm"
# --changed: each frame's changed box; pasted in order onto the first
# frame they give every frame back.
tap_check "export --changed" "$vt" export --changed --format ppm --frames "$tmp/ch" "$tmp/b.vtr"
changes_rebuild_frames() {
	cp "$tmp/b-ppm/frame-000000.ppm" "$tmp/canvas.ppm"
	n=0
	while read -r f x y w h ms; do
		n=$((n + 1))
		convert "$tmp/canvas.ppm" "$tmp/ch/$f" -geometry "+$x+$y" -composite "$tmp/canvas.ppm" || return 1
		i=${f#change-}
		"$bld/tests/vg_imgcmp" "$tmp/canvas.ppm" "$tmp/b-ppm/frame-$i" >/dev/null || { echo "# $f: frame $i differs"; return 1; }
	done <"$tmp/ch/changes.txt"
	[ "$n" -ge 2 ] && head -1 "$tmp/ch/changes.txt" | grep -q '^change-000000.ppm 0 0 97 61 '
}
tap_check "the changed boxes rebuild every frame" changes_rebuild_frames
"$vt" info --json "$tmp/a.vtr" >"$tmp/info.json"
tap_check "info --json counts the frames" grep -q '"frames": 12,' "$tmp/info.json"
tap_check "info prints the geometry" sh -c "'$vt' info '$tmp/a.vtr' | grep -q '97x61'"

# A manifest gives the times; without one they are --interval-ms apart.
"$synth" -W 50 -H 40 -n 3 -o "$tmp/m" >/dev/null
printf '# name ms\nframe-0000.png 0\nframe-0001.png 250.5\n\nframe-0002.png 1000\n' >"$tmp/m/timestamps.txt"
"$vt" import --quiet --frames "$tmp/m" -o "$tmp/m.vtr"
"$vt" info --json "$tmp/m.vtr" >"$tmp/m.json"
tap_check "manifest times are kept" grep -q '"duration_ns": 1000000000,' "$tmp/m.json"
rm "$tmp/m/timestamps.txt"
"$vt" import --quiet --interval-ms 40 --frames "$tmp/m" -o "$tmp/m.vtr"
tap_check "--interval-ms without a manifest" sh -c "'$vt' info --json '$tmp/m.vtr' | grep -q '\"duration_ns\": 80000000,'"
printf 'frame-0000.png 0\nframe-0001.png soon\n' >"$tmp/m/timestamps.txt"
tap_check "a bad manifest line is one error" fails_cleanly 1 "$vt" import --quiet --frames "$tmp/m" -o "$tmp/x.vtr"
rm "$tmp/m/timestamps.txt"

# Frames of different sizes.
"$synth" -W 51 -H 40 -n 1 -o "$tmp/other" >/dev/null
cp "$tmp/other/frame-0000.png" "$tmp/m/frame-0009.png"
tap_check "frames of different sizes: one error" fails_cleanly 1 "$vt" import --quiet --frames "$tmp/m" -o "$tmp/x.vtr"
tap_check "... that names both sizes, and no output is left" sh -c "grep -q '51x40.*50x40' '$tmp/err' && test ! -e '$tmp/x.vtr'"

# Damaged traces.
size=$(wc -c <"$tmp/a.vtr")
head -c $((size - 7)) "$tmp/a.vtr" >"$tmp/cut.vtr"
tap_check "truncated trace: one error" fails_cleanly 1 "$vt" info "$tmp/cut.vtr"
tap_check "... naming the record and offset" grep -q 'record 12 at offset [0-9]*: truncated' "$tmp/err"
cp "$tmp/a.vtr" "$tmp/flip.vtr"
printf '\377' | dd of="$tmp/flip.vtr" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
tap_check "flipped byte: one error" fails_cleanly 1 "$vt" info "$tmp/flip.vtr"
tap_check "... naming a record" grep -q 'record [0-9]* at offset' "$tmp/err"
tap_check "export stops at the damage with one error" fails_cleanly 1 "$vt" export --frames "$tmp/partial" "$tmp/cut.vtr"
tap_check "... after writing the frames before it" test -f "$tmp/partial/frame-000011.png"

# Bad options, missing and wrong files.
tap_check "unknown option" fails_cleanly 2 "$vt" import --bogus
tap_check "missing --frames" fails_cleanly 2 "$vt" import -o "$tmp/x.vtr"
tap_check "unknown command" fails_cleanly 2 "$vt" frobnicate
tap_check "missing trace file" fails_cleanly 1 "$vt" info "$tmp/none.vtr"
tap_check "a PNG is not a trace" fails_cleanly 1 "$vt" info "$tmp/png/frame-0000.png"
mkdir "$tmp/empty"
tap_check "an empty directory" fails_cleanly 1 "$vt" import --frames "$tmp/empty" -o "$tmp/x.vtr"
ok=yes
for c in import info export; do
	"$vt" "$c" --help 2>&1 | grep -q "varg-trace $c" || ok=no
done
"$vt" --help | grep -q import || ok=no
tap_check "--help for the program and each command" test $ok = yes
tap_done
