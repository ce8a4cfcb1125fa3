/* Sender -> receiver round trips, fingerprints, forced collisions, cache
 * loss and malformed input for the Varg protocol. */
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_reader.h"
#include "common/vg_seghash.h"
#include "segment2d/vg_moves.h"
#include "fingerprint/codec/vg_literal.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/codec/vg_approx.h"
#include "fingerprint/proto/vg_receiver.h"
#include "fingerprint/proto/vg_sender.h"
#include "fingerprint/codec/vg_sha1.h"
#include "fingerprint/codec/vg_zstream.h"

/* The coder the pairs of a test agree on: every test runs with both. */
static vg_coder test_coder = VG_CODER_ZSTD;
/* The next pair's sender offers the pixel model (its viewer takes it). */
static bool test_pixmodel;
/* The viewer of the next pair does not take INDEXED literal blocks,
 * REPEATs within an update, REPEAT offsets by recency, or the pixel
 * model. */
static bool test_no_indexed, test_no_repeat_within, test_no_repeat_recent, test_no_pixmodel;

typedef struct {
	vg_sender *s;
	vg_receiver *r;
	vg_writer wire, reply;
	vg_pixbuf *server_fb, *viewer_fb;
	vg_region *repair;
	GArray *segs;
} pair;

/* The configurations of the next pair's sender and viewer. */
static void pair_configs(vg_sender_config *cfg, vg_receiver_config *rcfg, unsigned fp_bits,
			 unsigned group)
{
	vg_sender_config_init(cfg);
	cfg->fp_bits = fp_bits;
	cfg->group_size = group;
	memcpy(cfg->server_id, "0123456789abcdef", 16);
	cfg->pixmodel = test_pixmodel;
	vg_receiver_config_init(rcfg);
	rcfg->memory_budget = 16u << 20;
	if (test_coder == VG_CODER_ZLIB)
		rcfg->zstd_window_log = 0;
	rcfg->indexed = !test_no_indexed;
	rcfg->repeat_within = !test_no_repeat_within;
	rcfg->repeat_recent = !test_no_repeat_recent;
	rcfg->pixmodel = !test_no_pixmodel;
}

static void pair_init_group(pair *p, int w, int h, unsigned fp_bits, unsigned group)
{
	vg_sender_config cfg;
	vg_receiver_config rcfg;

	pair_configs(&cfg, &rcfg, fp_bits, group);
	g_assert_cmpint(vg_sender_new(&cfg, &p->s), ==, 0);
	g_assert_cmpint(vg_receiver_new(&rcfg, &p->r), ==, 0);
	vg_writer_init(&p->wire);
	vg_writer_init(&p->reply);
	p->server_fb = vg_pixbuf_new(w, h);
	p->viewer_fb = vg_pixbuf_new(w, h);
	p->repair = vg_region_new();
	p->segs = g_array_new(FALSE, FALSE, sizeof(vg_segdesc));
	vg_sender_hello(p->s, &p->wire);
	g_assert_cmpint(vg_receiver_handle(p->r, p->wire.data, p->wire.len, p->viewer_fb, &p->reply), ==, 0);
	/* The reply is an RFB client message: type, u16 length, body. */
	g_assert_cmpuint(p->reply.len, >=, 3);
	g_assert_cmpuint(p->reply.data[0], ==, VG_CLIENT_MSG);
	g_assert_cmpint(vg_sender_handle(p->s, p->reply.data + 3, p->reply.len - 3, w, h, NULL), ==, 0);
	g_assert_true(vg_sender_has_viewer_hello(p->s));
	vg_writer_reset(&p->reply);
}

/* Where the flags sit: in a HELLO as the sender writes it, and in a
 * VIEWER HELLO after its type, u16 length, kind, version, identity (16)
 * and capacity (8). */
#define HELLO_FLAGS_AT 20
#define VHELLO_FLAGS_AT (3 + 2 + 16 + 8)

/* A sender set as scfg says HELLO to a new viewer set as rcfg, which
 * answers in reply; the sender stays, for the caller to go on with. */
typedef struct {
	vg_sender *s;
	vg_writer reply;
	guint8 hello_flags, viewer_flags;
} greeting;

static void greet(greeting *g, const vg_sender_config *scfg, const vg_receiver_config *rcfg)
{
	vg_receiver *r;
	vg_pixbuf *fb = vg_pixbuf_new(64, 64);
	vg_writer hello;

	g_assert_cmpint(vg_sender_new(scfg, &g->s), ==, 0);
	g_assert_cmpint(vg_receiver_new(rcfg, &r), ==, 0);
	vg_writer_init(&hello);
	vg_writer_init(&g->reply);
	vg_sender_hello(g->s, &hello);
	g_assert_cmpuint(hello.len, >, HELLO_FLAGS_AT);
	g->hello_flags = hello.data[HELLO_FLAGS_AT];
	g_assert_cmpint(vg_receiver_handle(r, hello.data, hello.len, fb, &g->reply), ==, 0);
	g_assert_cmpuint(g->reply.len, >, VHELLO_FLAGS_AT);
	g->viewer_flags = g->reply.data[VHELLO_FLAGS_AT];
	vg_writer_clear(&hello);
	vg_receiver_free(r);
	vg_pixbuf_free(fb);
}

static void greeting_clear(greeting *g)
{
	vg_writer_clear(&g->reply);
	vg_sender_free(g->s);
}

static void pair_init_bits(pair *p, int w, int h, unsigned fp_bits)
{
	pair_init_group(p, w, h, fp_bits, VG_GROUP_DEFAULT);
}

static void pair_init(pair *p, int w, int h)
{
	pair_init_bits(p, w, h, VG_FP_BITS_DEFAULT);
}

/* A pair whose viewer turns one feature off (*no_feature set for the
 * pair's start only), or keeps it (no_feature NULL). */
static void pair_init_without(pair *p, int w, int h, bool *no_feature)
{
	if (no_feature)
		*no_feature = true;
	pair_init(p, w, h);
	if (no_feature)
		*no_feature = false;
}

static void pair_clear(pair *p)
{
	vg_sender_free(p->s);
	vg_receiver_free(p->r);
	vg_writer_clear(&p->wire);
	vg_writer_clear(&p->reply);
	vg_pixbuf_free(p->server_fb);
	vg_pixbuf_free(p->viewer_fb);
	vg_region_free(p->repair);
	g_array_free(p->segs, TRUE);
}

static vg_segdesc seg_of(const vg_pixbuf *fb, vg_rect r, vg_orient o)
{
	vg_segdesc d = { 0 };
	vg_pixbuf v = vg_pixbuf_view(fb, r);

	d.rect = r;
	d.orient = (uint8_t)o;
	d.hash = vg_seghash(&v, o);
	return d;
}

/* Feeds the viewer's replies to the sender; returns how many rectangles
 * it asked to be repaired (added to p->repair). */
static int feed_replies(pair *p)
{
	vg_reader rd;
	int rects = 0;

	vg_reader_init(&rd, p->reply.data, p->reply.len);
	while (vg_reader_remaining(&rd)) {
		guint8 type;
		guint16 len;
		const guint8 *body;
		vg_sender_stats st0, st1;

		g_assert_cmpint(vg_reader_u8(&rd, &type), ==, 0);
		g_assert_cmpuint(type, ==, VG_CLIENT_MSG);
		g_assert_cmpint(vg_reader_u16be(&rd, &len), ==, 0);
		g_assert_cmpint(vg_reader_ptr(&rd, len, &body), ==, 0);
		vg_sender_get_stats(p->s, &st0);
		g_assert_cmpint(vg_sender_handle(p->s, body, len, p->server_fb->width,
						 p->server_fb->height, p->repair), ==, 0);
		vg_sender_get_stats(p->s, &st1);
		rects += (int)(st1.repairs - st0.repairs);
	}
	vg_writer_reset(&p->reply);
	return rects;
}

static int send_segs(pair *p, const vg_segdesc *segs, size_t n, const vg_region *literal_only)
{
	int err;

	vg_writer_reset(&p->wire);
	err = vg_sender_update(p->s, p->server_fb, segs, n, literal_only, &p->wire);
	if (err)
		return err;
	err = vg_receiver_handle(p->r, p->wire.data, p->wire.len, p->viewer_fb, &p->reply);
	if (err)
		g_test_message("receiver: %s", vg_receiver_error_text(p->r));
	return err;
}

/* Sends segs, then repairs until the viewer asks for nothing more, as the
 * server does. Returns the number of repair rounds. */
static int exchange(pair *p, const vg_segdesc *segs, size_t n)
{
	int rounds = 0;

	vg_receiver_stats st;

	g_assert_cmpint(send_segs(p, segs, n, NULL), ==, 0);
	while (feed_replies(p) > 0) {
		const vg_rect *rs;
		size_t k, nr;

		/* The viewer knows its picture is not the server's yet. */
		vg_receiver_get_stats(p->r, &st);
		g_assert_cmpuint(st.owed_pixels, >, 0);
		g_assert_cmpint(++rounds, <=, 3);
		rs = vg_region_rects(p->repair, &nr);
		g_array_set_size(p->segs, 0);
		for (k = 0; k < nr; k++) {
			vg_segdesc d = seg_of(p->server_fb, rs[k], VG_ORIENT_ROWS);
			g_array_append_val(p->segs, d);
		}
		g_assert_cmpint(send_segs(p, (vg_segdesc *)p->segs->data, p->segs->len, p->repair), ==, 0);
		vg_region_clear(p->repair);
	}
	vg_receiver_get_stats(p->r, &st);
	g_assert_cmpuint(st.owed_pixels, ==, 0);
	return rounds;
}

/* A pool of tiles the screen shows again and again. */
static void paint_tile(vg_pixbuf *fb, vg_rect r, guint32 pattern)
{
	int32_t x, y;

	for (y = r.y; y < r.y + r.h; y++)
		for (x = r.x; x < r.x + r.w; x++)
			vg_pixbuf_row(fb, y)[x] = (pattern * 2654435761u ^ (guint32)((x - r.x) * 31 + (y - r.y) * 7)) & VG_PIXEL_MASK;
}

