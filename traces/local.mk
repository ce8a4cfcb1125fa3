# traces/: the .vtr trace format (doc/trace-format.md), its library, the
# varg-trace tool and the synthetic sample. Depends on common/ only.
noinst_LIBRARIES += traces/libvgtrace.a
traces_libvgtrace_a_SOURCES = \
	traces/vg_trace.h traces/vg_trace_format.h \
	traces/vg_trace_read.c traces/vg_trace_write.c traces/vg_trace_hash.c \
	traces/vg_fbs.c traces/vg_fbs.h traces/vg_rfbstream.c traces/vg_rfbstream.h

VG_TRACE_LIBS = traces/libvgtrace.a $(VG_COMMON_LIBS)

bin_PROGRAMS += traces/varg-trace
traces_varg_trace_SOURCES = traces/varg_trace.c traces/trace_cmd.h \
	traces/trace_cmd_import.c traces/trace_cmd_import_fbs.c traces/trace_cmd_info.c \
	traces/trace_cmd_export.c
traces_varg_trace_LDADD = $(VG_TRACE_LIBS)

VG_TRACE_TESTS = tests/unit/test_trace tests/unit/test_rfbstream
check_PROGRAMS += $(VG_TRACE_TESTS)
TESTS += $(VG_TRACE_TESTS)
tests_unit_test_trace_LDADD = $(VG_TRACE_LIBS)
tests_unit_test_rfbstream_LDADD = $(VG_TRACE_LIBS)

# The synthetic heat-map session behind traces/samples/ (scripts/make-sample).
noinst_PROGRAMS += traces/varg-synth
traces_varg_synth_SOURCES = traces/vg_synth.c
traces_varg_synth_LDADD = $(VG_COMMON_LIBS)

TESTS += tests/e2e/test_varg_trace.sh
dist_noinst_SCRIPTS += tests/e2e/test_varg_trace.sh scripts/make-sample scripts/record-sample
dist_noinst_DATA += traces/samples/heatmap-scroll.vtr traces/samples/treeview-scroll.vtr

VG_FUZZERS += tests/fuzz/fuzz_trace
tests_fuzz_fuzz_trace_SOURCES = tests/fuzz/fuzz_trace.c
tests_fuzz_fuzz_trace_LDADD = $(VG_TRACE_LIBS)
tests_fuzz_fuzz_trace_LDFLAGS = -fsanitize=fuzzer

dist_man_MANS += doc/varg-trace.1

# varg-trace ratio: the measuring pipeline (Varg through sender and
# receiver, LibVNCServer's own encoders, Formula 1) and its unit test.
traces_varg_trace_SOURCES += traces/trace_cmd_ratio.c \
	traces/vg_ratio.c traces/vg_ratio.h \
	traces/vg_stockenc.c traces/vg_stockenc.h \
	traces/vg_wanmodel.c traces/vg_wanmodel.h
traces_varg_trace_CFLAGS = $(AM_CFLAGS) $(VNCSERVER_CFLAGS) $(ZLIB_CFLAGS)
traces_varg_trace_LDADD += pipeline/libvgpipe.a segment2d/libvgseg.a $(VG_FP_LIBS) $(VNCSERVER_LIBS) $(ZLIB_LIBS) -lpthread -lm

check_PROGRAMS += tests/unit/test_wanmodel
TESTS += tests/unit/test_wanmodel
tests_unit_test_wanmodel_SOURCES = tests/unit/test_wanmodel.c traces/vg_wanmodel.c traces/vg_wanmodel.h
tests_unit_test_wanmodel_LDADD = $(VG_COMMON_LIBS) -lm

TESTS += tests/e2e/test_varg_trace_ratio.sh
dist_noinst_SCRIPTS += tests/e2e/test_varg_trace_ratio.sh

# varg-trace record: live sessions through capture/libvgcapture.a.
traces_varg_trace_SOURCES += traces/trace_cmd_record.c traces/trace_cmd_replay.c traces/trace_cmd_play.c
traces_varg_trace_CFLAGS += $(X11_CFLAGS) $(XDAMAGE_CFLAGS) $(XI_CFLAGS) $(VNCCLIENT_CFLAGS)
traces_varg_trace_LDADD += $(VG_CAPTURE_LIBS)

VG_FUZZERS += tests/fuzz/fuzz_fbs
tests_fuzz_fuzz_fbs_SOURCES = tests/fuzz/fuzz_fbs.c
tests_fuzz_fuzz_fbs_LDADD = $(VG_TRACE_LIBS)
tests_fuzz_fuzz_fbs_LDFLAGS = -fsanitize=fuzzer

# varg-trace model: Equation 1 (traces/vg_fpmodel.c) and its unit test.
traces_varg_trace_SOURCES += traces/trace_cmd_model.c traces/vg_fpmodel.c traces/vg_fpmodel.h
check_PROGRAMS += tests/unit/test_fpmodel
TESTS += tests/unit/test_fpmodel tests/e2e/test_varg_trace_model.sh
dist_noinst_SCRIPTS += tests/e2e/test_varg_trace_model.sh
tests_unit_test_fpmodel_SOURCES = tests/unit/test_fpmodel.c traces/vg_fpmodel.c traces/vg_fpmodel.h
tests_unit_test_fpmodel_LDADD = $(VG_COMMON_LIBS) -lm
