/* One Varg update through differ, movement estimation, moves, segmenter
 * and sender (vg_pipeline.h). */
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_time.h"
#include "pipeline/vg_pipeline.h"
#include "segment2d/vg_differ.h"
#include "segment2d/vg_moves.h"

/* Below this many pixels of damage (or of changed rectangles) an update
 * stays on the caller's thread: handing parts to the workers costs a
 * few tens of microseconds, more than a small update's differ or
 * segmentation. */
#define SPLIT_MIN_AREA (256 * 256)

/* The segment step split across the workers: part i remembers the
 * estimator's bands [mcut[i], mcut[i + 1]) and segments the segmenter's
 * bands [scut[i], scut[i + 1]). */
typedef struct {
	vg_pipeline *p;
	const vg_pixbuf *pic;
	const vg_rect *changed;   /* what the estimator remembers */
	size_t n_changed;
	const vg_rect *rects;     /* what the segmenter cuts */
	size_t n;
	vg_orient orient;
	int32_t mcut[VG_WORKERS_MAX + 1];
	int32_t scut[VG_WORKERS_MAX + 1];
	const vg_segdesc *segs[VG_WORKERS_MAX];
	size_t n_segs[VG_WORKERS_MAX];
	int err[VG_WORKERS_MAX];
} split_job;

/* The differ's rows across the workers: part i compares the tile rows
 * [cuts[i], cuts[i + 1]). */
typedef struct {
	vg_differ *differ;
	const vg_pixbuf *pic;
	int32_t cuts[VG_WORKERS_MAX + 1];
} differ_job;

static void differ_part(void *arg, int part)
{
	differ_job *j = arg;

	vg_differ_rows(j->differ, j->pic, j->cuts[part], j->cuts[part + 1]);
}

struct vg_pipeline {
	vg_pipeline_config cfg;
	vg_sender *sender;        /* borrowed */
	vg_differ *differ;        /* what the viewer was sent */
	vg_motion *motion;        /* NULL without movement estimation */
	vg_segmenter *seg[VG_WORKERS_MAX]; /* one for each part of the segment step */
	int n_parts;
	vg_segmenter *gap_seg;    /* static tiles over the gaps; NULL if none */
	uint8_t *mask;            /* gap_seg: 0 outside, 1 uncovered, 2 covered */
	int32_t width, height;
	GArray *todo;             /* vg_rect: changed, then added as they are */
	size_t n_changed;         /* of todo, the differ's */
	bool moving;              /* this update may have moves */
	GArray *moves;            /* vg_move: what the viewer copies */
	GArray *rest;             /* vg_rect: the todo the moves leave */
	GArray *segs;             /* vg_segdesc: the update's segments */
	GArray *taken;            /* vg_segdesc: vg_pipeline_take's copy, swapped with segs */
	vg_motion_dir dir;
	vg_pipeline_times times;
};

/* How many parts an update of rects[0..n) is split into. */
static int parts_for(const vg_pipeline *p, const vg_rect *rects, size_t n)
{
	int64_t area = 0;
	size_t i;

	for (i = 0; i < n && area < SPLIT_MIN_AREA; i++)
		area += vg_rect_area(rects[i]);
	return area < SPLIT_MIN_AREA ? 1 : p->n_parts;
}

void vg_pipeline_config_init(vg_pipeline_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	vg_segparams_init(&cfg->params, VG_SEGMETHOD_VARG);
	cfg->motion = true;
	cfg->moves = true;
}

/* The differ and the estimator for one picture size. */
static int make_sized(const vg_pipeline *p, int32_t w, int32_t h, vg_differ **differ,
		      vg_motion **motion)
{
	int err;

	*motion = NULL;
	if ((err = vg_differ_new(w, h, 0, differ)))
		return err;
	if (p->cfg.motion && (err = vg_motion_new(w, h, VG_MOTION_STRIP, 0, motion))) {
		vg_differ_free(*differ);
		*differ = NULL;
	}
	return err;
}

