/* UPDATE round trips, fingerprints and their SHA-1 groups, forced
 * collisions, cache loss, malformed updates and streams. */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_reader.h"
#include "common/vg_seghash.h"
#include "fingerprint/codec/vg_approx.h"
#include "fingerprint/codec/vg_literal.h"
#include "fingerprint/codec/vg_sha1.h"
#include "fingerprint/codec/vg_zstream.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/proto/vg_receiver.h"
#include "fingerprint/proto/vg_sender.h"
#include "segment2d/vg_moves.h"
#include "tests/vg_protopair.h"

/* The pixel model and the literal methods taking turns as the link's
 * rate changes (in runs of three updates: far below, then far above what
 * any coding could make worth its time), on anti-aliased text whose grey
 * levels the literal methods keep in their colour table: an update by the
 * model leaves that table as it was at both ends, and every picture is
 * exact. */
static void test_model_by_rate(void)
{
	GRand *rng = g_rand_new_with_seed(12);
	vg_sender_stats ss;
	vg_receiver_stats rs;
	vg_pair p;
	int round;

	vg_pair_pixmodel_by_rate = true;
	vg_pair_init(&p, 64, 64);
	vg_pair_pixmodel_by_rate = false;
	for (round = 0; round < 60; round++) {
		vg_sender_set_rate(p.s, round / 3 % 2 ? 1 : UINT64_C(1) << 50);
		vg_pair_text_band(&p, rng, 16 * (round % 4), 200);
	}
	vg_sender_get_stats(p.s, &ss);
	vg_receiver_get_stats(p.r, &rs);
	g_assert_cmpuint(ss.literal_updates, ==, 60);
	g_assert_cmpuint(ss.model_updates, ==, 30);
	g_assert_cmpuint(rs.model_updates, ==, 30);
	g_assert_cmpuint(ss.literal_pixels[VG_LIT_INDEXED], ==, 30 * 64 * 16);
	vg_pair_clear(&p);
	g_rand_free(rng);
}

static void test_round_trip(void)
{
	GRand *rng = g_rand_new_with_seed(11);
	vg_segdesc segs[4096];
	vg_sender_stats ss;
	vg_receiver_stats rs;
	vg_pair p;
	int update;

	vg_pair_init(&p, 301, 207);
	for (update = 0; update < 400; update++) {
		size_t n = vg_pair_random_update(rng, &p, segs, 40);
		g_assert_cmpint(vg_pair_exchange(&p, segs, n), ==, 0);
		g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
	}
	vg_sender_get_stats(p.s, &ss);
	vg_receiver_get_stats(p.r, &rs);
	g_test_message("%" G_GUINT64_FORMAT " segments: %" G_GUINT64_FORMAT " literal, %"
		       G_GUINT64_FORMAT " fingerprints, %" G_GUINT64_FORMAT " checks, %" G_GUINT64_FORMAT
		       " body bytes", ss.segments, ss.literal_segments, ss.fingerprint_segments,
		       ss.checks, ss.body_bytes);
	g_assert_cmpuint(ss.updates, ==, 400);
	g_assert_cmpuint(rs.updates, ==, 400);
	/* Every update with literal segments went by the pixel model when
	 * it was offered, none otherwise. */
	if (vg_pair_pixmodel)
		g_assert_cmpuint(ss.model_updates, >, 300);
	else
		g_assert_cmpuint(ss.model_updates, ==, 0);
	g_assert_cmpuint(ss.segments, ==, rs.segments);
	g_assert_cmpuint(ss.fingerprint_segments, >, ss.literal_segments);
	g_assert_cmpuint(rs.cache_hits, ==, ss.fingerprint_segments);
	g_assert_cmpuint(rs.cache_misses, ==, 0);
	g_assert_cmpuint(rs.corrections, ==, 0);
	g_assert_cmpuint(rs.checks, ==, ss.checks);
	/* An empty update is legal and changes nothing. */
	g_assert_cmpint(vg_pair_send(&p, segs, 0, NULL), ==, 0);
	g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
	vg_pair_clear(&p);
	g_rand_free(rng);
}

/* With 8- to 16-bit fingerprints and a viewer cache seeded with other
 * content under every key, the server's bookkeeping cannot hide the
 * collisions: only the viewer's SHA-1 check finds them. */
