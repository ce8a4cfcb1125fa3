/* CURSOR messages coded: the sender's half of vg_cursorlist (the
 * browser's receiver has zstd's decompressor only). */
#include "fingerprint/proto/vg_cursorlist.h"
#include "fingerprint/proto/vg_cursorlistpriv.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "common/vg_error.h"
#include "fingerprint/proto/vg_proto.h"

/* Cursors are rare and small: the strongest level costs well under a
 * millisecond on a 64x64 shape. */
#define CURSOR_ZSTD_LEVEL 19

/* The pixels as the wire has them: little-endian 32-bit ARGB. */
static void to_le(const uint32_t *argb, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i++) {
		out[4 * i] = (uint8_t)argb[i];
		out[4 * i + 1] = (uint8_t)(argb[i] >> 8);
		out[4 * i + 2] = (uint8_t)(argb[i] >> 16);
		out[4 * i + 3] = (uint8_t)(argb[i] >> 24);
	}
}

int vg_cursorlist_encode(vg_cursorlist *l, const vg_cursor_shape *shape, vg_writer *w)
{
	size_t n, raw_len, bound, z_len, start = w->len;
	uint32_t *copy;
	uint8_t *raw;

	if (!vg_cursorlist_shape_valid(shape->width, shape->height, shape->hot_x, shape->hot_y))
		return VG_EINVAL;
	n = (size_t)shape->width * (size_t)shape->height;
	if (!vg_cursorlist_colours_valid(shape->argb, n))
		return VG_EINVAL;
	for (size_t i = 0; i < l->n; i++) {
		const vg_cursorlist_entry *e = &l->e[i];

		if (e->width == shape->width && e->height == shape->height &&
		    e->hot_x == shape->hot_x && e->hot_y == shape->hot_y &&
		    !memcmp(e->argb, shape->argb, n * 4)) {
			vg_writer_u8(w, VG_MSG_CURSOR);
			vg_writer_uleb(w, i + 1);
			vg_cursorlist_to_front(l, i);
			return VG_OK;
		}
	}
	raw_len = n * 4;
	bound = ZSTD_compressBound(raw_len);
	copy = malloc(raw_len);
	raw = malloc(raw_len);
	if (!copy || !raw) {
		free(copy);
		free(raw);
		return VG_ENOSPC;
	}
	memcpy(copy, shape->argb, raw_len);
	to_le(shape->argb, n, raw);
	vg_writer_u8(w, VG_MSG_CURSOR);
	vg_writer_uleb(w, 0);
	vg_writer_uleb(w, (uint64_t)shape->width);
	vg_writer_uleb(w, (uint64_t)shape->height);
	vg_writer_uleb(w, (uint64_t)shape->hot_x);
	vg_writer_uleb(w, (uint64_t)shape->hot_y);
	z_len = ZSTD_compress(vg_writer_reserve(w, bound), bound, raw, raw_len, CURSOR_ZSTD_LEVEL);
	free(raw);
	if (ZSTD_isError(z_len)) {
		free(copy);
		w->len = start;
		return VG_EZLIB;
	}
	w->len -= bound - z_len;
	vg_cursorlist_push_front(l, shape->width, shape->height, shape->hot_x, shape->hot_y, copy);
	return VG_OK;
}

