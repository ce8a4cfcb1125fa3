/* The segmenters: exact tiling, stored hashes, determinism, golden files,
 * scroll invariance (vertical, and horizontal with movement estimation). */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_seghash.h"
#include "segment2d/vg_motion.h"
#include "segment2d/vg_segmenter.h"
#include "tests/vg_testscene.h"

/* ---- helpers ---------------------------------------------------------- */

/* Random blocks of colour over noise, so strips have runs of identical
 * rows as well as busy ones. */
static vg_pixbuf *blocky(int32_t w, int32_t h, uint64_t seed)
{
	vg_pixbuf *pb = vg_pixbuf_new(w, h);
	uint64_t st = seed;
	int32_t x, y, i;

	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			vg_pixbuf_row(pb, y)[x] = (uint32_t)vg_testscene_rand(&st) & 0x030303u;
	for (i = 0; i < 12; i++) {
		vg_rect r = vg_rect_make((int32_t)(vg_testscene_rand(&st) % (uint64_t)w),
					 (int32_t)(vg_testscene_rand(&st) % (uint64_t)h),
					 1 + (int32_t)(vg_testscene_rand(&st) % (uint64_t)w),
					 1 + (int32_t)(vg_testscene_rand(&st) % (uint64_t)h));
		vg_pixbuf_fill(pb, r, (uint32_t)vg_testscene_rand(&st) & VG_PIXEL_MASK);
	}
	return pb;
}

/* Checks segs against frame and the changed rects: inside the frame, the
 * stored hash is vg_seghash() of the pixels, every changed pixel covered
 * exactly once and no pixel more than once. */
static void check_tiling(const vg_pixbuf *f, const vg_rect *rects, size_t n,
			 const vg_segdesc *segs, size_t ns)
{
	const int32_t w = f->width, h = f->height;
	uint8_t *cover = g_new0(uint8_t, (size_t)w * h), *want = g_new0(uint8_t, (size_t)w * h);
	size_t i;
	int32_t x, y;

	if (!rects) {
		memset(want, 1, (size_t)w * h);
	}
	for (i = 0; rects && i < n; i++) {
		vg_rect r = vg_rect_intersect(rects[i], vg_pixbuf_rect(f));
		for (y = r.y; y < r.y + r.h && r.w > 0; y++)
			memset(want + (size_t)y * w + r.x, 1, (size_t)r.w);
	}
	for (i = 0; i < ns; i++) {
		vg_rect r = segs[i].rect;
		vg_pixbuf v;

		g_assert_false(vg_rect_is_empty(r));
		g_assert_true(vg_rect_contains(vg_pixbuf_rect(f), r));
		v = vg_pixbuf_view(f, r);
		g_assert_cmphex(segs[i].hash, ==, vg_seghash(&v, (vg_orient)segs[i].orient));
		for (y = r.y; y < r.y + r.h; y++)
			for (x = r.x; x < r.x + r.w; x++) {
				g_assert_cmpint(cover[(size_t)y * w + x], ==, 0);
				cover[(size_t)y * w + x] = 1;
			}
	}
	for (i = 0; i < (size_t)w * h; i++)
		if (want[i])
			g_assert_cmpint(cover[i], ==, 1);
	g_free(cover);
	g_free(want);
}

static void random_rects(uint64_t *st, int32_t w, int32_t h, vg_rect *out, size_t *n)
{
	size_t i;

	*n = 1 + vg_testscene_rand(st) % 5;
	for (i = 0; i < *n; i++) {
		int32_t x = (int32_t)(vg_testscene_rand(st) % (uint64_t)(w + 4)) - 2;
		int32_t y = (int32_t)(vg_testscene_rand(st) % (uint64_t)(h + 4)) - 2;
		out[i] = vg_rect_make(x, y, 1 + (int32_t)(vg_testscene_rand(st) % (uint64_t)w),
				      1 + (int32_t)(vg_testscene_rand(st) % (uint64_t)h));
	}
}

