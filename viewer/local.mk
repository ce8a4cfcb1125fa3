# viewer/: varg-viewer. Uses the libraries' public headers only.
bin_PROGRAMS += viewer/varg-viewer
viewer_varg_viewer_SOURCES = \
	viewer/varg_viewer.c \
	viewer/vg_address.c viewer/vg_address.h \
	viewer/vg_connection.c viewer/vg_connection.h viewer/vg_dial.c viewer/vg_dial.h \
	viewer/vg_framelog.c viewer/vg_framelog.h \
	viewer/vg_recorder.c viewer/vg_recorder.h \
	viewer/vg_sockstat.c viewer/vg_sockstat.h \
	viewer/vg_session.c viewer/vg_session.h \
	viewer/vg_window.c viewer/vg_window.h \
	viewer/vg_overlay.c viewer/vg_overlay.h \
	viewer/vg_keymap.c viewer/vg_keymap.h \
	viewer/vg_latin1.c viewer/vg_latin1.h \
	viewer/vg_passwd.c viewer/vg_passwd.h \
	viewer/vg_via.c viewer/vg_via.h
viewer_varg_viewer_CFLAGS = $(AM_CFLAGS) $(VNCCLIENT_CFLAGS) $(SDL2_CFLAGS) $(SDL2TTF_CFLAGS) $(CRYPTO_CFLAGS)
viewer_varg_viewer_LDADD = traces/libvgtrace.a $(VG_FP_LIBS) $(VNCCLIENT_LIBS) $(SDL2TTF_LIBS) $(SDL2_LIBS) $(CRYPTO_LIBS) $(ZLIB_LIBS)

check_PROGRAMS += tests/test_address
TESTS += tests/test_address
tests_test_address_SOURCES = tests/test_address.c viewer/vg_address.c viewer/vg_address.h
tests_test_address_LDADD = $(VG_COMMON_LIBS)
dist_man_MANS += doc/varg-viewer.1

check_PROGRAMS += tests/test_framelog
TESTS += tests/test_framelog
tests_test_framelog_SOURCES = tests/test_framelog.c $(VG_TESTUTIL_SOURCES) \
	viewer/vg_framelog.c viewer/vg_framelog.h \
	viewer/vg_connection.c viewer/vg_connection.h viewer/vg_dial.c viewer/vg_dial.h viewer/vg_sockstat.c viewer/vg_sockstat.h
tests_test_framelog_CFLAGS = $(AM_CFLAGS) $(VNCCLIENT_CFLAGS)
tests_test_framelog_LDADD = traces/libvgtrace.a $(VG_FP_LIBS) $(VNCCLIENT_LIBS) $(ZLIB_LIBS)

check_PROGRAMS += tests/test_viewer_input
TESTS += tests/test_viewer_input
tests_test_viewer_input_SOURCES = tests/test_viewer_input.c \
	viewer/vg_keymap.c viewer/vg_keymap.h viewer/vg_latin1.c viewer/vg_latin1.h \
	viewer/vg_passwd.c viewer/vg_passwd.h $(VG_TESTUTIL_SOURCES)
tests_test_viewer_input_CFLAGS = $(AM_CFLAGS) $(SDL2_CFLAGS) $(CRYPTO_CFLAGS)
tests_test_viewer_input_LDADD = $(VG_COMMON_LIBS) $(CRYPTO_LIBS)

check_PROGRAMS += tests/test_recorder
TESTS += tests/test_recorder
tests_test_recorder_SOURCES = tests/test_recorder.c viewer/vg_recorder.c viewer/vg_recorder.h
tests_test_recorder_LDADD = traces/libvgtrace.a $(VG_COMMON_LIBS) $(ZLIB_LIBS)
