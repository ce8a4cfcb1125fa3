/* varg-trace export: every frame of a trace as an image file, with a
 * timestamps.txt manifest that `varg-trace import` reads back. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_imgfile.h"
#include "common/vg_log.h"
#include "traces/trace_cmd.h"
#include "traces/vg_trace.h"

int vg__trace_export(int argc, char **argv)
{
	g_autofree char *dir = NULL, *format = NULL, *manifest_path = NULL;
	GOptionEntry entries[] = {
		{ "frames", 'f', 0, G_OPTION_ARG_FILENAME, &dir, "Directory to write the frames to (required; created if missing)", "DIR" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format, "png (default) or ppm", "FMT" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionContext *ctx = g_option_context_new("FILE - write a trace's frames as images");
	vg_trace_reader *r = NULL;
	vg_pixbuf *fb = NULL;
	FILE *manifest = NULL;
	vg_trace_record rec;
	uint64_t frames = 0;
	bool ppm;
	int status = VG__EXIT_FAIL, err;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx,
		"Writes DIR/frame-000000.png ... (the frame after each frame record)\n"
		"and DIR/timestamps.txt ('FILENAME MILLISECONDS' lines).");
	if (!vg__trace_parse_options(ctx, &argc, &argv))
		return VG__EXIT_USAGE;
	if (argc != 2)
		return vg__trace_usage_error(argc < 2 ? "a trace FILE is required" : "one FILE only");
	if (!dir)
		return vg__trace_usage_error("--frames DIR is required");
	if (format && strcmp(format, "png") != 0 && strcmp(format, "ppm") != 0)
		return vg__trace_usage_error("--format must be png or ppm, not '%s'", format);
	ppm = format && strcmp(format, "ppm") == 0;

	if ((err = vg_trace_reader_open(argv[1], &r))) {
		vg_error("%s: %s", argv[1], vg_strerror(err));
		return VG__EXIT_FAIL;
	}
	if (g_mkdir_with_parents(dir, 0777) != 0) {
		vg_error("%s: %s", dir, g_strerror(errno));
		goto out;
	}
	manifest_path = g_build_filename(dir, "timestamps.txt", NULL);
	manifest = fopen(manifest_path, "w");
	if (!manifest) {
		vg_error("%s: %s", manifest_path, g_strerror(errno));
		goto out;
	}
	fb = vg_pixbuf_new(vg_trace_reader_width(r), vg_trace_reader_height(r));
	while ((err = vg_trace_reader_next(r, &rec, fb)) == 1) {
		g_autofree char *name = NULL, *path = NULL;

		if (rec.kind != VG_TRACE_FRAME)
			continue;
		name = g_strdup_printf("frame-%06" G_GUINT64_FORMAT ".%s", frames, ppm ? "ppm" : "png");
		path = g_build_filename(dir, name, NULL);
		err = ppm ? vg_ppm_write(path, fb) : vg_png_write(path, fb);
		if (err) {
			vg_error("%s: %s", path, vg_strerror(err));
			goto out;
		}
		/* Milliseconds with the nanoseconds kept, so a re-import is exact. */
		fprintf(manifest, "%s %" G_GUINT64_FORMAT ".%06u\n", name, rec.t_ns / 1000000u,
			(unsigned)(rec.t_ns % 1000000u));
		frames++;
	}
	if (err < 0) {
		vg_error("%s: %s", argv[1], vg_trace_reader_error_text(r));
		goto out;
	}
	status = VG__EXIT_OK;
out:
	if (manifest && fclose(manifest) != 0 && status == VG__EXIT_OK) {
		vg_error("%s: %s", manifest_path, g_strerror(errno));
		status = VG__EXIT_FAIL;
	}
	vg_pixbuf_free(fb);
	vg_trace_reader_free(r);
	return status;
}
