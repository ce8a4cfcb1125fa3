#include "fingerprint/codec/vg_approx.h"

#include <glib.h>

#include "common/vg_error.h"

/* Sixteen levels a channel: an approximation's colours repeat, so the
 * literal coder finds palettes and the stream's window finds repeats. */
#define APPROX_MASK 0xf0f0f0u
#define APPROX_MID 0x080808u

struct vg_approx {
	vg_pixbuf *small;   /* one rectangle's small picture, grown as needed */
	unsigned factor;    /* of the head read last */
	GArray *rects;      /* vg_rect: of the head read last */
};

int vg_approx_new(vg_approx **out)
{
	vg_approx *ax = g_new0(vg_approx, 1);

	ax->rects = g_array_new(FALSE, FALSE, sizeof(vg_rect));
	*out = ax;
	return VG_OK;
}

void vg_approx_free(vg_approx *ax)
{
	if (!ax)
		return;
	vg_pixbuf_free(ax->small);
	g_array_free(ax->rects, TRUE);
	g_free(ax);
}

vg_rect vg_approx_small(vg_rect r, unsigned factor)
{
	int32_t f = (int32_t)factor;

	return vg_rect_make(0, 0, (r.w + f - 1) / f, (r.h + f - 1) / f);
}

void vg_approx_shrink(const vg_pixbuf *frame, vg_rect r, unsigned factor, vg_pixbuf *dst)
{
	int32_t f = (int32_t)factor, i, j, x, y;
	vg_rect s = vg_approx_small(r, factor);

	for (j = 0; j < s.h; j++) {
		int32_t y0 = r.y + j * f, y1 = MIN(y0 + f, r.y + r.h);
		uint32_t *out = vg_pixbuf_row(dst, j);

		for (i = 0; i < s.w; i++) {
			int32_t x0 = r.x + i * f, x1 = MIN(x0 + f, r.x + r.w);
			uint32_t sr = 0, sg = 0, sb = 0, n = (uint32_t)((x1 - x0) * (y1 - y0));

			for (y = y0; y < y1; y++) {
				const uint32_t *p = vg_pixbuf_row(frame, y);

				for (x = x0; x < x1; x++) {
					sr += p[x] >> 16 & 0xff;
					sg += p[x] >> 8 & 0xff;
					sb += p[x] & 0xff;
				}
			}
			out[i] = (VG_RGB(sr / n, sg / n, sb / n) & APPROX_MASK) | APPROX_MID;
		}
	}
}

void vg_approx_expand(const vg_pixbuf *src, unsigned factor, vg_pixbuf *fb, vg_rect r)
{
	int32_t f = (int32_t)factor, i, x, y, end;

	for (y = 0; y < r.h; y++) {
		const uint32_t *in = vg_pixbuf_row(src, y / f);
		uint32_t *out = vg_pixbuf_row(fb, r.y + y) + r.x;

		for (i = 0, x = 0; x < r.w; i++)
			for (end = MIN(x + f, r.w); x < end; x++)
				out[x] = in[i];
	}
}

/* Makes ax->small hold at least s. */
static int grow_small(vg_approx *ax, vg_rect s)
{
	vg_pixbuf *pb;

	if (ax->small && ax->small->width >= s.w && ax->small->height >= s.h)
		return VG_OK;
	pb = vg_pixbuf_new(MAX(s.w, ax->small ? ax->small->width : 1),
			   MAX(s.h, ax->small ? ax->small->height : 1));
	if (!pb)
		return VG_ERANGE;
	vg_pixbuf_free(ax->small);
	ax->small = pb;
	return VG_OK;
}

int vg_approx_encode(vg_approx *ax, vg_literal *lc, const vg_pixbuf *frame, const vg_rect *rects,
		     size_t n, unsigned factor, vg_writer *head, vg_writer *pix)
{
	size_t i, head_at = head->len, pix_at = pix->len;
	int err;

	if (factor < VG_APPROX_FACTOR_MIN || factor > VG_APPROX_FACTOR_MAX || n < 1 ||
	    n > VG_APPROX_MAX_RECTS)
		return VG_EINVAL;
	for (i = 0; i < n; i++)
		if (!vg_pixbuf_holds(frame, rects[i]))
			return VG_ERANGE;
	vg_writer_u8(head, (uint8_t)factor);
	vg_writer_uleb(head, n);
	for (i = 0; i < n; i++) {
		vg_rect s = vg_approx_small(rects[i], factor);

		vg_writer_rect(head, rects[i]);
		if ((err = grow_small(ax, s)))
			goto fail;
		vg_approx_shrink(frame, rects[i], factor, ax->small);
		if ((err = vg_literal_encode(lc, ax->small, s, pix)))
			goto fail;
	}
	return VG_OK;
fail:
	head->len = head_at;
	pix->len = pix_at;
	return err;
}

int vg_approx_read_head(vg_approx *ax, vg_reader *rd, const vg_pixbuf *fb)
{
	uint64_t n, i;
	uint8_t factor;
	int err;

	g_array_set_size(ax->rects, 0);
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
		g_array_append_val(ax->rects, r);
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
		vg_rect s = vg_approx_small(g_array_index(ax->rects, vg_rect, i), ax->factor);

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
		vg_rect r = g_array_index(ax->rects, vg_rect, i);
		vg_rect s = vg_approx_small(r, ax->factor);

		if ((err = grow_small(ax, s)) || (err = vg_literal_decode(pix, ax->small, s, NULL)))
			return err;
		vg_approx_expand(ax->small, ax->factor, fb, r);
	}
	return vg_reader_remaining(pix) ? VG_ECORRUPT : VG_OK;
}
