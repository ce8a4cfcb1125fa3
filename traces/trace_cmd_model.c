/* varg-trace model: Equation 1 of the paper (traces/vg_fpmodel.h) for one
 * set of parameters, or swept over one of them (the curves of Figures
 * 28-30). */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "traces/trace_cmd.h"
#include "traces/vg_fpmodel.h"

#define GIB 1073741824.0

/* Parses a finite number, all of text; false if it is not one. */
static bool parse_real(const char *text, double *v)
{
	char *end;

	if (!text || !*text || g_ascii_isspace(*text))
		return false;
	*v = g_ascii_strtod(text, &end);
	return end != text && *end == '\0' && isfinite(*v);
}

/* A size in bytes with an optional binary suffix: 100G = 100 * 2^30. */
static bool parse_size(const char *text, double *v)
{
	static const char suffixes[] = "KMGT";
	g_autofree char *num = NULL;
	const char *s;
	size_t n;

	if (!text || !*text)
		return false;
	n = strlen(text);
	s = strchr(suffixes, g_ascii_toupper(text[n - 1]));
	if (!s)
		return parse_real(text, v);
	num = g_strndup(text, n - 1);
	if (!parse_real(num, v))
		return false;
	*v = ldexp(*v, 10 * (int)(s - suffixes + 1));
	return true;
}

static void print_text(const vg_fpmodel_params *p, const vg_fpmodel_result *r)
{
	printf("Equation 1: two-level fingerprint compression ratio\n");
	printf("  S  data set           %.6g GiB (%.0f bytes)\n", p->data_bytes / GIB, p->data_bytes);
	printf("  R  redundancy         %.6g %%\n", p->redundancy * 100);
	printf("  k  optimistic bits    %.0f\n", p->k);
	printf("  l  conservative bits  %.0f%s\n", p->l, p->l > 0 ? "" : " (one level)");
	printf("  p  group size         %.0f\n", p->p);
	printf("  s  segment size       %.6g bytes\n", p->segment_bytes);
	printf("segments (S/s)          %.0f\n", r->segments);
	printf("unique bytes (S-R)      %.0f (%.3f GiB)\n", r->unique_bytes, r->unique_bytes / GIB);
	printf("fingerprint bytes       %.0f (%.3f GiB)\n", r->fingerprint_bytes, r->fingerprint_bytes / GIB);
	printf("collision bytes         %.0f (%.3f GiB)\n", r->collision_bytes, r->collision_bytes / GIB);
	printf("total bytes             %.0f (%.3f GiB)\n", r->total_bytes, r->total_bytes / GIB);
	printf("compression ratio       %.2f (%.4f; %.4f without collisions)\n",
	       r->ratio, r->ratio, r->ratio_no_collisions);
}

static void print_json(const vg_fpmodel_params *p, const vg_fpmodel_result *r)
{
	printf("{\"S\": %.17g, \"R\": %.17g, \"k\": %.0f, \"l\": %.0f, \"p\": %.0f, \"s\": %.17g, "
	       "\"segments\": %.17g, \"unique_bytes\": %.17g, \"fingerprint_bytes\": %.17g, "
	       "\"collision_bytes\": %.17g, \"total_bytes\": %.17g, \"ratio\": %.17g, "
	       "\"ratio_no_collisions\": %.17g}",
	       p->data_bytes, p->redundancy, p->k, p->l, p->p, p->segment_bytes, r->segments,
	       r->unique_bytes, r->fingerprint_bytes, r->collision_bytes, r->total_bytes, r->ratio,
	       r->ratio_no_collisions);
}

static int run_sweep(const vg_fpmodel_params *base, const vg_fpmodel_sweep *sw, bool json)
{
	g_autofree vg_fpmodel_params *ps = g_new(vg_fpmodel_params, sw->n);
	g_autofree vg_fpmodel_result *rs = g_new(vg_fpmodel_result, sw->n);
	size_t i;

	/* Every point is evaluated before the first line, so a bad range
	 * prints nothing but its error. */
	for (i = 0; i < sw->n; i++) {
		double v = vg_fpmodel_sweep_value(sw, i);

		ps[i] = *base;
		vg_fpmodel_set(&ps[i], sw->var, v);
		if (vg_fpmodel_eval(&ps[i], &rs[i]) != 0)
			return vg__trace_usage_error("--sweep: %s=%g is outside the model's range", sw->name, v);
	}
	if (json)
		printf("[");
	else
		printf("# %s ratio ratio_no_collisions unique_GiB fingerprint_GiB collision_GiB total_GiB\n",
		       sw->name);
	for (i = 0; i < sw->n; i++) {
		const vg_fpmodel_result *r = &rs[i];

		if (json) {
			printf("%s", i ? ",\n " : "");
			print_json(&ps[i], r);
		} else {
			printf("%.6g %.4f %.4f %.4f %.4f %.4f %.4f\n", vg_fpmodel_sweep_value(sw, i),
			       r->ratio, r->ratio_no_collisions, r->unique_bytes / GIB,
			       r->fingerprint_bytes / GIB, r->collision_bytes / GIB, r->total_bytes / GIB);
		}
	}
	if (json)
		printf("]\n");
	return VG__EXIT_OK;
}

