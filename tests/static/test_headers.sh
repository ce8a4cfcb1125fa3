#!/bin/sh
# Every public header compiles on its own (it includes what it needs).
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
src=${VG_TOP_SRCDIR:-.}
cc=${CC:-cc}
flags="-std=gnu11 -fsyntax-only -Wall -Werror -I$src $(pkg-config --cflags glib-2.0 sdl2 libvncserver 2>/dev/null)"
headers=$(cd "$src" && ls common/*.h segment2d/*.h fingerprint/*/*.h pipeline/*.h traces/*.h 2>/dev/null)
tap_plan $(echo "$headers" | wc -w)
for h in $headers; do
	if printf '#include "%s"\n' "$h" | $cc $flags -x c - 2>"${TMPDIR:-/tmp}/vg-hdr.$$"; then
		tap_ok "$h compiles alone"
	else
		sed 's/^/# /' "${TMPDIR:-/tmp}/vg-hdr.$$"
		tap_not_ok "$h compiles alone"
	fi
done
rm -f "${TMPDIR:-/tmp}/vg-hdr.$$"
tap_done
