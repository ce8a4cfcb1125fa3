/* Region differencing against a pixel-by-pixel model. */
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "segment2d/vg_differ.h"
#include "tests/vg_testscene.h"

/* Checks that the reported rects are disjoint, inside the frame, hold
 * every pixel that differs between old and new inside the compared area
 * (in each tile x tile tile, the bounding box of the damage there), and
 * are tight: each has a changed pixel on each of its four edges. */
static void check_changes(const vg_pixbuf *old, const vg_pixbuf *nw, const vg_rect *damage,
			  size_t n_damage, int32_t tile, const vg_rect *ch, size_t n)
{
	const int32_t w = nw->width, h = nw->height;
	uint8_t *cov = g_new0(uint8_t, (size_t)w * h), *dmg = g_new0(uint8_t, (size_t)w * h);
	size_t i;
	int32_t x, y, tx, ty;

	for (ty = 0; ty < h; ty += tile)
		for (tx = 0; tx < w; tx += tile) {
			vg_rect t = vg_rect_make(tx, ty, MIN(tile, w - tx), MIN(tile, h - ty));
			vg_rect b = vg_rect_make(0, 0, 0, 0);

			for (i = 0; i < n_damage; i++)
				b = vg_rect_bounds(b, vg_rect_intersect(damage[i], t));
			for (y = b.y; y < b.y + b.h && b.w > 0; y++)
				memset(dmg + (size_t)y * w + b.x, 1, (size_t)b.w);
		}
	if (!damage)
		memset(dmg, 1, (size_t)w * h);
	for (i = 0; i < n; i++) {
		vg_rect r = ch[i];
		bool top = false, bottom = false, left = false, right = false;

		g_assert_false(vg_rect_is_empty(r));
		g_assert_true(vg_rect_contains(vg_pixbuf_rect(nw), r));
		for (y = r.y; y < r.y + r.h; y++)
			for (x = r.x; x < r.x + r.w; x++) {
				bool diff = dmg[(size_t)y * w + x] &&
					    vg_pixbuf_row(old, y)[x] != vg_pixbuf_row(nw, y)[x];

				g_assert_cmpint(cov[(size_t)y * w + x], ==, 0);
				cov[(size_t)y * w + x] = 1;
				top |= diff && y == r.y;
				bottom |= diff && y == r.y + r.h - 1;
				left |= diff && x == r.x;
				right |= diff && x == r.x + r.w - 1;
			}
		g_assert_true(top && bottom && left && right);
	}
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			if (dmg[(size_t)y * w + x] && vg_pixbuf_row(old, y)[x] != vg_pixbuf_row(nw, y)[x])
				g_assert_cmpint(cov[(size_t)y * w + x], ==, 1);
	g_free(cov);
	g_free(dmg);
}

