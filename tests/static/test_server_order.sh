#!/bin/sh
# The modules of server/ in one order, lowest first (doc/architecture.md):
# each file includes server/ headers only of its own module and of modules
# before it, so no two server files call each other both ways. A file of
# a module not listed fails too: a new module takes its place here.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
src=${VG_TOP_SRCDIR:-.}
order="vg_authguard vg_http vg_monitor vg_refine vg_segshare vg_serverkey
vg_serverconfig vg_listener vg_tlsgate vg_auth vg_webdir
vg_screen vg_input vg_vargclient vg_stockclient
vg_server vg_report vg_inputqueue vg_tracesource vg_xsource vg_vncsource vg_relaysource
varg_server varg_relay"
files=$(cd "$src" && ls server/*.[ch])
tap_plan $(( $(echo "$files" | wc -w) + 1 ))
# rank MODULE: its place in the order, empty if it has none
rank() {
	i=0
	for m in $order; do
		i=$((i + 1))
		[ "$m" = "$1" ] && { echo $i; return; }
	done
}
unlisted=""
for f in $files; do
	m=$(basename "$f" | sed 's/\.[ch]$//')
	r=$(rank "$m")
	[ -n "$r" ] || unlisted="$unlisted $m"
done
if [ -z "$unlisted" ]; then
	tap_ok "every server/ module has its place in the order"
else
	echo "# not in the order:$unlisted"
	tap_not_ok "every server/ module has its place in the order"
fi
for f in $files; do
	m=$(basename "$f" | sed 's/\.[ch]$//')
	r=$(rank "$m")
	bad=""
	for inc in $(sed -n 's/^#include "server\/\([^"]*\)\.h"$/\1/p' "$src/$f"); do
		ri=$(rank "$inc")
		if [ "$inc" != "$m" ] && { [ -z "$r" ] || [ -z "$ri" ] || [ "$ri" -ge "$r" ]; }; then
			bad="$bad $inc"
		fi
	done
	if [ -z "$bad" ]; then
		tap_ok "$f includes only modules below it"
	else
		echo "# $f includes, from its level or above:$bad"
		tap_not_ok "$f includes only modules below it"
	fi
done
tap_done
