/* Segmenters: Varg (static columns, content-anchored rows), static grid,
 * 2-D content-based and Karp-Rabin probabilistic 2-D segmentation.
 * doc/segmentation.md is the prose version of this file.
 */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_seghash.h"
#include "segment2d/vg_segmenter.h"

/* A half-open run of rows (or columns) [a, b). */
typedef struct {
	int32_t a, b;
} span;

struct vg_segmenter {
	vg_segparams p;
	vg_segdesc *segs;   /* results of the last run */
	size_t n_segs, cap_segs;
	uint64_t *hashes;   /* slice hashes of the strip being cut */
	size_t cap_hashes;
	uint64_t *hashes2;  /* column hashes (CONTENT2D), rolling sums (KARPRABIN) */
	size_t cap_hashes2;
	span *spans;        /* merged spans of one column or band */
	size_t n_spans, cap_spans;
	span *all;          /* the spans of a group of bands, one after another */
	size_t n_all, cap_all;
	uint8_t *marks;     /* touched tiles */
	size_t cap_marks;
};

/* ---- parameters -------------------------------------------------------- */

void vg_segparams_init(vg_segparams *p, vg_segmethod method)
{
	memset(p, 0, sizeof *p);
	p->method = method;
	p->column_width = 16;
	p->anchor_bits = 3;
	p->min_height = 16;
	p->similar_run = 8;
	p->max_height = 0;
	p->similar_chunk = 64;
	p->tile_w = 16;
	p->tile_h = 16;
	p->big_tile = 128;
	p->col_bits = 3;
	p->min_width = 8;
	p->window = 16;
	p->select_bits = 8;
}

int vg_segparams_check(const vg_segparams *p)
{
	if (!p)
		return VG_EINVAL;
	switch (p->method) {
	case VG_SEGMETHOD_VARG:
	case VG_SEGMETHOD_STATIC:
	case VG_SEGMETHOD_CONTENT2D:
	case VG_SEGMETHOD_KARPRABIN:
		break;
	default:
		return VG_EINVAL;
	}
	if (p->column_width < 1 || p->column_width > 4096)
		return VG_EINVAL;
	if (p->anchor_bits < 0 || p->anchor_bits > 20 || p->col_bits < 0 || p->col_bits > 20)
		return VG_EINVAL;
	if (p->min_height < 1 || p->min_height > VG_MAX_DIM)
		return VG_EINVAL;
	if (p->similar_run < 0 || p->similar_run > VG_MAX_DIM || p->similar_run == 1)
		return VG_EINVAL;
	if (p->max_height < 0 || p->max_height > VG_MAX_DIM)
		return VG_EINVAL;
	if (p->similar_chunk < 0 || p->similar_chunk > VG_MAX_DIM)
		return VG_EINVAL;
	if (p->max_height > 0 && p->max_height < p->min_height)
		return VG_EINVAL;
	if (p->tile_w < 1 || p->tile_w > VG_MAX_DIM || p->tile_h < 1 || p->tile_h > VG_MAX_DIM)
		return VG_EINVAL;
	if (p->big_tile < 1 || p->big_tile > VG_MAX_DIM)
		return VG_EINVAL;
	if (p->min_width < 1 || p->min_width > VG_MAX_DIM)
		return VG_EINVAL;
	if (p->window < 1 || p->window > 256 || p->select_bits < 0 || p->select_bits > 30)
		return VG_EINVAL;
	return VG_OK;
}

static const char *const method_names[] = { "varg", "static", "content2d", "karprabin" };

const char *vg_segmethod_name(vg_segmethod method)
{
	if ((unsigned)method < G_N_ELEMENTS(method_names))
		return method_names[method];
	return "unknown";
}

int vg_segmethod_parse(const char *name, vg_segmethod *out)
{
	size_t i;

	for (i = 0; name && i < G_N_ELEMENTS(method_names); i++)
		if (strcmp(name, method_names[i]) == 0) {
			*out = (vg_segmethod)i;
			return VG_OK;
		}
	return VG_EINVAL;
}

/* ---- life cycle ------------------------------------------------------- */

