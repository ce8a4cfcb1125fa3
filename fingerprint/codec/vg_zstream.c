#include <glib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "common/vg_error.h"
#include "fingerprint/codec/vg_zstream.h"

struct vg_zout {
	vg_coder coder;
	z_stream zs;
	ZSTD_CCtx *cc;
};

struct vg_zin {
	vg_coder coder;
	z_stream zs;
	ZSTD_DCtx *dc;
	bool failed;
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
	z = g_new0(vg_zout, 1);
	z->coder = coder;
	if (coder == VG_CODER_ZLIB) {
		if (deflateInit(&z->zs, level) != Z_OK) {
			g_free(z);
			return VG_EZLIB;
		}
	} else {
		/* From level 9 on zstd's own match tables take 2^21 entries
		 * and more, zeroed before the first byte goes out: 4-5 ms a
		 * stream of a connection's first update. Tables sized to the
		 * window cost under 1 % of the bytes (doc/results.md); lower
		 * levels keep smaller ones of their own. */
		int tables = (int)MIN(VG_ZSTD_TABLE_LOG_MAX, window_log - 3);

		z->cc = ZSTD_createCCtx();
		if (!z->cc ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(z->cc, ZSTD_c_compressionLevel, level)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(z->cc, ZSTD_c_windowLog, (int)window_log)) ||
		    (level >= 9 &&
		     (ZSTD_isError(ZSTD_CCtx_setParameter(z->cc, ZSTD_c_hashLog, tables)) ||
		      ZSTD_isError(ZSTD_CCtx_setParameter(z->cc, ZSTD_c_chainLog, tables))))) {
			ZSTD_freeCCtx(z->cc);
			g_free(z);
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
	g_free(z);
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

int vg_zin_new(vg_coder coder, unsigned window_log, vg_zin **out)
{
	vg_zin *z;

	*out = NULL;
	if (coder != VG_CODER_ZLIB && coder != VG_CODER_ZSTD)
		return VG_EINVAL;
	if (coder == VG_CODER_ZSTD &&
	    (window_log < VG_ZSTD_WINDOW_LOG_MIN || window_log > VG_ZSTD_WINDOW_LOG_MAX))
		return VG_EINVAL;
	z = g_new0(vg_zin, 1);
	z->coder = coder;
	if (coder == VG_CODER_ZLIB) {
		if (inflateInit(&z->zs) != Z_OK) {
			g_free(z);
			return VG_EZLIB;
		}
	} else {
		/* The window the viewer announced bounds its memory: a frame
		 * that asks for more is refused, not honoured. */
		z->dc = ZSTD_createDCtx();
		if (!z->dc ||
		    ZSTD_isError(ZSTD_DCtx_setParameter(z->dc, ZSTD_d_windowLogMax, (int)window_log))) {
			ZSTD_freeDCtx(z->dc);
			g_free(z);
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
	g_free(z);
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
	*buf = g_realloc(*buf, *buf_cap);
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
