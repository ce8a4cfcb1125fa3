/* The HELLOs of protocol 1.0: versions, the viewer's window, capacity
 * and flags, coding ahead of the VIEWER HELLO, refusals; PING and PONG. */
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_reader.h"
#include "common/vg_seghash.h"
#include "fingerprint/codec/vg_approx.h"
#include "fingerprint/codec/vg_literal.h"
#include "fingerprint/codec/vg_sha1.h"
#include "fingerprint/codec/vg_zstream.h"
#include "fingerprint/codec/vg_pixmodel.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/proto/vg_receiver.h"
#include "fingerprint/proto/vg_sender.h"
#include "segment2d/vg_moves.h"
#include "tests/vg_protopair.h"

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
	g_assert_cmpuint(hello.len, >, VG_PAIR_HELLO_FLAGS_AT);
	g->hello_flags = hello.data[VG_PAIR_HELLO_FLAGS_AT];
	g_assert_cmpint(vg_receiver_handle(r, hello.data, hello.len, fb, &g->reply), ==, 0);
	g_assert_cmpuint(g->reply.len, >, VG_PAIR_VHELLO_FLAGS_AT);
	g->viewer_flags = g->reply.data[VG_PAIR_VHELLO_FLAGS_AT];
	vg_writer_clear(&hello);
	vg_receiver_free(r);
	vg_pixbuf_free(fb);
}

static void greeting_clear(greeting *g)
{
	vg_writer_clear(&g->reply);
	vg_sender_free(g->s);
}

static void test_sender_refuses(void)
{
	vg_pair p;
	vg_segdesc d = { 0 };
	vg_region *rep = vg_region_new();
	static const guint8 repair_outside[] = { VG_VMSG_REPAIR, 1, 10, 10, 7, 1 };
	static const guint8 repair_many[] = { VG_VMSG_REPAIR, 0xff, 0xff, 0x03 };
	static const guint8 repair_ok[] = { VG_VMSG_REPAIR, 1, 1, 2, 3, 4 };
	static const guint8 repair_none[] = { VG_VMSG_REPAIR, 0 };
	vg_sender_config bad;

	vg_pair_init(&p, 16, 16);
	d.rect = vg_rect_make(10, 10, 7, 1);
	g_assert_cmpint(vg_pair_send(&p, &d, 1, NULL), ==, VG_ERANGE);
	d.rect = vg_rect_make(0, 0, 0, 1);
	g_assert_cmpint(vg_pair_send(&p, &d, 1, NULL), ==, VG_ERANGE);
	g_assert_cmpint(vg_sender_handle(p.s, (const guint8 *)"\x09", 1, 16, 16, rep), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_handle(p.s, (const guint8 *)"\x01\x10", 2, 16, 16, rep), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_handle(p.s, NULL, 0, 16, 16, rep), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_handle(p.s, repair_outside, sizeof repair_outside, 16, 16, rep), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_handle(p.s, repair_many, sizeof repair_many, 16, 16, rep), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_handle(p.s, repair_none, sizeof repair_none, 16, 16, rep), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_handle(p.s, repair_ok, 5, 16, 16, rep), ==, VG_EPROTO);
	g_assert_cmpint(vg_sender_handle(p.s, repair_ok, sizeof repair_ok, 16, 16, rep), ==, 0);
	g_assert_cmpint(vg_region_area(rep), ==, 12);
	vg_sender_config_init(&bad);
	bad.fp_bits = 7;
	g_assert_cmpint(vg_sender_new(&bad, &p.s), ==, VG_EINVAL);
	vg_region_free(rep);
	vg_pair_clear(&p);
}

/* PING from the receiver, PONG from the sender, token intact; both sides
 * refuse them out of order or malformed. */
