/* Shared segmentation: a result published for one estimator is taken by
 * another in the same state and equals what it would have computed;
 * anything different in the input misses; slots are bounded and reused;
 * viewers on several threads get exactly their unshared results. */
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "segment2d/vg_motion.h"
#include "segment2d/vg_segmenter.h"
#include "server/vg_segshare.h"
#include "tests/vg_testscene.h"

enum { W = 320, H = 240, STEP = 7, FRAMES = 24, THREADS = 4 };

static vg_pixbuf *doc;

/* Frame i of a scroll down the document, as a view (no copy). */
static vg_pixbuf frame_at(int i)
{
	return vg_pixbuf_view(doc, vg_rect_make(0, i * STEP, W, H));
}

/* What one viewer computes alone for frame i: the direction, and the
 * segments summed into one number. */
typedef struct {
	vg_motion_dir dir;
	uint64_t segsum;
	size_t n;
} result;

static uint64_t seg_sum(const vg_segdesc *segs, size_t n)
{
	uint64_t h = 1469598103934665603u;
	size_t i;

	for (i = 0; i < n; i++) {
		h = (h ^ segs[i].hash) * 1099511628211u;
		h = (h ^ ((uint64_t)segs[i].rect.x | (uint64_t)segs[i].rect.y << 16 |
			  (uint64_t)segs[i].rect.w << 32 | (uint64_t)segs[i].rect.h << 48)) *
		    1099511628211u;
		h = (h ^ segs[i].orient) * 1099511628211u;
	}
	return h;
}

/* One update: with sh, through the share. *shared says a hit. */
static result update(vg_segshare *sh, vg_motion *m, vg_segmenter *seg, GArray *segs_buf,
		     int i, bool *shared)
{
	const vg_rect all = vg_rect_make(0, 0, W, H);
	vg_segshare_input in = { .serial = (uint64_t)i + 1, .rects = &all, .n_rects = 1,
				 .n_changed = 1 };
	vg_pixbuf f = frame_at(i);
	vg_segshare_claim *claim = NULL;
	const vg_segdesc *segs;
	vg_motion_result mr;
	result r = { 0 };
	size_t n;

	*shared = false;
	if (sh && vg_segshare_lookup(sh, &in, m, &r.dir, segs_buf, &claim) == VG_OK) {
		*shared = true;
		r.n = segs_buf->len;
		r.segsum = seg_sum((const vg_segdesc *)(void *)segs_buf->data, segs_buf->len);
		return r;
	}
	g_assert_cmpint(vg_motion_estimate(m, &f, &all, 1, &mr), ==, 0);
	g_assert_cmpint(vg_segmenter_run(seg, &f, &all, 1,
					 mr.dir == VG_MOTION_HORIZONTAL ? VG_ORIENT_COLS : VG_ORIENT_ROWS,
					 &segs, &n), ==, 0);
	if (claim)
		vg_segshare_publish(sh, claim, m, mr.dir, segs, n);
	r.dir = mr.dir;
	r.n = n;
	r.segsum = seg_sum(segs, n);
	return r;
}

typedef struct {
	vg_motion *m;
	vg_segmenter *seg;
	GArray *buf;
} viewer;

static void viewer_init(viewer *v)
{
	vg_segparams p;

	vg_segparams_init(&p, VG_SEGMETHOD_VARG);
	g_assert_cmpint(vg_motion_new(W, H, 64, 0, &v->m), ==, 0);
	g_assert_cmpint(vg_segmenter_new(&p, &v->seg), ==, 0);
	v->buf = g_array_new(FALSE, FALSE, sizeof(vg_segdesc));
}

static void viewer_clear(viewer *v)
{
	vg_motion_free(v->m);
	vg_segmenter_free(v->seg);
	g_array_free(v->buf, TRUE);
}

static result reference[FRAMES];

static void compute_reference(void)
{
	viewer v;
	bool shared;
	int i;

	viewer_init(&v);
	for (i = 0; i < FRAMES; i++)
		reference[i] = update(NULL, v.m, v.seg, v.buf, i, &shared);
	viewer_clear(&v);
	/* The scroll is seen as one. */
	g_assert_cmpint(reference[3].dir, ==, VG_MOTION_VERTICAL);
}

static void assert_same(const result *a, const result *b)
{
	g_assert_cmpint(a->dir, ==, b->dir);
	g_assert_cmpuint(a->n, ==, b->n);
	g_assert_cmpuint(a->segsum, ==, b->segsum);
}

/* Two viewers in step: the second takes every result after the first
 * (unprimed) one, and the taken state gives the same next results. */
