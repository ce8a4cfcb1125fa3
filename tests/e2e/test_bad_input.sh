#!/bin/sh
# Bad input, clear errors: every command-line tool given wrong options,
# missing files, files of the wrong type and damaged files answers with one
# line on stderr naming the problem and a non-zero exit status, never a
# crash or a hang. Damaged viewer caches are not errors: the viewer warns
# in one line and ends with the exact picture.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
TRACE=${VG_TEST_TRACE:-$S/traces/samples/heatmap-scroll.vtr}
SRV=$B/server/varg-server
VWR="$B/viewer/varg-viewer --headless"
VT=$B/traces/varg-trace
d=$work/in
mkdir -p "$d"
tap_plan 76

# Inputs: a frame as PNG, a trace cut short in its header and in a record,
# one with a flipped byte in a record and one in its magic, an empty file.
last_frame "$TRACE" "$work/expected.png" || { tap_not_ok "export the trace's last frame"; exit 1; }
cp "$work/expected.png" "$d/frame.png"
head -c 20 "$TRACE" >"$d/header-cut.vtr"
head -c 100000 "$TRACE" >"$d/cut.vtr"
cp "$TRACE" "$d/flipped.vtr"
printf '\377' | dd of="$d/flipped.vtr" bs=1 seek=50000 conv=notrunc 2>/dev/null
cp "$TRACE" "$d/badmagic.vtr"
printf 'X' | dd of="$d/badmagic.vtr" bs=1 seek=3 conv=notrunc 2>/dev/null
: >"$d/empty.vtr"
mkdir -p "$d/noframes" "$d/tracedir" "$d/cutpng" "$d/frames"
cp "$TRACE" "$d/tracedir/f0.png"
head -c 3000 "$d/frame.png" >"$d/cutpng/f0.png"
cp "$d/frame.png" "$d/frames/f0.png"
printf 'f0.png soon\n' >"$d/manifest.txt"

# bad STATUS PATTERN COMMAND...: the command exits with STATUS (not a
# signal, not the timeout), prints nothing on stdout (unless ANY_STDOUT=1)
# and exactly one stderr line, which matches the extended regex PATTERN.
bad() {
	want=$1 pat=$2; shift 2
	timeout 30 "$@" >"$work/out" 2>"$work/err"
	st=$?
	n=$(wc -l <"$work/err")
	line=$(head -1 "$work/err")
	name="$(echo "$*" | sed 's|[^ ]*/||g') -> $want"
	if [ "$st" -eq "$want" ] && [ "$n" -eq 1 ] && echo "$line" | grep -Eq -- "$pat" &&
	   { [ "${ANY_STDOUT:-0}" = 1 ] || [ ! -s "$work/out" ]; }; then
		tap_ok "$name: $line"
	else
		echo "# exit $st (want $want), $n stderr lines (want 1 matching '$pat'):"
		sed 's/^/#   /' "$work/err" | head -5
		[ -s "$work/out" ] && sed 's/^/#   stdout: /' "$work/out" | head -3
		tap_not_ok "$name"
	fi
}

# varg-server: options, then trace files.
bad 2 'no source given' $SRV
bad 2 "Unknown option --bogus" $SRV --bogus
bad 2 "unexpected argument 'extra'" $SRV --trace "$TRACE" extra
bad 2 'abc.*--port' $SRV --trace "$TRACE" --port abc
bad 2 '--port must be' $SRV --trace "$TRACE" --port 70000
bad 2 '--fp-bits must be' $SRV --trace "$TRACE" --fp-bits 4
bad 2 '--group-size must be' $SRV --trace "$TRACE" --group-size 0
bad 2 '--zstd-level must be between 1 and 19' $SRV --trace "$TRACE" --zstd-level 0
bad 2 '--band-ms must be between 0 and 60000' $SRV --trace "$TRACE" --band-ms -5
bad 2 '--first-paint-ms must be between 0 and 60000' $SRV --trace "$TRACE" --first-paint-ms 70000
bad 2 '--speed must be' $SRV --trace "$TRACE" --speed -1
bad 2 '--beliefs-file-mb must be' $SRV --trace "$TRACE" --beliefs-file-mb 0
bad 2 'exclude each other' $SRV --trace "$TRACE" --no-persistent-cache --beliefs-dir "$d"
bad 1 "bad listen address '300.1.1.1'" $SRV --trace "$TRACE" --listen 300.1.1.1
bad 2 "refusing to serve 0.0.0.0 without a password" $SRV --trace "$TRACE" --listen 0.0.0.0
bad 1 'nope.vtr: not found' $SRV --trace "$d/nope.vtr"
bad 1 'frame.png: wrong file type' $SRV --trace "$d/frame.png"
bad 1 'empty.vtr: wrong file type' $SRV --trace "$d/empty.vtr"
bad 1 'badmagic.vtr: wrong file type' $SRV --trace "$d/badmagic.vtr"
bad 1 'header-cut.vtr: input truncated' $SRV --trace "$d/header-cut.vtr"
bad 1 'in: wrong file type' $SRV --trace "$d"
# Damaged part way: played to the last good frame, then an exit status 1.
ANY_STDOUT=1 bad 1 'cut.vtr: record [0-9]+ at offset [0-9]+: truncated' \
	$SRV --trace "$d/cut.vtr" --port 0 --exit-at-end --quiet
