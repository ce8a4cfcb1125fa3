/* The state and the decoding half of vg_approx.h (reading and drawing);
 * the coding half is vg_approx_enc.c. */
#include "fingerprint/codec/vg_approx.h"

#include <stdlib.h>

#include "common/vg_array.h"
#include "common/vg_error.h"
#include "common/vg_mem.h"
#include "common/vg_minmax.h"
#include "fingerprint/codec/vg_approxpriv.h"

struct vg_approx {
	vg_pixbuf *small;   /* one rectangle's small picture, grown as needed */
	unsigned factor;    /* of the head read last */
	vg_array *rects;    /* vg_rect: of the head read last */
};

int vg_approx_new(vg_approx **out)
{
	vg_approx *ax = VG_NEW0(vg_approx, 1);

	ax->rects = vg_array_new(sizeof(vg_rect));
	*out = ax;
	return VG_OK;
}

void vg_approx_free(vg_approx *ax)
{
	if (!ax)
		return;
	vg_pixbuf_free(ax->small);
	vg_array_free(ax->rects);
	free(ax);
}

vg_rect vg_approx_small(vg_rect r, unsigned factor)
{
	int32_t f = (int32_t)factor;

	return vg_rect_make(0, 0, (r.w + f - 1) / f, (r.h + f - 1) / f);
}

void vg_approx_expand(const vg_pixbuf *src, unsigned factor, vg_pixbuf *fb, vg_rect r)
{
	int32_t f = (int32_t)factor, i, x, y, end;

	for (y = 0; y < r.h; y++) {
		const uint32_t *in = vg_pixbuf_row(src, y / f);
		uint32_t *out = vg_pixbuf_row(fb, r.y + y) + r.x;

		for (i = 0, x = 0; x < r.w; i++)
			for (end = VG_MIN(x + f, r.w); x < end; x++)
				out[x] = in[i];
	}
}

/* Makes ax->small hold at least s. */
static int grow_small(vg_approx *ax, vg_rect s)
{
	vg_pixbuf *pb;

	if (ax->small && ax->small->width >= s.w && ax->small->height >= s.h)
		return VG_OK;
	pb = vg_pixbuf_new(VG_MAX(s.w, ax->small ? ax->small->width : 1),
			   VG_MAX(s.h, ax->small ? ax->small->height : 1));
	if (!pb)
		return VG_ERANGE;
	vg_pixbuf_free(ax->small);
	ax->small = pb;
	return VG_OK;
}

int vg__approx_scratch(vg_approx *ax, vg_rect s, vg_pixbuf **small)
{
	int err = grow_small(ax, s);

	*small = ax->small;
	return err;
}

int vg_approx_read_head(vg_approx *ax, vg_reader *rd, const vg_pixbuf *fb)
{
	uint64_t n, i;
	uint8_t factor;
	int err;

	vg_array_set_len(ax->rects, 0);
	if ((err = vg_reader_u8(rd, &factor)) || (err = vg_reader_uleb(rd, &n)))
		return err;
	if (factor < VG_APPROX_FACTOR_MIN || factor > VG_APPROX_FACTOR_MAX || n < 1 ||
	    n > VG_APPROX_MAX_RECTS)
		return VG_ECORRUPT;
	ax->factor = factor;
	for (i = 0; i < n; i++) {
		vg_rect r;

		if ((err = vg_reader_rect(rd, &r)))
			return err;
		if (!vg_pixbuf_holds(fb, r))
			return VG_ERANGE;
		vg_array_append(ax->rects, &r, 1);
	}
	return VG_OK;
}

const vg_rect *vg_approx_rects(const vg_approx *ax, size_t *n)
{
	*n = ax->rects->len;
	return (const vg_rect *)(const void *)ax->rects->data;
}

size_t vg_approx_pixel_bound(const vg_approx *ax)
{
	size_t i, bound = 0;

	for (i = 0; i < ax->rects->len; i++) {
		vg_rect s = vg_approx_small(VG_ARRAY_AT(ax->rects, vg_rect, i), ax->factor);

		/* A palette of one colour a pixel, with runs: the largest
		 * block any method codes to. */
		bound += 16 + 4 * (size_t)s.w * (size_t)s.h;
	}
	return bound;
}

int vg_approx_draw(vg_approx *ax, vg_reader *pix, vg_pixbuf *fb)
{
	size_t i;
	int err;

	for (i = 0; i < ax->rects->len; i++) {
		vg_rect r = VG_ARRAY_AT(ax->rects, vg_rect, i);
		vg_rect s = vg_approx_small(r, ax->factor);

		if ((err = grow_small(ax, s)) || (err = vg_literal_decode(pix, ax->small, s, NULL)))
			return err;
		vg_approx_expand(ax->small, ax->factor, fb, r);
	}
	return vg_reader_remaining(pix) ? VG_ECORRUPT : VG_OK;
}