static void test_in_step(void)
{
	vg_segshare *sh;
	vg_segshare_stats st;
	viewer a, b;
	bool shared;
	int i;

	g_assert_cmpint(vg_segshare_new(4, &sh), ==, 0);
	viewer_init(&a);
	viewer_init(&b);
	for (i = 0; i < FRAMES; i++) {
		result ra = update(sh, a.m, a.seg, a.buf, i, &shared);

		g_assert_false(shared);
		assert_same(&ra, &reference[i]);
		result rb = update(sh, b.m, b.seg, b.buf, i, &shared);

		g_assert_true(shared == (i > 0));
		assert_same(&rb, &reference[i]);
	}
	vg_segshare_get_stats(sh, &st);
	g_assert_cmpuint(st.hits, ==, FRAMES - 1);
	g_assert_cmpuint(st.misses, ==, FRAMES - 1);
	g_assert_cmpuint(st.unshared, ==, 2);
	g_assert_cmpuint(st.evictions, ==, FRAMES - 1 - 4);
	viewer_clear(&a);
	viewer_clear(&b);
	vg_segshare_free(sh);
}

/* Another serial, other rectangles, another estimator state: misses. */
static void test_misses(void)
{
	const vg_rect all = vg_rect_make(0, 0, W, H), part = vg_rect_make(0, 0, W, H / 2);
	vg_segshare *sh;
	vg_segshare_claim *claim, *claim2;
	vg_pixbuf f0 = frame_at(0), f1 = frame_at(1);
	vg_segshare_input in = { .serial = 5, .rects = &all, .n_rects = 1, .n_changed = 1 };
	vg_motion_result mr;
	vg_motion_dir dir;
	viewer a, b;

	g_assert_cmpint(vg_segshare_new(8, &sh), ==, 0);
	viewer_init(&a);
	viewer_init(&b);
	/* Unprimed: no claim. */
	g_assert_cmpint(vg_segshare_lookup(sh, &in, a.m, &dir, a.buf, &claim), ==, VG_ENOENT);
	g_assert_null(claim);
	vg_motion_estimate(a.m, &f0, NULL, 0, &mr);
	vg_motion_estimate(b.m, &f1, NULL, 0, &mr);
	g_assert_cmpint(vg_segshare_lookup(sh, &in, a.m, &dir, a.buf, &claim), ==, VG_ENOENT);
	g_assert_nonnull(claim);
	vg_motion_estimate(a.m, &f1, &all, 1, &mr);
	vg_segshare_publish(sh, claim, a.m, mr.dir, NULL, 0);
	/* b remembers another frame than a did. */
	g_assert_cmpint(vg_segshare_lookup(sh, &in, b.m, &dir, b.buf, &claim2), ==, VG_ENOENT);
	vg_segshare_abandon(sh, claim2);
	vg_motion_estimate(b.m, &f0, NULL, 0, &mr);
	/* Now it remembers f0 like a did before its estimate: a hit. */
	g_assert_cmpint(vg_segshare_lookup(sh, &in, b.m, &dir, b.buf, &claim2), ==, VG_OK);
	g_assert_null(claim2);
	g_assert_cmpuint(vg_motion_state_size(a.m), ==, vg_motion_state_size(b.m));
	{
		g_autofree uint8_t *sa = g_malloc(vg_motion_state_size(a.m));

		vg_motion_state_save(a.m, sa);
		g_assert_true(vg_motion_state_equal(b.m, sa, vg_motion_state_size(a.m)));
	}
	/* Reset b to f0 and ask with another serial and other rects. */
	vg_motion_reset(b.m);
	vg_motion_estimate(b.m, &f0, NULL, 0, &mr);
	in.serial = 6;
	g_assert_cmpint(vg_segshare_lookup(sh, &in, b.m, &dir, b.buf, &claim2), ==, VG_ENOENT);
	vg_segshare_abandon(sh, claim2);
	in.serial = 5;
	in.rects = &part;
	g_assert_cmpint(vg_segshare_lookup(sh, &in, b.m, &dir, b.buf, &claim2), ==, VG_ENOENT);
	vg_segshare_abandon(sh, claim2);
	in.rects = &all;
	in.n_changed = 0;   /* same rectangle, but as a repair */
	g_assert_cmpint(vg_segshare_lookup(sh, &in, b.m, &dir, b.buf, &claim2), ==, VG_ENOENT);
	vg_segshare_abandon(sh, claim2);
	viewer_clear(&a);
	viewer_clear(&b);
	vg_segshare_free(sh);
}

/* Two slots: the least recently used result goes; a slot being computed
 * is never taken, so with both pending nothing can be claimed. */
