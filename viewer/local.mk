# viewer/: varg-viewer. Uses the libraries' public headers only.
bin_PROGRAMS += viewer/varg-viewer
viewer_varg_viewer_SOURCES = \
	viewer/varg_viewer.c \
	viewer/vg_framelog.c viewer/vg_framelog.h \
	viewer/vg_recorder.c viewer/vg_recorder.h \
	viewer/vg_session.c viewer/vg_session.h \
	viewer/vg_window.c viewer/vg_window.h \
	viewer/vg_overlay.c viewer/vg_overlay.h \
	viewer/vg_keymap.c viewer/vg_keymap.h
viewer_varg_viewer_CFLAGS = $(AM_CFLAGS) $(VNCCLIENT_CFLAGS) $(SDL2_CFLAGS) $(SDL2TTF_CFLAGS) $(CRYPTO_CFLAGS)
viewer_varg_viewer_LDADD = traces/libvgtrace.a $(VG_CAPTURE_LIBS) $(SDL2TTF_LIBS) $(SDL2_LIBS) $(CRYPTO_LIBS)

dist_man_MANS += doc/varg-viewer.1

# The browser's page, served by varg-server --http beside noVNC's files.
webdir = $(pkgdatadir)/web
dist_web_DATA = viewer/web/varg.html viewer/web/varg-decoder.js

check_PROGRAMS += tests/test_framelog
TESTS += tests/test_framelog
tests_test_framelog_SOURCES = tests/test_framelog.c $(VG_TESTUTIL_SOURCES) \
	viewer/vg_framelog.c viewer/vg_framelog.h
tests_test_framelog_CFLAGS = $(AM_CFLAGS) $(VNCCLIENT_CFLAGS)
tests_test_framelog_LDADD = traces/libvgtrace.a $(VG_CAPTURE_LIBS)

check_PROGRAMS += tests/test_viewer_input
TESTS += tests/test_viewer_input
tests_test_viewer_input_SOURCES = tests/test_viewer_input.c \
	viewer/vg_keymap.c viewer/vg_keymap.h \
	capture/vg_latin1.c capture/vg_latin1.h capture/vg_passwd.c capture/vg_passwd.h \
	$(VG_TESTUTIL_SOURCES)
tests_test_viewer_input_CFLAGS = $(AM_CFLAGS) $(SDL2_CFLAGS) $(CRYPTO_CFLAGS)
tests_test_viewer_input_LDADD = $(VG_COMMON_LIBS) $(CRYPTO_LIBS)

check_PROGRAMS += tests/test_recorder
TESTS += tests/test_recorder
tests_test_recorder_SOURCES = tests/test_recorder.c viewer/vg_recorder.c viewer/vg_recorder.h
tests_test_recorder_LDADD = traces/libvgtrace.a $(VG_COMMON_LIBS) $(ZLIB_LIBS)