static void test_forced_collisions(void)
{
	static const unsigned widths[] = { 8, 12, 16 };
	size_t wi;

	for (wi = 0; wi < G_N_ELEMENTS(widths); wi++) {
		GRand *rng = g_rand_new_with_seed(5 + (guint32)wi);
		vg_segdesc segs[4096];
		vg_receiver_stats rs;
		vg_pixbuf *junk = vg_pixbuf_new(16, 24);
		vg_pair p;
		int update;
		uint64_t key;

		vg_pair_init_group(&p, 200, 160, widths[wi], VG_GROUP_DEFAULT);
		for (update = 0; update < 300; update++) {
			size_t n = vg_pair_random_update(rng, &p, segs, 30), k;

			/* Before each update, plant wrong pixels of the right size
			 * under the keys the server will send as fingerprints. */
			for (k = 0; k < n; k++) {
				key = vg_fp_key(segs[k].hash, widths[wi]);
				if (g_rand_int_range(rng, 0, 3))
					continue;
				vg_pair_plant_junk(&p, junk, rng, key, segs[k].rect);
			}
			vg_pair_exchange(&p, segs, n);
			g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
		}
		vg_receiver_get_stats(p.r, &rs);
		g_test_message("%u bits: %" G_GUINT64_FORMAT " hits, %" G_GUINT64_FORMAT
			       " SHA-1 mismatches, %" G_GUINT64_FORMAT " segments corrected",
			       widths[wi], rs.cache_hits, rs.check_failures, rs.corrections);
		g_assert_cmpuint(rs.corrections, >, 0);
		vg_pixbuf_free(junk);
		vg_pair_clear(&p);
		g_rand_free(rng);
	}
	/* Nearly every believed segment travels as a REPEAT, whose content
	 * hash the viewer checks itself; the SHA-1 path has its own test
	 * (fingerprint-collision). */
}

/* The viewer loses its cache mid-stream: misses are repaired. */
static void test_cache_loss(void)
{
	GRand *rng = g_rand_new_with_seed(21);
	vg_segdesc segs[4096];
	vg_receiver_stats rs;
	vg_pair p;
	int update;

	vg_pair_init(&p, 256, 200);
	for (update = 0; update < 300; update++) {
		size_t n = vg_pair_random_update(rng, &p, segs, 25);
		if (update % 100 == 50)
			vg_receiver_clear_cache(p.r);
		vg_pair_exchange(&p, segs, n);
		g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
	}
	vg_receiver_get_stats(p.r, &rs);
	g_test_message("%" G_GUINT64_FORMAT " misses, %" G_GUINT64_FORMAT " corrected",
		       rs.cache_misses, rs.corrections);
	g_assert_cmpuint(rs.cache_misses, >, 0);
	g_assert_cmpuint(rs.corrections, >=, rs.cache_misses);
	vg_pair_clear(&p);
	g_rand_free(rng);
}

