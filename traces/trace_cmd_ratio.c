/* varg-trace ratio: the paper's tables for a trace (Tables 8, 9 and 12,
 * Formula 1 over the networks of Table 7), from the measuring pipeline in
 * vg_ratio.c. The text layout is for people; --json (doc/json.md) is for
 * scripts; --plot draws the communication-time CDFs with gnuplot. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "fingerprint/codec/vg_pixmodel.h"
#include "fingerprint/codec/vg_zstream.h"
#include "traces/trace_cmd.h"
#include "traces/vg_ratio.h"
#include "traces/vg_wanmodel.h"

/* The methods of the WAN table: Varg's main pipeline, then these. */
static const vg_stockenc_kind wan_stock[] = {
	VG_STOCKENC_HEXTILE, VG_STOCKENC_ZLIB, VG_STOCKENC_TIGHT, VG_STOCKENC_ZRLE,
};
#define N_WAN_METHODS (1 + G_N_ELEMENTS(wan_stock))

typedef struct {
	double p50, p90, p99, under100, under200;
} wan_stats;

static double ratio_of(uint64_t raw, uint64_t bytes)
{
	return bytes ? (double)raw / (double)bytes : 0.0;
}

static double mean_of(const GArray *a)
{
	double sum = 0;
	guint i;

	for (i = 0; i < a->len; i++)
		sum += g_array_index(a, double, i);
	return a->len ? sum / a->len : 0.0;
}

static double p90_of(const GArray *a)
{
	g_autofree double *v = NULL;

	if (!a->len)
		return 0.0;
	v = g_memdup2(a->data, a->len * sizeof(double));
	return vg_wan_quantile(v, a->len, 0.9);
}

static const vg_ratio_totals *main_totals(const vg_ratio_result *r)
{
	return vg_ratio_variant_totals(g_ptr_array_index(r->variants, 0));
}

/* The update bytes before compression, from the sender's own account:
 * coded literal pixels, fingerprints, geometry, and the SHA-1 digests
 * (which bypass zlib). */
static uint64_t segment_stage_bytes(const vg_ratio_totals *t)
{
	return t->sender.plain_bytes;
}

/* The Varg bodies, compressed: what vg_sender produced. */
static uint64_t zlib_stage_bytes(const vg_ratio_totals *t)
{
	return t->sender.body_bytes;
}

/* Communication times of Formula 1 for method m (0 = Varg) over p. */
static void wan_times(const vg_ratio_result *r, const vg_wanprofile *p, size_t m, double *out)
{
	const vg_ratio_totals *t = main_totals(r);
	guint i;

	for (i = 0; i < r->updates; i++) {
		if (m == 0) {
			out[i] = vg_wan_time_sent_ms(p, (double)g_array_index(t->upd_bytes, uint64_t, i),
						     g_array_index(t->upd_ms, double, i));
		} else {
			vg_stockenc_kind k = wan_stock[m - 1];
			out[i] = vg_wan_time_sent_ms(
				p, (double)g_array_index(r->stock_bytes[k], uint64_t, i),
				g_array_index(r->diff_ms, double, i) +
					g_array_index(r->stock_ms[k], double, i));
		}
	}
}

static const char *wan_method_name(size_t m)
{
	return m == 0 ? "varg" : vg_stockenc_name(wan_stock[m - 1]);
}

static bool wan_method_present(const vg_ratio_result *r, size_t m)
{
	return m == 0 || r->stock_bytes[wan_stock[m - 1]]->len == r->updates;
}

static wan_stats wan_compute(const vg_ratio_result *r, const vg_wanprofile *p, size_t m)
{
	g_autofree double *v = g_new(double, r->updates ? r->updates : 1);
	wan_stats s = { 0 };

	if (!r->updates)
		return s;
	wan_times(r, p, m, v);
	s.under100 = vg_wan_share_below(v, r->updates, 100.0);
	s.under200 = vg_wan_share_below(v, r->updates, 200.0);
	s.p50 = vg_wan_quantile(v, r->updates, 0.5);
	s.p90 = vg_wan_quantile(v, r->updates, 0.9);
	s.p99 = vg_wan_quantile(v, r->updates, 0.99);
	return s;
}

