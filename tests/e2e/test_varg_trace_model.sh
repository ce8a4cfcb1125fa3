#!/bin/sh
# varg-trace model: Table 10's three figures from the command line, sweeps
# one line per value, JSON, and one-line errors for bad options.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
bld=${VG_TOP_BUILDDIR:-.}
vt=$bld/traces/varg-trace
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vg-model.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

tap_plan 16

ratio_is() { # ratio_is WANT ARGS...: the printed ratio, rounded to 2 places
	want=$1; shift
	got=$("$vt" model "$@" | sed -n 's/^compression ratio *\([0-9.]*\) .*/\1/p')
	[ "$got" = "$want" ] || { echo "# got '$got', want $want"; return 1; }
}

tap_check "Table 10 defaults: 2.28" ratio_is 2.28
tap_check "k=32: 1.12" ratio_is 1.12 -k 32
tap_check "one level, 160 bits: 1.14" ratio_is 1.14 --one-level
tap_check "explicit Table 10 values: 2.28" ratio_is 2.28 -S 100G -R 75 -k 40 -l 160 -p 20 -s 32
tap_check "-S in bytes equals 100G" ratio_is 2.28 --data-size 107374182400

"$vt" model --sweep k=8..64 >"$tmp/k.txt"
tap_check "--sweep k=8..64: a header and 57 lines" \
	sh -c "[ \$(grep -vc '^#' '$tmp/k.txt') -eq 57 ] && head -1 '$tmp/k.txt' | grep -q '^# k ratio'"
tap_check "... k=40 line holds 2.2758" grep -q '^40 2.2758 ' "$tmp/k.txt"
"$vt" model --sweep p=1..60 >"$tmp/p.txt"
tap_check "--sweep p=1..60: 60 lines" sh -c "[ \$(grep -vc '^#' '$tmp/p.txt') -eq 60 ]"
"$vt" model --json --sweep R=50..100:10 >"$tmp/r.json"
tap_check "--json --sweep is an array of 6 objects" \
	sh -c "[ \$(grep -o '\"ratio\":' '$tmp/r.json' | wc -l) -eq 6 ] && head -c1 '$tmp/r.json' | grep -q '\\['"
"$vt" model --json -k 32 >"$tmp/k32.json"
tap_check "--json holds the ratio" grep -q '"ratio": 1.117' "$tmp/k32.json"

tap_check "bad -k: one error" fails_cleanly 2 "$vt" model -k 0
tap_check "bad -R: one error" fails_cleanly 2 "$vt" model -R 101
tap_check "bad -S: one error" fails_cleanly 2 "$vt" model -S 12Q
tap_check "bad --sweep: one error" fails_cleanly 2 "$vt" model --sweep q=1..3
tap_check "sweep out of range: one error" fails_cleanly 2 "$vt" model --sweep k=100..200
tap_check "stray argument: one error" fails_cleanly 2 "$vt" model extra
tap_done