static void test_malformed(void)
{
	/* Each is a plain update: structure (items are uleb(len * 4 + op);
	 * run rectangles as zigzag differences, so the first run's numbers
	 * are doubled), literal pixels, and how many digests; all must fail
	 * cleanly in an 8 x 8 frame. Fingerprints are 5 bytes (40 bits). */
	static const struct {
		const char *name;
		guint8 bytes[24];
		size_t n;
		guint8 pix[24];
		size_t n_pix;
		size_t checks;
	} cases[] = {
		{ "no runs field", { 0 }, 0, { 0 }, 0, 0 },
		{ "run outside frame", { 1, 20, 0, 20, 2, 0, 1, 4 }, 8, { 0, 1, 2, 3 }, 4, 0 },
		{ "zero width", { 1, 0, 0, 0, 2, 0, 1, 4 }, 8, { 0 }, 0, 0 },
		{ "segment count zero", { 1, 0, 0, 4, 4, 0, 0 }, 7, { 0 }, 0, 0 },
		{ "segments overrun", { 1, 0, 0, 4, 4, 0, 1, 12 }, 8, { 0 }, 0, 0 },
		{ "segments short", { 1, 0, 0, 4, 4, 0, 1, 4 }, 8, { 0, 1, 2, 3, 4, 5, 6 }, 7, 0 },
		{ "pixels missing", { 1, 0, 0, 4, 4, 0, 1, 8 }, 8, { 0, 1, 2, 3 }, 4, 0 },
		{ "no pixel chunk", { 1, 0, 0, 2, 2, 0, 1, 4 }, 8, { 0 }, 0, 0 },
		{ "pixels left over", { 1, 0, 0, 2, 2, 0, 1, 4 }, 8, { 0, 1, 2, 3, 9 }, 5, 0 },
		{ "unknown literal method", { 1, 0, 0, 2, 2, 0, 1, 4 }, 8, { 7, 1, 2, 3 }, 4, 0 },
		{ "palette index outside", { 1, 0, 0, 2, 4, 0, 1, 8 }, 8,
		  { 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0xc0, 0x00 }, 13, 0 },
		{ "palette cut short", { 1, 0, 0, 2, 4, 0, 1, 8 }, 8, { 2, 2, 1, 1, 1, 2, 2 }, 7, 0 },
		{ "indices cut short", { 1, 0, 0, 2, 4, 0, 1, 8 }, 8, { 2, 1, 1, 1, 1, 2, 2, 2, 0x80 }, 9, 0 },
		{ "run past the block", { 1, 0, 0, 2, 4, 0, 1, 8 }, 8, { 3, 0, 1, 1, 1, 0x80, 5 }, 7, 0 },
		{ "runs short of the block", { 1, 0, 0, 2, 4, 0, 1, 8 }, 8, { 3, 0, 1, 1, 1, 0x00 }, 6, 0 },
		{ "run index outside", { 1, 0, 0, 2, 2, 0, 1, 4 }, 8, { 3, 1, 1, 1, 1, 2, 2, 2, 0x02 }, 9, 0 },
		{ "run palette too large", { 1, 0, 0, 2, 2, 0, 1, 4 }, 8, { 3, 200, 1, 1, 1 }, 5, 0 },
		{ "repeat without its offset", { 1, 0, 0, 2, 2, 0, 1, 7 }, 8, { 0 }, 0, 0 },
		{ "repeat before any update", { 1, 0, 0, 2, 2, 0, 1, 7, 0 }, 9, { 0 }, 0, 0 },
		{ "bad orientation", { 1, 0, 0, 2, 2, 9, 1, 4 }, 8, { 0, 1, 2, 3 }, 4, 0 },
		{ "huge count", { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 10, { 0 }, 0, 0 },
		{ "trailing bytes", { 0, 5 }, 2, { 0 }, 0, 0 },
		{ "check without group", { 1, 0, 0, 2, 2, 0, 1, 2 }, 8, { 0 }, 0, 1 },
		{ "check at end without group", { 0, 2 }, 2, { 0 }, 0, 1 },
		{ "fingerprint cut short", { 1, 0, 0, 2, 2, 0, 1, 5, 1, 2 }, 10, { 0 }, 0, 0 },
		{ "group without its check", { 1, 0, 0, 2, 2, 0, 1, 5, 1, 2, 3, 4, 5 }, 13, { 0 }, 0, 0 },
		{ "check without its digest", { 1, 0, 0, 2, 2, 0, 1, 5, 1, 2, 3, 4, 5, 2 }, 14, { 0 }, 0, 0 },
		{ "digest left over", { 0 }, 1, { 0 }, 0, 1 },
		{ "move from outside", { 1, 0, 0, 8, 8, 2, 16, 0 }, 8, { 0 }, 0, 0 },
		{ "move cut short", { 1, 0, 0, 8, 8, 2, 2 }, 7, { 0 }, 0, 0 },
		{ "move after a segment", { 2, 0, 0, 2, 2, 0, 1, 4, 0, 2, 0, 0, 2, 0, 0 }, 15,
		  { 0, 1, 2, 3 }, 4, 0 },
		{ "moves over the frame", { 2, 0, 0, 16, 16, 2, 0, 0, 15, 0, 0, 0, 2, 0, 0 }, 15, { 0 }, 0, 0 },
	};
	static const guint8 bad_frames[][6] = {
		{ VG_MSG_UPDATE },                               /* no digest count */
		{ VG_MSG_UPDATE, 0xff, 0xff, 0x03 },              /* digests past the body */
		{ VG_MSG_UPDATE, 0, 9, 1, 2 },                    /* structure past the body */
		{ VG_MSG_UPDATE, 0, 0, 0x78, 0x9c, 0x00 },        /* no structure, stray bytes */
	};
	static const size_t bad_len[] = { 1, 4, 5, 6 };
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		vg_zout *zs, *zpix;
		vg_writer msg;
		vg_pair p;
		int err;

		vg_pair_init(&p, 8, 8);
		vg_pair_zouts(&zs, &zpix);
		vg_writer_init(&msg);
		vg_pair_msg(zs, zpix, cases[i].checks, cases[i].bytes, cases[i].n, cases[i].pix,
			    cases[i].n_pix, &msg);
		err = vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply);
		g_test_message("%s: %s", cases[i].name, vg_receiver_error_text(p.r));
		g_assert_cmpint(err, <, 0);
		/* Refused by the parser, not by the framing. */
		g_assert_null(strstr(vg_receiver_error_text(p.r), "digests or structure length"));
		vg_zout_free(zs);
		vg_zout_free(zpix);
		vg_writer_clear(&msg);
		vg_pair_clear(&p);
	}
	for (i = 0; i < G_N_ELEMENTS(bad_frames); i++) {
		vg_pair p;

		vg_pair_init(&p, 8, 8);
		g_assert_cmpint(vg_receiver_handle(p.r, bad_frames[i], bad_len[i], p.viewer_fb, &p.reply),
				<, 0);
		g_test_message("frame %zu: %s", i, vg_receiver_error_text(p.r));
		vg_pair_clear(&p);
	}
}

