/* varg-trace import: a directory of screenshots becomes a trace.
 *
 * Frames are the directory's .png and .ppm files in name order. Each is
 * stored as the tiles that differ from the previous frame (the first one
 * whole). Timestamps come from a manifest -- by default timestamps.txt in
 * the directory, lines of "FILENAME MILLISECONDS", '#' starts a comment --
 * or, without one, are --interval-ms apart. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_imgfile.h"
#include "common/vg_log.h"
#include "traces/trace_cmd.h"
#include "segment2d/vg_tilediff.h"
#include "traces/vg_trace.h"

#define MANIFEST_NAME "timestamps.txt"

static bool is_frame_name(const char *name)
{
	return g_str_has_suffix(name, ".png") || g_str_has_suffix(name, ".PNG") ||
	       g_str_has_suffix(name, ".ppm") || g_str_has_suffix(name, ".PPM");
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The frame files of dir, sorted; NULL (after printing why) on failure. */
static GPtrArray *list_frames(const char *dir)
{
	GError *error = NULL;
	GDir *d = g_dir_open(dir, 0, &error);
	GPtrArray *names;
	const char *name;

	if (!d) {
		vg_error("%s", error->message);
		g_error_free(error);
		return NULL;
	}
	names = g_ptr_array_new_with_free_func(g_free);
	while ((name = g_dir_read_name(d)))
		if (is_frame_name(name))
			g_ptr_array_add(names, g_strdup(name));
	g_dir_close(d);
	if (names->len == 0) {
		vg_error("%s: no .png or .ppm frames", dir);
		g_ptr_array_free(names, TRUE);
		return NULL;
	}
	qsort(names->pdata, names->len, sizeof(char *), compare_names);
	return names;
}

/* Parses "MILLISECONDS[.FRACTION]" exactly (no floating point) into
 * nanoseconds; digits past the nanosecond are refused. */
static bool parse_ms(const char *s, uint64_t *ns)
{
	uint64_t ms = 0, frac = 0, scale = 1000000;
	const char *p = s;

	if (!g_ascii_isdigit(*p))
		return false;
	for (; g_ascii_isdigit(*p); p++) {
		if (ms > 1000000000000ull)
			return false;
		ms = ms * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; g_ascii_isdigit(*p); p++) {
			if (scale == 1)
				return false;
			scale /= 10;
			frac += (uint64_t)(*p - '0') * scale;
		}
	}
	if (*p)
		return false;
	*ns = ms * 1000000u + frac;
	return true;
}

/* Reads the manifest into a table name -> nanoseconds (in a g_new'd
 * slot). Returns false after printing the offending line. */
static bool read_manifest(const char *path, GHashTable *times)
{
	g_autofree char *text = NULL;
	g_auto(GStrv) lines = NULL;
	GError *error = NULL;
	size_t i;

	if (!g_file_get_contents(path, &text, NULL, &error)) {
		vg_error("%s", error->message);
		g_error_free(error);
		return false;
	}
	lines = g_strsplit(text, "\n", -1);
	for (i = 0; lines[i]; i++) {
		g_auto(GStrv) f = NULL;
		char *line = g_strstrip(lines[i]);
		uint64_t *slot, ns;

		if (line[0] == '\0' || line[0] == '#')
			continue;
		f = g_strsplit_set(line, " \t", -1);
		/* Fields are separated by one or more blanks. */
		{
			size_t j, k = 0;
			for (j = 0; f[j]; j++)
				if (f[j][0])
					f[k++] = f[j];
				else
					g_free(f[j]);
			f[k] = NULL;
			if (k != 2) {
				vg_error("%s:%zu: expected 'FILENAME MILLISECONDS'", path, i + 1);
				return false;
			}
		}
		if (!parse_ms(f[1], &ns)) {
			vg_error("%s:%zu: bad time '%s'", path, i + 1, f[1]);
			return false;
		}
		if (g_hash_table_contains(times, f[0])) {
			vg_error("%s:%zu: '%s' listed twice", path, i + 1, f[0]);
			return false;
		}
		slot = g_new(uint64_t, 1);
		*slot = ns;
		g_hash_table_insert(times, g_strdup(f[0]), slot);
	}
	return true;
}

