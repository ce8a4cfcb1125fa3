# common/: what every module shares. Depends on nothing of ours.
noinst_LIBRARIES += common/libvgcommon.a
common_libvgcommon_a_SOURCES = \
	common/vg_array.c common/vg_array.h \
	common/vg_cmdline.c common/vg_cmdline.h \
	common/vg_crc32.c common/vg_crc32.h \
	common/vg_cursor.c common/vg_cursor.h \
	common/vg_error.c common/vg_error.h \
	common/vg_file.c common/vg_file.h \
	common/vg_id.c common/vg_id.h \
	common/vg_imgfile.c common/vg_imgfile.h \
	common/vg_log.c common/vg_log.h \
	common/vg_mem.c common/vg_mem.h common/vg_minmax.h \
	common/vg_pixbuf.c common/vg_pixbuf.h \
	common/vg_reader.c common/vg_reader.h \
	common/vg_rect.c common/vg_rect.h \
	common/vg_segdesc.h common/vg_seghash.c common/vg_seghash.h \
	common/vg_sha256.c common/vg_sha256.h \
	common/vg_time.c common/vg_time.h \
	common/vg_vencrypt.c common/vg_vencrypt.h \
	common/vg_writer.c common/vg_writer.h
common_libvgcommon_a_CFLAGS = $(AM_CFLAGS) $(PNG_CFLAGS)

VG_COMMON_LIBS = common/libvgcommon.a $(PNG_LIBS) $(GLIB_LIBS) $(ZLIB_LIBS)

VG_COMMON_TESTS = tests/unit/test_rect tests/unit/test_pixbuf tests/unit/test_reader \
	tests/unit/test_writer tests/unit/test_imgfile tests/unit/test_error \
	tests/unit/test_mem tests/unit/test_array tests/unit/test_file tests/unit/test_sha256 \
	tests/unit/test_vencrypt tests/unit/test_crc32
check_PROGRAMS += $(VG_COMMON_TESTS)
TESTS += $(VG_COMMON_TESTS)
tests_unit_test_rect_LDADD = $(VG_COMMON_LIBS)
tests_unit_test_pixbuf_LDADD = $(VG_COMMON_LIBS)
tests_unit_test_reader_LDADD = $(VG_COMMON_LIBS)
tests_unit_test_writer_LDADD = $(VG_COMMON_LIBS)
tests_unit_test_imgfile_LDADD = $(VG_COMMON_LIBS)
tests_unit_test_error_LDADD = $(VG_COMMON_LIBS)
tests_unit_test_mem_LDADD = $(VG_COMMON_LIBS)
tests_unit_test_array_LDADD = $(VG_COMMON_LIBS)
tests_unit_test_file_LDADD = $(VG_COMMON_LIBS)
tests_unit_test_sha256_LDADD = $(VG_COMMON_LIBS)
tests_unit_test_crc32_LDADD = $(VG_COMMON_LIBS)
tests_unit_test_vencrypt_LDADD = $(VG_COMMON_LIBS)

VG_BENCHES += tests/bench/bench_common
tests_bench_bench_common_LDADD = $(VG_COMMON_LIBS)

VG_FUZZERS += tests/fuzz/fuzz_reader
tests_fuzz_fuzz_reader_SOURCES = tests/fuzz/fuzz_reader.c
tests_fuzz_fuzz_reader_LDADD = $(VG_COMMON_LIBS)
tests_fuzz_fuzz_reader_LDFLAGS = -fsanitize=fuzzer
VG_FUZZERS += tests/fuzz/fuzz_vencrypt
tests_fuzz_fuzz_vencrypt_SOURCES = tests/fuzz/fuzz_vencrypt.c
tests_fuzz_fuzz_vencrypt_LDADD = $(VG_COMMON_LIBS)
tests_fuzz_fuzz_vencrypt_LDFLAGS = -fsanitize=fuzzer
