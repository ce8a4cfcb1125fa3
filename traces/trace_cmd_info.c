/* varg-trace info: what a trace holds, read and checked record by record. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "traces/trace_cmd.h"
#include "traces/vg_trace.h"

typedef struct {
	uint64_t frames, pointers, keys, markers, cursors, skipped, records;
	uint64_t first_t, last_t;
	uint64_t changed_px;      /* pixels in all frame rectangles */
	uint64_t raw_bytes;       /* frames x width x height x 4 */
	int64_t file_size;
} trace_stats;

static void print_text(const char *path, const vg_trace_reader *r, const trace_stats *s)
{
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(
		(gint64)(vg_trace_reader_created_ns(r) / 1000000000u));
	g_autofree char *created = dt ? g_date_time_format_iso8601(dt) : g_strdup("?");

	printf("file:         %s\n", path);
	printf("format:       Varg trace v%u, created %s\n", vg_trace_reader_version(r), created);
	printf("geometry:     %dx%d, 32-bit 0x00RRGGBB\n", vg_trace_reader_width(r),
	       vg_trace_reader_height(r));
	printf("frames:       %" G_GUINT64_FORMAT "\n", s->frames);
	printf("duration:     %.3f s\n", (double)(s->last_t - s->first_t) / 1e9);
	printf("records:      %" G_GUINT64_FORMAT " (frame %" G_GUINT64_FORMAT ", pointer %"
	       G_GUINT64_FORMAT ", key %" G_GUINT64_FORMAT ", marker %" G_GUINT64_FORMAT
	       ", cursor %" G_GUINT64_FORMAT ", unknown %" G_GUINT64_FORMAT ")\n",
	       s->records, s->frames, s->pointers, s->keys, s->markers, s->cursors, s->skipped);
	printf("raw bytes:    %" G_GUINT64_FORMAT " (frames x width x height x 4)\n", s->raw_bytes);
	printf("changed:      %" G_GUINT64_FORMAT " bytes in frame rectangles\n", s->changed_px * 4);
	printf("file size:    %" G_GINT64_FORMAT " bytes\n", s->file_size);
	printf("compression:  %.1f:1 against raw frames\n",
	       s->file_size > 0 ? (double)s->raw_bytes / (double)s->file_size : 0.0);
}

static void print_json(const char *path, const vg_trace_reader *r, const trace_stats *s)
{
	g_autofree char *esc = g_strescape(path, NULL);

	printf("{\"file\": \"%s\", \"version\": %u, \"created_ns\": %" G_GUINT64_FORMAT ", "
	       "\"width\": %d, \"height\": %d, \"frames\": %" G_GUINT64_FORMAT ", "
	       "\"duration_ns\": %" G_GUINT64_FORMAT ", \"records\": %" G_GUINT64_FORMAT ", "
	       "\"kinds\": {\"frame\": %" G_GUINT64_FORMAT ", \"pointer\": %" G_GUINT64_FORMAT ", "
	       "\"key\": %" G_GUINT64_FORMAT ", \"marker\": %" G_GUINT64_FORMAT ", \"cursor\": %"
	       G_GUINT64_FORMAT ", \"unknown\": %"
	       G_GUINT64_FORMAT "}, "
	       "\"raw_bytes\": %" G_GUINT64_FORMAT ", \"changed_bytes\": %" G_GUINT64_FORMAT ", "
	       "\"file_size\": %" G_GINT64_FORMAT ", \"ratio\": %.3f}\n",
	       esc, vg_trace_reader_version(r), vg_trace_reader_created_ns(r),
	       vg_trace_reader_width(r), vg_trace_reader_height(r), s->frames,
	       s->last_t - s->first_t, s->records, s->frames, s->pointers, s->keys, s->markers,
	       s->cursors, s->skipped, s->raw_bytes, s->changed_px * 4, s->file_size,
	       s->file_size > 0 ? (double)s->raw_bytes / (double)s->file_size : 0.0);
}

int vg__trace_info(int argc, char **argv)
{
	gboolean json = FALSE;
	GOptionEntry entries[] = {
		{ "json", 'j', 0, G_OPTION_ARG_NONE, &json, "Print one JSON object", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionContext *ctx = g_option_context_new("FILE - describe a trace");
	vg_trace_reader *r = NULL;
	vg_pixbuf *fb = NULL;
	trace_stats s = { 0 };
	vg_trace_record rec;
	GStatBuf st;
	int status = VG__EXIT_FAIL, err;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx,
		"Reads every record, checking checksums and frame hashes.");
	if (!vg__trace_parse_options(ctx, &argc, &argv))
		return VG__EXIT_USAGE;
	if (argc != 2)
		return vg__trace_usage_error(argc < 2 ? "a trace FILE is required" : "one FILE only");
	if ((err = vg_trace_reader_open(argv[1], &r))) {
		vg_error("%s: %s", argv[1], vg_strerror(err));
		return VG__EXIT_FAIL;
	}
	fb = vg_pixbuf_new(vg_trace_reader_width(r), vg_trace_reader_height(r));
	while ((err = vg_trace_reader_next(r, &rec, fb)) == 1) {
		if (s.frames + s.pointers + s.keys + s.markers + s.cursors == 0)
			s.first_t = rec.t_ns;
		s.last_t = rec.t_ns;
		if (rec.kind == VG_TRACE_FRAME) {
			size_t i;

			s.frames++;
			for (i = 0; i < rec.n_rects; i++)
				s.changed_px += (uint64_t)vg_rect_area(rec.rects[i]);
		} else if (rec.kind == VG_TRACE_INPUT) {
			if (rec.input == VG_TRACE_POINTER)
				s.pointers++;
			else
				s.keys++;
		} else if (rec.kind == VG_TRACE_MARKER) {
			s.markers++;
		} else if (rec.kind == VG_TRACE_CURSOR) {
			s.cursors++;
		}
	}
	if (err < 0) {
		vg_error("%s: %s", argv[1], vg_trace_reader_error_text(r));
		goto out;
	}
	s.skipped = vg_trace_reader_skipped(r);
	s.records = s.frames + s.pointers + s.keys + s.markers + s.cursors + s.skipped;
	s.raw_bytes = s.frames * (uint64_t)vg_trace_reader_width(r) *
		      (uint64_t)vg_trace_reader_height(r) * 4;
	s.file_size = g_stat(argv[1], &st) == 0 ? (int64_t)st.st_size : -1;
	if (json)
		print_json(argv[1], r, &s);
	else
		print_text(argv[1], r, &s);
	status = VG__EXIT_OK;
out:
	vg_pixbuf_free(fb);
	vg_trace_reader_free(r);
	return status;
}
