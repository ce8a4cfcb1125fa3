/* varg-trace replay-input: plays a trace's INPUT records into a live X
 * display through XTest, at the recorded pace (scaled by --speed), so that
 * a recorded session can be re-run against an application. Frames are
 * read (and checked) but not shown. */
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "capture/vg_xinject.h"
#include "traces/trace_cmd.h"
#include "traces/vg_trace.h"

int vg__trace_replay_input(int argc, char **argv)
{
	g_autofree char *display = NULL;
	double speed = 1.0;
	gboolean quiet = FALSE;
	GOptionEntry entries[] = {
		{ "display", 'd', 0, G_OPTION_ARG_STRING, &display, "X display to send the input to (required)", ":N" },
		{ "speed", 's', 0, G_OPTION_ARG_DOUBLE, &speed, "Pace: 1 as recorded (default), 2 twice as fast", "X" },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No summary", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionContext *ctx = g_option_context_new("FILE.vtr - replay recorded input into an X display");
	vg_trace_reader *r = NULL;
	vg_xinject *j = NULL;
	vg_trace_record rec;
	uint64_t start, sent = 0, skipped = 0;
	int err, status = VG__EXIT_FAIL;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx,
		"Sends the trace's pointer and key events to the display with XTest, each\n"
		"at its recorded time divided by --speed. SIGINT stops it; buttons and keys\n"
		"still held are released. Keysyms the display's keyboard cannot type are\n"
		"skipped and counted.");
	if (!vg__trace_parse_options(ctx, &argc, &argv))
		return VG__EXIT_USAGE;
	if (argc != 2)
		return vg__trace_usage_error(argc < 2 ? "a trace FILE.vtr is required" : "unexpected argument '%s'",
					     argv[argc < 2 ? 0 : 2]);
	if (!display)
		return vg__trace_usage_error("--display :N is required");
	if (!(speed >= 0.01 && speed <= 1000))
		return vg__trace_usage_error("--speed must be 0.01..1000");

	if ((err = vg_trace_reader_open(argv[1], &r))) {
		vg_error("%s: %s", argv[1], vg_strerror(err));
		goto out;
	}
	if ((err = vg_xinject_open(display, &j))) {
		vg_error(err == VG_EIO ? "cannot open display '%s'" : "display '%s' has no XTest extension", display);
		goto out;
	}
	if (vg_xinject_width(j) < vg_trace_reader_width(r) || vg_xinject_height(j) < vg_trace_reader_height(r))
		vg_warn("display '%s' is %dx%d, smaller than the trace's %dx%d", display, vg_xinject_width(j),
			vg_xinject_height(j), vg_trace_reader_width(r), vg_trace_reader_height(r));
	vg__trace_catch_stop();

	start = vg_time_ns();
	while (!vg__trace_stopped() && (err = vg_trace_reader_next(r, &rec, NULL)) == 1) {
		if (rec.kind != VG_TRACE_INPUT)
			continue;
		vg__trace_sleep_until(start + (uint64_t)((double)rec.t_ns / speed));
		if (vg__trace_stopped())
			break;
		if (rec.input == VG_TRACE_POINTER)
			err = vg_xinject_pointer(j, rec.x, rec.y, rec.buttons);
		else
			err = vg_xinject_key(j, rec.keysym, rec.down);
		if (err == VG_ENOENT)
			skipped++;
		else
			sent++;
	}
	if (err < 0) {
		vg_error("%s", vg_trace_reader_error_text(r));
		goto out;
	}
	if (!quiet)
		printf("%s: %" G_GUINT64_FORMAT " input events replayed%s", argv[1], sent,
		       skipped ? "" : "\n");
	if (!quiet && skipped)
		printf(", %" G_GUINT64_FORMAT " keysyms not on the display's keyboard skipped\n", skipped);
	status = VG__EXIT_OK;
out:
	vg_xinject_free(j);
	vg_trace_reader_free(r);
	return status;
}
