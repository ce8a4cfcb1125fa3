#!/bin/sh
# The viewer's window shown 1:1 through the window's surface, only the
# changed rectangles pushed: on a private Xvfb, against varg-server playing
# a trace, the window (read back with xwd) ends with exactly the trace's
# last frame; and again after the overlay (drawn through a renderer) is
# shown and hidden, after the window is scaled and brought back to 1:1,
# after it is unmapped and mapped (a full redraw), and after a switch from
# the renderer to the surface in the middle of a session.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"
# Under LeakSanitizer, the used-suppressions report would add stderr lines.
[ -z "${LSAN_OPTIONS:-}" ] || export LSAN_OPTIONS="$LSAN_OPTIONS:print_suppressions=0"
PLAN=12
tap_plan $PLAN

for tool in Xvfb xdotool xwd convert; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		for _ in $(seq 1 $PLAN); do tap_skip "$tool is not installed (scripts/setup)"; done
		exit 0
	fi
done

# logged NAME TEXT COUNT: the viewer's log holds COUNT lines with TEXT.
logged() { [ "$(grep -c "$2" "$work/$1.log")" -eq "$3" ]; }
SURFACE='the window shows the frame 1:1 through its surface'
RENDERER='the window draws the frame through a renderer'

# stop_viewer NAME: SIGTERM; the viewer must exit 0 (under the
# sanitizers, with no leak).
stop_viewer() {
	kill "$VPID" 2>/dev/null
	wait "$VPID" 2>/dev/null
	st=$?
	[ "$st" -eq 0 ] && return 0
	echo "# exit $st:"; tail -20 "$work/$1.log" | sed 's/^/#   /'
	return 1
}

start_xvfb 1280x1024 || exit 1
NEAR=$XDPY

# --- TreeView, as fast as the viewer takes it: many small updates.
TREE=$S/traces/samples/treeview-scroll.vtr
last_frame "$TREE" "$work/tree.png" || exit 1
start_server tree --trace "$TREE" --speed 0 --wait-clients 1 --no-tls || exit 1
window_viewer tree --verbose "localhost::$PORT" || exit 1
tap_check "the window ends with exactly the trace's last frame" window_ends "$work/tree.png" 60
tap_check "drawn through the window's surface once the frame is 1:1" \
	eval 'logged tree "$SURFACE" 1 && logged tree "$RENDERER" 1'

DISPLAY=$NEAR xdotool mousemove --window "$WID" 20 20 key F8 s
overlay_shows() { ! window_matches "$work/tree.png"; }
tap_check "F8 s: the overlay shows, through a renderer" \
	eval 'wait_for 10 overlay_shows && logged tree "$RENDERER" 2'
DISPLAY=$NEAR xdotool key F8 s
tap_check "F8 s again: exact again, through the surface again" \
	eval 'window_ends "$work/tree.png" 10 && logged tree "$SURFACE" 2'

DISPLAY=$NEAR xdotool windowsize "$WID" 512 384
sleep 0.5
DISPLAY=$NEAR xdotool windowsize "$WID" 1024 768
tap_check "scaled to 512x384 and back to 1:1: exact" \
	eval 'window_ends "$work/tree.png" 10 && logged tree "$SURFACE" 3'

# Xvfb keeps no backing store: a mapped window is blank until redrawn.
DISPLAY=$NEAR xdotool windowunmap --sync "$WID"
DISPLAY=$NEAR xdotool windowmap --sync "$WID"
tap_check "unmapped and mapped again: the whole window is redrawn" window_ends "$work/tree.png" 10
# A window made again by SDL would vanish and come back on the user's screen.
same_window() {
	[ "$(DISPLAY=$NEAR xdotool search --pid "$VPID" --name '^varg-viewer' 2>/dev/null)" = "$WID" ]
}
tap_check "one X window throughout" same_window
tap_check "the viewer exits 0" stop_viewer tree
stop_server

# --- The heatmap at half speed, the overlay on at first: the viewer
# leaves the renderer for the surface while updates keep coming.
HEAT=$S/traces/samples/heatmap-scroll.vtr
last_frame "$HEAT" "$work/heat.png" || exit 1
start_server heat --trace "$HEAT" --speed 0.5 --wait-clients 1 --no-tls || exit 1
window_viewer heat --verbose --stats "localhost::$PORT" || exit 1
sleep 2
tap_check "with --stats the frame is drawn through a renderer" \
	eval 'logged heat "$RENDERER" 1 && logged heat "$SURFACE" 0'
DISPLAY=$NEAR xdotool mousemove --window "$WID" 20 20 key F8 s
tap_check "F8 s mid-session: the surface takes over" wait_for 10 logged heat "$SURFACE" 1
played() { grep -q 'trace played' "$work/heat.err"; }
switched_before_end() { wait_for 60 played && ! grep -q 'trace played' "$work/heat.before"; }
cp "$work/heat.err" "$work/heat.before"
tap_check "and shows the updates after it: exactly the last frame" \
	eval 'switched_before_end && window_ends "$work/heat.png" 20'
tap_check "the viewer exits 0" stop_viewer heat
tap_done
