#include <stdlib.h>
#include <string.h>

#include "common/vg_mem.h"
#include "common/vg_rect.h"

struct vg_region {
	vg_rect *rects;
	size_t n, cap;
};

static int32_t max32(int32_t a, int32_t b) { return a > b ? a : b; }
static int32_t min32(int32_t a, int32_t b) { return a < b ? a : b; }

vg_rect vg_rect_intersect(vg_rect a, vg_rect b)
{
	int32_t x0 = max32(a.x, b.x), y0 = max32(a.y, b.y);
	int64_t x1 = (int64_t)min32(a.x + a.w, b.x + b.w);
	int64_t y1 = (int64_t)min32(a.y + a.h, b.y + b.h);

	if (vg_rect_is_empty(a) || vg_rect_is_empty(b) || x1 <= x0 || y1 <= y0)
		return vg_rect_make(a.x, a.y, 0, 0);
	return vg_rect_make(x0, y0, (int32_t)(x1 - x0), (int32_t)(y1 - y0));
}

vg_rect vg_rect_bounds(vg_rect a, vg_rect b)
{
	int32_t x0, y0, x1, y1;

	if (vg_rect_is_empty(a))
		return b;
	if (vg_rect_is_empty(b))
		return a;
	x0 = min32(a.x, b.x);
	y0 = min32(a.y, b.y);
	x1 = max32(a.x + a.w, b.x + b.w);
	y1 = max32(a.y + a.h, b.y + b.h);
	return vg_rect_make(x0, y0, x1 - x0, y1 - y0);
}

bool vg_rect_contains(vg_rect outer, vg_rect inner)
{
	if (vg_rect_is_empty(inner))
		return true;
	return inner.x >= outer.x && inner.y >= outer.y &&
	       inner.x + inner.w <= outer.x + outer.w &&
	       inner.y + inner.h <= outer.y + outer.h;
}

bool vg_rect_equal(vg_rect a, vg_rect b)
{
	return a.x == b.x && a.y == b.y && a.w == b.w && a.h == b.h;
}

static int by_columns(const void *pa, const void *pb)
{
	const vg_rect *a = pa, *b = pb;

	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	if (a->w != b->w)
		return a->w < b->w ? -1 : 1;
	return a->y < b->y ? -1 : a->y > b->y;
}

static int by_rows(const void *pa, const void *pb)
{
	const vg_rect *a = pa, *b = pb;

	if (a->y != b->y)
		return a->y < b->y ? -1 : 1;
	if (a->h != b->h)
		return a->h < b->h ? -1 : 1;
	return a->x < b->x ? -1 : a->x > b->x;
}

/* One pass: sorted so that continuing rectangles are neighbours, each
 * merged into the one before it where it continues it. */
static size_t coalesce_pass(vg_rect *rects, size_t n, bool down)
{
	size_t i, k = 0;

	qsort(rects, n, sizeof *rects, down ? by_columns : by_rows);
	for (i = 1; i < n; i++) {
		vg_rect *last = &rects[k];

		if (down && rects[i].x == last->x && rects[i].w == last->w &&
		    rects[i].y == last->y + last->h)
			last->h += rects[i].h;
		else if (!down && rects[i].y == last->y && rects[i].h == last->h &&
			 rects[i].x == last->x + last->w)
			last->w += rects[i].w;
		else
			rects[++k] = rects[i];
	}
	return k + 1;
}

size_t vg_rects_coalesce(vg_rect *rects, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (!vg_rect_is_empty(rects[i]))
			rects[k++] = rects[i];
	if (k < 2)
		return k;
	k = coalesce_pass(rects, k, true);
	k = coalesce_pass(rects, k, false);
	return coalesce_pass(rects, k, true);
}

/* The area of rects[0..n) before the coordinate `at` along the cut axis. */
static int64_t area_before(const vg_rect *rects, size_t n, bool across_x, int64_t at)
{
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const vg_rect *r = &rects[i];
		int64_t a = across_x ? r->x : r->y, len = across_x ? r->w : r->h;
		int64_t other = across_x ? r->h : r->w;

		if (len > 0 && other > 0 && at > a)
			sum += (at - a < len ? at - a : len) * other;
	}
	return sum;
}

void vg_rects_cut_stripes(const vg_rect *rects, size_t n, bool across_x, int32_t unit,
			  int32_t n_stripes, int n_parts, int32_t *cuts)
{
	const int64_t total = area_before(rects, n, across_x, (int64_t)unit * n_stripes);
	int i;

	cuts[0] = 0;
	cuts[n_parts] = n_stripes;
	/* Each cut is the first stripe boundary with its share of the area
	 * before it: a binary search, the area before a boundary growing
	 * with it. */
	for (i = 1; i < n_parts; i++) {
		const int64_t want = total * i / n_parts;
		int32_t lo = cuts[i - 1], hi = n_stripes;

		while (lo < hi) {
			int32_t mid = lo + (hi - lo) / 2;

			if (area_before(rects, n, across_x, (int64_t)unit * mid) >= want)
				hi = mid;
			else
				lo = mid + 1;
		}
		cuts[i] = lo;
	}
}

