#include "fingerprint/proto/vg_cursorlist.h"
#include "fingerprint/proto/vg_cursorlistpriv.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "common/vg_error.h"
#include "common/vg_reader.h"
#include "fingerprint/proto/vg_proto.h"

int vg_cursorlist_new(vg_cursorlist **out)
{
	*out = calloc(1, sizeof **out);
	return *out ? VG_OK : VG_ENOSPC;
}

void vg_cursorlist_clear(vg_cursorlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->e[i].argb);
	l->n = 0;
}

void vg_cursorlist_free(vg_cursorlist *l)
{
	if (!l)
		return;
	vg_cursorlist_clear(l);
	free(l);
}

size_t vg_cursorlist_len(const vg_cursorlist *l)
{
	return l->n;
}

bool vg_cursorlist_shape_valid(int32_t w, int32_t h, int32_t hx, int32_t hy)
{
	return w >= 1 && h >= 1 && w <= VG_CURSOR_MAX_DIM && h <= VG_CURSOR_MAX_DIM && hx >= 0 &&
	       hy >= 0 && hx < w && hy < h;
}

bool vg_cursorlist_colours_valid(const uint32_t *argb, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t p = argb[i], a = p >> 24;

		if ((p >> 16 & 0xff) > a || (p >> 8 & 0xff) > a || (p & 0xff) > a)
			return false;
	}
	return true;
}

void vg_cursorlist_to_front(vg_cursorlist *l, size_t i)
{
	vg_cursorlist_entry e = l->e[i];

	memmove(&l->e[1], &l->e[0], i * sizeof l->e[0]);
	l->e[0] = e;
}

void vg_cursorlist_push_front(vg_cursorlist *l, int32_t w, int32_t h, int32_t hx, int32_t hy,
			      uint32_t *argb)
{
	if (l->n == VG_CURSORLIST_LEN)
		free(l->e[--l->n].argb);
	memmove(&l->e[1], &l->e[0], l->n * sizeof l->e[0]);
	l->e[0] = (vg_cursorlist_entry){ w, h, hx, hy, argb };
	l->n++;
}

static void shape_of(const vg_cursorlist_entry *e, vg_cursor_shape *shape)
{
	shape->width = e->width;
	shape->height = e->height;
	shape->hot_x = e->hot_x;
	shape->hot_y = e->hot_y;
	shape->argb = e->argb;
}

/* The pixels as the wire has them: little-endian 32-bit ARGB. */
static void from_le(const uint8_t *in, size_t n, uint32_t *argb)
{
	for (size_t i = 0; i < n; i++)
		argb[i] = (uint32_t)in[4 * i] | (uint32_t)in[4 * i + 1] << 8 |
			  (uint32_t)in[4 * i + 2] << 16 | (uint32_t)in[4 * i + 3] << 24;
}

int vg_cursorlist_decode(vg_cursorlist *l, const uint8_t *body, size_t len,
			 vg_cursor_shape *shape)
{
	uint64_t ref, size;
	int32_t w, h, hx, hy;
	const uint8_t *z;
	size_t n, z_len;
	uint32_t *argb;
	uint8_t kind, *raw;
	vg_reader rd;

	vg_reader_init(&rd, body, len);
	if (vg_reader_u8(&rd, &kind) || kind != VG_MSG_CURSOR || vg_reader_uleb(&rd, &ref))
		return VG_ETRUNC;
	if (ref > 0) {
		if (ref > l->n)
			return VG_ERANGE;
		if (vg_reader_remaining(&rd))
			return VG_ECORRUPT;
		vg_cursorlist_to_front(l, (size_t)(ref - 1));
		shape_of(&l->e[0], shape);
		return VG_OK;
	}
	if (vg_reader_dim(&rd, &w) || vg_reader_dim(&rd, &h) || vg_reader_dim(&rd, &hx) ||
	    vg_reader_dim(&rd, &hy))
		return VG_ETRUNC;
	if (!vg_cursorlist_shape_valid(w, h, hx, hy))
		return VG_ERANGE;
	n = (size_t)w * (size_t)h;
	z_len = vg_reader_remaining(&rd);
	z = body + rd.pos;
	/* One frame, exactly the shape's bytes, and nothing after it. */
	size = ZSTD_getFrameContentSize(z, z_len);
	if (size != n * 4 || ZSTD_findFrameCompressedSize(z, z_len) != z_len)
		return VG_ECORRUPT;
	raw = malloc(n * 4);
	argb = malloc(n * 4);
	if (!raw || !argb) {
		free(raw);
		free(argb);
		return VG_ENOSPC;
	}
	if (ZSTD_decompress(raw, n * 4, z, z_len) != n * 4) {
		free(raw);
		free(argb);
		return VG_ECORRUPT;
	}
	from_le(raw, n, argb);
	free(raw);
	if (!vg_cursorlist_colours_valid(argb, n)) {
		free(argb);
		return VG_ECORRUPT;
	}
	vg_cursorlist_push_front(l, w, h, hx, hy, argb);
	shape_of(&l->e[0], shape);
	return VG_OK;
}
