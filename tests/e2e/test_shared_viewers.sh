#!/bin/sh
# Shared segmentation: four Varg viewers on one server playing the
# scrolling TreeView session all end with the exact last frame, the server
# took movement estimation and segmentation from one viewer for another
# (its --stats-json counts the hits), and each viewer was sent what it
# would have been sent alone (same bytes as a run without sharing).
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
TRACE=${VG_TEST_TRACE:-$S/traces/samples/treeview-scroll.vtr}
N=4
tap_plan 5

last_frame "$TRACE" "$work/expected.png" || { tap_not_ok "export the trace's last frame"; exit 1; }

# run NAME: the trace through N viewers, started together; the server
# waits for all of them and exits when they have gone.
run() {
	start_server "$1" --trace "$TRACE" --speed 0 --wait-clients $N --exit-at-end \
		--no-persistent-cache --stats-json "$work/$1-server.json" || return 1
	vp=""
	for i in $(seq 1 $N); do
		CACHE= viewer "${1}v$i"
		vp="$vp $!"
	done
	fails=0
	for p in $vp; do wait "$p" || fails=$((fails + 1)); done
	wait "$SERVER_PID"
	return $fails
}

run shared
st=$?
exact=0
for i in $(seq 1 $N); do
	same_image "$work/sharedv$i.png" "$work/expected.png" && exact=$((exact + 1))
done
if [ $st -eq 0 ] && [ $exact -eq $N ]; then
	tap_ok "$N Varg viewers on one server all end exact"
else
	for i in $(seq 1 $N); do sed 's/^/# /' "$work/sharedv$i.log"; done
	tap_not_ok "$N Varg viewers on one server all end exact ($exact exact)"
fi
hits=$(json_num "$work/shared-server.json" shared_hits)
misses=$(json_num "$work/shared-server.json" shared_misses)
echo "# shared segmentation: ${hits:-?} hits, ${misses:-?} misses, $(json_num "$work/shared-server.json" shared_waits) waits," \
	"$(json_num "$work/shared-server.json" varg_updates) Varg updates"
tap_check "the server shared segmentation between viewers (hits > 0)" test "${hits:-0}" -gt 0
tap_check "and computed results for others (misses > 0)" test "${misses:-0}" -gt 0

# Every viewer got the same bytes as without sharing: sharing changes the
# work, never the output.
VARG_TEST_NO_SHARE=1
export VARG_TEST_NO_SHARE
run alone
unset VARG_TEST_NO_SHARE
tap_check "without sharing the server reports no hits" test "$(json_num "$work/alone-server.json" shared_hits)" -eq 0
a=$(json_num "$work/shared-server.json" varg_bytes)
b=$(json_num "$work/alone-server.json" varg_bytes)
echo "# Varg bytes: $a shared, $b not shared"
tap_check "the viewers were sent as many Varg bytes with sharing as without (within 5 %)" \
	awk -v a="${a:-0}" -v b="${b:-1}" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 0.05 * b) }'
tap_done
