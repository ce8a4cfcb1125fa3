# tests/: checks that span modules. Each module's own tests are listed in
# its local.mk.
TESTS += tests/static/test_headers.sh tests/static/test_layers.sh tests/static/test_noglib.sh tests/static/test_server_order.sh
dist_noinst_SCRIPTS += tests/static/test_headers.sh tests/static/test_layers.sh tests/static/test_noglib.sh \
	tests/static/test_server_order.sh tests/tap.sh
EXTRA_DIST += tests/fuzz/corpus tests/fuzz/coverage.ignore

# End-to-end tests: real varg-server and varg-viewer processes on loopback.
noinst_PROGRAMS += tests/vg_imgcmp tests/vg_badclient tests/vg_e2efuzz
tests_vg_imgcmp_LDADD = $(VG_COMMON_LIBS)
tests_vg_badclient_SOURCES = tests/vg_badclient.c tests/vg_fdio.c tests/vg_fdio.h
tests_vg_e2efuzz_SOURCES = tests/vg_e2efuzz.c tests/vg_fdio.c tests/vg_fdio.h
TESTS += tests/e2e/test_firstlight.sh
dist_noinst_SCRIPTS += tests/e2e/test_firstlight.sh tests/vg_e2e.sh
TESTS += tests/e2e/test_fingerprint_e2e.sh
dist_noinst_SCRIPTS += tests/e2e/test_fingerprint_e2e.sh
EXTRA_DIST += tests/lsan.supp tests/tsan.supp tests/valgrind.supp
TESTS += tests/e2e/test_beliefs_e2e.sh tests/e2e/test_server_identity.sh tests/e2e/test_coder_e2e.sh tests/e2e/test_refine_e2e.sh
dist_noinst_SCRIPTS += tests/e2e/test_beliefs_e2e.sh tests/e2e/test_server_identity.sh tests/e2e/test_coder_e2e.sh tests/e2e/test_refine_e2e.sh
# Several viewers on one server: shared segmentation, the monitor's summary.
TESTS += tests/e2e/test_shared_viewers.sh tests/e2e/test_server_summary.sh
dist_noinst_SCRIPTS += tests/e2e/test_shared_viewers.sh tests/e2e/test_server_summary.sh scripts/bench-viewers

# Over an emulated WAN (scripts/wan-bench): the user-space link for kernels
# without netem, and the benchmark's own short run.
noinst_PROGRAMS += tests/vg_wanlink
tests_vg_wanlink_SOURCES = tests/vg_wanlink.c
TESTS += tests/e2e/test_wan_bench.sh
dist_noinst_SCRIPTS += tests/e2e/test_wan_bench.sh scripts/wan-bench scripts/wan-latency
# The same session from TigerVNC's Xvnc and from varg-server, real viewers.
TESTS += tests/interop/test_compare_peers.sh
dist_noinst_SCRIPTS += tests/interop/test_compare_peers.sh scripts/compare-peers scripts/record-sessions \
	scripts/simulate-reads scripts/heatmap-viewer scripts/r-heatmap-viewer

# Recording live sessions: tiny X clients that draw and that log the
# events they get, and a record printer.
noinst_PROGRAMS += tests/vg_xprobe tests/vg_tracedump tests/vg_xcapture_check
tests_vg_xcapture_check_CFLAGS = $(AM_CFLAGS) $(X11_CFLAGS)
tests_vg_xcapture_check_LDADD = $(VG_CAPTURE_LIBS)
tests_vg_xprobe_CFLAGS = $(AM_CFLAGS) $(X11_CFLAGS)
tests_vg_xprobe_LDADD = $(X11_LIBS)
tests_vg_tracedump_LDADD = $(VG_TRACE_LIBS)
TESTS += tests/e2e/test_record.sh tests/e2e/test_record_vnc.sh tests/interop/test_vnc_cursor.sh

# Sharing a desktop: a VNC client that sends input and clipboard text.
noinst_PROGRAMS += tests/vg_vncinput
tests_vg_vncinput_CFLAGS = $(AM_CFLAGS) $(VNCCLIENT_CFLAGS)
tests_vg_vncinput_LDADD = $(VNCCLIENT_LIBS)
TESTS += tests/e2e/test_desktop.sh tests/interop/test_desktop_vnc.sh tests/e2e/test_session.sh
dist_noinst_SCRIPTS += tests/e2e/test_desktop.sh tests/interop/test_desktop_vnc.sh tests/e2e/test_session.sh
dist_noinst_SCRIPTS += tests/e2e/test_record.sh tests/e2e/test_record_vnc.sh tests/interop/test_vnc_cursor.sh tests/vg_xvfb.sh tests/vg_sshd.sh

# FBS import: an rfbproxy-style recorder between a real viewer and a real
# VNC server.
noinst_PROGRAMS += tests/vg_fbsproxy
tests_vg_fbsproxy_SOURCES = tests/vg_fbsproxy.c tests/vg_fdio.c tests/vg_fdio.h
TESTS += tests/interop/test_fbs.sh
dist_noinst_SCRIPTS += tests/interop/test_fbs.sh