/* Hands the viewer's replies to s as well (repairs ignored). */
static void feed_sender(vg_sender *s, const vg_writer *reply, const vg_pixbuf *fb)
{
	vg_region *repair = vg_region_new();
	vg_reader rd;

	vg_reader_init(&rd, reply->data, reply->len);
	while (vg_reader_remaining(&rd)) {
		const uint8_t *body;
		uint8_t type;
		uint16_t len;

		g_assert_cmpint(vg_reader_u8(&rd, &type), ==, 0);
		g_assert_cmpint(vg_reader_u16be(&rd, &len), ==, 0);
		g_assert_cmpint(vg_reader_ptr(&rd, len, &body), ==, 0);
		g_assert_cmpint(vg_sender_handle(s, body, len, fb->width, fb->height, repair), ==, 0);
	}
	vg_region_free(repair);
}

/* A receiver reset after a session (its cache, history and pixel model
 * full) takes the next session as a new receiver does: the same
 * replies (the VIEWER HELLO's random cache identity aside), the same
 * pixels, the same counts. So does a sender reset (vg_sender_reset,
 * keeping its streams and pixel model): the same bytes as a new one. */
static void test_reset(void)
{
	GRand *rng = g_rand_new_with_seed(5);
	vg_segdesc segs[4096];
	vg_sender_config scfg;
	vg_receiver_config rcfg;
	vg_receiver_stats st_reset, st_new;
	vg_sender_stats ss;
	vg_receiver *fresh;
	vg_sender *fresh_s;
	vg_pixbuf *fb_reset, *fb_new;
	vg_writer reply_new, wire_new;
	vg_pair p;
	int update;

	vg_pair_init(&p, 160, 120);
	for (update = 0; update < 20; update++) {
		size_t n = vg_pair_random_update(rng, &p, segs, 40);
		vg_pair_exchange(&p, segs, n);
	}
	vg_sender_get_stats(p.s, &ss);
	if (vg_pair_pixmodel)
		g_assert_cmpuint(ss.model_updates, >, 0);
	g_assert_cmpint(vg_receiver_reset(p.r), ==, 0);
	vg_pair_configs(&scfg, &rcfg, VG_FP_BITS_DEFAULT, VG_GROUP_DEFAULT);
	g_assert_cmpint(vg_receiver_new(&rcfg, &fresh), ==, 0);
	g_assert_cmpint(vg_sender_reset(p.s, &scfg), ==, 0);
	g_assert_cmpint(vg_sender_new(&scfg, &fresh_s), ==, 0);
	fb_reset = vg_pixbuf_new(160, 120);
	fb_new = vg_pixbuf_new(160, 120);
	vg_writer_init(&reply_new);
	vg_writer_init(&wire_new);
	vg_writer_reset(&p.reply);
	vg_writer_reset(&p.wire);
	vg_sender_hello(p.s, &p.wire);
	vg_sender_hello(fresh_s, &wire_new);
	for (update = 0; update <= 30; update++) {
		g_assert_cmpmem(p.wire.data, p.wire.len, wire_new.data, wire_new.len);
		g_assert_cmpint(vg_receiver_handle(p.r, p.wire.data, p.wire.len, fb_reset, &p.reply), ==, 0);
		g_assert_cmpint(vg_receiver_handle(fresh, p.wire.data, p.wire.len, fb_new, &reply_new), ==, 0);
		g_assert_cmpuint(p.reply.len, ==, reply_new.len);
		if (update == 0)
			g_assert_cmpuint(p.reply.data[VG_PAIR_VHELLO_FLAGS_AT], ==,
					 reply_new.data[VG_PAIR_VHELLO_FLAGS_AT]);
		else
			g_assert_cmpmem(p.reply.data, p.reply.len, reply_new.data, reply_new.len);
		g_assert_true(vg_pixbuf_equal(fb_reset, fb_new));
		if (update > 0)
			g_assert_true(vg_pixbuf_equal(fb_reset, p.server_fb));
		feed_sender(fresh_s, &p.reply, p.server_fb);
		vg_pair_feed_replies(&p);
		vg_writer_reset(&reply_new);
		vg_writer_reset(&p.wire);
		vg_writer_reset(&wire_new);
		if (update < 30) {
			size_t n = vg_pair_random_update(rng, &p, segs, 40);

			/* The whole picture first, as a new connection's first update. */
			if (update == 0) {
				segs[0] = vg_pair_seg(p.server_fb, vg_rect_make(0, 0, 160, 120),
						      VG_ORIENT_ROWS);
				n = 1;
			}
			g_assert_cmpint(vg_sender_update(p.s, p.server_fb, segs, n, NULL, &p.wire), ==, 0);
			g_assert_cmpint(vg_sender_update(fresh_s, p.server_fb, segs, n, NULL, &wire_new),
					==, 0);
		}
	}
	vg_receiver_get_stats(p.r, &st_reset);
	vg_receiver_get_stats(fresh, &st_new);
	g_assert_cmpuint(st_reset.updates, ==, 30);
	g_assert_cmpuint(st_reset.updates, ==, st_new.updates);
	g_assert_cmpuint(st_reset.cache_hits, ==, st_new.cache_hits);
	g_assert_cmpuint(st_reset.cache_misses, ==, 0);
	g_assert_cmpuint(st_reset.cache_entries, ==, st_new.cache_entries);
	vg_writer_clear(&reply_new);
	vg_writer_clear(&wire_new);
	vg_sender_free(fresh_s);
	vg_pixbuf_free(fb_reset);
	vg_pixbuf_free(fb_new);
	vg_receiver_free(fresh);
	vg_pair_clear(&p);
	g_rand_free(rng);
}

