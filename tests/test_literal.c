/* Literal segment coding (fingerprint/vg_literal): round trips of every
 * method on random and structured blocks, the encoder's choices, and
 * malformed input refused without drawing outside the block. */
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "fingerprint/vg_literal.h"

#define BORDER 0xdeadbeefu

/* A frame of w x h pixels filled by kind: 0 random, 1 few colours in
 * blocks, 2 smooth gradient, 3 one colour, 4 anti-aliased-looking text
 * (grey levels on white). */
static vg_pixbuf *scene(GRand *rng, int32_t w, int32_t h, int kind)
{
	vg_pixbuf *pb = vg_pixbuf_new(w, h);
	uint32_t pal[5];
	int32_t x, y;
	int i;

	for (i = 0; i < 5; i++)
		pal[i] = g_rand_int(rng) & 0xffffff;
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			uint32_t v;

			switch (kind) {
			case 0:
				v = g_rand_int(rng) & 0xffffff;
				break;
			case 1:
				v = pal[(x / 5 + y / 3) % 5];
				break;
			case 2:
				v = VG_RGB((x * 3 + y) & 0xff, (x + 2 * y) & 0xff, (x * y / 7) & 0xff);
				break;
			case 3:
				v = pal[0];
				break;
			default: {
				int g = g_rand_int_range(rng, 0, 4) == 0 ? g_rand_int_range(rng, 0, 256) : 255;
				v = VG_RGB(g, g, g);
			}
			}
			vg_pixbuf_row(pb, y)[x] = v;
		}
	return pb;
}

/* Decodes bytes into rect of a fresh frame whose other pixels hold BORDER
 * and checks the block equals rect of src and nothing else was touched. */
static void check_decodes(const uint8_t *bytes, size_t len, const vg_pixbuf *src, vg_rect r)
{
	vg_pixbuf *dst = vg_pixbuf_new(src->width, src->height);
	vg_reader rd;
	int32_t x, y;

	vg_pixbuf_fill(dst, vg_pixbuf_rect(dst), BORDER);
	vg_reader_init(&rd, bytes, len);
	g_assert_cmpint(vg_literal_decode(&rd, dst, r), ==, VG_OK);
	g_assert_cmpuint(vg_reader_remaining(&rd), ==, 0);
	for (y = 0; y < dst->height; y++)
		for (x = 0; x < dst->width; x++) {
			uint32_t want = vg_rect_contains(r, vg_rect_make(x, y, 1, 1))
						? vg_pixbuf_row(src, y)[x] & 0xffffff
						: BORDER;
			g_assert_cmphex(vg_pixbuf_row(dst, y)[x], ==, want);
		}
	vg_pixbuf_free(dst);
}

static void test_round_trip(void)
{
	GRand *rng = g_rand_new_with_seed(7);
	vg_literal *lc;
	vg_writer w;
	int kind, round;
	unsigned m;

	g_assert_cmpint(vg_literal_new(&lc), ==, VG_OK);
	vg_writer_init(&w);
	for (kind = 0; kind < 5; kind++)
		for (round = 0; round < 40; round++) {
			int32_t W = g_rand_int_range(rng, 1, 70), H = g_rand_int_range(rng, 1, 50);
			vg_pixbuf *pb = scene(rng, W, H, kind);
			int32_t rx = g_rand_int_range(rng, 0, W), ry = g_rand_int_range(rng, 0, H);
			vg_rect r = vg_rect_make(rx, ry, g_rand_int_range(rng, 1, W - rx + 1),
						 g_rand_int_range(rng, 1, H - ry + 1));

			/* The encoder's own choice. */
			vg_writer_reset(&w);
			g_assert_cmpint(vg_literal_encode(lc, pb, r, &w), ==, VG_OK);
			g_assert_cmpuint(w.len, <=, 1 + (size_t)r.w * (size_t)r.h * 3);
			check_decodes(w.data, w.len, pb, r);
			/* Every method that can code the block. */
			for (m = 0; m < VG_LIT_METHODS; m++) {
				int err;

				vg_writer_reset(&w);
				err = vg_literal_encode_as(lc, pb, r, (vg_lit_method)m, &w);
				if (err == VG_EINVAL) {
					g_assert_true(m == VG_LIT_PALETTE || m == VG_LIT_PALETTE_RLE);
					g_assert_cmpuint(w.len, ==, 0);
					continue;
				}
				g_assert_cmpint(err, ==, VG_OK);
				g_assert_cmpuint(w.data[0], ==, m);
				check_decodes(w.data, w.len, pb, r);
			}
			vg_pixbuf_free(pb);
		}
	vg_writer_clear(&w);
	vg_literal_free(lc);
	g_rand_free(rng);
}

