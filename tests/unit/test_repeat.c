/* REPEAT: the window, the history, the update so far; offsets near the
 * last REPEAT's end and by recency; collisions and malformed REPEATs. */
#include <glib.h>
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

/* A document of tiles, scrolled: each column shows items first .. of a
 * list of (height, pattern), as many as fit, so that every update repeats
 * most of an earlier one's segments, shifted. Column c scrolls on every
 * update when c is even, and flips between two positions every third
 * update when c is odd, so repeats also reach back past the last update. */
static size_t scroll_update(vg_pair *p, const guint32 *heights, const guint32 *patterns, size_t n_items,
			    int update, vg_segdesc *out)
{
	int32_t cols = p->server_fb->width / 16, c;
	size_t n = 0;

	for (c = 0; c < cols; c++) {
		size_t first = (size_t)c * 7 + (c % 2 ? (size_t)(update / 3 % 2) * 3 : (size_t)update);
		int32_t y = 0;

		while (y < p->server_fb->height) {
			size_t i = first++ % n_items;
			int32_t h = MIN((int32_t)heights[i], p->server_fb->height - y);
			vg_rect r = vg_rect_make(c * 16, y, 16, h);

			vg_pair_paint_tile(p->server_fb, r, patterns[i]);
			out[n++] = vg_pair_seg(p->server_fb, r, VG_ORIENT_ROWS);
			y += h;
		}
	}
	return n;
}

static void make_document(GRand *rng, guint32 *heights, guint32 *patterns, size_t n_items)
{
	size_t i;

	for (i = 0; i < n_items; i++) {
		heights[i] = (guint32)g_rand_int_range(rng, 1, 24);
		patterns[i] = (guint32)g_rand_int_range(rng, 0, 1000);
	}
}

/* An 8 x 8 pair whose viewer has read a first update of two literal
 * rows (4 + 4 rows, one colour each): the window then holds two items
 * and the history the same two. The streams and msg stay for the test's
 * next update. */
static void two_rows(vg_pair *p, unsigned group, vg_zout **zs, vg_zout **zpix, vg_writer *msg)
{
	static const guint8 first[] = { 1, 0, 0, 16, 16, 0, 2, 16, 16 };
	static const guint8 first_pix[] = { 2, 0, 1, 2, 3, 2, 0, 4, 5, 6 };

	vg_pair_init_group(p, 8, 8, VG_FP_BITS_DEFAULT, group);
	vg_pair_zouts(zs, zpix);
	vg_writer_init(msg);
	vg_pair_msg(*zs, *zpix, 0, first, sizeof first, first_pix, sizeof first_pix, msg);
	g_assert_cmpint(vg_receiver_handle(p->r, msg->data, msg->len, p->viewer_fb, &p->reply), ==, 0);
}

/* Heavy repetition: most fingerprinted segments travel inside REPEATs,
 * and the viewer ends every update with the server's pixels, without a
 * repair. */
