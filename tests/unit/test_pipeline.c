/* The update pipeline: differ -> movement -> moves -> segmenter -> sender,
 * its result read back by a real receiver. */
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/proto/vg_receiver.h"
#include "pipeline/vg_pipeline.h"
#include "tests/vg_testscene.h"

#define W 320
#define H 240

/* A pipeline, its sender and a viewer that said HELLO back. */
typedef struct {
	vg_sender *s;
	vg_receiver *r;
	vg_pipeline *p;
	vg_pixbuf *view;
	vg_writer wire, reply;
	vg_region *repair;
} rig;

static void feed_replies(rig *g)
{
	size_t at = 0;

	while (at + 3 <= g->reply.len) {
		size_t len = (size_t)g->reply.data[at + 1] << 8 | g->reply.data[at + 2];

		g_assert_cmpuint(g->reply.data[at], ==, VG_CLIENT_MSG);
		g_assert_cmpint(vg_sender_handle(g->s, g->reply.data + at + 3, len, W, H, g->repair), ==,
				0);
		at += 3 + len;
	}
	g_assert_cmpuint(at, ==, g->reply.len);
	vg_writer_reset(&g->reply);
}

static void rig_init_cfg(rig *g, const vg_pipeline_config *cfg)
{
	vg_sender_config scfg;
	vg_receiver_config rcfg;

	vg_sender_config_init(&scfg);
	scfg.no_persist = true;
	vg_receiver_config_init(&rcfg);
	rcfg.cache_dir = NULL;
	g_assert_cmpint(vg_sender_new(&scfg, &g->s), ==, 0);
	g_assert_cmpint(vg_receiver_new(&rcfg, &g->r), ==, 0);
	g_assert_cmpint(vg_pipeline_new(cfg, W, H, g->s, &g->p), ==, 0);
	g->view = vg_pixbuf_new(W, H);
	g->repair = vg_region_new();
	vg_writer_init(&g->wire);
	vg_writer_init(&g->reply);
	vg_sender_hello(g->s, &g->wire);
	g_assert_cmpint(vg_receiver_handle(g->r, g->wire.data, g->wire.len, g->view, &g->reply), ==, 0);
	feed_replies(g);
	g_assert_true(vg_sender_takes_moves(g->s));
}

static void rig_init(rig *g)
{
	vg_pipeline_config cfg;

	vg_pipeline_config_init(&cfg);
	rig_init_cfg(g, &cfg);
}

static void rig_clear(rig *g)
{
	vg_pipeline_free(g->p);
	vg_sender_free(g->s);
	vg_receiver_free(g->r);
	vg_pixbuf_free(g->view);
	vg_region_free(g->repair);
	vg_writer_clear(&g->wire);
	vg_writer_clear(&g->reply);
}

/* Two views of one scene, the second scrolled down by dy rows. */
typedef struct {
	vg_pixbuf *doc, *f0, *f1;
} scroll;

static void scroll_init(scroll *sc, vg_scene_kind kind, uint32_t seed, int32_t dy)
{
	sc->doc = vg_testscene_new(kind, W, H + 64, seed);
	sc->f0 = vg_testscene_frame(sc->doc, 0, 0, W, H);
	sc->f1 = vg_testscene_frame(sc->doc, 0, dy, W, H);
}

static void scroll_clear(scroll *sc)
{
	vg_pixbuf_free(sc->f0);
	vg_pixbuf_free(sc->f1);
	vg_pixbuf_free(sc->doc);
}

/* One update of the whole picture through the three steps, delivered. */
static void update(rig *g, const vg_pixbuf *pic)
{
	const vg_rect all = vg_pixbuf_rect(pic);

	g_assert_cmpint(vg_pipeline_begin(g->p, pic, &all, 1, g->repair), ==, 0);
	g_assert_cmpint(vg_pipeline_segment(g->p, pic, NULL), ==, 0);
	vg_writer_reset(&g->wire);
	g_assert_cmpint(vg_pipeline_send(g->p, pic, g->repair, &g->wire), ==, 0);
	g_assert_cmpint(vg_receiver_handle(g->r, g->wire.data, g->wire.len, g->view, &g->reply), ==, 0);
	feed_replies(g);
}