static void test_random_edits(void)
{
	static const int32_t sizes[][3] = { { 1, 1, 8 },    { 7, 3, 8 },     { 64, 64, 64 },
					    { 65, 130, 64 }, { 300, 200, 32 }, { 1000, 9, 16 } };
	uint64_t st = 9;
	size_t si;

	for (si = 0; si < G_N_ELEMENTS(sizes); si++) {
		const int32_t w = sizes[si][0], h = sizes[si][1];
		vg_pixbuf *cur = vg_pixbuf_new(w, h), *prev = vg_pixbuf_new(w, h);
		vg_differ *d;
		int step;

		g_assert_cmpint(vg_differ_new(w, h, sizes[si][2], &d), ==, 0);
		vg_differ_reset(d, cur);
		for (step = 0; step < 60; step++) {
			vg_rect damage[4];
			const vg_rect *ch;
			size_t n, nd = vg_testscene_rand(&st) % 4, k;
			int e, edits = (int)(vg_testscene_rand(&st) % 6);

			vg_pixbuf_copy(prev, 0, 0, cur);
			for (e = 0; e < edits; e++) {
				vg_rect r = vg_rect_make((int32_t)(vg_testscene_rand(&st) % (uint64_t)w),
							 (int32_t)(vg_testscene_rand(&st) % (uint64_t)h),
							 1 + (int32_t)(vg_testscene_rand(&st) % 40),
							 1 + (int32_t)(vg_testscene_rand(&st) % 40));
				vg_pixbuf_fill(cur, r, (uint32_t)vg_testscene_rand(&st) & VG_PIXEL_MASK);
			}
			for (k = 0; k < nd; k++)
				damage[k] = vg_rect_make(
					(int32_t)(vg_testscene_rand(&st) % (uint64_t)w) - 3,
					(int32_t)(vg_testscene_rand(&st) % (uint64_t)h) - 3,
					(int32_t)(vg_testscene_rand(&st) % (uint64_t)(w + 5)),
					(int32_t)(vg_testscene_rand(&st) % (uint64_t)(h + 5)));
			g_assert_cmpint(vg_differ_update(d, cur, nd ? damage : NULL, nd, &ch, &n), ==, 0);
			check_changes(prev, cur, nd ? damage : NULL, nd, sizes[si][2], ch, n);
			/* Outside the damage the saved frame keeps the old pixels;
			 * bring it in line so the next step's model holds. */
			vg_differ_reset(d, cur);
		}
		vg_differ_free(d);
		vg_pixbuf_free(cur);
		vg_pixbuf_free(prev);
	}
}

/* The saved frame follows the updates; identical frames report nothing. */
/* An update done in parts of tile rows, in any order, as threads would,
 * reports and saves what the whole update does, and keeps the same
 * previous frame; parts cover the tile rows, in order. */
static void test_rows(void)
{
	vg_pixbuf *doc = vg_testscene_new(VG_SCENE_TEXT, 400, 400, 11);
	vg_pixbuf *f[3];
	const vg_rect damage[2] = { { 5, 7, 300, 40 }, { 100, 150, 250, 200 } };
	vg_differ *whole, *parts;
	int k, n_parts;

	f[0] = vg_testscene_frame(doc, 0, 0, 330, 301);
	f[1] = vg_testscene_frame(doc, 0, 13, 330, 301);
	f[2] = vg_testscene_frame(doc, 9, 40, 330, 301);
	for (n_parts = 1; n_parts <= 4; n_parts++) {
		g_assert_cmpint(vg_differ_new(330, 301, 32, &whole), ==, 0);
		g_assert_cmpint(vg_differ_new(330, 301, 32, &parts), ==, 0);
		vg_differ_keep_previous(whole);
		vg_differ_keep_previous(parts);
		for (k = 0; k < 6; k++) {
			const vg_pixbuf *pic = f[k % 3];
			const vg_rect *dm = k % 2 ? damage : NULL;
			const size_t nd = k % 2 ? 2 : 0;
			const vg_rect *cw, *cp;
			size_t nw, np, i;
			int32_t cuts[5];
			int part;

			g_assert_cmpint(vg_differ_update(whole, pic, dm, nd, &cw, &nw), ==, 0);
			g_assert_cmpint(vg_differ_begin(parts, pic, dm, nd), ==, 0);
			vg_differ_cut(parts, dm, nd, n_parts, cuts);
			g_assert_cmpint(cuts[0], ==, 0);
			g_assert_cmpint(cuts[n_parts], ==, (301 + 31) / 32);
			for (part = n_parts - 1; part >= 0; part--) {
				g_assert_cmpint(cuts[part], <=, cuts[part + 1]);
				vg_differ_rows(parts, pic, cuts[part], cuts[part + 1]);
			}
			vg_differ_end(parts, &cp, &np);
			g_assert_cmpuint(nw, ==, np);
			for (i = 0; i < nw; i++)
				g_assert_true(vg_rect_equal(cw[i], cp[i]));
			g_assert_true(vg_pixbuf_equal(vg_differ_saved(whole), vg_differ_saved(parts)));
			g_assert_true(vg_pixbuf_equal(vg_differ_previous(whole),
						      vg_differ_previous(parts)));
		}
		g_assert_cmpint(vg_differ_begin(parts, doc, NULL, 0), ==, VG_EINVAL);
		vg_differ_free(whole);
		vg_differ_free(parts);
	}
	for (k = 0; k < 3; k++)
		vg_pixbuf_free(f[k]);
	vg_pixbuf_free(doc);
}

