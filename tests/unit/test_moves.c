/* MOVE runs and the block finder; APPROX messages; INDEXED literal
 * blocks as the sender's choice. */
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

/* MOVE runs: all read the picture before the update (the second's
 * source overlaps the first's destination), and the viewer ends with the
 * server's picture. */
static void test_move_round_trip(void)
{
	GRand *rng = g_rand_new_with_seed(7);
	vg_move moves[2] = { { vg_rect_make(0, 8, 64, 32), 0, 8 },
			     { vg_rect_make(0, 40, 64, 24), 0, 8 } };
	vg_pixbuf *before;
	vg_segdesc top;
	vg_receiver_stats st;
	vg_pair p;
	int32_t x, y;

	vg_pair_init(&p, 64, 64);
	g_assert_true(vg_sender_takes_moves(p.s));
	for (y = 0; y < 64; y++)
		for (x = 0; x < 64; x++)
			vg_pixbuf_row(p.server_fb, y)[x] = g_rand_int(rng) & 0xffffff;
	top = vg_pair_seg(p.server_fb, vg_pixbuf_rect(p.server_fb), VG_ORIENT_ROWS);
	vg_pair_exchange(&p, &top, 1);
	g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
	/* Scrolled down by 8 rows, 8 new rows on top. */
	before = vg_pixbuf_new(64, 64);
	vg_pixbuf_copy(before, 0, 0, p.server_fb);
	for (y = 8; y < 64; y++)
		memcpy(vg_pixbuf_row(p.server_fb, y), vg_pixbuf_row(before, y - 8), 64 * 4);
	for (y = 0; y < 8; y++)
		for (x = 0; x < 64; x++)
			vg_pixbuf_row(p.server_fb, y)[x] = g_rand_int(rng) & 0xffffff;
	top = vg_pair_seg(p.server_fb, vg_rect_make(0, 0, 64, 8), VG_ORIENT_ROWS);
	vg_writer_reset(&p.wire);
	g_assert_cmpint(vg_sender_update_moves(p.s, p.server_fb, moves, 2, &top, 1, NULL, &p.wire),
			==, 0);
	g_assert_cmpint(vg_receiver_handle(p.r, p.wire.data, p.wire.len, p.viewer_fb, &p.reply),
			==, 0);
	g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
	vg_receiver_get_stats(p.r, &st);
	g_assert_cmpuint(st.moves, ==, 2);
	g_assert_cmpuint(st.moved_pixels, ==, 64 * 56);
	/* A source outside the frame is the sender's error too. */
	moves[0].dy = 16;
	g_assert_cmpint(vg_sender_update_moves(p.s, p.server_fb, moves, 1, &top, 1, NULL, &p.wire),
			==, VG_ERANGE);
	vg_pair_clear(&p);
	vg_pixbuf_free(before);
	g_rand_free(rng);
}

/* The block finder: a scroll sideways by 5 with a new strip; the moves,
 * read from the old picture, and the rest, from the new one, give the new
 * one. */