/* One update: a few 16-pixel columns, each cut into segments of random
 * heights whose pixels come from a small pool, so repeats are common. */
static size_t random_update(GRand *rng, pair *p, vg_segdesc *out, int pool)
{
	size_t n = 0;
	int cols = g_rand_int_range(rng, 1, 5), c;

	for (c = 0; c < cols; c++) {
		int32_t x = g_rand_int_range(rng, 0, p->server_fb->width / 16) * 16;
		int32_t y = g_rand_int_range(rng, 0, p->server_fb->height - 8);
		int32_t end = y + g_rand_int_range(rng, 8, 120);
		bool cols_orient = g_rand_int_range(rng, 0, 5) == 0;

		end = MIN(end, p->server_fb->height);

		if (cols_orient) {
			vg_rect band = vg_rect_make(0, y, MIN(64, p->server_fb->width), MIN(16, end - y));
			int32_t pos = band.x;
			while (pos < band.x + band.w) {
				int32_t len = g_rand_int_range(rng, 1, 20);
				len = MIN(len, band.x + band.w - pos);
				vg_rect r = vg_rect_make(pos, band.y, len, band.h);
				paint_tile(p->server_fb, r, (guint32)g_rand_int_range(rng, 0, pool));
				out[n++] = seg_of(p->server_fb, r, VG_ORIENT_COLS);
				pos += len;
			}
			continue;
		}
		while (y < end) {
			int32_t h = g_rand_int_range(rng, 1, 24);
			vg_rect r;

			h = MIN(h, end - y);
			r = vg_rect_make(x, y, MIN(16, p->server_fb->width - x), h);
			paint_tile(p->server_fb, r, (guint32)g_rand_int_range(rng, 0, pool));
			out[n++] = seg_of(p->server_fb, r, VG_ORIENT_ROWS);
			y += h;
		}
	}
	/* Columns may overlap: describe the frame as it is now. */
	for (size_t k = 0; k < n; k++)
		out[k] = seg_of(p->server_fb, out[k].rect, (vg_orient)out[k].orient);
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
	for (update = 0; update < 400; update++) {
		size_t n = random_update(rng, &p, segs, 40);
		g_assert_cmpint(exchange(&p, segs, n), ==, 0);
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
	if (test_pixmodel)
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
	g_assert_cmpint(send_segs(&p, segs, 0, NULL), ==, 0);
	g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
	pair_clear(&p);
	g_rand_free(rng);
}

/* A receiver reset after a session (its cache, history and pixel model
 * full) takes the next session as a new receiver does: the same
 * replies (the VIEWER HELLO's random cache identity aside), the same
 * pixels, the same counts. */
static void test_reset(void)
{
	GRand *rng = g_rand_new_with_seed(5);
	vg_segdesc segs[4096];
	vg_sender_config scfg;
	vg_receiver_config rcfg;
	vg_receiver_stats st_reset, st_new;
	vg_receiver *fresh;
	vg_pixbuf *fb_reset, *fb_new;
	vg_writer reply_new;
	pair p;
	int update;

	pair_init(&p, 160, 120);
	for (update = 0; update < 20; update++) {
		size_t n = random_update(rng, &p, segs, 40);
		exchange(&p, segs, n);
	}
	g_assert_cmpint(vg_receiver_reset(p.r), ==, 0);
	pair_configs(&scfg, &rcfg, VG_FP_BITS_DEFAULT, VG_GROUP_DEFAULT);
	g_assert_cmpint(vg_receiver_new(&rcfg, &fresh), ==, 0);
	vg_sender_free(p.s);
	g_assert_cmpint(vg_sender_new(&scfg, &p.s), ==, 0);
	fb_reset = vg_pixbuf_new(160, 120);
	fb_new = vg_pixbuf_new(160, 120);
	vg_writer_init(&reply_new);
	vg_writer_reset(&p.reply);
	vg_writer_reset(&p.wire);
	vg_sender_hello(p.s, &p.wire);
	for (update = 0; update <= 30; update++) {
		g_assert_cmpint(vg_receiver_handle(p.r, p.wire.data, p.wire.len, fb_reset, &p.reply), ==, 0);
		g_assert_cmpint(vg_receiver_handle(fresh, p.wire.data, p.wire.len, fb_new, &reply_new), ==, 0);
		g_assert_cmpuint(p.reply.len, ==, reply_new.len);
		if (update == 0)
			g_assert_cmpuint(p.reply.data[VHELLO_FLAGS_AT], ==, reply_new.data[VHELLO_FLAGS_AT]);
		else
			g_assert_cmpmem(p.reply.data, p.reply.len, reply_new.data, reply_new.len);
		g_assert_true(vg_pixbuf_equal(fb_reset, fb_new));
		if (update > 0)
			g_assert_true(vg_pixbuf_equal(fb_reset, p.server_fb));
		feed_replies(&p);
		vg_writer_reset(&reply_new);
		vg_writer_reset(&p.wire);
		if (update < 30) {
			size_t n = random_update(rng, &p, segs, 40);

			/* The whole picture first, as a new connection's first update. */
			if (update == 0) {
				segs[0] = seg_of(p.server_fb, vg_rect_make(0, 0, 160, 120), VG_ORIENT_ROWS);
				n = 1;
			}
			g_assert_cmpint(vg_sender_update(p.s, p.server_fb, segs, n, NULL, &p.wire), ==, 0);
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
	vg_pixbuf_free(fb_reset);
	vg_pixbuf_free(fb_new);
	vg_receiver_free(fresh);
	pair_clear(&p);
	g_rand_free(rng);
}

/* Seeds the viewer's cache under key with junk's pixels, freshly painted,
 * when junk is tall enough to stand in for r: wrong pixels that only the
 * group's SHA-1 can tell apart. */
static void plant_junk(pair *p, vg_pixbuf *junk, GRand *rng, uint64_t key, vg_rect r)
{
	vg_pixbuf v = vg_pixbuf_view(junk, vg_rect_make(0, 0, r.w, r.h));

	paint_tile(junk, vg_pixbuf_rect(junk), g_rand_int(rng));
	if (v.height == r.h)
		vg_receiver_seed_cache(p->r, key, &v);
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
		pair p;
		int update;
		uint64_t key;

		pair_init_bits(&p, 200, 160, widths[wi]);
		for (update = 0; update < 300; update++) {
			size_t n = random_update(rng, &p, segs, 30), k;

			/* Before each update, plant wrong pixels of the right size
			 * under the keys the server will send as fingerprints. */
			for (k = 0; k < n; k++) {
				key = vg_fp_key(segs[k].hash, widths[wi]);
				if (g_rand_int_range(rng, 0, 3))
					continue;
				plant_junk(&p, junk, rng, key, segs[k].rect);
			}
			exchange(&p, segs, n);
			g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
		}
		vg_receiver_get_stats(p.r, &rs);
		g_test_message("%u bits: %" G_GUINT64_FORMAT " hits, %" G_GUINT64_FORMAT
			       " SHA-1 mismatches, %" G_GUINT64_FORMAT " segments corrected",
			       widths[wi], rs.cache_hits, rs.check_failures, rs.corrections);
		g_assert_cmpuint(rs.corrections, >, 0);
		vg_pixbuf_free(junk);
		pair_clear(&p);
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
	pair p;
	int update;

	pair_init(&p, 256, 200);
	for (update = 0; update < 300; update++) {
		size_t n = random_update(rng, &p, segs, 25);
		if (update % 100 == 50)
			vg_receiver_clear_cache(p.r);
		exchange(&p, segs, n);
		g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
	}
	vg_receiver_get_stats(p.r, &rs);
	g_test_message("%" G_GUINT64_FORMAT " misses, %" G_GUINT64_FORMAT " corrected",
		       rs.cache_misses, rs.corrections);
	g_assert_cmpuint(rs.cache_misses, >, 0);
	g_assert_cmpuint(rs.corrections, >=, rs.cache_misses);
	pair_clear(&p);
	g_rand_free(rng);
}

static void test_sender_refuses(void)
{
	pair p;
	vg_segdesc d = { 0 };
	vg_region *rep = vg_region_new();
	static const guint8 repair_outside[] = { VG_VMSG_REPAIR, 1, 10, 10, 7, 1 };
	static const guint8 repair_many[] = { VG_VMSG_REPAIR, 0xff, 0xff, 0x03 };
	static const guint8 repair_ok[] = { VG_VMSG_REPAIR, 1, 1, 2, 3, 4 };
	vg_sender_config bad;

	pair_init(&p, 16, 16);
	d.rect = vg_rect_make(10, 10, 7, 1);
	g_assert_cmpint(send_segs(&p, &d, 1, NULL), ==, VG_ERANGE);
	d.rect = vg_rect_make(0, 0, 0, 1);
	g_assert_cmpint(send_segs(&p, &d, 1, NULL), ==, VG_ERANGE);
	g_assert_cmpint(vg_sender_handle(p.s, (const guint8 *)"\x09", 1, 16, 16, rep), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_handle(p.s, (const guint8 *)"\x01\x01", 2, 16, 16, rep), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_handle(p.s, NULL, 0, 16, 16, rep), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_handle(p.s, repair_outside, sizeof repair_outside, 16, 16, rep), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_handle(p.s, repair_many, sizeof repair_many, 16, 16, rep), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_handle(p.s, repair_ok, 5, 16, 16, rep), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_handle(p.s, repair_ok, sizeof repair_ok, 16, 16, rep), ==, 0);
	g_assert_cmpint(vg_region_area(rep), ==, 12);
	vg_sender_config_init(&bad);
	bad.fp_bits = 7;
	g_assert_cmpint(vg_sender_new(&bad, &p.s), ==, VG_EINVAL);
	vg_region_free(rep);
	pair_clear(&p);
}

/* PING from the receiver, PONG from the sender, token intact; both sides
 * refuse them out of order or malformed. */
static void test_ping_pong(void)
{
	pair p;
	vg_sender_config scfg;
	vg_receiver_config rcfg;
	vg_sender *fresh_s;
	vg_receiver *fresh_r;
	vg_writer w;
	uint32_t token = 0;
	static const guint8 ping_short[] = { VG_VMSG_PING, 1, 2, 3 };
	static const guint8 pong_long[] = { VG_MSG_PONG, 1, 2, 3, 4, 5 };

	pair_init(&p, 16, 16);
	vg_writer_init(&w);
	g_assert_false(vg_sender_take_ping(p.s, &token));
	g_assert_cmpint(vg_receiver_ping(p.r, 0xdeadbeef, &p.reply), ==, 0);
	g_assert_cmpuint(p.reply.len, ==, 3 + VG_PING_LEN);
	g_assert_cmpuint(p.reply.data[0], ==, VG_CLIENT_MSG);
	g_assert_cmpuint(p.reply.data[1] << 8 | p.reply.data[2], ==, VG_PING_LEN);
	g_assert_cmpint(vg_sender_handle(p.s, p.reply.data + 3, p.reply.len - 3, 16, 16, NULL), ==, 0);
	g_assert_true(vg_sender_take_ping(p.s, &token));
	g_assert_cmphex(token, ==, 0xdeadbeef);
	g_assert_false(vg_sender_take_ping(p.s, &token));
	vg_sender_pong(token, &w);
	g_assert_cmpuint(w.len, ==, VG_PING_LEN);
	token = 0;
	g_assert_false(vg_receiver_take_pong(p.r, &token));
	g_assert_cmpint(vg_receiver_handle(p.r, w.data, w.len, p.viewer_fb, &p.reply), ==, 0);
	g_assert_true(vg_receiver_take_pong(p.r, &token));
	g_assert_cmphex(token, ==, 0xdeadbeef);
	g_assert_false(vg_receiver_take_pong(p.r, &token));
	g_assert_cmpint(vg_sender_handle(p.s, ping_short, sizeof ping_short, 16, 16, NULL), ==, VG_EPROTO);
	g_assert_cmpint(vg_receiver_handle(p.r, pong_long, sizeof pong_long, p.viewer_fb, &p.reply), ==, VG_ECORRUPT);

	/* Before the HELLOs: no PING is written, none accepted, no PONG. */
	vg_sender_config_init(&scfg);
	vg_receiver_config_init(&rcfg);
	g_assert_cmpint(vg_sender_new(&scfg, &fresh_s), ==, 0);
	g_assert_cmpint(vg_receiver_new(&rcfg, &fresh_r), ==, 0);
	vg_writer_reset(&w);
	g_assert_cmpint(vg_receiver_ping(fresh_r, 1, &w), ==, VG_EPROTO);
	g_assert_cmpuint(w.len, ==, 0);
	g_assert_cmpint(vg_sender_handle(fresh_s, p.reply.data + 3, VG_PING_LEN, 16, 16, NULL), ==, VG_EPROTO);
	vg_sender_pong(7, &w);
	g_assert_cmpint(vg_receiver_handle(fresh_r, w.data, w.len, p.viewer_fb, &p.reply), ==, VG_EPROTO);
	vg_sender_free(fresh_s);
	vg_receiver_free(fresh_r);
	vg_writer_clear(&w);
	pair_clear(&p);
}

/* The first run's rectangle of a hand-made update, as the pair's format
 * writes it: absolute (zlib, version 1) or relative to an empty rectangle
 * at 0,0 (version 2). */
static void first_run(vg_writer *w, vg_rect r)
{
	bool delta = test_coder == VG_CODER_ZSTD;

	vg_writer_uleb(w, delta ? vg_zigzag_encode(r.x) : (uint64_t)r.x);
	vg_writer_uleb(w, delta ? vg_zigzag_encode(r.y) : (uint64_t)r.y);
	vg_writer_uleb(w, delta ? vg_zigzag_encode(r.w) : (uint64_t)r.w);
	vg_writer_uleb(w, delta ? vg_zigzag_encode(r.h) : (uint64_t)r.h);
}

/* A pair of streams as the server's for hand-made updates. */
static void zouts(vg_zout **zs, vg_zout **zpix)
{
	g_assert_cmpint(vg_zout_new(test_coder, test_coder == VG_CODER_ZLIB ? 6 : 3,
				    VG_ZSTD_WINDOW_LOG_MIN, zs), ==, 0);
	g_assert_cmpint(vg_zout_new(test_coder, test_coder == VG_CODER_ZLIB ? 6 : 3,
				    VG_ZSTD_WINDOW_LOG_MIN, zpix), ==, 0);
}

/* Appends a flushed chunk of zs holding plain[0..n). */
static void deflate_chunk(vg_zout *zs, const guint8 *plain, size_t n, vg_writer *out)
{
	g_assert_cmpint(vg_zout_put(zs, plain, n, out), ==, 0);
}

/* Frames a hand-made update as the sender would: kind, n_checks digests
 * (all 0x11), the structure chunk with its length, the pixel chunk (none
 * when n_pix is 0). */
static void deflate_msg(vg_zout *zs, vg_zout *zpix, size_t n_checks, const guint8 *plain,
			size_t n, const guint8 *pix, size_t n_pix, vg_writer *out)
{
	vg_writer chunk;
	size_t i;

	vg_writer_init(&chunk);
	vg_writer_reset(out);
	vg_writer_u8(out, VG_MSG_UPDATE);
	vg_writer_uleb(out, n_checks);
	for (i = 0; i < n_checks * 20; i++)
		vg_writer_u8(out, 0x11);
	deflate_chunk(zs, plain, n, &chunk);
	vg_writer_uleb(out, chunk.len);
	vg_writer_bytes(out, chunk.data, chunk.len);
	if (n_pix)
		deflate_chunk(zpix, pix, n_pix, out);
	vg_writer_clear(&chunk);
}

static void test_malformed(void)
{
	/* Each is a plain update: structure (items are uleb(len * 4 + op)),
	 * literal pixels, and how many digests; all must fail cleanly in an
	 * 8 x 8 frame. Fingerprints are 5 bytes (40 bits). */
	static const struct {
		const char *name;
		guint8 bytes[24];
		size_t n;
		guint8 pix[24];
		size_t n_pix;
		size_t checks;
	} cases[] = {
		{ "no runs field", { 0 }, 0, { 0 }, 0, 0 },
		{ "run outside frame", { 1, 10, 0, 10, 1, 0, 1, 4 }, 8, { 0, 1, 2, 3 }, 4, 0 },
		{ "zero width", { 1, 0, 0, 0, 1, 0, 1, 4 }, 8, { 0 }, 0, 0 },
		{ "segment count zero", { 1, 0, 0, 2, 2, 0, 0 }, 7, { 0 }, 0, 0 },
		{ "segments overrun", { 1, 0, 0, 2, 2, 0, 1, 12 }, 8, { 0 }, 0, 0 },
		{ "segments short", { 1, 0, 0, 2, 2, 0, 1, 4 }, 8, { 0, 1, 2, 3, 4, 5, 6 }, 7, 0 },
		{ "pixels missing", { 1, 0, 0, 2, 2, 0, 1, 8 }, 8, { 0, 1, 2, 3 }, 4, 0 },
		{ "no pixel chunk", { 1, 0, 0, 1, 1, 0, 1, 4 }, 8, { 0 }, 0, 0 },
		{ "pixels left over", { 1, 0, 0, 1, 1, 0, 1, 4 }, 8, { 0, 1, 2, 3, 9 }, 5, 0 },
		{ "unknown literal method", { 1, 0, 0, 1, 1, 0, 1, 4 }, 8, { 7, 1, 2, 3 }, 4, 0 },
		{ "palette index outside", { 1, 0, 0, 1, 2, 0, 1, 8 }, 8,
		  { 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0xc0, 0x00 }, 13, 0 },
		{ "palette cut short", { 1, 0, 0, 1, 2, 0, 1, 8 }, 8, { 2, 2, 1, 1, 1, 2, 2 }, 7, 0 },
		{ "indices cut short", { 1, 0, 0, 1, 2, 0, 1, 8 }, 8, { 2, 1, 1, 1, 1, 2, 2, 2, 0x80 }, 9, 0 },
		{ "run past the block", { 1, 0, 0, 1, 2, 0, 1, 8 }, 8, { 3, 0, 1, 1, 1, 0x80, 5 }, 7, 0 },
		{ "runs short of the block", { 1, 0, 0, 1, 2, 0, 1, 8 }, 8, { 3, 0, 1, 1, 1, 0x00 }, 6, 0 },
		{ "run index outside", { 1, 0, 0, 1, 1, 0, 1, 4 }, 8, { 3, 1, 1, 1, 1, 2, 2, 2, 0x02 }, 9, 0 },
		{ "run palette too large", { 1, 0, 0, 1, 1, 0, 1, 4 }, 8, { 3, 200, 1, 1, 1 }, 5, 0 },
		{ "repeat without its offset", { 1, 0, 0, 1, 1, 0, 1, 7 }, 8, { 0 }, 0, 0 },
		{ "repeat before any update", { 1, 0, 0, 1, 1, 0, 1, 7, 0 }, 9, { 0 }, 0, 0 },
		{ "bad orientation", { 1, 0, 0, 1, 1, 9, 1, 4 }, 8, { 0, 1, 2, 3 }, 4, 0 },
		{ "huge count", { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 10, { 0 }, 0, 0 },
		{ "trailing bytes", { 0, 5 }, 2, { 0 }, 0, 0 },
		{ "check without group", { 1, 0, 0, 1, 1, 0, 1, 2 }, 8, { 0 }, 0, 1 },
		{ "check at end without group", { 0, 2 }, 2, { 0 }, 0, 1 },
		{ "fingerprint cut short", { 1, 0, 0, 1, 1, 0, 1, 5, 1, 2 }, 10, { 0 }, 0, 0 },
		{ "group without its check", { 1, 0, 0, 1, 1, 0, 1, 5, 1, 2, 3, 4, 5 }, 13, { 0 }, 0, 0 },
		{ "check without its digest", { 1, 0, 0, 1, 1, 0, 1, 5, 1, 2, 3, 4, 5, 2 }, 14, { 0 }, 0, 0 },
		{ "digest left over", { 0 }, 1, { 0 }, 0, 1 },
		{ "move from outside", { 1, 0, 0, 4, 4, 2, 16, 0 }, 8, { 0 }, 0, 0 },
		{ "move cut short", { 1, 0, 0, 4, 4, 2, 2 }, 7, { 0 }, 0, 0 },
		{ "move after a segment", { 2, 0, 0, 1, 1, 0, 1, 4, 1, 1, 1, 1, 2, 0, 0 }, 15,
		  { 0, 1, 2, 3 }, 4, 0 },
		{ "moves over the frame", { 2, 0, 0, 8, 8, 2, 0, 0, 0, 0, 8, 8, 2, 0, 0 }, 15, { 0 }, 0, 0 },
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
		pair p;
		int err;

		pair_init(&p, 8, 8);
		zouts(&zs, &zpix);
		vg_writer_init(&msg);
		deflate_msg(zs, zpix, cases[i].checks, cases[i].bytes, cases[i].n, cases[i].pix,
			    cases[i].n_pix, &msg);
		err = vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply);
		g_test_message("%s: %s", cases[i].name, vg_receiver_error_text(p.r));
		g_assert_cmpint(err, <, 0);
		/* Refused by the parser, not by the framing. */
		g_assert_null(strstr(vg_receiver_error_text(p.r), "digests or structure length"));
		vg_zout_free(zs);
		vg_zout_free(zpix);
		vg_writer_clear(&msg);
		pair_clear(&p);
	}
	for (i = 0; i < G_N_ELEMENTS(bad_frames); i++) {
		pair p;

		pair_init(&p, 8, 8);
		g_assert_cmpint(vg_receiver_handle(p.r, bad_frames[i], bad_len[i], p.viewer_fb, &p.reply),
				<, 0);
		g_test_message("frame %zu: %s", i, vg_receiver_error_text(p.r));
		pair_clear(&p);
	}
}

static void test_bad_stream(void)
{
	vg_receiver *r;
	vg_receiver_config cfg;
	vg_writer reply;
	vg_pixbuf *fb = vg_pixbuf_new(8, 8);
	static const guint8 garbage[] = { VG_MSG_UPDATE, 0xde, 0xad, 0xbe, 0xef, 0x00 };
	static const guint8 hello_v9[] = { VG_MSG_HELLO, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 40, 20, 0 };
	guint8 hello_bits[21] = { VG_MSG_HELLO, 1 };

	vg_writer_init(&reply);
	vg_receiver_config_init(&cfg);
	g_assert_cmpint(vg_receiver_new(&cfg, &r), ==, 0);
	g_assert_cmpint(vg_receiver_handle(r, garbage, sizeof garbage, fb, &reply), ==, VG_EPROTO);
	g_assert_cmpint(vg_receiver_handle(r, hello_v9, sizeof hello_v9, fb, &reply), ==, VG_ENOTSUP);
	g_assert_cmpint(vg_receiver_handle(r, hello_v9, 5, fb, &reply), ==, VG_ETRUNC);
	g_assert_cmpint(vg_receiver_handle(r, NULL, 0, fb, &reply), ==, VG_ETRUNC);
	hello_bits[18] = 65;
	hello_bits[19] = 20;
	g_assert_cmpint(vg_receiver_handle(r, hello_bits, sizeof hello_bits, fb, &reply), ==, VG_ERANGE);
	hello_bits[18] = 40;
	hello_bits[19] = 0;
	g_assert_cmpint(vg_receiver_handle(r, hello_bits, sizeof hello_bits, fb, &reply), ==, VG_ERANGE);
	vg_receiver_free(r);
	vg_writer_clear(&reply);
	vg_pixbuf_free(fb);
}

/* A bomb: a small body that inflates far past the frame size is refused. */
/* A chunk that inflates to exactly the limit is whole, one byte more is
 * too many; at the first buffer's size (64 KiB), below it, and empty (as
 * the zstream fuzzer found: a chunk of exactly max bytes was refused).
 * Streams restarted by vg_zout_reset / vg_zin_reset decode alike. */
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
				g_free(buf);
				buf = NULL;
				cap = 0;
				g_assert_cmpint(vg_zin_get(zi, out.data, out.len, &buf, &cap, n - 1, &got), ==,
						VG_ERANGE);
			} else {
				g_assert_cmpint(vg_zin_get(zi, out.data, out.len, &buf, &cap, 0, &got), ==, 0);
				g_assert_cmpuint(got, ==, 0);
			}
			vg_writer_clear(&out);
			g_free(buf);
			vg_zout_free(zo);
			vg_zin_free(zi);
		}
	}
	g_free(plain);
}

