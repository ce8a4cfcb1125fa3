#!/bin/sh
# The folders' one-way order (doc/architecture.md): each library folder
# includes only its own headers and those of the folders below it.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
src=${VG_TOP_SRCDIR:-.}
# folder, then the folders it may include from (itself always)
rules="common:
segment2d:common
fingerprint/codec:common
fingerprint/cache:common
fingerprint/proto:common fingerprint/codec fingerprint/cache
pipeline:common segment2d fingerprint/proto fingerprint/codec fingerprint/cache"
tap_plan $(echo "$rules" | wc -l)
while IFS=: read -r dir allowed; do
	bad=""
	for f in $(cd "$src" && ls "$dir"/*.[ch] 2>/dev/null); do
		for inc in $(sed -n 's/^#include "\([^"]*\)\/[^/"]*"$/\1/p' "$src/$f"); do
			ok=no
			for a in "$dir" $allowed; do
				[ "$inc" = "$a" ] && ok=yes
			done
			[ "$ok" = yes ] || bad="$bad $f->$inc"
		done
	done
	if [ -z "$bad" ]; then
		tap_ok "$dir/ includes only ${allowed:-itself}"
	else
		echo "# $bad"
		tap_not_ok "$dir/ includes only ${allowed:-itself}"
	fi
done <<EOF
$rules
EOF
tap_done