/* Pixels of area inside at least one segment or move. */
static int64_t covered(const vg_pipeline *p, vg_rect area)
{
	const vg_segdesc *segs;
	size_t n;
	int64_t cov, overlap;

	segs = vg_pipeline_segments(p, &n);
	vg_segs_coverage(segs, n, area, &cov, &overlap);
	return cov;
}

static void test_config(void)
{
	vg_pipeline_config cfg;
	vg_pipeline *p = (vg_pipeline *)&cfg;
	vg_sender_config scfg;
	vg_sender *s;

	vg_pipeline_config_init(&cfg);
	g_assert_cmpint(cfg.params.method, ==, VG_SEGMETHOD_VARG);
	g_assert_true(cfg.motion && cfg.moves && !cfg.trust_damage);
	g_assert_cmpint(vg_pipeline_new(&cfg, W, H, NULL, &p), ==, VG_EINVAL);
	g_assert_null(p);
	vg_sender_config_init(&scfg);
	g_assert_cmpint(vg_sender_new(&scfg, &s), ==, 0);
	g_assert_cmpint(vg_pipeline_new(&cfg, 0, H, s, &p), ==, VG_EINVAL);
	g_assert_null(p);
	cfg.params.column_width = 0;
	g_assert_cmpint(vg_pipeline_new(&cfg, W, H, s, &p), <, 0);
	g_assert_null(p);
	vg_pipeline_config_init(&cfg);
	cfg.motion = false;
	g_assert_cmpint(vg_pipeline_new(&cfg, W, H, s, &p), ==, 0);
	g_assert_null(vg_pipeline_motion(p));
	g_assert_cmpint(vg_pipeline_params(p)->method, ==, VG_SEGMETHOD_VARG);
	vg_pipeline_free(p);
	vg_pipeline_free(NULL);
	vg_sender_free(s);
}

/* A first update sends the whole picture; a scroll then goes by moves
 * along the movement found, and the viewer is exact after each. */
static void test_scroll(void)
{
	scroll sc;
	const vg_pipeline_times *t;
	const vg_rect *todo;
	size_t n_todo, n_changed, first_bytes;
	vg_rect b;
	rig g;

	scroll_init(&sc, VG_SCENE_HEATMAP, 7, 32);
	rig_init(&g);
	update(&g, sc.f0);
	todo = vg_pipeline_todo(g.p, &n_todo, &n_changed);
	g_assert_nonnull(todo);
	g_assert_cmpuint(n_changed, ==, n_todo);
	g_assert_cmpint(covered(g.p, vg_pixbuf_rect(sc.f0)), ==, (int64_t)W * H);
	g_assert_cmpuint(vg_pipeline_n_moves(g.p), ==, 0);
	g_assert_true(vg_pixbuf_equal(g.view, sc.f0));
	first_bytes = g.wire.len;
	t = vg_pipeline_last_times(g.p);
	g_assert_cmpuint(t->differ_ns + t->segmenter_ns + t->sender_ns, >, 0);

	update(&g, sc.f1);
	g_assert_cmpint(vg_pipeline_dir(g.p), ==, VG_MOTION_VERTICAL);
	g_assert_cmpuint(vg_pipeline_n_moves(g.p), >, 0);
	g_assert_true(vg_pixbuf_equal(g.view, sc.f1));
	g_assert_cmpuint(g.wire.len, <, first_bytes / 4);
	b = vg_pipeline_bounds(g.p);
	g_assert_false(vg_rect_is_empty(b));
	g_assert_true(vg_rect_equal(vg_rect_intersect(b, vg_pixbuf_rect(sc.f1)), b));

	/* Nothing changed: an empty update, no segments. */
	update(&g, sc.f1);
	vg_pipeline_todo(g.p, &n_todo, &n_changed);
	g_assert_cmpuint(n_todo, ==, 0);
	g_assert_true(vg_rect_is_empty(vg_pipeline_bounds(g.p)));
	rig_clear(&g);
	scroll_clear(&sc);
}

/* What the viewer asks for again is coded as it is, though nothing
 * changed there, as pixels, and the update has no moves. */