static void test_repeat_round_trip(void)
{
	GRand *rng = g_rand_new_with_seed(31);
	guint32 heights[97], patterns[97];
	vg_segdesc segs[4096];
	vg_sender_stats ss;
	vg_receiver_stats rs;
	vg_pair p;
	int update;

	make_document(rng, heights, patterns, G_N_ELEMENTS(heights));
	vg_pair_init(&p, 96, 200);
	for (update = 0; update < 120; update++) {
		size_t n = scroll_update(&p, heights, patterns, G_N_ELEMENTS(heights), update, segs);

		g_assert_cmpint(vg_pair_exchange(&p, segs, n), ==, 0);
		g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
	}
	vg_sender_get_stats(p.s, &ss);
	vg_receiver_get_stats(p.r, &rs);
	g_test_message("%" G_GUINT64_FORMAT " segments: %" G_GUINT64_FORMAT " literal, %"
		       G_GUINT64_FORMAT " fingerprinted, %" G_GUINT64_FORMAT " of them in %"
		       G_GUINT64_FORMAT " REPEATs, %" G_GUINT64_FORMAT " body bytes",
		       ss.segments, ss.literal_segments, ss.fingerprint_segments,
		       ss.repeated_segments, ss.repeats, ss.body_bytes);
	g_assert_cmpuint(ss.repeated_segments, >, ss.fingerprint_segments * 3 / 4);
	g_assert_cmpuint(ss.repeats, <, ss.repeated_segments / 4);
	g_assert_cmpuint(rs.repeats, ==, ss.repeats);
	g_assert_cmpuint(rs.segments, ==, ss.segments);
	g_assert_cmpuint(rs.cache_hits, ==, ss.fingerprint_segments);
	g_assert_cmpuint(rs.corrections, ==, 0);
	g_assert_cmpuint(rs.checks, ==, ss.checks);
	/* Every group holds group_size segments but the update's last. */
	g_assert_cmpuint(ss.checks, <=, ss.fingerprint_segments / VG_GROUP_DEFAULT + ss.updates);
	/* An empty update leaves the window as it was: the next one repeats. */
	g_assert_cmpint(vg_pair_send(&p, segs, 0, NULL), ==, 0);
	{
		size_t n = scroll_update(&p, heights, patterns, G_N_ELEMENTS(heights), update, segs);
		uint64_t before = ss.repeats;

		g_assert_cmpint(vg_pair_exchange(&p, segs, n), ==, 0);
		g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
		vg_sender_get_stats(p.s, &ss);
		g_assert_cmpuint(ss.repeats, >, before);
	}
	vg_pair_clear(&p);
	g_rand_free(rng);
}

/* Every position of the window, the history and the update so far codes
 * to a value that decodes to it, whatever the previous REPEAT's end; the
 * newest item is the first value past the near ones; values past the
 * oldest item, or before the first, decode to nothing. */
static void test_recent_codes(void)
{
	uint64_t n_win, n_hist, n_cur, expect, at, v, back = 0;

	for (n_win = 0; n_win <= 20; n_win += 5)
		for (n_hist = 0; n_hist <= 12; n_hist += 4)
			for (n_cur = 0; n_cur <= 19; n_cur += 19) {
				uint64_t n = n_win + n_hist + n_cur;

				for (expect = 0; expect <= n; expect++) {
					for (at = 0; at < n; at++) {
						v = vg_recent_encode(at, expect, n_win, n_hist, n_cur);
						g_assert_true(vg_recent_decode(v, expect, n_win, n_hist,
									       n_cur, &back));
						g_assert_cmpuint(back, ==, at);
					}
					g_assert_false(vg_recent_decode(2 * VG_RECENT_NEAR + 1 + n,
									expect, n_win, n_hist,
									n_cur, &back));
					g_assert_false(vg_recent_decode(UINT64_MAX, expect, n_win,
									n_hist, n_cur, &back));
					if (expect < VG_RECENT_NEAR)
						g_assert_false(vg_recent_decode(
							vg_zigzag_encode(-(int64_t)expect - 1), expect,
							n_win, n_hist, n_cur, &back));
				}
				/* Far from the last REPEAT, the newest item is 17 and the
				 * window's newest follows the update's. */
				if (n_cur && n_win)
					g_assert_cmpuint(vg_recent_encode(n_win + n_hist + n_cur - 1, 0, n_win,
									  n_hist, n_cur),
							 ==, 2 * VG_RECENT_NEAR + 1);
				if (n_win > VG_RECENT_NEAR + 1)
					g_assert_cmpuint(vg_recent_encode(n_win - 1, 0, n_win, n_hist, n_cur),
							 ==, 2 * VG_RECENT_NEAR + 1 + n_cur);
			}
}

/* A REPEAT by recency: value 17 names the newest item (the first
 * update's bottom segment, or, within the update, the REPEAT just drawn),
 * so both halves end with the bottom's colour. */
