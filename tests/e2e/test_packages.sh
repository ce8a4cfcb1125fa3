#!/bin/sh
# The Debian packages (debian/): built from the source tree in a temporary
# copy by dpkg-buildpackage (nocheck: the unit tests run in the suite
# anyway), each holding its programs, manual pages and files with
# ${shlibs:Depends} filled in; installed with apt-get as the user guide
# says; then, with the copy gone and from elsewhere, a session through the
# installed programs only: varg-server plays the bundled trace, serves its
# page from /usr/share/varg/web, varg-viewer --headless ends with the
# trace's last frame exactly (as varg-trace, installed, exports it), and
# varg-session finds varg-server beside it; finally they are removed
# again. Needs root (apt-get); skipped without it, with VG_SKIP_PACKAGES=1,
# and when varg packages are installed already (the test would replace
# and remove them). One run at a time on a machine (a lock).
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
TRACE=$S/traces/samples/heatmap-scroll.vtr
PKGS="varg-server varg-viewer varg-trace"
LOCK=/run/lock/varg-test-packages.lock
plan=12
tap_plan $plan

skip_all() {
	for _ in $(seq $plan); do tap_skip "$1"; done
	exit 0
}
[ "${VG_SKIP_PACKAGES:-0}" = 1 ] && skip_all "VG_SKIP_PACKAGES=1"
[ "$(id -u)" -eq 0 ] || skip_all "not root: installing packages needs root (apt-get)"
for need in dpkg-buildpackage dh dh_autoreconf fakeroot lintian apt-get flock curl Xvfb; do
	command -v "$need" >/dev/null ||
		{ echo "# $need is missing: run scripts/setup (or VG_SKIP_PACKAGES=1)"; exit 1; }
done

# installed PKG: whether dpkg has PKG installed (or half-installed).
installed() {
	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -qv 'not-installed\|config-files'
}

# A copy of the sources as the repository has them (tracked and new files,
# not what .gitignore leaves out: no build trees, no generated files).
mkdir -p "$work/pkg/varg"
if git -C "$S" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$S" && git ls-files -z --cached --others --exclude-standard) |
		(cd "$S" && tar --null -T - -cf -) | tar -xf - -C "$work/pkg/varg"
else
	tar -C "$S" --exclude='./build*' -cf - . | tar -xf - -C "$work/pkg/varg"