static void test_ping_pong(void)
{
	vg_pair p;
	vg_sender_config scfg;
	vg_receiver_config rcfg;
	vg_sender *fresh_s;
	vg_receiver *fresh_r;
	vg_writer w;
	uint32_t token = 0;
	static const guint8 ping_short[] = { VG_VMSG_PING, 1, 2, 3 };
	static const guint8 pong_long[] = { VG_MSG_PONG, 1, 2, 3, 4, 5 };

	vg_pair_init(&p, 16, 16);
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
	vg_pair_clear(&p);
}

/* The viewer's side of the HELLO: a version other than 1.0 is refused
 * before anything else is read, naming both versions; a HELLO cut short,
 * with bytes left over, unknown flags, a width or group out of range is
 * refused too; an UPDATE before it is out of order. */
static void test_bad_hello(void)
{
	vg_receiver *r;
	vg_receiver_config cfg;
	vg_writer reply;
	vg_pixbuf *fb = vg_pixbuf_new(8, 8);
	static const guint8 garbage[] = { VG_MSG_UPDATE, 0xde, 0xad, 0xbe, 0xef, 0x00 };
	guint8 hello[22] = { VG_MSG_HELLO, VG_PROTO_VERSION, [18] = 40, [19] = 20 };
	static const struct {
		int at, value;   /* a byte changed; at -1: the length only */
		size_t len;
		int expect;
		const char *text;
	} cases[] = {
		{ 1, 1, 21, VG_ENOTSUP, "server speaks protocol version 0.1, this viewer 1.0" },
		{ 1, 2, 5, VG_ENOTSUP, "version 0.2" },
		{ 1, 0x20, 21, VG_ENOTSUP, "version 2.0" },
		{ 1, 0x11, 21, VG_ENOTSUP, "version 1.1" },
		{ -1, 0, 20, VG_ETRUNC, "hello" },
		{ -1, 0, 22, VG_ECORRUPT, "bytes left over" },
		{ 20, 0x04, 21, VG_ECORRUPT, "unknown flags" },
		{ 20, 0x80, 21, VG_ECORRUPT, "unknown flags" },
		{ 18, 65, 21, VG_ERANGE, "fingerprint width" },
		{ 18, 7, 21, VG_ERANGE, "fingerprint width" },
		{ 19, 0, 21, VG_ERANGE, "group size" },
	};
	size_t i;

	vg_writer_init(&reply);
	vg_receiver_config_init(&cfg);
	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		guint8 bad[sizeof hello];

		memcpy(bad, hello, sizeof hello);
		if (cases[i].at >= 0)
			bad[cases[i].at] = (guint8)cases[i].value;
		g_assert_cmpint(vg_receiver_new(&cfg, &r), ==, 0);
		g_assert_cmpint(vg_receiver_handle(r, bad, cases[i].len, fb, &reply), ==, cases[i].expect);
		g_test_message("%s", vg_receiver_error_text(r));
		g_assert_nonnull(strstr(vg_receiver_error_text(r), cases[i].text));
		g_assert_cmpuint(reply.len, ==, 0);
		vg_receiver_free(r);
	}
	g_assert_cmpint(vg_receiver_new(&cfg, &r), ==, 0);
	g_assert_cmpint(vg_receiver_handle(r, garbage, sizeof garbage, fb, &reply), ==, VG_EPROTO);
	g_assert_cmpint(vg_receiver_handle(r, NULL, 0, fb, &reply), ==, VG_ETRUNC);
	/* The well-formed one is answered by a VIEWER HELLO of 1.0. */
	g_assert_cmpint(vg_receiver_handle(r, hello, 21, fb, &reply), ==, 0);
	g_assert_cmpuint(reply.len, ==, 3 + 1 + 1 + 16 + 8 + 1 + 8 + 1);
	g_assert_cmpuint(reply.data[4], ==, VG_PROTO_VERSION);
	vg_receiver_free(r);
	vg_writer_clear(&reply);
	vg_pixbuf_free(fb);
}

/* The viewer's zstd window: the pixel stream's is the smaller of the
 * viewer's and the server's, both ends say so, and updates end exact. */