static void test_moves_find(void)
{
	GRand *rng = g_rand_new_with_seed(11);
	vg_pixbuf *prev = vg_pixbuf_new(100, 40), *cur = vg_pixbuf_new(100, 40);
	vg_pixbuf *shown = vg_pixbuf_new(100, 40);
	GArray *moves = g_array_new(FALSE, FALSE, sizeof(vg_move));
	GArray *rest = g_array_new(FALSE, FALSE, sizeof(vg_rect));
	vg_motion_result mr = { .dir = VG_MOTION_HORIZONTAL, .offset = -5 };
	vg_rect all = vg_rect_make(0, 0, 100, 40);
	vg_region *owed = vg_region_new();
	int64_t moved = 0, left = 0;
	guint i;
	int32_t x, y;

	for (y = 0; y < 40; y++)
		for (x = 0; x < 100; x++)
			vg_pixbuf_row(prev, y)[x] = g_rand_int(rng) & 0xffffff;
	for (y = 0; y < 40; y++) {
		memcpy(vg_pixbuf_row(cur, y), vg_pixbuf_row(prev, y) + 5, 95 * 4);
		for (x = 95; x < 100; x++)
			vg_pixbuf_row(cur, y)[x] = g_rand_int(rng) & 0xffffff;
	}
	g_assert_cmpint(vg_moves_split(prev, cur, &all, 1, &mr, NULL, moves, rest), ==, 0);
	g_assert_cmpuint(moves->len, >, 0);
	for (i = 0; i < moves->len; i++) {
		vg_move m = g_array_index(moves, vg_move, i);
		vg_pixbuf from = vg_pixbuf_view(prev, vg_move_source(&m));

		g_assert_cmpint(m.dx, ==, -5);
		g_assert_cmpint(m.dy, ==, 0);
		g_assert_cmpint(vg_pixbuf_copy(shown, m.rect.x, m.rect.y, &from), ==, 0);
		moved += vg_rect_area(m.rect);
	}
	for (i = 0; i < rest->len; i++) {
		vg_rect r = g_array_index(rest, vg_rect, i);

		g_assert_cmpint(vg_pixbuf_copy_rect(shown, cur, r), ==, 0);
		left += vg_rect_area(r);
	}
	/* Everything left of the new strip, whose source is off the frame. */
	g_assert_cmpint(moved, ==, 95 * 40);
	g_assert_cmpint(moved + left, ==, 100 * 40);
	g_assert_true(vg_pixbuf_equal(shown, cur));
	/* No move takes its source where the viewer's picture is owed: what
	 * it would have fed goes as pixels. */
	vg_region_add(owed, vg_rect_make(10, 8, 20, 10));
	g_assert_cmpint(vg_moves_split(prev, cur, &all, 1, &mr, owed, moves, rest), ==, 0);
	moved = left = 0;
	for (i = 0; i < moves->len; i++) {
		vg_move m = g_array_index(moves, vg_move, i);

		g_assert_false(vg_region_touches(owed, vg_move_source(&m)));
		moved += vg_rect_area(m.rect);
	}
	for (i = 0; i < rest->len; i++)
		left += vg_rect_area(g_array_index(rest, vg_rect, i));
	g_assert_cmpint(moved, ==, 95 * 40 - 20 * 10);
	g_assert_cmpint(moved + left, ==, 100 * 40);
	/* No offset, no moves; a still offset is refused by the finder. */
	mr.offset = 0;
	g_assert_cmpint(vg_moves_split(prev, cur, &all, 1, &mr, NULL, moves, rest), ==, 0);
	g_assert_cmpuint(moves->len, ==, 0);
	g_assert_cmpuint(rest->len, ==, 1);
	g_assert_cmpint(vg_moves_find(prev, cur, &all, 1, 0, 0, moves), ==, VG_EINVAL);
	/* Three blocks moved in a picture otherwise new: under a third of the
	 * change, so no moves; the same blocks alone are all of it. */
	mr.offset = -5;
	for (y = 0; y < 40; y++)
		for (x = 0; x < 100; x++)
			if (y >= 16 || x >= 48)
				vg_pixbuf_row(cur, y)[x] = g_rand_int(rng) & 0xffffff;
	g_assert_cmpint(vg_moves_find(prev, cur, &all, 1, -5, 0, moves), ==, 0);
	g_assert_cmpuint(moves->len, ==, 1);
	g_assert_cmpint(vg_rect_area(g_array_index(moves, vg_move, 0).rect), ==, 48 * 16);
	g_assert_cmpint(vg_moves_split(prev, cur, &all, 1, &mr, NULL, moves, rest), ==, 0);
	g_assert_cmpuint(moves->len, ==, 0);
	g_assert_cmpuint(rest->len, ==, 1);
	all = vg_rect_make(0, 0, 48, 16);
	g_assert_cmpint(vg_moves_split(prev, cur, &all, 1, &mr, NULL, moves, rest), ==, 0);
	g_assert_cmpuint(moves->len, ==, 1);
	g_assert_cmpuint(rest->len, ==, 0);
	g_array_free(moves, TRUE);
	g_array_free(rest, TRUE);
	vg_pixbuf_free(prev);
	vg_pixbuf_free(cur);
	vg_pixbuf_free(shown);
	vg_region_free(owed);
	g_rand_free(rng);
}

/* Approximations: drawn as both ends compute them, counted approximate
 * until an UPDATE covers them, then exact; never cached or believed. */