static void test_repeat_recent(void)
{
	static const guint8 newest_twice[] = { 1, 0, 0, 16, 16, 0, 2, 7, 17, 7, 17 };
	vg_pixbuf *want = vg_pixbuf_new(8, 8);
	vg_zout *zs, *zpix;
	vg_writer msg;
	vg_pair p;

	two_rows(&p, VG_GROUP_DEFAULT, &zs, &zpix, &msg);
	vg_pixbuf_copy_rect(want, p.viewer_fb, vg_rect_make(0, 4, 8, 4));
	vg_pixbuf_fill(want, vg_rect_make(0, 0, 8, 4), vg_pixbuf_row(want, 4)[0]);
	vg_pair_msg(zs, zpix, 0, newest_twice, sizeof newest_twice, NULL, 0, &msg);
	g_assert_cmpint(vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply), ==, 0);
	g_assert_true(vg_pixbuf_equal(p.viewer_fb, want));
	vg_zout_free(zs);
	vg_zout_free(zpix);
	vg_writer_clear(&msg);
	vg_pair_clear(&p);
	vg_pixbuf_free(want);
}

/* Repeats with 8- to 16-bit fingerprints against a viewer cache seeded
 * with wrong pixels under the keys: the viewer finds every collision by
 * the content hash the repeated item carries, and repairs (which the
 * window remembers too) end exact. */
static void test_repeat_collisions(void)
{
	static const unsigned widths[] = { 8, 12, 16 };
	size_t wi;

	for (wi = 0; wi < G_N_ELEMENTS(widths); wi++) {
		GRand *rng = g_rand_new_with_seed(41 + (guint32)wi);
		guint32 heights[61], patterns[61];
		vg_segdesc segs[4096];
		vg_sender_stats ss;
		vg_receiver_stats rs;
		vg_pixbuf *junk = vg_pixbuf_new(16, 24);
		vg_pair p;
		int update;

		make_document(rng, heights, patterns, G_N_ELEMENTS(heights));
		vg_pair_init_group(&p, 64, 160, widths[wi], 8);
		for (update = 0; update < 150; update++) {
			size_t n = scroll_update(&p, heights, patterns, G_N_ELEMENTS(heights), update, segs), k;

			for (k = 0; k < n; k++) {
				if (g_rand_int_range(rng, 0, 8))
					continue;
				vg_pair_plant_junk(&p, junk, rng, vg_fp_key(segs[k].hash, widths[wi]), segs[k].rect);
			}
			vg_pair_exchange(&p, segs, n);
			g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
		}
		vg_sender_get_stats(p.s, &ss);
		vg_receiver_get_stats(p.r, &rs);
		g_test_message("%u bits: %" G_GUINT64_FORMAT " repeated in %" G_GUINT64_FORMAT
			       " REPEATs, %" G_GUINT64_FORMAT " SHA-1 mismatches, %" G_GUINT64_FORMAT
			       " corrected", widths[wi], ss.repeated_segments, ss.repeats,
			       rs.check_failures, rs.corrections);
		g_assert_cmpuint(ss.repeated_segments, >, ss.fingerprint_segments / 2);
		g_assert_cmpuint(rs.cache_misses, >, 0);
		g_assert_cmpuint(rs.corrections, >, 0);
		vg_pixbuf_free(junk);
		vg_pair_clear(&p);
		g_rand_free(rng);
	}
}

/* Hand-made REPEATs after a first update of two literal rows (4 + 4
 * rows of an 8 x 8 frame, one colour each): the window then holds two
 * items and the history the same two, so REPEAT offsets 0..3 exist. The
 * well-formed ones are accepted and drawn from the cache without a CHECK
 * (repeated segments join no group); every malformed one is refused by
 * the parser. */
