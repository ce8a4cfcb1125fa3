# server/: varg-server and varg-relay. Use the libraries' public headers only.

# The screen both serve: LibVNCServer's screen and the rooms of its
# clients, the desktop around it, and its reports (doc/architecture.md).
noinst_LIBRARIES += server/libvgscreen.a
server_libvgscreen_a_SOURCES = \
	server/vg_server.c server/vg_server.h \
	server/vg_serverconfig.c server/vg_serverconfig.h \
	server/vg_screen.c server/vg_screen.h \
	server/vg_vargclient.c server/vg_vargclient.h \
	server/vg_stockclient.c server/vg_stockclient.h \
	server/vg_input.c server/vg_input.h \
	server/vg_auth.c server/vg_auth.h \
	server/vg_webdir.c server/vg_webdir.h \
	server/vg_segshare.c server/vg_segshare.h \
	server/vg_refine.c server/vg_refine.h \
	server/vg_monitor.c server/vg_monitor.h \
	server/vg_report.c server/vg_report.h \
	server/vg_authguard.c server/vg_authguard.h \
	server/vg_listener.c server/vg_listener.h \
	server/vg_tlsgate.c server/vg_tlsgate.h \
	server/vg_http.c server/vg_http.h \
	server/vg_serverkey.c server/vg_serverkey.h
server_libvgscreen_a_CFLAGS = $(AM_CFLAGS) $(VNCSERVER_CFLAGS) \
	-DVG_WEB_DIR='"$(webdir)"' -DVG_WEB_SRCDIR='"$(abs_top_srcdir)/viewer/web"' \
	-DVG_WEB_BUILDDIR='"$(abs_top_builddir)/viewer/web"'
VG_SCREEN_LIBS = server/libvgscreen.a pipeline/libvgpipe.a $(VG_CAPTURE_LIBS) $(VNCSERVER_LIBS) -lpthread

bin_PROGRAMS += server/varg-server
server_varg_server_SOURCES = \
	server/varg_server.c \
	server/vg_tracesource.c server/vg_tracesource.h \
	server/vg_inputqueue.c server/vg_inputqueue.h \
	server/vg_xsource.c server/vg_xsource.h \
	server/vg_vncsource.c server/vg_vncsource.h
server_varg_server_CFLAGS = $(AM_CFLAGS) $(VNCSERVER_CFLAGS) $(X11_CFLAGS)
server_varg_server_LDADD = traces/libvgtrace.a $(VG_SCREEN_LIBS)
dist_man_MANS += doc/varg-server.1 doc/varg-relay.1

# varg-relay: a site's viewers behind one upstream connection and cache.
bin_PROGRAMS += server/varg-relay
server_varg_relay_SOURCES = server/varg_relay.c \
	server/vg_relaysource.c server/vg_relaysource.h
server_varg_relay_CFLAGS = $(AM_CFLAGS) $(VNCSERVER_CFLAGS)
server_varg_relay_LDADD = $(VG_SCREEN_LIBS)

# varg-session: a virtual display shared with varg-server for one command.
dist_bin_SCRIPTS = server/varg-session
dist_man_MANS += doc/varg-session.1

# The password-guessing brake on its own (a fake clock).
check_PROGRAMS += tests/unit/test_authguard
TESTS += tests/unit/test_authguard
tests_unit_test_authguard_SOURCES = tests/unit/test_authguard.c server/vg_authguard.c server/vg_authguard.h
tests_unit_test_authguard_CFLAGS = $(AM_CFLAGS)
tests_unit_test_authguard_LDADD = $(VG_COMMON_LIBS)

# The refinement planner on paths given by hand.
check_PROGRAMS += tests/unit/test_refine
TESTS += tests/unit/test_refine
tests_unit_test_refine_SOURCES = tests/unit/test_refine.c server/vg_refine.c server/vg_refine.h
tests_unit_test_refine_CFLAGS = $(AM_CFLAGS)
tests_unit_test_refine_LDADD = $(VG_COMMON_LIBS)

# The HTTP request parser of --http, on bytes alone, and fuzzed.
check_PROGRAMS += tests/unit/test_http
TESTS += tests/unit/test_http
tests_unit_test_http_SOURCES = tests/unit/test_http.c server/vg_http.c server/vg_http.h
tests_unit_test_http_CFLAGS = $(AM_CFLAGS)
tests_unit_test_http_LDADD = $(VG_COMMON_LIBS)
VG_FUZZERS += tests/fuzz/fuzz_http
tests_fuzz_fuzz_http_SOURCES = tests/fuzz/fuzz_http.c server/vg_http.c server/vg_http.h
tests_fuzz_fuzz_http_LDADD = $(VG_COMMON_LIBS)
tests_fuzz_fuzz_http_LDFLAGS = -fsanitize=fuzzer

# varg-server --http and varg-relay --http against a headless Chromium
# running noVNC.
TESTS += tests/interop/test_browser.sh
dist_noinst_SCRIPTS += tests/interop/test_browser.sh tests/vg_browser.py

# varg-relay between a real server, real viewers and a real X display.
TESTS += tests/e2e/test_relay.sh
dist_noinst_SCRIPTS += tests/e2e/test_relay.sh
