/* Benchmarks for segment2d on 1280x1024 and 3328x1536 heat map screens:
 * differencing against memcmp of the same bytes, movement estimation,
 * segmentation throughput per method, and the per-frame cost of movement
 * estimation + Varg segmentation + content hashes; the live capture's tile
 * compare, with its pixels' padding byte masked in the compare against a
 * pass that clears it first. One core. Prints
 * `bench <name> <value> <unit>` lines. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "common/vg_time.h"
#include "segment2d/vg_differ.h"
#include "segment2d/vg_motion.h"
#include "segment2d/vg_segmenter.h"
#include "segment2d/vg_tilediff.h"
#include "tests/vg_testscene.h"

static volatile uint64_t sink;

typedef struct {
	vg_pixbuf *a, *b;      /* two frames: identical copies, or a scroll */
	vg_differ *differ;
	vg_motion *motion;
	vg_segmenter *seg;
	int flip;
	vg_rect *rects;        /* for the tile compare */
	size_t cap;
} ctx;

static double seconds_per_run(void (*fn)(ctx *), ctx *c)
{
	uint64_t t0, t;
	int runs = 0;

	fn(c); /* warm the caches and page tables */
	t0 = vg_time_ns();
	do {
		fn(c);
		runs++;
		t = vg_time_ns();
	} while (t - t0 < 300000000u || runs < 5);
	return (double)(t - t0) / 1e9 / runs;
}

static void run_memcmp(ctx *c)
{
	sink += (uint64_t)memcmp(c->a->pixels, c->b->pixels,
				 (size_t)c->a->width * c->a->height * 4);
}

/* The differ's saved frame equals a; compare b (identical) against it. */
static void run_differ_same(ctx *c)
{
	const vg_rect *ch;
	size_t n;

	vg_differ_update(c->differ, c->b, NULL, 0, &ch, &n);
	sink += n;
}

/* Alternate two different frames: everything changes every time. */
static void run_differ_scroll(ctx *c)
{
	const vg_rect *ch;
	size_t n;

	vg_differ_update(c->differ, (c->flip ^= 1) ? c->b : c->a, NULL, 0, &ch, &n);
	sink += n;
}

static void run_motion(ctx *c)
{
	vg_motion_result r;

	vg_motion_estimate(c->motion, (c->flip ^= 1) ? c->b : c->a, NULL, 0, &r);
	sink += (uint64_t)r.offset;
}

static void run_segment(ctx *c)
{
	const vg_segdesc *segs;
	size_t n;

	vg_segmenter_run(c->seg, c->a, NULL, 0, VG_ORIENT_ROWS, &segs, &n);
	sink += n ? segs[n - 1].hash : 0;
}

/* What the server does per full-frame update after differencing. */
static void run_motion_segment(ctx *c)
{
	const vg_pixbuf *f = (c->flip ^= 1) ? c->b : c->a;
	const vg_segdesc *segs;
	vg_motion_result r;
	size_t n;

	vg_motion_estimate(c->motion, f, NULL, 0, &r);
	vg_segmenter_run(c->seg, f, NULL, 0,
			 r.dir == VG_MOTION_HORIZONTAL ? VG_ORIENT_COLS : VG_ORIENT_ROWS, &segs, &n);
	sink += n ? segs[n - 1].hash : 0;
}

/* The capture's compare of an unchanged screen: every tile read. */
static void run_tilediff_masked(ctx *c)
{
	size_t n;

	vg_tilediff_masked(c->a, c->b, VG_PIXEL_MASK, 32, c->rects, c->cap, &n);
	sink += n;
}

/* What the mask in the compare saves: a pass over the X server's image
 * to clear the padding byte, then the unmasked compare (the capture's
 * way before the mask went in, with today's compare). */
static void run_mask_then_tilediff(ctx *c)
{
	size_t n, i, count = (size_t)c->b->height * (size_t)c->b->stride;

	for (i = 0; i < count; i++)
		c->b->pixels[i] &= VG_PIXEL_MASK;
	vg_tilediff(c->a, c->b, 32, c->rects, c->cap, &n);
	sink += n;
}

