/* varg-trace export: every frame of a trace as an image file, with a
 * timestamps.txt manifest that `varg-trace import` reads back; or, with
 * --changed, only what each frame changed, as an image coder that sees
 * one update at a time would be given it (scripts/lossless-floor). */
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

/* The bounding box of the pixels where a and b (same size) differ;
 * empty when none do. */
static vg_rect changed_bounds(const vg_pixbuf *a, const vg_pixbuf *b)
{
	int32_t x0 = a->width, x1 = -1, y0 = -1, y1 = -1;

	for (int32_t y = 0; y < a->height; y++) {
		const uint32_t *ra = vg_pixbuf_row(a, y), *rb = vg_pixbuf_row(b, y);
		int32_t l = 0, r = a->width - 1;

		while (l < a->width && ra[l] == rb[l])
			l++;
		if (l == a->width)
			continue;
		while (ra[r] == rb[r])
			r--;
		if (y0 < 0)
			y0 = y;
		y1 = y;
		x0 = l < x0 ? l : x0;
		x1 = r > x1 ? r : x1;
	}
	if (y0 < 0)
		return vg_rect_make(0, 0, 0, 0);
	return vg_rect_make(x0, y0, x1 - x0 + 1, y1 - y0 + 1);
}

int vg__trace_export(int argc, char **argv)
{
	g_autofree char *dir = NULL, *format = NULL, *manifest_path = NULL;
	gboolean changed = FALSE;
	GOptionEntry entries[] = {
		{ "frames", 'f', 0, G_OPTION_ARG_FILENAME, &dir, "Directory to write the frames to (required; created if missing)", "DIR" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format, "png (default) or ppm", "FMT" },
		{ "changed", 0, 0, G_OPTION_ARG_NONE, &changed, "Write only what each frame changed (see below)", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionContext *ctx = g_option_context_new("FILE - write a trace's frames as images");
	vg_trace_reader *r = NULL;
	vg_pixbuf *fb = NULL, *prev = NULL;
	FILE *manifest = NULL;
	vg_trace_record rec;
	uint64_t frames = 0;
	bool ppm;
	int status = VG__EXIT_FAIL, err;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx,
		"Writes DIR/frame-000000.png ... (the frame after each frame record)\n"
		"and DIR/timestamps.txt ('FILENAME MILLISECONDS' lines).\n\n"
		"With --changed: DIR/change-000000.png ..., the bounding box of the\n"
		"pixels each frame changed (the whole first frame; frames that change\n"
		"nothing are left out), and DIR/changes.txt ('FILENAME X Y W H\n"
		"MILLISECONDS' lines).");
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
	manifest_path = g_build_filename(dir, changed ? "changes.txt" : "timestamps.txt", NULL);
	manifest = fopen(manifest_path, "w");
	if (!manifest) {
		vg_error("%s: %s", manifest_path, g_strerror(errno));
		goto out;
	}
	fb = vg_pixbuf_new(vg_trace_reader_width(r), vg_trace_reader_height(r));
	if (changed)
		prev = vg_pixbuf_new(vg_trace_reader_width(r), vg_trace_reader_height(r));
	if (!fb || (changed && !prev)) {
		vg_error("%s: %s", argv[1], vg_strerror(VG_ERANGE));
		goto out;
	}
	while ((err = vg_trace_reader_next(r, &rec, fb)) == 1) {
		g_autofree char *name = NULL, *path = NULL;
		vg_rect box = vg_rect_make(0, 0, fb->width, fb->height);
		vg_pixbuf part;

		if (rec.kind != VG_TRACE_FRAME)
			continue;
		if (changed && frames > 0)
			box = changed_bounds(prev, fb);
		frames++;
		if (vg_rect_is_empty(box))
			continue;
		part = vg_pixbuf_view(fb, box);
		name = g_strdup_printf("%s-%06" G_GUINT64_FORMAT ".%s", changed ? "change" : "frame",
				       frames - 1, ppm ? "ppm" : "png");
		path = g_build_filename(dir, name, NULL);
		err = ppm ? vg_ppm_write(path, &part) : vg_png_write(path, &part);
		if (err) {
			vg_error("%s: %s", path, vg_strerror(err));
			goto out;
		}
		if (changed) {
			fprintf(manifest, "%s %d %d %d %d ", name, box.x, box.y, box.w, box.h);
			vg_pixbuf_copy_rect(prev, fb, box);
		} else {
			fprintf(manifest, "%s ", name);
		}
		/* Milliseconds with the nanoseconds kept, so a re-import is exact. */
		fprintf(manifest, "%" G_GUINT64_FORMAT ".%06u\n", rec.t_ns / 1000000u,
			(unsigned)(rec.t_ns % 1000000u));
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
	vg_pixbuf_free(prev);
	vg_pixbuf_free(fb);
	vg_trace_reader_free(r);
	return status;
}
