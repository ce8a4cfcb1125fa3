/* The pixel model and its range coder: round trips over content of every
 * kind, several chunks in step, blocks that see their neighbours, what
 * text costs once learnt, and damaged or misplaced input. */
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_pixbuf.h"
#include "fingerprint/codec/vg_pixmodel.h"
#include "fingerprint/codec/vg_rangecoder.h"

/* Symbols of random frequency tables come back as they went. */
static void test_rangecoder_round_trip(void)
{
	GRand *rng = g_rand_new_with_seed(3);
	enum { N = 20000 };
	static uint32_t freq[N][4], sym[N];
	vg_rc_encoder e;
	vg_rc_decoder d;
	vg_writer out;
	int i, k;

	vg_writer_init(&out);
	vg_rc_encoder_init(&e, &out);
	for (i = 0; i < N; i++) {
		uint32_t cum = 0, total = 0;

		for (k = 0; k < 4; k++)
			total += freq[i][k] = (uint32_t)g_rand_int_range(rng, 1, i % 7 ? 60 : 16000);
		sym[i] = (uint32_t)g_rand_int_range(rng, 0, 4);
		for (k = 0; k < (int)sym[i]; k++)
			cum += freq[i][k];
		vg_rc_encode(&e, cum, freq[i][sym[i]], total);
	}
	vg_rc_encoder_finish(&e);
	vg_rc_decoder_init(&d, out.data, out.len);
	for (i = 0; i < N; i++) {
		uint32_t cum = 0, total = 0, f;

		for (k = 0; k < 4; k++)
			total += freq[i][k];
		f = vg_rc_decode_freq(&d, total);
		g_assert_cmpuint(f, <, total);
		for (k = 0; f >= cum + freq[i][k]; k++)
			cum += freq[i][k];
		g_assert_cmpint(k, ==, (int)sym[i]);
		vg_rc_decode(&d, cum, freq[i][k]);
	}
	g_assert_false(d.overrun);
	vg_writer_clear(&out);
	g_rand_free(rng);
}

/* Paints r of fb with content of one kind: 0 flat, 1 two-colour glyphs,
 * 2 anti-aliased glyphs, 3 a gradient, 4 noise, 5 cells of many colours. */
static void paint(vg_pixbuf *fb, vg_rect r, int kind, GRand *rng)
{
	static const uint32_t ramp[4] = { 0xffffff, 0xaaaaaa, 0x555555, 0x000000 };
	uint32_t cell = 0;
	int32_t x, y;

	for (y = r.y; y < r.y + r.h; y++)
		for (x = r.x; x < r.x + r.w; x++) {
			uint32_t *p = &vg_pixbuf_row(fb, y)[x];
			unsigned glyph = (unsigned)((x / 6) * 31 + (y / 13) * 17) % 5;
			unsigned bit = ((glyph * 0x9e37u) >> ((x % 6) + (y % 13))) & 1;

			switch (kind) {
			case 0:
				*p = 0x204060;
				break;
			case 1:
				*p = bit ? 0x000000 : 0xffffff;
				break;
			case 2:
				*p = ramp[bit ? (glyph + (unsigned)x) % 4 : 0];
				break;
			case 3:
				*p = (uint32_t)VG_RGB(x * 3 & 0xff, y * 5 & 0xff, (x + y) & 0xff);
				break;
			case 4:
				*p = g_rand_int(rng) & 0xffffff;
				break;
			case 6:
				/* A heat map: cells of 13 x 5 on a colour scale. */
				*p = (uint32_t)(((unsigned)(x / 13) * 7 + (unsigned)(y / 5) * 11) % 23 * 0x0b0907u);
				break;
			default:
				if (x % 7 == 0 || y % 5 == 0)
					cell = g_rand_int(rng) & 0xffffff;
				*p = x % 7 == 0 ? 0x101010 : cell;
				break;
			}
		}
}

/* Codes rects of src as one chunk into out, decodes it into dst, and
 * checks that every block came back exactly. */
