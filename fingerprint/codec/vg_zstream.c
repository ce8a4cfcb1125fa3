/* The compressing half of vg_zstream.h (vg_zout); the decompressing half
 * is vg_zstream_dec.c. */
#include <stdlib.h>
#include <zlib.h>
#include <zstd.h>

#include "common/vg_error.h"
#include "common/vg_mem.h"
#include "common/vg_minmax.h"
#include "fingerprint/codec/vg_zstream.h"

struct vg_zout {
	vg_coder coder;
	z_stream zs;
	ZSTD_CCtx *cc;
};

int vg_zout_new(vg_coder coder, int level, unsigned window_log, vg_zout **out)
{
	vg_zout *z;

	*out = NULL;
	if (coder == VG_CODER_ZLIB && (level < -1 || level > 9))
		return VG_EINVAL;
	if (coder == VG_CODER_ZSTD &&
	    (level < 1 || level > 19 || window_log < VG_ZSTD_WINDOW_LOG_MIN ||
	     window_log > VG_ZSTD_WINDOW_LOG_MAX))
		return VG_EINVAL;
	if (coder != VG_CODER_ZLIB && coder != VG_CODER_ZSTD)
		return VG_EINVAL;
	z = VG_NEW0(vg_zout, 1);
	z->coder = coder;
	if (coder == VG_CODER_ZLIB) {
		if (deflateInit(&z->zs, level) != Z_OK) {
			free(z);
			return VG_EZLIB;
		}
	} else {
		/* From level 9 on zstd's own match tables take 2^21 entries
		 * and more, zeroed before the first byte goes out: 4-5 ms a
		 * stream of a connection's first update. Tables sized to the
		 * window cost under 1 % of the bytes (doc/results.md); lower
		 * levels keep smaller ones of their own. */
		int tables = (int)VG_MIN(VG_ZSTD_TABLE_LOG_MAX, window_log - 3);

		z->cc = ZSTD_createCCtx();
		if (!z->cc ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(z->cc, ZSTD_c_compressionLevel, level)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(z->cc, ZSTD_c_windowLog, (int)window_log)) ||
		    (level >= 9 &&
		     (ZSTD_isError(ZSTD_CCtx_setParameter(z->cc, ZSTD_c_hashLog, tables)) ||
		      ZSTD_isError(ZSTD_CCtx_setParameter(z->cc, ZSTD_c_chainLog, tables))))) {
			ZSTD_freeCCtx(z->cc);
			free(z);
			return VG_EZLIB;
		}
	}
	*out = z;
	return VG_OK;
}

void vg_zout_free(vg_zout *z)
{
	if (!z)
		return;
	if (z->coder == VG_CODER_ZLIB)
		deflateEnd(&z->zs);
	else
		ZSTD_freeCCtx(z->cc);
	free(z);
}

int vg_zout_reset(vg_zout *z)
{
	if (z->coder == VG_CODER_ZLIB)
		return deflateReset(&z->zs) == Z_OK ? VG_OK : VG_EZLIB;
	return ZSTD_isError(ZSTD_CCtx_reset(z->cc, ZSTD_reset_session_only)) ? VG_EZLIB : VG_OK;
}

vg_coder vg_zout_coder(const vg_zout *z)
{
	return z->coder;
}

static int deflate_put(z_stream *zs, const uint8_t *in, size_t len, vg_writer *out)
{
	int ret;

	zs->next_in = (Bytef *)in;
	zs->avail_in = (uInt)len;
	do {
		size_t room = deflateBound(zs, zs->avail_in) + 64;
		uint8_t *dst = vg_writer_reserve(out, room);

		zs->next_out = dst;
		zs->avail_out = (uInt)room;
		ret = deflate(zs, Z_SYNC_FLUSH);
		out->len -= zs->avail_out;
		if (ret != Z_OK && ret != Z_BUF_ERROR)
			return VG_EZLIB;
	} while (zs->avail_in > 0 || zs->avail_out == 0);
	return VG_OK;
}

static int zstd_put(ZSTD_CCtx *cc, const uint8_t *in, size_t len, vg_writer *out)
{
	ZSTD_inBuffer src = { in, len, 0 };
	size_t left;

	do {
		size_t room = ZSTD_compressBound(src.size - src.pos) + 64;
		ZSTD_outBuffer dst = { vg_writer_reserve(out, room), room, 0 };

		left = ZSTD_compressStream2(cc, &dst, &src, ZSTD_e_flush);
		if (ZSTD_isError(left)) {
			out->len -= room;
			return VG_EZLIB;
		}
		out->len -= room - dst.pos;
	} while (left > 0);
	return VG_OK;
}

int vg_zout_put(vg_zout *z, const uint8_t *in, size_t len, vg_writer *out)
{
	return z->coder == VG_CODER_ZLIB ? deflate_put(&z->zs, in, len, out)
					 : zstd_put(z->cc, in, len, out);
}
