# tests/: checks that span modules. Each module's own tests are listed in
# its local.mk.
TESTS += tests/test_headers.sh
dist_noinst_SCRIPTS += tests/test_headers.sh tests/tap.sh
EXTRA_DIST += tests/fuzz/corpus

# End-to-end tests: real varg-server and varg-viewer processes on loopback.
noinst_PROGRAMS += tests/vg_imgcmp tests/vg_badclient
tests_vg_imgcmp_LDADD = $(VG_COMMON_LIBS)
tests_vg_badclient_SOURCES = tests/vg_badclient.c
TESTS += tests/test_firstlight.sh
dist_noinst_SCRIPTS += tests/test_firstlight.sh tests/vg_e2e.sh
TESTS += tests/test_fingerprint_e2e.sh
dist_noinst_SCRIPTS += tests/test_fingerprint_e2e.sh
EXTRA_DIST += tests/lsan.supp

# The viewer's window under Xvfb against real VNC servers.
noinst_PROGRAMS += tests/vg_xevlog
tests_vg_xevlog_CFLAGS = $(AM_CFLAGS) $(X11_CFLAGS)
tests_vg_xevlog_LDADD = $(X11_LIBS)
noinst_PROGRAMS += tests/vg_xcursor
tests_vg_xcursor_CFLAGS = $(AM_CFLAGS) $(XDAMAGE_CFLAGS) $(X11_CFLAGS)
tests_vg_xcursor_LDADD = $(XDAMAGE_LIBS) $(X11_LIBS)
TESTS += tests/test_viewer_window.sh
dist_noinst_SCRIPTS += tests/test_viewer_window.sh