int vg_segmenter_new(const vg_segparams *params, vg_segmenter **out)
{
	vg_segmenter *s;

	*out = NULL;
	if (vg_segparams_check(params) < 0)
		return VG_EINVAL;
	s = g_new0(vg_segmenter, 1);
	s->p = *params;
	*out = s;
	return VG_OK;
}

void vg_segmenter_free(vg_segmenter *s)
{
	if (!s)
		return;
	g_free(s->segs);
	g_free(s->hashes);
	g_free(s->hashes2);
	g_free(s->spans);
	g_free(s->all);
	g_free(s->marks);
	g_free(s);
}

const vg_segparams *vg_segmenter_params(const vg_segmenter *s)
{
	return &s->p;
}

/* ---- scratch and output ----------------------------------------------- */

static uint64_t *hashes_reserve(vg_segmenter *s, size_t n)
{
	if (n > s->cap_hashes) {
		s->cap_hashes = MAX(n, 2 * s->cap_hashes);
		s->hashes = g_renew(uint64_t, s->hashes, s->cap_hashes);
	}
	return s->hashes;
}

static uint64_t *hashes2_reserve(vg_segmenter *s, size_t n)
{
	if (n > s->cap_hashes2) {
		s->cap_hashes2 = MAX(n, 2 * s->cap_hashes2);
		s->hashes2 = g_renew(uint64_t, s->hashes2, s->cap_hashes2);
	}
	return s->hashes2;
}

static uint8_t *marks_reserve(vg_segmenter *s, size_t n)
{
	if (n > s->cap_marks) {
		s->cap_marks = MAX(n, 2 * s->cap_marks);
		s->marks = g_renew(uint8_t, s->marks, s->cap_marks);
	}
	memset(s->marks, 0, n);
	return s->marks;
}

static void push_seg(vg_segmenter *s, vg_rect r, uint64_t hash, vg_orient orient,
		     vg_segkind kind)
{
	vg_segdesc *d;

	if (s->n_segs == s->cap_segs) {
		s->cap_segs = s->cap_segs ? 2 * s->cap_segs : 256;
		s->segs = g_renew(vg_segdesc, s->segs, s->cap_segs);
	}
	d = &s->segs[s->n_segs++];
	d->rect = r;
	d->hash = hash;
	d->orient = (uint8_t)orient;
	d->kind = (uint8_t)kind;
}

static void push_span(vg_segmenter *s, int32_t a, int32_t b)
{
	if (s->n_spans == s->cap_spans) {
		s->cap_spans = s->cap_spans ? 2 * s->cap_spans : 64;
		s->spans = g_renew(span, s->spans, s->cap_spans);
	}
	s->spans[s->n_spans].a = a;
	s->spans[s->n_spans].b = b;
	s->n_spans++;
}

/* Appends s->spans to s->all. */
static void all_append(vg_segmenter *s)
{
	if (s->n_all + s->n_spans > s->cap_all) {
		s->cap_all = MAX(s->n_all + s->n_spans, 2 * s->cap_all);
		s->all = g_renew(span, s->all, s->cap_all);
	}
	memcpy(s->all + s->n_all, s->spans, s->n_spans * sizeof(span));
	s->n_all += s->n_spans;
}

static int span_cmp(const void *pa, const void *pb)
{
	const span *a = pa, *b = pb;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return (a->b > b->b) - (a->b < b->b);
}

/* Sorts s->spans and merges the ones that overlap or touch, in place. */
static void merge_spans(vg_segmenter *s)
{
	size_t i, o = 0;

	if (s->n_spans < 2)
		return;
	qsort(s->spans, s->n_spans, sizeof(span), span_cmp);
	for (i = 1; i < s->n_spans; i++) {
		if (s->spans[i].a <= s->spans[o].b) {
			if (s->spans[i].b > s->spans[o].b)
				s->spans[o].b = s->spans[i].b;
		} else {
			s->spans[++o] = s->spans[i];
		}
	}
	s->n_spans = o + 1;
}

/* ---- the strip cutter shared by VARG and CONTENT2D -------------------- */

/* Where a strip lies on screen: slice i of the strip is screen row y0 + i
 * (ROWS, slices of width `width` starting at x0) or screen column x0 + i
 * (COLS, slices of height `width` starting at y0). */
