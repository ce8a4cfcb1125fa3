/* libFuzzer round trip of the pixel model (fingerprint/codec/
 * vg_pixmodel.h): chunks of blocks the input chooses are encoded by one
 * model and decoded by another, which must draw every block exactly and
 * end every chunk cleanly; the models learn across chunks, as both ends
 * of a connection do. The first byte picks the frame's size class. Then
 * chunks until the input ends, each: a byte of painted rectangles (0..7,
 * tests/fuzz/vg_fuzzin.h), a byte for the tile size (width 1..32, height
 * 1..16) and 8 bytes whose bits say which tiles of a grid over the frame
 * the chunk codes, in order (so blocks never overlap, as a sender's
 * segments do not; a tile's neighbours may be blocks coded before it).
 * The two models serve every input, reset before each
 * (vg_pixmodel_reset), so that the reset is fuzzed too. */
#include <stdio.h>
#include <stdlib.h>

#include "common/vg_error.h"
#include "common/vg_pixbuf.h"
#include "fingerprint/codec/vg_pixmodel.h"
#include "tests/fuzz/vg_fuzzin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int32_t min32(int32_t a, int32_t b)
{
	return a < b ? a : b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int32_t sizes[4][2] = { { 9, 7 }, { 40, 30 }, { 64, 48 }, { 130, 70 } };
	static vg_pixmodel *enc, *dec;
	vg_rect blocks[64];
	vg_fuzzin in;
	vg_pixbuf *frame, *dst;
	vg_writer out;
	uint8_t first;
	int chunks = 0;

	if (!enc && (vg_pixmodel_new(&enc) || vg_pixmodel_new(&dec)))
		abort();
	vg_pixmodel_reset(enc);
	vg_pixmodel_reset(dec);
	vg_fuzzin_init(&in, data, size);
	first = vg_fuzzin_u8(&in);
	frame = vg_pixbuf_new(sizes[first & 3][0], sizes[first & 3][1]);
	dst = vg_pixbuf_new(frame->width, frame->height);
	vg_writer_init(&out);
	while (!vg_fuzzin_done(&in) && chunks++ < 32) {
		unsigned n_paint = vg_fuzzin_u8(&in) % 8, i, bit = 0;
		uint8_t tile = vg_fuzzin_u8(&in);
		int32_t tw = 1 + tile % 32, th = 1 + tile / 32 * 2 + tile % 2, x, y;
		uint8_t pick[8];
		size_t n = 0;

		for (i = 0; i < n_paint; i++) {
			vg_rect r = vg_fuzzin_rect(&in, frame->width, frame->height), src;
			bool copied;

			vg_fuzzin_paint(&in, frame, r, &src, &copied);
		}
		for (i = 0; i < 8; i++)
			pick[i] = vg_fuzzin_u8(&in);
		for (y = 0; y < frame->height; y += th)
			for (x = 0; x < frame->width && n < 64; x += tw, bit++)
				if (pick[bit / 8 % 8] >> bit % 8 & 1)
					blocks[n++] = vg_rect_make(x, y, min32(tw, frame->width - x),
								   min32(th, frame->height - y));
		vg_writer_reset(&out);
		if (vg_pixmodel_encode(enc, frame, blocks, n, &out))
			abort();
		vg_pixmodel_decode_begin(dec, out.data, out.len);
		for (i = 0; i < n; i++) {
			int32_t yy;

			if (vg_pixmodel_decode_rect(dec, dst, blocks[i])) {
				fprintf(stderr, "chunk %d block %u: damaged\n", chunks, i);
				abort();
			}
			for (yy = blocks[i].y; yy < blocks[i].y + blocks[i].h; yy++)
				for (x = blocks[i].x; x < blocks[i].x + blocks[i].w; x++)
					if ((vg_pixbuf_row(dst, yy)[x] ^ vg_pixbuf_row(frame, yy)[x]) & VG_PIXEL_MASK) {
						fprintf(stderr, "chunk %d block %u: pixel %d,%d differs\n", chunks,
							i, x, yy);
						abort();
					}
		}
		if (vg_pixmodel_decode_end(dec))
			abort();
	}
	vg_writer_clear(&out);
	vg_pixbuf_free(frame);
	vg_pixbuf_free(dst);
	return 0;
}