int vg_pipeline_new(const vg_pipeline_config *cfg, int32_t width, int32_t height,
		    vg_sender *sender, vg_pipeline **out)
{
	vg_pipeline *p = g_new0(vg_pipeline, 1);
	int err, i;

	*out = NULL;
	p->cfg = *cfg;
	p->sender = sender;
	/* Allocated from the start: the todo is never a NULL list. */
	p->todo = g_array_sized_new(FALSE, FALSE, sizeof(vg_rect), 16);
	p->moves = g_array_new(FALSE, FALSE, sizeof(vg_move));
	p->rest = g_array_new(FALSE, FALSE, sizeof(vg_rect));
	p->segs = g_array_new(FALSE, FALSE, sizeof(vg_segdesc));
	p->taken = g_array_new(FALSE, FALSE, sizeof(vg_segdesc));
	if (!sender) {
		err = VG_EINVAL;
		goto out;
	}
	p->n_parts = vg_workers_parts(cfg->workers);
	for (i = 0; i < p->n_parts; i++)
		if ((err = vg_segmenter_new(&cfg->params, &p->seg[i])))
			goto out;
	if ((err = make_sized(p, width, height, &p->differ, &p->motion)))
		goto out;
	if (cfg->params.method == VG_SEGMETHOD_KARPRABIN) {
		vg_segparams gp;

		vg_segparams_init(&gp, VG_SEGMETHOD_STATIC);
		if ((err = vg_segmenter_new(&gp, &p->gap_seg)))
			goto out;
		p->mask = g_malloc0((size_t)width * (size_t)height);
	}
	p->width = width;
	p->height = height;
out:
	if (err) {
		vg_pipeline_free(p);
		return err;
	}
	*out = p;
	return VG_OK;
}

void vg_pipeline_free(vg_pipeline *p)
{
	int i;

	if (!p)
		return;
	vg_differ_free(p->differ);
	vg_motion_free(p->motion);
	for (i = 0; i < VG_WORKERS_MAX; i++)
		vg_segmenter_free(p->seg[i]);
	vg_segmenter_free(p->gap_seg);
	g_free(p->mask);
	g_array_free(p->todo, TRUE);
	g_array_free(p->moves, TRUE);
	g_array_free(p->rest, TRUE);
	g_array_free(p->segs, TRUE);
	g_array_free(p->taken, TRUE);
	g_free(p);
}

int vg_pipeline_resize(vg_pipeline *p, int32_t width, int32_t height)
{
	vg_differ *differ;
	vg_motion *motion;
	int err;

	if ((err = make_sized(p, width, height, &differ, &motion)))
		return err;
	vg_differ_free(p->differ);
	vg_motion_free(p->motion);
	p->differ = differ;
	p->motion = motion;
	if (p->mask) {
		g_free(p->mask);
		p->mask = g_malloc0((size_t)width * (size_t)height);
	}
	p->width = width;
	p->height = height;
	g_array_set_size(p->todo, 0);
	g_array_set_size(p->moves, 0);
	g_array_set_size(p->segs, 0);
	p->n_changed = 0;
	p->moving = false;
	return VG_OK;
}

const vg_segparams *vg_pipeline_params(const vg_pipeline *p)
{
	return vg_segmenter_params(p->seg[0]);
}

/* Whether this update may have moves, before repairs and owed pixels are
 * counted: the viewer must take them. */
static bool may_move(const vg_pipeline *p)
{
	return p->cfg.moves && p->motion && vg_sender_takes_moves(p->sender);
}

/* Adds what of rgn lies in damage[0..n) to the todo. */
static void add_damaged_part(vg_pipeline *p, const vg_rect *damage, size_t n,
			     const vg_region *rgn)
{
	size_t i, k, n_rgn;
	const vg_rect *rs = vg_region_rects(rgn, &n_rgn);

	for (i = 0; i < n; i++)
		for (k = 0; k < n_rgn; k++) {
			vg_rect r = vg_rect_intersect(damage[i], rs[k]);

			if (!vg_rect_is_empty(r))
				g_array_append_val(p->todo, r);
		}
}

int vg_pipeline_begin(vg_pipeline *p, const vg_pixbuf *pic, const vg_rect *damage,
		      size_t n_damage, const vg_region *again)
{
	const vg_rect all = vg_pixbuf_rect(pic);
	const vg_rect *changed;
	size_t n_changed;
	bool repairing = again && !vg_region_is_empty(again);
	differ_job dj;
	uint64_t t0;
	int err, n_parts;

	memset(&p->times, 0, sizeof p->times);
	g_array_set_size(p->todo, 0);
	g_array_set_size(p->moves, 0);
	g_array_set_size(p->segs, 0);
	p->n_changed = 0;
	p->dir = VG_MOTION_NONE;
	if (!damage && n_damage == 0) {
		damage = &all;
		n_damage = 1;
	}
	/* Moves are looked up in what the viewer had before this update;
	 * the differ keeps it from the first update that may move on. */
	if (may_move(p))
		vg_differ_keep_previous(p->differ);
	p->moving = may_move(p) && !repairing;
	t0 = vg_time_ns();
	if ((err = vg_differ_begin(p->differ, pic, damage, n_damage)))
		return err;
	dj.differ = p->differ;
	dj.pic = pic;
	n_parts = parts_for(p, damage, n_damage);
	vg_differ_cut(p->differ, damage, n_damage, n_parts, dj.cuts);
	vg_workers_run(p->cfg.workers, differ_part, &dj, n_parts);
	vg_differ_end(p->differ, &changed, &n_changed);
	p->times.differ_ns = vg_time_ns() - t0;
	if (p->cfg.trust_damage) {
		changed = damage;
		n_changed = n_damage;
	}
	g_array_append_vals(p->todo, changed, (guint)n_changed);
	p->n_changed = n_changed;
	if (repairing)
		add_damaged_part(p, damage, n_damage, again);
	return VG_OK;
}

