#!/bin/sh
# The browser viewer's sources (scripts/build-web's list) are plain C: each
# compiles without GLib's include path, none includes a GLib header, and
# together they need only decompression from zlib and zstd and nothing of
# ours that the list leaves out (the encoders live in other files).
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
src=${VG_TOP_SRCDIR:-.}
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The list, without the Emscripten glue (it needs Emscripten's headers).
sources=$(sed -n '/^SOURCES="/,/"$/p' "$src/scripts/build-web" | tr -d '"' | sed 's/^SOURCES=//' |
	tr -s ' \t' '\n\n' | grep '\.c$' | grep -v '^viewer/web/vg_webviewer\.c$')
flags="-std=gnu11 -D_GNU_SOURCE -Wall -Werror -I$src"
tap_plan $(($(echo "$sources" | wc -l) + 3))
[ -n "$sources" ] || echo "# no sources found in scripts/build-web"
for f in $sources; do
	o=$tmp/$(echo "$f" | tr / _).o
	if $cc $flags -c "$src/$f" -o "$o" 2>"$tmp/err"; then
		tap_ok "$f compiles without GLib"
	else
		sed 's/^/# /' "$tmp/err"
		tap_not_ok "$f compiles without GLib"
	fi
done
# A GLib header that is found anyway (another include path) still counts:
# the sources and the project's headers they include, read.
bad=$(cd "$src" && for f in $sources; do
	echo "$f"
	$cc $flags -MM "$f" 2>/dev/null | tr ' \\' '\n\n' | grep -E '^[a-z].*\.h$'
done | sort -u | xargs grep -l '^#include <glib' 2>/dev/null | tr '\n' ' ')
tap_check "no GLib header is included${bad:+ (by $bad)}" [ -z "$bad" ]
nm -u "$tmp"/*.o 2>/dev/null | awk '$1 == "U" { print $2 }' | sort -u >"$tmp/undef"
nm --defined-only "$tmp"/*.o 2>/dev/null | awk 'NF == 3 && $2 ~ /[TDBR]/ { print $3 }' | sort -u >"$tmp/def"
comp=$(grep -E '^(deflate|ZSTD_(compress|createCCtx|freeCCtx|CCtx|initCStream|endStream|flushStream))' "$tmp/undef" | tr '\n' ' ')
tap_check "no compression symbol is needed${comp:+: $comp}" [ -z "$comp" ]
missing=$(grep '^vg' "$tmp/undef" | comm -23 - "$tmp/def" | tr '\n' ' ')
tap_check "every vg_ symbol is defined by the list${missing:+ (missing: $missing)}" [ -z "$missing" ]
tap_done