static void test_window(void)
{
	static const struct {
		unsigned server_window, viewer_window, expect_window;
	} cases[] = {
		{ 24, 24, 24 },
		{ 24, 20, 20 }, /* a small viewer window is honoured */
		{ 21, 27, 21 }, /* the server may choose less */
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		GRand *rng = g_rand_new_with_seed(3);
		vg_sender_config cfg;
		vg_receiver_config rcfg;
		vg_sender_stats ss;
		vg_receiver_stats rs;
		vg_segdesc segs[4096];
		vg_pair p;
		int update;

		memset(&p, 0, sizeof p);
		vg_sender_config_init(&cfg);
		cfg.zstd_window_log = cases[i].server_window;
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
		/* type, u16 length, kind, version ... the window last */
		g_assert_cmpuint(p.reply.data[4], ==, VG_PROTO_VERSION);
		g_assert_cmpuint(p.reply.data[p.reply.len - 1], ==, cases[i].viewer_window);
		g_assert_cmpint(vg_sender_handle(p.s, p.reply.data + 3, p.reply.len - 3, 160, 120, NULL), ==, 0);
		vg_writer_reset(&p.reply);
		for (update = 0; update < 60; update++) {
			size_t n = vg_pair_random_update(rng, &p, segs, 20);
			vg_pair_exchange(&p, segs, n);
			g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
		}
		vg_sender_get_stats(p.s, &ss);
		vg_receiver_get_stats(p.r, &rs);
		g_assert_cmpuint(ss.zstd_window_log, ==, cases[i].expect_window);
		g_assert_cmpuint(rs.zstd_window_log, ==, cases[i].viewer_window);
		g_assert_cmpuint(rs.updates, ==, 60);
		vg_pair_clear(&p);
		g_rand_free(rng);
	}
}

/* A pair whose sender takes the viewer's announced capabilities and codes
 * ahead of the VIEWER HELLO: the HELLO is handled by the viewer, whose
 * answer stays in p->reply until the first update has gone out. */
static void pair_init_ahead(vg_pair *p, unsigned viewer_window, bool lean)
{
	vg_sender_config cfg;
	vg_receiver_config rcfg;
	int32_t caps[VG_CAPS_COUNT];
	int k;

	memset(p, 0, sizeof *p);
	vg_sender_config_init(&cfg);
	cfg.pixmodel = vg_pair_pixmodel;
	vg_receiver_config_init(&rcfg);
	rcfg.memory_budget = 16u << 20;
	rcfg.zstd_window_log = viewer_window;
	rcfg.lean = lean;
	g_assert_cmpint(vg_sender_new(&cfg, &p->s), ==, 0);
	g_assert_cmpint(vg_receiver_new(&rcfg, &p->r), ==, 0);
	vg_writer_init(&p->wire);
	vg_writer_init(&p->reply);
	p->server_fb = vg_pixbuf_new(160, 120);
	p->viewer_fb = vg_pixbuf_new(160, 120);
	p->repair = vg_region_new();
	p->segs = g_array_new(FALSE, FALSE, sizeof(vg_segdesc));
	vg_receiver_capabilities(p->r, caps);
	g_assert_cmphex((guint32)caps[0], ==,
			VG_CAPS_FLAGS | (lean ? VG_VHELLO_LEAN : VG_PIXMODEL_REVISION << VG_VHELLO_MODEL_SHIFT));
	g_assert_cmphex((guint32)caps[1], ==, VG_CAPS_WINDOW | viewer_window);
	/* 16 MB of memory keeps for sure 16 MB less its hints, its tables and
	 * two containers of 4 MB (four of the largest segments): 2^22 and more. */
	g_assert_cmphex((guint32)caps[2], ==, VG_CAPS_CAPACITY | 22);
	for (k = 0; k < VG_CAPS_COUNT; k++)
		g_assert_cmpint(vg_caps_index(caps[k]), ==, k);
	g_assert_cmpint(vg_caps_index(VG_ENCODING), ==, -1);
	g_assert_cmpint(vg_caps_index(VG_CAPS_FLAGS + (VG_CAPS_COUNT << 8)), ==, -1);
	g_assert_cmpint(vg_caps_index(VG_CAPS_FLAGS - 1), ==, -1);
	g_assert_cmpint(vg_sender_assume_viewer(p->s, caps[0] & 0xff, caps[1] & 0xff, caps[2] & 0xff), ==, 0);
	g_assert_true(vg_sender_has_viewer_hello(p->s));
	g_assert_false(vg_sender_viewer_named(p->s));
	vg_sender_hello(p->s, &p->wire);
	/* kind, version, 16-byte identity, width, group, flags */
	g_assert_cmpuint(p->wire.data[VG_PAIR_HELLO_FLAGS_AT], ==, VG_HELLO_AHEAD);
	g_assert_cmpint(vg_receiver_handle(p->r, p->wire.data, p->wire.len, p->viewer_fb, &p->reply), ==, 0);
}