int vg__trace_model(int argc, char **argv)
{
	g_autofree char *data = NULL, *red = NULL, *k = NULL, *l = NULL, *p = NULL, *s = NULL;
	g_autofree char *sweep = NULL;
	gboolean json = FALSE, one_level = FALSE;
	GOptionEntry entries[] = {
		{ "data-size", 'S', 0, G_OPTION_ARG_STRING, &data,
		  "Data set size S, bytes or with K/M/G/T (2^10..2^40) (100G)", "SIZE" },
		{ "redundancy", 'R', 0, G_OPTION_ARG_STRING, &red, "Redundancy R, percent of S (75)", "PCT" },
		{ "fp-bits", 'k', 0, G_OPTION_ARG_STRING, &k, "Optimistic fingerprint bits k, 1-160 (40)", "BITS" },
		{ "conservative-bits", 'l', 0, G_OPTION_ARG_STRING, &l,
		  "Conservative fingerprint bits l, 0-512 (160)", "BITS" },
		{ "group-size", 'p', 0, G_OPTION_ARG_STRING, &p,
		  "Segments per conservative fingerprint p (20)", "N" },
		{ "segment-size", 's', 0, G_OPTION_ARG_STRING, &s, "Segment size s in bytes (32)", "BYTES" },
		{ "one-level", '1', 0, G_OPTION_ARG_NONE, &one_level,
		  "One-level fingerprints: l = 0, k = 160 unless given", NULL },
		{ "sweep", 0, 0, G_OPTION_ARG_STRING, &sweep,
		  "Vary one parameter: k=8..64, p=1..60, R=50..100:5, s=..., S=... (GiB), l=...", "NAME=FROM..TO[:STEP]" },
		{ "json", 'j', 0, G_OPTION_ARG_NONE, &json, "Print JSON (an array for --sweep)", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionContext *ctx = g_option_context_new("- Equation 1: two-level fingerprint compression ratio");
	vg_fpmodel_params par;
	vg_fpmodel_sweep sw;
	vg_fpmodel_result r;
	double v;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx,
		"Defaults are the paper's Table 10 (ratio 2.28). --sweep prints one line per value:\n"
		"the value, the ratio with and without collisions, and the unique, fingerprint,\n"
		"collision and total GiB (Figure 28: --sweep k=..., 29: --sweep p=..., 30: --sweep R=...).");
	if (!vg__trace_parse_options(ctx, &argc, &argv))
		return VG__EXIT_USAGE;
	if (argc > 1)
		return vg__trace_usage_error("unexpected argument '%s'", argv[1]);
	vg_fpmodel_defaults(&par);
	if (one_level) {
		par.l = 0;
		par.k = 160;
	}
	if (data && (!parse_size(data, &v) || !(v > 0)))
		return vg__trace_usage_error("--data-size '%s' is not a positive size", data);
	if (data)
		par.data_bytes = v;
	if (red && (!parse_real(red, &v) || v < 0 || v > 100))
		return vg__trace_usage_error("--redundancy '%s' is not a percentage 0-100", red);
	if (red)
		par.redundancy = v / 100;
	if (k && (!parse_real(k, &v) || v != floor(v) || v < 1 || v > 160))
		return vg__trace_usage_error("--fp-bits '%s' is not a whole number 1-160", k);
	if (k)
		par.k = v;
	if (l && one_level)
		return vg__trace_usage_error("--conservative-bits and --one-level exclude each other");
	if (l && (!parse_real(l, &v) || v != floor(v) || v < 0 || v > 512))
		return vg__trace_usage_error("--conservative-bits '%s' is not a whole number 0-512", l);
	if (l)
		par.l = v;
	if (p && (!parse_real(p, &v) || v != floor(v) || v < 1 || v > 1e9))
		return vg__trace_usage_error("--group-size '%s' is not a whole number 1-1000000000", p);
	if (p)
		par.p = v;
	if (s && (!parse_size(s, &v) || !(v >= 1)))
		return vg__trace_usage_error("--segment-size '%s' is not a size of at least 1 byte", s);
	if (s)
		par.segment_bytes = v;
	if (sweep) {
		if (vg_fpmodel_sweep_parse(sweep, &sw) != 0)
			return vg__trace_usage_error("--sweep '%s' is not NAME=FROM..TO[:STEP] with NAME one of "
						     "k l p s R S and at most %d values", sweep, VG_FPMODEL_MAX_POINTS);
		return run_sweep(&par, &sw, json);
	}
	if (vg_fpmodel_eval(&par, &r) != 0)
		return vg__trace_usage_error("the segment size is larger than the data set");
	if (json) {
		print_json(&par, &r);
		printf("\n");
	} else {
		print_text(&par, &r);
	}
	return VG__EXIT_OK;
}
