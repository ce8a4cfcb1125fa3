/* vg_sha1_update_rect over vg_sha1_update, for both SHA-1s: OpenSSL's
 * (vg_sha1.c) and the WebAssembly build's (viewer/web/vg_sha1_portable.c). */
#include "common/vg_error.h"
#include "fingerprint/codec/vg_sha1.h"

/* The pixels as they lie in memory: 4 little-endian bytes a pixel on the
 * little-endian hosts Varg runs on (WebAssembly is one). */
int vg_sha1_update_rect(vg_sha1 *h, const vg_pixbuf *pb, vg_rect rect)
{
	int32_t y;
	int err;

	if (!vg_rect_contains(vg_pixbuf_rect(pb), rect))
		return VG_ERANGE;
	/* Rows are contiguous when the rect spans the buffer's stride. */
	if (rect.x == 0 && rect.w == pb->stride)
		return vg_sha1_update(h, vg_pixbuf_row(pb, rect.y), (size_t)rect.w * rect.h * 4);
	for (y = rect.y; y < rect.y + rect.h; y++)
		if ((err = vg_sha1_update(h, vg_pixbuf_row(pb, y) + rect.x, (size_t)rect.w * 4)))
			return err;
	return VG_OK;
}
