# capture/: what the programs see of the world outside: an X display
# (vg_xcapture, with XTest input vg_xinject and the selections
# vg_xselection), a VNC server through LibVNCClient (vg_mirror), and a Varg
# or VNC server as a viewer sees it (both asking again for a first picture
# that does not come, vg_firstpicture; vg_connection: the receiver and its
# cache over LibVNCClient, dialled by vg_dial, through an SSH tunnel by
# vg_via, with VNC password files vg_passwd and Latin-1 cut text vg_latin1;
# TLS contexts, handshakes and the plain-stream bridge vg_tls). Used by
# varg-server, varg-viewer and varg-trace; depends on the
# libraries below it (common/, segment2d/, fingerprint/), never on a program.
noinst_LIBRARIES += capture/libvgcapture.a
capture_libvgcapture_a_SOURCES = \
	capture/vg_xcapture.c capture/vg_xcapture.h \
	capture/vg_xinject.c capture/vg_xinject.h \
	capture/vg_xselection.c capture/vg_xselection.h \
	capture/vg_mirror.c capture/vg_mirror.h \
	capture/vg_firstpicture.c capture/vg_firstpicture.h \
	capture/vg_connection.c capture/vg_connection.h \
	capture/vg_serverbook.c capture/vg_serverbook.h \
	capture/vg_knownhosts.c capture/vg_knownhosts.h \
	capture/vg_dial.c capture/vg_dial.h \
	capture/vg_channel.c capture/vg_channel.h \
	capture/vg_sockstat.c capture/vg_sockstat.h \
	capture/vg_address.c capture/vg_address.h \
	capture/vg_via.c capture/vg_via.h \
	capture/vg_passwd.c capture/vg_passwd.h \
	capture/vg_latin1.c capture/vg_latin1.h \
	capture/vg_tls.c capture/vg_tls.h
capture_libvgcapture_a_CFLAGS = $(AM_CFLAGS) $(X11_CFLAGS) $(XDAMAGE_CFLAGS) $(XI_CFLAGS) \
	$(XTST_CFLAGS) $(VNCCLIENT_CFLAGS) $(VNCSERVER_CFLAGS) $(CRYPTO_CFLAGS) $(SSL_CFLAGS)
# libvncserver for vg_passwd (LibVNC's password file functions live there).
VG_CAPTURE_LIBS = capture/libvgcapture.a segment2d/libvgseg.a $(VG_FP_LIBS) \
	$(X11_LIBS) $(XDAMAGE_LIBS) $(XI_LIBS) $(XTST_LIBS) $(VNCCLIENT_LIBS) $(VNCSERVER_LIBS) $(ZLIB_LIBS) $(SSL_LIBS)

check_PROGRAMS += tests/unit/test_address
TESTS += tests/unit/test_address
tests_unit_test_address_LDADD = $(VG_COMMON_LIBS)
tests_unit_test_address_SOURCES = tests/unit/test_address.c capture/vg_address.c capture/vg_address.h

check_PROGRAMS += tests/unit/test_serverbook
TESTS += tests/unit/test_serverbook
tests_unit_test_serverbook_LDADD = $(VG_FP_LIBS)
tests_unit_test_serverbook_SOURCES = tests/unit/test_serverbook.c capture/vg_serverbook.c capture/vg_serverbook.h \
	$(VG_TESTUTIL_SOURCES)

check_PROGRAMS += tests/unit/test_knownhosts
TESTS += tests/unit/test_knownhosts
tests_unit_test_knownhosts_CFLAGS = $(AM_CFLAGS) $(SSL_CFLAGS) $(CRYPTO_CFLAGS)
tests_unit_test_knownhosts_LDADD = $(VG_COMMON_LIBS) $(SSL_LIBS) $(CRYPTO_LIBS) -lpthread
tests_unit_test_knownhosts_SOURCES = tests/unit/test_knownhosts.c capture/vg_knownhosts.c capture/vg_knownhosts.h \
	capture/vg_tls.c capture/vg_tls.h $(VG_TESTUTIL_SOURCES)

# TLS: contexts, handshakes and the bridge over a real socketpair, with a
# certificate made by the module itself.
check_PROGRAMS += tests/unit/test_tls
TESTS += tests/unit/test_tls
tests_unit_test_tls_SOURCES = tests/unit/test_tls.c capture/vg_tls.c capture/vg_tls.h
tests_unit_test_tls_CFLAGS = $(AM_CFLAGS) $(SSL_CFLAGS) $(CRYPTO_CFLAGS)
tests_unit_test_tls_LDADD = $(VG_COMMON_LIBS) $(SSL_LIBS) $(CRYPTO_LIBS) -lpthread

# The mirror and the viewer's connection against a small VNC server
# played by the test.
check_PROGRAMS += tests/unit/test_firstpicture
TESTS += tests/unit/test_firstpicture
tests_unit_test_firstpicture_SOURCES = tests/unit/test_firstpicture.c tests/vg_fdio.c tests/vg_fdio.h \
	$(VG_TESTUTIL_SOURCES)
tests_unit_test_firstpicture_CFLAGS = $(AM_CFLAGS) $(VNCCLIENT_CFLAGS)
tests_unit_test_firstpicture_LDADD = $(VG_CAPTURE_LIBS) -lpthread