static void round_trip(vg_pixmodel *enc, vg_pixmodel *dec, const vg_pixbuf *src, vg_pixbuf *dst,
		       const vg_rect *rects, size_t n, vg_writer *out)
{
	size_t i;
	int32_t y;

	vg_writer_reset(out);
	g_assert_cmpint(vg_pixmodel_encode(enc, src, rects, n, out), ==, 0);
	vg_pixmodel_decode_begin(dec, out->data, out->len);
	for (i = 0; i < n; i++)
		g_assert_cmpint(vg_pixmodel_decode_rect(dec, dst, rects[i]), ==, 0);
	g_assert_cmpint(vg_pixmodel_decode_end(dec), ==, 0);
	for (i = 0; i < n; i++)
		for (y = rects[i].y; y < rects[i].y + rects[i].h; y++)
			g_assert_cmpmem(vg_pixbuf_row(dst, y) + rects[i].x, (size_t)rects[i].w * 4,
					vg_pixbuf_row(src, y) + rects[i].x, (size_t)rects[i].w * 4);
}

/* Blocks of every kind, side by side and under each other (so that their
 * contexts reach into blocks coded before), in several chunks: the
 * decoder draws each exactly, and ends each chunk cleanly. */
static void test_round_trip(void)
{
	GRand *rng = g_rand_new_with_seed(7);
	vg_pixbuf *src = vg_pixbuf_new(200, 160), *dst = vg_pixbuf_new(200, 160);
	vg_pixmodel *enc, *dec;
	vg_writer out;
	int chunk;

	g_assert_cmpint(vg_pixmodel_new(&enc), ==, 0);
	g_assert_cmpint(vg_pixmodel_new(&dec), ==, 0);
	vg_writer_init(&out);
	for (chunk = 0; chunk < 12; chunk++) {
		vg_rect rects[40];
		size_t n = 0;
		int32_t x, y;

		/* Columns of 16 pixels cut into segments of 5 to 40 rows. */
		for (x = 0; x + 16 <= 200 && n < G_N_ELEMENTS(rects); x += 16)
			for (y = 0; y < 160 && n < G_N_ELEMENTS(rects);) {
				int32_t h = g_rand_int_range(rng, 5, 41);

				h = MIN(h, 160 - y);

				if (g_rand_int_range(rng, 0, 3)) {
					rects[n] = vg_rect_make(x, y, 16, h);
					paint(src, rects[n], (chunk + (int)n) % 7, rng);
					n++;
				}
				y += h;
			}
		round_trip(enc, dec, src, dst, rects, n, &out);
	}
	vg_writer_clear(&out);
	vg_pixmodel_free(enc);
	vg_pixmodel_free(dec);
	vg_pixbuf_free(src);
	vg_pixbuf_free(dst);
	g_rand_free(rng);
}

/* What content costs: a flat page next to nothing; a heat map's cells
 * under a 150th of a byte a pixel (its rows inside a cell repeat the one
 * above); glyphs under a tenth
 * of a byte a pixel, and their copy elsewhere no more than the first time;
 * noise hardly more than its three bytes a pixel. */
static void test_costs(void)
{
	GRand *rng = g_rand_new_with_seed(1);
	vg_pixbuf *fb = vg_pixbuf_new(256, 208);
	vg_pixmodel *m;
	vg_writer out;
	vg_rect page = vg_rect_make(0, 0, 256, 104), again = vg_rect_make(0, 104, 256, 104);
	vg_pixbuf copy;
	size_t first, second;

	g_assert_cmpint(vg_pixmodel_new(&m), ==, 0);
	vg_writer_init(&out);
	paint(fb, page, 0, rng);
	g_assert_cmpint(vg_pixmodel_encode(m, fb, &page, 1, &out), ==, 0);
	g_test_message("flat: %zu bytes", out.len);
	g_assert_cmpuint(out.len, <, 64);
	paint(fb, page, 6, rng);
	vg_writer_reset(&out);
	g_assert_cmpint(vg_pixmodel_encode(m, fb, &page, 1, &out), ==, 0);
	g_test_message("cells: %zu bytes", out.len);
	g_assert_cmpuint(out.len * 150, <, (size_t)page.w * (size_t)page.h);
	paint(fb, page, 2, rng);
	copy = vg_pixbuf_view(fb, page);
	g_assert_cmpint(vg_pixbuf_copy(fb, again.x, again.y, &copy), ==, 0);
	vg_writer_reset(&out);
	g_assert_cmpint(vg_pixmodel_encode(m, fb, &page, 1, &out), ==, 0);
	first = out.len;
	vg_writer_reset(&out);
	g_assert_cmpint(vg_pixmodel_encode(m, fb, &again, 1, &out), ==, 0);
	second = out.len;
	g_test_message("glyphs: %zu bytes, then %zu", first, second);
	g_assert_cmpuint(first * 10, <, (size_t)page.w * (size_t)page.h);
	g_assert_cmpuint(second, <=, first);
	paint(fb, page, 4, rng);
	vg_writer_reset(&out);
	g_assert_cmpint(vg_pixmodel_encode(m, fb, &page, 1, &out), ==, 0);
	g_test_message("noise: %zu bytes for %d pixels", out.len, page.w * page.h);
	g_assert_cmpuint(out.len, <, (size_t)page.w * (size_t)page.h * 3 * 102 / 100 + 64);
	vg_writer_clear(&out);
	vg_pixmodel_free(m);
	vg_pixbuf_free(fb);
	g_rand_free(rng);
}