static void test_again(void)
{
	scroll sc;
	const vg_rect damage = vg_rect_make(0, 0, W, H);
	vg_rect lost = vg_rect_make(40, 100, 64, 30);
	vg_sender_stats before, after;
	const vg_rect *todo;
	size_t n_todo, n_changed;
	rig g;

	scroll_init(&sc, VG_SCENE_TEXT, 3, 28);
	rig_init(&g);
	update(&g, sc.f0);
	vg_region_add(g.repair, lost);
	vg_region_add(g.repair, vg_rect_make(W + 10, 0, 5, 5)); /* outside: dropped */
	/* No damage list: the whole picture is damaged. */
	g_assert_cmpint(vg_pipeline_begin(g.p, sc.f0, NULL, 0, g.repair), ==, 0);
	todo = vg_pipeline_todo(g.p, &n_todo, &n_changed);
	g_assert_cmpuint(n_todo, ==, 1);
	g_assert_true(vg_rect_equal(todo[0], lost));
	g_assert_cmpint(vg_pipeline_begin(g.p, sc.f0, &damage, 1, g.repair), ==, 0);
	todo = vg_pipeline_todo(g.p, &n_todo, &n_changed);
	g_assert_cmpuint(n_changed, ==, 0);
	g_assert_cmpuint(n_todo, ==, 1);
	g_assert_true(vg_rect_equal(todo[0], lost));
	g_assert_cmpint(vg_pipeline_segment(g.p, sc.f0, NULL), ==, 0);
	g_assert_cmpint(covered(g.p, lost), ==, vg_rect_area(lost));
	vg_sender_get_stats(g.s, &before);
	vg_writer_reset(&g.wire);
	g_assert_cmpint(vg_pipeline_send(g.p, sc.f0, g.repair, &g.wire), ==, 0);
	vg_sender_get_stats(g.s, &after);
	g_assert_cmpuint(after.fingerprint_segments, ==, before.fingerprint_segments);
	g_assert_cmpuint(after.literal_segments, >, before.literal_segments);

	/* A scroll while a repair is pending: no moves; once it is sent, the
	 * scroll back moves. */
	g_assert_cmpint(vg_pipeline_begin(g.p, sc.f1, &damage, 1, g.repair), ==, 0);
	g_assert_cmpint(vg_pipeline_segment(g.p, sc.f1, NULL), ==, 0);
	g_assert_cmpuint(vg_pipeline_n_moves(g.p), ==, 0);
	vg_region_clear(g.repair);
	g_assert_cmpint(vg_pipeline_begin(g.p, sc.f0, &damage, 1, NULL), ==, 0);
	g_assert_cmpint(vg_pipeline_segment(g.p, sc.f0, NULL), ==, 0);
	g_assert_cmpuint(vg_pipeline_n_moves(g.p), >, 0);
	g_assert_cmpint(vg_pipeline_dir(g.p), ==, VG_MOTION_VERTICAL);
	rig_clear(&g);
	scroll_clear(&sc);
}

/* Two viewers in step: the second takes the first's estimator state and
 * segments instead of computing them, and is sent the same bytes. */