/* Coded ahead: the first updates go out before the VIEWER HELLO arrives,
 * for every window; the VIEWER HELLO then confirms, and everything ends
 * exact. A lean viewer's updates are coded without the pixel model. */
static void test_coded_ahead(void)
{
	static const struct {
		unsigned viewer_window;
		bool pixmodel, lean;
	} cases[] = {
		{ 24, false, false }, { 20, false, false }, { 24, true, false },
		{ 20, true, false },  { 24, true, true },
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		GRand *rng = g_rand_new_with_seed(5);
		vg_sender_stats ss;
		vg_receiver_stats rs;
		vg_segdesc segs[4096];
		vg_pair p;
		int update;

		vg_pair_pixmodel = cases[i].pixmodel;
		pair_init_ahead(&p, cases[i].viewer_window, cases[i].lean);
		/* The VIEWER HELLO is in p->reply: the first exchange sends
		 * an update and only then hands it to the sender. */
		for (update = 0; update < 40; update++) {
			size_t n = vg_pair_random_update(rng, &p, segs, 20);
			vg_pair_exchange(&p, segs, n);
			g_assert_true(vg_pixbuf_equal(p.server_fb, p.viewer_fb));
			g_assert_true(vg_sender_viewer_named(p.s));
		}
		g_assert_true(vg_sender_coded_ahead(p.s));
		vg_sender_get_stats(p.s, &ss);
		vg_receiver_get_stats(p.r, &rs);
		g_assert_true(rs.coded_ahead);
		g_assert_cmpuint(ss.zstd_window_log, ==, cases[i].viewer_window);
		g_assert_cmpuint(rs.zstd_window_log, ==, cases[i].viewer_window);
		g_assert_cmpuint(ss.fingerprint_segments, >, 0);
		if (cases[i].pixmodel && !cases[i].lean)
			g_assert_cmpuint(ss.model_updates, >, 0);
		else
			g_assert_cmpuint(ss.model_updates, ==, 0);
		vg_pair_clear(&p);
		g_rand_free(rng);
	}
	vg_pair_pixmodel = false;
}

/* Thirty random updates through p, every picture exact, and whether the
 * pixel model coded some of them (model) or none; p's sender's figures
 * in ss. */
static void random_updates(vg_pair *p, bool model, vg_sender_stats *ss)
{
	GRand *rng = g_rand_new_with_seed(21);
	vg_segdesc segs[4096];
	int update;

	for (update = 0; update < 30; update++) {
		size_t n = vg_pair_random_update(rng, p, segs, 20);

		g_assert_cmpint(vg_pair_exchange(p, segs, n), ==, 0);
		g_assert_true(vg_pixbuf_equal(p->server_fb, p->viewer_fb));
	}
	vg_sender_get_stats(p->s, ss);
	g_assert_cmpuint(ss->literal_segments, >, 0);
	if (model)
		g_assert_cmpuint(ss->model_updates, >, 0);
	else
		g_assert_cmpuint(ss->model_updates, ==, 0);
	g_rand_free(rng);
}

