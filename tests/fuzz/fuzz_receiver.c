/* libFuzzer target for the viewer's Varg parser. The first byte's top
 * bit says whether updates are coded by the pixel model (then the pixel
 * parts below are the model's chunks, not compressed), the low five bits
 * the mode: 0 feeds the input as a raw message body (after a valid hello);
 * 2 feeds a sequence of updates, so that REPEATs find earlier segments to
 * point at: each is a byte of digest count (0..3), a big-endian u16
 * structure length and u16 pixel length, then the digests (20 bytes
 * each), the plain structure and the plain literal pixels, lengths cut to
 * what the input holds; any other value feeds one update: byte 1 is the
 * number of SHA-1 digests (0..3), bytes 2-3 a big-endian split, then come
 * the digests, then the plain structure (up to the split) and the plain
 * literal pixels (the rest). The plain parts go through the connection's
 * two compressed streams and are framed as the sender frames an UPDATE.
 * Mode 3 feeds an APPROX: byte 1 is the split, then its plain head (up to
 * the split) and the plain pixels (the rest, through the pixel stream),
 * then an update as above to check that it still decodes.
 * Mode 4 feeds raw message bodies one after another, each after a
 * big-endian u16 length, until one is refused: CURSOR messages that name
 * shapes sent before them. The viewer takes CURSOR messages.
 * Fingerprints are 16 bits and groups of 4, so that fingerprint, repeat
 * and check items are short enough to be found. The frame is 32 x 24:
 * small enough that decoding pixels (fuzz_pixmodel's target) leaves most
 * of an input's time to the parser, large enough for several segments,
 * moves between them and rectangles that cross its edges.
 * One receiver serves every input, reset before each as for a new
 * connection (vg_receiver_reset), so that an input costs what it touches,
 * not a new receiver's and pixel model's 8 MB.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_pixbuf.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/proto/vg_receiver.h"
#include "fingerprint/codec/vg_zstream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Frames one update of n_checks digests, s_len bytes of structure and
 * p_len of pixels, read from data in that order; the pixels as they
 * are for the pixel model, else through the pixel stream. */
static void frame_update(vg_zout *zs, vg_zout *zpix, const uint8_t *data, size_t n_checks,
			 size_t s_len, size_t p_len, bool model, vg_writer *body, vg_writer *chunk)
{
	vg_writer_reset(body);
	vg_writer_reset(chunk);
	vg_writer_u8(body, VG_MSG_UPDATE);
	vg_writer_uleb(body, n_checks * 2 + (model ? VG_UPDATE_MODEL : 0));
	vg_writer_bytes(body, data, n_checks * 20);
	vg_zout_put(zs, data + n_checks * 20, s_len, chunk);
	vg_writer_uleb(body, chunk->len);
	vg_writer_bytes(body, chunk->data, chunk->len);
	if (p_len && model)
		vg_writer_bytes(body, data + n_checks * 20 + s_len, p_len);
	else if (p_len)
		vg_zout_put(zpix, data + n_checks * 20 + s_len, p_len, body);
}

static size_t at_most(size_t want, size_t have)
{
	return want < have ? want : have;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static vg_receiver *r;
	static vg_zout *zs, *zpix;
	static vg_pixbuf *fb;
	/* Kept with their room from input to input, like the receiver. */
	static vg_writer reply, body, chunk;
	uint8_t hello[21] = { VG_MSG_HELLO, VG_PROTO_VERSION, [18] = 16, [19] = 4 };
	uint8_t mode;
	bool model;

	if (!r) {
		vg_receiver_config cfg;

		vg_receiver_config_init(&cfg);
		cfg.memory_budget = 16u << 20; /* the smallest that opens a cache */
		cfg.zstd_window_log = VG_ZSTD_WINDOW_LOG_MIN;
		cfg.cursors = true;
		if (vg_receiver_new(&cfg, &r) ||
		    vg_zout_new(VG_CODER_ZSTD, 1, VG_ZSTD_WINDOW_LOG_MIN, &zs) ||
		    vg_zout_new(VG_CODER_ZSTD, 1, VG_ZSTD_WINDOW_LOG_MIN, &zpix))
			abort();
		fb = vg_pixbuf_new(32, 24);
	} else if (vg_receiver_reset(r) || vg_zout_reset(zs) || vg_zout_reset(zpix)) {
		abort();
	}
	if (size < 1)
		return 0;
	mode = data[0] & 0x1f;
	model = (data[0] & 0x80) != 0;
	memset(fb->pixels, 0, (size_t)fb->stride * (size_t)fb->height * sizeof(uint32_t));
	vg_writer_reset(&reply);
	vg_writer_reset(&body);
	vg_writer_reset(&chunk);
	vg_receiver_handle(r, hello, sizeof hello, fb, &reply);
	if (mode == 0) {
		vg_writer_bytes(&body, data + 1, size - 1);
		vg_receiver_handle(r, body.data, body.len, fb, &reply);
	} else if (mode == 4) {
		size_t at = 1, len;

		while (size - at >= 2) {
			len = at_most((size_t)data[at] << 8 | data[at + 1], size - at - 2);
			at += 2;
			vg_writer_reset(&body);
			vg_writer_bytes(&body, data + at, len);
			at += len;
			if (vg_receiver_handle(r, body.data, body.len, fb, &reply))
				break;
		}
	} else if (mode == 2) {
		size_t at = 1;

		/* Updates until the input ends or one is refused (the viewer
		 * closes the connection after any error). */
		while (size - at >= 5) {
			size_t n_checks = data[at] % 4, s_len, p_len;

			s_len = (size_t)data[at + 1] << 8 | data[at + 2];
			p_len = (size_t)data[at + 3] << 8 | data[at + 4];
			at += 5;
			n_checks = at_most(n_checks, (size - at) / 20);
			s_len = at_most(s_len, size - at - n_checks * 20);
			p_len = at_most(p_len, size - at - n_checks * 20 - s_len);
			frame_update(zs, zpix, data + at, n_checks, s_len, p_len, model, &body, &chunk);
			at += n_checks * 20 + s_len + p_len;
			vg_writer_reset(&reply);
			if (vg_receiver_handle(r, body.data, body.len, fb, &reply))
				break;
		}
	} else if (mode == 3 && size >= 2) {
		size_t split = at_most(data[1], size - 2);

		vg_writer_u8(&body, VG_MSG_APPROX);
		vg_writer_bytes(&body, data + 2, split);
		vg_zout_put(zpix, data + 2 + split, size - 2 - split, &body);
		vg_receiver_handle(r, body.data, body.len, fb, &reply);
	} else if (size >= 4) {
		size_t n_checks = at_most(data[1] % 4, (size - 4) / 20), s_len;

		s_len = at_most((size_t)data[2] << 8 | data[3], size - 4 - n_checks * 20);
		frame_update(zs, zpix, data + 4, n_checks, s_len, size - 4 - n_checks * 20 - s_len,
			     model, &body, &chunk);
		vg_receiver_handle(r, body.data, body.len, fb, &reply);
	}
	return 0;
}