static void test_take_shared(void)
{
	scroll sc;
	const vg_rect all = vg_rect_make(0, 0, W, H);
	vg_pipeline_config cfg;
	const vg_segdesc *segs;
	uint8_t *state;
	size_t n, len;
	rig a, b;

	scroll_init(&sc, VG_SCENE_HEATMAP, 11, 20);
	vg_pipeline_config_init(&cfg);
	cfg.moves = false; /* results with moves are no one else's */
	rig_init_cfg(&a, &cfg);
	rig_init_cfg(&b, &cfg);
	update(&a, sc.f0);
	update(&b, sc.f0);
	update(&a, sc.f1);
	len = vg_motion_state_size(vg_pipeline_motion(a.p));
	state = g_malloc(len);
	vg_motion_state_save(vg_pipeline_motion(a.p), state);

	g_assert_cmpint(vg_pipeline_begin(b.p, sc.f1, &all, 1, NULL), ==, 0);
	g_assert_cmpint(vg_motion_state_load(vg_pipeline_motion(b.p), state, len), ==, 0);
	segs = vg_pipeline_segments(a.p, &n);
	g_assert_cmpuint(n, >, 0);
	vg_pipeline_take(b.p, vg_pipeline_dir(a.p), segs, n);
	g_assert_cmpint(vg_pipeline_last_times(b.p)->segmenter_ns, ==, 0);
	vg_writer_reset(&b.wire);
	g_assert_cmpint(vg_pipeline_send(b.p, sc.f1, NULL, &b.wire), ==, 0);
	g_assert_cmpuint(b.wire.len, ==, a.wire.len);
	g_assert_cmpmem(b.wire.data, b.wire.len, a.wire.data, a.wire.len);
	g_assert_cmpint(vg_receiver_handle(b.r, b.wire.data, b.wire.len, b.view, &b.reply), ==, 0);
	g_assert_true(vg_pixbuf_equal(b.view, sc.f1));
	/* Taking its own segments, a subset, keeps the rest unsent. */
	segs = vg_pipeline_segments(b.p, &n);
	vg_pipeline_take(b.p, VG_MOTION_NONE, segs, n / 2);
	vg_pipeline_segments(b.p, &len);
	g_assert_cmpuint(len, ==, n / 2);
	g_free(state);
	rig_clear(&a);
	rig_clear(&b);
	scroll_clear(&sc);
}

/* Karp-Rabin leaves gaps; the pipeline covers them with static tiles. */
static void test_gaps(void)
{
	vg_pixbuf *doc = vg_testscene_new(VG_SCENE_TEXT, W, H, 5);
	vg_pipeline_config cfg;
	rig g;

	vg_pipeline_config_init(&cfg);
	vg_segparams_init(&cfg.params, VG_SEGMETHOD_KARPRABIN);
	cfg.motion = false;
	rig_init_cfg(&g, &cfg);
	update(&g, doc);
	g_assert_cmpuint(vg_pipeline_last_times(g.p)->gap_segments, >, 0);
	g_assert_cmpint(covered(g.p, vg_pixbuf_rect(doc)), ==, (int64_t)W * H);
	g_assert_true(vg_pixbuf_equal(g.view, doc));
	rig_clear(&g);
	vg_pixbuf_free(doc);
}

/* A new size: pictures of the old one are refused, the new one starts
 * from nothing (everything damaged is changed). */
/* Workers: every part of a job runs once, on the caller's thread for
 * part 0, also with more parts than threads and with two callers at
 * once; bad counts are refused. */
typedef struct {
	vg_workers *w;
	gint runs[VG_WORKERS_MAX];
	GThread *ran_on[VG_WORKERS_MAX];
} count_job;

static void count_part(void *arg, int part)
{
	count_job *j = arg;

	g_atomic_int_inc(&j->runs[part]);
	j->ran_on[part] = g_thread_self();
}

static gpointer caller(gpointer data)
{
	count_job *j = data;
	int k;

	for (k = 0; k < 200; k++)
		vg_workers_run(j->w, count_part, j, VG_WORKERS_MAX);
	return NULL;
}

static void test_workers_run(void)
{
	count_job a = { 0 }, b = { 0 };
	vg_workers *w;
	GThread *t;
	int i;

	g_assert_cmpint(vg_workers_new(-1, &w), ==, VG_EINVAL);
	g_assert_null(w);
	g_assert_cmpint(vg_workers_new(VG_WORKERS_MAX, &w), ==, VG_EINVAL);
	g_assert_cmpint(vg_workers_parts(NULL), ==, 1);
	g_assert_cmpint(vg_workers_default_threads(), >=, 0);
	g_assert_cmpint(vg_workers_new(2, &w), ==, 0);
	a.w = b.w = w;
	vg_workers_run(w, count_part, &a, 5);
	for (i = 0; i < 5; i++)
		g_assert_cmpint(a.runs[i], ==, 1);
	g_assert_cmpint(a.runs[5], ==, 0);
	g_assert_true(a.ran_on[0] == g_thread_self());
	memset(a.runs, 0, sizeof a.runs);
	t = g_thread_new("caller", caller, &b);
	caller(&a);
	g_thread_join(t);
	for (i = 0; i < VG_WORKERS_MAX; i++) {
		g_assert_cmpint(a.runs[i], ==, 200);
		g_assert_cmpint(b.runs[i], ==, 200);
	}
	vg_workers_free(w);
	/* Without threads every part runs on the caller's. */
	g_assert_cmpint(vg_workers_new(0, &w), ==, 0);
	g_assert_cmpint(vg_workers_parts(w), ==, 1);
	memset(&a, 0, sizeof a);
	vg_workers_run(w, count_part, &a, 3);
	for (i = 0; i < 3; i++)
		g_assert_true(a.runs[i] == 1 && a.ran_on[i] == g_thread_self());
	vg_workers_free(w);
	vg_workers_free(NULL);
}

