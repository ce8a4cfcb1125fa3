#include <string.h>

#include "common/vg_error.h"
#include "segment2d/vg_tilediff.h"

size_t vg_tilediff_max_rects(int32_t width, int32_t height, int32_t tile)
{
	size_t cols = (size_t)(width + tile - 1) / (size_t)tile;
	size_t rows = (size_t)(height + tile - 1) / (size_t)tile;

	/* At most every other tile of a row starts a run. */
	return (cols + 1) / 2 * rows;
}

/* Whether the tile at (x, y), clipped to the frame, differs. */
static bool tile_differs(const vg_pixbuf *a, const vg_pixbuf *b, vg_rect t)
{
	int32_t y;

	if (t.x + t.w > a->width)
		t.w = a->width - t.x;

	for (y = t.y; y < t.y + t.h; y++)
		if (memcmp(vg_pixbuf_row(a, y) + t.x, vg_pixbuf_row(b, y) + t.x, (size_t)t.w * 4) != 0)
			return true;
	return false;
}

int vg_tilediff(const vg_pixbuf *prev, const vg_pixbuf *cur, int32_t tile, vg_rect *dst,
		size_t dst_cap, size_t *n)
{
	size_t count = 0, above_start = 0, above_end = 0;
	int32_t ty;

	*n = 0;
	if (prev->width != cur->width || prev->height != cur->height || tile < 1 || tile > VG_MAX_DIM)
		return VG_EINVAL;
	for (ty = 0; ty < cur->height; ty += tile) {
		int32_t th = cur->height - ty < tile ? cur->height - ty : tile;
		size_t row_start = count;
		int32_t tx = 0;

		while (tx < cur->width) {
			vg_rect run;
			size_t i;
			bool merged = false;

			if (!tile_differs(prev, cur, vg_rect_make(tx, ty, tile, th))) {
				tx += tile;
				continue;
			}
			run = vg_rect_make(tx, ty, 0, th);
			do
				tx += tile;
			while (tx < cur->width && tile_differs(prev, cur, vg_rect_make(tx, ty, tile, th)));
			run.w = (tx < cur->width ? tx : cur->width) - run.x;
			/* Each tile is compared once: the one at tx (if any) ended
			 * the run, so it is unchanged. */
			tx += tile;
			/* Same columns as a run ending just above: grow that one. */
			for (i = above_start; i < above_end; i++) {
				if (dst[i].x == run.x && dst[i].w == run.w && dst[i].y + dst[i].h == ty) {
					dst[i].h += th;
					merged = true;
					break;
				}
			}
			if (merged)
				continue;
			if (count == dst_cap)
				return VG_ENOSPC;
			dst[count++] = run;
		}
		/* Runs that grew stay candidates for the next row of tiles. */
		{
			size_t i, keep = count;
			for (i = above_start; i < above_end; i++)
				if (dst[i].y + dst[i].h == ty + th && i < keep)
					keep = i;
			above_start = keep < row_start ? keep : row_start;
		}
		above_end = count;
	}
	*n = count;
	return VG_OK;
}
