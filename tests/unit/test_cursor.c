/* CURSOR: the pointer's shapes both ends keep, coded by the sender's list
 * and read by the receiver's; a shape seen lately goes as its place in the
 * list; malformed bodies are refused and change nothing; a viewer that did
 * not ask for CURSOR messages refuses them. */
#include <glib.h>
#include <string.h>
#include <zstd.h>

#include "common/vg_error.h"
#include "fingerprint/proto/vg_cursorlist.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/proto/vg_receiver.h"
#include "fingerprint/proto/vg_sender.h"

/* An arrow of w x h with an antialiased edge (premultiplied), coloured
 * by tone so that shapes differ. */
static uint32_t *arrow(int w, int h, unsigned tone)
{
	uint32_t *p = g_new0(uint32_t, (size_t)w * (size_t)h);

	for (int y = 0; y < h; y++)
		for (int x = 0; x <= y && x < w; x++) {
			uint32_t a = x == y ? 0x80 : 0xff, c = (tone + (unsigned)x) & 0xff;

			c = c * a / 255;
			p[y * w + x] = a << 24 | c << 16 | c / 2 << 8 | c / 3;
		}
	return p;
}

static vg_cursor_shape shape_of(const uint32_t *argb, int w, int h, int hx, int hy)
{
	vg_cursor_shape s = { w, h, hx, hy, argb };

	return s;
}

static void assert_same(const vg_cursor_shape *a, const vg_cursor_shape *b)
{
	g_assert_cmpint(a->width, ==, b->width);
	g_assert_cmpint(a->height, ==, b->height);
	g_assert_cmpint(a->hot_x, ==, b->hot_x);
	g_assert_cmpint(a->hot_y, ==, b->hot_y);
	g_assert_cmpmem(a->argb, (gsize)a->width * (gsize)a->height * 4, b->argb,
			(gsize)b->width * (gsize)b->height * 4);
}

/* New shapes go whole and compressed, with their alpha; a shape seen
 * lately goes as its place in the list; the oldest of a full list is
 * forgotten at both ends. */
static void test_round_trip(void)
{
	vg_cursorlist *tx, *rx;
	uint32_t *px[VG_CURSORLIST_LEN + 1];
	vg_cursor_shape got;
	vg_writer w;

	g_assert_cmpint(vg_cursorlist_new(&tx), ==, VG_OK);
	g_assert_cmpint(vg_cursorlist_new(&rx), ==, VG_OK);
	vg_writer_init(&w);
	for (int i = 0; i <= VG_CURSORLIST_LEN; i++) {
		vg_cursor_shape s;

		px[i] = arrow(64, 64, (unsigned)i * 7);
		s = shape_of(px[i], 64, 64, 1, 2);
		vg_writer_reset(&w);
		g_assert_cmpint(vg_cursorlist_encode(tx, &s, &w), ==, VG_OK);
		g_assert_cmpuint(w.data[0], ==, VG_MSG_CURSOR);
		g_assert_cmpuint(w.data[1], ==, 0);
		/* 16 kB of pixels; RFB's rich cursor would send 16.9 kB. */
		g_assert_cmpuint(w.len, <, 64 * 64 * 4 / 8);
		g_assert_cmpint(vg_cursorlist_decode(rx, w.data, w.len, &got), ==, VG_OK);
		assert_same(&got, &s);
	}
	g_assert_cmpuint(vg_cursorlist_len(tx), ==, VG_CURSORLIST_LEN);
	g_assert_cmpuint(vg_cursorlist_len(rx), ==, VG_CURSORLIST_LEN);
	/* The second newest is place 2; then it is the newest, place 1. */
	for (int k = 0; k < 2; k++) {
		vg_cursor_shape s = shape_of(px[VG_CURSORLIST_LEN - 1], 64, 64, 1, 2);

		vg_writer_reset(&w);
		g_assert_cmpint(vg_cursorlist_encode(tx, &s, &w), ==, VG_OK);
		g_assert_cmpuint(w.len, ==, 2);
		g_assert_cmpuint(w.data[1], ==, k == 0 ? 2 : 1);
		g_assert_cmpint(vg_cursorlist_decode(rx, w.data, w.len, &got), ==, VG_OK);
		assert_same(&got, &s);
	}
	/* The same pixels with another hot spot are another shape. */
	{
		vg_cursor_shape s = shape_of(px[VG_CURSORLIST_LEN - 1], 64, 64, 3, 2);

		vg_writer_reset(&w);
		g_assert_cmpint(vg_cursorlist_encode(tx, &s, &w), ==, VG_OK);
		g_assert_cmpuint(w.data[1], ==, 0);
		g_assert_cmpint(vg_cursorlist_decode(rx, w.data, w.len, &got), ==, VG_OK);
		assert_same(&got, &s);
	}
	/* The first two shapes fell out of the list: sent whole again. */
	{
		vg_cursor_shape s = shape_of(px[0], 64, 64, 1, 2);

		vg_writer_reset(&w);
		g_assert_cmpint(vg_cursorlist_encode(tx, &s, &w), ==, VG_OK);
		g_assert_cmpuint(w.data[1], ==, 0);
		g_assert_cmpint(vg_cursorlist_decode(rx, w.data, w.len, &got), ==, VG_OK);
		assert_same(&got, &s);
	}
	for (int i = 0; i <= VG_CURSORLIST_LEN; i++)
		g_free(px[i]);
	vg_writer_clear(&w);
	vg_cursorlist_free(tx);
	vg_cursorlist_free(rx);
}