vg_region *vg_region_new(void)
{
	return VG_NEW0(vg_region, 1);
}

void vg_region_free(vg_region *r)
{
	if (!r)
		return;
	free(r->rects);
	free(r);
}

void vg_region_clear(vg_region *r)
{
	r->n = 0;
}

static void push(vg_region *r, vg_rect rect)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 8;
		r->rects = VG_RENEW(vg_rect, r->rects, r->cap);
	}
	r->rects[r->n++] = rect;
}

/* Writes the parts of a outside b (at most four) to out; returns the count. */
static int rect_minus(vg_rect a, vg_rect b, vg_rect out[4])
{
	vg_rect i = vg_rect_intersect(a, b);
	int n = 0;

	if (vg_rect_is_empty(i)) {
		out[0] = a;
		return 1;
	}
	if (i.y > a.y)
		out[n++] = vg_rect_make(a.x, a.y, a.w, i.y - a.y);
	if (i.y + i.h < a.y + a.h)
		out[n++] = vg_rect_make(a.x, i.y + i.h, a.w, a.y + a.h - i.y - i.h);
	if (i.x > a.x)
		out[n++] = vg_rect_make(a.x, i.y, i.x - a.x, i.h);
	if (i.x + i.w < a.x + a.w)
		out[n++] = vg_rect_make(i.x + i.w, i.y, a.x + a.w - i.x - i.w, i.h);
	return n;
}

bool vg_region_touches(const vg_region *r, vg_rect rect)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!vg_rect_is_empty(vg_rect_intersect(r->rects[i], rect)))
			return true;
	return false;
}

void vg_region_subtract(vg_region *r, vg_rect rect)
{
	size_t i, old_n = r->n;
	vg_rect parts[4];

	if (vg_rect_is_empty(rect) || r->n == 0)
		return;
	/* Each old rectangle is replaced by its parts outside rect, appended;
	 * then the old ones are dropped from the front. */
	for (i = 0; i < old_n; i++) {
		int k, np = rect_minus(r->rects[i], rect, parts);
		for (k = 0; k < np; k++)
			push(r, parts[k]);
	}
	memmove(r->rects, r->rects + old_n, (r->n - old_n) * sizeof *r->rects);
	r->n -= old_n;
}

void vg_region_add(vg_region *r, vg_rect rect)
{
	vg_region *pieces;
	size_t i;

	if (vg_rect_is_empty(rect))
		return;
	/* Keep the set disjoint: add only the parts of rect not yet covered. */
	pieces = vg_region_new();
	push(pieces, rect);
	for (i = 0; i < r->n && pieces->n; i++)
		vg_region_subtract(pieces, r->rects[i]);
	for (i = 0; i < pieces->n; i++)
		push(r, pieces->rects[i]);
	vg_region_free(pieces);
}

void vg_region_add_region(vg_region *r, const vg_region *other)
{
	size_t i;

	for (i = 0; i < other->n; i++)
		vg_region_add(r, other->rects[i]);
}

void vg_region_clip(vg_region *r, vg_rect clip)
{
	size_t i, n = 0;

	for (i = 0; i < r->n; i++) {
		vg_rect c = vg_rect_intersect(r->rects[i], clip);
		if (!vg_rect_is_empty(c))
			r->rects[n++] = c;
	}
	r->n = n;
}

bool vg_region_is_empty(const vg_region *r)
{
	return r->n == 0;
}

int64_t vg_region_area(const vg_region *r)
{
	int64_t a = 0;
	size_t i;

	for (i = 0; i < r->n; i++)
		a += vg_rect_area(r->rects[i]);
	return a;
}

vg_rect vg_region_extents(const vg_region *r)
{
	vg_rect e = vg_rect_make(0, 0, 0, 0);
	size_t i;

	for (i = 0; i < r->n; i++)
		e = vg_rect_bounds(e, r->rects[i]);
	return e;
}

const vg_rect *vg_region_rects(const vg_region *r, size_t *n)
{
	*n = r->n;
	return r->rects;
}

void vg_region_carry(vg_region *r, const vg_move *moves, size_t n)
{
	vg_region *landed;
	size_t i, k;

	if (n == 0 || r->n == 0)
		return;
	/* Where r meets the sources, read before any move writes. */
	landed = vg_region_new();
	for (i = 0; i < n; i++)
		for (k = 0; k < r->n; k++) {
			vg_rect p = vg_rect_intersect(r->rects[k], vg_move_source(&moves[i]));

			if (vg_rect_is_empty(p))
				continue;
			p.x += moves[i].dx;
			p.y += moves[i].dy;
			push(landed, p);
		}
	for (i = 0; i < n; i++)
		vg_region_subtract(r, moves[i].rect);
	for (k = 0; k < landed->n; k++)
		vg_region_add(r, landed->rects[k]);
	vg_region_free(landed);
}