/* A chunk that inflates to exactly the limit is whole, one byte more is
 * too many; at the first buffer's size (64 KiB), below it, and empty (as
 * the zstream fuzzer found: a chunk of exactly max bytes was refused).
 * Streams restarted by vg_zout_reset / vg_zin_reset decode alike. Both
 * coders vg_zstream has, though the protocol speaks zstd only. */
static void test_zstream_limit(void)
{
	static const size_t sizes[] = { 0, 1, 100, 65536, 65537 };
	guint8 *plain = g_malloc(65537);
	size_t i, k;
	int coder;

	for (i = 0; i < 65537; i++)
		plain[i] = (guint8)(i * 7 / 3);
	for (coder = 0; coder < 2; coder++) {
		vg_coder c = coder ? VG_CODER_ZSTD : VG_CODER_ZLIB;

		for (k = 0; k < G_N_ELEMENTS(sizes); k++) {
			size_t n = sizes[k], got = 0, cap = 0;
			guint8 *buf = NULL;
			vg_zout *zo;
			vg_zin *zi;
			vg_writer out;

			g_assert_cmpint(vg_zout_new(c, 1, VG_ZSTD_WINDOW_LOG_MIN, &zo), ==, 0);
			g_assert_cmpint(vg_zin_new(c, VG_ZSTD_WINDOW_LOG_MIN, &zi), ==, 0);
			vg_writer_init(&out);
			g_assert_cmpint(vg_zout_put(zo, plain, n, &out), ==, 0);
			g_assert_cmpint(vg_zin_get(zi, out.data, out.len, &buf, &cap, n, &got), ==, 0);
			g_assert_cmpuint(got, ==, n);
			g_assert_true(n == 0 || memcmp(buf, plain, n) == 0);
			/* Again from the start, with one byte less allowed. */
			g_assert_cmpint(vg_zout_reset(zo), ==, 0);
			g_assert_cmpint(vg_zin_reset(zi), ==, 0);
			vg_writer_reset(&out);
			g_assert_cmpint(vg_zout_put(zo, plain, n, &out), ==, 0);
			if (n > 0) {
				free(buf);
				buf = NULL;
				cap = 0;
				g_assert_cmpint(vg_zin_get(zi, out.data, out.len, &buf, &cap, n - 1, &got), ==,
						VG_ERANGE);
			} else {
				g_assert_cmpint(vg_zin_get(zi, out.data, out.len, &buf, &cap, 0, &got), ==, 0);
				g_assert_cmpuint(got, ==, 0);
			}
			vg_writer_clear(&out);
			free(buf);
			vg_zout_free(zo);
			vg_zin_free(zi);
		}
	}
	g_free(plain);
}

/* A bomb: a small body that inflates far past the frame size is refused. */
static void test_inflate_bomb(void)
{
	vg_zout *zs, *zpix;
	vg_writer msg;
	guint8 *zeros = g_malloc0(1 << 20);
	vg_pair p;

	vg_pair_init(&p, 8, 8);
	vg_pair_zouts(&zs, &zpix);
	vg_writer_init(&msg);
	vg_pair_msg(zs, zpix, 0, zeros, 1 << 20, NULL, 0, &msg);
	g_assert_cmpuint(msg.len, <, 8192);
	g_assert_cmpint(vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply), ==, VG_ERANGE);
	vg_pair_clear(&p);
	/* The same through the pixel stream (fresh streams for a fresh viewer). */
	vg_zout_free(zs);
	vg_zout_free(zpix);
	vg_pair_zouts(&zs, &zpix);
	vg_pair_init(&p, 8, 8);
	vg_pair_msg(zs, zpix, 0, (const guint8 *)"\0", 1, zeros, 1 << 20, &msg);
	g_assert_cmpint(vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply), ==, VG_ERANGE);
	vg_zout_free(zs);
	vg_zout_free(zpix);
	vg_writer_clear(&msg);
	g_free(zeros);
	vg_pair_clear(&p);
}

