#include <glib.h>

#include "common/vg_rect.h"

static void test_intersect(void)
{
	vg_rect a = vg_rect_make(0, 0, 10, 10), b = vg_rect_make(5, 5, 10, 10);
	vg_rect i = vg_rect_intersect(a, b);

	g_assert_true(vg_rect_equal(i, vg_rect_make(5, 5, 5, 5)));
	g_assert_true(vg_rect_is_empty(vg_rect_intersect(a, vg_rect_make(10, 0, 5, 5))));
	g_assert_true(vg_rect_is_empty(vg_rect_intersect(a, vg_rect_make(2, 2, 0, 5))));
	g_assert_true(vg_rect_equal(vg_rect_bounds(a, b), vg_rect_make(0, 0, 15, 15)));
	g_assert_true(vg_rect_equal(vg_rect_bounds(vg_rect_make(3, 3, 0, 0), b), b));
	g_assert_true(vg_rect_contains(a, vg_rect_make(9, 9, 1, 1)));
	g_assert_false(vg_rect_contains(a, vg_rect_make(9, 9, 2, 1)));
	g_assert_cmpint(vg_rect_area(vg_rect_make(1, 1, -3, 4)), ==, 0);
}

/* Stripes cut for threads: every part gets its share of the area, in
 * stripe order, whether the area lies evenly or all to one side. */
static void test_cut_stripes(void)
{
	const vg_rect even = vg_rect_make(0, 0, 1600, 100);
	const vg_rect side[2] = { vg_rect_make(0, 0, 160, 900), vg_rect_make(0, 900, 1600, 10) };
	int32_t cuts[5];

	vg_rects_cut_stripes(&even, 1, true, 16, 100, 4, cuts);
	g_assert_cmpint(cuts[0], ==, 0);
	g_assert_cmpint(cuts[1], ==, 25);
	g_assert_cmpint(cuts[2], ==, 50);
	g_assert_cmpint(cuts[3], ==, 75);
	g_assert_cmpint(cuts[4], ==, 100);
	/* 144,000 + 16,000 pixels, 910 a column up to x = 160: half of
	 * them lie before x = 88, so the cut is the stripe boundary at 96. */
	vg_rects_cut_stripes(side, 2, true, 16, 100, 2, cuts);
	g_assert_cmpint(cuts[1], ==, 6);
	g_assert_cmpint(cuts[2], ==, 100);
	/* Across y, rows of 64 pixels: 160 pixels a row up to y = 900, half
	 * before y = 500, the boundary at 512. */
	vg_rects_cut_stripes(side, 2, false, 64, 15, 2, cuts);
	g_assert_cmpint(cuts[1], ==, 8);
	/* Nothing to share: every cut at the start. */
	vg_rects_cut_stripes(NULL, 0, true, 16, 10, 3, cuts);
	g_assert_cmpint(cuts[1], ==, 0);
	g_assert_cmpint(cuts[2], ==, 0);
	g_assert_cmpint(cuts[3], ==, 10);
}

/* Rasterises a region into a bitmap and checks that no pixel is covered twice. */
static void raster(const vg_region *r, guint8 *map, int w, int h)
{
	size_t n, i;
	const vg_rect *rs = vg_region_rects(r, &n);

	memset(map, 0, (size_t)w * h);
	for (i = 0; i < n; i++) {
		int x, y;
		g_assert_false(vg_rect_is_empty(rs[i]));
		for (y = rs[i].y; y < rs[i].y + rs[i].h; y++)
			for (x = rs[i].x; x < rs[i].x + rs[i].w; x++) {
				g_assert_true(x >= 0 && y >= 0 && x < w && y < h);
				g_assert_cmpint(map[y * w + x], ==, 0);
				map[y * w + x] = 1;
			}
	}
}

/* Random adds, subtracts and clips against a bitmap model. */
static void test_region_model(void)
{
	enum { W = 64, H = 48 };
	guint8 model[W * H], got[W * H];
	GRand *rng = g_rand_new_with_seed(7);
	vg_region *r = vg_region_new();
	int step;

	memset(model, 0, sizeof model);
	for (step = 0; step < 2000; step++) {
		int op = g_rand_int_range(rng, 0, 10);
		vg_rect q = vg_rect_make(g_rand_int_range(rng, 0, W), g_rand_int_range(rng, 0, H),
					 g_rand_int_range(rng, 0, 20), g_rand_int_range(rng, 0, 20));
		int x, y;

		q = vg_rect_intersect(q, vg_rect_make(0, 0, W, H));
		if (op < 6) {
			vg_region_add(r, q);
			for (y = q.y; y < q.y + q.h && q.w > 0; y++)
				for (x = q.x; x < q.x + q.w; x++)
					model[y * W + x] = 1;
		} else if (op < 9) {
			vg_region_subtract(r, q);
			for (y = q.y; y < q.y + q.h && q.w > 0; y++)
				for (x = q.x; x < q.x + q.w; x++)
					model[y * W + x] = 0;
		} else {
			vg_region_clip(r, q);
			for (y = 0; y < H; y++)
				for (x = 0; x < W; x++)
					if (!vg_rect_contains(q, vg_rect_make(x, y, 1, 1)))
						model[y * W + x] = 0;
		}
		if (vg_region_area(r) > 2000 && step % 50 == 0) {
			vg_region_clear(r);
			memset(model, 0, sizeof model);
		}
		raster(r, got, W, H);
		g_assert_cmpmem(got, sizeof got, model, sizeof model);
	}
	vg_region_free(r);
	g_rand_free(rng);
}

/* Owed pixels carried through moves, against a bitmap model: random
 * regions, and up to four moves to disjoint places from sources anywhere
 * (overlapping each other and their places), all read before any write. */