static vg_segparams params(vg_segmethod m, int32_t a, int32_t b, int32_t c, int32_t d,
			   int32_t e)
{
	vg_segparams p;

	vg_segparams_init(&p, m);
	switch (m) {
	case VG_SEGMETHOD_VARG:
		p.column_width = a;
		p.anchor_bits = b;
		p.min_height = c;
		p.similar_run = d;
		p.max_height = e;
		p.similar_chunk = a % 3 == 0 ? 0 : 5;
		break;
	case VG_SEGMETHOD_STATIC:
		p.tile_w = a;
		p.tile_h = b;
		break;
	case VG_SEGMETHOD_CONTENT2D:
		p.big_tile = a;
		p.col_bits = b;
		p.min_width = c;
		p.similar_run = d;
		p.max_height = e;
		p.min_height = MIN(p.min_height, e > 0 ? e : p.min_height);
		break;
	case VG_SEGMETHOD_KARPRABIN:
		p.window = a;
		p.select_bits = b;
		break;
	}
	return p;
}

/* ---- exact tiling ----------------------------------------------------- */

static void test_tiling(void)
{
	static const int32_t sizes[][2] = { { 1, 1 }, { 1, 7 }, { 7, 1 }, { 3, 5 }, { 17, 33 },
					    { 61, 47 }, { 129, 130 }, { 4096, 3 }, { 5, 300 },
					    { 300, 200 } };
	vg_segparams sets[] = {
		params(VG_SEGMETHOD_VARG, 16, 3, 16, 8, 0),
		params(VG_SEGMETHOD_VARG, 1, 0, 1, 0, 0),
		params(VG_SEGMETHOD_VARG, 4, 5, 4, 2, 8),
		params(VG_SEGMETHOD_VARG, 33, 2, 3, 3, 5),
		params(VG_SEGMETHOD_VARG, 4096, 1, 2, 4, 0),
		params(VG_SEGMETHOD_STATIC, 16, 16, 0, 0, 0),
		params(VG_SEGMETHOD_STATIC, 1, 1, 0, 0, 0),
		params(VG_SEGMETHOD_STATIC, 7, 5, 0, 0, 0),
		params(VG_SEGMETHOD_STATIC, 64, 64, 0, 0, 0),
		params(VG_SEGMETHOD_CONTENT2D, 128, 3, 8, 8, 0),
		params(VG_SEGMETHOD_CONTENT2D, 16, 0, 1, 0, 0),
		params(VG_SEGMETHOD_CONTENT2D, 37, 2, 3, 3, 5),
	};
	uint64_t st = 42;
	size_t si, pi;
	int runs = 0;

	for (si = 0; si < G_N_ELEMENTS(sizes); si++) {
		vg_pixbuf *f = blocky(sizes[si][0], sizes[si][1], 1000 + si);

		for (pi = 0; pi < G_N_ELEMENTS(sets); pi++) {
			vg_segmenter *s;
			int trial;

			g_assert_cmpint(vg_segmenter_new(&sets[pi], &s), ==, 0);
			for (trial = 0; trial < 6; trial++) {
				vg_rect rects[8];
				size_t n = 0, ns;
				const vg_segdesc *segs;
				int o;

				if (trial > 0)
					random_rects(&st, f->width, f->height, rects, &n);
				for (o = 0; o < 2; o++) {
					if (o == 1 && sets[pi].method != VG_SEGMETHOD_VARG)
						break;
					g_assert_cmpint(vg_segmenter_run(s, f, trial ? rects : NULL, n,
									 (vg_orient)o, &segs, &ns),
							==, 0);
					check_tiling(f, trial ? rects : NULL, n, segs, ns);
					runs++;
				}
			}
			vg_segmenter_free(s);
		}
		vg_pixbuf_free(f);
	}
	g_test_message("%d segmentations tiled exactly", runs);
}