/* The time of each frame in ns; false after printing why. */
static bool frame_times(const char *dir, const char *manifest, bool manifest_given,
			GPtrArray *names, int interval_ms, uint64_t *t_ns)
{
	g_autoptr(GHashTable) times = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	guint i;

	if (!manifest_given && !g_file_test(manifest, G_FILE_TEST_EXISTS)) {
		for (i = 0; i < names->len; i++)
			t_ns[i] = (uint64_t)i * (uint64_t)interval_ms * 1000000u;
		return true;
	}
	if (!read_manifest(manifest, times))
		return false;
	for (i = 0; i < names->len; i++) {
		const uint64_t *ns = g_hash_table_lookup(times, names->pdata[i]);

		if (!ns) {
			vg_error("%s: no time for frame '%s'", manifest, (char *)names->pdata[i]);
			return false;
		}
		t_ns[i] = *ns;
		if (i > 0 && t_ns[i] < t_ns[i - 1]) {
			vg_error("%s: time of '%s' is before the previous frame's", manifest,
				 (char *)names->pdata[i]);
			return false;
		}
		g_hash_table_remove(times, names->pdata[i]);
	}
	if (g_hash_table_size(times) > 0) {
		GHashTableIter it;
		gpointer key;

		g_hash_table_iter_init(&it, times);
		g_hash_table_iter_next(&it, &key, NULL);
		vg_error("%s: '%s' is not a frame in %s", manifest, (char *)key, dir);
		return false;
	}
	return true;
}

/* Writes the frames as a trace to out; false after printing why. */
static bool import_frames(const char *dir, GPtrArray *names, const uint64_t *t_ns, const char *out,
			  int tile, int level, bool progress)
{
	vg_trace_writer *w = NULL;
	vg_pixbuf *prev = NULL, *cur = NULL;
	vg_rect *rects = NULL;
	size_t cap = 0, n;
	bool ok = false;
	guint i;
	int err;

	for (i = 0; i < names->len; i++) {
		g_autofree char *path = g_build_filename(dir, names->pdata[i], NULL);

		if ((err = vg_image_read(path, &cur))) {
			vg_error("%s: %s", path, vg_strerror(err));
			goto out;
		}
		if (i == 0) {
			if ((err = vg_trace_writer_open(out, cur->width, cur->height, &w))) {
				vg_error("%s: %s", out, vg_strerror(err));
				goto out;
			}
			vg_trace_writer_set_level(w, level);
			cap = vg_tilediff_max_rects(cur->width, cur->height, tile);
			rects = g_new(vg_rect, cap);
			rects[0] = vg_pixbuf_rect(cur);
			n = 1;
		} else if (cur->width != prev->width || cur->height != prev->height) {
			vg_error("%s is %dx%d, but the first frame is %dx%d", path, cur->width, cur->height,
				 prev->width, prev->height);
			goto out;
		} else if ((err = vg_tilediff(prev, cur, tile, rects, cap, &n))) {
			vg_error("%s: %s", path, vg_strerror(err));
			goto out;
		}
		n = vg_trace_fit_rects(rects, n);
		if ((err = vg_trace_writer_frame(w, t_ns[i], cur, rects, n))) {
			vg_error("%s: %s", out, vg_strerror(err));
			goto out;
		}
		vg_pixbuf_free(prev);
		prev = cur;
		cur = NULL;
		if (progress)
			fprintf(stderr, "\rvarg-trace import: frame %u of %u", i + 1, names->len);
	}
	if (progress)
		fputc('\n', stderr);
	err = vg_trace_writer_close(w);
	w = NULL;
	if (err) {
		vg_error("%s: %s", out, vg_strerror(err));
		goto out;
	}
	ok = true;
out:
	if (!ok && progress)
		fputc('\n', stderr);
	vg_trace_writer_abandon(w);
	if (!ok)
		g_unlink(out);
	vg_pixbuf_free(prev);
	vg_pixbuf_free(cur);
	g_free(rects);
	return ok;
}