static void test_saved_and_scroll(void)
{
	vg_pixbuf *doc = vg_testscene_new(VG_SCENE_HEATMAP, 640, 700, 4);
	vg_pixbuf *a = vg_testscene_frame(doc, 0, 0, 640, 480);
	vg_pixbuf *b = vg_testscene_frame(doc, 0, 37, 640, 480);
	vg_differ *d;
	const vg_rect *ch;
	size_t n;

	g_assert_cmpint(vg_differ_new(640, 480, 0, &d), ==, 0);
	/* First update: everything is new. */
	g_assert_cmpint(vg_differ_update(d, a, NULL, 0, &ch, &n), ==, 0);
	g_assert_cmpuint(n, ==, 1);
	g_assert_true(vg_rect_equal(ch[0], vg_rect_make(0, 0, 640, 480)));
	g_assert_true(vg_pixbuf_equal(vg_differ_saved(d), a));
	g_assert_cmpint(vg_differ_update(d, a, NULL, 0, &ch, &n), ==, 0);
	g_assert_cmpuint(n, ==, 0);
	g_assert_cmpint(vg_differ_update(d, b, NULL, 0, &ch, &n), ==, 0);
	check_changes(a, b, NULL, 0, 64, ch, n);
	g_test_message("scroll by 37 rows: %zu changed rects", n);
	g_assert_true(vg_pixbuf_equal(vg_differ_saved(d), b));
	/* A wrong size is refused. */
	g_assert_cmpint(vg_differ_update(d, doc, NULL, 0, &ch, &n), ==, VG_EINVAL);
	vg_differ_free(d);
	g_assert_cmpint(vg_differ_new(0, 5, 0, &d), ==, VG_EINVAL);
	g_assert_null(d);
	vg_differ_free(NULL);
	vg_pixbuf_free(doc);
	vg_pixbuf_free(a);
	vg_pixbuf_free(b);
}

/* Damage that misses the change hides it, and the saved frame keeps the
 * old pixels there. */
static void test_damage_restricts(void)
{
	vg_pixbuf *a = vg_pixbuf_new(100, 100), *b = vg_pixbuf_new(100, 100);
	vg_rect dmg = vg_rect_make(0, 0, 50, 50);
	const vg_rect *ch;
	vg_differ *d;
	size_t n;

	vg_differ_new(100, 100, 16, &d);
	vg_differ_reset(d, a);
	vg_pixbuf_fill(b, vg_rect_make(40, 40, 20, 20), 0xff0000);
	vg_differ_update(d, b, &dmg, 1, &ch, &n);
	g_assert_cmpuint(n, ==, 1);
	g_assert_true(vg_rect_equal(ch[0], vg_rect_make(40, 40, 10, 10)));
	g_assert_cmphex(vg_pixbuf_row(vg_differ_saved(d), 45)[45], ==, 0xff0000);
	g_assert_cmphex(vg_pixbuf_row(vg_differ_saved(d), 55)[55], ==, 0);
	vg_differ_free(d);
	vg_pixbuf_free(a);
	vg_pixbuf_free(b);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/differ/random-edits", test_random_edits);
	g_test_add_func("/differ/saved-and-scroll", test_saved_and_scroll);
	g_test_add_func("/differ/rows", test_rows);
	g_test_add_func("/differ/damage-restricts", test_damage_restricts);
	return g_test_run();
}