static void same_segs(const vg_segdesc *a, size_t na, const vg_segdesc *b, size_t nb)
{
	size_t i;

	g_assert_cmpuint(na, ==, nb);
	for (i = 0; i < na; i++) {
		g_assert_true(vg_rect_equal(a[i].rect, b[i].rect));
		g_assert_cmphex(a[i].hash, ==, b[i].hash);
		g_assert_cmpint(a[i].orient, ==, b[i].orient);
		g_assert_cmpint(a[i].kind, ==, b[i].kind);
	}
}

/* Changed rects arriving in any order give the same segments. */
static void test_determinism(void)
{
	vg_pixbuf *doc = vg_testscene_new(VG_SCENE_HEATMAP, 500, 400, 3);
	vg_rect rects[3] = { { 10, 10, 200, 100 }, { 150, 50, 300, 300 }, { 0, 390, 500, 10 } };
	vg_rect rev[3] = { rects[2], rects[1], rects[0] };
	int m;

	for (m = 0; m < 4; m++) {
		vg_segparams p;
		vg_segmenter *a, *b;
		const vg_segdesc *sa, *sb;
		size_t na, nb;

		vg_segparams_init(&p, (vg_segmethod)m);
		g_assert_cmpint(vg_segmenter_new(&p, &a), ==, 0);
		g_assert_cmpint(vg_segmenter_new(&p, &b), ==, 0);
		vg_segmenter_run(a, doc, rects, 3, VG_ORIENT_ROWS, &sa, &na);
		vg_segmenter_run(b, doc, rev, 3, VG_ORIENT_ROWS, &sb, &nb);
		same_segs(sa, na, sb, nb);
		/* Run again on the same segmenter: scratch reuse changes nothing. */
		vg_segmenter_run(b, doc, rects, 3, VG_ORIENT_ROWS, &sb, &nb);
		same_segs(sa, na, sb, nb);
		vg_segmenter_free(a);
		vg_segmenter_free(b);
	}
	vg_pixbuf_free(doc);
}

/* A run cut into parts of bands gives, part after part, the whole run's
 * segments, for every method and both orientations; bands out of range
 * are refused. */
static void test_bands(void)
{
	vg_pixbuf *doc = vg_testscene_new(VG_SCENE_TEXT, 500, 400, 5);
	vg_rect rects[4] = { { 10, 10, 200, 100 }, { 150, 50, 300, 300 }, { 0, 390, 500, 10 },
			     { 480, 0, 20, 400 } };
	int m, o, parts;

	for (m = 0; m < 4; m++)
		for (o = 0; o < 2; o++) {
			const vg_orient orient = o ? VG_ORIENT_COLS : VG_ORIENT_ROWS;
			vg_segparams p;
			vg_segmenter *whole, *part;
			const vg_segdesc *sw, *sp;
			size_t nw, np;
			int32_t nb;

			vg_segparams_init(&p, (vg_segmethod)m);
			g_assert_cmpint(vg_segmenter_new(&p, &whole), ==, 0);
			g_assert_cmpint(vg_segmenter_new(&p, &part), ==, 0);
			nb = vg_segmenter_n_bands(whole, doc, orient);
			g_assert_cmpint(nb, ==, m == VG_SEGMETHOD_VARG ? (o ? 400 : 500) / 16 + !o : 1);
			g_assert_cmpint(vg_segmenter_run_bands(part, doc, rects, 4, orient, 0, nb + 1,
							       &sp, &np), ==, VG_EINVAL);
			g_assert_cmpint(vg_segmenter_run_bands(part, doc, rects, 4, orient, -1, nb,
							       &sp, &np), ==, VG_EINVAL);
			g_assert_cmpint(vg_segmenter_run(whole, doc, rects, 4, orient, &sw, &nw), ==, 0);
			for (parts = 1; parts <= 5; parts++) {
				int32_t cuts[6];
				GArray *all = g_array_new(FALSE, FALSE, sizeof(vg_segdesc));
				int i;

				vg_segmenter_cut(whole, doc, rects, 4, orient, parts, cuts);
				g_assert_cmpint(cuts[0], ==, 0);
				g_assert_cmpint(cuts[parts], ==, nb);
				for (i = 0; i < parts; i++) {
					g_assert_cmpint(cuts[i], <=, cuts[i + 1]);
					g_assert_cmpint(vg_segmenter_run_bands(part, doc, rects, 4, orient,
									       cuts[i], cuts[i + 1],
									       &sp, &np), ==, 0);
					g_array_append_vals(all, sp, (guint)np);
				}
				same_segs(sw, nw, (const vg_segdesc *)(void *)all->data, all->len);
				g_array_free(all, TRUE);
			}
			vg_segmenter_free(whole);
			vg_segmenter_free(part);
		}
	vg_pixbuf_free(doc);
}

