/* libFuzzer round trip of the protocol, sender to receiver
 * (fingerprint/proto/): pictures, changes and segmentations the input
 * chooses are coded by vg_sender and decoded by vg_receiver, whose
 * replies (VIEWER HELLO, REPAIRs) go back to the sender, and repairs are
 * sent as the server sends them, until the viewer asks for nothing more.
 * After every update and its repairs the viewer's picture must be the
 * server's, exactly; anything else aborts (a refused message, a repair
 * that never ends, a pixel that differs).
 *
 * The first byte sets the connection (configure() below: what a sender
 * and a viewer of protocol 1.0 choose); the second the fingerprint width
 * (8..15 bits, so that different segments share fingerprints and only
 * the SHA-1 groups catch them) and the group size (1..8); the third the
 * frame's size class. Then updates until the input ends, each: a byte of
 * changes (0..7: a rectangle, what it is painted with, tests/fuzz/
 * vg_fuzzin.h; a copy may go as a MOVE), a byte of planted pixels (0..3:
 * junk put in the viewer's cache under a key the input picks, as a
 * stale cache holds), a byte for the segmentation (tile size and rows or
 * columns) of each changed rectangle, and a byte whose bit 0 sends an
 * APPROX of the changes first. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"
#include "common/vg_segdesc.h"
#include "common/vg_seghash.h"
#include "common/vg_writer.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/proto/vg_receiver.h"
#include "fingerprint/proto/vg_sender.h"
#include "fingerprint/codec/vg_zstream.h"
#include "tests/fuzz/vg_fuzzin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SEGS 4096

/* Everything the input's first byte decides about the connection, in
 * one place: what a sender and a viewer of protocol 1.0 still choose.
 * The sender: bit 0 the pixel model, bit 1 no INDEXED blocks, bit 2 no
 * REPEATs within an update (the ablations), bit 3 asks the viewer not to
 * persist (an ephemeral cache identity), bit 4 a zstd window of twice
 * the least, bit 5 zstd level 1 (else 3). Bits 6-7 pick the viewer:
 * VIEWER_EXACT (no approximations), VIEWER_LEAN (no pixel model) or both,
 * else one that takes everything. Returns which viewer. */
#define VIEWER_EXACT 1
#define VIEWER_LEAN 2
#define VIEWERS 4
static int configure(uint8_t flags, vg_sender_config *scfg)
{
	scfg->pixmodel = (flags & 1) != 0;
	scfg->indexed = (flags & 2) == 0;
	scfg->repeat_within = (flags & 4) == 0;
	scfg->no_persist = (flags & 8) != 0;
	scfg->zstd_window_log = VG_ZSTD_WINDOW_LOG_MIN + ((flags & 16) != 0);
	scfg->zstd_level = (flags & 32) ? 1 : 3;
	return flags >> 6;
}

static void viewer_config(int which, vg_receiver_config *rcfg)
{
	vg_receiver_config_init(rcfg);
	rcfg->memory_budget = 16u << 20; /* the smallest that opens a cache */
	rcfg->zstd_window_log = VG_ZSTD_WINDOW_LOG_MIN;
	rcfg->exact = (which & VIEWER_EXACT) != 0;
	rcfg->lean = (which & VIEWER_LEAN) != 0;
}

typedef struct {
	vg_sender *s;
	vg_receiver *r;
	vg_pixbuf *frame, *view;
	vg_writer wire, reply;
	vg_region *repair;
} session;

static void fail(const session *ss, const char *what, int err)
{
	fprintf(stderr, "%s: %s (viewer: %s)\n", what, vg_strerror(err), vg_receiver_error_text(ss->r));
	abort();
}

/* Hands the wire to the viewer and its replies to the sender; repair
 * rectangles gather in ss->repair. */
static void deliver(session *ss)
{
	vg_reader rd;
	int err;

	vg_writer_reset(&ss->reply);
	if ((err = vg_receiver_handle(ss->r, ss->wire.data, ss->wire.len, ss->view, &ss->reply)))
		fail(ss, "receiver", err);
	vg_reader_init(&rd, ss->reply.data, ss->reply.len);
	while (vg_reader_remaining(&rd)) {
		const uint8_t *body;
		uint8_t type = 0;
		uint16_t len = 0;

		if (vg_reader_u8(&rd, &type) || type != VG_CLIENT_MSG || vg_reader_u16be(&rd, &len) ||
		    vg_reader_ptr(&rd, len, &body))
			fail(ss, "viewer's reply framing", VG_ECORRUPT);
		if ((err = vg_sender_handle(ss->s, body, len, ss->frame->width, ss->frame->height,
					    ss->repair)))
			fail(ss, "sender", err);
	}
}