static void print_tables(const char *path, const vg_ratio_result *r, const vg_ratio_options *o)
{
	const vg_ratio_totals *t = main_totals(r);
	uint64_t seg = segment_stage_bytes(t), z = zlib_stage_bytes(t);
	const vg_wanprofile *profiles;
	size_t n_prof, pi, m;
	uint64_t hextile = r->stock_total[VG_STOCKENC_HEXTILE];
	guint i;
	int k;

	printf("trace %s: %dx%d, %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT " updates\n",
	       path, r->width, r->height, r->frames, r->updates);
	printf("main pipeline: %s, column width %d, anchor bits %d, min height %d, similar run %d, "
	       "motion %s, zlib level %d, zstd level %d, segment step on %d thread%s\n\n",
	       vg_ratio_variant_name(g_ptr_array_index(r->variants, 0)), o->params.column_width,
	       o->params.anchor_bits, o->params.min_height, o->params.similar_run,
	       o->no_motion ? "off" : "on", o->zlib_level, o->zstd_level,
	       vg_workers_parts(o->workers), vg_workers_parts(o->workers) == 1 ? "" : "s");

	printf("Table 8: bytes after each stage (stage ratio = bytes before / bytes after)\n");
	printf("  %-34s %14s %10s\n", "stage", "bytes", "ratio");
	printf("  %-34s %14" G_GUINT64_FORMAT " %10s\n", "raw frames (w x h x 4 each)", r->raw_bytes, "");
	printf("  %-34s %14" G_GUINT64_FORMAT " %10.2f\n", "differencing (changed px x 4)",
	       r->diff_bytes, ratio_of(r->raw_bytes, r->diff_bytes));
	printf("  %-34s %14" G_GUINT64_FORMAT " %10.2f\n", "2-D segments, before zlib", seg,
	       ratio_of(r->diff_bytes, seg));
	printf("  %-34s %14" G_GUINT64_FORMAT " %10.2f\n", "zlib (Varg bodies)", z, ratio_of(seg, z));
	printf("  %-34s %14" G_GUINT64_FORMAT " %10.2f\n", "total, with RFB framing", t->wire_bytes,
	       ratio_of(r->raw_bytes, t->wire_bytes));
	printf("  segments %" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " as pixels (%" G_GUINT64_FORMAT
	       " bytes at 3 a pixel, coded to %" G_GUINT64_FORMAT ", compressed to %" G_GUINT64_FORMAT
	       "), %" G_GUINT64_FORMAT
	       " as fingerprints (%" G_GUINT64_FORMAT
	       " pixel bytes saved; %" G_GUINT64_FORMAT " of them in %" G_GUINT64_FORMAT
	       " REPEATs), %" G_GUINT64_FORMAT " SHA-1 checks, %" G_GUINT64_FORMAT
	       " repair rects; viewer: %s\n",
	       t->sender.segments, t->sender.literal_segments, t->sender.literal_bytes,
	       t->sender.literal_coded_bytes, t->sender.literal_wire_bytes,
	       t->sender.fingerprint_segments, t->sender.fingerprinted_bytes,
	       t->sender.repeated_segments, t->sender.repeats, t->sender.checks,
	       t->repair_rects, t->exact ? "exact" : "DIFFERS");
	if (t->sender.model_updates) {
		printf("  literal pixels by the pixel model in %" G_GUINT64_FORMAT
		       " updates; the model holds %.1f MB at each end (%zu bytes)\n\n",
		       t->sender.model_updates, (double)vg_pixmodel_bytes() / 1e6, vg_pixmodel_bytes());
	} else {
		printf("  literal pixels by method:");
		for (m = 0; m < VG_LIT_METHODS; m++)
			printf(" %s %" G_GUINT64_FORMAT "%s", vg_lit_method_name((unsigned)m),
			       t->sender.literal_pixels[m], m + 1 < VG_LIT_METHODS ? "," : "\n\n");
	}

	printf("Table 9: time per update, ms (mean / 90th percentile)\n");
	printf("  %-44s %8.2f %8.2f\n", "differencing", mean_of(t->diff_ms), p90_of(t->diff_ms));
	printf("  %-44s %8.2f %8.2f\n", "movement estimation + segmentation + hashes",
	       mean_of(t->seg_ms), p90_of(t->seg_ms));
	printf("  %-44s %8.2f %8.2f\n", "sender encode incl. zlib", mean_of(t->enc_ms),
	       p90_of(t->enc_ms));
	printf("  %-44s %8.2f %8.2f\n", "total (diff + segment + encode)", mean_of(t->upd_ms),
	       p90_of(t->upd_ms));
	printf("  %-44s %8.2f %8.2f\n", "SHA-1 (part of the encode time)", mean_of(t->sha1_ms),
	       p90_of(t->sha1_ms));
	printf("  %-44s %8.2f %8.2f\n\n", "viewer decode (cache and SHA-1 incl.)",
	       mean_of(t->dec_ms), p90_of(t->dec_ms));

	printf("Table 12: total bytes per method (ratio against raw frames and against Hextile)\n");
	printf("  %-34s %14s %10s %10s %10s  %s\n", "method", "bytes", "vs raw", "vs hextile", "ms",
	       "viewer");
	for (i = 0; i < r->variants->len; i++) {
		const vg_ratio_variant *v = g_ptr_array_index(r->variants, i);
		const vg_ratio_totals *vt = vg_ratio_variant_totals(v);
		double ms = 0;
		guint j;

		for (j = 0; j < vt->upd_ms->len; j++)
			ms += g_array_index(vt->upd_ms, double, j);
		printf("  %-34s %14" G_GUINT64_FORMAT " %10.2f %10.2f %10.1f  %s", vg_ratio_variant_name(v),
		       vt->wire_bytes, ratio_of(r->raw_bytes, vt->wire_bytes),
		       ratio_of(hextile, vt->wire_bytes), ms, vt->exact ? "exact" : "DIFFERS");
		if (vt->gap_segments)
			printf(" (+%" G_GUINT64_FORMAT " static tiles over its gaps)", vt->gap_segments);
		printf("\n");
	}
	if (o->stock) {
		for (k = 0; k < VG_STOCKENC_COUNT; k++) {
			g_autofree char *name = g_strdup_printf("LibVNCServer %s", vg_stockenc_name(k));
			printf("  %-34s %14" G_GUINT64_FORMAT " %10.2f %10.2f %10.1f\n", name,
			       r->stock_total[k], ratio_of(r->raw_bytes, r->stock_total[k]),
			       ratio_of(hextile, r->stock_total[k]), (double)r->stock_ns[k] / 1e6);
		}
	}
	printf("  (ms: Varg rows differ + segment + encode; stock rows rfbSendFramebufferUpdate only)\n");
	if (r->cursors)
		printf("  pointer shapes, apart: %" G_GUINT64_FORMAT " records, %" G_GUINT64_FORMAT
		       " bytes as CURSOR messages, %" G_GUINT64_FORMAT " as rich cursors\n",
		       r->cursors, r->cursor_bytes, r->rich_cursor_bytes);
	printf("\n");

	printf("Formula 1: communication time per update, 2L + S/(B*R) + C, ms\n");
	printf("  %-20s %-8s %9s %9s %9s %8s %8s\n", "network", "method", "p50", "p90", "p99",
	       "<100ms", "<200ms");
	profiles = vg_wan_profiles(&n_prof);
	for (pi = 0; pi < n_prof; pi++) {
		for (m = 0; m < N_WAN_METHODS; m++) {
			wan_stats s;

			if (!wan_method_present(r, m))
				continue;
			s = wan_compute(r, &profiles[pi], m);
			printf("  %-20s %-8s %9.1f %9.1f %9.1f %7.1f%% %7.1f%%\n",
			       m == 0 ? profiles[pi].name : "", wan_method_name(m), s.p50, s.p90, s.p99,
			       100 * s.under100, 100 * s.under200);
		}
	}
}