ANY_STDOUT=1 bad 1 'flipped.vtr: record [0-9]+ at offset [0-9]+: checksum mismatch' \
	$SRV --trace "$d/flipped.vtr" --port 0 --exit-at-end --quiet
# The port is taken.
start_server busy --trace "$TRACE" --speed 0 || exit 1
bad 1 "cannot listen on 127.0.0.1 port $PORT" $SRV --trace "$TRACE" --port "$PORT"

# varg-viewer: options and addresses (nothing listens on port 1).
bad 2 'no server given' $VWR
bad 2 "Unknown option --bogus" $VWR --bogus localhost:1
bad 1 'use --headless' env -u DISPLAY -u WAYLAND_DISPLAY $B/viewer/varg-viewer localhost:1
bad 2 "unexpected argument 'extra'" $VWR localhost:1 extra
bad 2 "'foo:bar' is not a server address" $VWR foo:bar
bad 2 "'localhost::99999' is not a server address" $VWR localhost::99999
bad 2 "--cache-size: '12X' is not a size" $VWR --cache-size 12X localhost:1
bad 2 "--zstd-window: '0' is not a power of two" $VWR --zstd-window 0 localhost:1
bad 2 '--exit-when-idle must not be negative' $VWR --exit-when-idle -1 localhost:1
bad 2 'abc.*--exit-when-idle' $VWR --exit-when-idle abc localhost:1
bad 2 'exclude each other' $VWR --no-persistent-cache --cache-dir "$d" localhost:1
bad 1 'cannot connect to localhost port 1' $VWR localhost::1
bad 1 'cannot connect to nosuch.invalid' $VWR nosuch.invalid:1
# Output files that cannot be written: a full session, then the error.
bad 1 '/nonexistent/x.png' $VWR --exit-when-idle 1 --snapshot /nonexistent/x.png "localhost::$PORT"
bad 1 '/nonexistent/x.json' $VWR --exit-when-idle 1 --stats-json /nonexistent/x.json "localhost::$PORT"

