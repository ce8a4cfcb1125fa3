/* libFuzzer target for the viewer's Varg parser. The first byte picks the
 * mode: 0 feeds the input as a raw message body (after a valid hello);
 * otherwise the fuzzer reaches the update parser and the literal decoder
 * behind zlib: byte 1 is the number of SHA-1 digests (0..3), bytes 2-3 a
 * big-endian split, then come the digests (20 bytes each), then the plain
 * structure (up to the split) and the plain literal pixels (the rest),
 * each deflated into its own stream and framed as the sender frames an
 * UPDATE. Fingerprints are 16 bits and groups of 4, so that fingerprint
 * and check items are short enough to be found. The frame is 64 x 48.
 */
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "common/vg_pixbuf.h"
#include "fingerprint/vg_proto.h"
#include "fingerprint/vg_receiver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Appends in[0..len) to out as one sync-flushed chunk of a new stream. */
static void deflated(const uint8_t *in, size_t len, vg_writer *out)
{
	z_stream zs;
	uLong bound;

	memset(&zs, 0, sizeof zs);
	if (deflateInit(&zs, 1) != Z_OK)
		return;
	bound = deflateBound(&zs, (uLong)len) + 16;
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)len;
	zs.next_out = vg_writer_reserve(out, bound);
	zs.avail_out = (uInt)bound;
	deflate(&zs, Z_SYNC_FLUSH);
	out->len -= zs.avail_out;
	deflateEnd(&zs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t hello[21] = { VG_MSG_HELLO, VG_PROTO_VERSION, [18] = 16, [19] = 4 };
	vg_receiver_config cfg;
	vg_receiver *r;
	vg_pixbuf *fb;
	vg_writer reply, body, chunk;

	vg_receiver_config_init(&cfg);
	cfg.memory_budget = 8u << 20;
	if (size < 1 || vg_receiver_new(&cfg, &r))
		return 0;
	fb = vg_pixbuf_new(64, 48);
	vg_writer_init(&reply);
	vg_writer_init(&body);
	vg_writer_init(&chunk);
	vg_receiver_handle(r, hello, sizeof hello, fb, &reply);
	if (data[0] == 0) {
		vg_writer_bytes(&body, data + 1, size - 1);
	} else if (size >= 4) {
		size_t n_checks = data[1] % 4, split = (size_t)data[2] << 8 | data[3], at = 4;
		size_t digests = (size - at) / 20 < n_checks ? (size - at) / 20 : n_checks, s_len, p_len;

		vg_writer_u8(&body, VG_MSG_UPDATE);
		vg_writer_uleb(&body, digests);
		vg_writer_bytes(&body, data + at, digests * 20);
		at += digests * 20;
		s_len = split < size - at ? split : size - at;
		p_len = size - at - s_len;
		deflated(data + at, s_len, &chunk);
		vg_writer_uleb(&body, chunk.len);
		vg_writer_bytes(&body, chunk.data, chunk.len);
		vg_writer_reset(&chunk);
		if (p_len) {
			deflated(data + at + s_len, p_len, &chunk);
			vg_writer_bytes(&body, chunk.data, chunk.len);
		}
	}
	vg_receiver_handle(r, body.data, body.len, fb, &reply);
	vg_writer_clear(&reply);
	vg_writer_clear(&body);
	vg_writer_clear(&chunk);
	vg_pixbuf_free(fb);
	vg_receiver_free(r);
	return 0;
}
