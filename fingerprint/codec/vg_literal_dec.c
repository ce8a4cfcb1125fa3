/* The decoding half of vg_literal.h, apart from the coder in
 * vg_literal.c so that a decoder-only build (the browser's) carries no
 * encoder. */
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_minmax.h"
#include "fingerprint/codec/vg_literal.h"
#include "fingerprint/codec/vg_literalpriv.h"

void vg_lit_table_init(vg_lit_table *t)
{
	/* Slots from filled on are never read: emptying is forgetting. */
	t->filled = 0;
}

static int read_palette(vg_reader *rd, uint32_t *colours, unsigned max, unsigned *n)
{
	const uint8_t *p;
	uint8_t count;
	unsigned i;

	if (vg_reader_u8(rd, &count))
		return VG_ETRUNC;
	*n = (unsigned)count + 1;
	if (*n > max)
		return VG_ECORRUPT;
	if (vg_reader_ptr(rd, 3 * (size_t)*n, &p))
		return VG_ETRUNC;
	for (i = 0; i < *n; i++, p += 3)
		colours[i] = VG_RGB(p[2], p[1], p[0]);
	return VG_OK;
}

static int get_packed(vg_reader *rd, vg_pixbuf *fb, vg_rect r, const uint32_t *colours,
		      unsigned n)
{
	unsigned bits = index_bits(n), mask = (1u << bits) - 1;
	size_t row_bytes = ((size_t)r.w * bits + 7) / 8;
	const uint8_t *p;
	int32_t x, y;

	if (n == 1) {
		vg_pixbuf_fill(fb, r, colours[0]);
		return VG_OK;
	}
	if (vg_reader_ptr(rd, row_bytes * (size_t)r.h, &p))
		return VG_ETRUNC;
	for (y = r.y; y < r.y + r.h; y++, p += row_bytes) {
		uint32_t *row = vg_pixbuf_row(fb, y) + r.x;
		unsigned at = 0;

		for (x = 0; x < r.w; x++, at += bits) {
			unsigned i = (unsigned)p[at / 8] >> (8 - bits - at % 8) & mask;

			if (i >= n)
				return VG_ECORRUPT;
			row[x] = colours[i];
		}
	}
	return VG_OK;
}

static int get_runs(vg_reader *rd, vg_pixbuf *fb, vg_rect r, const uint32_t *colours,
		    unsigned n)
{
	uint64_t left = (uint64_t)r.w * (uint64_t)r.h;
	int32_t x = 0, y = r.y;

	while (left > 0) {
		uint64_t len = 1;
		uint8_t b;
		uint32_t c;

		if (vg_reader_u8(rd, &b))
			return VG_ETRUNC;
		if ((b & 0x7f) >= n)
			return VG_ECORRUPT;
		if (b & 0x80) {
			if (vg_reader_uleb(rd, &len))
				return VG_ETRUNC;
			if (left < 2 || len > left - 2)
				return VG_ECORRUPT;
			len += 2;
		}
		c = colours[b & 0x7f];
		left -= len;
		while (len > 0) {
			uint32_t *row = vg_pixbuf_row(fb, y) + r.x;
			int32_t k = (int32_t)VG_MIN(len, (uint64_t)(r.w - x)), e = x + k;

			for (; x < e; x++)
				row[x] = c;
			len -= (uint64_t)k;
			if (x == r.w) {
				x = 0;
				y++;
			}
		}
	}
	return VG_OK;
}