typedef struct {
	int32_t x0, y0, width;
	vg_orient orient;
} strip_geom;

static void emit(vg_segmenter *s, const strip_geom *g, const uint64_t *h, int32_t a,
		 int32_t b, vg_segkind kind)
{
	vg_rect r;
	uint64_t st;
	int32_t i;

	if (g->orient == VG_ORIENT_COLS)
		r = vg_rect_make(g->x0 + a, g->y0, b - a, g->width);
	else
		r = vg_rect_make(g->x0, g->y0 + a, g->width, b - a);
	st = vg_seghash_begin(r.w, r.h, g->orient);
	for (i = a; i < b; i++)
		st = vg_seghash_add(st, h[i]);
	push_seg(s, r, vg_seghash_end(st), g->orient, kind);
}

/* The anchor test of slice i: the top k bits of its selection value are
 * zero. The value is the slice hash itself for a slice that differs from
 * the one before it, and a mix of the hash with j for the j-th repeat in a
 * run of identical slices (the 6 equal rows of a heat map cell, say):
 * otherwise all rows of a run would be anchors or none, and repeated
 * content would get one anchor chance per run instead of per row. Both
 * inputs are content: the position on screen never enters. */
static inline bool is_anchor(uint64_t h, int32_t j, int shift)
{
	uint64_t v = j == 0 ? h : vg_seghash_fmix(h + (uint64_t)j * VG_SEGHASH_K1);

	return (v >> shift) == 0;
}

/* Cuts slices [0, n) whose hashes are h[] into segments:
 *  - a run of >= s identical hashes becomes similar segments: chunks of
 *    similar_chunk (or max_height if smaller) slices, the remainder
 *    first, or the whole run when both are 0; the segment before it ends
 *    where the run starts, even if that is closer than m to the last cut;
 *  - otherwise a slice starts a new segment when it is an anchor (see
 *    is_anchor) and lies >= m slices after the last cut, or when the
 *    segment would grow past max_height;
 *  - slice 0 always starts a segment and slice n-1 always ends one.
 * The minimum distance is measured from the last cut, so after a scroll the
 * cuts near the top of a region may differ until the sequence falls back
 * into step with the old one. */
static void cut_strip(vg_segmenter *s, const strip_geom *g, const uint64_t *h, int32_t n,
		      const vg_segparams *p)
{
	const int32_t k = p->anchor_bits, m = p->min_height, sim = p->similar_run;
	const int32_t maxh = p->max_height;
	const int32_t chunk = maxh > 0 && (p->similar_chunk == 0 || maxh < p->similar_chunk)
				      ? maxh : p->similar_chunk;
	const int shift = 64 - k;
	int32_t start = 0, i = 0, run_start = 0, run_end = 0;

	while (i < n) {
		if (i >= run_end) {
			int32_t j = i + 1;

			while (j < n && h[j] == h[i])
				j++;
			run_start = i;
			run_end = j;
			if (sim > 0 && j - i >= sim) {
				int32_t a = i;

				if (i > start)
					emit(s, g, h, start, i, VG_SEG_NORMAL);
				/* Chunks of `chunk` rows, the remainder first: all
				 * full chunks of a run hash alike, so a run cut short
				 * by the region's edge still matches except for its
				 * remainder. */
				if (chunk > 0 && (j - i) % chunk != 0) {
					emit(s, g, h, a, a + (j - i) % chunk, VG_SEG_SIMILAR);
					a += (j - i) % chunk;
				}
				while (a < j) {
					int32_t b = chunk > 0 ? a + chunk : j;
					emit(s, g, h, a, b, VG_SEG_SIMILAR);
					a = b;
				}
				start = i = j;
				continue;
			}
		}
		if (i > start) {
			int32_t len = i - start;

			if ((len >= m && (k == 0 || is_anchor(h[i], i - run_start, shift))) ||
			    (maxh > 0 && len >= maxh)) {
				emit(s, g, h, start, i, VG_SEG_NORMAL);
				start = i;
			}
		}
		i++;
	}
	if (start < n)
		emit(s, g, h, start, n, VG_SEG_NORMAL);
}

/* ---- VARG ------------------------------------------------------------- */