static void test_params(void)
{
	vg_segparams p;
	vg_segmenter *s = (vg_segmenter *)&p;
	vg_segmethod m;

	vg_segparams_init(&p, VG_SEGMETHOD_VARG);
	g_assert_cmpint(p.column_width, ==, 16);
	g_assert_cmpint(p.anchor_bits, ==, 3);
	g_assert_cmpint(p.min_height, ==, 16);
	g_assert_cmpint(p.similar_run, ==, 8);
	p.column_width = 0;
	g_assert_cmpint(vg_segmenter_new(&p, &s), ==, -1);
	g_assert_null(s);
	vg_segparams_init(&p, VG_SEGMETHOD_VARG);
	p.similar_run = 1;
	g_assert_cmpint(vg_segparams_check(&p), <, 0);
	g_assert_cmpint(vg_segmethod_parse("content2d", &m), ==, 0);
	g_assert_cmpint(m, ==, VG_SEGMETHOD_CONTENT2D);
	g_assert_cmpstr(vg_segmethod_name(VG_SEGMETHOD_KARPRABIN), ==, "karprabin");
	g_assert_cmpint(vg_segmethod_parse("nope", &m), <, 0);
}

/* A column that is one colour from top to bottom is one similar segment;
 * the Varg anchors never depend on y (the same strip content placed lower
 * is cut at the same rows). */
static void test_similar_and_anchors(void)
{
	vg_pixbuf *f = vg_pixbuf_new(16, 200);
	vg_segparams p;
	vg_segmenter *s;
	const vg_segdesc *segs;
	size_t n;

	vg_segparams_init(&p, VG_SEGMETHOD_VARG);
	p.similar_chunk = 0;
	vg_pixbuf_fill(f, vg_pixbuf_rect(f), 0x123456);
	vg_segmenter_new(&p, &s);
	vg_segmenter_run(s, f, NULL, 0, VG_ORIENT_ROWS, &segs, &n);
	g_assert_cmpuint(n, ==, 1);
	g_assert_cmpint(segs[0].kind, ==, VG_SEG_SIMILAR);
	g_assert_cmpint(segs[0].rect.h, ==, 200);
	/* Chunks of 64, the remainder first; equal chunks hash alike. */
	p.similar_chunk = 64;
	vg_segmenter_free(s);
	vg_segmenter_new(&p, &s);
	vg_segmenter_run(s, f, NULL, 0, VG_ORIENT_ROWS, &segs, &n);
	g_assert_cmpuint(n, ==, 4);
	g_assert_cmpint(segs[0].rect.h, ==, 200 - 3 * 64);
	g_assert_cmpint(segs[1].rect.h, ==, 64);
	g_assert_cmphex(segs[1].hash, ==, segs[3].hash);
	/* max_height caps the chunks too. */
	p.max_height = 50;
	vg_segmenter_free(s);
	vg_segmenter_new(&p, &s);
	vg_segmenter_run(s, f, NULL, 0, VG_ORIENT_ROWS, &segs, &n);
	g_assert_cmpuint(n, ==, 4);
	g_assert_cmpint(segs[3].rect.h, ==, 50);
	vg_segmenter_free(s);
	vg_pixbuf_free(f);
}

