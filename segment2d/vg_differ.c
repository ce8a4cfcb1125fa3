/* Region differencing against a saved copy of the previous frame. */
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "segment2d/vg_differ.h"

/* Bounds are kept as half-open [x0, x1) x [y0, y1); x1 == 0 means none. */
typedef struct {
	int32_t x0, y0, x1, y1;
} box;

struct vg_differ {
	int32_t width, height, tile;
	int32_t ntx, nty;
	vg_pixbuf *saved;
	vg_pixbuf *previous; /* if kept: saved as it was before the last update */
	bool primed;   /* saved holds a real previous frame */
	box *cmp;      /* per tile: the part of the damage inside it */
	box *chg;      /* per tile: bounds of its changed pixels */
	vg_rect *out;
	size_t n_out, cap_out;
	size_t *open, *next; /* out[] indices that may continue downwards */
	size_t n_open;
};

int vg_differ_new(int32_t width, int32_t height, int32_t tile, vg_differ **out)
{
	vg_differ *d;

	*out = NULL;
	if (tile == 0)
		tile = 64;
	if (tile < 8 || tile > 1024)
		return VG_EINVAL;
	if (width < 1 || height < 1 || width > VG_MAX_DIM || height > VG_MAX_DIM)
		return VG_EINVAL;
	d = g_new0(vg_differ, 1);
	d->width = width;
	d->height = height;
	d->tile = tile;
	d->ntx = (width + tile - 1) / tile;
	d->nty = (height + tile - 1) / tile;
	d->saved = vg_pixbuf_new(width, height);
	d->cmp = g_new0(box, (size_t)d->ntx * d->nty);
	d->chg = g_new0(box, (size_t)d->ntx * d->nty);
	d->open = g_new0(size_t, (size_t)d->ntx);
	d->next = g_new0(size_t, (size_t)d->ntx);
	*out = d;
	return VG_OK;
}

void vg_differ_free(vg_differ *d)
{
	if (!d)
		return;
	vg_pixbuf_free(d->saved);
	vg_pixbuf_free(d->previous);
	g_free(d->cmp);
	g_free(d->chg);
	g_free(d->out);
	g_free(d->open);
	g_free(d->next);
	g_free(d);
}

const vg_pixbuf *vg_differ_saved(const vg_differ *d)
{
	return d->saved;
}

void vg_differ_keep_previous(vg_differ *d)
{
	if (!d->previous) {
		d->previous = vg_pixbuf_new(d->width, d->height);
		vg_pixbuf_copy(d->previous, 0, 0, d->saved);
	}
}

const vg_pixbuf *vg_differ_previous(const vg_differ *d)
{
	return d->previous ? d->previous : d->saved;
}

int vg_differ_reset(vg_differ *d, const vg_pixbuf *frame)
{
	if (frame->width != d->width || frame->height != d->height)
		return VG_EINVAL;
	vg_pixbuf_copy(d->saved, 0, 0, frame);
	if (d->previous)
		vg_pixbuf_copy(d->previous, 0, 0, frame);
	d->n_out = 0;
	d->primed = true;
	return VG_OK;
}

static void push_out(vg_differ *d, vg_rect r)
{
	if (d->n_out == d->cap_out) {
		d->cap_out = d->cap_out ? 2 * d->cap_out : 64;
		d->out = g_renew(vg_rect, d->out, d->cap_out);
	}
	d->out[d->n_out++] = r;
}

/* Records in d->cmp the part of each damage rect inside each tile. */
static void mark_damage(vg_differ *d, const vg_rect *damage, size_t n)
{
	const vg_rect all = vg_rect_make(0, 0, d->width, d->height);
	size_t i;

	memset(d->cmp, 0, sizeof(box) * (size_t)d->ntx * d->nty);
	memset(d->chg, 0, sizeof(box) * (size_t)d->ntx * d->nty);
	for (i = 0; i < n; i++) {
		vg_rect r = vg_rect_intersect(damage[i], all);
		int32_t tx, ty;

		if (vg_rect_is_empty(r))
			continue;
		for (ty = r.y / d->tile; ty <= (r.y + r.h - 1) / d->tile; ty++)
			for (tx = r.x / d->tile; tx <= (r.x + r.w - 1) / d->tile; tx++) {
				box *b = &d->cmp[(size_t)ty * d->ntx + tx];
				int32_t x0 = MAX(r.x, tx * d->tile), y0 = MAX(r.y, ty * d->tile);
				int32_t x1 = MIN(r.x + r.w, (tx + 1) * d->tile);
				int32_t y1 = MIN(r.y + r.h, (ty + 1) * d->tile);

				if (b->x1 == 0) {
					*b = (box){ x0, y0, x1, y1 };
				} else {
					b->x0 = MIN(b->x0, x0);
					b->y0 = MIN(b->y0, y0);
					b->x1 = MAX(b->x1, x1);
					b->y1 = MAX(b->y1, y1);
				}
			}
	}
}