static void test_inflate_bomb(void)
{
	vg_zout *zs, *zpix;
	vg_writer msg;
	guint8 *zeros = g_malloc0(1 << 20);
	pair p;

	pair_init(&p, 8, 8);
	zouts(&zs, &zpix);
	vg_writer_init(&msg);
	deflate_msg(zs, zpix, 0, zeros, 1 << 20, NULL, 0, &msg);
	g_assert_cmpuint(msg.len, <, 8192);
	g_assert_cmpint(vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply), ==, VG_ERANGE);
	pair_clear(&p);
	/* The same through the pixel stream (fresh streams for a fresh viewer). */
	vg_zout_free(zs);
	vg_zout_free(zpix);
	zouts(&zs, &zpix);
	pair_init(&p, 8, 8);
	deflate_msg(zs, zpix, 0, (const guint8 *)"\0", 1, zeros, 1 << 20, &msg);
	g_assert_cmpint(vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply), ==, VG_ERANGE);
	vg_zout_free(zs);
	vg_zout_free(zpix);
	vg_writer_clear(&msg);
	g_free(zeros);
	pair_clear(&p);
}

/* A document of tiles, scrolled: each column shows items first .. of a
 * list of (height, pattern), as many as fit, so that every update repeats
 * most of an earlier one's segments, shifted. Column c scrolls on every
 * update when c is even, and flips between two positions every third
 * update when c is odd, so repeats also reach back past the last update. */