/* Collects into s->spans the merged extents, along the strip, of the rects
 * that meet the band [b0, b1) across it. */
static void band_spans(vg_segmenter *s, const vg_rect *rects, size_t n, vg_orient orient,
		       int32_t b0, int32_t b1)
{
	size_t i;

	s->n_spans = 0;
	for (i = 0; i < n; i++) {
		const vg_rect *r = &rects[i];
		int32_t c0 = orient == VG_ORIENT_COLS ? r->y : r->x;
		int32_t c1 = c0 + (orient == VG_ORIENT_COLS ? r->h : r->w);

		if (c1 <= b0 || c0 >= b1)
			continue;
		if (orient == VG_ORIENT_COLS)
			push_span(s, r->x, r->x + r->w);
		else
			push_span(s, r->y, r->y + r->h);
	}
	merge_spans(s);
}

/* Hashes the slices of the spans of bands [g0, g1) (ROWS: columns of
 * width w at x = b * w) into hm[(b - g0) * height + y], going down the
 * frame a row at a time and across all bands in each row, so memory is
 * read nearly in order: a column at a time would touch a new page for
 * every row. next[b - g0] follows each band's first span not yet passed
 * (the spans are sorted and disjoint), so a row costs the bands' spans
 * that hold it, not all of them: a text page has hundreds. */
static void hash_band_group(vg_segmenter *s, const vg_pixbuf *f, int32_t g0, int32_t g1,
			    const size_t *first, size_t *next, uint64_t *hm)
{
	const int32_t w = s->p.column_width;
	int32_t y, b;

	for (b = g0; b < g1; b++)
		next[b - g0] = first[b - g0];
	for (y = 0; y < f->height; y++) {
		const uint32_t *row = vg_pixbuf_row(f, y);

		for (b = g0; b < g1; b++) {
			const size_t end = first[b - g0 + 1];
			size_t si = next[b - g0];

			while (si < end && s->all[si].b <= y)
				si++;
			next[b - g0] = si;
			if (si < end && s->all[si].a <= y) {
				const int32_t x0 = b * w;

				hm[(size_t)(b - g0) * f->height + y] =
					vg_seghash_slice(row + x0, MIN(w, f->width - x0));
			}
		}
	}
}

/* Segments bands [band0, band1). */
static void run_varg(vg_segmenter *s, const vg_pixbuf *f, const vg_rect *rects, size_t n,
		     vg_orient orient, int32_t band0, int32_t band1)
{
	const vg_segparams *p = &s->p;
	const int32_t across = orient == VG_ORIENT_COLS ? f->height : f->width;
	const int32_t along = orient == VG_ORIENT_COLS ? f->width : f->height;
	const int32_t n_bands = band1 - band0;
	/* Bands hashed together: at most about 2^20 hashes (8 MB) at once. */
	const int32_t group = orient == VG_ORIENT_COLS ? 1 : MAX(1, MIN(n_bands, (1 << 20) / along));
	uint64_t *hm = hashes_reserve(s, (size_t)group * along);
	size_t *first = g_new(size_t, (size_t)group + 1);
	size_t *next = g_new(size_t, (size_t)group);
	int32_t g0, b;

	for (g0 = band0; g0 < band1; g0 += group) {
		const int32_t g1 = MIN(band1, g0 + group);

		s->n_all = 0;
		for (b = g0; b < g1; b++) {
			int32_t b0 = b * p->column_width, bw = MIN(p->column_width, across - b0);

			first[b - g0] = s->n_all;
			band_spans(s, rects, n, orient, b0, b0 + bw);
			all_append(s);
		}
		first[g1 - g0] = s->n_all;
		if (orient == VG_ORIENT_ROWS)
			hash_band_group(s, f, g0, g1, first, next, hm);
		for (b = g0; b < g1; b++) {
			int32_t b0 = b * p->column_width, bw = MIN(p->column_width, across - b0);
			uint64_t *h = hm + (size_t)(b - g0) * along;
			size_t si;

			for (si = first[b - g0]; si < first[b - g0 + 1]; si++) {
				int32_t a = s->all[si].a, len = s->all[si].b - a, i;
				strip_geom g;

				if (orient == VG_ORIENT_COLS) {
					/* Consecutive columns share the cache lines of
					 * the band's few rows: already in memory order. */
					const uint32_t *base = vg_pixbuf_row(f, b0) + a;
					for (i = 0; i < len; i++)
						h[a + i] = vg_seghash_slice_step(base + i, bw, f->stride);
					g = (strip_geom){ a, b0, bw, orient };
				} else {
					g = (strip_geom){ b0, a, bw, orient };
				}
				cut_strip(s, &g, h + a, len, p);
			}
		}
	}
	g_free(first);
	g_free(next);
}