# varg-viewer caches that are files of the wrong kind: one warning line
# naming the file, exit 0, the exact picture.
# warns NAME PATTERN ARGS...: a viewer run against the busy server.
warns() {
	n=$1 pat=$2; shift 2
	timeout 60 $VWR --exit-when-idle 1 --snapshot "$work/$n.png" "$@" "localhost::$PORT" \
		>"$work/out" 2>"$work/err"
	st=$?
	if [ "$st" -eq 0 ] && [ "$(wc -l <"$work/err")" -eq "${WARN_LINES:-1}" ] && grep -Eq -- "$pat" "$work/err" &&
	   same_image "$work/$n.png" "$work/expected.png"; then
		tap_ok "viewer, $n: warns and ends exact: $(cat "$work/err")"
	else
		echo "# exit $st:"; sed 's/^/#   /' "$work/err" | head -5
		tap_not_ok "viewer, $n: warns and ends exact"
	fi
}
# Two lines: the segments are kept in memory, and the server's TLS
# certificate cannot be remembered.
WARN_LINES=2 warns cache-dir-is-a-file 'frame.png/.*keeping segments in memory only' --cache-dir "$d/frame.png"
timeout 60 $VWR --exit-when-idle 1 --cache-dir "$work/c" "localhost::$PORT" >/dev/null 2>&1
ns=$(ls -d "$work"/c/*/ | head -1)
container=$(ls "$ns"*.vgc | head -1)
tap_check "a viewer cache to damage" test -f "$container"
cp "$TRACE" "$container"
warns trace-as-cache-container 'container .* is damaged \(wrong file type\)' --cache-dir "$work/c"
cp "$d/frame.png" "$ns/identity"
warns png-as-cache-identity 'identity is damaged' --cache-dir "$work/c"
head -c 1000 "$(ls "$ns"*.vgc | head -1)" >"$work/cut.vgc" && mv "$work/cut.vgc" "$(ls "$ns"*.vgc | head -1)"
timeout 60 $VWR --exit-when-idle 1 --snapshot "$work/cutc.png" --cache-dir "$work/c" "localhost::$PORT" \
	>/dev/null 2>"$work/err"
tap_check "viewer, truncated cache container: ends exact" same_image "$work/cutc.png" "$work/expected.png"
stop_server

# varg-trace and each command.
bad 2 'no command given' $VT
bad 2 "unknown command 'bogus'" $VT bogus
bad 2 'a trace FILE is required' $VT info
bad 2 "Unknown option --bogus" $VT info --bogus "$TRACE"
bad 2 'one FILE only' $VT info "$TRACE" "$TRACE"
bad 1 'nope.vtr: not found' $VT info "$d/nope.vtr"
bad 1 'frame.png: wrong file type' $VT info "$d/frame.png"
bad 1 'empty.vtr: wrong file type' $VT info "$d/empty.vtr"
bad 1 'in: wrong file type' $VT info "$d"
bad 1 'header-cut.vtr: input truncated' $VT info "$d/header-cut.vtr"
bad 1 'cut.vtr: record [0-9]+ at offset [0-9]+: truncated' $VT info "$d/cut.vtr"
bad 1 'flipped.vtr: record [0-9]+ at offset [0-9]+: checksum mismatch' $VT info "$d/flipped.vtr"
bad 2 '--frames DIR is required' $VT export "$TRACE"
bad 2 "--format must be png or ppm, not 'gif'" $VT export --frames "$work/x" --format gif "$TRACE"
bad 1 'frame.png: Not a directory' $VT export --frames "$d/frame.png" "$TRACE"
bad 1 'cut.vtr: record [0-9]+ at offset [0-9]+: truncated' $VT export --frames "$work/x" "$d/cut.vtr"
bad 1 'flipped.vtr: record [0-9]+ at offset [0-9]+: checksum mismatch' $VT export --frames "$work/x" "$d/flipped.vtr"
bad 2 'give one of --frames DIR and --fbs FILE' $VT import -o "$work/x.vtr"
bad 2 '-o OUT.vtr is required' $VT import --frames "$d/frames"
bad 2 '--level must be 0..9' $VT import --frames "$d/frames" -o "$work/x.vtr" --level 12
bad 1 'nodir' $VT import --frames "$d/nodir" -o "$work/x.vtr"
bad 1 'noframes: no .png or .ppm frames' $VT import --frames "$d/noframes" -o "$work/x.vtr"
bad 1 'f0.png: wrong file type' $VT import --frames "$d/tracedir" -o "$work/x.vtr"
bad 1 'f0.png: input corrupt' $VT import --frames "$d/cutpng" -o "$work/x.vtr"
bad 1 "manifest.txt:1: bad time 'soon'" $VT import --frames "$d/frames" -o "$work/x.vtr" --manifest "$d/manifest.txt"
bad 1 'nope.txt' $VT import --frames "$d/frames" -o "$work/x.vtr" --manifest "$d/nope.txt"
bad 1 '/nonexistent/x.vtr' $VT import --frames "$d/frames" -o /nonexistent/x.vtr
bad 2 'a TRACE is required' $VT ratio
bad 2 '--fp-bits must be 8..64' $VT ratio --fp-bits 3 "$TRACE"
bad 2 '--sweep: expected PARAM=' $VT ratio --sweep foo "$TRACE"
bad 1 'frame.png: wrong file type' $VT ratio "$d/frame.png"
bad 1 'flipped.vtr: record [0-9]+ at offset [0-9]+: checksum mismatch' $VT ratio --no-stock "$d/flipped.vtr"
tap_done