void vg_pipeline_add(vg_pipeline *p, const vg_rect *rects, size_t n)
{
	g_array_append_vals(p->todo, rects, (guint)n);
}

const vg_rect *vg_pipeline_todo(const vg_pipeline *p, size_t *n_todo, size_t *n_changed)
{
	*n_todo = p->todo->len;
	*n_changed = p->n_changed;
	return (const vg_rect *)(const void *)p->todo->data;
}

vg_motion *vg_pipeline_motion(vg_pipeline *p)
{
	return p->motion;
}

/* Marks rects[0..n) in p->mask with v. */
static void mask_rects(vg_pipeline *p, const vg_rect *rects, size_t n, uint8_t v)
{
	size_t i;
	int32_t y;

	for (i = 0; i < n; i++)
		for (y = rects[i].y; y < rects[i].y + rects[i].h; y++)
			memset(p->mask + (size_t)y * (size_t)p->width + rects[i].x, v,
			       (size_t)rects[i].w);
}

/* Adds static tiles over whatever the segments left uncovered inside
 * rects[0..n), so the viewer ends exact. Returns the number added. */
static uint64_t fill_gaps(vg_pipeline *p, const vg_pixbuf *pic, const vg_rect *rects, size_t n)
{
	const size_t W = (size_t)p->width;
	const vg_segdesc *tiles;
	size_t i, n_tiles, n_segs = p->segs->len;
	uint64_t added = 0;
	int32_t x, y;

	mask_rects(p, rects, n, 1);
	for (i = 0; i < n_segs; i++) {
		vg_rect r = g_array_index(p->segs, vg_segdesc, i).rect;

		for (y = r.y; y < r.y + r.h; y++)
			for (x = r.x; x < r.x + r.w; x++)
				if (p->mask[(size_t)y * W + (size_t)x])
					p->mask[(size_t)y * W + (size_t)x] = 2;
	}
	if (vg_segmenter_run(p->gap_seg, pic, rects, n, VG_ORIENT_ROWS, &tiles, &n_tiles) == 0) {
		for (i = 0; i < n_tiles; i++) {
			vg_rect r = tiles[i].rect;
			bool gap = false;

			for (y = r.y; y < r.y + r.h && !gap; y++)
				for (x = r.x; x < r.x + r.w && !gap; x++)
					gap = p->mask[(size_t)y * W + (size_t)x] == 1;
			if (gap) {
				g_array_append_val(p->segs, tiles[i]);
				added++;
			}
		}
	}
	mask_rects(p, rects, n, 0);
	return added;
}

/* The estimator's samples across two workers: rows, then columns. */
typedef struct {
	vg_motion *motion;
	const vg_pixbuf *pic;
	const vg_rect *changed;
	size_t n_changed;
} sample_job;

static void sample_part(void *arg, int part)
{
	sample_job *j = arg;

	vg_motion_sample_lines(j->motion, j->pic, j->changed, j->n_changed, part == 0);
}

/* Estimates the movement over the changed rectangles into *mr, leaving
 * the estimator's remembering to the split step. The list is never NULL,
 * which would make the estimator read the whole picture, beyond the
 * pixels the caller made current. */
static int estimate(vg_pipeline *p, const vg_pixbuf *pic, vg_motion_result *mr)
{
	sample_job j = { p->motion, pic, NULL, 0 };
	uint64_t t0 = vg_time_ns();
	size_t n_todo;
	int err;

	memset(mr, 0, sizeof *mr);
	if (!p->motion)
		return VG_OK;
	j.changed = vg_pipeline_todo(p, &n_todo, &j.n_changed);
	if ((err = vg_motion_sample_begin(p->motion, pic, j.changed, j.n_changed)))
		return err;
	/* Two parts, rows and columns; a small update's both on this thread. */
	vg_workers_run(parts_for(p, j.changed, j.n_changed) > 1 ? p->cfg.workers : NULL,
		       sample_part, &j, 2);
	vg_motion_sample_end(p->motion, pic, mr);
	p->times.motion_ns = vg_time_ns() - t0;
	return VG_OK;
}

static void run_part(void *arg, int part)
{
	split_job *j = arg;
	vg_pipeline *p = j->p;

	if (p->motion)
		vg_motion_remember(p->motion, j->pic, j->changed, j->n_changed, j->mcut[part],
				   j->mcut[part + 1]);
	if (j->n > 0)
		j->err[part] = vg_segmenter_run_bands(p->seg[part], j->pic, j->rects, j->n,
						      j->orient, j->scut[part], j->scut[part + 1],
						      &j->segs[part], &j->n_segs[part]);
}