/* ---- tiles touched by the rects (STATIC, CONTENT2D) ------------------- */

/* Marks in s->marks (nx * ny bytes, row-major) the tw x th tiles of the
 * frame that meet a rect. */
static uint8_t *mark_tiles(vg_segmenter *s, const vg_rect *rects, size_t n, int32_t tw,
			   int32_t th, int32_t nx, int32_t ny)
{
	uint8_t *m = marks_reserve(s, (size_t)nx * (size_t)ny);
	size_t i;

	for (i = 0; i < n; i++) {
		const vg_rect *r = &rects[i];
		int32_t tx, ty;

		for (ty = r->y / th; ty <= (r->y + r->h - 1) / th; ty++)
			for (tx = r->x / tw; tx <= (r->x + r->w - 1) / tw; tx++)
				m[(size_t)ty * nx + tx] = 1;
	}
	return m;
}

static uint64_t hash_rect_rows(const vg_pixbuf *f, vg_rect r)
{
	uint64_t st = vg_seghash_begin(r.w, r.h, VG_ORIENT_ROWS);
	int32_t y;

	for (y = r.y; y < r.y + r.h; y++)
		st = vg_seghash_add(st, vg_seghash_slice(vg_pixbuf_row(f, y) + r.x, r.w));
	return vg_seghash_end(st);
}

static void run_static(vg_segmenter *s, const vg_pixbuf *f, const vg_rect *rects, size_t n)
{
	const int32_t tw = s->p.tile_w, th = s->p.tile_h;
	const int32_t nx = (f->width + tw - 1) / tw, ny = (f->height + th - 1) / th;
	const uint8_t *m = mark_tiles(s, rects, n, tw, th, nx, ny);
	int32_t tx, ty;

	for (ty = 0; ty < ny; ty++)
		for (tx = 0; tx < nx; tx++) {
			vg_rect r;

			if (!m[(size_t)ty * nx + tx])
				continue;
			r = vg_rect_intersect(vg_rect_make(tx * tw, ty * th, tw, th),
					      vg_pixbuf_rect(f));
			push_seg(s, r, hash_rect_rows(f, r), VG_ORIENT_ROWS, VG_SEG_NORMAL);
		}
}

/* ---- CONTENT2D -------------------------------------------------------- */

/* Each touched big tile is cut into columns at anchor columns (a column
 * whose hash over the tile's height passes selection with col_bits, at
 * least min_width after the previous cut; the first column always starts
 * one), then each column is cut at anchor rows exactly as VARG cuts its
 * static columns. */
static void run_content2d(vg_segmenter *s, const vg_pixbuf *f, const vg_rect *rects, size_t n)
{
	const vg_segparams *p = &s->p;
	const int32_t t = p->big_tile;
	const int32_t nx = (f->width + t - 1) / t, ny = (f->height + t - 1) / t;
	const uint8_t *m = mark_tiles(s, rects, n, t, t, nx, ny);
	const int shift = 64 - p->col_bits;
	uint64_t *ch = hashes2_reserve(s, (size_t)t);
	uint64_t *h = hashes_reserve(s, (size_t)t);
	int32_t tx, ty;

	for (ty = 0; ty < ny; ty++)
		for (tx = 0; tx < nx; tx++) {
			vg_rect r;
			int32_t c, start = 0;

			if (!m[(size_t)ty * nx + tx])
				continue;
			r = vg_rect_intersect(vg_rect_make(tx * t, ty * t, t, t), vg_pixbuf_rect(f));
			for (c = 0; c < r.w; c++)
				ch[c] = vg_seghash_slice_step(vg_pixbuf_row(f, r.y) + r.x + c, r.h,
							      f->stride);
			for (c = 1; c <= r.w; c++) {
				bool cut = c == r.w || (c - start >= p->min_width &&
							(p->col_bits == 0 || (ch[c] >> shift) == 0));
				strip_geom g;
				int32_t i;

				if (!cut)
					continue;
				g = (strip_geom){ r.x + start, r.y, c - start, VG_ORIENT_ROWS };
				for (i = 0; i < r.h; i++)
					h[i] = vg_seghash_slice(vg_pixbuf_row(f, r.y + i) + g.x0, g.width);
				cut_strip(s, &g, h, r.h, p);
				start = c;
			}
		}
}