/* A FINGERPRINT whose key the viewer's cache holds with other pixels of
 * the right size: only the group's SHA-1 tells them apart. The same
 * update with the cache holding the right pixels passes its check. */
static void test_fingerprint_collision(void)
{
	int planted;

	for (planted = 0; planted < 2; planted++) {
		vg_pixbuf *right = vg_pixbuf_new(8, 8), *junk = vg_pixbuf_new(8, 8);
		uint8_t digest[VG_SHA1_LEN];
		vg_receiver_stats rs;
		vg_zout *zs, *zpix;
		vg_writer plain, chunk, msg;
		uint64_t key;
		vg_pair p;

		vg_pixbuf_fill(right, vg_pixbuf_rect(right), 0x00123456);
		vg_pixbuf_fill(junk, vg_pixbuf_rect(junk), 0x00654321);
		key = vg_fp_key(vg_seghash(right, VG_ORIENT_ROWS), VG_FP_BITS_DEFAULT);
		vg_pair_init(&p, 8, 8);
		g_assert_cmpint(vg_receiver_seed_cache(p.r, key, planted ? junk : right), ==, 0);
		{
			vg_sha1 *h;

			g_assert_cmpint(vg_sha1_new(&h), ==, 0);
			g_assert_cmpint(vg_sha1_update_rect(h, right, vg_pixbuf_rect(right)), ==, 0);
			g_assert_cmpint(vg_sha1_final(h, digest), ==, 0);
			vg_sha1_free(h);
		}
		/* One run of one 8-row FINGERPRINT, then its CHECK. */
		vg_writer_init(&plain);
		vg_writer_init(&chunk);
		vg_writer_init(&msg);
		vg_writer_uleb(&plain, 1);
		vg_pair_first_run(&plain, vg_rect_make(0, 0, 8, 8));
		vg_writer_u8(&plain, VG_ORIENT_ROWS);
		vg_writer_uleb(&plain, 1);
		vg_writer_uleb(&plain, 8 * 4 + VG_OP_FINGERPRINT);
		vg_writer_uint_be(&plain, 5, key);
		vg_writer_uleb(&plain, VG_OP_CHECK);
		vg_pair_zouts(&zs, &zpix);
		g_assert_cmpint(vg_zout_put(zs, plain.data, plain.len, &chunk), ==, 0);
		vg_writer_u8(&msg, VG_MSG_UPDATE);
		vg_writer_uleb(&msg, 1 * 2);
		vg_writer_bytes(&msg, digest, sizeof digest);
		vg_writer_uleb(&msg, chunk.len);
		vg_writer_bytes(&msg, chunk.data, chunk.len);
		g_assert_cmpint(vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply), ==, 0);
		vg_receiver_get_stats(p.r, &rs);
		g_assert_cmpuint(rs.cache_hits, ==, 1);
		g_assert_cmpuint(rs.checks, ==, 1);
		g_assert_cmpuint(rs.check_failures, ==, (uint64_t)planted);
		g_assert_cmpuint(rs.corrections, ==, (uint64_t)planted);
		g_assert_cmpuint(rs.repairs_sent, ==, (uint64_t)planted);
		/* Without the junk the viewer shows the right pixels at once. */
		g_assert_true(planted || vg_pixbuf_equal(p.viewer_fb, right));
		vg_zout_free(zs);
		vg_zout_free(zpix);
		vg_writer_clear(&plain);
		vg_writer_clear(&chunk);
		vg_writer_clear(&msg);
		vg_pair_clear(&p);
		vg_pixbuf_free(right);
		vg_pixbuf_free(junk);
	}
}

/* Run rectangles: differences that land inside the frame
 * draw there; differences that leave 0..VG_MAX_DIM, or a rectangle
 * outside the frame, are refused. */