/* Paints rects[0..n) of pic from src. */
static void paint(vg_pixbuf *pic, const vg_pixbuf *src, const vg_rect *rects, size_t n)
{
	size_t i;
	int32_t y;

	for (i = 0; i < n; i++)
		for (y = rects[i].y; y < rects[i].y + rects[i].h; y++)
			memcpy(vg_pixbuf_row(pic, y) + rects[i].x, vg_pixbuf_row(src, y) + rects[i].x,
			       (size_t)rects[i].w * 4);
}

/* The segment step split across worker threads gives what one thread
 * gives: the same segments, moves and bytes, and the same remembered
 * movement, update after update: whole pictures, scrolls both ways and
 * scattered damage (all of it above the pipeline's 64K pixels, below
 * which an update is not split), for 1 to 4 parts. */
static void test_workers(void)
{
	static const vg_rect spots[] = { { 3, 5, 40, 9 },    { 200, 7, 100, 30 }, { 17, 100, 290, 3 },
					 { 30, 20, 270, 210 }, { 0, 200, 320, 40 }, { 310, 0, 10, 240 } };
	vg_pixbuf *text = vg_testscene_new(VG_SCENE_TEXT, W + 64, H + 64, 7);
	vg_pixbuf *heat = vg_testscene_new(VG_SCENE_HEATMAP, W + 64, H + 64, 8);
	vg_pixbuf *pics[8];
	const vg_rect *damage[8] = { NULL };
	size_t n_damage[8] = { 0 }, k;
	int threads;

	pics[0] = vg_testscene_frame(text, 0, 0, W, H);
	pics[1] = vg_testscene_frame(text, 0, 29, W, H);      /* scrolled down */
	pics[2] = vg_testscene_frame(text, 23, 29, W, H);     /* and across */
	pics[3] = vg_testscene_frame(heat, 0, 0, W, H);       /* a new page */
	pics[4] = vg_testscene_frame(heat, 0, 0, W, H);       /* spots of text */
	paint(pics[4], pics[0], spots, G_N_ELEMENTS(spots));
	damage[4] = spots;
	n_damage[4] = G_N_ELEMENTS(spots);
	pics[5] = vg_testscene_frame(heat, 0, 41, W, H);
	pics[6] = vg_testscene_frame(heat, 37, 41, W, H);
	pics[7] = vg_testscene_frame(text, 64, 64, W, H);
	for (threads = 1; threads <= 3; threads++) {
		vg_pipeline_config cfg;
		vg_workers *w;
		size_t moved = 0;
		rig one, many;

		g_assert_cmpint(vg_workers_new(threads, &w), ==, 0);
		g_assert_cmpint(vg_workers_parts(w), ==, threads + 1);
		vg_pipeline_config_init(&cfg);
		rig_init_cfg(&one, &cfg);
		cfg.workers = w;
		rig_init_cfg(&many, &cfg);
		for (k = 0; k < G_N_ELEMENTS(pics); k++) {
			rig *g[2] = { &one, &many };
			const vg_segdesc *segs[2];
			size_t n_segs[2];
			void *state;
			size_t len, i;

			for (i = 0; i < 2; i++) {
				g_assert_cmpint(vg_pipeline_begin(g[i]->p, pics[k], damage[k], n_damage[k],
								  g[i]->repair), ==, 0);
				g_assert_cmpint(vg_pipeline_segment(g[i]->p, pics[k], NULL), ==, 0);
				segs[i] = vg_pipeline_segments(g[i]->p, &n_segs[i]);
				vg_writer_reset(&g[i]->wire);
				g_assert_cmpint(vg_pipeline_send(g[i]->p, pics[k], g[i]->repair,
								 &g[i]->wire), ==, 0);
			}
			g_assert_cmpuint(n_segs[0], ==, n_segs[1]);
			for (i = 0; i < n_segs[0]; i++) {
				g_assert_true(vg_rect_equal(segs[0][i].rect, segs[1][i].rect));
				g_assert_cmpuint(segs[0][i].hash, ==, segs[1][i].hash);
				g_assert_cmpuint(segs[0][i].orient, ==, segs[1][i].orient);
				g_assert_cmpuint(segs[0][i].kind, ==, segs[1][i].kind);
			}
			g_assert_cmpint(vg_pipeline_dir(one.p), ==, vg_pipeline_dir(many.p));
			g_assert_cmpuint(vg_pipeline_n_moves(one.p), ==, vg_pipeline_n_moves(many.p));
			moved += vg_pipeline_n_moves(one.p);
			g_assert_cmpuint(one.wire.len, ==, many.wire.len);
			g_assert_cmpint(memcmp(one.wire.data, many.wire.data, one.wire.len), ==, 0);
			len = vg_motion_state_size(vg_pipeline_motion(one.p));
			state = g_malloc(len);
			vg_motion_state_save(vg_pipeline_motion(one.p), state);
			g_assert_true(vg_motion_state_equal(vg_pipeline_motion(many.p), state, len));
			g_free(state);
			for (i = 0; i < 2; i++) {
				g_assert_cmpint(vg_receiver_handle(g[i]->r, g[i]->wire.data, g[i]->wire.len,
								   g[i]->view, &g[i]->reply), ==, 0);
				feed_replies(g[i]);
				g_assert_true(vg_pixbuf_equal(g[i]->view, pics[k]));
			}
		}
		/* The scrolls were found: the two did not just agree on nothing. */
		g_assert_cmpuint(moved, >, 0);
		rig_clear(&one);
		rig_clear(&many);
		vg_workers_free(w);
	}
	for (k = 0; k < G_N_ELEMENTS(pics); k++)
		vg_pixbuf_free(pics[k]);
	vg_pixbuf_free(text);
	vg_pixbuf_free(heat);
}