/* ---- KARPRABIN -------------------------------------------------------- */

#define KR_BASE_Y 0x100000001b3ull       /* odd multipliers of the two */
#define KR_BASE_X 0x9e3779b97f4a7c15ull  /* polynomial directions */

static uint64_t pow64(uint64_t b, int32_t e)
{
	uint64_t r = 1;

	while (e-- > 0)
		r *= b;
	return r;
}

/* Over the bounding box of the rects, every window x window square gets
 * the polynomial fingerprint
 *   F = sum_{i,j < m} p[y+i][x+j] * BY^(m-1-i) * BX^(m-1-j)   (mod 2^64),
 * rolled down the rows per column and then across the columns. A window
 * whose mixed fingerprint passes selection with select_bits becomes a
 * segment. An area smaller than a window becomes one segment. */
static void run_karprabin(vg_segmenter *s, const vg_pixbuf *f, const vg_rect *rects, size_t n)
{
	const int32_t m = s->p.window;
	const int shift = 64 - s->p.select_bits;
	const uint64_t py = pow64(KR_BASE_Y, m - 1), px = pow64(KR_BASE_X, m - 1);
	vg_rect box = vg_rect_make(0, 0, 0, 0);
	uint64_t *v;
	int32_t x, y;
	size_t i;

	for (i = 0; i < n; i++)
		box = vg_rect_bounds(box, rects[i]);
	if (box.w < m || box.h < m) {
		push_seg(s, box, hash_rect_rows(f, box), VG_ORIENT_ROWS, VG_SEG_NORMAL);
		return;
	}
	v = hashes2_reserve(s, (size_t)box.w);
	for (x = 0; x < box.w; x++) {
		uint64_t acc = 0;

		for (y = 0; y < m; y++)
			acc = acc * KR_BASE_Y + (vg_pixbuf_row(f, box.y + y)[box.x + x] & VG_PIXEL_MASK);
		v[x] = acc;
	}
	for (y = 0; y + m <= box.h; y++) {
		const uint32_t *top = vg_pixbuf_row(f, box.y + y) + box.x;
		uint64_t fp = 0;

		for (x = 0; x < m; x++)
			fp = fp * KR_BASE_X + v[x];
		for (x = 0;; x++) {
			if (s->p.select_bits == 0 ||
			    (vg_seghash_fmix(fp ^ VG_SEGHASH_SEED) >> shift) == 0) {
				vg_rect r = vg_rect_make(box.x + x, box.y + y, m, m);
				push_seg(s, r, hash_rect_rows(f, r), VG_ORIENT_ROWS, VG_SEG_NORMAL);
			}
			if (x + m >= box.w)
				break;
			fp = (fp - v[x] * px) * KR_BASE_X + v[x + m];
		}
		if (y + m < box.h) {
			const uint32_t *bot = vg_pixbuf_row(f, box.y + y + m) + box.x;
			for (x = 0; x < box.w; x++)
				v[x] = (v[x] - (top[x] & VG_PIXEL_MASK) * py) * KR_BASE_Y +
				       (bot[x] & VG_PIXEL_MASK);
		}
	}
}

/* ---- entry points ----------------------------------------------------- */

int32_t vg_segmenter_n_bands(const vg_segmenter *s, const vg_pixbuf *frame, vg_orient orient)
{
	const int32_t across = orient == VG_ORIENT_COLS ? frame->height : frame->width;

	if (s->p.method != VG_SEGMETHOD_VARG)
		return 1;
	return MAX(1, (across + s->p.column_width - 1) / s->p.column_width);
}