static void json_timing(GString *j, const GArray *a)
{
	g_string_append_printf(j, "\"ms_mean\": %.4f, \"ms_p90\": %.4f", mean_of(a), p90_of(a));
}

static char *make_json(const vg_ratio_result *r, const vg_ratio_options *o)
{
	const vg_ratio_totals *t = main_totals(r);
	GString *j = g_string_new("{\n");
	const vg_wanprofile *profiles;
	size_t n_prof, pi, m;
	guint i;
	int k;

	g_string_append_printf(j, "  \"width\": %d, \"height\": %d,\n", r->width, r->height);
	g_string_append_printf(j, "  \"frames\": %" G_GUINT64_FORMAT ",\n", r->frames);
	g_string_append_printf(j, "  \"updates\": %" G_GUINT64_FORMAT ",\n", r->updates);
	g_string_append_printf(j, "  \"raw_bytes\": %" G_GUINT64_FORMAT ",\n", r->raw_bytes);
	g_string_append_printf(j, "  \"method\": \"%s\",\n",
			       vg_ratio_variant_name(g_ptr_array_index(r->variants, 0)));
	g_string_append_printf(j,
			       "  \"params\": {\"column_width\": %d, \"anchor_bits\": %d, "
			       "\"min_height\": %d, \"similar_run\": %d, \"motion\": %s, "
			       "\"zlib_level\": %d, \"zstd_level\": %d},\n",
			       o->params.column_width, o->params.anchor_bits, o->params.min_height,
			       o->params.similar_run, o->no_motion ? "false" : "true", o->zlib_level,
			       o->zstd_level);
	g_string_append(j, "  \"stages\": {\n");
	g_string_append_printf(j, "    \"diff\": {\"bytes\": %" G_GUINT64_FORMAT ", \"ratio\": %.4f, ",
			       r->diff_bytes, ratio_of(r->raw_bytes, r->diff_bytes));
	json_timing(j, t->diff_ms);
	g_string_append_printf(j, "},\n    \"segment\": {\"bytes\": %" G_GUINT64_FORMAT
			       ", \"ratio\": %.4f, \"segments\": %" G_GUINT64_FORMAT
			       ", \"literal_segments\": %" G_GUINT64_FORMAT
			       ", \"fingerprint_segments\": %" G_GUINT64_FORMAT
			       ", \"literal_bytes\": %" G_GUINT64_FORMAT
			       ", \"literal_coded_bytes\": %" G_GUINT64_FORMAT
			       ", \"literal_wire_bytes\": %" G_GUINT64_FORMAT
			       ", \"repair_rects\": %" G_GUINT64_FORMAT
			       ", \"model_updates\": %" G_GUINT64_FORMAT ", ",
			       segment_stage_bytes(t), ratio_of(r->diff_bytes, segment_stage_bytes(t)),
			       t->sender.segments, t->sender.literal_segments,
			       t->sender.fingerprint_segments, t->sender.literal_bytes,
			       t->sender.literal_coded_bytes, t->sender.literal_wire_bytes, t->repair_rects,
			       t->sender.model_updates);
	g_string_append(j, "\"literal_pixels\": {");
	for (m = 0; m < VG_LIT_METHODS; m++)
		g_string_append_printf(j, "%s\"%s\": %" G_GUINT64_FORMAT, m ? ", " : "",
				       vg_lit_method_name((unsigned)m), t->sender.literal_pixels[m]);
	g_string_append(j, "}, ");
	json_timing(j, t->seg_ms);
	g_string_append_printf(j, "},\n    \"zlib\": {\"bytes\": %" G_GUINT64_FORMAT ", \"ratio\": %.4f, ",
			       zlib_stage_bytes(t),
			       ratio_of(segment_stage_bytes(t), zlib_stage_bytes(t)));
	json_timing(j, t->enc_ms);
	g_string_append_printf(j, "},\n    \"sha1\": {\"checks\": %" G_GUINT64_FORMAT ", ",
			       t->sender.checks);
	json_timing(j, t->sha1_ms);
	g_string_append(j, "},\n");
	g_string_append(j, "    \"viewer\": {");
	json_timing(j, t->dec_ms);
	g_string_append(j, "},\n");
	g_string_append(j, "    \"total\": {");
	json_timing(j, t->upd_ms);
	g_string_append(j, "}\n  },\n");
	g_string_append_printf(j, "  \"total_bytes\": %" G_GUINT64_FORMAT ",\n", t->wire_bytes);
	g_string_append_printf(j, "  \"total_ratio\": %.4f,\n", ratio_of(r->raw_bytes, t->wire_bytes));
	g_string_append_printf(j, "  \"varg_rect_bytes\": %" G_GUINT64_FORMAT ",\n", t->rect_bytes);
	g_string_append_printf(j,
			       "  \"cursors\": {\"records\": %" G_GUINT64_FORMAT ", \"varg_bytes\": %"
			       G_GUINT64_FORMAT ", \"rich_bytes\": %" G_GUINT64_FORMAT "},\n",
			       r->cursors, r->cursor_bytes, r->rich_cursor_bytes);
	g_string_append_printf(j, "  \"exact\": %s,\n  \"inexact_updates\": %" G_GUINT64_FORMAT ",\n",
			       t->exact ? "true" : "false", t->inexact_updates);
	g_string_append(j, "  \"segmenters\": {");
	for (i = 0; i < r->variants->len; i++) {
		const vg_ratio_variant *v = g_ptr_array_index(r->variants, i);
		const vg_ratio_totals *vt = vg_ratio_variant_totals(v);

		g_string_append_printf(j,
				       "%s\n    \"%s\": {\"bytes\": %" G_GUINT64_FORMAT
				       ", \"ratio\": %.4f, \"exact\": %s, \"gap_segments\": %"
				       G_GUINT64_FORMAT "}",
				       i ? "," : "", vg_ratio_variant_name(v), vt->wire_bytes,
				       ratio_of(r->raw_bytes, vt->wire_bytes), vt->exact ? "true" : "false",
				       vt->gap_segments);
	}
	g_string_append(j, "\n  },\n  \"encodings\": {");
	for (k = 0; k < VG_STOCKENC_COUNT && o->stock; k++)
		g_string_append_printf(j,
				       "%s\n    \"%s\": {\"bytes\": %" G_GUINT64_FORMAT
				       ", \"ratio\": %.4f, \"ms_total\": %.3f}",
				       k ? "," : "", vg_stockenc_name(k), r->stock_total[k],
				       ratio_of(r->raw_bytes, r->stock_total[k]),
				       (double)r->stock_ns[k] / 1e6);
	g_string_append(j, "\n  },\n  \"wan\": {");
	profiles = vg_wan_profiles(&n_prof);
	for (pi = 0; pi < n_prof; pi++) {
		bool first = true;

		g_string_append_printf(j, "%s\n    \"%s\": {", pi ? "," : "", profiles[pi].name);
		for (m = 0; m < N_WAN_METHODS; m++) {
			wan_stats s;

			if (!wan_method_present(r, m))
				continue;
			s = wan_compute(r, &profiles[pi], m);
			g_string_append_printf(j,
					       "%s\n      \"%s\": {\"p50_ms\": %.3f, \"p90_ms\": %.3f, "
					       "\"p99_ms\": %.3f, \"share_under_100ms\": %.4f, "
					       "\"share_under_200ms\": %.4f}",
					       first ? "" : ",", wan_method_name(m), s.p50, s.p90, s.p99,
					       s.under100, s.under200);
			first = false;
		}
		g_string_append(j, "\n    }");
	}
	g_string_append(j, "\n  }\n}\n");
	return g_string_free(j, FALSE);
}

