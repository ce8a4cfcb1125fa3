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
EXTRA_DIST += tests/lsan.supp tests/tsan.supp tests/valgrind.supp
TESTS += tests/test_beliefs_e2e.sh
dist_noinst_SCRIPTS += tests/test_beliefs_e2e.sh
TESTS += tests/test_bad_input.sh
dist_noinst_SCRIPTS += tests/test_bad_input.sh
TESTS += tests/test_stress.sh
dist_noinst_SCRIPTS += tests/test_stress.sh