static int get_predicted(vg_reader *rd, vg_pixbuf *fb, vg_rect r)
{
	const uint8_t *p;
	int32_t x, y;

	if (vg_reader_ptr(rd, (size_t)r.w * (size_t)r.h * 3, &p))
		return VG_ETRUNC;
	for (y = r.y; y < r.y + r.h; y++) {
		uint32_t *row = vg_pixbuf_row(fb, y) + r.x;
		const uint32_t *up = y > r.y ? vg_pixbuf_row(fb, y - 1) + r.x : NULL;

		for (x = 0; x < r.w; x++, p += 3) {
			uint8_t g = (uint8_t)(predict(row, up, x, 8) + p[0]);
			uint8_t b = (uint8_t)(predict(row, up, x, 0) + (uint8_t)(p[1] + p[0]));
			uint8_t rd_ = (uint8_t)(predict(row, up, x, 16) + (uint8_t)(p[2] + p[0]));

			row[x] = VG_RGB(rd_, g, b);
		}
	}
	return VG_OK;
}

static int get_indexed(vg_reader *rd, vg_pixbuf *fb, vg_rect r, vg_lit_table *t)
{
	const uint8_t *p, *end;
	uint64_t n;
	int32_t x, y;

	if (!t)
		return VG_ECORRUPT;
	if (vg_reader_uleb(rd, &n))
		return VG_ETRUNC;
	if (n > VG_LIT_TABLE_SIZE - t->filled)
		return VG_ECORRUPT;
	if (vg_reader_ptr(rd, 3 * (size_t)n, &p))
		return VG_ETRUNC;
	for (; n > 0; n--, p += 3)
		t->colour[t->filled++] = VG_RGB(p[2], p[1], p[0]);
	/* The slots' length is known only as they are read. */
	p = rd->data + rd->pos;
	end = rd->data + rd->len;
	for (y = r.y; y < r.y + r.h; y++) {
		uint32_t *row = vg_pixbuf_row(fb, y) + r.x;

		for (x = 0; x < r.w; x++) {
			unsigned slot;

			if (p == end)
				return VG_ETRUNC;
			slot = *p++;
			if (slot >= VG_LIT_SHORT_SLOTS) {
				if (p == end)
					return VG_ETRUNC;
				slot = VG_LIT_SHORT_SLOTS + ((slot - VG_LIT_SHORT_SLOTS) << 8 | *p++);
			}
			if (slot >= t->filled)
				return VG_ECORRUPT;
			row[x] = t->colour[slot];
		}
	}
	rd->pos = (size_t)(p - rd->data);
	return VG_OK;
}

static int get_raw(vg_reader *rd, vg_pixbuf *fb, vg_rect r)
{
	const uint8_t *p;
	int32_t x, y;

	if (vg_reader_ptr(rd, (size_t)r.w * (size_t)r.h * 3, &p))
		return VG_ETRUNC;
	for (y = r.y; y < r.y + r.h; y++) {
		uint32_t *row = vg_pixbuf_row(fb, y) + r.x;

		for (x = 0; x < r.w; x++, p += 3)
			row[x] = VG_RGB(p[2], p[1], p[0]);
	}
	return VG_OK;
}

int vg_literal_decode(vg_reader *rd, vg_pixbuf *fb, vg_rect rect, vg_lit_table *table)
{
	uint32_t colours[VG_LIT_PALETTE_MAX];
	unsigned n;
	uint8_t method;
	int err;

	if (!vg_pixbuf_holds(fb, rect))
		return VG_ERANGE;
	if (vg_reader_u8(rd, &method))
		return VG_ETRUNC;
	switch (method) {
	case VG_LIT_RAW:
		return get_raw(rd, fb, rect);
	case VG_LIT_PREDICT:
		return get_predicted(rd, fb, rect);
	case VG_LIT_PALETTE:
		if ((err = read_palette(rd, colours, VG_LIT_PALETTE_MAX, &n)))
			return err;
		return get_packed(rd, fb, rect, colours, n);
	case VG_LIT_PALETTE_RLE:
		if ((err = read_palette(rd, colours, VG_LIT_RLE_PALETTE_MAX, &n)))
			return err;
		return get_runs(rd, fb, rect, colours, n);
	case VG_LIT_INDEXED:
		return get_indexed(rd, fb, rect, table);
	default:
		return VG_ECORRUPT;
	}
}