/* A heat map's scale: cells of 13 x 5 whose colours are 600 of a
 * scale, drawn by a hash of the cell and shift. */
static void paint_scale(vg_pixbuf *fb, vg_rect r, unsigned shift)
{
	int32_t x, y;

	for (y = r.y; y < r.y + r.h; y++)
		for (x = r.x; x < r.x + r.w; x++) {
			uint32_t h = ((uint32_t)(x / 13) * 0x9e3779b1u ^ (uint32_t)(y / 5) * 0x85ebca6bu) + shift;
			unsigned i;

			h ^= h >> 15;
			h *= 0x2c1b3c6du;
			h ^= h >> 12;
			i = h % 600;

			vg_pixbuf_row(fb, y)[x] = (uint32_t)VG_RGB(i & 0xff, i >> 8 & 0xff, i * 3 & 0xff);
		}
}

/* The colours of a scale seen once are remembered, hundreds of them:
 * the same cells in another order cost under three quarters of the first
 * time. */
static void test_scale(void)
{
	vg_pixbuf *fb = vg_pixbuf_new(320, 300);
	vg_rect page = vg_rect_make(0, 0, 320, 300);
	vg_pixmodel *m;
	vg_writer out;
	size_t first;

	g_assert_cmpint(vg_pixmodel_new(&m), ==, 0);
	vg_writer_init(&out);
	paint_scale(fb, page, 0);
	g_assert_cmpint(vg_pixmodel_encode(m, fb, &page, 1, &out), ==, 0);
	first = out.len;
	paint_scale(fb, page, 257);
	vg_writer_reset(&out);
	g_assert_cmpint(vg_pixmodel_encode(m, fb, &page, 1, &out), ==, 0);
	g_test_message("scale of 600 colours: %zu bytes, then %zu", first, out.len);
	g_assert_cmpuint(out.len * 4, <, first * 3);
	vg_writer_clear(&out);
	vg_pixmodel_free(m);
	vg_pixbuf_free(fb);
}

/* The same heat map page coded whole and as the segmenter's columns of
 * 16 pixels, which cut its cells of 13: a cell's part at a column's right
 * edge is a run like the rest of its row, though the row above's stretch
 * there is short, so the columns cost under 16 % more than the page
 * whole (they cost 19-21 % more when those parts went pixel by pixel
 * through the contexts). */
static void test_cut_cells(void)
{
	vg_pixbuf *fb = vg_pixbuf_new(320, 300);
	vg_rect page = vg_rect_make(0, 0, 320, 300), cols[20];
	vg_pixmodel *whole, *cut;
	vg_writer out;
	size_t n, i, bytes[2];

	for (n = 0; n < G_N_ELEMENTS(cols); n++)
		cols[n] = vg_rect_make((int32_t)n * 16, 0, 16, 300);
	g_assert_cmpint(vg_pixmodel_new(&whole), ==, 0);
	g_assert_cmpint(vg_pixmodel_new(&cut), ==, 0);
	vg_writer_init(&out);
	for (i = 0; i < 2; i++) {
		paint_scale(fb, page, (unsigned)i * 257);
		vg_writer_reset(&out);
		g_assert_cmpint(vg_pixmodel_encode(whole, fb, &page, 1, &out), ==, 0);
		bytes[0] = out.len;
		vg_writer_reset(&out);
		g_assert_cmpint(vg_pixmodel_encode(cut, fb, cols, n, &out), ==, 0);
		bytes[1] = out.len;
		g_test_message("page %zu: %zu bytes whole, %zu in columns", i, bytes[0], bytes[1]);
		g_assert_cmpuint(bytes[1] * 100, <, bytes[0] * 116);
	}
	vg_writer_clear(&out);
	vg_pixmodel_free(whole);
	vg_pixmodel_free(cut);
	vg_pixbuf_free(fb);
}