static size_t scroll_update(pair *p, const guint32 *heights, const guint32 *patterns, size_t n_items,
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

			paint_tile(p->server_fb, r, patterns[i]);
			out[n++] = seg_of(p->server_fb, r, VG_ORIENT_ROWS);
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

/* Heavy repetition: most fingerprinted segments travel inside REPEATs,
 * and the viewer ends every update with the server's pixels, without a
 * repair. */
static void repeat_round_trip(bool recent)
{
	GRand *rng = g_rand_new_with_seed(31);
	guint32 heights[97], patterns[97];
	vg_segdesc segs[4096];
	vg_sender_stats ss;
	vg_receiver_stats rs;
	pair p;
	int update;

	make_document(rng, heights, patterns, G_N_ELEMENTS(heights));
	pair_init_without(&p, 96, 200, recent ? NULL : &test_no_repeat_recent);
	for (update = 0; update < 120; update++) {
		size_t n = scroll_update(&p, heights, patterns, G_N_ELEMENTS(heights), update, segs);

		g_assert_cmpint(exchange(&p, segs, n), ==, 0);
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
	g_assert_cmpint(send_segs(&p, segs, 0, NULL), ==, 0);
	{
		size_t n = scroll_update(&p, heights, patterns, G_N_ELEMENTS(heights), update, segs);
		uint64_t before = ss.repeats;

		g_assert_cmpint(exchange(&p, segs, n), ==, 0);
		g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
		vg_sender_get_stats(p.s, &ss);
		g_assert_cmpuint(ss.repeats, >, before);
	}
	pair_clear(&p);
	g_rand_free(rng);
}

/* With REPEAT offsets by recency and without (an older viewer). */
static void test_repeat_round_trip(void)
{
	repeat_round_trip(true);
	repeat_round_trip(false);
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

/* A REPEAT by recency from a server that offered it: value 17 names the
 * newest item (the first update's bottom segment, or, within the update,
 * the REPEAT just drawn), so both halves end with the bottom's colour.
 * A viewer that did not take recency reads 17 as 9 before the window's
 * start: out of range. So does a viewer whose server did not offer it. */
static void test_repeat_recent(void)
{
	static const guint8 first[] = { 1, 0, 0, 8, 8, 0, 2, 16, 16 };
	static const guint8 first_pix[] = { 2, 0, 1, 2, 3, 2, 0, 4, 5, 6 };
	static const guint8 newest_twice[] = { 1, 0, 0, 8, 8, 0, 2, 7, 17, 7, 17 };
	vg_pixbuf *want = vg_pixbuf_new(8, 8);
	int mode;

	/* 0: recency; 1: a viewer without it; 2: a server that did not offer it. */
	for (mode = 0; mode < 3; mode++) {
		vg_zout *zs, *zpix;
		vg_writer msg;
		pair p;
		int err;

		pair_init_without(&p, 8, 8, mode == 1 ? &test_no_repeat_recent : NULL);
		if (mode == 2) {
			vg_receiver_config rcfg;
			vg_writer hello;

			/* A new viewer and the HELLO of an older server. */
			vg_receiver_free(p.r);
			vg_receiver_config_init(&rcfg);
			rcfg.memory_budget = 16u << 20;
			if (test_coder == VG_CODER_ZLIB)
				rcfg.zstd_window_log = 0;
			g_assert_cmpint(vg_receiver_new(&rcfg, &p.r), ==, 0);
			vg_writer_init(&hello);
			vg_sender_hello(p.s, &hello);
			g_assert_true(hello.data[HELLO_FLAGS_AT] & VG_HELLO_RECENT);
			hello.data[HELLO_FLAGS_AT] &= (guint8)~VG_HELLO_RECENT;
			g_assert_cmpint(vg_receiver_handle(p.r, hello.data, hello.len, p.viewer_fb,
							   &p.reply), ==, 0);
			vg_writer_clear(&hello);
		}
		zouts(&zs, &zpix);
		vg_writer_init(&msg);
		deflate_msg(zs, zpix, 0, first, sizeof first, first_pix, sizeof first_pix, &msg);
		g_assert_cmpint(vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply), ==, 0);
		vg_pixbuf_copy_rect(want, p.viewer_fb, vg_rect_make(0, 4, 8, 4));
		vg_pixbuf_fill(want, vg_rect_make(0, 0, 8, 4), vg_pixbuf_row(want, 4)[0]);
		deflate_msg(zs, zpix, 0, newest_twice, sizeof newest_twice, NULL, 0, &msg);
		err = vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply);
		g_test_message("mode %d: %s", mode, vg_receiver_error_text(p.r));
		if (mode == 0) {
			g_assert_cmpint(err, ==, 0);
			g_assert_true(vg_pixbuf_equal(p.viewer_fb, want));
		} else {
			g_assert_cmpint(err, ==, VG_ERANGE);
		}
		vg_zout_free(zs);
		vg_zout_free(zpix);
		vg_writer_clear(&msg);
		pair_clear(&p);
	}
	vg_pixbuf_free(want);
}

/* The VIEWER HELLO takes recency when the HELLO offers it and the viewer
 * speaks it, and then the sender codes by it: a document scrolled over
 * many updates ends exact either way, REPEATs reaching back as far. */
static void test_repeat_recent_negotiation(void)
{
	int recent;

	for (recent = 1; recent >= 0; recent--) {
		GRand *rng = g_rand_new_with_seed(5);
		guint32 heights[61], patterns[61];
		vg_segdesc segs[2048];
		vg_sender_stats ss;
		vg_sender_config cfg;
		vg_receiver_config rcfg;
		greeting g;
		pair p;
		int update;

		make_document(rng, heights, patterns, G_N_ELEMENTS(heights));
		pair_init_without(&p, 64, 128, recent ? NULL : &test_no_repeat_recent);
		/* pair_init swallowed the VIEWER HELLO: a viewer set alike says
		 * its flags to another sender. */
		vg_sender_config_init(&cfg);
		vg_receiver_config_init(&rcfg);
		rcfg.repeat_recent = recent;
		greet(&g, &cfg, &rcfg);
		g_assert_cmpuint(!!(g.viewer_flags & VG_VHELLO_REPEAT_RECENT), ==, recent);
		greeting_clear(&g);
		for (update = 0; update < 60; update++) {
			size_t n = scroll_update(&p, heights, patterns, G_N_ELEMENTS(heights), update, segs);

			g_assert_cmpint(exchange(&p, segs, n), ==, 0);
			g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
		}
		vg_sender_get_stats(p.s, &ss);
		g_assert_cmpuint(ss.repeats, >, 0);
		pair_clear(&p);
		g_rand_free(rng);
	}
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
		pair p;
		int update;

		make_document(rng, heights, patterns, G_N_ELEMENTS(heights));
		pair_init_group(&p, 64, 160, widths[wi], 8);
		for (update = 0; update < 150; update++) {
			size_t n = scroll_update(&p, heights, patterns, G_N_ELEMENTS(heights), update, segs), k;

			for (k = 0; k < n; k++) {
				if (g_rand_int_range(rng, 0, 8))
					continue;
				plant_junk(&p, junk, rng, vg_fp_key(segs[k].hash, widths[wi]), segs[k].rect);
			}
			exchange(&p, segs, n);
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
		pair_clear(&p);
		g_rand_free(rng);
	}
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
		pair p;

		vg_pixbuf_fill(right, vg_pixbuf_rect(right), 0x00123456);
		vg_pixbuf_fill(junk, vg_pixbuf_rect(junk), 0x00654321);
		key = vg_fp_key(vg_seghash(right, VG_ORIENT_ROWS), VG_FP_BITS_DEFAULT);
		pair_init(&p, 8, 8);
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
		first_run(&plain, vg_rect_make(0, 0, 8, 8));
		vg_writer_u8(&plain, VG_ORIENT_ROWS);
		vg_writer_uleb(&plain, 1);
		vg_writer_uleb(&plain, 8 * 4 + VG_OP_FINGERPRINT);
		vg_writer_uint_be(&plain, 5, key);
		vg_writer_uleb(&plain, VG_OP_CHECK);
		zouts(&zs, &zpix);
		deflate_chunk(zs, plain.data, plain.len, &chunk);
		vg_writer_u8(&msg, VG_MSG_UPDATE);
		vg_writer_uleb(&msg, 1);
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
		pair_clear(&p);
		vg_pixbuf_free(right);
		vg_pixbuf_free(junk);
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
	static const guint8 first[] = { 1, 0, 0, 8, 8, 0, 2, 16, 16 };
	static const guint8 first_pix[] = { 2, 0, 1, 2, 3, 2, 0, 4, 5, 6 };
	static const struct repeat_case {
		const char *name;
		guint8 bytes[24];
		size_t n;
		unsigned group;
		int expect;
	} cases[] = {
		{ "well formed", { 1, 0, 0, 8, 8, 0, 2, 11, 0 }, 9, 20, 0 },
		{ "from the history", { 1, 0, 0, 8, 8, 0, 2, 11, 4 }, 9, 20, 0 },
		{ "longer than a group", { 1, 0, 0, 8, 8, 0, 2, 11, 0 }, 9, 1, 0 },
		{ "a check with no group", { 1, 0, 0, 8, 8, 0, 2, 11, 0, 2 }, 10, 20, VG_ECORRUPT },
		{ "count zero", { 1, 0, 0, 8, 8, 0, 1, 3, 0, 2 }, 10, 20, VG_ECORRUPT },
		{ "offset past the history", { 1, 0, 0, 8, 8, 0, 1, 7, 8, 2 }, 10, 20, VG_ERANGE },
		{ "offset before the window", { 1, 0, 0, 8, 8, 0, 1, 7, 1, 2 }, 10, 20, VG_ERANGE },
		{ "huge offset", { 1, 0, 0, 8, 8, 0, 1, 7, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				   0xff, 0x01, 2 }, 19, 20, VG_ERANGE },
		{ "huge negative offset", { 1, 0, 0, 8, 8, 0, 1, 7, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					    0xff, 0xff, 0x01, 2 }, 19, 20, VG_ERANGE },
		{ "huge count", { 1, 0, 0, 8, 8, 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				  0x01, 0, 2 }, 19, 20, VG_ECORRUPT },
		{ "count past the history", { 1, 0, 0, 8, 8, 0, 5, 23, 0, 2 }, 10, 20, VG_ERANGE },
		{ "second item past the history", { 1, 0, 0, 8, 8, 0, 2, 11, 6, 2 }, 10, 20, VG_ERANGE },
		{ "count past the run's segments", { 1, 0, 0, 8, 8, 0, 1, 11, 0, 2 }, 10, 20, VG_ECORRUPT },
		{ "lengths cross the run's end", { 1, 0, 0, 8, 6, 0, 2, 11, 0, 2 }, 10, 20, VG_ERANGE },
		{ "lengths short of the run's end", { 1, 0, 0, 8, 8, 0, 1, 7, 0, 2 }, 10, 20, VG_ECORRUPT },
	};
	size_t i;

	/* The same answers with and without offsets by recency: these
	 * offsets are all near the previous REPEAT's end, or far out. */
	for (i = 0; i < 2 * G_N_ELEMENTS(cases); i++) {
		vg_zout *zs, *zpix;
		vg_pixbuf *first_fb = vg_pixbuf_new(8, 8);
		vg_writer msg;
		pair p;
		int err;

		const struct repeat_case *c = &cases[i % G_N_ELEMENTS(cases)];

		test_no_repeat_recent = i >= G_N_ELEMENTS(cases);
		pair_init_group(&p, 8, 8, VG_FP_BITS_DEFAULT, c->group);
		zouts(&zs, &zpix);
		vg_writer_init(&msg);
		deflate_msg(zs, zpix, 0, first, sizeof first, first_pix, sizeof first_pix, &msg);
		g_assert_cmpint(vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply), ==, 0);
		vg_pixbuf_copy_rect(first_fb, p.viewer_fb, vg_pixbuf_rect(first_fb));
		deflate_msg(zs, zpix, c->expect ? 1 : 0, c->bytes, c->n, NULL, 0,
			    &msg);
		err = vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply);
		g_test_message("%s%s: %s", c->name, test_no_repeat_recent ? "" : " (recency)",
			       vg_receiver_error_text(p.r));
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
		pair_clear(&p);
	}
	test_no_repeat_recent = false;
}

