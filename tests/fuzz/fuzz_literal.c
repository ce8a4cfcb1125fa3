/* libFuzzer round trip of the literal coder (fingerprint/codec/
 * vg_literal.h): pictures and block lists the input chooses are encoded,
 * decoded and compared; any difference, any decoding error and any byte
 * left over aborts. The first byte: bit 0 lets the encoder use the shared
 * colour table (INDEXED), bits 1-2 the frame's size class. Then updates
 * until the input ends, each: a byte of painted rectangles (0..7, each a
 * rectangle and its content, tests/fuzz/vg_fuzzin.h), a byte of blocks
 * (1..16, each a rectangle), and a byte whose low three bits, if below
 * VG_LIT_METHODS, code every block with that method (vg_literal_encode_as)
 * instead of letting the encoder choose (vg_literal_encode_list). The
 * colour table lives through all updates at both ends, as on a
 * connection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_pixbuf.h"
#include "common/vg_reader.h"
#include "fingerprint/codec/vg_literal.h"
#include "tests/fuzz/vg_fuzzin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool rect_equal(const vg_pixbuf *a, const vg_pixbuf *b, vg_rect r)
{
	int32_t x, y;

	for (y = r.y; y < r.y + r.h; y++)
		for (x = r.x; x < r.x + r.w; x++)
			if ((vg_pixbuf_row(a, y)[x] ^ vg_pixbuf_row(b, y)[x]) & VG_PIXEL_MASK)
				return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int32_t sizes[4][2] = { { 7, 5 }, { 32, 24 }, { 64, 48 }, { 97, 61 } };
	vg_fuzzin in;
	vg_literal *lc;
	vg_lit_table *table = malloc(sizeof *table);
	vg_pixbuf *frame, *dst;
	vg_writer out;
	uint8_t first;
	int updates = 0;

	vg_fuzzin_init(&in, data, size);
	first = vg_fuzzin_u8(&in);
	if (!table || vg_literal_new(&lc))
		abort();
	vg_literal_set_indexed(lc, first & 1);
	vg_lit_table_init(table);
	frame = vg_pixbuf_new(sizes[first >> 1 & 3][0], sizes[first >> 1 & 3][1]);
	dst = vg_pixbuf_new(frame->width, frame->height);
	vg_writer_init(&out);
	while (!vg_fuzzin_done(&in) && updates++ < 64) {
		unsigned n_paint = vg_fuzzin_u8(&in) % 8, n_blocks = 1 + vg_fuzzin_u8(&in) % 16, i;
		unsigned method = vg_fuzzin_u8(&in) & 7;
		vg_rect blocks[16];
		vg_reader rd;

		for (i = 0; i < n_paint; i++) {
			vg_rect r = vg_fuzzin_rect(&in, frame->width, frame->height), src;
			bool copied;

			vg_fuzzin_paint(&in, frame, r, &src, &copied);
		}
		for (i = 0; i < n_blocks; i++)
			blocks[i] = vg_fuzzin_rect(&in, frame->width, frame->height);
		vg_writer_reset(&out);
		if (method < VG_LIT_METHODS) {
			for (i = 0; i < n_blocks; i++) {
				int err = vg_literal_encode_as(lc, frame, blocks[i], (vg_lit_method)method, &out);

				/* A palette cannot code a block of too many colours,
				 * nor INDEXED one without the table: leave it out. */
				if (err == VG_EINVAL) {
					memmove(&blocks[i], &blocks[i + 1], (n_blocks - i - 1) * sizeof *blocks);
					n_blocks--;
					i--;
				} else if (err) {
					abort();
				}
			}
		} else if (vg_literal_encode_list(lc, frame, blocks, n_blocks, &out)) {
			abort();
		}
		vg_reader_init(&rd, out.data, out.len);
		for (i = 0; i < n_blocks; i++) {
			int err = vg_literal_decode(&rd, dst, blocks[i], table);

			if (err) {
				fprintf(stderr, "block %u of %u (%d,%d %dx%d): %s\n", i, n_blocks, blocks[i].x,
					blocks[i].y, blocks[i].w, blocks[i].h, vg_strerror(err));
				abort();
			}
			if (!rect_equal(frame, dst, blocks[i])) {
				fprintf(stderr, "block %u of %u decodes to other pixels\n", i, n_blocks);
				abort();
			}
		}
		if (vg_reader_remaining(&rd) != 0)
			abort();
	}
	vg_writer_clear(&out);
	vg_pixbuf_free(frame);
	vg_pixbuf_free(dst);
	vg_literal_free(lc);
	free(table);
	return 0;
}
