/* Approximations (fingerprint/codec/vg_approx.c): the shrink's quantised averages
 * worked out by hand, clipped blocks at the edges, round trips through the literal
 * coder for every factor, and heads refused before any pixel is drawn. */
#include <glib.h>

#include "common/vg_error.h"
#include "fingerprint/codec/vg_approx.h"

static void test_by_hand(void)
{
	vg_pixbuf *fb = vg_pixbuf_new(5, 3), *small = vg_pixbuf_new(3, 2), *out = vg_pixbuf_new(5, 3);
	int32_t x, y;

	/* Red = x * 40, green = y * 64, blue = 7. */
	for (y = 0; y < 3; y++)
		for (x = 0; x < 5; x++)
			vg_pixbuf_row(fb, y)[x] = VG_RGB(x * 40, y * 64, 7);
	g_assert_cmpint(vg_approx_small(vg_rect_make(0, 0, 5, 3), 2).w, ==, 3);
	g_assert_cmpint(vg_approx_small(vg_rect_make(0, 0, 5, 3), 2).h, ==, 2);
	vg_approx_shrink(fb, vg_rect_make(0, 0, 5, 3), 2, small);
	/* Averages, then the upper 4 bits of each channel and 8 below.
	 * Block (0,0): x 0-1, y 0-1: red 20 -> 24, green 32 -> 40, blue 7 ->
	 * 8. Block (2,0): x 4 only: red 160 -> 168. Block (1,1): x 2-3, y 2
	 * only: red 100 -> 104, green 128 -> 136. */
	g_assert_cmphex(vg_pixbuf_row(small, 0)[0], ==, VG_RGB(24, 40, 8));
	g_assert_cmphex(vg_pixbuf_row(small, 0)[2], ==, VG_RGB(168, 40, 8));
	g_assert_cmphex(vg_pixbuf_row(small, 1)[1], ==, VG_RGB(104, 136, 8));
	vg_approx_expand(small, 2, out, vg_rect_make(0, 0, 5, 3));
	g_assert_cmphex(vg_pixbuf_row(out, 1)[1], ==, VG_RGB(24, 40, 8));
	g_assert_cmphex(vg_pixbuf_row(out, 2)[4], ==, VG_RGB(168, 136, 8));
	vg_pixbuf_free(fb);
	vg_pixbuf_free(small);
	vg_pixbuf_free(out);
}

/* Encode, read the head, draw: the viewer paints what the server shrank,
 * and nothing outside the rectangles. */
static void test_round_trip(void)
{
	GRand *rng = g_rand_new_with_seed(3);
	vg_pixbuf *fb = vg_pixbuf_new(100, 70), *out = vg_pixbuf_new(100, 70);
	vg_pixbuf *want = vg_pixbuf_new(100, 70), *small = vg_pixbuf_new(50, 35);
	vg_rect rects[3] = { vg_rect_make(0, 0, 100, 1), vg_rect_make(7, 9, 41, 33),
			     vg_rect_make(60, 20, 40, 50) };
	vg_approx *tx, *rx;
	vg_literal *lc;
	unsigned f;
	int32_t x, y;
	size_t i, n;

	g_assert_cmpint(vg_approx_new(&tx), ==, 0);
	g_assert_cmpint(vg_approx_new(&rx), ==, 0);
	g_assert_cmpint(vg_literal_new(&lc), ==, 0);
	for (y = 0; y < 70; y++)
		for (x = 0; x < 100; x++)
			vg_pixbuf_row(fb, y)[x] = (y < 40 ? g_rand_int(rng) : (uint32_t)(x / 9 * 0x30507)) & VG_PIXEL_MASK;
	for (f = VG_APPROX_FACTOR_MIN; f <= VG_APPROX_FACTOR_MAX; f++) {
		vg_writer head, pix;
		vg_reader rh, rp;

		vg_writer_init(&head);
		vg_writer_init(&pix);
		vg_pixbuf_fill(out, vg_pixbuf_rect(out), 0x123456);
		vg_pixbuf_fill(want, vg_pixbuf_rect(want), 0x123456);
		for (i = 0; i < 3; i++) {
			vg_approx_shrink(fb, rects[i], f, small);
			vg_approx_expand(small, f, want, rects[i]);
		}
		g_assert_cmpint(vg_approx_encode(tx, lc, fb, rects, 3, f, &head, &pix), ==, 0);
		vg_reader_init(&rh, head.data, head.len);
		g_assert_cmpint(vg_approx_read_head(rx, &rh, out), ==, 0);
		g_assert_cmpuint(vg_reader_remaining(&rh), ==, 0);
		vg_approx_rects(rx, &n);
		g_assert_cmpuint(n, ==, 3);
		g_assert_cmpuint(pix.len, <=, vg_approx_pixel_bound(rx));
		vg_reader_init(&rp, pix.data, pix.len);
		g_assert_cmpint(vg_approx_draw(rx, &rp, out), ==, 0);
		g_assert_true(vg_pixbuf_equal(out, want));
		/* A byte too many is an error. */
		vg_writer_u8(&pix, 0);
		vg_reader_init(&rp, pix.data, pix.len);
		g_assert_cmpint(vg_approx_draw(rx, &rp, out), ==, VG_ECORRUPT);
		vg_writer_clear(&head);
		vg_writer_clear(&pix);
	}
	vg_approx_free(tx);
	vg_approx_free(rx);
	vg_literal_free(lc);
	vg_pixbuf_free(fb);
	vg_pixbuf_free(out);
	vg_pixbuf_free(want);
	vg_pixbuf_free(small);
	g_rand_free(rng);
}

static void test_refusals(void)
{
	vg_pixbuf *fb = vg_pixbuf_new(16, 16);
	vg_rect r = vg_rect_make(0, 0, 16, 16);
	vg_writer head, pix;
	vg_approx *ax;
	vg_literal *lc;

	vg_writer_init(&head);
	vg_writer_init(&pix);
	g_assert_cmpint(vg_approx_new(&ax), ==, 0);
	g_assert_cmpint(vg_literal_new(&lc), ==, 0);
	g_assert_cmpint(vg_approx_encode(ax, lc, fb, &r, 1, 1, &head, &pix), ==, VG_EINVAL);
	g_assert_cmpint(vg_approx_encode(ax, lc, fb, &r, 1, 17, &head, &pix), ==, VG_EINVAL);
	g_assert_cmpint(vg_approx_encode(ax, lc, fb, &r, 0, 2, &head, &pix), ==, VG_EINVAL);
	r.w = 17;
	g_assert_cmpint(vg_approx_encode(ax, lc, fb, &r, 1, 2, &head, &pix), ==, VG_ERANGE);
	g_assert_cmpuint(head.len + pix.len, ==, 0);
	vg_approx_free(ax);
	vg_literal_free(lc);
	vg_writer_clear(&head);
	vg_writer_clear(&pix);
	vg_pixbuf_free(fb);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/approx/by-hand", test_by_hand);
	g_test_add_func("/approx/round-trip", test_round_trip);
	g_test_add_func("/approx/refusals", test_refusals);
	return g_test_run();
}
