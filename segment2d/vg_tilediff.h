/* Tile-granular frame differencing: which parts of a frame changed since
 * the previous one, as a few rectangles, for recordings and mirrors.
 * (vg_differ does the exact differencing the encoder needs; this is the
 * coarse kind a recording stores.) */
#ifndef VG_TILEDIFF_H
#define VG_TILEDIFF_H

#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"

/* The most rectangles vg_tilediff() can produce for a width x height frame
 * cut into tile x tile squares. */
size_t vg_tilediff_max_rects(int32_t width, int32_t height, int32_t tile);

/* Compares prev and cur (the same size, else VG_EINVAL) in tile x tile
 * squares (tile in 1..VG_MAX_DIM; edge tiles are clipped). Changed tiles
 * are merged into runs along each row of tiles, and a run with the same
 * columns as one in the row of tiles above extends it downwards. Writes
 * the rectangles, disjoint and in top-to-bottom order, to dst and their
 * count to *n. VG_ENOSPC if dst_cap is less than needed (size it with
 * vg_tilediff_max_rects). */
int vg_tilediff(const vg_pixbuf *prev, const vg_pixbuf *cur, int32_t tile, vg_rect *dst,
		size_t dst_cap, size_t *n);

/* vg_tilediff() of prev against cur's pixels & mask: a capture compares
 * the X server's image, whose padding byte is the server's to fill, with
 * its frame without a pass to clear that byte first. */
int vg_tilediff_masked(const vg_pixbuf *prev, const vg_pixbuf *cur, uint32_t mask, int32_t tile,
		       vg_rect *dst, size_t dst_cap, size_t *n);

#endif
