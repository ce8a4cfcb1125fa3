# fingerprint/: the Varg protocol (sender and receiver, sans-I/O) and the
# segment cache. Depends on common/ only.
noinst_LIBRARIES += fingerprint/libvgfp.a
fingerprint_libvgfp_a_SOURCES = \
	fingerprint/vg_proto.h \
	fingerprint/vg_receiver.c fingerprint/vg_receiver.h \
	fingerprint/vg_sender.c fingerprint/vg_sender.h
fingerprint_libvgfp_a_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS) $(CRYPTO_CFLAGS)

VG_FP_LIBS = fingerprint/libvgfp.a $(VG_COMMON_LIBS) $(CRYPTO_LIBS)

check_PROGRAMS += tests/test_protocol
TESTS += tests/test_protocol
tests_test_protocol_LDADD = $(VG_FP_LIBS)

VG_FUZZERS += tests/fuzz/fuzz_receiver
tests_fuzz_fuzz_receiver_SOURCES = tests/fuzz/fuzz_receiver.c
tests_fuzz_fuzz_receiver_LDADD = $(VG_FP_LIBS)
tests_fuzz_fuzz_receiver_LDFLAGS = -fsanitize=fuzzer