/* Draws one CDF panel per network with gnuplot. */
static int make_plot(const char *out, const vg_ratio_result *r)
{
	g_autofree char *dir = NULL, *script = NULL, *sp = NULL, *gp = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GString) s = g_string_new(NULL);
	const vg_wanprofile *profiles;
	size_t n_prof, pi, m;
	const char *term;
	int status = 0, rc = VG_EIO;

	if (!(gp = g_find_program_in_path("gnuplot"))) {
		vg_error("--plot needs gnuplot, which is not installed (Debian: apt-get install gnuplot-nox)");
		return VG_ENOENT;
	}
	if (g_str_has_suffix(out, ".svg"))
		term = "svg size 1200,800";
	else if (g_str_has_suffix(out, ".png"))
		term = "png size 1200,800";
	else {
		vg_error("--plot: %s: the name must end in .png or .svg", out);
		return VG_EINVAL;
	}
	if (!(dir = g_dir_make_tmp("varg-plot-XXXXXX", &error))) {
		vg_error("--plot: %s", error->message);
		return VG_EIO;
	}
	profiles = vg_wan_profiles(&n_prof);
	for (pi = 0; pi < n_prof; pi++) {
		for (m = 0; m < N_WAN_METHODS; m++) {
			g_autofree double *v = g_new(double, r->updates ? r->updates : 1);
			g_autofree char *f = g_strdup_printf("%s/%zu-%zu.dat", dir, pi, m);
			g_autoptr(GString) d = g_string_new(NULL);
			guint i;

			if (!wan_method_present(r, m) || !r->updates)
				continue;
			wan_times(r, &profiles[pi], m, v);
			vg_wan_quantile(v, r->updates, 0.5); /* sorts */
			for (i = 0; i < r->updates; i++)
				g_string_append_printf(d, "%.4f %.5f\n", v[i], (double)(i + 1) / r->updates);
			if (!g_file_set_contents(f, d->str, (gssize)d->len, &error)) {
				vg_error("--plot: %s", error->message);
				goto out;
			}
		}
	}
	g_string_append_printf(s, "set terminal %s\nset output '%s'\n", term, out);
	g_string_append(s, "set multiplot layout 2,3 title 'Communication time per update (Formula 1)'\n"
			   "set logscale x\nset xlabel 'ms'\nset ylabel 'share of updates'\n"
			   "set yrange [0:1]\nset key bottom right\n");
	for (pi = 0; pi < n_prof; pi++) {
		bool first = true;

		g_string_append_printf(s, "set title '%s'\nplot ", profiles[pi].name);
		for (m = 0; m < N_WAN_METHODS; m++) {
			if (!wan_method_present(r, m) || !r->updates)
				continue;
			g_string_append_printf(s, "%s'%s/%zu-%zu.dat' using 1:2 with steps title '%s'",
					       first ? "" : ", ", dir, pi, m, wan_method_name(m));
			first = false;
		}
		g_string_append(s, first ? "0 notitle\n" : "\n");
	}
	g_string_append(s, "unset multiplot\n");
	sp = g_build_filename(dir, "plot.gp", NULL);
	if (!g_file_set_contents(sp, s->str, (gssize)s->len, &error)) {
		vg_error("--plot: %s", error->message);
		goto out;
	}
	{
		char *argv[] = { gp, sp, NULL };
		g_autofree char *err_out = NULL;

		if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
				  &err_out, &status, &error)) {
			vg_error("--plot: cannot run gnuplot: %s", error->message);
			goto out;
		}
		if (!g_spawn_check_wait_status(status, NULL)) {
			g_strstrip(err_out);
			vg_error("--plot: gnuplot failed: %s", *err_out ? err_out : "no message");
			goto out;
		}
	}
	rc = VG_OK;
