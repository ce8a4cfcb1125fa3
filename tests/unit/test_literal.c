/* Literal segment coding (fingerprint/codec/vg_literal.c): round trips of every
 * method on random and structured blocks, the encoder's choices, and
 * malformed input refused without drawing outside the block. */
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "fingerprint/codec/vg_literal.h"

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
	g_assert_cmpint(vg_literal_decode(&rd, dst, r, NULL), ==, VG_OK);
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
					g_assert_true(m == VG_LIT_PALETTE || m == VG_LIT_PALETTE_RLE ||
						      m == VG_LIT_INDEXED);
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
	g_assert_cmpint(vg_literal_encode_as(lc, solid, all, VG_LIT_METHODS, &w), ==, VG_EINVAL);
	/* No table unless asked for. */
	g_assert_cmpint(vg_literal_encode_as(lc, text, all, VG_LIT_INDEXED, &w), ==, VG_EINVAL);
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
				g_assert_cmpint(vg_literal_decode(&rd, dst, r, NULL), <, 0);
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
		(void)vg_literal_decode(&rd, dst, r, NULL);
		for (y = 0; y < dst->height; y++)
			for (x = 0; x < dst->width; x++)
				if (!vg_rect_contains(r, vg_rect_make(x, y, 1, 1)))
					g_assert_cmphex(vg_pixbuf_row(dst, y)[x], ==, BORDER);
	}
	/* Specific refusals. */
	{
		static const uint8_t unknown[] = { VG_LIT_METHODS, 0, 0, 0 };
		static const uint8_t no_fill[] = { VG_LIT_INDEXED, 0, 0 };
		static const uint8_t too_many[] = { VG_LIT_INDEXED, 0xf1, 0x21 }; /* 4337 fills */
		vg_lit_table t;
		static const uint8_t big_rle[] = { VG_LIT_PALETTE_RLE, 128 };
		vg_reader rd;

		vg_reader_init(&rd, unknown, sizeof unknown);
		g_assert_cmpint(vg_literal_decode(&rd, dst, r, NULL), ==, VG_ECORRUPT);
		vg_reader_init(&rd, big_rle, sizeof big_rle);
		g_assert_cmpint(vg_literal_decode(&rd, dst, r, NULL), ==, VG_ECORRUPT);
		/* A table block without a table, naming an empty slot, or
		 * filling more slots than the table has. */
		vg_lit_table_init(&t);
		vg_reader_init(&rd, no_fill, sizeof no_fill);
		g_assert_cmpint(vg_literal_decode(&rd, dst, r, NULL), ==, VG_ECORRUPT);
		vg_reader_init(&rd, no_fill, sizeof no_fill);
		g_assert_cmpint(vg_literal_decode(&rd, dst, r, &t), ==, VG_ECORRUPT);
		vg_reader_init(&rd, too_many, sizeof too_many);
		g_assert_cmpint(vg_literal_decode(&rd, dst, r, &t), ==, VG_ECORRUPT);
		g_assert_cmpuint(t.filled, ==, 0);
		vg_reader_init(&rd, unknown, sizeof unknown);
		g_assert_cmpint(vg_literal_decode(&rd, dst, vg_rect_make(10, 0, 3, 1), NULL), ==, VG_ERANGE);
	}
	vg_writer_clear(&w);
	vg_literal_free(lc);
	vg_pixbuf_free(dst);
	g_rand_free(rng);
}

/* Decodes a list of n blocks from bytes into a copy of frame's size,
 * through table t, and checks every block equals frame's. */
static void check_list(const vg_writer *w, const vg_pixbuf *frame, const vg_rect *rects,
		       size_t n, vg_lit_table *t)
{
	vg_pixbuf *dst = vg_pixbuf_new(frame->width, frame->height);
	vg_reader rd;
	size_t i;

	vg_reader_init(&rd, w->data, w->len);
	for (i = 0; i < n; i++) {
		int32_t x, y;

		g_assert_cmpint(vg_literal_decode(&rd, dst, rects[i], t), ==, VG_OK);
		for (y = rects[i].y; y < rects[i].y + rects[i].h; y++)
			for (x = rects[i].x; x < rects[i].x + rects[i].w; x++)
				g_assert_cmphex(vg_pixbuf_row(dst, y)[x], ==,
						vg_pixbuf_row(frame, y)[x] & 0xffffff);
	}
	g_assert_cmpuint(vg_reader_remaining(&rd), ==, 0);
	vg_pixbuf_free(dst);
}

/* Screen content goes to the shared table, which both ends keep across
 * lists: the same block codes to the same bytes in a later update, and
 * the decoder's table follows the encoder's, also past one-byte slots. */
