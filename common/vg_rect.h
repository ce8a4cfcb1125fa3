/* Rectangles and regions (sets of pixels as disjoint rectangles). */
#ifndef VG_RECT_H
#define VG_RECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A rectangle of pixels; empty when w <= 0 or h <= 0. */
typedef struct {
	int32_t x, y, w, h;
} vg_rect;

static inline vg_rect vg_rect_make(int32_t x, int32_t y, int32_t w, int32_t h)
{
	vg_rect r = { x, y, w, h };
	return r;
}

static inline bool vg_rect_is_empty(vg_rect r)
{
	return r.w <= 0 || r.h <= 0;
}

static inline int64_t vg_rect_area(vg_rect r)
{
	return vg_rect_is_empty(r) ? 0 : (int64_t)r.w * r.h;
}

/* The overlap of a and b; empty (0x0 at a's origin) when they do not meet. */
vg_rect vg_rect_intersect(vg_rect a, vg_rect b);

/* The smallest rectangle holding both; an empty input is ignored. */
vg_rect vg_rect_bounds(vg_rect a, vg_rect b);

/* True when every pixel of inner lies in outer (an empty inner always does). */
bool vg_rect_contains(vg_rect outer, vg_rect inner);

bool vg_rect_equal(vg_rect a, vg_rect b);

/* Cuts the stripes [0, n_stripes) of `unit` pixels, across x (columns,
 * with across_x) or y, into n_parts runs that hold about equal area of
 * rects[0..n) (overlaps counted twice): part i is the stripes
 * [cuts[i], cuts[i + 1]), cuts[0] = 0, cuts[n_parts] = n_stripes. For
 * splitting work on stripes that are independent across threads. */
void vg_rects_cut_stripes(const vg_rect *rects, size_t n, bool across_x, int32_t unit,
			  int32_t n_stripes, int n_parts, int32_t *cuts);

/* Merges, in place, disjoint rects[0..n) that continue each other (one
 * below the other with the same columns, or side by side with the same
 * rows) into one, and returns how many are left: the same pixels in
 * fewer rectangles, in another order. A region built from the thousands
 * of segments of a 4K page costs its O(n^2) operations per rectangle;
 * the columns' runs of segments come to tens. */
size_t vg_rects_coalesce(vg_rect *rects, size_t n);

/* A region: a set of pixels kept as disjoint rectangles in no particular
 * order. Operations are O(n^2) in the number of rectangles, which suits the
 * tens of rectangles an update carries. */
typedef struct vg_region vg_region;

/* Returns a new empty region; free it with vg_region_free(). */
vg_region *vg_region_new(void);

/* Frees r; accepts NULL. */
void vg_region_free(vg_region *r);

void vg_region_clear(vg_region *r);

/* Adds the pixels of rect to r (pixels already present stay once). */
void vg_region_add(vg_region *r, vg_rect rect);

/* Adds every pixel of other to r. */
void vg_region_add_region(vg_region *r, const vg_region *other);

/* Removes the pixels of rect from r. */
void vg_region_subtract(vg_region *r, vg_rect rect);

/* Keeps only the pixels of r that lie in clip. */
void vg_region_clip(vg_region *r, vg_rect clip);

bool vg_region_is_empty(const vg_region *r);

/* True when rect shares a pixel with r. */
bool vg_region_touches(const vg_region *r, vg_rect rect);

/* Number of pixels in r. */
int64_t vg_region_area(const vg_region *r);

/* Bounding box of r (empty when r is). */
vg_rect vg_region_extents(const vg_region *r);

/* The disjoint rectangles of r; *n receives their count. The pointer stays
 * valid until r is next modified or freed. */
const vg_rect *vg_region_rects(const vg_region *r, size_t *n);

/* A moved rectangle: the pixels a picture held at rect - (dx, dy) before
 * an update are what rect shows after it (segment2d/vg_moves.h finds
 * them; the protocol's MOVE run carries them). */
typedef struct {
	vg_rect rect;     /* where the pixels go */
	int32_t dx, dy;   /* how far they moved */
} vg_move;

/* Where a move's pixels come from. */
static inline vg_rect vg_move_source(const vg_move *m)
{
	return vg_rect_make(m->rect.x - m->dx, m->rect.y - m->dy, m->rect.w, m->rect.h);
}

/* Carries r, a set of a picture's pixels (those owed, say), through the
 * moves[0..n) of one update, which all read the picture before any
 * writes: the pixels of r under a move's source land at its rect, and
 * the rest of the moves' rects leave r. */
void vg_region_carry(vg_region *r, const vg_move *moves, size_t n);

#endif