out:
	if (dir) {
		g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
		const char *name;

		while (d && (name = g_dir_read_name(d))) {
			g_autofree char *f = g_build_filename(dir, name, NULL);
			g_unlink(f);
		}
		g_rmdir(dir);
	}
	return rc;
}

/* Parses "PARAM=A,B,C" for --sweep into the parameter's field and values. */
static int32_t *sweep_field(vg_ratio_options *o, const char *name)
{
	if (strcmp(name, "column-width") == 0)
		return &o->params.column_width;
	if (strcmp(name, "anchor-bits") == 0)
		return &o->params.anchor_bits;
	if (strcmp(name, "min-height") == 0)
		return &o->params.min_height;
	if (strcmp(name, "similar-run") == 0)
		return &o->params.similar_run;
	if (strcmp(name, "zstd-level") == 0)
		return (int32_t *)&o->zstd_level;
	return NULL;
}

static int run_sweep(const char *path, vg_ratio_options *o, const char *spec)
{
	g_auto(GStrv) kv = g_strsplit(spec, "=", 2);
	g_auto(GStrv) values = NULL;
	int32_t *field, saved;
	size_t i;

	if (!kv[0] || !kv[1] || !(field = sweep_field(o, kv[0])))
		return vg__trace_usage_error("--sweep: expected PARAM=A,B,... with PARAM one of "
					     "column-width, anchor-bits, min-height, similar-run, zstd-level");
	values = g_strsplit(kv[1], ",", -1);
	saved = *field;
	for (i = 0; values[i]; i++) {
		char *end;
		long val = strtol(values[i], &end, 10);

		if (!*values[i] || *end || val < 0 || val > 100000)
			return vg__trace_usage_error("--sweep: '%s' is not a number", values[i]);
		*field = (int32_t)val;
		if (vg_segparams_check(&o->params) || o->zlib_level > 9 || o->zstd_level < 1 ||
		    o->zstd_level > 19)
			return vg__trace_usage_error("--sweep: %s=%ld is out of range", kv[0], val);
	}
	*field = saved;
	o->variants = false;
	o->stock = false;
	printf("%-20s %14s %10s %8s %8s %8s %10s %s\n", "param", "bytes", "ratio", "diff", "segment",
	       "zlib", "ms/update", "viewer");
	for (i = 0; values[i]; i++) {
		vg_ratio_result r;
		const vg_ratio_totals *t;
		g_autofree char *label = g_strdup_printf("%s=%s", kv[0], values[i]);

		*field = (int32_t)strtol(values[i], NULL, 10);
		if (vg_ratio_run(path, o, &r)) {
			vg_ratio_result_clear(&r);
			return VG__EXIT_FAIL;
		}
		t = main_totals(&r);
		printf("%-20s %14" G_GUINT64_FORMAT " %10.2f %8.2f %8.2f %8.2f %10.2f %s\n", label,
		       t->wire_bytes, ratio_of(r.raw_bytes, t->wire_bytes),
		       ratio_of(r.raw_bytes, r.diff_bytes),
		       ratio_of(r.diff_bytes, segment_stage_bytes(t)),
		       ratio_of(segment_stage_bytes(t), zlib_stage_bytes(t)), mean_of(t->upd_ms),
		       t->exact ? "exact" : "DIFFERS");
		fflush(stdout);
		if (!t->exact) {
			vg_error("%s: the viewer's frame differed from the trace's (after %" G_GUINT64_FORMAT
				 " updates, or at the end)", label, t->inexact_updates);
			vg_ratio_result_clear(&r);
			return VG__EXIT_FAIL;
		}
		vg_ratio_result_clear(&r);
	}
	return VG__EXIT_OK;
}

