/* The decompressing half of vg_zstream.h (vg_zin), apart from the
 * compressing half in vg_zstream.c so that a decoder-only build (the
 * browser's) links only zlib's inflate side and zstd's decompressor. */
#include <stdlib.h>
#include <zlib.h>
#include <zstd.h>

#include "common/vg_error.h"
#include "common/vg_mem.h"
#include "fingerprint/codec/vg_zstream.h"

struct vg_zin {
	vg_coder coder;
	z_stream zs;
	ZSTD_DCtx *dc;
	bool failed;
};

int vg_zin_new(vg_coder coder, unsigned window_log, vg_zin **out)
{
	vg_zin *z;

	*out = NULL;
	if (coder != VG_CODER_ZLIB && coder != VG_CODER_ZSTD)
		return VG_EINVAL;
	if (coder == VG_CODER_ZSTD &&
	    (window_log < VG_ZSTD_WINDOW_LOG_MIN || window_log > VG_ZSTD_WINDOW_LOG_MAX))
		return VG_EINVAL;
	z = VG_NEW0(vg_zin, 1);
	z->coder = coder;
	if (coder == VG_CODER_ZLIB) {
		if (inflateInit(&z->zs) != Z_OK) {
			free(z);
			return VG_EZLIB;
		}
	} else {
		/* The window the viewer announced bounds its memory: a frame
		 * that asks for more is refused, not honoured. */
		z->dc = ZSTD_createDCtx();
		if (!z->dc ||
		    ZSTD_isError(ZSTD_DCtx_setParameter(z->dc, ZSTD_d_windowLogMax, (int)window_log))) {
			ZSTD_freeDCtx(z->dc);
			free(z);
			return VG_EZLIB;
		}
	}
	*out = z;
	return VG_OK;
}

void vg_zin_free(vg_zin *z)
{
	if (!z)
		return;
	if (z->coder == VG_CODER_ZLIB)
		inflateEnd(&z->zs);
	else
		ZSTD_freeDCtx(z->dc);
	free(z);
}

int vg_zin_reset(vg_zin *z)
{
	z->failed = false;
	if (z->coder == VG_CODER_ZLIB)
		return inflateReset(&z->zs) == Z_OK ? VG_OK : VG_EZLIB;
	return ZSTD_isError(ZSTD_DCtx_reset(z->dc, ZSTD_reset_session_only)) ? VG_EZLIB : VG_OK;
}

/* Doubles *buf up to max; false when it is already that large. */
static bool grow(uint8_t **buf, size_t *buf_cap, size_t max)
{
	if (*buf_cap >= max)
		return false;
	*buf_cap = *buf_cap ? *buf_cap * 2 : 65536;
	if (*buf_cap > max)
		*buf_cap = max;
	*buf = vg_mem_realloc_n(*buf, *buf_cap, 1);
	return true;
}

static int inflate_get(z_stream *zs, const uint8_t *in, size_t len, uint8_t **buf,
		       size_t *buf_cap, size_t max, size_t *out_len)
{
	size_t have = 0;
	int ret;

	zs->next_in = (Bytef *)in;
	zs->avail_in = (uInt)len;
	for (;;) {
		uint8_t probe;
		bool full = have == *buf_cap && !grow(buf, buf_cap, max);

		/* Full at max: the chunk fits only if not one byte more
		 * comes, which a one-byte buffer tells. */
		zs->next_out = full ? &probe : *buf + have;
		zs->avail_out = full ? 1 : (uInt)(*buf_cap - have);
		ret = inflate(zs, Z_SYNC_FLUSH);
		if (ret == Z_STREAM_END || ret == Z_NEED_DICT || ret == Z_DATA_ERROR ||
		    ret == Z_MEM_ERROR || ret == Z_STREAM_ERROR)
			return VG_EZLIB;
		if (full && zs->avail_out == 0)
			return VG_ERANGE;
		if (full)
			break;
		have = *buf_cap - zs->avail_out;
		if (zs->avail_in == 0 && zs->avail_out > 0)
			break;
	}
	*out_len = have;
	return VG_OK;
}

static int zstd_get(ZSTD_DCtx *dc, const uint8_t *in, size_t len, uint8_t **buf,
		    size_t *buf_cap, size_t max, size_t *out_len)
{
	ZSTD_inBuffer src = { in, len, 0 };
	size_t have = 0;

	for (;;) {
		ZSTD_outBuffer dst;
		uint8_t probe;
		size_t ret;

		/* Full at max: as inflate_get, one byte more is too many. */
		if (have == *buf_cap && !grow(buf, buf_cap, max)) {
			dst = (ZSTD_outBuffer){ &probe, 1, 0 };
			ret = ZSTD_decompressStream(dc, &dst, &src);
			if (ZSTD_isError(ret))
				return VG_EZLIB;
			if (dst.pos)
				return VG_ERANGE;
			break;
		}
		dst = (ZSTD_outBuffer){ *buf, *buf_cap, have };
		ret = ZSTD_decompressStream(dc, &dst, &src);
		have = dst.pos;
		if (ZSTD_isError(ret))
			return VG_EZLIB;
		/* A flushed chunk is all there once the input is used up and
		 * the decoder stopped with room to spare. */
		if (src.pos == src.size && dst.pos < dst.size)
			break;
	}
	*out_len = have;
	return VG_OK;
}

int vg_zin_get(vg_zin *z, const uint8_t *in, size_t len, uint8_t **buf, size_t *buf_cap,
	       size_t max, size_t *out_len)
{
	int err;

	*out_len = 0;
	if (z->failed)
		return VG_EZLIB;
	if (len == 0)
		return VG_OK;
	err = z->coder == VG_CODER_ZLIB ? inflate_get(&z->zs, in, len, buf, buf_cap, max, out_len)
					: zstd_get(z->dc, in, len, buf, buf_cap, max, out_len);
	if (err)
		z->failed = true;
	return err;
}