/* KARPRABIN: report its coverage and overlap on a heat map. */
static void test_karprabin_coverage(void)
{
	vg_pixbuf *doc = vg_testscene_new(VG_SCENE_HEATMAP, 640, 480, 5);
	static const int32_t cfg[][2] = { { 16, 8 }, { 16, 6 }, { 32, 10 }, { 8, 6 } };
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(cfg); i++) {
		vg_segparams p = params(VG_SEGMETHOD_KARPRABIN, cfg[i][0], cfg[i][1], 0, 0, 0);
		vg_segmenter *s;
		const vg_segdesc *segs;
		size_t n, k;
		int64_t cov, ovl, total = 640 * 480;

		vg_segmenter_new(&p, &s);
		vg_segmenter_run(s, doc, NULL, 0, VG_ORIENT_ROWS, &segs, &n);
		for (k = 0; k < n; k++) {
			vg_pixbuf v = vg_pixbuf_view(doc, segs[k].rect);
			g_assert_cmpint(segs[k].rect.w, ==, cfg[i][0]);
			g_assert_cmphex(segs[k].hash, ==, vg_seghash(&v, VG_ORIENT_ROWS));
		}
		vg_segs_coverage(segs, n, vg_pixbuf_rect(doc), &cov, &ovl);
		g_test_message("karprabin window %d bits %d: %zu segments, coverage %.1f %%, "
			       "overlap %.1f %%",
			       cfg[i][0], cfg[i][1], n, 100.0 * cov / total, 100.0 * ovl / total);
		g_assert_cmpint(cov, >, 0);
		vg_segmenter_free(s);
	}
	vg_pixbuf_free(doc);
}

/* ---- golden files ----------------------------------------------------- */

static char *describe(const vg_segdesc *segs, size_t n)
{
	GString *s = g_string_new(NULL);
	size_t i;

	for (i = 0; i < n; i++)
		g_string_append_printf(s, "%d %d %d %d %d %d %016" G_GINT64_MODIFIER "x\n",
				       segs[i].rect.x, segs[i].rect.y, segs[i].rect.w, segs[i].rect.h,
				       segs[i].orient, segs[i].kind, segs[i].hash);
	return g_string_free(s, FALSE);
}

/* Compares the segments with tests/golden/<name>.txt; with
 * VG_UPDATE_GOLDEN=1 in the environment, rewrites the file instead. */
static void golden(const char *name, const vg_segdesc *segs, size_t n)
{
	const char *top = g_getenv("VG_TOP_SRCDIR");
	g_autofree char *path = g_strdup_printf("%s/tests/golden/%s.txt", top ? top : ".", name);
	g_autofree char *got = describe(segs, n);
	g_autofree char *want = NULL;
	GError *err = NULL;

	if (g_strcmp0(g_getenv("VG_UPDATE_GOLDEN"), "1") == 0) {
		g_assert_true(g_file_set_contents(path, got, -1, &err));
		return;
	}
	if (!g_file_get_contents(path, &want, NULL, &err)) {
		g_test_message("%s: %s", path, err->message);
		g_error_free(err);
		g_test_fail();
		return;
	}
	g_assert_cmpstr(got, ==, want);
}

