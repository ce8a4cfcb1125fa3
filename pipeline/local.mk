# pipeline: one Varg update through differ, movement estimation, moves,
# segmenter and sender; used by varg-server and varg-trace ratio alike.
# Depends on common/, segment2d/ and fingerprint/; no I/O, no globals.
noinst_LIBRARIES += pipeline/libvgpipe.a
pipeline_libvgpipe_a_SOURCES = pipeline/vg_pipeline.c pipeline/vg_pipeline.h \
	pipeline/vg_workers.c pipeline/vg_workers.h

VG_PIPE_LIBS = pipeline/libvgpipe.a segment2d/libvgseg.a $(VG_FP_LIBS)

check_PROGRAMS += tests/unit/test_pipeline
TESTS += tests/unit/test_pipeline
tests_unit_test_pipeline_SOURCES = tests/unit/test_pipeline.c $(VG_TESTSCENE_SOURCES)
tests_unit_test_pipeline_LDADD = $(VG_PIPE_LIBS)
