/* Sender -> receiver round trips and malformed input for the Varg protocol. */
#include <glib.h>
#include <string.h>
#include <zlib.h>

#include "common/vg_error.h"
#include "fingerprint/vg_proto.h"
#include "fingerprint/vg_receiver.h"
#include "fingerprint/vg_sender.h"

typedef struct {
	vg_sender *s;
	vg_receiver *r;
	vg_writer wire, reply;
	vg_pixbuf *server_fb, *viewer_fb;
} pair;

static void pair_init(pair *p, int w, int h)
{
	vg_sender_config cfg;

	vg_sender_config_init(&cfg);
	memcpy(cfg.server_id, "0123456789abcdef", 16);
	g_assert_cmpint(vg_sender_new(&cfg, &p->s), ==, 0);
	g_assert_cmpint(vg_receiver_new(&p->r), ==, 0);
	vg_writer_init(&p->wire);
	vg_writer_init(&p->reply);
	p->server_fb = vg_pixbuf_new(w, h);
	p->viewer_fb = vg_pixbuf_new(w, h);
	vg_sender_hello(p->s, &p->wire);
	g_assert_cmpint(vg_receiver_handle(p->r, p->wire.data, p->wire.len, p->viewer_fb, &p->reply), ==, 0);
	/* The reply is an RFB client message: type, u16 length, body. */
	g_assert_cmpuint(p->reply.len, >=, 3);
	g_assert_cmpuint(p->reply.data[0], ==, VG_CLIENT_MSG);
	g_assert_cmpint(vg_sender_handle(p->s, p->reply.data + 3, p->reply.len - 3), ==, 0);
	g_assert_true(vg_sender_has_viewer_hello(p->s));
	vg_writer_reset(&p->reply);
}

static void pair_clear(pair *p)
{
	vg_sender_free(p->s);
	vg_receiver_free(p->r);
	vg_writer_clear(&p->wire);
	vg_writer_clear(&p->reply);
	vg_pixbuf_free(p->server_fb);
	vg_pixbuf_free(p->viewer_fb);
}

static int send_update(pair *p, const vg_segdesc *segs, size_t n)
{
	int err;

	vg_writer_reset(&p->wire);
	err = vg_sender_update(p->s, p->server_fb, segs, n, &p->wire);
	if (err)
		return err;
	err = vg_receiver_handle(p->r, p->wire.data, p->wire.len, p->viewer_fb, &p->reply);
	if (err)
		g_test_message("receiver: %s", vg_receiver_error_text(p->r));
	return err;
}

/* Paints a random rectangle, often with content copied from elsewhere on
 * the screen so that repetition is common. */
static vg_rect paint(GRand *rng, vg_pixbuf *fb)
{
	vg_rect r = vg_rect_make(g_rand_int_range(rng, 0, fb->width), g_rand_int_range(rng, 0, fb->height),
				 g_rand_int_range(rng, 1, 64), g_rand_int_range(rng, 1, 64));
	int32_t x, y;
	guint32 c = g_rand_int(rng) & VG_PIXEL_MASK;

	r = vg_rect_intersect(r, vg_pixbuf_rect(fb));
	for (y = r.y; y < r.y + r.h; y++)
		for (x = r.x; x < r.x + r.w; x++)
			vg_pixbuf_row(fb, y)[x] = g_rand_boolean(rng) ? c : (guint32)(x * y) & VG_PIXEL_MASK;
	return r;
}

/* Cuts r into row segments of random heights, or column segments. */
static size_t cut(GRand *rng, vg_rect r, vg_segdesc *out)
{
	size_t n = 0;
	bool cols = g_rand_int_range(rng, 0, 4) == 0;
	int32_t pos = cols ? r.x : r.y, end = cols ? r.x + r.w : r.y + r.h;

	while (pos < end) {
		int32_t len = g_rand_int_range(rng, 1, 20);
		vg_segdesc d = { 0 };

		len = MIN(len, end - pos);
		d.rect = cols ? vg_rect_make(pos, r.y, len, r.h) : vg_rect_make(r.x, pos, r.w, len);
		d.orient = cols ? VG_ORIENT_COLS : VG_ORIENT_ROWS;
		out[n++] = d;
		pos += len;
	}
	return n;
}

static void test_round_trip(void)
{
	GRand *rng = g_rand_new_with_seed(11);
	vg_segdesc segs[4096];
	vg_sender_stats ss;
	vg_receiver_stats rs;
	pair p;
	int update;

	pair_init(&p, 301, 207);
	for (update = 0; update < 300; update++) {
		size_t n = 0;
		int k, rects = g_rand_int_range(rng, 1, 5);

		for (k = 0; k < rects; k++)
			n += cut(rng, paint(rng, p.server_fb), segs + n);
		g_assert_cmpint(send_update(&p, segs, n), ==, 0);
		g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
	}
	vg_sender_get_stats(p.s, &ss);
	vg_receiver_get_stats(p.r, &rs);
	g_assert_cmpuint(ss.updates, ==, 300);
	g_assert_cmpuint(rs.updates, ==, 300);
	g_assert_cmpuint(ss.segments, ==, rs.segments);
	/* An empty update is legal and changes nothing. */
	g_assert_cmpint(send_update(&p, segs, 0), ==, 0);
	g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
	pair_clear(&p);
	g_rand_free(rng);
}