int vg__trace_ratio(int argc, char **argv)
{
	vg_ratio_options o;
	int cw = -1, ab = -1, mh = -1, sr = -1, zl = 6, tl = -1, fp_bits = -1, group = -1;
	int zstd = VG_SENDER_ZSTD_LEVEL, zwin = VG_ZSTD_WINDOW_LOG_DEFAULT;
	int threads = vg_workers_default_threads();
	gint64 cache_size = -1;
	gboolean trace_damage = FALSE, no_motion = FALSE, no_moves = FALSE, no_indexed = FALSE,
		 no_repeat_within = FALSE, no_pixmodel = FALSE,
		 no_stock = FALSE, no_variants = FALSE, quiet = FALSE;
	g_autofree char *json = NULL, *plot = NULL, *segmenter = NULL, *sweep = NULL;
	GOptionEntry entries[] = {
		{ "segmenter", 's', 0, G_OPTION_ARG_STRING, &segmenter,
		  "Main pipeline's segmenter: varg (default), static, content2d, karprabin", "NAME" },
		{ "column-width", 0, 0, G_OPTION_ARG_INT, &cw, "Varg column width w (16)", "PX" },
		{ "anchor-bits", 0, 0, G_OPTION_ARG_INT, &ab, "Anchor one row in 2^k (3)", "K" },
		{ "min-height", 0, 0, G_OPTION_ARG_INT, &mh, "Minimum segment height m (16)", "ROWS" },
		{ "similar-run", 0, 0, G_OPTION_ARG_INT, &sr,
		  "Runs of >= s identical rows are one segment; 0 = off (8)", "S" },
		{ "no-motion", 0, 0, G_OPTION_ARG_NONE, &no_motion,
		  "Main pipeline without movement estimation", NULL },
		{ "no-moves", 0, 0, G_OPTION_ARG_NONE, &no_moves,
		  "Sender: moved content as segments, never a MOVE the viewer copies", NULL },
		{ "no-indexed", 0, 0, G_OPTION_ARG_NONE, &no_indexed,
		  "Sender: no INDEXED literal blocks (the colour table kept for the connection; with --no-pixmodel)", NULL },
		{ "no-repeat-within", 0, 0, G_OPTION_ARG_NONE, &no_repeat_within,
		  "Sender: no REPEATs of segments of their own update", NULL },
		{ "no-pixmodel", 0, 0, G_OPTION_ARG_NONE, &no_pixmodel,
		  "Sender: literal pixels by the literal methods and zstd only, never the pixel model", NULL },
		{ "zlib-level", 'z', 0, G_OPTION_ARG_INT, &zl,
		  "Deflate level of the Zlib encoding (6)", "0-9" },
		{ "zstd-level", 0, 0, G_OPTION_ARG_INT, &zstd,
		  "zstd level of the Varg sender (9)", "1-19" },
		{ "zstd-window", 0, 0, G_OPTION_ARG_INT, &zwin,
		  "The viewer's zstd window, log2 bytes (24: 16 MiB)", "20-27" },
		{ "tight-level", 0, 0, G_OPTION_ARG_INT, &tl, "Tight compress level, lossless (9)", "0-9" },
		{ "fp-bits", 0, 0, G_OPTION_ARG_INT, &fp_bits, "Optimistic fingerprint bits, 8-64 (40)", "BITS" },
		{ "group-size", 0, 0, G_OPTION_ARG_INT, &group,
		  "Fingerprinted segments per SHA-1 check, 1-255 (20)", "N" },
		{ "cache-size", 0, 0, G_OPTION_ARG_INT64, &cache_size, "Viewer's segment cache capacity (in memory; 256 MB)", "BYTES" },
		{ "threads", 0, 0, G_OPTION_ARG_INT, &threads,
		  "Threads beside the main one that share each big update's differ and segment step, as "
		  "varg-server's (default: the processors less one; 0: one thread)", "N" },
		{ "trace-rects", 0, 0, G_OPTION_ARG_NONE, &trace_damage,
		  "Send each record's own rectangles, not the differ's", NULL },
		{ "no-stock", 0, 0, G_OPTION_ARG_NONE, &no_stock, "Skip LibVNCServer's encoders", NULL },
		{ "no-variants", 0, 0, G_OPTION_ARG_NONE, &no_variants,
		  "Run only the main pipeline (no Table 12 variants)", NULL },
		{ "sweep", 0, 0, G_OPTION_ARG_STRING, &sweep,
		  "One line per value of a parameter, e.g. column-width=8,16,32", "PARAM=A,B,..." },
		{ "json", 'j', 0, G_OPTION_ARG_FILENAME, &json, "Write every figure as JSON", "FILE" },
		{ "plot", 'p', 0, G_OPTION_ARG_FILENAME, &plot,
		  "Draw the communication-time CDFs (gnuplot)", "FILE.png|FILE.svg" },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No progress bar", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionContext *ctx = g_option_context_new("TRACE - compression ratios and times (Tables 8, 9, 12, Formula 1)");
	vg_ratio_result r = { 0 };
	int status = VG__EXIT_FAIL;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx,
		"Runs every update of TRACE through the Varg pipeline (differ, movement\n"
		"estimation, segmenter, sender, receiver) and LibVNCServer's Raw, Hextile,\n"
		"Zlib, Tight and ZRLE encoders, and prints the bytes and times of each.\n"
		"The --no-X switches are the sender's choices, for measuring what each\n"
		"coding saves: the receiver of protocol 1.0 understands every coding.");
	if (!vg__trace_parse_options(ctx, &argc, &argv))
		return VG__EXIT_USAGE;
	if (argc != 2)
		return vg__trace_usage_error(argc < 2 ? "a TRACE is required" : "one TRACE only");

	vg_ratio_options_init(&o);
	if (segmenter && vg_segmethod_parse(segmenter, &o.params.method))
		return vg__trace_usage_error("--segmenter: unknown method '%s'", segmenter);
	vg_segparams_init(&o.params, o.params.method);
	if (cw >= 0)
		o.params.column_width = cw;
	if (ab >= 0)
		o.params.anchor_bits = ab;
	if (mh >= 0)
		o.params.min_height = mh;
	if (sr >= 0)
		o.params.similar_run = sr;
	if ((cw == 0 || cw < -1) || ab < -1 || mh == 0 || mh < -1 || sr < -1 ||
	    vg_segparams_check(&o.params))
		return vg__trace_usage_error("segmenter parameters out of range");
	if (zl < 0 || zl > 9)
		return vg__trace_usage_error("--zlib-level must be 0..9");
	if (zstd < 1 || zstd > 19)
		return vg__trace_usage_error("--zstd-level must be 1..19");
	if (zwin < VG_ZSTD_WINDOW_LOG_MIN || zwin > VG_ZSTD_WINDOW_LOG_MAX)
		return vg__trace_usage_error("--zstd-window must be %d..%d", VG_ZSTD_WINDOW_LOG_MIN,
					     VG_ZSTD_WINDOW_LOG_MAX);
	if (tl < -1 || tl > 9)
		return vg__trace_usage_error("--tight-level must be 0..9");
	if (fp_bits != -1 && (fp_bits < 8 || fp_bits > 64))
		return vg__trace_usage_error("--fp-bits must be 8..64");
	if (group != -1 && (group < 1 || group > 255))
		return vg__trace_usage_error("--group-size must be 1..255");
	if (cache_size != -1 && cache_size < 1)
		return vg__trace_usage_error("--cache-size must be a positive number of bytes");
	if (threads < 0 || threads >= VG_WORKERS_MAX)
		return vg__trace_usage_error("--threads must be 0..%d", VG_WORKERS_MAX - 1);
	o.fp_bits = fp_bits > 0 ? (unsigned)fp_bits : 0;
	o.group_size = group > 0 ? (unsigned)group : 0;
	o.cache_size = cache_size > 0 ? (uint64_t)cache_size : 0;
	o.zlib_level = zl;
	o.zstd_level = zstd;
	o.zstd_window_log = (unsigned)zwin;
	o.stock_cfg.zlib_level = zl;
	if (tl >= 0)
		o.stock_cfg.tight_level = tl;
	o.no_motion = no_motion;
	o.no_moves = no_moves;
	o.no_indexed = no_indexed;
	o.no_repeat_within = no_repeat_within;
	o.no_pixmodel = no_pixmodel;
	o.trace_damage = trace_damage;
	o.stock = !no_stock;
	o.variants = !no_variants;
	o.progress = !quiet && isatty(STDERR_FILENO);
	if (plot && !g_str_has_suffix(plot, ".png") && !g_str_has_suffix(plot, ".svg"))
		return vg__trace_usage_error("--plot: the name must end in .png or .svg");
	if (sweep && (json || plot))
		return vg__trace_usage_error("--sweep prints a table only; drop --json and --plot");
	if (vg_workers_new(threads, &o.workers)) {
		vg_error("cannot start %d threads", threads);
		return VG__EXIT_FAIL;
	}
	if (sweep) {
		status = run_sweep(argv[1], &o, sweep);
		goto out;
	}

	if (vg_ratio_run(argv[1], &o, &r))
		goto out;
	if (r.updates == 0) {
		vg_error("%s: no frame changes anything; nothing to measure", argv[1]);
		goto out;
	}
	print_tables(argv[1], &r, &o);
	if (json) {
		g_autofree char *text = make_json(&r, &o);
		g_autoptr(GError) error = NULL;

		if (!g_file_set_contents(json, text, -1, &error)) {
			vg_error("%s", error->message);
			goto out;
		}
	}
	if (plot && make_plot(plot, &r))
		goto out;
	{
		const vg_ratio_totals *t = main_totals(&r);
		guint i;

		for (i = 0; i < r.variants->len; i++) {
			if (!vg_ratio_variant_totals(g_ptr_array_index(r.variants, i))->exact) {
				vg_error("%s: the viewer's frame differed from the trace's (after %" G_GUINT64_FORMAT
					 " updates, or at the end)",
					 vg_ratio_variant_name(g_ptr_array_index(r.variants, i)),
					 vg_ratio_variant_totals(g_ptr_array_index(r.variants, i))->inexact_updates);
				goto out;
			}
		}
		printf("\nvarg viewer after the last update: %s\n", t->exact ? "exact" : "DIFFERS");
	}
	status = VG__EXIT_OK;
out:
	vg_ratio_result_clear(&r);
	vg_workers_free(o.workers);
	return status;
}
