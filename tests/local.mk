# tests/: checks that span modules. Each module's own tests are listed in
# its local.mk.
TESTS += tests/test_headers.sh
dist_noinst_SCRIPTS += tests/test_headers.sh tests/tap.sh
EXTRA_DIST += tests/fuzz/corpus