static void test_approx_round_trip(void)
{
	GRand *rng = g_rand_new_with_seed(7);
	vg_rect rects[2] = { vg_rect_make(3, 5, 61, 40), vg_rect_make(80, 0, 33, 17) };
	vg_pixbuf *want = vg_pixbuf_new(128, 64), *small = vg_pixbuf_new(64, 64);
	vg_receiver_stats st;
	vg_sender_stats ss;
	vg_segdesc d[2];
	vg_pair p;
	int32_t x, y;
	int i;

	vg_pair_init(&p, 128, 64);
	for (y = 0; y < 64; y++)
		for (x = 0; x < 128; x++)
			vg_pixbuf_row(p.server_fb, y)[x] = g_rand_int(rng) & VG_PIXEL_MASK;
	g_assert_cmpint(vg_pixbuf_copy(want, 0, 0, p.viewer_fb), ==, 0);
	for (i = 0; i < 2; i++) {
		vg_approx_shrink(p.server_fb, rects[i], 4, small);
		vg_approx_expand(small, 4, want, rects[i]);
	}
	g_assert_true(vg_sender_takes_approx(p.s));
	vg_writer_reset(&p.wire);
	g_assert_cmpint(vg_sender_approx(p.s, p.server_fb, rects, 2, 4, &p.wire), ==, 0);
	g_assert_cmpint(vg_receiver_handle(p.r, p.wire.data, p.wire.len, p.viewer_fb, &p.reply), ==, 0);
	g_assert_true(vg_pixbuf_equal(p.viewer_fb, want));
	vg_receiver_get_stats(p.r, &st);
	g_assert_cmpuint(st.approx_messages, ==, 1);
	g_assert_cmpuint(st.approx_pixels, ==, 61 * 40 + 33 * 17);
	vg_sender_get_stats(p.s, &ss);
	g_assert_cmpuint(ss.approx_pixels, ==, 61 * 40 + 33 * 17);
	/* Nothing was believed: the exact pixels travel as pixels. */
	for (i = 0; i < 2; i++) {
		d[i] = vg_pair_seg(p.server_fb, rects[i], VG_ORIENT_ROWS);
		g_assert_true(vg_sender_is_miss(p.s, &d[i]));
	}
	g_assert_cmpint(vg_pair_send(&p, d, 1, NULL), ==, 0);
	vg_receiver_get_stats(p.r, &st);
	g_assert_cmpuint(st.approx_pixels, ==, 33 * 17);
	g_assert_cmpint(vg_pair_send(&p, &d[1], 1, NULL), ==, 0);
	vg_receiver_get_stats(p.r, &st);
	g_assert_cmpuint(st.approx_pixels, ==, 0);
	g_assert_false(vg_sender_is_miss(p.s, &d[0]));
	/* The streams stay in step after an APPROX: a later update decodes. */
	g_assert_cmpint(vg_pair_send(&p, d, 2, NULL), ==, 0);
	for (i = 0; i < 2; i++) {
		vg_pixbuf a = vg_pixbuf_view(p.viewer_fb, rects[i]);
		vg_pixbuf b = vg_pixbuf_view(p.server_fb, rects[i]);

		g_assert_true(vg_pixbuf_equal(&a, &b));
	}
	vg_pair_clear(&p);
	vg_pixbuf_free(want);
	vg_pixbuf_free(small);
	g_rand_free(rng);
}

/* Opens a sender and a receiver (exact pixels only unless approx) past
 * the hellos. */
static void approx_pair(bool approx, vg_sender **s, vg_receiver **rv, vg_pixbuf *fb)
{
	vg_sender_config cfg;
	vg_receiver_config rcfg;
	vg_writer w, reply;

	vg_sender_config_init(&cfg);
	vg_receiver_config_init(&rcfg);
	rcfg.exact = !approx;
	vg_writer_init(&w);
	vg_writer_init(&reply);
	g_assert_cmpint(vg_sender_new(&cfg, s), ==, 0);
	g_assert_cmpint(vg_receiver_new(&rcfg, rv), ==, 0);
	vg_sender_hello(*s, &w);
	g_assert_cmpint(vg_receiver_handle(*rv, w.data, w.len, fb, &reply), ==, 0);
	g_assert_cmpint(vg_sender_handle(*s, reply.data + 3, reply.len - 3, fb->width, fb->height,
					 NULL), ==, 0);
	vg_writer_clear(&w);
	vg_writer_clear(&reply);
}