/* The pixel model is the sender's choice, unless the viewer is lean (it
 * cannot afford the model's tables and says so in its VIEWER HELLO): then
 * the literal methods; a lean viewer refuses an UPDATE coded by the model.
 * The refinement planner's estimate follows whichever coding is used. */
static void test_lean(void)
{
	int k;

	/* 0: the model to a viewer that keeps it; 1: to a lean viewer;
	 * 2: a sender that does not use it. */
	for (k = 0; k < 3; k++) {
		vg_sender_config cfg;
		vg_receiver_config rcfg;
		vg_sender_stats ss;
		vg_writer wire;
		greeting g;
		vg_pair p;

		vg_sender_config_init(&cfg);
		cfg.pixmodel = k != 2;
		vg_receiver_config_init(&rcfg);
		rcfg.lean = k == 1;
		greet(&g, &cfg, &rcfg);
		/* Nothing about the model in the HELLO; the lean bit, or the
		 * model's revision, in the VIEWER HELLO. */
		g_assert_cmpuint(g.hello_flags, ==, 0);
		g_assert_cmpuint(g.viewer_flags & ~VG_VHELLO_EPHEMERAL, ==,
				 k == 1 ? VG_VHELLO_LEAN : VG_PIXMODEL_REVISION << VG_VHELLO_MODEL_SHIFT);
		g_assert_cmpint(vg_sender_handle(g.s, g.reply.data + 3, g.reply.len - 3, 96, 80, NULL), ==, 0);
		greeting_clear(&g);

		vg_pair_pixmodel = k != 2;
		vg_pair_init(&p, 96, 80);
		vg_pair_pixmodel = false;
		if (k == 1) {
			vg_receiver_config lean;

			/* pair_init's viewer is not lean: a lean one, greeted by
			 * the same kind of sender. */
			vg_sender_free(p.s);
			vg_receiver_free(p.r);
			vg_sender_config_init(&cfg);
			vg_receiver_config_init(&lean);
			lean.memory_budget = 16u << 20;
			lean.lean = true;
			g_assert_cmpint(vg_sender_new(&cfg, &p.s), ==, 0);
			g_assert_cmpint(vg_receiver_new(&lean, &p.r), ==, 0);
			vg_writer_reset(&p.wire);
			vg_sender_hello(p.s, &p.wire);
			g_assert_cmpint(vg_receiver_handle(p.r, p.wire.data, p.wire.len, p.viewer_fb,
							   &p.reply), ==, 0);
			g_assert_cmpint(vg_pair_feed_replies(&p), ==, 0);
		}
		random_updates(&p, k == 0, &ss);
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
		if (k == 1) {
			/* An empty update coded by the model, as such: refused
			 * only when it carries pixels. */
			static const guint8 model_update[] = { VG_MSG_UPDATE, VG_UPDATE_MODEL, 0, 1, 2, 3 };

			vg_writer_init(&wire);
			g_assert_cmpint(vg_receiver_handle(p.r, model_update, sizeof model_update,
							   p.viewer_fb, &p.reply), ==, VG_EPROTO);
			g_test_message("%s", vg_receiver_error_text(p.r));
			vg_writer_clear(&wire);
		}
		vg_pair_clear(&p);
	}
}

/* A viewer of another revision of the pixel model (an older or newer
 * build) is taken, not refused, and coded for by the literal methods,
 * every picture exact; so is one whose flags name no revision (a build
 * from before viewers announced it). The same revision gets the model. */