/* Clustered data on a red-green scale, as a heat map of expression
 * shows it: each cell of 8 x 5 takes the mean of its left and upper
 * neighbours' values, moved a little at random. */
static void paint_clustered(vg_pixbuf *fb, GRand *rng)
{
	enum { CW = 8, CH = 5 };
	int v[64][64], c, r, x, y;

	for (r = 0; r < fb->height / CH; r++)
		for (c = 0; c < fb->width / CW; c++) {
			int mean = r == 0 && c == 0 ? 0 : r == 0 ? v[r][c - 1] : c == 0 ? v[r - 1][c]
										 : (v[r][c - 1] + v[r - 1][c]) / 2;

			v[r][c] = CLAMP(mean + g_rand_int_range(rng, -40, 41), -255, 255);
			for (y = r * CH; y < (r + 1) * CH; y++)
				for (x = c * CW; x < (c + 1) * CW; x++)
					vg_pixbuf_row(fb, y)[x] = v[r][c] >= 0 ? (uint32_t)VG_RGB(v[r][c], 0, 0)
									       : (uint32_t)VG_RGB(0, -v[r][c], 0);
		}
}

/* A cell's colour lies near its neighbours' on the scale: the list by
 * nearness codes the cells of clustered pages (after a first, which
 * teaches the list the scale) in 10.6 bits each, under the 11 allowed
 * (by counts alone they took 11.7), and the decoder draws them exactly. */
static void test_near(void)
{
	GRand *rng = g_rand_new_with_seed(5);
	vg_pixbuf *src = vg_pixbuf_new(320, 300), *dst = vg_pixbuf_new(320, 300);
	vg_rect page = vg_rect_make(0, 0, 320, 300);
	vg_pixmodel *enc, *dec;
	vg_writer out;
	size_t later = 0, cells = (320 / 8) * (300 / 5);
	int i;

	g_assert_cmpint(vg_pixmodel_new(&enc), ==, 0);
	g_assert_cmpint(vg_pixmodel_new(&dec), ==, 0);
	vg_writer_init(&out);
	for (i = 0; i < 4; i++) {
		paint_clustered(src, rng);
		round_trip(enc, dec, src, dst, &page, 1, &out);
		g_test_message("clustered page %d: %zu bytes", i, out.len);
		if (i > 0)
			later += out.len;
	}
	g_test_message("%.2f bits a cell after the first page", (double)later * 8 / (double)(3 * cells));
	g_assert_cmpuint(later * 8, <, 3 * cells * 11);
	vg_writer_clear(&out);
	vg_pixmodel_free(enc);
	vg_pixmodel_free(dec);
	vg_pixbuf_free(src);
	vg_pixbuf_free(dst);
	g_rand_free(rng);
}

/* Four pages of a grid's cells, cw x 3 pixels in 64 colours, aligned
 * row under row, each cell's colour drawn at random, coded by one model;
 * bits a cell. */