static void test_run_deltas(void)
{
	static const struct {
		const char *name;
		int64_t d[8];     /* two runs: dx, dy, dw, dh each */
		int expect;
	} cases[] = {
		{ "two columns side by side", { 0, 0, 4, 8, 0, 0, 0, 0 }, VG_OK },
		{ "second run back left", { 4, 0, 4, 8, -8, 0, 0, 0 }, VG_OK },
		{ "x below 0", { 0, 0, 4, 8, -5, 0, 0, 0 }, VG_ERANGE },
		{ "width past VG_MAX_DIM", { 0, 0, 4, 8, 0, 0, VG_MAX_DIM, 0 }, VG_ERANGE },
		{ "a huge difference", { 0, 0, 4, 8, INT64_C(1) << 40, 0, 0, 0 }, VG_ERANGE },
		{ "outside the frame", { 0, 0, 4, 8, 4, 0, 0, 0 }, VG_ERANGE },
	};
	guint8 pix[1 + 4 * 8 * 3];
	size_t i;
	int k;

	memset(pix, 0x5a, sizeof pix);
	pix[0] = VG_LIT_RAW;
	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		vg_writer plain, both, msg;
		vg_zout *zs, *zpix;
		vg_pair p;
		int err;

		vg_pair_init(&p, 8, 8);
		vg_writer_init(&plain);
		vg_writer_init(&both);
		vg_writer_init(&msg);
		vg_writer_uleb(&plain, 2);
		for (k = 0; k < 2; k++) {
			vg_writer_uleb(&plain, vg_zigzag_encode(cases[i].d[4 * k]));
			vg_writer_uleb(&plain, vg_zigzag_encode(cases[i].d[4 * k + 1]));
			vg_writer_uleb(&plain, vg_zigzag_encode(cases[i].d[4 * k + 2]));
			vg_writer_uleb(&plain, vg_zigzag_encode(cases[i].d[4 * k + 3]));
			vg_writer_u8(&plain, VG_ORIENT_ROWS);
			vg_writer_uleb(&plain, 1);
			vg_writer_uleb(&plain, 8 * 4 + VG_OP_LITERAL);
			vg_writer_bytes(&both, pix, sizeof pix);
		}
		vg_pair_zouts(&zs, &zpix);
		vg_pair_msg(zs, zpix, 0, plain.data, plain.len, both.data, both.len, &msg);
		err = vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply);
		g_test_message("%s: %s", cases[i].name, err ? vg_receiver_error_text(p.r) : "drawn");
		g_assert_cmpint(err, ==, cases[i].expect);
		vg_zout_free(zs);
		vg_zout_free(zpix);
		vg_writer_clear(&plain);
		vg_writer_clear(&both);
		vg_writer_clear(&msg);
		vg_pair_clear(&p);
	}
}

/* Known answers: FIPS 180 "abc" and the empty message. */
static void test_sha1_vectors(void)
{
	static const guint8 abc[20] = { 0xa9, 0x99, 0x3e, 0x36, 0x47, 0x06, 0x81, 0x6a, 0xba, 0x3e,
					0x25, 0x71, 0x78, 0x50, 0xc2, 0x6c, 0x9c, 0xd0, 0xd8, 0x9d };
	static const guint8 empty[20] = { 0xda, 0x39, 0xa3, 0xee, 0x5e, 0x6b, 0x4b, 0x0d, 0x32, 0x55,
					  0xbf, 0xef, 0x95, 0x60, 0x18, 0x90, 0xaf, 0xd8, 0x07, 0x09 };
	guint8 out[20];
	vg_sha1 *h;
	vg_pixbuf *pb = vg_pixbuf_new(3, 2);

	g_assert_cmpint(vg_sha1_digest("abc", 3, out), ==, 0);
	g_assert_cmpmem(out, 20, abc, 20);
	g_assert_cmpint(vg_sha1_new(&h), ==, 0);
	g_assert_cmpint(vg_sha1_update(h, "a", 1), ==, 0);
	g_assert_cmpint(vg_sha1_update(h, "bc", 2), ==, 0);
	g_assert_cmpint(vg_sha1_final(h, out), ==, 0);
	g_assert_cmpmem(out, 20, abc, 20);
	g_assert_cmpint(vg_sha1_final(h, out), ==, 0);
	g_assert_cmpmem(out, 20, empty, 20);
	/* A rect is hashed as its rows of 4-byte little-endian pixels. */
	vg_pixbuf_row(pb, 0)[1] = 0x636261; /* "abc\0" */
	g_assert_cmpint(vg_sha1_update_rect(h, pb, vg_rect_make(1, 0, 1, 1)), ==, 0);
	g_assert_cmpint(vg_sha1_final(h, out), ==, 0);
	{
		guint8 ref[20];
		g_assert_cmpint(vg_sha1_digest("abc\0", 4, ref), ==, 0);
		g_assert_cmpmem(out, 20, ref, 20);
	}
	g_assert_cmpint(vg_sha1_update_rect(h, pb, vg_rect_make(2, 0, 2, 1)), ==, VG_ERANGE);
	vg_sha1_free(h);
	vg_pixbuf_free(pb);
}

/* More FIPS 180 answers: the two-block message, and a million 'a's fed
 * in uneven pieces; a rect spanning the whole stride (hashed in one call)
 * and one that is not (row by row) give the digest of their bytes. */