fi
t0=$(date +%s)
(cd "$work/pkg/varg" && DEB_BUILD_OPTIONS="nocheck parallel=2" \
	timeout 1200 dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1
st=$?
echo "# dpkg-buildpackage -b (nocheck parallel=2): $(($(date +%s) - t0)) s"
if [ $st -ne 0 ]; then
	tail -30 "$work/build.log" | sed 's/^/#   /'
	tap_not_ok "dpkg-buildpackage builds the packages (exit $st)"
	exit 1
fi
tap_check "dpkg-buildpackage builds varg-server, varg-viewer and varg-trace" \
	sh -c "cd '$work/pkg' && ls varg-server_*.deb varg-viewer_*.deb varg-trace_*.deb >/dev/null"

# holds PKG PATH...: the .deb of PKG has each PATH.
holds() {
	p=$1; shift
	dpkg-deb -c "$work"/pkg/"$p"_*.deb | awk '{ print $6 }' >"$work/$p.files"
	for f in "$@"; do
		grep -qx "\./$f" "$work/$p.files" || { echo "# $p lacks $f"; return 1; }
	done
}
tap_check "varg-server: the three programs, their manual pages, the page, the user unit" \
	holds varg-server usr/bin/varg-server usr/bin/varg-relay usr/bin/varg-session \
	usr/share/man/man1/varg-server.1.gz usr/share/man/man1/varg-relay.1.gz \
	usr/share/man/man1/varg-session.1.gz usr/share/varg/web/varg.html \
	usr/share/varg/web/varg-decoder.js 'usr/lib/systemd/user/varg-session@.service' \
	usr/share/doc/varg-server/copyright usr/share/doc/varg-server/changelog.gz
viewer_and_trace() {
	holds varg-viewer usr/bin/varg-viewer usr/share/man/man1/varg-viewer.1.gz &&
		holds varg-trace usr/bin/varg-trace usr/share/man/man1/varg-trace.1.gz
}
tap_check "varg-viewer and varg-trace: program and manual page each" viewer_and_trace
(cd "$work/pkg" && lintian --fail-on error,warning varg-server_*.deb varg-viewer_*.deb varg-trace_*.deb) \
	>"$work/lintian.log" 2>&1
st=$?
grep -v 'running with root privileges' "$work/lintian.log" | sed 's/^/#   /'
tap_check "lintian finds no error or warning" test $st -eq 0
deps() { dpkg-deb -f "$work"/pkg/"$1"_*.deb Depends; }
tap_check "Depends has the shared libraries (shlibs)" \
	sh -c "echo '$(deps varg-server)' | grep -q 'libvncserver1' &&
	       echo '$(deps varg-viewer)' | grep -q 'libsdl2-2.0-0' &&
	       echo '$(deps varg-trace)' | grep -q 'libzstd1'"

# The expected picture from the build tree, before anything is installed.
last_frame "$TRACE" "$work/last.png" || { tap_not_ok "export the trace's last frame"; exit 1; }

# From here on, packages on this machine: one run at a time.
exec 9>"$LOCK"
flock -w 900 9 || { echo "# another run holds $LOCK"; exit 1; }
for p in $PKGS; do
	if installed "$p"; then
		for _ in $(seq $((plan - tap_n))); do
			tap_skip "$p is installed here already; this test would replace and remove it"
		done
		exit 0
	fi
done
purge() {
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q -o DPkg::Lock::Timeout=300 \
		$PKGS "$@" >"$work/purge.log" 2>&1
}
trap 'e2e_cleanup_all' EXIT INT TERM
e2e_cleanup_all() {
	trap '' INT TERM
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do ends_within 50 "$p" || kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	pids=""
	for p in $PKGS; do installed "$p" && { purge; break; }; done
	rm -rf "$work"
}

# As the user guide says: apt install ./varg-*.deb (debug symbols too).
(cd "$work/pkg" && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	-o DPkg::Lock::Timeout=300 ./varg-*.deb) >"$work/install.log" 2>&1
st=$?
[ $st -eq 0 ] || tail -20 "$work/install.log" | sed 's/^/#   /'
tap_check "apt-get install ./varg-*.deb" sh -c "[ $st -eq 0 ] && [ -x /usr/bin/varg-server ] &&
	[ -x /usr/bin/varg-viewer ] && [ -x /usr/bin/varg-trace ] && [ -x /usr/bin/varg-session ]"

# Nothing of the sources or the build may be needed now.
rm -rf "$work/pkg/varg"
cd "$work" || exit 1
BT=$B
B=$work/inst
mkdir -p "$B/server" "$B/viewer" "$B/traces" "$B/tests"
ln -s /usr/bin/varg-server "$B/server/varg-server"
ln -s /usr/bin/varg-viewer "$B/viewer/varg-viewer"
ln -s /usr/bin/varg-trace "$B/traces/varg-trace"
ln -s "$BT/tests/vg_imgcmp" "$B/tests/vg_imgcmp"
unset VARG_WEB_DIR

last_frame "$TRACE" "$work/last-installed.png"
tap_check "installed varg-trace exports the same last frame" same_image "$work/last-installed.png" "$work/last.png"

mkdir -p "$work/www" && echo '<p>here</p>' >"$work/www/index.html"
start_server inst --trace "$TRACE" --speed 0 --wait-clients 1 --http="$work/www" || exit 1
tap_check "installed varg-server's page is the installed one" \
	sh -c "curl -s 'http://127.0.0.1:$PORT/varg.html' >'$work/varg.html' &&
	       cmp -s '$work/varg.html' /usr/share/varg/web/varg.html &&
	       cmp -s '$work/varg.html' '$S/viewer/web/varg.html'"
viewer v
wait "$pid_v"
st=$?
[ $st -eq 0 ] || sed 's/^/# /' "$work/v.log"
tap_check "installed varg-viewer --headless ends with the trace's last frame exactly" \
	sh -c "[ $st -eq 0 ] && '$BT/tests/vg_imgcmp' '$work/v.png' '$work/last.png' >/dev/null && grep -q '\"varg\": *[1-9]' '$work/v.json'"
stop_server

# varg-session, installed, with the varg-server beside it.
env -u VARG_SERVER /usr/bin/varg-session --geometry 320x200 -- sleep 1 >"$work/session.out" 2>"$work/session.err"
st=$?
tap_check "installed varg-session runs a command shared by installed varg-server" \
	sh -c "[ $st -eq 0 ] && grep -q 'varg-viewer localhost::' '$work/session.out'" ||
	sed 's/^/# /' "$work/session.err"

purge
tap_check "apt-get purge removes them, files and all" \
	sh -c "! [ -e /usr/bin/varg-server ] && ! [ -e /usr/bin/varg-viewer ] && ! [ -e /usr/bin/varg-trace ] &&
	       ! [ -e /usr/share/varg ] && ! [ -e '/usr/lib/systemd/user/varg-session@.service' ]"
none_installed() {
	for p in $PKGS; do ! installed "$p" || return 1; done
}
tap_check "dpkg has none of them installed" none_installed
tap_done