static double cell_bits(int cw)
{
	enum { W = 312, H = 300, CH = 3 };
	GRand *rng = g_rand_new_with_seed(11);
	vg_pixbuf *src = vg_pixbuf_new(W, H), *dst = vg_pixbuf_new(W, H);
	vg_rect page = vg_rect_make(0, 0, W, H);
	vg_pixmodel *enc, *dec;
	vg_writer out;
	size_t total = 0;
	int i, r, c, x, y;

	g_assert_cmpint(vg_pixmodel_new(&enc), ==, 0);
	g_assert_cmpint(vg_pixmodel_new(&dec), ==, 0);
	vg_writer_init(&out);
	for (i = 0; i < 4; i++) {
		for (r = 0; r < H / CH; r++)
			for (c = 0; c < W / cw; c++) {
				uint32_t k = (uint32_t)g_rand_int_range(rng, 0, 64);
				uint32_t colour = VG_RGB(k * 4, 255 - k * 4, (k & 7) * 32);

				for (y = r * CH; y < (r + 1) * CH; y++)
					for (x = c * cw; x < (c + 1) * cw; x++)
						vg_pixbuf_row(src, y)[x] = colour;
			}
		round_trip(enc, dec, src, dst, &page, 1, &out);
		total += out.len;
	}
	vg_writer_clear(&out);
	vg_pixmodel_free(enc);
	vg_pixmodel_free(dec);
	vg_pixbuf_free(src);
	vg_pixbuf_free(dst);
	g_rand_free(rng);
	return (double)total * 8 / (4.0 * (W / cw) * (H / CH));
}

/* A grid's cell whose first pixel is new: its second starts a run of the
 * cell's colour (a yes) where the widest context has not seen its
 * neighbours, rather than a probe of every context; below a row that
 * repeated its own, even where the cell is narrow. Cells 12 wide: 6.43
 * bits a cell, under the 6.7 allowed (6.99 with the second pixel through
 * the contexts); 4 wide: 6.36, under the 7.0 allowed (8.40 with it
 * through the contexts). */
static void test_cell_runs(void)
{
	double wide = cell_bits(12), narrow = cell_bits(4);

	g_test_message("%.2f bits a cell 12 wide, %.2f a cell 4 wide", wide, narrow);
	g_assert_cmpfloat(wide, <, 6.7);
	g_assert_cmpfloat(narrow, <, 7.0);
}

/* Damaged chunks end in an error or in wrong pixels, never in a crash
 * or a read past the input (the suite runs under AddressSanitizer);
 * a truncated chunk is an error; rectangles outside the picture are
 * refused; decoding without a chunk begun is refused. */
static void test_damage(void)
{
	GRand *rng = g_rand_new_with_seed(9);
	vg_pixbuf *src = vg_pixbuf_new(64, 64), *dst = vg_pixbuf_new(64, 64);
	vg_rect rects[4] = { { 0, 0, 16, 64 }, { 16, 0, 16, 64 }, { 32, 0, 16, 64 }, { 48, 0, 16, 64 } };
	vg_pixmodel *enc, *dec;
	vg_writer out;
	int trial, k;

	g_assert_cmpint(vg_pixmodel_new(&dec), ==, 0);
	g_assert_cmpint(vg_pixmodel_decode_rect(dec, dst, rects[0]), ==, VG_EINVAL);
	vg_pixmodel_free(dec);
	vg_writer_init(&out);
	for (k = 0; k < 4; k++)
		paint(src, rects[k], k + 1, rng);
	for (trial = 0; trial < 200; trial++) {
		uint8_t *copy;
		size_t len;
		int err = 0;

		g_assert_cmpint(vg_pixmodel_new(&enc), ==, 0);
		g_assert_cmpint(vg_pixmodel_new(&dec), ==, 0);
		vg_writer_reset(&out);
		g_assert_cmpint(vg_pixmodel_encode(enc, src, rects, 4, &out), ==, 0);
		len = trial == 0 ? out.len / 2 : out.len;
		copy = g_memdup2(out.data, len);
		if (trial > 0)
			copy[g_rand_int_range(rng, 0, (gint32)len)] ^= (uint8_t)g_rand_int_range(rng, 1, 256);
		vg_pixmodel_decode_begin(dec, copy, len);
		for (k = 0; k < 4 && !err; k++)
			err = vg_pixmodel_decode_rect(dec, dst, rects[k]);
		if (trial == 0) {
			/* Cut in half: the block that reads past the end says so
			 * itself, and is not drawn from nothing. */
			vg_rect cut = rects[k - 1];

			g_assert_cmpint(err, ==, VG_ECORRUPT);
			for (int y = cut.y; y < cut.y + cut.h; y++)
				for (int x = cut.x; x < cut.x + cut.w; x++)
					g_assert_cmphex(vg_pixbuf_row(dst, y)[x], ==, 0);
		}
		if (!err)
			err = vg_pixmodel_decode_end(dec);
		g_assert_true(err == 0 || err == VG_ECORRUPT);
		g_free(copy);
		vg_pixmodel_free(enc);
		vg_pixmodel_free(dec);
	}
	g_assert_cmpint(vg_pixmodel_new(&enc), ==, 0);
	{
		vg_rect outside = vg_rect_make(60, 0, 16, 8), empty = vg_rect_make(0, 0, 0, 8);

		g_assert_cmpint(vg_pixmodel_encode(enc, src, &outside, 1, &out), ==, VG_ERANGE);
		g_assert_cmpint(vg_pixmodel_encode(enc, src, &empty, 1, &out), ==, VG_ERANGE);
		vg_pixmodel_decode_begin(enc, out.data, out.len);
		g_assert_cmpint(vg_pixmodel_decode_rect(enc, dst, outside), ==, VG_ERANGE);
	}
	vg_pixmodel_free(enc);
	vg_writer_clear(&out);
	vg_pixbuf_free(src);
	vg_pixbuf_free(dst);
	g_rand_free(rng);
}

