#include <glib.h>

#include "common/vg_error.h"
#include "segment2d/vg_tilediff.h"

static vg_pixbuf *pattern(int w, int h)
{
	vg_pixbuf *pb = vg_pixbuf_new(w, h);
	int x, y;

	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			vg_pixbuf_row(pb, y)[x] = VG_RGB(x, y, x * y);
	return pb;
}

/* Every changed pixel lies in exactly one rectangle, and no rectangle
 * reaches outside the frame. */
static void check_cover(const vg_pixbuf *a, const vg_pixbuf *b, const vg_rect *r, size_t n)
{
	int x, y;
	size_t i;

	for (i = 0; i < n; i++)
		g_assert_true(vg_rect_contains(vg_pixbuf_rect(a), r[i]));
	for (y = 0; y < a->height; y++)
		for (x = 0; x < a->width; x++) {
			int in = 0;
			for (i = 0; i < n; i++)
				in += x >= r[i].x && x < r[i].x + r[i].w && y >= r[i].y && y < r[i].y + r[i].h;
			g_assert_cmpint(in, <=, 1);
			if (vg_pixbuf_row(a, y)[x] != vg_pixbuf_row(b, y)[x])
				g_assert_cmpint(in, ==, 1);
		}
}

static void test_basic(void)
{
	vg_pixbuf *a = pattern(100, 70), *b = pattern(100, 70);
	vg_rect r[64];
	size_t n, cap = vg_tilediff_max_rects(100, 70, 16);

	g_assert_cmpuint(cap, <=, G_N_ELEMENTS(r));
	g_assert_cmpint(vg_tilediff(a, b, 16, r, cap, &n), ==, 0);
	g_assert_cmpuint(n, ==, 0);

	/* One pixel in the clipped corner tile. */
	vg_pixbuf_row(b, 69)[99] ^= 1;
	g_assert_cmpint(vg_tilediff(a, b, 16, r, cap, &n), ==, 0);
	g_assert_cmpuint(n, ==, 1);
	g_assert_true(vg_rect_equal(r[0], vg_rect_make(96, 64, 4, 6)));

	/* A block over several tiles becomes one rectangle. */
	vg_pixbuf_fill(b, vg_rect_make(20, 20, 30, 30), 0xffffff);
	g_assert_cmpint(vg_tilediff(a, b, 16, r, cap, &n), ==, 0);
	check_cover(a, b, r, n);
	g_assert_cmpuint(n, ==, 2);
	g_assert_true(vg_rect_equal(r[0], vg_rect_make(16, 16, 48, 48)));

	/* A chequerboard of changed tiles: the worst case fits the bound. */
	for (int ty = 0; ty < 70; ty += 16)
		for (int tx = (ty / 16) % 2 * 16; tx < 100; tx += 32)
			vg_pixbuf_row(b, ty)[tx] ^= 2;
	g_assert_cmpint(vg_tilediff(a, b, 16, r, cap, &n), ==, 0);
	check_cover(a, b, r, n);
	g_assert_cmpint(vg_tilediff(a, b, 16, r, 1, &n), ==, VG_ENOSPC);
	vg_pixbuf_free(a);
	vg_pixbuf_free(b);
}

static void test_random(void)
{
	GRand *rnd = g_rand_new_with_seed(7);
	int round;

	for (round = 0; round < 50; round++) {
		int w = g_rand_int_range(rnd, 1, 90), h = g_rand_int_range(rnd, 1, 90);
		int tile = g_rand_int_range(rnd, 1, 40), k;
		vg_pixbuf *a = pattern(w, h), *b = pattern(w, h);
		size_t cap = vg_tilediff_max_rects(w, h, tile), n;
		vg_rect *r = g_new(vg_rect, cap);

		for (k = g_rand_int_range(rnd, 0, 20); k > 0; k--)
			vg_pixbuf_row(b, g_rand_int_range(rnd, 0, h))[g_rand_int_range(rnd, 0, w)] ^= 0x10101;
		g_assert_cmpint(vg_tilediff(a, b, tile, r, cap, &n), ==, 0);
		check_cover(a, b, r, n);
		g_free(r);
		vg_pixbuf_free(a);
		vg_pixbuf_free(b);
	}
	g_rand_free(rnd);
}

/* The masked compare sees through the padding byte (an X server's to
 * fill) and nothing else. */
static void test_masked(void)
{
	vg_pixbuf *a = pattern(100, 70), *b = pattern(100, 70);
	vg_rect r[64];
	size_t n;
	int x, y;

	for (y = 0; y < 70; y++)
		for (x = 0; x < 100; x++)
			vg_pixbuf_row(b, y)[x] |= (uint32_t)(x + y) << 24;
	g_assert_cmpint(vg_tilediff_masked(a, b, VG_PIXEL_MASK, 16, r, 64, &n), ==, 0);
	g_assert_cmpuint(n, ==, 0);
	g_assert_cmpint(vg_tilediff(a, b, 16, r, 64, &n), ==, 0);
	g_assert_cmpuint(n, >, 0);
	/* One colour changed at the last pixel of an edge tile. */
	vg_pixbuf_row(b, 69)[99] ^= 1;
	g_assert_cmpint(vg_tilediff_masked(a, b, VG_PIXEL_MASK, 16, r, 64, &n), ==, 0);
	g_assert_cmpuint(n, ==, 1);
	g_assert_cmpint(r[0].x, ==, 96);
	g_assert_cmpint(r[0].y, ==, 64);
	g_assert_cmpint(r[0].w, ==, 4);
	g_assert_cmpint(r[0].h, ==, 6);
	vg_pixbuf_free(a);
	vg_pixbuf_free(b);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tilediff/basic", test_basic);
	g_test_add_func("/tilediff/random", test_random);
	g_test_add_func("/tilediff/masked", test_masked);
	return g_test_run();
}