/* REPEATs of segments of their own update: a LITERAL named again in the
 * same update, taken by a viewer that said so and refused (out of range)
 * by one that did not; a fingerprint not yet checked is never repeated
 * as drawn, but repaired. */
static void test_repeat_within(void)
{
	static const guint8 first[] = { 1, 0, 0, 8, 8, 0, 2, 16, 16 };
	static const guint8 first_pix[] = { 2, 0, 1, 2, 3, 2, 0, 4, 5, 6 };
	/* Window and history hold 2 items each: item 4 is this update's
	 * first. One run, two segments: a literal of the first colour,
	 * then REPEAT 1 at offset 4 (zigzag 8). */
	static const guint8 lit_then_repeat[] = { 1, 0, 0, 8, 8, 0, 2, 16, 7, 8 };
	static const guint8 lit_pix[] = { 2, 0, 1, 2, 3 };
	vg_pixbuf *want = vg_pixbuf_new(8, 8), *top = vg_pixbuf_new(8, 4);
	guint8 fp_then_repeat[32];
	uint64_t key;
	int within, k;

	vg_pixbuf_fill(want, vg_pixbuf_rect(want), VG_RGB(3, 2, 1));
	vg_pixbuf_fill(top, vg_pixbuf_rect(top), VG_RGB(3, 2, 1));
	key = vg_fp_key(vg_seghash(top, VG_ORIENT_ROWS), VG_FP_BITS_DEFAULT);
	/* The fingerprint of the first update's top segment, then a REPEAT
	 * of it, then the group's check (whose digest deflate_msg fakes). */
	{
		guint8 head[] = { 1, 0, 0, 8, 8, 0, 2, 17 };

		memcpy(fp_then_repeat, head, sizeof head);
		for (k = 0; k < 5; k++)
			fp_then_repeat[sizeof head + (size_t)k] = (guint8)(key >> (8 * (4 - k)));
		fp_then_repeat[sizeof head + 5] = 7;
		fp_then_repeat[sizeof head + 6] = 8;
		fp_then_repeat[sizeof head + 7] = 2;
	}
	for (within = 1; within >= 0; within--) {
		int round;

		for (round = 0; round < 2; round++) {
			vg_receiver_stats rs;
			vg_zout *zs, *zpix;
			vg_writer msg;
			pair p;
			int err;

			pair_init_without(&p, 8, 8, within ? NULL : &test_no_repeat_within);
			zouts(&zs, &zpix);
			vg_writer_init(&msg);
			deflate_msg(zs, zpix, 0, first, sizeof first, first_pix, sizeof first_pix, &msg);
			g_assert_cmpint(vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply),
					==, 0);
			if (round == 0)
				deflate_msg(zs, zpix, 0, lit_then_repeat, sizeof lit_then_repeat, lit_pix,
					    sizeof lit_pix, &msg);
			else
				deflate_msg(zs, zpix, 1, fp_then_repeat, 8 + 5 + 3, NULL, 0, &msg);
			err = vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply);
			g_test_message("within %d round %d: %s", within, round, vg_receiver_error_text(p.r));
			vg_receiver_get_stats(p.r, &rs);
			if (!within) {
				g_assert_cmpint(err, ==, VG_ERANGE);
			} else if (round == 0) {
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
			pair_clear(&p);
		}
	}
	vg_pixbuf_free(want);
	vg_pixbuf_free(top);
}

