#include "tests/fuzz/vg_fuzzin.h"

#include <string.h>

void vg_fuzzin_init(vg_fuzzin *in, const uint8_t *data, size_t size)
{
	in->data = data;
	in->left = size;
}

uint8_t vg_fuzzin_u8(vg_fuzzin *in)
{
	if (in->left == 0)
		return 0;
	in->left--;
	return *in->data++;
}

uint16_t vg_fuzzin_u16(vg_fuzzin *in)
{
	uint16_t hi = vg_fuzzin_u8(in);

	return (uint16_t)(hi << 8 | vg_fuzzin_u8(in));
}

bool vg_fuzzin_done(const vg_fuzzin *in)
{
	return in->left == 0;
}

vg_rect vg_fuzzin_rect(vg_fuzzin *in, int32_t w, int32_t h)
{
	int32_t x = vg_fuzzin_u8(in) % w, y = vg_fuzzin_u8(in) % h;
	int32_t rw = 1 + vg_fuzzin_u8(in) % (w - x), rh = 1 + vg_fuzzin_u8(in) % (h - y);

	return vg_rect_make(x, y, rw, rh);
}

static uint32_t colour_of(vg_fuzzin *in)
{
	uint32_t c = vg_fuzzin_u8(in);

	c = c << 8 | vg_fuzzin_u8(in);
	return (c << 8 | vg_fuzzin_u8(in)) & VG_PIXEL_MASK;
}

void vg_fuzzin_paint(vg_fuzzin *in, vg_pixbuf *fb, vg_rect r, vg_rect *src, bool *copied)
{
	uint8_t kind = vg_fuzzin_u8(in) % 6;
	uint32_t pal[8], seed;
	unsigned n_pal, i;
	int32_t x, y;

	*copied = false;
	switch (kind) {
	case 0: /* one colour */
		vg_pixbuf_fill(fb, r, colour_of(in));
		break;
	case 1: /* up to eight colours in a pattern of the input's bits */
		n_pal = 1 + vg_fuzzin_u8(in) % 8;
		for (i = 0; i < n_pal; i++)
			pal[i] = colour_of(in);
		seed = vg_fuzzin_u8(in);
		for (y = r.y; y < r.y + r.h; y++)
			for (x = r.x; x < r.x + r.w; x++) {
				seed = seed * 1103515245u + 12345u;
				vg_pixbuf_row(fb, y)[x] = pal[(seed >> 16) % n_pal];
			}
		break;
	case 2: /* the input's bytes as pixels, then zeros */
		for (y = r.y; y < r.y + r.h; y++)
			for (x = r.x; x < r.x + r.w; x++)
				vg_pixbuf_row(fb, y)[x] = colour_of(in);
		break;
	case 3: { /* a gradient */
		uint32_t base = colour_of(in);
		uint8_t dx = vg_fuzzin_u8(in), dy = vg_fuzzin_u8(in);

		for (y = r.y; y < r.y + r.h; y++)
			for (x = r.x; x < r.x + r.w; x++)
				vg_pixbuf_row(fb, y)[x] =
					(base + (uint32_t)(x - r.x) * dx + (uint32_t)(y - r.y) * dy * 0x100u) &
					VG_PIXEL_MASK;
		break;
	}
	case 4: /* noise */
		seed = colour_of(in) | 1u;
		for (y = r.y; y < r.y + r.h; y++)
			for (x = r.x; x < r.x + r.w; x++) {
				seed ^= seed << 13;
				seed ^= seed >> 17;
				seed ^= seed << 5;
				vg_pixbuf_row(fb, y)[x] = seed & VG_PIXEL_MASK;
			}
		break;
	default: { /* a copy of another part of fb, overlapping or not */
		int32_t sx = vg_fuzzin_u8(in) % (fb->width - r.w + 1);
		int32_t sy = vg_fuzzin_u8(in) % (fb->height - r.h + 1);

		*src = vg_rect_make(sx, sy, r.w, r.h);
		*copied = true;
		/* Rows in the order that reads each before it is overwritten. */
		if (sy >= r.y) {
			for (y = 0; y < r.h; y++)
				memmove(vg_pixbuf_row(fb, r.y + y) + r.x, vg_pixbuf_row(fb, sy + y) + sx,
					(size_t)r.w * sizeof(uint32_t));
		} else {
			for (y = r.h - 1; y >= 0; y--)
				memmove(vg_pixbuf_row(fb, r.y + y) + r.x, vg_pixbuf_row(fb, sy + y) + sx,
					(size_t)r.w * sizeof(uint32_t));
		}
		break;
	}
	}
}