/* The sender refuses what it cannot send, and leaves its list and the
 * writer as they were. */
static void test_encode_refuses(void)
{
	vg_cursorlist *tx;
	uint32_t *px = arrow(8, 8, 0);
	vg_writer w;
	vg_cursor_shape s;

	g_assert_cmpint(vg_cursorlist_new(&tx), ==, VG_OK);
	vg_writer_init(&w);
	vg_writer_u8(&w, 42);
	s = shape_of(px, 8, 8, 8, 0);
	g_assert_cmpint(vg_cursorlist_encode(tx, &s, &w), ==, VG_EINVAL);
	s = shape_of(px, 0, 8, 0, 0);
	g_assert_cmpint(vg_cursorlist_encode(tx, &s, &w), ==, VG_EINVAL);
	s = shape_of(px, VG_CURSOR_MAX_DIM + 1, 1, 0, 0);
	g_assert_cmpint(vg_cursorlist_encode(tx, &s, &w), ==, VG_EINVAL);
	/* Not premultiplied: a channel above its alpha. */
	px[9] = 0x40ff0000u;
	s = shape_of(px, 8, 8, 0, 0);
	g_assert_cmpint(vg_cursorlist_encode(tx, &s, &w), ==, VG_EINVAL);
	g_assert_cmpuint(w.len, ==, 1);
	g_assert_cmpuint(vg_cursorlist_len(tx), ==, 0);
	vg_writer_clear(&w);
	vg_cursorlist_free(tx);
	g_free(px);
}

/* A body the sender wrote, cut short at every length, and bodies made by
 * hand with one thing wrong: each refused, the list unchanged. */
static void test_decode_refuses(void)
{
	vg_cursorlist *tx, *rx;
	uint32_t *px = arrow(16, 16, 9), bad[4] = { 0xff000000u, 0x80ff0000u, 0, 0 };
	vg_cursor_shape s = shape_of(px, 16, 16, 0, 0), got;
	vg_writer w, h;
	uint8_t z[256];
	size_t z_len;

	g_assert_cmpint(vg_cursorlist_new(&tx), ==, VG_OK);
	g_assert_cmpint(vg_cursorlist_new(&rx), ==, VG_OK);
	vg_writer_init(&w);
	vg_writer_init(&h);
	g_assert_cmpint(vg_cursorlist_encode(tx, &s, &w), ==, VG_OK);
	for (size_t n = 0; n < w.len; n++)
		g_assert_cmpint(vg_cursorlist_decode(rx, w.data, n, &got), <, 0);
	g_assert_cmpuint(vg_cursorlist_len(rx), ==, 0);
	/* A byte more after the frame. */
	vg_writer_bytes(&h, w.data, w.len);
	vg_writer_u8(&h, 0);
	g_assert_cmpint(vg_cursorlist_decode(rx, h.data, h.len, &got), ==, VG_ECORRUPT);
	/* A reference past the list. */
	vg_writer_reset(&h);
	vg_writer_u8(&h, VG_MSG_CURSOR);
	vg_writer_uleb(&h, 1);
	g_assert_cmpint(vg_cursorlist_decode(rx, h.data, h.len, &got), ==, VG_ERANGE);
	/* A hot spot outside, a side of 0 or past the limit. */
	{
		static const uint8_t hot_out[] = { VG_MSG_CURSOR, 0, 2, 2, 2, 0 };
		static const uint8_t side_0[] = { VG_MSG_CURSOR, 0, 0, 2, 0, 0 };
		static const uint8_t side_big[] = { VG_MSG_CURSOR, 0, 0x81, 0x02, 1, 0, 0 };

		g_assert_cmpint(vg_cursorlist_decode(rx, hot_out, sizeof hot_out, &got), ==, VG_ERANGE);
		g_assert_cmpint(vg_cursorlist_decode(rx, side_0, sizeof side_0, &got), ==, VG_ERANGE);
		g_assert_cmpint(vg_cursorlist_decode(rx, side_big, sizeof side_big, &got), ==, VG_ERANGE);
	}
	/* A frame of the wrong size, and colours not premultiplied. */
	z_len = ZSTD_compress(z, sizeof z, bad, 12, 3);
	g_assert_false(ZSTD_isError(z_len));
	vg_writer_reset(&h);
	vg_writer_u8(&h, VG_MSG_CURSOR);
	vg_writer_bytes(&h, (const uint8_t[]){ 0, 2, 2, 0, 0 }, 5);
	vg_writer_bytes(&h, z, z_len);
	g_assert_cmpint(vg_cursorlist_decode(rx, h.data, h.len, &got), ==, VG_ECORRUPT);
	z_len = ZSTD_compress(z, sizeof z, bad, 16, 3);
	vg_writer_reset(&h);
	vg_writer_u8(&h, VG_MSG_CURSOR);
	vg_writer_bytes(&h, (const uint8_t[]){ 0, 2, 2, 0, 0 }, 5);
	vg_writer_bytes(&h, z, z_len);
	g_assert_cmpint(vg_cursorlist_decode(rx, h.data, h.len, &got), ==, VG_ECORRUPT);
	g_assert_cmpuint(vg_cursorlist_len(rx), ==, 0);
	/* And the good body still reads. */
	g_assert_cmpint(vg_cursorlist_decode(rx, w.data, w.len, &got), ==, VG_OK);
	assert_same(&got, &s);
	vg_writer_clear(&w);
	vg_writer_clear(&h);
	vg_cursorlist_free(tx);
	vg_cursorlist_free(rx);
	g_free(px);
}