/* The sender names a segment it sent as pixels earlier in the update with
 * a REPEAT to a viewer that takes them, and with a fingerprint and check
 * to one that does not; both end exact. */
static void test_repeat_within_sender(void)
{
	int within;

	for (within = 1; within >= 0; within--) {
		vg_sender_stats st;
		vg_segdesc d[4];
		pair p;
		int k;

		pair_init_without(&p, 64, 64, within ? NULL : &test_no_repeat_within);
		/* Four columns: two of one pattern, two of another. */
		for (k = 0; k < 4; k++) {
			paint_tile(p.server_fb, vg_rect_make(16 * k, 0, 16, 64), (guint32)(k / 2) + 7);
			d[k] = seg_of(p.server_fb, vg_rect_make(16 * k, 0, 16, 64), VG_ORIENT_ROWS);
		}
		exchange(&p, d, 4);
		g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
		vg_sender_get_stats(p.s, &st);
		g_assert_cmpuint(st.literal_segments, ==, 2);
		g_assert_cmpuint(st.repeated_segments, ==, within ? 2 : 0);
		g_assert_cmpuint(st.checks, ==, within ? 0 : 1);
		pair_clear(&p);
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
 * answers on a known content hash (tests/test_seghash.c's 5x3 ramp). */
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

/* Peers of different ages: a viewer that does not offer zstd, and a
 * server that does not, both end up speaking zlib; the hellos say so. */
static void test_coder_negotiation(void)
{
	static const struct {
		int server_level;
		unsigned viewer_window;
		unsigned expect_window;
	} cases[] = {
		{ 9, 24, 24 }, /* both new: zstd, the viewer's window */
		{ 9, 0, 0 },   /* an older viewer: zlib, VIEWER HELLO version 1 */
		{ 0, 24, 0 },  /* an older server: no offer, zlib */
		{ 9, 20, 20 }, /* a small viewer window is honoured */
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		GRand *rng = g_rand_new_with_seed(3);
		vg_sender_config cfg;
		vg_receiver_config rcfg;
		vg_sender_stats ss;
		vg_receiver_stats rs;
		vg_segdesc segs[4096];
		pair p;
		int update;

		memset(&p, 0, sizeof p);
		vg_sender_config_init(&cfg);
		cfg.zstd_level = cases[i].server_level;
		vg_receiver_config_init(&rcfg);
		rcfg.memory_budget = 16u << 20;
		rcfg.zstd_window_log = cases[i].viewer_window;
		g_assert_cmpint(vg_sender_new(&cfg, &p.s), ==, 0);
		g_assert_cmpint(vg_receiver_new(&rcfg, &p.r), ==, 0);
		vg_writer_init(&p.wire);
		vg_writer_init(&p.reply);
		p.server_fb = vg_pixbuf_new(160, 120);
		p.viewer_fb = vg_pixbuf_new(160, 120);
		p.repair = vg_region_new();
		p.segs = g_array_new(FALSE, FALSE, sizeof(vg_segdesc));
		vg_sender_hello(p.s, &p.wire);
		g_assert_cmpint(vg_receiver_handle(p.r, p.wire.data, p.wire.len, p.viewer_fb, &p.reply), ==, 0);
		/* type, u16 length, kind, version */
		g_assert_cmpuint(p.reply.data[4], ==, cases[i].expect_window ? 2 : 1);
		g_assert_cmpint(vg_sender_handle(p.s, p.reply.data + 3, p.reply.len - 3, 160, 120, NULL), ==, 0);
		vg_writer_reset(&p.reply);
		for (update = 0; update < 60; update++) {
			size_t n = random_update(rng, &p, segs, 20);
			exchange(&p, segs, n);
			g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
		}
		vg_sender_get_stats(p.s, &ss);
		vg_receiver_get_stats(p.r, &rs);
		g_assert_cmpuint(ss.zstd_window_log, ==, cases[i].expect_window);
		g_assert_cmpuint(rs.zstd_window_log, ==, cases[i].expect_window);
		g_assert_cmpuint(rs.updates, ==, 60);
		pair_clear(&p);
		g_rand_free(rng);
	}
}

/* A pair whose sender takes the viewer's announced capabilities and codes
 * ahead of the VIEWER HELLO: the HELLO is handled by the viewer, whose
 * answer stays in p->reply until the first update has gone out. */
static void pair_init_ahead(pair *p, int server_level, unsigned viewer_window)
{
	vg_sender_config cfg;
	vg_receiver_config rcfg;
	int32_t caps[VG_CAPS_COUNT];

	memset(p, 0, sizeof *p);
	vg_sender_config_init(&cfg);
	cfg.zstd_level = server_level;
	cfg.pixmodel = test_pixmodel;
	vg_receiver_config_init(&rcfg);
	rcfg.memory_budget = 16u << 20;
	rcfg.zstd_window_log = viewer_window;
	g_assert_cmpint(vg_sender_new(&cfg, &p->s), ==, 0);
	g_assert_cmpint(vg_receiver_new(&rcfg, &p->r), ==, 0);
	vg_writer_init(&p->wire);
	vg_writer_init(&p->reply);
	p->server_fb = vg_pixbuf_new(160, 120);
	p->viewer_fb = vg_pixbuf_new(160, 120);
	p->repair = vg_region_new();
	p->segs = g_array_new(FALSE, FALSE, sizeof(vg_segdesc));
	vg_receiver_capabilities(p->r, caps);
	g_assert_cmpuint((guint32)caps[0] & 0xffffff00u, ==, VG_CAPS_FLAGS);
	g_assert_cmpuint((guint32)caps[1] & 0xffffff00u, ==, VG_CAPS_WINDOW);
	g_assert_cmpuint((guint32)caps[2] & 0xffffff00u, ==, VG_CAPS_CAPACITY);
	/* 16 MB of memory: 2^24. */
	g_assert_cmpint(caps[2] & 0xff, ==, 24);
	g_assert_cmpint(vg_sender_assume_viewer(p->s, caps[0] & 0xff, caps[1] & 0xff, caps[2] & 0xff), ==, 0);
	g_assert_true(vg_sender_has_viewer_hello(p->s));
	g_assert_false(vg_sender_viewer_named(p->s));
	vg_sender_hello(p->s, &p->wire);
	/* kind, version, 16-byte identity, width, group, flags */
	g_assert_cmpuint(p->wire.data[20] & VG_HELLO_AHEAD, ==, VG_HELLO_AHEAD);
	g_assert_cmpint(vg_receiver_handle(p->r, p->wire.data, p->wire.len, p->viewer_fb, &p->reply), ==, 0);
}

/* Coded ahead: the first updates go out before the VIEWER HELLO arrives,
 * for every coder the two ends can agree on; the VIEWER HELLO then
 * confirms, and everything ends exact. */
static void test_coded_ahead(void)
{
	static const struct {
		int server_level;
		unsigned viewer_window;
		unsigned expect_window;
	} cases[] = {
		{ 9, 24, 24 },
		{ 9, 0, 0 },
		{ 0, 24, 0 },
		{ 9, 20, 20 },
	};
	size_t i;

	/* Each case with and without the pixel model offered: the viewer
	 * announced it; a server that does not offer it codes without. */
	for (i = 0; i < 2 * G_N_ELEMENTS(cases); i++) {
		GRand *rng = g_rand_new_with_seed(5);
		vg_sender_stats ss;
		vg_receiver_stats rs;
		vg_segdesc segs[4096];
		pair p;
		int update;

		test_pixmodel = i >= G_N_ELEMENTS(cases);
		pair_init_ahead(&p, cases[i % G_N_ELEMENTS(cases)].server_level,
				cases[i % G_N_ELEMENTS(cases)].viewer_window);
		/* The VIEWER HELLO is in p->reply: the first exchange sends
		 * an update and only then hands it to the sender. */
		for (update = 0; update < 40; update++) {
			size_t n = random_update(rng, &p, segs, 20);
			exchange(&p, segs, n);
			g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
			g_assert_true(vg_sender_viewer_named(p.s));
		}
		g_assert_true(vg_sender_coded_ahead(p.s));
		vg_sender_get_stats(p.s, &ss);
		vg_receiver_get_stats(p.r, &rs);
		g_assert_true(rs.coded_ahead);
		g_assert_cmpuint(ss.zstd_window_log, ==, cases[i % G_N_ELEMENTS(cases)].expect_window);
		g_assert_cmpuint(rs.zstd_window_log, ==, cases[i % G_N_ELEMENTS(cases)].expect_window);
		g_assert_cmpuint(ss.fingerprint_segments, >, 0);
		if (test_pixmodel)
			g_assert_cmpuint(ss.model_updates, >, 0);
		else
			g_assert_cmpuint(ss.model_updates, ==, 0);
		pair_clear(&p);
		g_rand_free(rng);
	}
	test_pixmodel = false;
}

/* The pixel model: offered by the HELLO (bit 4), taken by the VIEWER
 * HELLO (bit 7) of a viewer that speaks it, then used for every update's
 * literal pixels; a viewer that does not take it gets the literal methods;
 * a sender that did not offer it refuses a VIEWER HELLO that takes it. */
static void test_pixmodel_negotiation(void)
{
	int k;

	/* 0: offered and taken; 1: offered, not taken; 2: not offered. */
	for (k = 0; k < 3; k++) {
		GRand *rng = g_rand_new_with_seed(21);
		vg_sender_config cfg;
		vg_receiver_config rcfg;
		vg_sender_stats ss;
		vg_segdesc segs[4096];
		greeting g;
		pair p;
		int update;

		vg_sender_config_init(&cfg);
		cfg.pixmodel = k != 2;
		vg_receiver_config_init(&rcfg);
		rcfg.pixmodel = k != 1;
		greet(&g, &cfg, &rcfg);
		g_assert_cmpuint(!!(g.hello_flags & VG_HELLO_PIXMODEL), ==, k != 2);
		g_assert_cmpuint(!!(g.viewer_flags & VG_VHELLO_PIXMODEL), ==, k == 0);
		if (k == 2) {
			/* Taking what was not offered: refused. */
			g.reply.data[VHELLO_FLAGS_AT] |= VG_VHELLO_PIXMODEL;
			g_assert_cmpint(vg_sender_handle(g.s, g.reply.data + 3, g.reply.len - 3, 64, 64,
							 NULL), ==, VG_EPROTO);
		}
		greeting_clear(&g);

		test_pixmodel = k != 2;
		pair_init_without(&p, 96, 80, k == 1 ? &test_no_pixmodel : NULL);
		test_pixmodel = false;
		for (update = 0; update < 30; update++) {
			size_t n = random_update(rng, &p, segs, 20);

			g_assert_cmpint(exchange(&p, segs, n), ==, 0);
			g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
		}
		vg_sender_get_stats(p.s, &ss);
		g_assert_cmpuint(ss.literal_segments, >, 0);
		if (k == 0)
			g_assert_cmpuint(ss.model_updates, >, 0);
		else
			g_assert_cmpuint(ss.model_updates, ==, 0);
		/* The refinement planner's estimate: with the model, its bytes a
		 * pixel so far; a rectangle outside the frame is refused. */
		{
			vg_rect all = vg_pixbuf_rect(p.server_fb), outside = vg_rect_make(90, 0, 16, 8);
			uint64_t est = 0, per = 3 * ss.literal_wire_bytes * 96 * 80 / ss.literal_bytes;

			g_assert_cmpint(vg_sender_estimate(p.s, p.server_fb, &all, 1, &est), ==, 0);
			g_assert_cmpuint(est, >, 0);
			if (k == 0)
				g_assert_cmpuint(est, <=, per + 1);
			g_assert_cmpint(vg_sender_estimate(p.s, p.server_fb, &outside, 1, &est), ==,
					VG_ERANGE);
		}
		pair_clear(&p);
		g_rand_free(rng);
	}
}

/* What may not happen around coding ahead: capabilities out of range, a
 * VIEWER HELLO that says other than they did, a second one, and a HELLO
 * coded ahead to a viewer that announced nothing. */
static void test_coded_ahead_refusals(void)
{
	vg_receiver_config rcfg;
	vg_receiver *plain;
	vg_writer body;
	vg_pixbuf *fb;
	pair p;

	pair_init(&p, 64, 64);
	/* After the VIEWER HELLO it is too late. */
	g_assert_cmpint(vg_sender_assume_viewer(p.s, 0, 24, 20), ==, VG_EPROTO);
	pair_clear(&p);

	pair_init_ahead(&p, 9, 24);
	vg_sender_free(p.s);
	{
		vg_sender_config cfg;

		vg_sender_config_init(&cfg);
		g_assert_cmpint(vg_sender_new(&cfg, &p.s), ==, 0);
	}
	g_assert_cmpint(vg_sender_assume_viewer(p.s, VG_VHELLO_EPHEMERAL, 24, 20), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_assume_viewer(p.s, VG_VHELLO_ZSTD, 24, 20), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_assume_viewer(p.s, 0, 19, 20), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_assume_viewer(p.s, 0, 28, 20), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_assume_viewer(p.s, 0, 24, 64), ==, VG_EPROTO);
	g_assert_false(vg_sender_has_viewer_hello(p.s));
	/* Announced without MOVES; the viewer's VIEWER HELLO (in p.reply)
	 * takes them: refused. */
	g_assert_cmpint(vg_sender_assume_viewer(p.s, VG_VHELLO_INDEXED | VG_VHELLO_REPEAT_WITHIN |
							   VG_VHELLO_APPROX, 24, 24), ==, 0);
	g_assert_cmpint(vg_sender_handle(p.s, p.reply.data + 3, p.reply.len - 3, 160, 120, NULL), ==,
			VG_EPROTO);
	pair_clear(&p);

	/* The same VIEWER HELLO twice. */
	pair_init_ahead(&p, 9, 24);
	g_assert_cmpint(vg_sender_handle(p.s, p.reply.data + 3, p.reply.len - 3, 160, 120, NULL), ==, 0);
	g_assert_cmpint(vg_sender_handle(p.s, p.reply.data + 3, p.reply.len - 3, 160, 120, NULL), ==,
			VG_EPROTO);

	/* A viewer that announced nothing refuses a HELLO coded ahead. */
	vg_receiver_config_init(&rcfg);
	rcfg.memory_budget = 16u << 20;
	g_assert_cmpint(vg_receiver_new(&rcfg, &plain), ==, 0);
	vg_writer_init(&body);
	fb = vg_pixbuf_new(160, 120);
	g_assert_cmpint(vg_receiver_handle(plain, p.wire.data, p.wire.len, fb, &body), ==, VG_EPROTO);
	vg_pixbuf_free(fb);
	vg_writer_clear(&body);
	vg_receiver_free(plain);
	pair_clear(&p);
}

/* The server refuses a VIEWER HELLO that claims zstd it did not offer, or
 * a window outside the protocol's; the viewer refuses a zstd frame whose
 * window is larger than the one it announced. */
static void test_coder_refusals(void)
{
	guint8 hello[1 + 1 + 16 + 8 + 1 + 8 + 1] = { VG_VMSG_HELLO, 2 };
	vg_sender_config cfg;
	vg_sender *s;
	vg_zout *big, *zpix;
	vg_writer msg;
	guint8 plain[64] = { 0 };
	pair p;

	hello[26] = VG_VHELLO_ZSTD;
	hello[35] = 24;
	vg_sender_config_init(&cfg);
	cfg.zstd_level = 0;
	g_assert_cmpint(vg_sender_new(&cfg, &s), ==, 0);
	g_assert_cmpint(vg_sender_handle(s, hello, sizeof hello, 8, 8, NULL), ==, VG_EPROTO);
	vg_sender_free(s);
	cfg.zstd_level = 9;
	hello[35] = 31;
	g_assert_cmpint(vg_sender_new(&cfg, &s), ==, 0);
	g_assert_cmpint(vg_sender_handle(s, hello, sizeof hello, 8, 8, NULL), ==, VG_EPROTO);
	vg_sender_free(s);
	hello[35] = 24;
	g_assert_cmpint(vg_sender_new(&cfg, &s), ==, 0);
	g_assert_cmpint(vg_sender_handle(s, hello, sizeof hello - 1, 8, 8, NULL), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_handle(s, hello, sizeof hello, 8, 8, NULL), ==, 0);
	vg_sender_free(s);

	test_coder = VG_CODER_ZSTD;
	pair_init(&p, 8, 8);
	g_assert_cmpint(vg_zout_new(VG_CODER_ZSTD, 3, VG_ZSTD_WINDOW_LOG_MAX, &big), ==, 0);
	g_assert_cmpint(vg_zout_new(VG_CODER_ZSTD, 3, VG_ZSTD_WINDOW_LOG_MIN, &zpix), ==, 0);
	vg_writer_init(&msg);
	deflate_msg(big, zpix, 0, plain, sizeof plain, NULL, 0, &msg);
	g_assert_cmpint(vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply), ==, VG_EZLIB);
	vg_writer_clear(&msg);
	vg_zout_free(big);
	vg_zout_free(zpix);
	pair_clear(&p);
}

/* Version 2's run rectangles: differences that land inside the frame
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
		pair p;
		int err;

		pair_init(&p, 8, 8);
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
		zouts(&zs, &zpix);
		deflate_msg(zs, zpix, 0, plain.data, plain.len, both.data, both.len, &msg);
		err = vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply);
		g_test_message("%s: %s", cases[i].name, err ? vg_receiver_error_text(p.r) : "drawn");
		g_assert_cmpint(err, ==, cases[i].expect);
		vg_zout_free(zs);
		vg_zout_free(zpix);
		vg_writer_clear(&plain);
		vg_writer_clear(&both);
		vg_writer_clear(&msg);
		pair_clear(&p);
	}
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
	pair p;
	int32_t x, y;
	int i;

	pair_init(&p, 128, 64);
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
		d[i] = seg_of(p.server_fb, rects[i], VG_ORIENT_ROWS);
		g_assert_true(vg_sender_is_miss(p.s, &d[i]));
	}
	g_assert_cmpint(send_segs(&p, d, 1, NULL), ==, 0);
	vg_receiver_get_stats(p.r, &st);
	g_assert_cmpuint(st.approx_pixels, ==, 33 * 17);
	g_assert_cmpint(send_segs(&p, &d[1], 1, NULL), ==, 0);
	vg_receiver_get_stats(p.r, &st);
	g_assert_cmpuint(st.approx_pixels, ==, 0);
	g_assert_false(vg_sender_is_miss(p.s, &d[0]));
	/* The streams stay in step after an APPROX: a later update decodes. */
	g_assert_cmpint(send_segs(&p, d, 2, NULL), ==, 0);
	for (i = 0; i < 2; i++) {
		vg_pixbuf a = vg_pixbuf_view(p.viewer_fb, rects[i]);
		vg_pixbuf b = vg_pixbuf_view(p.server_fb, rects[i]);

		g_assert_true(vg_pixbuf_equal(&a, &b));
	}
	pair_clear(&p);
	vg_pixbuf_free(want);
	vg_pixbuf_free(small);
	g_rand_free(rng);
}

/* Opens a sender and a receiver (approximations as told) past the hellos. */
static void approx_pair(bool approx, vg_sender **s, vg_receiver **rv, vg_pixbuf *fb)
{
	vg_sender_config cfg;
	vg_receiver_config rcfg;
	vg_writer w, reply;

	vg_sender_config_init(&cfg);
	vg_receiver_config_init(&rcfg);
	rcfg.approx = approx;
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

/* A viewer that did not ask for approximations gets none and refuses one;
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

/* Literal blocks of the connection's colour table go only to a viewer
 * that takes them, and the picture is exact either way, over updates
 * that add colours and reuse them. */
static void test_indexed_negotiation(void)
{
	int on;

	for (on = 1; on >= 0; on--) {
		GRand *rng = g_rand_new_with_seed(9);
		vg_sender_stats st;
		pair p;
		int round;

		pair_init_without(&p, 64, 64, on ? NULL : &test_no_indexed);
		for (round = 0; round < 4; round++) {
			vg_rect band = vg_rect_make(0, 16 * round, 64, 16);
			vg_segdesc d[4];
			int32_t x, y, k;

			/* Anti-aliased text, as it were: white, and a quarter
			 * of the pixels grey levels, too many for a palette. */
			for (y = band.y; y < band.y + band.h; y++)
				for (x = 0; x < 64; x++) {
					int g = g_rand_int_range(rng, 0, 4) ? 255 : g_rand_int_range(rng, 0, 256);

					vg_pixbuf_row(p.server_fb, y)[x] = VG_RGB(g, g, g);
				}
			for (k = 0; k < 4; k++)
				d[k] = seg_of(p.server_fb, vg_rect_make(16 * k, band.y, 16, 16), VG_ORIENT_ROWS);
			exchange(&p, d, 4);
			g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
		}
		vg_sender_get_stats(p.s, &st);
		if (on)
			g_assert_cmpuint(st.literal_pixels[VG_LIT_INDEXED], ==, 4 * 64 * 16);
		else
			g_assert_cmpuint(st.literal_pixels[VG_LIT_INDEXED], ==, 0);
		pair_clear(&p);
		g_rand_free(rng);
	}
}

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
	pair p;
	int32_t x, y;

	pair_init(&p, 64, 64);
	g_assert_true(vg_sender_takes_moves(p.s));
	for (y = 0; y < 64; y++)
		for (x = 0; x < 64; x++)
			vg_pixbuf_row(p.server_fb, y)[x] = g_rand_int(rng) & 0xffffff;
	top = seg_of(p.server_fb, vg_pixbuf_rect(p.server_fb), VG_ORIENT_ROWS);
	exchange(&p, &top, 1);
	g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
	/* Scrolled down by 8 rows, 8 new rows on top. */
	before = vg_pixbuf_new(64, 64);
	vg_pixbuf_copy(before, 0, 0, p.server_fb);
	for (y = 8; y < 64; y++)
		memcpy(vg_pixbuf_row(p.server_fb, y), vg_pixbuf_row(before, y - 8), 64 * 4);
	for (y = 0; y < 8; y++)
		for (x = 0; x < 64; x++)
			vg_pixbuf_row(p.server_fb, y)[x] = g_rand_int(rng) & 0xffffff;
	top = seg_of(p.server_fb, vg_rect_make(0, 0, 64, 8), VG_ORIENT_ROWS);
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
	pair_clear(&p);
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
	g_assert_cmpint(vg_moves_split(prev, cur, &all, 1, &mr, moves, rest), ==, 0);
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
	/* No offset, no moves; a still offset is refused by the finder. */
	mr.offset = 0;
	g_assert_cmpint(vg_moves_split(prev, cur, &all, 1, &mr, moves, rest), ==, 0);
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
	g_assert_cmpint(vg_moves_split(prev, cur, &all, 1, &mr, moves, rest), ==, 0);
	g_assert_cmpuint(moves->len, ==, 0);
	g_assert_cmpuint(rest->len, ==, 1);
	all = vg_rect_make(0, 0, 48, 16);
	g_assert_cmpint(vg_moves_split(prev, cur, &all, 1, &mr, moves, rest), ==, 0);
	g_assert_cmpuint(moves->len, ==, 1);
	g_assert_cmpuint(rest->len, ==, 0);
	g_array_free(moves, TRUE);
	g_array_free(rest, TRUE);
	vg_pixbuf_free(prev);
	vg_pixbuf_free(cur);
	vg_pixbuf_free(shown);
	g_rand_free(rng);
}

/* Runs a test with the pairs agreeing on one coder, and on the pixel
 * model or not. */
typedef struct {
	vg_coder coder;
	bool pixmodel;
	void (*fn)(void);
} coder_case;

static void with_coder(gconstpointer data)
{
	const coder_case *c = data;

	test_coder = c->coder;
	test_pixmodel = c->pixmodel;
	c->fn();
	test_coder = VG_CODER_ZSTD;
	test_pixmodel = false;
}

static void add_one(const char *name, vg_coder coder, void (*fn)(void))
{
	coder_case *c = g_new(coder_case, 1); /* lives as long as the run */
	char *path = g_strdup_printf("/protocol/%s/%s", coder == VG_CODER_ZSTD ? "zstd" : "zlib", name);

	c->coder = coder;
	c->pixmodel = false;
	c->fn = fn;
	g_test_add_data_func_full(path, c, with_coder, g_free);
	g_free(path);
}

static void add_both(const char *name, void (*fn)(void))
{
	add_one(name, VG_CODER_ZSTD, fn);
	add_one(name, VG_CODER_ZLIB, fn);
}

/* Both coders, and the pixel model (with zstd for the structure). */
static void add_all(const char *name, void (*fn)(void))
{
	coder_case *c = g_new(coder_case, 1);
	char *path = g_strdup_printf("/protocol/pixmodel/%s", name);

	add_both(name, fn);
	c->coder = VG_CODER_ZSTD;
	c->pixmodel = true;
	c->fn = fn;
	g_test_add_data_func_full(path, c, with_coder, g_free);
	g_free(path);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	add_all("round-trip", test_round_trip);
	add_all("reset", test_reset);
	add_all("forced-collisions", test_forced_collisions);
	add_all("cache-loss", test_cache_loss);
	add_all("repeat-round-trip", test_repeat_round_trip);
	add_all("repeat-collisions", test_repeat_collisions);
	add_all("fingerprint-collision", test_fingerprint_collision);
	add_both("inflate-bomb", test_inflate_bomb);
	add_all("approx-round-trip", test_approx_round_trip);
	add_all("move-round-trip", test_move_round_trip);
	add_both("indexed-negotiation", test_indexed_negotiation);
	g_test_add_func("/protocol/moves-find", test_moves_find);
	/* Hand-made structures in version 1's absolute rectangles. */
	add_one("malformed", VG_CODER_ZLIB, test_malformed);
	add_one("repeat-malformed", VG_CODER_ZLIB, test_repeat_malformed);
	add_one("repeat-within", VG_CODER_ZLIB, test_repeat_within);
	add_one("recent-codes", VG_CODER_ZLIB, test_recent_codes);
	add_one("repeat-recent", VG_CODER_ZLIB, test_repeat_recent);
	add_all("repeat-recent-negotiation", test_repeat_recent_negotiation);
	add_all("repeat-within-sender", test_repeat_within_sender);
	add_one("run-deltas", VG_CODER_ZSTD, test_run_deltas);
	g_test_add_func("/protocol/coder-negotiation", test_coder_negotiation);
	g_test_add_func("/protocol/coder-refusals", test_coder_refusals);
	g_test_add_func("/protocol/coded-ahead", test_coded_ahead);
	g_test_add_func("/protocol/coded-ahead-refusals", test_coded_ahead_refusals);
	g_test_add_func("/protocol/pixmodel-negotiation", test_pixmodel_negotiation);
	g_test_add_func("/protocol/sender-refuses", test_sender_refuses);
	g_test_add_func("/protocol/ping-pong", test_ping_pong);
	g_test_add_func("/protocol/approx-refusals", test_approx_refusals);
	g_test_add_func("/protocol/bad-stream", test_bad_stream);
	g_test_add_func("/protocol/zstream-limit", test_zstream_limit);
	g_test_add_func("/protocol/sha1-vectors", test_sha1_vectors);
	g_test_add_func("/protocol/sha1-more-vectors", test_sha1_more_vectors);
	g_test_add_func("/protocol/fp-key-vectors", test_fp_key_vectors);
	return g_test_run();
}
