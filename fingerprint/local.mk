# fingerprint/: the Varg protocol layer, one library in three folders whose
# order goes one way (doc/architecture.md):
#   proto/  the messages, sender and receiver (sans-I/O), history, beliefs
#   codec/  pixel and stream coders, SHA-1        (common/ only)
#   cache/  the segment cache and files on disk   (common/ only)
# proto/ uses codec/ and cache/; codec/ and cache/ never use each other or
# proto/. The whole depends on common/ only.
noinst_LIBRARIES += fingerprint/libvgfp.a
fingerprint_libvgfp_a_SOURCES = \
	fingerprint/proto/vg_proto.h \
	fingerprint/proto/vg_sender.c fingerprint/proto/vg_sender.h \
	fingerprint/proto/vg_pixcost.c fingerprint/proto/vg_pixcost.h \
	fingerprint/proto/vg_receiver.c fingerprint/proto/vg_receiver.h \
	fingerprint/proto/vg_history.c fingerprint/proto/vg_history.h \
	fingerprint/proto/vg_beliefs.c fingerprint/proto/vg_beliefs.h \
	fingerprint/proto/vg_cursorlist.c fingerprint/proto/vg_cursorlist_enc.c \
	fingerprint/proto/vg_cursorlist.h fingerprint/proto/vg_cursorlistpriv.h \
	fingerprint/codec/vg_literal.c fingerprint/codec/vg_literal_dec.c \
	fingerprint/codec/vg_literal.h fingerprint/codec/vg_literalpriv.h \
	fingerprint/codec/vg_pixmodel.c fingerprint/codec/vg_pixmodel.h \
	fingerprint/codec/vg_rangecoder.c fingerprint/codec/vg_rangecoder.h \
	fingerprint/codec/vg_approx.c fingerprint/codec/vg_approx_enc.c \
	fingerprint/codec/vg_approx.h fingerprint/codec/vg_approxpriv.h \
	fingerprint/codec/vg_zstream.c fingerprint/codec/vg_zstream_dec.c fingerprint/codec/vg_zstream.h \
	fingerprint/codec/vg_sha1.c fingerprint/codec/vg_sha1_rect.c fingerprint/codec/vg_sha1.h \
	fingerprint/cache/vg_segcache.c fingerprint/cache/vg_segcache.h \
	fingerprint/cache/vg_container.c fingerprint/cache/vg_container.h \
	fingerprint/cache/vg_bloom.c fingerprint/cache/vg_bloom.h \
	fingerprint/cache/vg_cacheid.c fingerprint/cache/vg_cacheid.h \
	fingerprint/cache/vg_beliefstore.c fingerprint/cache/vg_beliefstore.h
fingerprint_libvgfp_a_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS) $(ZSTD_CFLAGS) $(CRYPTO_CFLAGS)

VG_FP_LIBS = fingerprint/libvgfp.a $(VG_COMMON_LIBS) $(CRYPTO_LIBS) $(ZSTD_LIBS)

# The protocol's tests, one file per message, sharing a sender and
# receiver joined back to back (tests/vg_protopair.c).
VG_PROTO_TESTS = tests/unit/test_hello tests/unit/test_update tests/unit/test_repeat tests/unit/test_moves \
	tests/unit/test_cursor \
	tests/unit/test_vectors
VG_PROTOPAIR_SOURCES = tests/vg_protopair.c tests/vg_protopair.h
check_PROGRAMS += $(VG_PROTO_TESTS) tests/unit/test_literal tests/unit/test_approx tests/unit/test_pixmodel
TESTS += $(VG_PROTO_TESTS) tests/unit/test_literal tests/unit/test_approx tests/unit/test_pixmodel
tests_unit_test_hello_SOURCES = tests/unit/test_hello.c $(VG_PROTOPAIR_SOURCES)
tests_unit_test_hello_LDADD = $(VG_FP_LIBS)
tests_unit_test_cursor_SOURCES = tests/unit/test_cursor.c
tests_unit_test_cursor_CFLAGS = $(AM_CFLAGS) $(ZSTD_CFLAGS)
tests_unit_test_cursor_LDADD = $(VG_FP_LIBS)
tests_unit_test_update_SOURCES = tests/unit/test_update.c $(VG_PROTOPAIR_SOURCES)
tests_unit_test_update_LDADD = $(VG_FP_LIBS)
tests_unit_test_repeat_SOURCES = tests/unit/test_repeat.c $(VG_PROTOPAIR_SOURCES)
tests_unit_test_repeat_LDADD = $(VG_FP_LIBS)
tests_unit_test_moves_SOURCES = tests/unit/test_moves.c $(VG_PROTOPAIR_SOURCES)
tests_unit_test_moves_LDADD = segment2d/libvgseg.a $(VG_FP_LIBS)
tests_unit_test_vectors_SOURCES = tests/unit/test_vectors.c $(VG_PROTOPAIR_SOURCES)
tests_unit_test_vectors_CFLAGS = $(AM_CFLAGS) $(ZSTD_CFLAGS)
tests_unit_test_vectors_LDADD = $(VG_FP_LIBS)
EXTRA_DIST += tests/vectors
tests_unit_test_literal_LDADD = $(VG_FP_LIBS)
tests_unit_test_approx_LDADD = $(VG_FP_LIBS)
tests_unit_test_pixmodel_LDADD = $(VG_FP_LIBS)