/* Says HELLO to r, as a new connection's server does. */
static void say_hello(vg_receiver *r, vg_pixbuf *fb)
{
	vg_sender_config scfg;
	vg_sender *s;
	vg_writer hello, reply;

	vg_sender_config_init(&scfg);
	g_assert_cmpint(vg_sender_new(&scfg, &s), ==, VG_OK);
	vg_writer_init(&hello);
	vg_writer_init(&reply);
	vg_sender_hello(s, &hello);
	g_assert_cmpint(vg_receiver_handle(r, hello.data, hello.len, fb, &reply), ==, VG_OK);
	vg_writer_clear(&hello);
	vg_writer_clear(&reply);
	vg_sender_free(s);
}

static vg_receiver *greeted(const vg_receiver_config *cfg, vg_pixbuf *fb)
{
	vg_receiver *r;

	g_assert_cmpint(vg_receiver_new(cfg, &r), ==, VG_OK);
	say_hello(r, fb);
	return r;
}

/* The receiver hands a CURSOR's shape over once; refuses one before the
 * HELLO, one it did not ask for, and a malformed one; forgets its shapes
 * at a reset. */
static void test_receiver(void)
{
	vg_receiver_config cfg;
	vg_cursorlist *tx;
	vg_receiver *r;
	vg_pixbuf *fb = vg_pixbuf_new(32, 32);
	uint32_t *px = arrow(24, 24, 3);
	vg_cursor_shape s = shape_of(px, 24, 24, 5, 6), got;
	vg_writer w, reply;
	vg_receiver_stats st;

	g_assert_cmpint(vg_cursorlist_new(&tx), ==, VG_OK);
	vg_writer_init(&w);
	vg_writer_init(&reply);
	g_assert_cmpint(vg_cursorlist_encode(tx, &s, &w), ==, VG_OK);
	vg_receiver_config_init(&cfg);
	cfg.cursors = true;

	/* Before the HELLO. */
	g_assert_cmpint(vg_receiver_new(&cfg, &r), ==, VG_OK);
	g_assert_cmpint(vg_receiver_handle(r, w.data, w.len, fb, &reply), ==, VG_EPROTO);
	vg_receiver_free(r);

	/* Not asked for. */
	cfg.cursors = false;
	r = greeted(&cfg, fb);
	g_assert_cmpint(vg_receiver_handle(r, w.data, w.len, fb, &reply), ==, VG_EPROTO);
	vg_receiver_free(r);

	cfg.cursors = true;
	r = greeted(&cfg, fb);
	g_assert_false(vg_receiver_take_cursor(r, &got));
	g_assert_cmpint(vg_receiver_handle(r, w.data, w.len, fb, &reply), ==, VG_OK);
	g_assert_cmpuint(reply.len, ==, 0);
	g_assert_true(vg_receiver_take_cursor(r, &got));
	assert_same(&got, &s);
	g_assert_false(vg_receiver_take_cursor(r, &got));
	vg_receiver_get_stats(r, &st);
	g_assert_cmpuint(st.cursors, ==, 1);
	/* A reference to it. */
	vg_writer_reset(&w);
	g_assert_cmpint(vg_cursorlist_encode(tx, &s, &w), ==, VG_OK);
	g_assert_cmpuint(w.len, ==, 2);
	g_assert_cmpint(vg_receiver_handle(r, w.data, w.len, fb, &reply), ==, VG_OK);
	g_assert_true(vg_receiver_take_cursor(r, &got));
	assert_same(&got, &s);
	/* After a reset (a new connection) the list is empty: the reference
	 * is refused. */
	g_assert_cmpint(vg_receiver_reset(r), ==, VG_OK);
	say_hello(r, fb);
	g_assert_cmpint(vg_receiver_handle(r, w.data, w.len, fb, &reply), ==, VG_ERANGE);
	vg_receiver_free(r);

	vg_writer_clear(&w);
	vg_writer_clear(&reply);
	vg_cursorlist_free(tx);
	vg_pixbuf_free(fb);
	g_free(px);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/protocol/cursor/round-trip", test_round_trip);
	g_test_add_func("/protocol/cursor/encode-refuses", test_encode_refuses);
	g_test_add_func("/protocol/cursor/decode-refuses", test_decode_refuses);
	g_test_add_func("/protocol/cursor/receiver", test_receiver);
	return g_test_run();
}
