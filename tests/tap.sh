# Sourced by shell tests: tiny TAP helpers.
tap_n=0
tap_failed=0
tap_plan() { echo "1..$1"; }
tap_ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
tap_not_ok() { tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $*"; }
tap_skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - # SKIP $*"; }
# tap_check NAME COMMAND...: ok when the command succeeds.
tap_check() { name=$1; shift; if "$@"; then tap_ok "$name"; else tap_not_ok "$name"; fi; }
tap_done() { [ "$tap_failed" -eq 0 ]; }