/* A viewer of exact pixels only gets no approximations and refuses one;
 * bad arguments and malformed heads are errors. */
static void test_approx_refusals(void)
{
	vg_rect r = vg_rect_make(0, 0, 16, 16);
	vg_sender *s;
	vg_receiver *rv;
	vg_pixbuf *fb = vg_pixbuf_new(32, 32);
	vg_writer w, reply;
	static const uint8_t bad[][8] = {
		{ VG_MSG_APPROX },                         /* no head */
		{ VG_MSG_APPROX, 1, 1, 0, 0, 4, 4 },       /* factor 1 */
		{ VG_MSG_APPROX, 17, 1, 0, 0, 4, 4 },      /* factor 17 */
		{ VG_MSG_APPROX, 2, 0 },                   /* no rectangle */
		{ VG_MSG_APPROX, 2, 1, 30, 0, 4, 4 },      /* past the right edge */
		{ VG_MSG_APPROX, 2, 1, 0, 0, 0, 4 },       /* empty */
		{ VG_MSG_APPROX, 2, 1, 0, 0, 4, 4 },       /* no pixels */
	};
	static const size_t bad_len[] = { 1, 7, 7, 3, 7, 7, 7 };
	size_t i;

	vg_writer_init(&w);
	vg_writer_init(&reply);
	approx_pair(false, &s, &rv, fb);
	g_assert_false(vg_sender_takes_approx(s));
	g_assert_cmpint(vg_sender_approx(s, fb, &r, 1, 2, &w), ==, VG_EPROTO);
	g_assert_cmpuint(w.len, ==, 0);
	g_assert_cmpint(vg_receiver_handle(rv, bad[6], bad_len[6], fb, &reply), ==, VG_EPROTO);
	vg_sender_free(s);
	vg_receiver_free(rv);

	approx_pair(true, &s, &rv, fb);
	g_assert_true(vg_sender_takes_approx(s));
	g_assert_cmpint(vg_sender_approx(s, fb, &r, 1, 1, &w), ==, VG_EINVAL);
	g_assert_cmpint(vg_sender_approx(s, fb, &r, 0, 2, &w), ==, VG_EINVAL);
	r.x = 20;
	g_assert_cmpint(vg_sender_approx(s, fb, &r, 1, 2, &w), ==, VG_ERANGE);
	g_assert_cmpuint(w.len, ==, 0);
	vg_sender_free(s);
	vg_receiver_free(rv);
	/* Each on a fresh receiver: an error leaves the streams out of step. */
	for (i = 0; i < G_N_ELEMENTS(bad); i++) {
		approx_pair(true, &s, &rv, fb);
		g_assert_cmpint(vg_receiver_handle(rv, bad[i], bad_len[i], fb, &reply), !=, 0);
		vg_sender_free(s);
		vg_receiver_free(rv);
	}
	vg_writer_clear(&w);
	vg_writer_clear(&reply);
	vg_pixbuf_free(fb);
}

/* Literal blocks of the connection's colour table are the sender's
 * choice (off: an ablation); the picture is exact either way, over
 * updates that add colours and reuse them. */
static void test_indexed(void)
{
	int on;

	for (on = 1; on >= 0; on--) {
		GRand *rng = g_rand_new_with_seed(9);
		vg_sender_stats st;
		vg_pair p;
		int round;

		vg_pair_init_with(&p, 64, 64, on ? NULL : &vg_pair_no_indexed);
		for (round = 0; round < 4; round++)
			vg_pair_text_band(&p, rng, 16 * round, 256);
		vg_sender_get_stats(p.s, &st);
		if (on)
			g_assert_cmpuint(st.literal_pixels[VG_LIT_INDEXED], ==, 4 * 64 * 16);
		else
			g_assert_cmpuint(st.literal_pixels[VG_LIT_INDEXED], ==, 0);
		vg_pair_clear(&p);
		g_rand_free(rng);
	}
}


int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	vg_pair_add("move-round-trip", test_move_round_trip);
	vg_pair_add("approx-round-trip", test_approx_round_trip);
	g_test_add_func("/protocol/moves/find", test_moves_find);
	g_test_add_func("/protocol/approx/refusals", test_approx_refusals);
	g_test_add_func("/protocol/literal/indexed", test_indexed);
	return g_test_run();
}
