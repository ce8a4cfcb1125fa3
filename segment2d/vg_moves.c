#include <string.h>

#include "common/vg_error.h"
#include "segment2d/vg_moves.h"

static bool block_moved(const vg_pixbuf *prev, const vg_pixbuf *cur, vg_rect b, int32_t dx,
			int32_t dy)
{
	int32_t y;

	for (y = b.y; y < b.y + b.h; y++)
		if (memcmp(vg_pixbuf_row(cur, y) + b.x, vg_pixbuf_row(prev, y - dy) + b.x - dx,
			   (size_t)b.w * 4) != 0)
			return false;
	return true;
}

/* Adds the interval [x0, x1) of the block row at y (h rows) to out,
 * extending a rectangle of this call (from index first on) that ends just
 * above it and covers the same columns. */
static void add_interval(GArray *out, guint first, int32_t x0, int32_t x1, int32_t y, int32_t h,
			 int32_t dx, int32_t dy)
{
	vg_move m = { vg_rect_make(x0, y, x1 - x0, h), dx, dy };
	guint i;

	for (i = first; i < out->len; i++) {
		vg_move *o = &g_array_index(out, vg_move, i);

		if (o->rect.x == x0 && o->rect.w == x1 - x0 && o->rect.y + o->rect.h == y) {
			o->rect.h += h;
			return;
		}
	}
	g_array_append_val(out, m);
}

int vg_moves_find(const vg_pixbuf *prev, const vg_pixbuf *cur, const vg_rect *rects, size_t n,
		  int32_t dx, int32_t dy, GArray *out)
{
	const vg_rect frame = vg_pixbuf_rect(cur);
	/* Where a source inside the frame can land. */
	const vg_rect reach = vg_rect_intersect(frame, vg_rect_make(dx, dy, frame.w, frame.h));
	size_t i;

	if (prev->width != cur->width || prev->height != cur->height || (dx == 0 && dy == 0))
		return VG_EINVAL;
	for (i = 0; i < n; i++) {
		vg_rect r = vg_rect_intersect(rects[i], reach);
		guint first = out->len;
		int32_t y, x;

		for (y = r.y; y < r.y + r.h; y += VG_MOVE_BLOCK) {
			int32_t h = MIN(VG_MOVE_BLOCK, r.y + r.h - y), start = -1;

			for (x = r.x; x < r.x + r.w; x += VG_MOVE_BLOCK) {
				vg_rect b = vg_rect_make(x, y, MIN(VG_MOVE_BLOCK, r.x + r.w - x), h);

				if (block_moved(prev, cur, b, dx, dy)) {
					if (start < 0)
						start = x;
				} else if (start >= 0) {
					add_interval(out, first, start, x, y, h, dx, dy);
					start = -1;
				}
			}
			if (start >= 0)
				add_interval(out, first, start, r.x + r.w, y, h, dx, dy);
		}
	}
	return VG_OK;
}

static int64_t moves_area(const GArray *moves)
{
	int64_t a = 0;
	guint i;

	for (i = 0; i < moves->len; i++)
		a += vg_rect_area(g_array_index(moves, vg_move, i).rect);
	return a;
}

static int64_t rects_area(const vg_rect *rects, size_t n)
{
	int64_t a = 0;
	size_t i;

	for (i = 0; i < n; i++)
		a += vg_rect_area(rects[i]);
	return a;
}

/* Takes out of moves the parts whose source meets unknown: what lands
 * there would not be the new picture on the viewer. */
static void drop_unknown_sources(GArray *moves, const vg_region *unknown)
{
	GArray *kept = g_array_new(FALSE, FALSE, sizeof(vg_move));
	const vg_rect *us;
	size_t n_u, k, n_p;
	guint i;

	us = vg_region_rects(unknown, &n_u);
	for (i = 0; i < moves->len; i++) {
		vg_move m = g_array_index(moves, vg_move, i);
		const vg_rect *ps;
		vg_region *piece;

		if (!vg_region_touches(unknown, vg_move_source(&m))) {
			g_array_append_val(kept, m);
			continue;
		}
		piece = vg_region_new();
		vg_region_add(piece, m.rect);
		for (k = 0; k < n_u; k++) {
			vg_rect t = vg_rect_intersect(us[k], vg_move_source(&m));

			t.x += m.dx;
			t.y += m.dy;
			vg_region_subtract(piece, t);
		}
		ps = vg_region_rects(piece, &n_p);
		for (k = 0; k < n_p; k++) {
			m.rect = ps[k];
			g_array_append_val(kept, m);
		}
		vg_region_free(piece);
	}
	g_array_set_size(moves, 0);
	g_array_append_vals(moves, kept->data, kept->len);
	g_array_free(kept, TRUE);
}

int vg_moves_split(const vg_pixbuf *prev, const vg_pixbuf *cur, const vg_rect *rects, size_t n,
		   const vg_motion_result *mr, const vg_region *unknown, GArray *moves, GArray *rest)
{
	int32_t dx = mr->dir == VG_MOTION_HORIZONTAL ? mr->offset : 0;
	int32_t dy = mr->dir == VG_MOTION_VERTICAL ? mr->offset : 0;
	const vg_rect *left;
	vg_region *rgn;
	size_t i, n_left;
	int err;

	g_array_set_size(moves, 0);
	g_array_set_size(rest, 0);
	if (prev->width != cur->width || prev->height != cur->height)
		return VG_EINVAL;
	if (dx != 0 || dy != 0) {
		if ((err = vg_moves_find(prev, cur, rects, n, dx, dy, moves)))
			return err;
		if (unknown && !vg_region_is_empty(unknown))
			drop_unknown_sources(moves, unknown);
		if (moves_area(moves) * VG_MOVE_MIN_SHARE < rects_area(rects, n))
			g_array_set_size(moves, 0);
	}
	if (moves->len == 0) {
		g_array_append_vals(rest, rects, (guint)n);
		return VG_OK;
	}
	rgn = vg_region_new();
	for (i = 0; i < n; i++)
		vg_region_add(rgn, rects[i]);
	for (i = 0; i < moves->len; i++)
		vg_region_subtract(rgn, g_array_index(moves, vg_move, i).rect);
	left = vg_region_rects(rgn, &n_left);
	g_array_append_vals(rest, left, (guint)n_left);
	vg_region_free(rgn);
	return VG_OK;
}