static void test_resize(void)
{
	vg_pixbuf *small = vg_testscene_new(VG_SCENE_NOISE, W / 2, H / 2, 1);
	vg_pixbuf *old = vg_pixbuf_new(W, H);
	const vg_rect r = vg_rect_make(0, 0, W / 2, H / 2);
	size_t n_todo, n_changed;
	rig g;

	rig_init(&g);
	update(&g, old);
	g_assert_cmpint(vg_pipeline_resize(g.p, 0, 0), ==, VG_EINVAL);
	g_assert_cmpint(vg_pipeline_resize(g.p, W / 2, H / 2), ==, 0);
	g_assert_cmpint(vg_pipeline_begin(g.p, old, NULL, 0, NULL), ==, VG_EINVAL);
	g_assert_cmpint(vg_pipeline_begin(g.p, small, &r, 1, NULL), ==, 0);
	vg_pipeline_todo(g.p, &n_todo, &n_changed);
	g_assert_cmpuint(n_changed, >, 0);
	g_assert_cmpint(vg_pipeline_segment(g.p, small, NULL), ==, 0);
	g_assert_cmpint(covered(g.p, r), ==, vg_rect_area(r));
	rig_clear(&g);
	vg_pixbuf_free(small);
	vg_pixbuf_free(old);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/pipeline/config", test_config);
	g_test_add_func("/pipeline/scroll", test_scroll);
	g_test_add_func("/pipeline/again", test_again);
	g_test_add_func("/pipeline/take_shared", test_take_shared);
	g_test_add_func("/pipeline/gaps", test_gaps);
	g_test_add_func("/pipeline/resize", test_resize);
	g_test_add_func("/pipeline/workers", test_workers);
	g_test_add_func("/workers/run", test_workers_run);
	return g_test_run();
}