static void test_eviction(void)
{
	const vg_rect all = vg_rect_make(0, 0, W, H);
	vg_segshare_input in = { .rects = &all, .n_rects = 1, .n_changed = 1 };
	vg_segshare_claim *c[3];
	vg_segshare_stats st;
	vg_pixbuf f0 = frame_at(0);
	vg_motion_result mr;
	vg_motion_dir dir;
	vg_segshare *sh;
	viewer a;
	int k;

	g_assert_cmpint(vg_segshare_new(0, &sh), ==, VG_EINVAL);
	g_assert_cmpint(vg_segshare_new(65, &sh), ==, VG_EINVAL);
	g_assert_cmpint(vg_segshare_new(2, &sh), ==, 0);
	viewer_init(&a);
	vg_motion_estimate(a.m, &f0, NULL, 0, &mr);
	for (k = 1; k <= 2; k++) {
		in.serial = (uint64_t)k;
		g_assert_cmpint(vg_segshare_lookup(sh, &in, a.m, &dir, a.buf, &c[k]), ==, VG_ENOENT);
		g_assert_nonnull(c[k]);
	}
	in.serial = 3;
	g_assert_cmpint(vg_segshare_lookup(sh, &in, a.m, &dir, a.buf, &c[0]), ==, VG_ENOENT);
	g_assert_null(c[0]);
	vg_segshare_publish(sh, c[1], a.m, VG_MOTION_NONE, NULL, 0);
	vg_segshare_publish(sh, c[2], a.m, VG_MOTION_NONE, NULL, 0);
	/* Serial 1 used last: serial 2 is evicted by serial 3. */
	in.serial = 1;
	g_assert_cmpint(vg_segshare_lookup(sh, &in, a.m, &dir, a.buf, &c[0]), ==, VG_OK);
	in.serial = 3;
	g_assert_cmpint(vg_segshare_lookup(sh, &in, a.m, &dir, a.buf, &c[0]), ==, VG_ENOENT);
	vg_segshare_publish(sh, c[0], a.m, VG_MOTION_NONE, NULL, 0);
	in.serial = 1;
	g_assert_cmpint(vg_segshare_lookup(sh, &in, a.m, &dir, a.buf, &c[0]), ==, VG_OK);
	in.serial = 2;
	g_assert_cmpint(vg_segshare_lookup(sh, &in, a.m, &dir, a.buf, &c[0]), ==, VG_ENOENT);
	vg_segshare_abandon(sh, c[0]);
	vg_segshare_get_stats(sh, &st);
	g_assert_cmpuint(st.evictions, ==, 2);
	g_assert_cmpuint(st.unshared, ==, 1);
	g_assert_cmpuint(st.hits, ==, 2);
	viewer_clear(&a);
	vg_segshare_free(sh);
}

/* Viewers on their own threads, in step: each gets exactly the results
 * it would have computed alone, and the work was shared. */
typedef struct {
	vg_segshare *sh;
	int hits;
	bool ok;
} thread_arg;

static gpointer viewer_thread(gpointer data)
{
	thread_arg *t = data;
	viewer v;
	int i;

	viewer_init(&v);
	t->ok = true;
	for (i = 0; i < FRAMES; i++) {
		bool shared;
		result r = update(t->sh, v.m, v.seg, v.buf, i, &shared);

		t->ok = t->ok && r.dir == reference[i].dir && r.n == reference[i].n &&
			r.segsum == reference[i].segsum;
		t->hits += shared;
	}
	viewer_clear(&v);
	return NULL;
}

static void test_concurrent(void)
{
	thread_arg args[THREADS];
	GThread *threads[THREADS];
	vg_segshare_stats st;
	vg_segshare *sh;
	int k, hits = 0;

	/* Room for every frame: whatever the threads' pace, each result is
	 * computed once (a viewer asking meanwhile waits for it). */
	g_assert_cmpint(vg_segshare_new(FRAMES + 8, &sh), ==, 0);
	for (k = 0; k < THREADS; k++) {
		args[k] = (thread_arg){ .sh = sh };
		threads[k] = g_thread_new("viewer", viewer_thread, &args[k]);
	}
	for (k = 0; k < THREADS; k++) {
		g_thread_join(threads[k]);
		g_assert_true(args[k].ok);
		hits += args[k].hits;
	}
	vg_segshare_get_stats(sh, &st);
	g_test_message("%d threads x %d frames: %" G_GUINT64_FORMAT " hits, %" G_GUINT64_FORMAT
		       " misses, %" G_GUINT64_FORMAT " waits, %" G_GUINT64_FORMAT " unshared",
		       THREADS, FRAMES, st.hits, st.misses, st.waits, st.unshared);
	g_assert_cmpuint(st.hits, ==, (uint64_t)hits);
	g_assert_cmpuint(st.hits + st.misses + st.unshared, ==, THREADS * FRAMES);
	g_assert_cmpuint(st.unshared, ==, THREADS);
	g_assert_cmpuint(st.misses, ==, FRAMES - 1);
	g_assert_cmpuint(st.hits, ==, (THREADS - 1) * (FRAMES - 1));
	vg_segshare_free(sh);
}

int main(int argc, char **argv)
{
	int rc;

	g_test_init(&argc, &argv, NULL);
	doc = vg_testscene_new(VG_SCENE_HEATMAP, W, H + FRAMES * STEP, 7);
	compute_reference();
	g_test_add_func("/segshare/in-step", test_in_step);
	g_test_add_func("/segshare/misses", test_misses);
	g_test_add_func("/segshare/eviction", test_eviction);
	g_test_add_func("/segshare/concurrent", test_concurrent);
	rc = g_test_run();
	vg_pixbuf_free(doc);
	return rc;
}