static void test_sha1_more_vectors(void)
{
	static const char two_block[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	static const guint8 two_block_sha[20] = { 0x84, 0x98, 0x3e, 0x44, 0x1c, 0x3b, 0xd2, 0x6e, 0xba, 0xae,
						  0x4a, 0xa1, 0xf9, 0x51, 0x29, 0xe5, 0xe5, 0x46, 0x70, 0xf1 };
	static const guint8 million_a[20] = { 0x34, 0xaa, 0x97, 0x3c, 0xd4, 0xc4, 0xda, 0xa4, 0xf6, 0x1e,
					      0xeb, 0x2b, 0xdb, 0xad, 0x27, 0x31, 0x65, 0x34, 0x01, 0x6f };
	/* SHA-1("abcdefghijklmnop"). */
	static const guint8 a_to_p[20] = { 0x14, 0xf3, 0x99, 0x52, 0x88, 0xac, 0xd1, 0x89, 0xe6, 0xe5,
					   0x0a, 0x7a, 0xf4, 0x7e, 0xe7, 0x09, 0x9a, 0xa6, 0x82, 0xb9 };
	char *a = g_malloc(1000000);
	vg_pixbuf *pb = vg_pixbuf_new(4, 2), view;
	guint8 out[20];
	size_t at, piece;
	vg_sha1 *h;
	int i;

	g_assert_cmpint(vg_sha1_digest(two_block, strlen(two_block), out), ==, 0);
	g_assert_cmpmem(out, 20, two_block_sha, 20);
	memset(a, 'a', 1000000);
	g_assert_cmpint(vg_sha1_new(&h), ==, 0);
	for (at = 0, piece = 1; at < 1000000; at += piece, piece = piece * 3 % 9973 + 1) {
		if (piece > 1000000 - at)
			piece = 1000000 - at;
		g_assert_cmpint(vg_sha1_update(h, a + at, piece), ==, 0);
	}
	g_assert_cmpint(vg_sha1_final(h, out), ==, 0);
	g_assert_cmpmem(out, 20, million_a, 20);
	/* Pixels are 4 little-endian bytes: "abcd" is 0x64636261. */
	for (i = 0; i < 4; i++) {
		vg_pixbuf_row(pb, 0)[i] = 0x64636261u + 0x04040404u * (uint32_t)i;
		vg_pixbuf_row(pb, 1)[i] = 0;
	}
	g_assert_cmpint(vg_sha1_update_rect(h, pb, vg_rect_make(0, 0, 4, 1)), ==, 0);
	g_assert_cmpint(vg_sha1_final(h, out), ==, 0);
	g_assert_cmpmem(out, 20, a_to_p, 20);
	/* The same 16 bytes as two rows of a 2-wide view: row by row. */
	for (i = 0; i < 4; i++)
		vg_pixbuf_row(pb, i / 2)[i % 2] = 0x64636261u + 0x04040404u * (uint32_t)i;
	view = vg_pixbuf_view(pb, vg_rect_make(0, 0, 2, 2));
	g_assert_cmpint(vg_sha1_update_rect(h, &view, vg_rect_make(0, 0, 2, 2)), ==, 0);
	g_assert_cmpint(vg_sha1_final(h, out), ==, 0);
	g_assert_cmpmem(out, 20, a_to_p, 20);
	vg_sha1_free(h);
	vg_pixbuf_free(pb);
	g_free(a);
}

/* The optimistic fingerprint is the low bits of the content hash: known
 * answers on a known content hash (tests/unit/test_seghash.c's 5x3 ramp). */
static void test_fp_key_vectors(void)
{
	const uint64_t h = 0xf054722297b08f51ull;

	g_assert_cmphex(vg_fp_key(h, 8), ==, 0x51);
	g_assert_cmphex(vg_fp_key(h, 12), ==, 0xf51);
	g_assert_cmphex(vg_fp_key(h, 16), ==, 0x8f51);
	g_assert_cmphex(vg_fp_key(h, VG_FP_BITS_DEFAULT), ==, 0x2297b08f51ull);
	g_assert_cmphex(vg_fp_key(h, 63), ==, 0x7054722297b08f51ull);
	g_assert_cmphex(vg_fp_key(h, 64), ==, h);
	g_assert_cmphex(vg_fp_key(UINT64_MAX, 1), ==, 1);
}


int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	vg_pair_add("round-trip", test_round_trip);
	vg_pair_add("forced-collisions", test_forced_collisions);
	vg_pair_add("cache-loss", test_cache_loss);
	vg_pair_add("fingerprint-collision", test_fingerprint_collision);
	vg_pair_add("reset", test_reset);
	g_test_add_func("/protocol/update/model-by-rate", test_model_by_rate);
	g_test_add_func("/protocol/update/inflate-bomb", test_inflate_bomb);
	g_test_add_func("/protocol/update/zstream-limit", test_zstream_limit);
	g_test_add_func("/protocol/update/malformed", test_malformed);
	g_test_add_func("/protocol/update/run-deltas", test_run_deltas);
	g_test_add_func("/protocol/update/sha1-vectors", test_sha1_vectors);
	g_test_add_func("/protocol/update/sha1-more-vectors", test_sha1_more_vectors);
	g_test_add_func("/protocol/update/fp-key-vectors", test_fp_key_vectors);
	return g_test_run();
}