static void test_region_carry(void)
{
	enum { W = 64, H = 48 };
	guint8 model[W * H], after[W * H], got[W * H];
	GRand *rng = g_rand_new_with_seed(11);
	int round;

	for (round = 0; round < 500; round++) {
		vg_region *r = vg_region_new();
		vg_move moves[4];
		int i, k, n = g_rand_int_range(rng, 0, 5), x, y;

		for (k = 0; k < 6; k++)
			vg_region_add(r, vg_rect_make(g_rand_int_range(rng, 0, W), g_rand_int_range(rng, 0, H),
						      g_rand_int_range(rng, 1, 24), g_rand_int_range(rng, 1, 24)));
		vg_region_clip(r, vg_rect_make(0, 0, W, H));
		raster(r, model, W, H);
		/* Places in the four quadrants, so they never overlap. */
		for (i = 0; i < n; i++) {
			int32_t qx = (i % 2) * (W / 2), qy = (i / 2) * (H / 2);
			vg_rect to = vg_rect_make(qx + g_rand_int_range(rng, 0, W / 4),
						  qy + g_rand_int_range(rng, 0, H / 4),
						  g_rand_int_range(rng, 1, W / 4), g_rand_int_range(rng, 1, H / 4));

			moves[i].rect = to;
			/* Sources inside the picture. */
			moves[i].dx = g_rand_int_range(rng, to.x + to.w - W, to.x + 1);
			moves[i].dy = g_rand_int_range(rng, to.y + to.h - H, to.y + 1);
		}
		memcpy(after, model, sizeof after);
		for (i = 0; i < n; i++)
			for (y = moves[i].rect.y; y < moves[i].rect.y + moves[i].rect.h; y++)
				for (x = moves[i].rect.x; x < moves[i].rect.x + moves[i].rect.w; x++)
					after[y * W + x] = model[(y - moves[i].dy) * W + x - moves[i].dx];
		vg_region_carry(r, moves, (size_t)n);
		raster(r, got, W, H);
		g_assert_cmpmem(got, sizeof got, after, sizeof after);
		vg_region_free(r);
	}
	g_rand_free(rng);
}

/* Runs of segments merged: the same pixels, disjoint, in fewer
 * rectangles; a column of cells cut at random rows is one. */
static void test_coalesce(void)
{
	enum { W = 64, H = 48 };
	guint8 want[W * H], got[W * H];
	GRand *rng = g_rand_new_with_seed(5);
	vg_rect rs[W / 8 * H], col[8];
	int round;

	for (round = 0; round < 200; round++) {
		vg_region *r = vg_region_new();
		size_t n = 0, k, i;
		int x, y;

		/* Columns 8 wide cut into cells 1-6 high, some of them kept. */
		for (x = 0; x < W; x += 8)
			for (y = 0; y < H;) {
				int32_t h = g_rand_int_range(rng, 1, 7);

				h = MIN(h, H - y);

				if (g_rand_int_range(rng, 0, 4))
					rs[n++] = vg_rect_make(x, y, 8, h);
				y += h;
			}
		for (i = 0; i < n; i++)
			vg_region_add(r, rs[i]);
		raster(r, want, W, H);
		vg_region_free(r);
		k = vg_rects_coalesce(rs, n);
		g_assert_cmpuint(k, <=, n);
		r = vg_region_new();
		for (i = 0; i < k; i++)
			vg_region_add(r, rs[i]);
		raster(r, got, W, H);
		g_assert_cmpmem(got, sizeof got, want, sizeof want);
		/* Disjoint: the area adds up. */
		{
			int64_t sum = 0;

			for (i = 0; i < k; i++)
				sum += vg_rect_area(rs[i]);
			g_assert_cmpint(sum, ==, vg_region_area(r));
		}
		vg_region_free(r);
	}
	/* A column cut into eight cells, and an empty one, come to one. */
	for (round = 0; round < 8; round++)
		col[round] = vg_rect_make(16, 40 - 5 * round, 32, 5);
	col[3].w = 0;
	g_assert_cmpuint(vg_rects_coalesce(col, 8), ==, 2);
	g_rand_free(rng);
}


static void test_region_basics(void)
{
	vg_region *r = vg_region_new(), *o = vg_region_new();

	g_assert_true(vg_region_is_empty(r));
	/* Subtracting from or clipping an empty region is harmless. */
	vg_region_subtract(r, vg_rect_make(0, 0, 5, 5));
	vg_region_clip(r, vg_rect_make(0, 0, 5, 5));
	g_assert_true(vg_region_is_empty(r));
	vg_region_add(r, vg_rect_make(0, 0, 10, 10));
	vg_region_add(r, vg_rect_make(5, 5, 10, 10));
	g_assert_cmpint(vg_region_area(r), ==, 175);
	g_assert_true(vg_rect_equal(vg_region_extents(r), vg_rect_make(0, 0, 15, 15)));
	vg_region_add(o, vg_rect_make(100, 100, 1, 1));
	vg_region_add_region(r, o);
	g_assert_cmpint(vg_region_area(r), ==, 176);
	vg_region_subtract(r, vg_rect_make(0, 0, 200, 200));
	g_assert_true(vg_region_is_empty(r));
	vg_region_free(r);
	vg_region_free(o);
	vg_region_free(NULL);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/rect/intersect", test_intersect);
	g_test_add_func("/rect/cut_stripes", test_cut_stripes);
	g_test_add_func("/region/basics", test_region_basics);
	g_test_add_func("/region/model", test_region_model);
	g_test_add_func("/region/carry", test_region_carry);
	g_test_add_func("/rect/coalesce", test_coalesce);
	return g_test_run();
}