static vg_segdesc seg_of(const vg_pixbuf *fb, vg_rect r, vg_orient o)
{
	vg_pixbuf v = vg_pixbuf_view(fb, r);
	vg_segdesc d = { .rect = r, .orient = (uint8_t)o, .hash = vg_seghash(&v, o) };

	return d;
}

/* Cuts r into tiles of tw x th as segments of orientation o, or into
 * one segment when the tiles would not leave room in segs for the
 * `later` rectangles still to come (one segment each at least). */
static size_t cut(const vg_pixbuf *fb, vg_rect r, int32_t tw, int32_t th, vg_orient o,
		  vg_segdesc *segs, size_t n, size_t later)
{
	size_t tiles = (size_t)((r.w + tw - 1) / tw) * (size_t)((r.h + th - 1) / th);
	int32_t x, y;

	if (tiles > MAX_SEGS - n - later) {
		tw = r.w;
		th = r.h;
	}
	for (y = r.y; y < r.y + r.h; y += th)
		for (x = r.x; x < r.x + r.w; x += tw) {
			int32_t w = r.x + r.w - x < tw ? r.x + r.w - x : tw;
			int32_t h = r.y + r.h - y < th ? r.y + r.h - y : th;

			segs[n++] = seg_of(fb, vg_rect_make(x, y, w, h), o);
		}
	return n;
}

/* Sends the repairs the viewer asked for, as the server does, until it
 * asks for nothing more. */
static void repair_all(session *ss, vg_segdesc *segs)
{
	int rounds = 0, err;

	while (!vg_region_is_empty(ss->repair)) {
		size_t nr, n = 0, i;
		const vg_rect *rs = vg_region_rects(ss->repair, &nr);
		vg_region *asked = vg_region_new();

		if (++rounds > 4)
			fail(ss, "repairs never end", VG_EPROTO);
		if (nr > MAX_SEGS)
			fail(ss, "more repair rectangles than the fuzzer keeps", VG_ERANGE);
		for (i = 0; i < nr; i++)
			n = cut(ss->frame, rs[i], rs[i].w, rs[i].h, VG_ORIENT_ROWS, segs, n, nr - i - 1);
		vg_region_add_region(asked, ss->repair);
		vg_region_clear(ss->repair);
		vg_writer_reset(&ss->wire);
		if ((err = vg_sender_update(ss->s, ss->frame, segs, n, asked, &ss->wire)))
			fail(ss, "sender's repair", err);
		vg_region_free(asked);
		deliver(ss);
	}
}