static void test_golden(void)
{
	vg_pixbuf *heat = vg_testscene_new(VG_SCENE_HEATMAP, 200, 96, 11);
	vg_pixbuf *text = vg_testscene_new(VG_SCENE_TEXT, 96, 80, 12);
	vg_rect part[2] = { { 5, 7, 60, 50 }, { 40, 30, 100, 60 } };
	static const struct {
		const char *name;
		int method, orient, scene;
	} cases[] = {
		{ "varg-heatmap-rows", VG_SEGMETHOD_VARG, VG_ORIENT_ROWS, 0 },
		{ "varg-heatmap-cols", VG_SEGMETHOD_VARG, VG_ORIENT_COLS, 0 },
		{ "varg-text-rows", VG_SEGMETHOD_VARG, VG_ORIENT_ROWS, 1 },
		{ "static-heatmap-part", VG_SEGMETHOD_STATIC, VG_ORIENT_ROWS, 2 },
		{ "content2d-heatmap", VG_SEGMETHOD_CONTENT2D, VG_ORIENT_ROWS, 0 },
		{ "karprabin-text", VG_SEGMETHOD_KARPRABIN, VG_ORIENT_ROWS, 1 },
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		vg_segparams p;
		vg_segmenter *s;
		const vg_segdesc *segs;
		size_t n;

		vg_segparams_init(&p, (vg_segmethod)cases[i].method);
		if (cases[i].method == VG_SEGMETHOD_KARPRABIN)
			p.select_bits = 5;
		vg_segmenter_new(&p, &s);
		vg_segmenter_run(s, cases[i].scene == 1 ? text : heat,
				 cases[i].scene == 2 ? part : NULL, cases[i].scene == 2 ? 2 : 0,
				 (vg_orient)cases[i].orient, &segs, &n);
		golden(cases[i].name, segs, n);
		vg_segmenter_free(s);
	}
	vg_pixbuf_free(heat);
	vg_pixbuf_free(text);
}

/* ---- scroll invariance ------------------------------------------------ */

static int u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return (a > b) - (a < b);
}

typedef struct {
	uint64_t *hashes;
	size_t n;
} hash_set;

static hash_set collect(const vg_segdesc *segs, size_t n)
{
	hash_set h = { g_new(uint64_t, MAX(n, 1)), n };
	size_t i;

	for (i = 0; i < n; i++)
		h.hashes[i] = segs[i].hash;
	qsort(h.hashes, n, sizeof *h.hashes, u64_cmp);
	return h;
}

/* The share of the segment area inside stayed whose hash is in old. */
static double reappeared(const hash_set *old, const vg_segdesc *segs, size_t n, vg_rect stayed)
{
	int64_t total = 0, hit = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		int64_t a = vg_rect_area(vg_rect_intersect(segs[i].rect, stayed));

		total += a;
		if (a > 0 && bsearch(&segs[i].hash, old->hashes, old->n, sizeof(uint64_t), u64_cmp))
			hit += a;
	}
	return total ? (double)hit / (double)total : 1.0;
}

/* The paper's screen: 1280x1024. */
enum { SW = 1280, SH = 1024, MAXD = 200 };

/* Scrolls doc by every offset 1..MAXD (content moving up, or left when
 * horizontal) and measures how much of what stayed on screen comes back
 * with the hashes of the unscrolled frame. With horizontal, movement
 * estimation picks the orientation, as the server would. Returns the
 * smallest share over all offsets; *mean receives the average. */