# The viewer's window under Xvfb against real VNC servers.
noinst_PROGRAMS += tests/vg_xevlog
tests_vg_xevlog_CFLAGS = $(AM_CFLAGS) $(X11_CFLAGS)
tests_vg_xevlog_LDADD = $(X11_LIBS)
noinst_PROGRAMS += tests/vg_xcursor
tests_vg_xcursor_CFLAGS = $(AM_CFLAGS) $(XDAMAGE_CFLAGS) $(X11_CFLAGS)
tests_vg_xcursor_LDADD = $(XDAMAGE_LIBS) $(X11_LIBS)
TESTS += tests/interop/test_viewer_window.sh tests/e2e/test_viewer_stop.sh
dist_noinst_SCRIPTS += tests/interop/test_viewer_window.sh tests/e2e/test_viewer_stop.sh
TESTS += tests/e2e/test_viewer_record.sh
dist_noinst_SCRIPTS += tests/e2e/test_viewer_record.sh
TESTS += tests/e2e/test_viewer_surface.sh
dist_noinst_SCRIPTS += tests/e2e/test_viewer_surface.sh
TESTS += tests/e2e/test_bad_input.sh
dist_noinst_SCRIPTS += tests/e2e/test_bad_input.sh
# A slow link in user space for one connection (tests/e2e/test_stress.sh).
noinst_PROGRAMS += tests/vg_slowlink
tests_vg_slowlink_SOURCES = tests/vg_slowlink.c tests/vg_fdio.c tests/vg_fdio.h
TESTS += tests/e2e/test_stress.sh
dist_noinst_SCRIPTS += tests/e2e/test_stress.sh tests/vg_slowcase.sh

# The server's shared segmentation and monitor, on their own.
check_PROGRAMS += tests/unit/test_segshare tests/unit/test_monitor
TESTS += tests/unit/test_segshare tests/unit/test_monitor
tests_unit_test_segshare_SOURCES = tests/unit/test_segshare.c server/vg_segshare.c server/vg_segshare.h \
	$(VG_TESTSCENE_SOURCES)
tests_unit_test_segshare_LDADD = $(VG_SEG_LIBS) -lpthread
tests_unit_test_monitor_SOURCES = tests/unit/test_monitor.c server/vg_monitor.c server/vg_monitor.h
tests_unit_test_monitor_LDADD = $(VG_COMMON_LIBS) -lpthread

# Authentication by hand: every security type, guessing slowed down.
noinst_PROGRAMS += tests/vg_authprobe
tests_vg_authprobe_SOURCES = tests/vg_authprobe.c tests/vg_fdio.c tests/vg_fdio.h
tests_vg_authprobe_CFLAGS = $(AM_CFLAGS) $(VNCSERVER_CFLAGS)
tests_vg_authprobe_LDADD = $(VNCSERVER_LIBS)
TESTS += tests/e2e/test_auth.sh tests/e2e/test_accept_guard.sh tests/e2e/test_e2efuzz.sh
dist_noinst_SCRIPTS += tests/e2e/test_auth.sh tests/e2e/test_accept_guard.sh tests/e2e/test_e2efuzz.sh

# The Debian packages (debian/): built, installed, a session through the
# installed programs, removed (root only).
TESTS += tests/e2e/test_packages.sh
dist_noinst_SCRIPTS += tests/e2e/test_packages.sh

# Crash points: a preloaded library that kills its process right after its
# N-th change to the files under a directory (tests/e2e/test_crash_points.sh).
# Built without the sanitizers: it sits in front of their runtime.
check_DATA += tests/vg_killat.so
tests/vg_killat.so: tests/vg_killat.c
	$(AM_V_CC)$(MKDIR_P) tests && $(CC) -shared -fPIC -O1 -Wall -o $@ $(srcdir)/tests/vg_killat.c -ldl
CLEANFILES += tests/vg_killat.so
EXTRA_DIST += tests/vg_killat.c
TESTS += tests/e2e/test_crash_points.sh
dist_noinst_SCRIPTS += tests/e2e/test_crash_points.sh

# Trace corpora in batch: sequential, GNU parallel (local and over SSH),
# a Slurm job array (scripts/ratio-corpus).
TESTS += tests/e2e/test_ratio_corpus.sh
dist_noinst_SCRIPTS += tests/e2e/test_ratio_corpus.sh scripts/ratio-corpus

# The viewer over TLS against TigerVNC's Xvnc.
TESTS += tests/interop/test_viewer_tls.sh tests/e2e/test_viewer_tls_varg.sh
dist_noinst_SCRIPTS += tests/interop/test_viewer_tls.sh tests/e2e/test_viewer_tls_varg.sh

# TLS (VeNCrypt) against TigerVNC's vncviewer, vncsnapshot, openssl
# s_client and a VeNCrypt client of the test's own.
TESTS += tests/interop/test_tls.sh
dist_noinst_SCRIPTS += tests/interop/test_tls.sh tests/vg_tlsprobe.py

# Live sharing measured as a person feels it (scripts/live-bench): a probe
# that logs each new picture of a screen, an input player through XTest.
noinst_PROGRAMS += tests/vg_screenprobe tests/vg_inputplay
tests_vg_screenprobe_CFLAGS = $(AM_CFLAGS) $(XDAMAGE_CFLAGS) $(X11_CFLAGS)
tests_vg_screenprobe_LDADD = $(VG_COMMON_LIBS) $(XDAMAGE_LIBS) $(X11_LIBS)
tests_vg_inputplay_CFLAGS = $(AM_CFLAGS) $(XTST_CFLAGS) $(X11_CFLAGS)
tests_vg_inputplay_LDADD = $(VG_COMMON_LIBS) $(XTST_LIBS) $(X11_LIBS)
TESTS += tests/e2e/test_live_bench.sh
dist_noinst_SCRIPTS += tests/e2e/test_live_bench.sh scripts/live-bench
