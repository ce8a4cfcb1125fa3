/* The coding half of vg_approx.h (shrinking and coding), apart from the
 * reading and drawing in vg_approx.c so that a decoder-only build (the
 * browser's) carries no encoder. */
#include "fingerprint/codec/vg_approx.h"

#include "common/vg_error.h"
#include "common/vg_minmax.h"
#include "fingerprint/codec/vg_approxpriv.h"

/* Sixteen levels a channel: an approximation's colours repeat, so the
 * literal coder finds palettes and the stream's window finds repeats. */
#define APPROX_MASK 0xf0f0f0u
#define APPROX_MID 0x080808u

void vg_approx_shrink(const vg_pixbuf *frame, vg_rect r, unsigned factor, vg_pixbuf *dst)
{
	int32_t f = (int32_t)factor, i, j, x, y;
	vg_rect s = vg_approx_small(r, factor);

	for (j = 0; j < s.h; j++) {
		int32_t y0 = r.y + j * f, y1 = VG_MIN(y0 + f, r.y + r.h);
		uint32_t *out = vg_pixbuf_row(dst, j);

		for (i = 0; i < s.w; i++) {
			int32_t x0 = r.x + i * f, x1 = VG_MIN(x0 + f, r.x + r.w);
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

int vg_approx_encode(vg_approx *ax, vg_literal *lc, const vg_pixbuf *frame, const vg_rect *rects,
		     size_t n, unsigned factor, vg_writer *head, vg_writer *pix)
{
	size_t i, head_at = head->len, pix_at = pix->len;
	vg_pixbuf *small;
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
		if ((err = vg__approx_scratch(ax, s, &small)))
			goto fail;
		vg_approx_shrink(frame, rects[i], factor, small);
		if ((err = vg_literal_encode(lc, small, s, pix)))
			goto fail;
	}
	return VG_OK;
fail:
	head->len = head_at;
	pix->len = pix_at;
	return err;
}