static void test_repeat_malformed(void)
{
	static const struct repeat_case {
		const char *name;
		guint8 bytes[24];
		size_t n;
		unsigned group;
		int expect;
	} cases[] = {
		{ "well formed", { 1, 0, 0, 16, 16, 0, 2, 11, 0 }, 9, 20, 0 },
		{ "from the history", { 1, 0, 0, 16, 16, 0, 2, 11, 4 }, 9, 20, 0 },
		{ "longer than a group", { 1, 0, 0, 16, 16, 0, 2, 11, 0 }, 9, 1, 0 },
		{ "a check with no group", { 1, 0, 0, 16, 16, 0, 2, 11, 0, 2 }, 10, 20, VG_ECORRUPT },
		{ "count zero", { 1, 0, 0, 16, 16, 0, 1, 3, 0, 2 }, 10, 20, VG_ECORRUPT },
		{ "offset past the history", { 1, 0, 0, 16, 16, 0, 1, 7, 8, 2 }, 10, 20, VG_ERANGE },
		{ "offset before the window", { 1, 0, 0, 16, 16, 0, 1, 7, 1, 2 }, 10, 20, VG_ERANGE },
		{ "huge offset", { 1, 0, 0, 16, 16, 0, 1, 7, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				   0xff, 0x01, 2 }, 19, 20, VG_ERANGE },
		{ "huge negative offset", { 1, 0, 0, 16, 16, 0, 1, 7, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					    0xff, 0xff, 0x01, 2 }, 19, 20, VG_ERANGE },
		{ "huge count", { 1, 0, 0, 16, 16, 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				  0x01, 0, 2 }, 19, 20, VG_ECORRUPT },
		{ "count past the history", { 1, 0, 0, 16, 16, 0, 5, 23, 0, 2 }, 10, 20, VG_ERANGE },
		{ "second item past the history", { 1, 0, 0, 16, 16, 0, 2, 11, 6, 2 }, 10, 20, VG_ERANGE },
		{ "count past the run's segments", { 1, 0, 0, 16, 16, 0, 1, 11, 0, 2 }, 10, 20, VG_ECORRUPT },
		{ "lengths cross the run's end", { 1, 0, 0, 16, 12, 0, 2, 11, 0, 2 }, 10, 20, VG_ERANGE },
		{ "lengths short of the run's end", { 1, 0, 0, 16, 16, 0, 1, 7, 0, 2 }, 10, 20, VG_ECORRUPT },
	};
	size_t i;

	/* These offsets are all near the previous REPEAT's end, or far out. */
	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		vg_zout *zs, *zpix;
		vg_pixbuf *first_fb = vg_pixbuf_new(8, 8);
		vg_writer msg;
		vg_pair p;
		int err;

		const struct repeat_case *c = &cases[i];

		two_rows(&p, c->group, &zs, &zpix, &msg);
		vg_pixbuf_copy_rect(first_fb, p.viewer_fb, vg_pixbuf_rect(first_fb));
		vg_pair_msg(zs, zpix, c->expect ? 1 : 0, c->bytes, c->n, NULL, 0,
			    &msg);
		err = vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply);
		g_test_message("%s: %s", c->name, vg_receiver_error_text(p.r));
		g_assert_cmpint(err, ==, c->expect);
		if (err) {
			g_assert_nonnull(strstr(vg_receiver_error_text(p.r), "update: "));
		} else {
			vg_receiver_stats rs;

			vg_receiver_get_stats(p.r, &rs);
			g_assert_cmpuint(rs.cache_hits, ==, 2);
			g_assert_cmpuint(rs.checks, ==, 0);
			g_assert_cmpuint(rs.corrections, ==, 0);
			g_assert_true(vg_pixbuf_equal(p.viewer_fb, first_fb));
		}
		vg_zout_free(zs);
		vg_zout_free(zpix);
		vg_writer_clear(&msg);
		vg_pixbuf_free(first_fb);
		vg_pair_clear(&p);
	}
}

/* REPEATs of segments of their own update: a LITERAL named again in the
 * same update is drawn; a fingerprint not yet checked is never repeated
 * as drawn, but repaired. */