/* Codes r of src by m into out (emptied first). */
static void encode_one(vg_pixmodel *m, const vg_pixbuf *src, vg_rect r, vg_writer *out)
{
	vg_writer_reset(out);
	g_assert_cmpint(vg_pixmodel_encode(m, src, &r, 1, out), ==, 0);
}

/* A reset model codes as a new one does, whether it learnt a little (its
 * slots cleared one by one) or a lot (its tables cleared whole), and a
 * model that learnt without a reset codes differently. */
static void test_reset(void)
{
	GRand *rng = g_rand_new_with_seed(11);
	vg_pixbuf *src = vg_pixbuf_new(256, 192);
	vg_rect all = vg_rect_make(0, 0, 256, 192), probe = vg_rect_make(0, 0, 48, 26);
	vg_pixmodel *fresh, *m;
	vg_writer want, got;
	int lot;

	paint(src, all, 5, rng);
	paint(src, probe, 2, rng);
	vg_writer_init(&want);
	vg_writer_init(&got);
	g_assert_cmpint(vg_pixmodel_new(&fresh), ==, 0);
	encode_one(fresh, src, probe, &want);
	for (lot = 0; lot < 2; lot++) {
		g_assert_cmpint(vg_pixmodel_new(&m), ==, 0);
		/* A few glyphs, or enough noise to use more slots than a
		 * reset clears one by one. */
		if (lot)
			paint(src, vg_rect_make(0, 96, 256, 96), 4, rng);
		encode_one(m, src, lot ? vg_rect_make(0, 96, 256, 96) : probe, &got);
		encode_one(m, src, probe, &got);
		g_assert_true(got.len != want.len || memcmp(got.data, want.data, got.len) != 0);
		vg_pixmodel_reset(m);
		encode_one(m, src, probe, &got);
		g_assert_cmpmem(got.data, got.len, want.data, want.len);
		vg_pixmodel_free(m);
	}
	vg_writer_clear(&want);
	vg_writer_clear(&got);
	vg_pixmodel_free(fresh);
	vg_pixbuf_free(src);
	g_rand_free(rng);
}

/* A model's memory stays within what doc/protocol.md promises a viewer
 * that keeps one: 8 MB at each end. */
static void test_memory(void)
{
	g_assert_cmpuint(vg_pixmodel_bytes(), <=, 8000000);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/rangecoder/round-trip", test_rangecoder_round_trip);
	g_test_add_func("/pixmodel/round-trip", test_round_trip);
	g_test_add_func("/pixmodel/costs", test_costs);
	g_test_add_func("/pixmodel/scale", test_scale);
	g_test_add_func("/pixmodel/cut-cells", test_cut_cells);
	g_test_add_func("/pixmodel/near", test_near);
	g_test_add_func("/pixmodel/cell-runs", test_cell_runs);
	g_test_add_func("/pixmodel/damage", test_damage);
	g_test_add_func("/pixmodel/reset", test_reset);
	g_test_add_func("/pixmodel/memory", test_memory);
	return g_test_run();
}
