# Sourced by shell tests: tiny TAP helpers.
tap_n=0
tap_failed=0
tap_plan() { echo "1..$1"; }
tap_ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
tap_not_ok() { tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $*"; }
tap_skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - # SKIP $*"; }
# tap_check NAME COMMAND...: ok when the command succeeds.
tap_check() { tap_name=$1; shift; if "$@"; then tap_ok "$tap_name"; else tap_not_ok "$tap_name"; fi; }
tap_done() { [ "$tap_failed" -eq 0 ]; }

# fails_cleanly STATUS CMD...: the command exits with STATUS, prints
# exactly one line on stderr and nothing on stdout. Uses $tmp for scratch.
fails_cleanly() {
	want=$1; shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	n=$(wc -l <"$tmp/err")
	if [ "$st" -ne "$want" ] || [ "$n" -ne 1 ] || [ -s "$tmp/out" ]; then
		echo "# exit $st (want $want), $n stderr lines:"; sed 's/^/#   /' "$tmp/err"
		return 1
	fi
	echo "#   $(cat "$tmp/err")"
}

# fails_saying STATUS TEXT CMD...: fails_cleanly, and its line says TEXT.
fails_saying() {
	want=$1 text=$2; shift 2
	fails_cleanly "$want" "$@" && grep -qF -- "$text" "$tmp/err"
}