static void test_indexed(void)
{
	GRand *rng = g_rand_new_with_seed(5);
	vg_pixbuf *text = scene(rng, 64, 32, 4), *smooth = scene(rng, 64, 32, 2);
	vg_rect cols[4], one = vg_rect_make(16, 0, 16, 32);
	vg_literal_stats st;
	vg_lit_table t;
	vg_literal *lc;
	vg_writer w, again;
	int i;

	for (i = 0; i < 4; i++)
		cols[i] = vg_rect_make(16 * i, 0, 16, 32);
	g_assert_cmpint(vg_literal_new(&lc), ==, VG_OK);
	vg_literal_set_indexed(lc, true);
	vg_lit_table_init(&t);
	vg_writer_init(&w);
	vg_writer_init(&again);
	g_assert_cmpint(vg_literal_encode_list(lc, text, cols, 4, &w), ==, VG_OK);
	g_assert_cmpuint(w.data[0], ==, VG_LIT_INDEXED);
	check_list(&w, text, cols, 4, &t);
	g_assert_cmpuint(t.filled, >, 1);
	g_assert_cmpuint(t.filled, <=, 256);
	/* A later update: no new colours, one byte a pixel, and the same
	 * bytes wherever the block is coded again. */
	vg_writer_reset(&w);
	g_assert_cmpint(vg_literal_encode_list(lc, text, &one, 1, &w), ==, VG_OK);
	g_assert_cmpuint(w.len, ==, 2 + 16 * 32);
	g_assert_cmpuint(w.data[1], ==, 0);
	check_list(&w, text, &one, 1, &t);
	g_assert_cmpint(vg_literal_encode_list(lc, text, &one, 1, &again), ==, VG_OK);
	g_assert_cmpmem(w.data, w.len, again.data, again.len);
	check_list(&again, text, &one, 1, &t);
	/* A block of one pixel in a colour the table lacks would take more
	 * than plain bytes: never from the table. */
	{
		vg_pixbuf *dot = vg_pixbuf_new(1, 1);
		vg_rect px1 = vg_pixbuf_rect(dot);

		vg_pixbuf_fill(dot, px1, VG_RGB(1, 2, 3));
		vg_writer_reset(&w);
		g_assert_cmpint(vg_literal_encode_list(lc, dot, &px1, 1, &w), ==, VG_OK);
		g_assert_cmpuint(w.len, <=, 4);
		g_assert_cmpuint(w.data[0], !=, VG_LIT_INDEXED);
		g_assert_cmpint(vg_literal_encode_as(lc, dot, px1, VG_LIT_INDEXED, &w), ==, VG_EINVAL);
		check_list(&w, dot, &px1, 1, &t);
		vg_pixbuf_free(dot);
	}
	/* Smooth content stays predicted. */
	vg_writer_reset(&w);
	g_assert_cmpint(vg_literal_encode_list(lc, smooth, cols, 4, &w), ==, VG_OK);
	g_assert_cmpuint(w.data[0], ==, VG_LIT_PREDICT);
	check_list(&w, smooth, cols, 4, &t);
	vg_literal_get_stats(lc, &st);
	g_assert_cmpuint(st.pixels[VG_LIT_INDEXED], ==, 6 * 16 * 32);
	g_assert_cmpstr(vg_lit_method_name(VG_LIT_INDEXED), ==, "indexed");

	/* Blocks of 128 new colours each, in 32 x 16 blocks of runs of 4
	 * (so no palette wins), until the table is full: then blocks with
	 * new colours fall back to plain bytes, and every list decodes,
	 * never larger than plain bytes. */
	{
		vg_pixbuf *many = vg_pixbuf_new(32, 16);
		vg_rect all = vg_pixbuf_rect(many);
		uint32_t next = 1;
		int round, raw_after_full = 0;

		for (round = 0; round < 40; round++) {
			int32_t p;
			uint64_t raw_before;

			for (p = 0; p < 512; p++)
				vg_pixbuf_row(many, p / 32)[p % 32] = next + (uint32_t)p / 4;
			next += 128;
			vg_literal_get_stats(lc, &st);
			raw_before = st.pixels[VG_LIT_RAW];
			vg_writer_reset(&w);
			g_assert_cmpint(vg_literal_encode_list(lc, many, &all, 1, &w), ==, VG_OK);
			g_assert_cmpuint(w.len, <=, 1 + 3 * 512);
			check_list(&w, many, &all, 1, &t);
			vg_literal_get_stats(lc, &st);
			if (st.pixels[VG_LIT_RAW] > raw_before) {
				g_assert_cmpuint(w.data[0], ==, VG_LIT_RAW);
				g_assert_cmpuint(t.filled + 128, >, VG_LIT_TABLE_SIZE);
				raw_after_full++;
			} else {
				g_assert_cmpuint(w.data[0], ==, VG_LIT_INDEXED);
			}
		}
		g_assert_cmpint(raw_after_full, >, 0);
		g_assert_cmpuint(t.filled, >, VG_LIT_SHORT_SLOTS);
		/* The old colours still code from the table, two bytes a slot
		 * beyond the short ones. */
		vg_writer_reset(&w);
		g_assert_cmpint(vg_literal_encode_as(lc, text, one, VG_LIT_INDEXED, &w), ==, VG_OK);
		check_list(&w, text, &one, 1, &t);
		vg_pixbuf_free(many);
	}
	/* Turning the table on again starts it empty, as a new connection. */
	vg_literal_set_indexed(lc, true);
	vg_lit_table_init(&t);
	vg_writer_reset(&w);
	g_assert_cmpint(vg_literal_encode_list(lc, text, cols, 1, &w), ==, VG_OK);
	g_assert_cmpuint(w.data[0], ==, VG_LIT_INDEXED);
	check_list(&w, text, cols, 1, &t);
	/* Every truncation fails. */
	{
		size_t cut;

		for (cut = 0; cut < w.len; cut++) {
			vg_pixbuf *dst = vg_pixbuf_new(64, 32);
			vg_lit_table fresh;
			vg_reader rd;

			vg_lit_table_init(&fresh);
			vg_reader_init(&rd, w.data, cut);
			g_assert_cmpint(vg_literal_decode(&rd, dst, cols[0], &fresh), <, 0);
			vg_pixbuf_free(dst);
		}
	}
	vg_writer_clear(&w);
	vg_writer_clear(&again);
	vg_literal_free(lc);
	vg_pixbuf_free(text);
	vg_pixbuf_free(smooth);
	g_rand_free(rng);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/literal/round-trip", test_round_trip);
	g_test_add_func("/literal/palette-sizes", test_palette_sizes);
	g_test_add_func("/literal/choices", test_choices);
	g_test_add_func("/literal/malformed", test_malformed);
	g_test_add_func("/literal/indexed", test_indexed);
	return g_test_run();
}