static void check_exact(const session *ss, int update)
{
	int32_t x, y;

	for (y = 0; y < ss->frame->height; y++)
		for (x = 0; x < ss->frame->width; x++)
			if ((vg_pixbuf_row(ss->frame, y)[x] ^ vg_pixbuf_row(ss->view, y)[x]) & VG_PIXEL_MASK) {
				vg_receiver_stats st;

				vg_receiver_get_stats(ss->r, &st);
				fprintf(stderr,
					"update %d: pixel %d,%d is %06x, not %06x (viewer: %" PRIu64
					" segments, %" PRIu64 " literal, %" PRIu64 " hits, %" PRIu64
					" repeats, %" PRIu64 " corrections, %" PRIu64 " approximate pixels)\n",
					update, x, y, vg_pixbuf_row(ss->view, y)[x] & VG_PIXEL_MASK,
					vg_pixbuf_row(ss->frame, y)[x] & VG_PIXEL_MASK, st.segments,
					st.literal_segments, st.cache_hits, st.repeats, st.corrections,
					st.approx_pixels);
				abort();
			}
	if (vg_receiver_approximate(ss->r))
		fail(ss, "approximations left", VG_EPROTO);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int32_t sizes[4][2] = { { 16, 12 }, { 48, 40 }, { 96, 64 }, { 33, 130 } };
	static vg_segdesc segs[MAX_SEGS];
	/* One viewer of each kind serves every input, reset before each as
	 * for a new connection: a new one's 8 MB would cost most of the time.
	 * So does one sender of each zstd level and window (flags bits 4-5),
	 * whose streams and pixel model its reset keeps. */
	static vg_receiver *viewers[VIEWERS];
	static vg_sender *senders[4];
	vg_sender_config scfg;
	int which;
	vg_fuzzin in;
	session ss;
	vg_pixbuf *junk;
	uint8_t flags, bits, size_class;
	int update = 0, err;

	vg_fuzzin_init(&in, data, size);
	flags = vg_fuzzin_u8(&in);
	bits = vg_fuzzin_u8(&in);
	size_class = vg_fuzzin_u8(&in) & 3;
	vg_sender_config_init(&scfg);
	which = configure(flags, &scfg);
	scfg.fp_bits = VG_FP_BITS_MIN + (bits & 7);
	scfg.group_size = 1 + (bits >> 3 & 7);
	memcpy(scfg.server_id, "fuzz-session-srv", 16);
	if (!viewers[which]) {
		vg_receiver_config rcfg;

		viewer_config(which, &rcfg);
		if (vg_receiver_new(&rcfg, &viewers[which]))
			abort();
	} else if (vg_receiver_reset(viewers[which])) {
		abort();
	}
	ss.r = viewers[which];
	if (!senders[flags >> 4 & 3] ? vg_sender_new(&scfg, &senders[flags >> 4 & 3])
				     : vg_sender_reset(senders[flags >> 4 & 3], &scfg))
		abort();
	ss.s = senders[flags >> 4 & 3];
	ss.frame = vg_pixbuf_new(sizes[size_class][0], sizes[size_class][1]);
	ss.view = vg_pixbuf_new(ss.frame->width, ss.frame->height);
	junk = vg_pixbuf_new(ss.frame->width, ss.frame->height);
	vg_writer_init(&ss.wire);
	vg_writer_init(&ss.reply);
	ss.repair = vg_region_new();
	vg_sender_hello(ss.s, &ss.wire);
	deliver(&ss);
	while (!vg_fuzzin_done(&in) && update++ < 48) {
		unsigned n_changes = vg_fuzzin_u8(&in) % 8, n_junk = vg_fuzzin_u8(&in) % 4, i;
		uint8_t shape = vg_fuzzin_u8(&in), extra = vg_fuzzin_u8(&in);
		int32_t tw = 1 + (shape & 15) * 4, th = 1 + (shape >> 4 & 7) * 3;
		vg_orient o = shape & 128 ? VG_ORIENT_COLS : VG_ORIENT_ROWS;
		vg_rect changed[8];
		vg_move moves[8];
		size_t n = 0, n_moves = 0;

		for (i = 0; i < n_changes; i++) {
			vg_rect src;
			bool copied;

			changed[i] = vg_fuzzin_rect(&in, ss.frame->width, ss.frame->height);
			vg_fuzzin_paint(&in, ss.frame, changed[i], &src, &copied);
			/* A lone copy may go as a MOVE, from the picture as the
			 * viewer holds it before this update. */
			if (copied && n_changes == 1 && vg_sender_takes_moves(ss.s) && (extra & 2))
				moves[n_moves++] = (vg_move){ .rect = changed[i],
							      .dx = changed[i].x - src.x,
							      .dy = changed[i].y - src.y };
		}
		for (i = 0; i < n_junk; i++) {
			vg_rect r = vg_fuzzin_rect(&in, junk->width, junk->height), src;
			vg_pixbuf v = vg_pixbuf_view(junk, r);
			uint64_t key = vg_fuzzin_u16(&in) & ((1u << scfg.fp_bits) - 1);
			bool copied;

			vg_fuzzin_paint(&in, junk, r, &src, &copied);
			vg_receiver_seed_cache(ss.r, key, &v);
		}
		if (n_moves) {
			/* The moved pixels come with the MOVE: no segments over them. */
			n_changes = 0;
		}
		for (i = 0; i < n_changes; i++)
			n = cut(ss.frame, changed[i], tw, th, o, segs, n, n_changes - i - 1);
		if ((extra & 1) && n_changes && vg_sender_takes_approx(ss.s)) {
			vg_writer_reset(&ss.wire);
			if ((err = vg_sender_approx(ss.s, ss.frame, changed, n_changes, 2 + (extra >> 2 & 3),
						    &ss.wire)) == 0)
				deliver(&ss);
			else if (err != VG_EINVAL)
				fail(&ss, "sender's approx", err);
		}
		vg_writer_reset(&ss.wire);
		err = n_moves ? vg_sender_update_moves(ss.s, ss.frame, moves, n_moves, segs, n, NULL, &ss.wire)
			      : vg_sender_update(ss.s, ss.frame, segs, n, NULL, &ss.wire);
		if (err)
			fail(&ss, "sender's update", err);
		deliver(&ss);
		repair_all(&ss, segs);
		check_exact(&ss, update);
	}
	vg_region_free(ss.repair);
	vg_writer_clear(&ss.wire);
	vg_writer_clear(&ss.reply);
	vg_pixbuf_free(junk);
	vg_pixbuf_free(ss.frame);
	vg_pixbuf_free(ss.view);
	return 0;
}