/* Remembers the estimator's view of the changed rectangles and segments
 * rects[0..n) into p->segs, in parts across the workers: both read every
 * changed pixel, the bulk of a big update's segment step. */
static int split_step(vg_pipeline *p, const vg_pixbuf *pic, const vg_rect *rects, size_t n)
{
	split_job j;
	size_t n_todo;
	int i, n_parts;

	memset(&j, 0, sizeof j);
	j.changed = vg_pipeline_todo(p, &n_todo, &j.n_changed);
	n_parts = MAX(parts_for(p, j.changed, j.n_changed), parts_for(p, rects, n));
	j.p = p;
	j.pic = pic;
	j.rects = rects;
	j.n = n;
	j.orient = p->dir == VG_MOTION_HORIZONTAL ? VG_ORIENT_COLS : VG_ORIENT_ROWS;
	if (p->motion)
		vg_motion_cut(p->motion, j.changed, j.n_changed, n_parts, j.mcut);
	vg_segmenter_cut(p->seg[0], pic, rects, n, j.orient, n_parts, j.scut);
	vg_workers_run(p->cfg.workers, run_part, &j, n_parts);
	g_array_set_size(p->segs, 0);
	for (i = 0; i < n_parts; i++) {
		if (j.err[i])
			return j.err[i];
		g_array_append_vals(p->segs, j.segs[i], (guint)j.n_segs[i]);
	}
	return VG_OK;
}

int vg_pipeline_segment(vg_pipeline *p, const vg_pixbuf *pic, const vg_region *owed)
{
	const vg_rect *rects = (const vg_rect *)(void *)p->todo->data;
	size_t n = p->todo->len;
	vg_motion_result mr;
	uint64_t t0;
	int err;

	if ((err = estimate(p, pic, &mr)))
		return err;
	p->dir = mr.dir;
	t0 = vg_time_ns();
	/* What moved the viewer copies from its own picture. */
	if (p->moving) {
		if ((err = vg_moves_split(vg_differ_previous(p->differ), pic, rects, n, &mr, owed, p->moves,
					  p->rest)))
			return err;
		rects = (const vg_rect *)(void *)p->rest->data;
		n = p->rest->len;
	}
	if ((err = split_step(p, pic, rects, n)))
		return err;
	if (n > 0 && p->gap_seg)
		p->times.gap_segments = fill_gaps(p, pic, rects, n);
	p->times.segmenter_ns = vg_time_ns() - t0;
	return VG_OK;
}

void vg_pipeline_take(vg_pipeline *p, vg_motion_dir dir, const vg_segdesc *segs, size_t n)
{
	/* segs may be p's own: copied aside first, then the two arrays trade
	 * places, so that taking allocates nothing once both have grown. */
	GArray *t = p->taken;

	g_array_set_size(t, 0);
	g_array_append_vals(t, segs, (guint)n);
	p->taken = p->segs;
	p->segs = t;
	p->dir = dir;
}

vg_motion_dir vg_pipeline_dir(const vg_pipeline *p)
{
	return p->dir;
}

const vg_segdesc *vg_pipeline_segments(const vg_pipeline *p, size_t *n)
{
	*n = p->segs->len;
	return (const vg_segdesc *)(const void *)p->segs->data;
}

size_t vg_pipeline_n_moves(const vg_pipeline *p)
{
	return p->moves->len;
}

const vg_move *vg_pipeline_moves(const vg_pipeline *p, size_t *n)
{
	*n = p->moves->len;
	return (const vg_move *)(const void *)p->moves->data;
}

vg_rect vg_pipeline_bounds(const vg_pipeline *p)
{
	vg_rect b = vg_rect_make(0, 0, 0, 0);
	size_t i;

	for (i = 0; i < p->segs->len; i++)
		b = vg_rect_bounds(b, g_array_index(p->segs, vg_segdesc, i).rect);
	for (i = 0; i < p->moves->len; i++)
		b = vg_rect_bounds(b, g_array_index(p->moves, vg_move, i).rect);
	return b;
}

int vg_pipeline_send(vg_pipeline *p, const vg_pixbuf *pic, const vg_region *literal_only,
		     vg_writer *out)
{
	uint64_t t0 = vg_time_ns();
	int err = vg_sender_update_moves(p->sender, pic, (const vg_move *)(void *)p->moves->data,
					 p->moves->len, (const vg_segdesc *)(void *)p->segs->data,
					 p->segs->len, literal_only, out);

	p->times.sender_ns = vg_time_ns() - t0;
	return err;
}

const vg_pipeline_times *vg_pipeline_last_times(const vg_pipeline *p)
{
	return &p->times;
}