VG_FUZZERS += tests/fuzz/fuzz_receiver
tests_fuzz_fuzz_receiver_SOURCES = tests/fuzz/fuzz_receiver.c
tests_fuzz_fuzz_receiver_LDADD = $(VG_FP_LIBS)
tests_fuzz_fuzz_receiver_LDFLAGS = -fsanitize=fuzzer

VG_FUZZERS += tests/fuzz/fuzz_sender
tests_fuzz_fuzz_sender_SOURCES = tests/fuzz/fuzz_sender.c
tests_fuzz_fuzz_sender_LDADD = $(VG_FP_LIBS)
tests_fuzz_fuzz_sender_LDFLAGS = -fsanitize=fuzzer

# Round trips: encode, decode, compare; a difference aborts.
VG_FUZZIN_SOURCES = tests/fuzz/vg_fuzzin.c tests/fuzz/vg_fuzzin.h
VG_FUZZERS += tests/fuzz/fuzz_literal
tests_fuzz_fuzz_literal_SOURCES = tests/fuzz/fuzz_literal.c $(VG_FUZZIN_SOURCES)
tests_fuzz_fuzz_literal_LDADD = $(VG_FP_LIBS)
tests_fuzz_fuzz_literal_LDFLAGS = -fsanitize=fuzzer

VG_FUZZERS += tests/fuzz/fuzz_pixmodel
tests_fuzz_fuzz_pixmodel_SOURCES = tests/fuzz/fuzz_pixmodel.c $(VG_FUZZIN_SOURCES)
tests_fuzz_fuzz_pixmodel_LDADD = $(VG_FP_LIBS)
tests_fuzz_fuzz_pixmodel_LDFLAGS = -fsanitize=fuzzer

VG_FUZZERS += tests/fuzz/fuzz_zstream
tests_fuzz_fuzz_zstream_SOURCES = tests/fuzz/fuzz_zstream.c
tests_fuzz_fuzz_zstream_LDADD = $(VG_FP_LIBS)
tests_fuzz_fuzz_zstream_LDFLAGS = -fsanitize=fuzzer

VG_FUZZERS += tests/fuzz/fuzz_session
tests_fuzz_fuzz_session_SOURCES = tests/fuzz/fuzz_session.c $(VG_FUZZIN_SOURCES)
tests_fuzz_fuzz_session_LDADD = $(VG_FP_LIBS)
tests_fuzz_fuzz_session_LDFLAGS = -fsanitize=fuzzer

# The segment cache: Bloom filter, container format, cache.
check_PROGRAMS += tests/unit/test_bloom tests/unit/test_segcache
TESTS += tests/unit/test_bloom tests/unit/test_segcache
VG_TESTUTIL_SOURCES = tests/vg_testutil.c tests/vg_testutil.h
tests_unit_test_bloom_SOURCES = tests/unit/test_bloom.c $(VG_TESTUTIL_SOURCES)
tests_unit_test_bloom_LDADD = $(VG_FP_LIBS)
tests_unit_test_segcache_SOURCES = tests/unit/test_segcache.c $(VG_TESTUTIL_SOURCES)
tests_unit_test_segcache_LDADD = $(VG_FP_LIBS)

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
check_PROGRAMS += tests/unit/test_beliefs
TESTS += tests/unit/test_beliefs
tests_unit_test_beliefs_SOURCES = tests/unit/test_beliefs.c $(VG_TESTUTIL_SOURCES)
tests_unit_test_beliefs_LDADD = $(VG_FP_LIBS)

VG_FUZZERS += tests/fuzz/fuzz_beliefs
tests_fuzz_fuzz_beliefs_SOURCES = tests/fuzz/fuzz_beliefs.c
tests_fuzz_fuzz_beliefs_LDADD = $(VG_FP_LIBS)
tests_fuzz_fuzz_beliefs_LDFLAGS = -fsanitize=fuzzer

# The choice of coding for new pixels, by the link's rate.
check_PROGRAMS += tests/unit/test_pixcost
TESTS += tests/unit/test_pixcost
tests_unit_test_pixcost_SOURCES = tests/unit/test_pixcost.c
tests_unit_test_pixcost_LDADD = $(VG_FP_LIBS)

check_PROGRAMS += tests/unit/test_history
TESTS += tests/unit/test_history
tests_unit_test_history_SOURCES = tests/unit/test_history.c $(VG_TESTUTIL_SOURCES)
tests_unit_test_history_LDADD = $(VG_FP_LIBS)