/* Palettes of every size up to the largest, and one colour too many. */
static void test_palette_sizes(void)
{
	static const unsigned sizes[] = { 1, 2, 3, 4, 5, 16, 17, 128, 129, 256, 257 };
	vg_literal *lc;
	vg_writer w;
	size_t i;

	g_assert_cmpint(vg_literal_new(&lc), ==, VG_OK);
	vg_writer_init(&w);
	for (i = 0; i < G_N_ELEMENTS(sizes); i++) {
		vg_pixbuf *pb = vg_pixbuf_new(17, 16);
		int32_t p;

		for (p = 0; p < 17 * 16; p++)
			vg_pixbuf_row(pb, p / 17)[p % 17] = (uint32_t)(p % sizes[i]) * 0x010203u;
		vg_writer_reset(&w);
		g_assert_cmpint(vg_literal_encode_as(lc, pb, vg_pixbuf_rect(pb), VG_LIT_PALETTE, &w), ==,
				sizes[i] <= VG_LIT_PALETTE_MAX ? VG_OK : VG_EINVAL);
		if (w.len)
			check_decodes(w.data, w.len, pb, vg_pixbuf_rect(pb));
		vg_writer_reset(&w);
		g_assert_cmpint(
			vg_literal_encode_as(lc, pb, vg_pixbuf_rect(pb), VG_LIT_PALETTE_RLE, &w), ==,
			sizes[i] <= VG_LIT_RLE_PALETTE_MAX ? VG_OK : VG_EINVAL);
		if (w.len)
			check_decodes(w.data, w.len, pb, vg_pixbuf_rect(pb));
		vg_pixbuf_free(pb);
	}
	vg_writer_clear(&w);
	vg_literal_free(lc);
}

/* What the encoder picks: one colour as a 5-byte palette, long runs as
 * runs, smooth content and noise as residuals, text-like content plain;
 * a list of blocks shares one method for all that take no palette. */
static void test_choices(void)
{
	GRand *rng = g_rand_new_with_seed(3);
	vg_pixbuf *solid = scene(rng, 16, 32, 3), *noise = scene(rng, 16, 32, 0);
	vg_pixbuf *smooth = scene(rng, 16, 32, 2), *stripes = vg_pixbuf_new(64, 32);
	vg_pixbuf *text = scene(rng, 16, 32, 4);
	vg_rect all = vg_rect_make(0, 0, 16, 32), two[2] = { all, vg_rect_make(0, 0, 16, 16) };
	vg_literal_stats st;
	vg_literal *lc;
	vg_writer w;

	vg_pixbuf_fill(stripes, vg_rect_make(0, 0, 64, 16), VG_RGB(255, 0, 0));
	vg_pixbuf_fill(stripes, vg_rect_make(0, 16, 64, 16), VG_RGB(0, 0, 255));
	g_assert_cmpint(vg_literal_new(&lc), ==, VG_OK);
	vg_writer_init(&w);
	g_assert_cmpint(vg_literal_encode(lc, solid, all, &w), ==, VG_OK);
	g_assert_cmpuint(w.len, ==, 5);
	g_assert_cmpuint(w.data[0], ==, VG_LIT_PALETTE);
	vg_writer_reset(&w);
	g_assert_cmpint(vg_literal_encode(lc, stripes, vg_pixbuf_rect(stripes), &w), ==, VG_OK);
	g_assert_cmpuint(w.data[0], ==, VG_LIT_PALETTE_RLE);
	g_assert_cmpuint(w.len, <, 16);
	vg_writer_reset(&w);
	g_assert_cmpint(vg_literal_encode(lc, smooth, all, &w), ==, VG_OK);
	g_assert_cmpuint(w.data[0], ==, VG_LIT_PREDICT);
	vg_writer_reset(&w);
	g_assert_cmpint(vg_literal_encode(lc, noise, all, &w), ==, VG_OK);
	g_assert_cmpuint(w.data[0], ==, VG_LIT_PREDICT);
	g_assert_cmpuint(w.len, ==, 1 + 16 * 32 * 3);
	vg_writer_reset(&w);
	g_assert_cmpint(vg_literal_encode(lc, text, all, &w), ==, VG_OK);
	g_assert_cmpuint(w.data[0], ==, VG_LIT_RAW);
	g_assert_cmpuint(w.len, ==, 1 + 16 * 32 * 3);
	/* Two smooth blocks in one list: both predicted, back to back. */
	vg_writer_reset(&w);
	g_assert_cmpint(vg_literal_encode_list(lc, smooth, two, 2, &w), ==, VG_OK);
	g_assert_cmpuint(w.data[0], ==, VG_LIT_PREDICT);
	g_assert_cmpuint(w.data[1 + 16 * 32 * 3], ==, VG_LIT_PREDICT);
	vg_literal_get_stats(lc, &st);
	g_assert_cmpuint(st.blocks[VG_LIT_PREDICT], ==, 4);
	g_assert_cmpuint(st.blocks[VG_LIT_PALETTE], ==, 1);
	g_assert_cmpuint(st.blocks[VG_LIT_PALETTE_RLE], ==, 1);
	g_assert_cmpuint(st.bytes[VG_LIT_PALETTE], ==, 5);
	g_assert_cmpuint(st.pixels[VG_LIT_RAW], ==, 16 * 32);
	g_assert_cmpstr(vg_lit_method_name(VG_LIT_PALETTE_RLE), ==, "palette-rle");
	g_assert_cmpstr(vg_lit_method_name(9), ==, "?");
	/* Bad rectangles: refused, nothing written. */
	vg_writer_reset(&w);
	g_assert_cmpint(vg_literal_encode(lc, solid, vg_rect_make(0, 0, 17, 1), &w), ==, VG_ERANGE);
	g_assert_cmpint(vg_literal_encode(lc, solid, vg_rect_make(0, 0, 0, 1), &w), ==, VG_ERANGE);
	g_assert_cmpint(vg_literal_encode_as(lc, solid, all, (vg_lit_method)4, &w), ==, VG_EINVAL);
	g_assert_cmpuint(w.len, ==, 0);
	vg_writer_clear(&w);
	vg_literal_free(lc);
	vg_pixbuf_free(solid);
	vg_pixbuf_free(noise);
	vg_pixbuf_free(smooth);
	vg_pixbuf_free(stripes);
	vg_pixbuf_free(text);
	g_rand_free(rng);
}