int vg__trace_import(int argc, char **argv)
{
	g_autofree char *dir = NULL, *out = NULL, *manifest = NULL, *fbs = NULL;
	g_autofree uint64_t *t_ns = NULL;
	g_autoptr(GPtrArray) names = NULL;
	int interval_ms = 100, tile = 32, level = 9;
	gboolean quiet = FALSE;
	GOptionEntry entries[] = {
		{ "frames", 'f', 0, G_OPTION_ARG_FILENAME, &dir, "Directory of .png/.ppm frames", "DIR" },
		{ "fbs", 0, 0, G_OPTION_ARG_FILENAME, &fbs, "An FBS 001.000 capture of an RFB session", "FILE" },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Trace to write (required)", "OUT.vtr" },
		{ "interval-ms", 'i', 0, G_OPTION_ARG_INT, &interval_ms,
		  "Time between frames without a manifest (default 100)", "N" },
		{ "manifest", 'm', 0, G_OPTION_ARG_FILENAME, &manifest,
		  "Frame times, lines of 'FILENAME MILLISECONDS' (default DIR/" MANIFEST_NAME " if present)", "FILE" },
		{ "tile", 't', 0, G_OPTION_ARG_INT, &tile, "Tile size for differencing (default 32)", "N" },
		{ "level", 'l', 0, G_OPTION_ARG_INT, &level, "zlib level 0-9 (default 9)", "N" },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No progress or summary", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionContext *ctx = g_option_context_new("- make a trace from screenshots or an FBS capture");
	bool manifest_given;
	GStatBuf st;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx,
		"Frames are DIR's .png and .ppm files in name order, all of one size.\n"
		"Each is stored as the tiles that changed since the previous frame.\n"
		"With --fbs, frames are the framebuffer updates of a recorded RFB session\n"
		"(rfbproxy, TigerVNC/TurboVNC benchmark captures), at their recorded times.");
	if (!vg__trace_parse_options(ctx, &argc, &argv))
		return VG__EXIT_USAGE;
	if (argc > 1)
		return vg__trace_usage_error("unexpected argument '%s'", argv[1]);
	if (!dir == !fbs)
		return vg__trace_usage_error("give one of --frames DIR and --fbs FILE");
	if (!out)
		return vg__trace_usage_error("-o OUT.vtr is required");
	if (interval_ms < 0)
		return vg__trace_usage_error("--interval-ms must not be negative");
	if (tile < 1 || tile > VG_MAX_DIM)
		return vg__trace_usage_error("--tile must be 1..%d", VG_MAX_DIM);
	if (level < 0 || level > 9)
		return vg__trace_usage_error("--level must be 0..9");

	if (fbs)
		return vg__trace_import_fbs(fbs, out, tile, level, quiet);
	names = list_frames(dir);
	if (!names)
		return VG__EXIT_FAIL;
	manifest_given = manifest != NULL;
	if (!manifest)
		manifest = g_build_filename(dir, MANIFEST_NAME, NULL);
	t_ns = g_new(uint64_t, names->len);
	if (!frame_times(dir, manifest, manifest_given, names, interval_ms, t_ns))
		return VG__EXIT_FAIL;
	if (!import_frames(dir, names, t_ns, out, tile, level,
			   !quiet && names->len >= 10 && isatty(STDERR_FILENO)))
		return VG__EXIT_FAIL;
	if (!quiet && g_stat(out, &st) == 0)
		printf("%s: %u frames, %lld bytes\n", out, names->len, (long long)st.st_size);
	return VG__EXIT_OK;
}
