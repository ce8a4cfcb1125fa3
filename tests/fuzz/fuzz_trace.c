/* libFuzzer target for the trace reader (memory entry point): any input
 * must give records or a clean error, never a crash, a leak or a read or
 * write out of bounds; reading twice (after a rewind) must agree. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/vg_error.h"
#include "traces/vg_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads to the end; returns the final code and a digest of what was read. */
static int read_all(vg_trace_reader *r, vg_pixbuf *fb, uint64_t *digest, uint64_t *n)
{
	vg_trace_record rec;
	int err;

	*digest = 0;
	*n = 0;
	while ((err = vg_trace_reader_next(r, &rec, fb)) == 1) {
		size_t i;

		(*n)++;
		*digest = *digest * 31 + rec.kind + rec.t_ns + rec.index + rec.frame_hash;
		for (i = 0; i < rec.n_rects; i++) {
			assert(rec.rects[i].x >= 0 && rec.rects[i].y >= 0);
			assert(rec.rects[i].x + rec.rects[i].w <= vg_trace_reader_width(r));
			assert(rec.rects[i].y + rec.rects[i].h <= vg_trace_reader_height(r));
		}
		if (rec.kind == VG_TRACE_MARKER)
			assert(strlen(rec.text) == rec.text_len);
		if (rec.kind == VG_TRACE_CURSOR) {
			size_t npx = (size_t)rec.cursor.width * (size_t)rec.cursor.height;

			assert(rec.cursor.hot_x < rec.cursor.width && rec.cursor.hot_y < rec.cursor.height);
			/* Every pixel is read: ASan sees any short buffer. */
			for (i = 0; i < npx; i++)
				*digest += rec.cursor.pixels[i];
		}
	}
	assert(err <= 0);
	assert(err == 0 || vg_trace_reader_error_text(r)[0] != '\0');
	return err;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	vg_trace_reader *r;
	vg_pixbuf *fb = NULL;
	uint64_t d1, d2, n1, n2;
	int e1, e2;

	if (vg_trace_reader_open_memory(data, size, &r) != 0) {
		assert(r == NULL);
		return 0;
	}
	/* Big frames are decoded without a buffer, to keep memory in bounds;
	 * the reader checks them all the same. */
	if ((int64_t)vg_trace_reader_width(r) * vg_trace_reader_height(r) <= 1 << 20)
		fb = vg_pixbuf_new(vg_trace_reader_width(r), vg_trace_reader_height(r));
	e1 = read_all(r, fb, &d1, &n1);
	assert(vg_trace_reader_rewind(r) == 0);
	e2 = read_all(r, fb, &d2, &n2);
	assert(e1 == e2 && d1 == d2 && n1 == n2);
	vg_pixbuf_free(fb);
	vg_trace_reader_free(r);
	return 0;
}
