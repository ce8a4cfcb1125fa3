/* libFuzzer target for the server's handling of viewer messages
 * (vg_sender_handle). The input is the framebuffer size (two bytes,
 * 1..64 each) and then viewer message bodies as on the wire, each after a
 * 16-bit big-endian length. The sender has sent one update of 8x8 tiles
 * first, so it believes the viewer holds segments; every accepted REPAIR
 * is answered as the server does, with an update whose segments are the
 * repair's rectangles sent as pixels. With bit 7 of the first byte set the
 * sender first takes capabilities announced ahead (flags from the second
 * byte, a zstd window of 2^21 when bit 6 is set, else 2^20), so VIEWER HELLOs meet the confirmation
 * path and updates go out before them. A rejected message ends the input,
 * as it closes the connection. Beyond ASan and UBSan the target checks
 * that repairs stay inside the framebuffer and that the answers succeed. */
#include <stdint.h>
#include <stdlib.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"
#include "common/vg_segdesc.h"
#include "common/vg_seghash.h"
#include "common/vg_writer.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/proto/vg_sender.h"
#include "fingerprint/codec/vg_zstream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Sends every rectangle of rects (at most 64 of them) as one update,
 * pixels only where literal_only says; aborts if the sender refuses. */
static void send_rects(vg_sender *s, const vg_pixbuf *frame, const vg_rect *rects, size_t n,
		       const vg_region *literal_only)
{
	vg_segdesc segs[64];
	vg_writer out;
	size_t i;

	if (n > 64)
		n = 64;
	for (i = 0; i < n; i++) {
		vg_pixbuf view = vg_pixbuf_view(frame, rects[i]);

		segs[i] = (vg_segdesc){ .rect = rects[i], .orient = VG_ORIENT_ROWS,
					.hash = vg_seghash(&view, VG_ORIENT_ROWS) };
	}
	vg_writer_init(&out);
	if (vg_sender_update(s, frame, segs, n, literal_only, &out) != 0)
		abort();
	vg_writer_clear(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static vg_sender *sender;
	vg_rect tiles[64];
	vg_sender_config cfg;
	vg_sender *s;
	vg_pixbuf *frame;
	vg_region *repair;
	size_t at = 2, n = 0;
	int32_t w, h, x, y;

	if (size < 2)
		return 0;
	w = 1 + data[0] % 64;
	h = 1 + data[1] % 64;
	vg_sender_config_init(&cfg);
	cfg.zstd_level = 1;
	cfg.zstd_window_log = VG_ZSTD_WINDOW_LOG_MIN;
	cfg.fp_bits = 16;
	cfg.group_size = 4;
	/* One sender serves every input, reset before each as for a new
	 * viewer: its zstd streams and pixel model are kept, not made again. */
	if (!sender ? vg_sender_new(&cfg, &sender) != 0 : vg_sender_reset(sender, &cfg) != 0)
		abort();
	s = sender;
	frame = vg_pixbuf_new(w, h);
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			vg_pixbuf_row(frame, y)[x] = (uint32_t)((x / 8 + y / 8) % 3) * 0x405060u;
	for (y = 0; y < h && n < 64; y += 8)
		for (x = 0; x < w && n < 64; x += 8)
			tiles[n++] = vg_rect_make(x, y, w - x < 8 ? w - x : 8, h - y < 8 ? h - y : 8);
	repair = vg_region_new();
	if ((data[0] & 0x80) &&
	    vg_sender_assume_viewer(s, data[1] & VG_CAPS_VHELLO_FLAGS,
				    VG_ZSTD_WINDOW_LOG_MIN + (data[0] & 0x40 ? 1 : 0), 20) == 0)
		send_rects(s, frame, tiles, n, NULL);
	while (size - at >= 2) {
		size_t len = (size_t)data[at] << 8 | data[at + 1];
		const vg_rect *rects;
		size_t nr, i;

		at += 2;
		if (len > size - at)
			len = size - at;
		vg_region_clear(repair);
		if (vg_sender_handle(s, data + at, len, w, h, repair) != 0)
			break;
		at += len;
		/* The tiles once the viewer is known, so that later repairs
		 * meet segments the sender believes held. */
		if (vg_sender_has_viewer_hello(s))
			send_rects(s, frame, tiles, n, NULL);
		rects = vg_region_rects(repair, &nr);
		for (i = 0; i < nr; i++)
			if (!vg_pixbuf_holds(frame, rects[i]))
				abort();
		if (nr)
			send_rects(s, frame, rects, nr, repair);
	}
	vg_region_free(repair);
	vg_pixbuf_free(frame);
	return 0;
}
