/* libFuzzer round trip of the compressed streams (fingerprint/codec/
 * vg_zstream.h): chunks of the input are compressed by one stream and
 * decompressed by its mirror, each chunk whole from its own bytes and
 * those before; a difference or an error aborts. The first byte: bit 0
 * picks zstd (else zlib), bits 1-4 the level (zlib 0..9, zstd 1..16);
 * the zstd window is the least a viewer keeps. Then chunks until the
 * input ends, each a byte of length (0..254) and that many bytes; a
 * length byte of 255 instead repeats the last chunk, so that matches
 * reach back. Each coder and level keeps its pair of streams across
 * inputs, reset before each (vg_zout_reset, vg_zin_reset), as creating
 * zstd's tables for every input would take most of the time. */
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_writer.h"
#include "fingerprint/codec/vg_zstream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static vg_zout *zouts[2][16];
	static vg_zin *zins[2][16];
	vg_coder coder;
	vg_zout *zo;
	vg_zin *zi;
	vg_writer out;
	uint8_t *buf = NULL;
	size_t buf_cap = 0, at = 1, last_at = 1, last_len = 0;
	int level;

	if (size < 1)
		return 0;
	coder = data[0] & 1 ? VG_CODER_ZSTD : VG_CODER_ZLIB;
	level = coder == VG_CODER_ZSTD ? 1 + (data[0] >> 1 & 15) : (data[0] >> 1 & 15) % 10;
	zo = zouts[coder == VG_CODER_ZSTD][level & 15];
	zi = zins[coder == VG_CODER_ZSTD][level & 15];
	if (zo ? vg_zout_reset(zo) || vg_zin_reset(zi)
	       : vg_zout_new(coder, level, VG_ZSTD_WINDOW_LOG_MIN, &zo) ||
			 vg_zin_new(coder, VG_ZSTD_WINDOW_LOG_MIN, &zi))
		abort();
	zouts[coder == VG_CODER_ZSTD][level & 15] = zo;
	zins[coder == VG_CODER_ZSTD][level & 15] = zi;
	vg_writer_init(&out);
	while (at < size) {
		size_t len = data[at++], got;
		const uint8_t *chunk;

		if (len == 255) {
			chunk = data + last_at;
			len = last_len;
		} else {
			if (len > size - at)
				len = size - at;
			chunk = data + at;
			last_at = at;
			last_len = len;
			at += len;
		}
		vg_writer_reset(&out);
		if (vg_zout_put(zo, chunk, len, &out))
			abort();
		/* The exact length as the limit: one byte more is an error. */
		if (vg_zin_get(zi, out.data, out.len, &buf, &buf_cap, len, &got) || got != len ||
		    (len && memcmp(buf, chunk, len) != 0))
			abort();
	}
	vg_writer_clear(&out);
	free(buf); /* grown by vg_zin_get with realloc */
	return 0;
}
