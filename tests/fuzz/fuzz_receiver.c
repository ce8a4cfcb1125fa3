/* libFuzzer target for the viewer's Varg parser. The first byte picks the
 * mode: 0 feeds the input as a raw message body (after a valid hello);
 * otherwise the input is deflated first, so the fuzzer reaches the update
 * parser behind zlib. Fingerprints are 16 bits and groups of 4, so that
 * fingerprint and check items are short enough to be found. */
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "common/vg_pixbuf.h"
#include "fingerprint/vg_proto.h"
#include "fingerprint/vg_receiver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t hello[21] = { VG_MSG_HELLO, VG_PROTO_VERSION, [18] = 16, [19] = 4 };
	vg_receiver_config cfg;
	vg_receiver *r;
	vg_pixbuf *fb;
	vg_writer reply, body;

	vg_receiver_config_init(&cfg);
	cfg.memory_budget = 8u << 20;
	if (size < 1 || vg_receiver_new(&cfg, &r))
		return 0;
	fb = vg_pixbuf_new(64, 48);
	vg_writer_init(&reply);
	vg_writer_init(&body);
	vg_receiver_handle(r, hello, sizeof hello, fb, &reply);
	if (data[0] == 0) {
		vg_writer_bytes(&body, data + 1, size - 1);
	} else {
		z_stream zs;
		uLong bound;

		memset(&zs, 0, sizeof zs);
		if (deflateInit(&zs, 1) == Z_OK) {
			bound = deflateBound(&zs, (uLong)size) + 16;
			vg_writer_u8(&body, VG_MSG_UPDATE);
			zs.next_in = (Bytef *)(data + 1);
			zs.avail_in = (uInt)(size - 1);
			zs.next_out = vg_writer_reserve(&body, bound);
			zs.avail_out = (uInt)bound;
			deflate(&zs, Z_SYNC_FLUSH);
			body.len -= zs.avail_out;
			deflateEnd(&zs);
		}
	}
	vg_receiver_handle(r, body.data, body.len, fb, &reply);
	vg_writer_clear(&reply);
	vg_writer_clear(&body);
	vg_pixbuf_free(fb);
	vg_receiver_free(r);
	return 0;
}