/* Row y of one tile differs somewhere in [x0, x1): widen the tile's
 * changed bounds. Only the parts of the row outside the bounds found so
 * far are scanned, so a tile that changed everywhere costs one memcmp per
 * row. */
static void widen(box *c, const uint32_t *a, const uint32_t *b, int32_t x0, int32_t x1,
		  int32_t y)
{
	int32_t l, r;

	if (c->x1 == 0) {
		for (l = x0; a[l] == b[l]; l++)
			;
		for (r = x1 - 1; a[r] == b[r]; r--)
			;
		*c = (box){ l, y, r + 1, y + 1 };
		return;
	}
	c->y1 = y + 1;
	for (l = x0; l < c->x0 && a[l] == b[l]; l++)
		;
	if (l < c->x0)
		c->x0 = l;
	for (r = x1 - 1; r >= c->x1 && a[r] == b[r]; r--)
		;
	if (r >= c->x1)
		c->x1 = r + 1;
}

/* Compares the tiles of tile row ty against the saved frame. */
static void diff_band(vg_differ *d, const vg_pixbuf *f, int32_t ty)
{
	box *cmp = d->cmp + (size_t)ty * d->ntx, *chg = d->chg + (size_t)ty * d->ntx;
	int32_t tx = 0;

	while (tx < d->ntx) {
		int32_t t0, t1, x0 = INT32_MAX, x1 = 0, y0 = INT32_MAX, y1 = 0, y, t;

		if (cmp[tx].x1 == 0) {
			tx++;
			continue;
		}
		/* A run of damaged tiles: one memcmp per row over its span
		 * finds the rows that changed at all. */
		for (t0 = tx; tx < d->ntx && cmp[tx].x1 != 0; tx++) {
			x0 = MIN(x0, cmp[tx].x0);
			x1 = MAX(x1, cmp[tx].x1);
			y0 = MIN(y0, cmp[tx].y0);
			y1 = MAX(y1, cmp[tx].y1);
		}
		t1 = tx;
		for (y = y0; y < y1; y++) {
			const uint32_t *a = vg_pixbuf_row(f, y), *b = vg_pixbuf_row(d->saved, y);

			if (!d->primed) {
				for (t = t0; t < t1; t++)
					if (y >= cmp[t].y0 && y < cmp[t].y1) {
						if (chg[t].x1 == 0)
							chg[t] = cmp[t];
					}
				continue;
			}
			if (memcmp(a + x0, b + x0, (size_t)(x1 - x0) * 4) == 0)
				continue;
			for (t = t0; t < t1; t++) {
				const box *c = &cmp[t];

				if (y < c->y0 || y >= c->y1)
					continue;
				if (memcmp(a + c->x0, b + c->x0, (size_t)(c->x1 - c->x0) * 4) == 0)
					continue;
				widen(&chg[t], a, b, c->x0, c->x1, y);
			}
		}
	}
}

/* Copies the changed pixels of tile row ty into the saved frame. */
static void save_band(vg_differ *d, const vg_pixbuf *f, int32_t ty)
{
	const box *chg = d->chg + (size_t)ty * d->ntx;
	int32_t tx, y;

	for (tx = 0; tx < d->ntx; tx++) {
		const box *c = &chg[tx];

		for (y = c->y0; c->x1 != 0 && y < c->y1; y++)
			memcpy(vg_pixbuf_row(d->saved, y) + c->x0, vg_pixbuf_row(f, y) + c->x0,
			       (size_t)(c->x1 - c->x0) * 4);
	}
}

