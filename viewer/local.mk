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

check_PROGRAMS += tests/unit/test_framelog
TESTS += tests/unit/test_framelog
tests_unit_test_framelog_SOURCES = tests/unit/test_framelog.c $(VG_TESTUTIL_SOURCES) \
	viewer/vg_framelog.c viewer/vg_framelog.h
tests_unit_test_framelog_CFLAGS = $(AM_CFLAGS) $(VNCCLIENT_CFLAGS)
tests_unit_test_framelog_LDADD = traces/libvgtrace.a $(VG_CAPTURE_LIBS)

check_PROGRAMS += tests/unit/test_viewer_input
TESTS += tests/unit/test_viewer_input
tests_unit_test_viewer_input_SOURCES = tests/unit/test_viewer_input.c \
	viewer/vg_keymap.c viewer/vg_keymap.h \
	capture/vg_latin1.c capture/vg_latin1.h capture/vg_passwd.c capture/vg_passwd.h \
	$(VG_TESTUTIL_SOURCES)
tests_unit_test_viewer_input_CFLAGS = $(AM_CFLAGS) $(SDL2_CFLAGS) $(VNCSERVER_CFLAGS)
tests_unit_test_viewer_input_LDADD = $(VG_COMMON_LIBS) $(VNCSERVER_LIBS)

check_PROGRAMS += tests/unit/test_recorder
TESTS += tests/unit/test_recorder
tests_unit_test_recorder_SOURCES = tests/unit/test_recorder.c viewer/vg_recorder.c viewer/vg_recorder.h
tests_unit_test_recorder_LDADD = traces/libvgtrace.a $(VG_COMMON_LIBS) $(ZLIB_LIBS)

# The browser viewer's WebAssembly module: `make web` builds
# viewer/web/varg-wasm.js and varg-wasm.wasm in the build directory with
# Emscripten (scripts/build-web; zlib and zstd sources from Debian's pool by
# scripts/web-deps, into web-deps/). Not part of `make`; `make check`
# builds it when configure found emcc (tests/interop/test_browser.sh needs it), and
# `make install` installs it when it was built.
EXTRA_DIST += viewer/web/vg_webviewer.c viewer/web/vg_webviewer.h \
	viewer/web/vg_sha1_portable.c viewer/web/compat/getrandom.c
CLEANFILES += viewer/web/varg-wasm.js viewer/web/varg-wasm.wasm

web:
	@command -v emcc >/dev/null 2>&1 || { \
	  echo "make web: emcc not found; install Debian's emscripten package (scripts/setup installs it)" >&2; \
	  exit 1; }
	$(SHELL) $(top_srcdir)/scripts/build-web --out $(abs_top_builddir)/viewer/web \
	  --deps $(abs_top_builddir)/web-deps

if HAVE_EMCC
check_DATA += web-module
endif
web-module: web

install-data-local:
	@if [ -f viewer/web/varg-wasm.wasm ]; then \
	  $(MKDIR_P) '$(DESTDIR)$(webdir)' && \
	  $(INSTALL_DATA) viewer/web/varg-wasm.js viewer/web/varg-wasm.wasm '$(DESTDIR)$(webdir)'; \
	else \
	  echo "install: no WebAssembly viewer built (make web): browsers get the standard encodings"; \
	fi

uninstall-local:
	rm -f '$(DESTDIR)$(webdir)/varg-wasm.js' '$(DESTDIR)$(webdir)/varg-wasm.wasm'

# The WebAssembly build's SHA-1 against OpenSSL's.
check_PROGRAMS += tests/unit/test_sha1_portable
TESTS += tests/unit/test_sha1_portable
tests_unit_test_sha1_portable_SOURCES = tests/unit/test_sha1_portable.c viewer/web/vg_sha1_portable.c \
	fingerprint/codec/vg_sha1_rect.c
tests_unit_test_sha1_portable_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS)
tests_unit_test_sha1_portable_LDADD = $(VG_COMMON_LIBS) $(CRYPTO_LIBS)