void vg_segmenter_cut(const vg_segmenter *s, const vg_pixbuf *frame, const vg_rect *rects,
		      size_t n_rects, vg_orient orient, int n_parts, int32_t *cuts)
{
	const vg_rect all = vg_pixbuf_rect(frame);
	const int32_t n_bands = vg_segmenter_n_bands(s, frame, orient);

	if (!rects) {
		rects = &all;
		n_rects = 1;
	}
	vg_rects_cut_stripes(rects, n_rects, orient == VG_ORIENT_ROWS,
			     n_bands > 1 ? s->p.column_width : MAX(frame->width, frame->height),
			     n_bands, n_parts, cuts);
}

int vg_segmenter_run(vg_segmenter *s, const vg_pixbuf *frame, const vg_rect *rects,
		     size_t n_rects, vg_orient orient, const vg_segdesc **segs, size_t *n_segs)
{
	return vg_segmenter_run_bands(s, frame, rects, n_rects, orient, 0,
				      vg_segmenter_n_bands(s, frame, orient), segs, n_segs);
}

int vg_segmenter_run_bands(vg_segmenter *s, const vg_pixbuf *frame, const vg_rect *rects,
			   size_t n_rects, vg_orient orient, int32_t band0, int32_t band1,
			   const vg_segdesc **segs, size_t *n_segs)
{
	const vg_rect all = vg_pixbuf_rect(frame);
	vg_rect *clipped;
	size_t i, n = 0;

	*segs = NULL;
	*n_segs = 0;
	if (orient != VG_ORIENT_ROWS && orient != VG_ORIENT_COLS)
		return VG_EINVAL;
	if (!rects && n_rects > 0)
		return VG_EINVAL;
	s->n_segs = 0;
	if (frame->width < 1 || frame->height < 1)
		return VG_OK;
	if (band0 < 0 || band1 > vg_segmenter_n_bands(s, frame, orient))
		return VG_EINVAL;
	if (band0 >= band1)
		return VG_OK;
	if (!rects) {
		rects = &all;
		n_rects = 1;
	}
	/* Clip once, so every method may assume rects inside the frame. */
	clipped = g_new(vg_rect, n_rects);
	for (i = 0; i < n_rects; i++) {
		vg_rect r = vg_rect_intersect(rects[i], all);
		if (!vg_rect_is_empty(r))
			clipped[n++] = r;
	}
	if (n > 0) {
		switch (s->p.method) {
		case VG_SEGMETHOD_VARG:
			run_varg(s, frame, clipped, n, orient, band0, band1);
			break;
		case VG_SEGMETHOD_STATIC:
			run_static(s, frame, clipped, n);
			break;
		case VG_SEGMETHOD_CONTENT2D:
			run_content2d(s, frame, clipped, n);
			break;
		case VG_SEGMETHOD_KARPRABIN:
			run_karprabin(s, frame, clipped, n);
			break;
		}
	}
	g_free(clipped);
	*segs = s->segs;
	*n_segs = s->n_segs;
	return VG_OK;
}

void vg_segs_coverage(const vg_segdesc *segs, size_t n_segs, vg_rect area, int64_t *covered,
		      int64_t *overlap)
{
	uint8_t *cnt;
	int64_t c = 0, o = 0, k, total;
	size_t i;

	*covered = *overlap = 0;
	if (vg_rect_is_empty(area))
		return;
	total = vg_rect_area(area);
	cnt = g_new0(uint8_t, (size_t)total);
	for (i = 0; i < n_segs; i++) {
		vg_rect r = vg_rect_intersect(segs[i].rect, area);
		int32_t x, y;

		for (y = r.y; y < r.y + r.h && r.w > 0; y++) {
			uint8_t *row = cnt + (size_t)(y - area.y) * area.w + (r.x - area.x);
			for (x = 0; x < r.w; x++)
				if (row[x] < 255)
					row[x]++;
		}
	}
	for (k = 0; k < total; k++) {
		c += cnt[k] > 0;
		o += cnt[k] > 1;
	}
	g_free(cnt);
	*covered = c;
	*overlap = o;
}