int main(void)
{
	static const int sizes[][2] = { { 1280, 1024 }, { 3328, 1536 } };
	size_t i;
	int m;

	for (i = 0; i < G_N_ELEMENTS(sizes); i++) {
		const int w = sizes[i][0], h = sizes[i][1];
		const double mb = (double)w * h * 4 / 1e6;
		vg_pixbuf *doc = vg_testscene_new(VG_SCENE_HEATMAP, w, h + 64, 1);
		vg_pixbuf *f0 = vg_testscene_frame(doc, 0, 0, w, h);
		vg_pixbuf *f0b = vg_testscene_frame(doc, 0, 0, w, h);
		vg_pixbuf *f1 = vg_testscene_frame(doc, 0, 37, w, h);
		ctx same = { f0, f0b, NULL, NULL, NULL, 0, NULL, 0 }, scroll = { f0, f1, NULL, NULL, NULL, 0, NULL, 0 };
		double t_memcmp, t_same, t_scroll, t_motion, t_all, t_tile, t_masktile;
		vg_segparams p;

		vg_differ_new(w, h, 0, &same.differ);
		vg_differ_reset(same.differ, f0);
		vg_differ_new(w, h, 0, &scroll.differ);
		t_memcmp = seconds_per_run(run_memcmp, &same);
		t_same = seconds_per_run(run_differ_same, &same);
		t_scroll = seconds_per_run(run_differ_scroll, &scroll);
		printf("bench memcmp_%dx%d %.0f MB/s\n", w, h, mb / t_memcmp);
		printf("bench differ_unchanged_%dx%d %.0f MB/s\n", w, h, mb / t_same);
		printf("bench differ_vs_memcmp_%dx%d %.2f ratio\n", w, h, t_same / t_memcmp);
		printf("bench differ_scrolled_%dx%d %.0f MB/s\n", w, h, mb / t_scroll);

		same.cap = vg_tilediff_max_rects(w, h, 32);
		same.rects = g_new(vg_rect, same.cap);
		t_tile = seconds_per_run(run_tilediff_masked, &same);
		t_masktile = seconds_per_run(run_mask_then_tilediff, &same);
		printf("bench capture_compare_masked_%dx%d %.3f ms\n", w, h, t_tile * 1e3);
		printf("bench capture_compare_mask_pass_first_%dx%d %.3f ms\n", w, h, t_masktile * 1e3);
		printf("bench capture_compare_vs_memcmp_%dx%d %.2f ratio\n", w, h, t_tile / t_memcmp);
		g_free(same.rects);

		vg_motion_new(w, h, 0, 0, &scroll.motion);
		t_motion = seconds_per_run(run_motion, &scroll);
		printf("bench motion_scrolled_%dx%d %.3f ms\n", w, h, t_motion * 1e3);

		for (m = VG_SEGMETHOD_VARG; m <= VG_SEGMETHOD_KARPRABIN; m++) {
			double t;

			vg_segparams_init(&p, (vg_segmethod)m);
			vg_segmenter_new(&p, &scroll.seg);
			t = seconds_per_run(run_segment, &scroll);
			printf("bench segment_%s_%dx%d %.0f MB/s\n", vg_segmethod_name((vg_segmethod)m),
			       w, h, mb / t);
			if (m == VG_SEGMETHOD_VARG) {
				printf("bench segment_%s_%dx%d_time %.3f ms\n",
				       vg_segmethod_name((vg_segmethod)m), w, h, t * 1e3);
				t_all = seconds_per_run(run_motion_segment, &scroll);
				printf("bench motion_segment_hash_%dx%d %.3f ms\n", w, h, t_all * 1e3);
			}
			vg_segmenter_free(scroll.seg);
			scroll.seg = NULL;
		}
		vg_motion_free(scroll.motion);
		vg_differ_free(same.differ);
		vg_differ_free(scroll.differ);
		vg_pixbuf_free(doc);
		vg_pixbuf_free(f0);
		vg_pixbuf_free(f0b);
		vg_pixbuf_free(f1);
	}
	return 0;
}