static double scroll_share(vg_scene_kind kind, const vg_segparams *p, bool horizontal,
			   int32_t step, double *mean)
{
	vg_pixbuf *doc = horizontal ? vg_testscene_new(kind, SW + MAXD, SH, 21)
				    : vg_testscene_new(kind, SW, SH + MAXD, 21);
	vg_pixbuf base = vg_pixbuf_view(doc, vg_rect_make(0, 0, SW, SH));
	vg_orient orient = horizontal ? VG_ORIENT_COLS : VG_ORIENT_ROWS;
	vg_segmenter *s;
	vg_motion *mo = NULL;
	const vg_segdesc *segs;
	size_t n;
	hash_set old;
	double worst = 1.0, sum = 0.0;
	int32_t d;

	vg_segmenter_new(p, &s);
	if (horizontal)
		g_assert_cmpint(vg_motion_new(SW, SH, 0, 0, &mo), ==, 0);
	vg_segmenter_run(s, &base, NULL, 0, orient, &segs, &n);
	old = collect(segs, n);
	for (d = 1; d <= MAXD; d += step) {
		vg_rect view = horizontal ? vg_rect_make(d, 0, SW, SH) : vg_rect_make(0, d, SW, SH);
		vg_rect stayed = horizontal ? vg_rect_make(0, 0, SW - d, SH)
					    : vg_rect_make(0, 0, SW, SH - d);
		vg_pixbuf f = vg_pixbuf_view(doc, view);
		vg_orient o = VG_ORIENT_ROWS;
		double share;

		if (mo) {
			vg_motion_result r;

			vg_motion_reset(mo);
			vg_motion_estimate(mo, &base, NULL, 0, &r);
			vg_motion_estimate(mo, &f, NULL, 0, &r);
			o = r.dir == VG_MOTION_HORIZONTAL ? VG_ORIENT_COLS : VG_ORIENT_ROWS;
		}
		vg_segmenter_run(s, &f, NULL, 0, o, &segs, &n);
		share = reappeared(&old, segs, n, stayed);
		worst = MIN(worst, share);
		sum += share;
	}
	*mean = sum / ((MAXD + step - 1) / step);
	g_free(old.hashes);
	vg_motion_free(mo);
	vg_segmenter_free(s);
	vg_pixbuf_free(doc);
	return worst;
}

static void scroll_case(vg_scene_kind kind, bool horizontal)
{
	static const char *const scene[] = { "heatmap", "text" };
	const char *dir = horizontal ? "horizontal" : "vertical";
	vg_segparams p;
	double worst, mean;
	int m;

	vg_segparams_init(&p, VG_SEGMETHOD_VARG);
	worst = scroll_share(kind, &p, horizontal, 1, &mean);
	g_test_message("varg %s %s scroll by each of 1..%d: reappeared min %.1f %% mean %.1f %%",
		       scene[kind], dir, MAXD, 100 * worst, 100 * mean);
	g_assert_cmpfloat(worst, >=, 0.90);
	for (m = VG_SEGMETHOD_STATIC; m <= VG_SEGMETHOD_CONTENT2D; m++) {
		vg_segparams_init(&p, (vg_segmethod)m);
		/* The comparison methods only inform: every 7th offset. */
		worst = scroll_share(kind, &p, horizontal, 7, &mean);
		g_test_message("%s %s %s scroll by 1, 8, ..%d: reappeared min %.1f %% mean %.1f %%",
			       vg_segmethod_name((vg_segmethod)m), scene[kind], dir, MAXD,
			       100 * worst, 100 * mean);
	}
}

static void test_scroll_heatmap_v(void)
{
	scroll_case(VG_SCENE_HEATMAP, false);
}

static void test_scroll_text_v(void)
{
	scroll_case(VG_SCENE_TEXT, false);
}

static void test_scroll_heatmap_h(void)
{
	scroll_case(VG_SCENE_HEATMAP, true);
}

static void test_scroll_text_h(void)
{
	scroll_case(VG_SCENE_TEXT, true);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/segmenter/params", test_params);
	g_test_add_func("/segmenter/tiling", test_tiling);
	g_test_add_func("/segmenter/determinism", test_determinism);
	g_test_add_func("/segmenter/bands", test_bands);
	g_test_add_func("/segmenter/similar-and-anchors", test_similar_and_anchors);
	g_test_add_func("/segmenter/karprabin-coverage", test_karprabin_coverage);
	g_test_add_func("/segmenter/golden", test_golden);
	g_test_add_func("/segmenter/scroll/heatmap-vertical", test_scroll_heatmap_v);
	g_test_add_func("/segmenter/scroll/text-vertical", test_scroll_text_v);
	g_test_add_func("/segmenter/scroll/heatmap-horizontal", test_scroll_heatmap_h);
	g_test_add_func("/segmenter/scroll/text-horizontal", test_scroll_text_h);
	return g_test_run();
}
