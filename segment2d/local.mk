# segment2d: region differencing, movement estimation and the segmenters.
# Depends on common/ only; no I/O, no globals. See doc/segmentation.md.
noinst_LIBRARIES += segment2d/libvgseg.a
segment2d_libvgseg_a_SOURCES = \
	segment2d/vg_differ.c segment2d/vg_differ.h \
	segment2d/vg_motion.c segment2d/vg_motion.h \
	segment2d/vg_moves.c segment2d/vg_moves.h \
	segment2d/vg_segmenter.c segment2d/vg_segmenter.h \
	segment2d/vg_tilediff.c segment2d/vg_tilediff.h

VG_SEG_LIBS = segment2d/libvgseg.a $(VG_COMMON_LIBS)

# The deterministic test scenes (heat map with dendrogram and labels, text)
# shared by the tests and the benchmark.
VG_TESTSCENE_SOURCES = tests/vg_testscene.c tests/vg_testscene.h

VG_SEG_TESTS = tests/unit/test_seghash tests/unit/test_differ tests/unit/test_motion \
	tests/unit/test_segmenter tests/unit/test_tilediff
check_PROGRAMS += $(VG_SEG_TESTS)
TESTS += $(VG_SEG_TESTS)
tests_unit_test_seghash_LDADD = $(VG_SEG_LIBS)
tests_unit_test_differ_SOURCES = tests/unit/test_differ.c $(VG_TESTSCENE_SOURCES)
tests_unit_test_differ_LDADD = $(VG_SEG_LIBS)
tests_unit_test_motion_SOURCES = tests/unit/test_motion.c $(VG_TESTSCENE_SOURCES)
tests_unit_test_motion_LDADD = $(VG_SEG_LIBS)
tests_unit_test_segmenter_SOURCES = tests/unit/test_segmenter.c $(VG_TESTSCENE_SOURCES)
tests_unit_test_segmenter_LDADD = $(VG_SEG_LIBS)
tests_unit_test_tilediff_LDADD = $(VG_SEG_LIBS)
EXTRA_DIST += tests/golden

VG_BENCHES += tests/bench/bench_segment2d
tests_bench_bench_segment2d_SOURCES = tests/bench/bench_segment2d.c $(VG_TESTSCENE_SOURCES)
tests_bench_bench_segment2d_LDADD = $(VG_SEG_LIBS)
