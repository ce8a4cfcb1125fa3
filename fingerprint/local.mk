# fingerprint/: the Varg protocol (sender and receiver, sans-I/O) and the
# segment cache. Depends on common/ only.
noinst_LIBRARIES += fingerprint/libvgfp.a
fingerprint_libvgfp_a_SOURCES = \
	fingerprint/vg_proto.h \
	fingerprint/vg_literal.c fingerprint/vg_literal.h \
	fingerprint/vg_pixmodel.c fingerprint/vg_pixmodel.h \
	fingerprint/vg_rangecoder.c fingerprint/vg_rangecoder.h \
	fingerprint/vg_approx.c fingerprint/vg_approx.h \
	fingerprint/vg_receiver.c fingerprint/vg_receiver.h \
	fingerprint/vg_sender.c fingerprint/vg_sender.h \
	fingerprint/vg_sha1.c fingerprint/vg_sha1_rect.c fingerprint/vg_sha1.h \
	fingerprint/vg_bloom.c fingerprint/vg_bloom.h \
	fingerprint/vg_container.c fingerprint/vg_container.h \
	fingerprint/vg_segcache.c fingerprint/vg_segcache.h \
	fingerprint/vg_beliefs.c fingerprint/vg_beliefs.h \
	fingerprint/vg_beliefstore.c fingerprint/vg_beliefstore.h \
	fingerprint/vg_cacheid.c fingerprint/vg_cacheid.h \
	fingerprint/vg_history.c fingerprint/vg_history.h \
	fingerprint/vg_zstream.c fingerprint/vg_zstream.h
fingerprint_libvgfp_a_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS) $(ZSTD_CFLAGS) $(CRYPTO_CFLAGS)

VG_FP_LIBS = fingerprint/libvgfp.a $(VG_COMMON_LIBS) $(CRYPTO_LIBS) $(ZSTD_LIBS)

check_PROGRAMS += tests/test_protocol tests/test_literal tests/test_approx tests/test_pixmodel
TESTS += tests/test_protocol tests/test_literal tests/test_approx tests/test_pixmodel
tests_test_protocol_LDADD = segment2d/libvgseg.a $(VG_FP_LIBS)
tests_test_literal_LDADD = $(VG_FP_LIBS)
tests_test_approx_LDADD = $(VG_FP_LIBS)
tests_test_pixmodel_LDADD = $(VG_FP_LIBS)

VG_FUZZERS += tests/fuzz/fuzz_receiver
tests_fuzz_fuzz_receiver_SOURCES = tests/fuzz/fuzz_receiver.c
tests_fuzz_fuzz_receiver_LDADD = $(VG_FP_LIBS)
tests_fuzz_fuzz_receiver_LDFLAGS = -fsanitize=fuzzer

VG_FUZZERS += tests/fuzz/fuzz_sender
tests_fuzz_fuzz_sender_SOURCES = tests/fuzz/fuzz_sender.c
tests_fuzz_fuzz_sender_LDADD = $(VG_FP_LIBS)
tests_fuzz_fuzz_sender_LDFLAGS = -fsanitize=fuzzer

# The segment cache: Bloom filter, container format, cache.
check_PROGRAMS += tests/test_bloom tests/test_segcache
TESTS += tests/test_bloom tests/test_segcache
VG_TESTUTIL_SOURCES = tests/vg_testutil.c tests/vg_testutil.h
tests_test_bloom_SOURCES = tests/test_bloom.c $(VG_TESTUTIL_SOURCES)
tests_test_bloom_LDADD = $(VG_FP_LIBS)
tests_test_segcache_SOURCES = tests/test_segcache.c $(VG_TESTUTIL_SOURCES)
tests_test_segcache_LDADD = $(VG_FP_LIBS)

VG_BENCHES += tests/bench/bench_segcache
tests_bench_bench_segcache_SOURCES = tests/bench/bench_segcache.c $(VG_TESTUTIL_SOURCES)
tests_bench_bench_segcache_LDADD = $(VG_FP_LIBS)

# The miss coder on the bundled TreeView session: vg_literal with zlib and
# zstd against plain pixels through each.
VG_BENCHES += tests/bench/bench_literal
tests_bench_bench_literal_CPPFLAGS = $(AM_CPPFLAGS) $(WEBP_CFLAGS) -DVG_SRCDIR='"$(abs_top_srcdir)"'
tests_bench_bench_literal_LDADD = traces/libvgtrace.a $(VG_FP_LIBS) $(WEBP_LIBS)

# The protocol on a scrolled heat map: sender, receiver, SHA-1 (against
# `openssl speed`), bytes per believed segment.
VG_BENCHES += tests/bench/bench_fingerprint
tests_bench_bench_fingerprint_SOURCES = tests/bench/bench_fingerprint.c $(VG_TESTSCENE_SOURCES)
tests_bench_bench_fingerprint_LDADD = segment2d/libvgseg.a $(VG_FP_LIBS)

VG_FUZZERS += tests/fuzz/fuzz_container
tests_fuzz_fuzz_container_SOURCES = tests/fuzz/fuzz_container.c
tests_fuzz_fuzz_container_LDADD = $(VG_FP_LIBS)
tests_fuzz_fuzz_container_LDFLAGS = -fsanitize=fuzzer

# Beliefs across sessions: the belief table and its file image, the
# server's belief files, the viewer's cache identity.
check_PROGRAMS += tests/test_beliefs
TESTS += tests/test_beliefs
tests_test_beliefs_SOURCES = tests/test_beliefs.c $(VG_TESTUTIL_SOURCES)
tests_test_beliefs_LDADD = $(VG_FP_LIBS)

VG_FUZZERS += tests/fuzz/fuzz_beliefs
tests_fuzz_fuzz_beliefs_SOURCES = tests/fuzz/fuzz_beliefs.c
tests_fuzz_fuzz_beliefs_LDADD = $(VG_FP_LIBS)
tests_fuzz_fuzz_beliefs_LDFLAGS = -fsanitize=fuzzer
check_PROGRAMS += tests/test_history
TESTS += tests/test_history
tests_test_history_SOURCES = tests/test_history.c $(VG_TESTUTIL_SOURCES)
tests_test_history_LDADD = $(VG_FP_LIBS)