static void test_sender_refuses(void)
{
	pair p;
	vg_segdesc d = { 0 };

	pair_init(&p, 16, 16);
	d.rect = vg_rect_make(10, 10, 7, 1);
	g_assert_cmpint(send_update(&p, &d, 1), ==, VG_ERANGE);
	d.rect = vg_rect_make(0, 0, 0, 1);
	g_assert_cmpint(send_update(&p, &d, 1), ==, VG_ERANGE);
	g_assert_cmpint(vg_sender_handle(p.s, (const guint8 *)"\x09", 1), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_handle(p.s, (const guint8 *)"\x01\x01", 2), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_handle(p.s, NULL, 0), ==, VG_EPROTO);
	pair_clear(&p);
}

/* Deflates plain bytes as the sender would, for hand-made updates. */
static void deflate_msg(z_stream *zs, const guint8 *plain, size_t n, vg_writer *out)
{
	guint8 buf[4096];

	vg_writer_reset(out);
	vg_writer_u8(out, VG_MSG_UPDATE);
	zs->next_in = (Bytef *)plain;
	zs->avail_in = (uInt)n;
	do {
		zs->next_out = buf;
		zs->avail_out = sizeof buf;
		g_assert_cmpint(deflate(zs, Z_SYNC_FLUSH), !=, Z_STREAM_ERROR);
		vg_writer_bytes(out, buf, sizeof buf - zs->avail_out);
	} while (zs->avail_out == 0);
}

static void test_malformed(void)
{
	/* Each is a plain update; all must fail cleanly. */
	static const struct { const char *name; guint8 bytes[24]; size_t n; } cases[] = {
		{ "no runs field", { 0 }, 0 },
		{ "run outside frame", { 1, 10, 0, 10, 1, 0, 1, 1, 0 }, 9 },
		{ "zero width", { 1, 0, 0, 0, 1, 0, 1, 1, 0 }, 9 },
		{ "segment count zero", { 1, 0, 0, 2, 2, 0, 0 }, 7 },
		{ "segments overrun", { 1, 0, 0, 2, 2, 0, 1, 3, 0 }, 9 },
		{ "segments short", { 1, 0, 0, 2, 2, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0 }, 15 },
		{ "pixels missing", { 1, 0, 0, 2, 2, 0, 1, 2, 0, 1, 2, 3 }, 12 },
		{ "unknown op", { 1, 0, 0, 1, 1, 0, 1, 1, 77 }, 9 },
		{ "bad orientation", { 1, 0, 0, 1, 1, 9, 1, 1, 0, 1, 2, 3 }, 12 },
		{ "huge count", { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 10 },
		{ "trailing bytes", { 0, 5 }, 2 },
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		z_stream zs = { 0 };
		vg_writer msg;
		pair p;
		int err;

		pair_init(&p, 8, 8);
		g_assert_cmpint(deflateInit(&zs, 6), ==, Z_OK);
		vg_writer_init(&msg);
		deflate_msg(&zs, cases[i].bytes, cases[i].n, &msg);
		err = vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply);
		g_test_message("%s: %s", cases[i].name, vg_receiver_error_text(p.r));
		g_assert_cmpint(err, <, 0);
		deflateEnd(&zs);
		vg_writer_clear(&msg);
		pair_clear(&p);
	}
}

static void test_bad_stream(void)
{
	vg_receiver *r;
	vg_writer reply;
	vg_pixbuf *fb = vg_pixbuf_new(8, 8);
	static const guint8 garbage[] = { VG_MSG_UPDATE, 0xde, 0xad, 0xbe, 0xef, 0x00 };
	static const guint8 hello_v9[] = { VG_MSG_HELLO, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };

	vg_writer_init(&reply);
	g_assert_cmpint(vg_receiver_new(&r), ==, 0);
	g_assert_cmpint(vg_receiver_handle(r, garbage, sizeof garbage, fb, &reply), ==, VG_EPROTO);
	g_assert_cmpint(vg_receiver_handle(r, hello_v9, sizeof hello_v9, fb, &reply), ==, VG_ENOTSUP);
	g_assert_cmpint(vg_receiver_handle(r, hello_v9, 5, fb, &reply), ==, VG_ETRUNC);
	g_assert_cmpint(vg_receiver_handle(r, NULL, 0, fb, &reply), ==, VG_ETRUNC);
	vg_receiver_free(r);
	vg_writer_clear(&reply);
	vg_pixbuf_free(fb);
}

/* A bomb: a small body that inflates far past the frame size is refused. */
static void test_inflate_bomb(void)
{
	z_stream zs = { 0 };
	vg_writer msg;
	guint8 *zeros = g_malloc0(1 << 20);
	pair p;

	pair_init(&p, 8, 8);
	g_assert_cmpint(deflateInit(&zs, 9), ==, Z_OK);
	vg_writer_init(&msg);
	deflate_msg(&zs, zeros, 1 << 20, &msg);
	g_assert_cmpuint(msg.len, <, 8192);
	g_assert_cmpint(vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply), ==, VG_ERANGE);
	deflateEnd(&zs);
	vg_writer_clear(&msg);
	g_free(zeros);
	pair_clear(&p);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/protocol/round-trip", test_round_trip);
	g_test_add_func("/protocol/sender-refuses", test_sender_refuses);
	g_test_add_func("/protocol/malformed", test_malformed);
	g_test_add_func("/protocol/bad-stream", test_bad_stream);
	g_test_add_func("/protocol/inflate-bomb", test_inflate_bomb);
	return g_test_run();
}