static void test_model_revision(void)
{
	static const unsigned revisions[] = { VG_PIXMODEL_REVISION, VG_PIXMODEL_REVISION % 31 + 1, 0 };
	size_t k;

	for (k = 0; k < G_N_ELEMENTS(revisions); k++) {
		vg_sender_config cfg;
		vg_receiver_config rcfg;
		vg_sender_stats ss;
		uint8_t *flags;
		vg_pair p;

		vg_pair_init(&p, 96, 80);
		vg_sender_free(p.s);
		vg_receiver_free(p.r);
		vg_sender_config_init(&cfg);
		cfg.pixmodel = true;
		vg_receiver_config_init(&rcfg);
		rcfg.memory_budget = 16u << 20;
		g_assert_cmpint(vg_sender_new(&cfg, &p.s), ==, 0);
		g_assert_cmpint(vg_receiver_new(&rcfg, &p.r), ==, 0);
		vg_writer_reset(&p.wire);
		vg_writer_reset(&p.reply);
		vg_sender_hello(p.s, &p.wire);
		g_assert_cmpint(vg_receiver_handle(p.r, p.wire.data, p.wire.len, p.viewer_fb, &p.reply), ==, 0);
		/* This build's viewer says its revision; another build's is
		 * played by changing the bits. */
		flags = &p.reply.data[VG_PAIR_VHELLO_FLAGS_AT];
		g_assert_cmpuint(VG_VHELLO_MODEL(*flags), ==, VG_PIXMODEL_REVISION);
		*flags = (uint8_t)((*flags & ~VG_VHELLO_MODEL_MASK) | revisions[k] << VG_VHELLO_MODEL_SHIFT);
		g_assert_cmpint(vg_pair_feed_replies(&p), ==, 0);
		g_assert_cmpuint(vg_sender_viewer_model(p.s), ==, revisions[k]);
		random_updates(&p, revisions[k] == VG_PIXMODEL_REVISION, &ss);
		vg_pair_clear(&p);
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
	vg_pair p;
	int k;

	vg_pair_init(&p, 64, 64);
	/* After the VIEWER HELLO it is too late. */
	g_assert_cmpint(vg_sender_assume_viewer(p.s, 0, 24, 20), ==, VG_EPROTO);
	vg_pair_clear(&p);

	/* Announced: exact only, or a smaller window; the VIEWER HELLO (in
	 * p.reply) says neither: refused. */
	for (k = 0; k < 2; k++) {
		vg_sender_config cfg;

		pair_init_ahead(&p, 24, false);
		vg_sender_free(p.s);
		vg_sender_config_init(&cfg);
		g_assert_cmpint(vg_sender_new(&cfg, &p.s), ==, 0);
		if (k == 0) {
			g_assert_cmpint(vg_sender_assume_viewer(p.s, VG_VHELLO_EPHEMERAL, 24, 20), ==, VG_EPROTO);
			g_assert_cmpint(vg_sender_assume_viewer(p.s, 0, 19, 20), ==, VG_EPROTO);
			g_assert_cmpint(vg_sender_assume_viewer(p.s, 0, 28, 20), ==, VG_EPROTO);
			g_assert_cmpint(vg_sender_assume_viewer(p.s, 0, 0, 20), ==, VG_EPROTO);
			g_assert_cmpint(vg_sender_assume_viewer(p.s, 0, 24, 64), ==, VG_EPROTO);
			g_assert_false(vg_sender_has_viewer_hello(p.s));
		}
		g_assert_cmpint(vg_sender_assume_viewer(p.s, k == 0 ? VG_VHELLO_EXACT : 0, k == 0 ? 24 : 20,
							24), ==, 0);
		g_assert_cmpint(vg_sender_handle(p.s, p.reply.data + 3, p.reply.len - 3, 160, 120, NULL), ==,
				VG_EPROTO);
		g_test_message("%s", vg_sender_error_text(p.s));
		g_assert_nonnull(strstr(vg_sender_error_text(p.s), "not what its capabilities announced"));
		vg_pair_clear(&p);
	}

	/* The same VIEWER HELLO twice. */
	pair_init_ahead(&p, 24, false);
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
	vg_pair_clear(&p);
}

/* The server's side of the VIEWER HELLO: a version other than 1.0 (an
 * older viewer's 1 or 2 included) is refused naming both; so are a hello
 * cut short or with bytes left over and a window outside 20..27 (every
 * flag bit has a meaning: *test_model_revision*). The viewer refuses a zstd frame whose window is larger than
 * the one it announced. */
static void test_viewer_hello_refusals(void)
{
	guint8 hello[1 + 1 + 16 + 8 + 1 + 8 + 1 + 1] = { VG_VMSG_HELLO, VG_PROTO_VERSION };
	static const struct {
		int at, value;
		int len_change;
		int expect;
		const char *text;
	} cases[] = {
		{ 1, 1, 0, VG_ENOTSUP, "viewer speaks protocol version 0.1, this server 1.0" },
		{ 1, 2, -10, VG_ENOTSUP, "version 0.2" },
		{ 1, 0x20, 0, VG_ENOTSUP, "version 2.0" },
		{ -1, 0, -1, VG_EPROTO, "truncated" },
		{ -1, 0, 1, VG_EPROTO, "bytes left over" },
		{ 35, 19, 0, VG_EPROTO, "zstd window" },
		{ 35, 28, 0, VG_EPROTO, "zstd window" },
		{ -1, 0, 0, VG_OK, "no error" },
	};
	vg_sender_config cfg;
	vg_sender *s;
	vg_zout *big, *zpix;
	vg_writer msg;
	guint8 plain[64] = { 0 };
	vg_pair p;
	size_t i;

	hello[35] = 24;
	vg_sender_config_init(&cfg);
	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		guint8 bad[sizeof hello];

		memcpy(bad, hello, sizeof hello);
		if (cases[i].at >= 0)
			bad[cases[i].at] = (guint8)cases[i].value;
		g_assert_cmpint(vg_sender_new(&cfg, &s), ==, 0);
		g_assert_cmpint(vg_sender_handle(s, bad, (size_t)((int)sizeof hello - 1 + cases[i].len_change),
						 8, 8, NULL), ==, cases[i].expect);
		g_test_message("%s", vg_sender_error_text(s));
		g_assert_nonnull(strstr(vg_sender_error_text(s), cases[i].text));
		g_assert_cmpint(vg_sender_has_viewer_hello(s), ==, cases[i].expect == VG_OK);
		vg_sender_free(s);
	}

	vg_pair_init(&p, 8, 8);
	g_assert_cmpint(vg_zout_new(VG_CODER_ZSTD, 3, VG_ZSTD_WINDOW_LOG_MAX, &big), ==, 0);
	g_assert_cmpint(vg_zout_new(VG_CODER_ZSTD, 3, VG_ZSTD_WINDOW_LOG_MIN, &zpix), ==, 0);
	vg_writer_init(&msg);
	vg_pair_msg(big, zpix, 0, plain, sizeof plain, NULL, 0, &msg);
	g_assert_cmpint(vg_receiver_handle(p.r, msg.data, msg.len, p.viewer_fb, &p.reply), ==, VG_EZLIB);
	vg_writer_clear(&msg);
	vg_zout_free(big);
	vg_zout_free(zpix);
	vg_pair_clear(&p);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/protocol/hello/bad-hello", test_bad_hello);
	g_test_add_func("/protocol/hello/viewer-hello-refusals", test_viewer_hello_refusals);
	g_test_add_func("/protocol/hello/window", test_window);
	g_test_add_func("/protocol/hello/lean", test_lean);
	g_test_add_func("/protocol/hello/model-revision", test_model_revision);
	g_test_add_func("/protocol/hello/coded-ahead", test_coded_ahead);
	g_test_add_func("/protocol/hello/coded-ahead-refusals", test_coded_ahead_refusals);
	g_test_add_func("/protocol/hello/sender-refuses", test_sender_refuses);
	g_test_add_func("/protocol/hello/ping-pong", test_ping_pong);
	return g_test_run();
}