static void test_repeat_within(void)
{
	/* Window and history hold 2 items each: item 4 is this update's
	 * first. One run, two segments: a literal of the first colour,
	 * then REPEAT 1 at offset 4 (zigzag 8). */
	static const guint8 lit_then_repeat[] = { 1, 0, 0, 16, 16, 0, 2, 16, 7, 8 };
	static const guint8 lit_pix[] = { 2, 0, 1, 2, 3 };
	vg_pixbuf *want = vg_pixbuf_new(8, 8), *top = vg_pixbuf_new(8, 4);
	guint8 fp_then_repeat[32];
	uint64_t key;
	int round, k;

	vg_pixbuf_fill(want, vg_pixbuf_rect(want), VG_RGB(3, 2, 1));
	vg_pixbuf_fill(top, vg_pixbuf_rect(top), VG_RGB(3, 2, 1));
	key = vg_fp_key(vg_seghash(top, VG_ORIENT_ROWS), VG_FP_BITS_DEFAULT);
	/* The fingerprint of the first update's top segment, then a REPEAT
	 * of it, then the group's check (whose digest deflate_msg fakes). */
	{
		guint8 head[] = { 1, 0, 0, 16, 16, 0, 2, 17 };

		memcpy(fp_then_repeat, head, sizeof head);
		for (k = 0; k < 5; k++)
			fp_then_repeat[sizeof head + (size_t)k] = (guint8)(key >> (8 * (4 - k)));
		fp_then_repeat[sizeof head + 5] = 7;
		fp_then_repeat[sizeof head + 6] = 8;
		fp_then_repeat[sizeof head + 7] = 2;
	}
	{
		for (round = 0; round < 2; round++) {
			vg_receiver_stats rs;
			vg_zout *zs, *zpix;
			vg_writer msg;
			vg_pair p;
			int err;

			two_rows(&p, VG_GROUP_DEFAULT, &zs, &zpix, &msg);
			if (round == 0)
				vg_pair_msg(zs, zpix, 0, lit_then_repeat, sizeof lit_then_repeat, lit_pix,
					    sizeof lit_pix, &msg);
			else
				vg_pair_msg(zs, zpix, 1, fp_then_repeat, 8 + 5 + 3, NULL, 0, &msg);
			err = vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply);
			g_test_message("round %d: %s", round, vg_receiver_error_text(p.r));
			vg_receiver_get_stats(p.r, &rs);
			if (round == 0) {
				g_assert_cmpint(err, ==, 0);
				g_assert_true(vg_pixbuf_equal(p.viewer_fb, want));
				g_assert_cmpuint(rs.repeats, ==, 1);
				g_assert_cmpuint(rs.corrections, ==, 0);
			} else {
				/* The fingerprint's check fails (a fake digest) and
				 * the REPEAT of it was a miss: both repaired. */
				g_assert_cmpint(err, ==, 0);
				g_assert_cmpuint(rs.corrections, ==, 2);
			}
			vg_zout_free(zs);
			vg_zout_free(zpix);
			vg_writer_clear(&msg);
			vg_pair_clear(&p);
		}
	}
	vg_pixbuf_free(want);
	vg_pixbuf_free(top);
}

/* The sender names a segment it sent as pixels earlier in the update with
 * a REPEAT, or, when it does not repeat within an update (an ablation),
 * with a fingerprint and check; both end exact. */
static void test_repeat_within_sender(void)
{
	int within;

	for (within = 1; within >= 0; within--) {
		vg_sender_stats st;
		vg_segdesc d[4];
		vg_pair p;
		int k;

		vg_pair_init_with(&p, 64, 64, within ? NULL : &vg_pair_no_repeat_within);
		/* Four columns: two of one pattern, two of another. */
		for (k = 0; k < 4; k++) {
			vg_pair_paint_tile(p.server_fb, vg_rect_make(16 * k, 0, 16, 64), (guint32)(k / 2) + 7);
			d[k] = vg_pair_seg(p.server_fb, vg_rect_make(16 * k, 0, 16, 64), VG_ORIENT_ROWS);
		}
		vg_pair_exchange(&p, d, 4);
		g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
		vg_sender_get_stats(p.s, &st);
		g_assert_cmpuint(st.literal_segments, ==, 2);
		g_assert_cmpuint(st.repeated_segments, ==, within ? 2 : 0);
		g_assert_cmpuint(st.checks, ==, within ? 0 : 1);
		vg_pair_clear(&p);
	}
}


int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	vg_pair_add("repeat-round-trip", test_repeat_round_trip);
	vg_pair_add("repeat-collisions", test_repeat_collisions);
	vg_pair_add("repeat-within-sender", test_repeat_within_sender);
	g_test_add_func("/protocol/repeat/malformed", test_repeat_malformed);
	g_test_add_func("/protocol/repeat/within", test_repeat_within);
	g_test_add_func("/protocol/repeat/recent-codes", test_recent_codes);
	g_test_add_func("/protocol/repeat/recent", test_repeat_recent);
	return g_test_run();
}
