#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_mem.h"
#include "common/vg_pixbuf.h"

vg_pixbuf *vg_pixbuf_new(int32_t width, int32_t height)
{
	vg_pixbuf *pb;

	if (width < 1 || height < 1 || width > VG_MAX_DIM || height > VG_MAX_DIM)
		return NULL;
	pb = VG_NEW0(vg_pixbuf, 1);
	pb->pixels = VG_NEW0(uint32_t, (size_t)width * (size_t)height);
	pb->width = width;
	pb->height = height;
	pb->stride = width;
	pb->owned = true;
	return pb;
}

void vg_pixbuf_free(vg_pixbuf *pb)
{
	if (!pb)
		return;
	if (pb->owned)
		free(pb->pixels);
	free(pb);
}

vg_pixbuf vg_pixbuf_wrap(uint32_t *pixels, int32_t width, int32_t height, int32_t stride)
{
	vg_pixbuf v = { pixels, width, height, stride, false };
	return v;
}

vg_pixbuf vg_pixbuf_view(const vg_pixbuf *pb, vg_rect rect)
{
	vg_rect r = vg_rect_intersect(rect, vg_pixbuf_rect(pb));
	vg_pixbuf v = { pb->pixels, 0, 0, pb->stride, false };

	if (vg_rect_is_empty(r))
		return v;
	v.pixels = vg_pixbuf_row(pb, r.y) + r.x;
	v.width = r.w;
	v.height = r.h;
	return v;
}

int vg_pixbuf_copy(vg_pixbuf *dst, int32_t dx, int32_t dy, const vg_pixbuf *src)
{
	vg_rect to = vg_rect_make(dx, dy, src->width, src->height);
	int32_t y;

	if (!vg_rect_contains(vg_pixbuf_rect(dst), to))
		return VG_ERANGE;
	for (y = 0; y < src->height; y++)
		memcpy(vg_pixbuf_row(dst, dy + y) + dx, vg_pixbuf_row(src, y),
		       (size_t)src->width * 4);
	return VG_OK;
}

int vg_pixbuf_copy_rect(vg_pixbuf *dst, const vg_pixbuf *src, vg_rect rect)
{
	vg_pixbuf from;

	if (!vg_rect_contains(vg_pixbuf_rect(src), rect))
		return VG_ERANGE;
	from = vg_pixbuf_view(src, rect);
	return vg_pixbuf_copy(dst, rect.x, rect.y, &from);
}

void vg_pixbuf_fill(vg_pixbuf *pb, vg_rect rect, uint32_t colour)
{
	vg_rect r = vg_rect_intersect(rect, vg_pixbuf_rect(pb));
	int32_t x, y;

	for (y = r.y; y < r.y + r.h; y++) {
		uint32_t *row = vg_pixbuf_row(pb, y);
		for (x = r.x; x < r.x + r.w; x++)
			row[x] = colour;
	}
}

bool vg_pixbuf_equal(const vg_pixbuf *a, const vg_pixbuf *b)
{
	int32_t y;

	if (a->width != b->width || a->height != b->height)
		return false;
	for (y = 0; y < a->height; y++)
		if (memcmp(vg_pixbuf_row(a, y), vg_pixbuf_row(b, y), (size_t)a->width * 4))
			return false;
	return true;
}

int vg_pixbuf_transpose(vg_pixbuf *dst, const vg_pixbuf *src)
{
	/* Blocked so both sides stay in cache for wide frames. */
	enum { B = 32 };
	int32_t bx, by, x, y;

	if (dst->width != src->height || dst->height != src->width)
		return VG_ERANGE;
	for (by = 0; by < src->height; by += B) {
		int32_t ye = by + B < src->height ? by + B : src->height;
		for (bx = 0; bx < src->width; bx += B) {
			int32_t xe = bx + B < src->width ? bx + B : src->width;
			for (y = by; y < ye; y++) {
				const uint32_t *s = vg_pixbuf_row(src, y);
				for (x = bx; x < xe; x++)
					vg_pixbuf_row(dst, x)[y] = s[x];
			}
		}
	}
	return VG_OK;
}