/* Turns the changed bounds of tile row ty into rectangles: neighbouring
 * tiles merge when their changes meet at the shared tile edge, and a
 * rectangle continues one of the previous tile row (listed in d->open,
 * d->n_open) when both have the same columns and meet at the tile row
 * edge. Leaves in d->open the rectangles that reach this row's bottom. */
static void emit_band(vg_differ *d, int32_t ty)
{
	const box *chg = d->chg + (size_t)ty * d->ntx;
	const int32_t top = ty * d->tile, bottom = MIN(top + d->tile, d->height);
	size_t n_next = 0;
	int32_t tx = 0;

	while (tx < d->ntx) {
		size_t i, idx;
		box b;
		vg_rect r;

		if (chg[tx].x1 == 0) {
			tx++;
			continue;
		}
		b = chg[tx++];
		while (tx < d->ntx && chg[tx].x1 != 0 && b.x1 == tx * d->tile &&
		       chg[tx].x0 == tx * d->tile) {
			b.x1 = chg[tx].x1;
			b.y0 = MIN(b.y0, chg[tx].y0);
			b.y1 = MAX(b.y1, chg[tx].y1);
			tx++;
		}
		r = vg_rect_make(b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0);
		idx = d->n_out;
		for (i = 0; r.y == top && i < d->n_open; i++) {
			vg_rect *p = &d->out[d->open[i]];

			if (p->x == r.x && p->w == r.w) {
				p->h += r.h;
				idx = d->open[i];
				break;
			}
		}
		if (idx == d->n_out)
			push_out(d, r);
		if (b.y1 == bottom)
			d->next[n_next++] = idx;
	}
	memcpy(d->open, d->next, n_next * sizeof(size_t));
	d->n_open = n_next;
}

int vg_differ_begin(vg_differ *d, const vg_pixbuf *frame, const vg_rect *damage,
		    size_t n_damage)
{
	const vg_rect all = vg_rect_make(0, 0, d->width, d->height);

	if (frame->width != d->width || frame->height != d->height)
		return VG_EINVAL;
	if (!damage && n_damage > 0)
		return VG_EINVAL;
	if (!damage) {
		damage = &all;
		n_damage = 1;
	}
	mark_damage(d, damage, n_damage);
	return VG_OK;
}

void vg_differ_cut(const vg_differ *d, const vg_rect *damage, size_t n_damage, int n_parts,
		   int32_t *cuts)
{
	const vg_rect all = vg_rect_make(0, 0, d->width, d->height);

	if (!damage) {
		damage = &all;
		n_damage = 1;
	}
	vg_rects_cut_stripes(damage, n_damage, false, d->tile, d->nty, n_parts, cuts);
}

void vg_differ_rows(vg_differ *d, const vg_pixbuf *frame, int32_t ty0, int32_t ty1)
{
	const vg_rect rows = vg_rect_intersect(vg_rect_make(0, 0, d->width, d->height),
					       vg_rect_make(0, ty0 * d->tile, d->width,
							    (ty1 - ty0) * d->tile));
	int32_t ty;

	/* The previous frame catches up with the last update's changes,
	 * the only place where it differs from the saved one. */
	for (size_t i = 0; d->previous && i < d->n_out; i++) {
		vg_rect r = vg_rect_intersect(d->out[i], rows);

		if (!vg_rect_is_empty(r))
			vg_pixbuf_copy_rect(d->previous, d->saved, r);
	}
	for (ty = ty0; ty < ty1; ty++) {
		diff_band(d, frame, ty);
		save_band(d, frame, ty);
	}
}

void vg_differ_end(vg_differ *d, const vg_rect **changed, size_t *n_changed)
{
	int32_t ty;

	d->n_out = 0;
	d->n_open = 0;
	for (ty = 0; ty < d->nty; ty++)
		emit_band(d, ty);
	d->primed = true;
	*changed = d->out;
	*n_changed = d->n_out;
}

int vg_differ_update(vg_differ *d, const vg_pixbuf *frame, const vg_rect *damage,
		     size_t n_damage, const vg_rect **changed, size_t *n_changed)
{
	int err;

	*changed = NULL;
	*n_changed = 0;
	if ((err = vg_differ_begin(d, frame, damage, n_damage)))
		return err;
	vg_differ_rows(d, frame, 0, d->nty);
	vg_differ_end(d, changed, n_changed);
	return VG_OK;
}