/* Every truncation of a valid block fails; random bytes either fail or
 * decode exactly the block; neither draws outside it. */
static void test_malformed(void)
{
	GRand *rng = g_rand_new_with_seed(11);
	vg_pixbuf *dst = vg_pixbuf_new(12, 10);
	vg_rect r = vg_rect_make(2, 3, 7, 5);
	vg_literal *lc;
	vg_writer w;
	unsigned m;
	int kind, i;

	g_assert_cmpint(vg_literal_new(&lc), ==, VG_OK);
	vg_writer_init(&w);
	for (kind = 0; kind < 5; kind++) {
		vg_pixbuf *pb = scene(rng, 12, 10, kind);

		for (m = 0; m < VG_LIT_METHODS; m++) {
			size_t cut;

			vg_writer_reset(&w);
			if (vg_literal_encode_as(lc, pb, r, (vg_lit_method)m, &w))
				continue;
			for (cut = 0; cut < w.len; cut++) {
				vg_reader rd;

				vg_reader_init(&rd, w.data, cut);
				g_assert_cmpint(vg_literal_decode(&rd, dst, r), <, 0);
			}
		}
		vg_pixbuf_free(pb);
	}
	for (i = 0; i < 20000; i++) {
		uint8_t junk[64];
		size_t n = (size_t)g_rand_int_range(rng, 0, sizeof junk + 1), k;
		vg_reader rd;
		int32_t x, y;

		for (k = 0; k < n; k++)
			junk[k] = (uint8_t)g_rand_int(rng);
		if (n)
			junk[0] %= VG_LIT_METHODS + 1;
		vg_pixbuf_fill(dst, vg_pixbuf_rect(dst), BORDER);
		vg_reader_init(&rd, junk, n);
		(void)vg_literal_decode(&rd, dst, r);
		for (y = 0; y < dst->height; y++)
			for (x = 0; x < dst->width; x++)
				if (!vg_rect_contains(r, vg_rect_make(x, y, 1, 1)))
					g_assert_cmphex(vg_pixbuf_row(dst, y)[x], ==, BORDER);
	}
	/* Specific refusals. */
	{
		static const uint8_t unknown[] = { 4, 0, 0, 0 };
		static const uint8_t big_rle[] = { VG_LIT_PALETTE_RLE, 128 };
		vg_reader rd;

		vg_reader_init(&rd, unknown, sizeof unknown);
		g_assert_cmpint(vg_literal_decode(&rd, dst, r), ==, VG_ECORRUPT);
		vg_reader_init(&rd, big_rle, sizeof big_rle);
		g_assert_cmpint(vg_literal_decode(&rd, dst, r), ==, VG_ECORRUPT);
		vg_reader_init(&rd, unknown, sizeof unknown);
		g_assert_cmpint(vg_literal_decode(&rd, dst, vg_rect_make(10, 0, 3, 1)), ==, VG_ERANGE);
	}
	vg_writer_clear(&w);
	vg_literal_free(lc);
	vg_pixbuf_free(dst);
	g_rand_free(rng);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/literal/round-trip", test_round_trip);
	g_test_add_func("/literal/palette-sizes", test_palette_sizes);
	g_test_add_func("/literal/choices", test_choices);
	g_test_add_func("/literal/malformed", test_malformed);
	return g_test_run();
}
