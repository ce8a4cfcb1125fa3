#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_mem.h"
#include "segment2d/vg_tilediff.h"

size_t vg_tilediff_max_rects(int32_t width, int32_t height, int32_t tile)
{
	size_t cols = (size_t)(width + tile - 1) / (size_t)tile;
	size_t rows = (size_t)(height + tile - 1) / (size_t)tile;

	/* At most every other tile of a row starts a run. */
	return (cols + 1) / 2 * rows;
}

/* Marks in changed[] the tiles of the row of tiles at ty, th rows high,
 * where a's pixels differ from b's & mask. Row by row, so that both
 * frames are read in the order they lie in memory (tile by tile, a 4K
 * frame's rows are 15 KB apart); a tile found changed is not read
 * further. */
static void mark_changed(const vg_pixbuf *a, const vg_pixbuf *b, uint32_t mask, int32_t tile, int32_t ty,
			 int32_t th, uint8_t *changed, int32_t cols)
{
	int32_t y, c, x, k;

	memset(changed, 0, (size_t)cols);
	for (y = ty; y < ty + th; y++) {
		const uint32_t *pa = vg_pixbuf_row(a, y), *pb = vg_pixbuf_row(b, y);

		for (c = 0; c < cols; c++) {
			int32_t x0 = c * tile, x1 = x0 + tile < a->width ? x0 + tile : a->width;
			uint32_t d = 0;

			if (changed[c])
				continue;
			/* Eight pixels at a time, no early exit: a loop the
			 * compiler vectorises at -O2. */
			for (x = x0; x + 8 <= x1; x += 8)
				for (k = 0; k < 8; k++)
					d |= pa[x + k] ^ (pb[x + k] & mask);
			for (; x < x1; x++)
				d |= pa[x] ^ (pb[x] & mask);
			changed[c] = d != 0;
		}
	}
}

int vg_tilediff(const vg_pixbuf *prev, const vg_pixbuf *cur, int32_t tile, vg_rect *dst,
		size_t dst_cap, size_t *n)
{
	return vg_tilediff_masked(prev, cur, UINT32_MAX, tile, dst, dst_cap, n);
}

int vg_tilediff_masked(const vg_pixbuf *prev, const vg_pixbuf *cur, uint32_t mask, int32_t tile,
		       vg_rect *dst, size_t dst_cap, size_t *n)
{
	size_t count = 0, above_start = 0, above_end = 0;
	int32_t ty, cols;
	uint8_t *changed;
	int err = VG_OK;

	*n = 0;
	if (prev->width != cur->width || prev->height != cur->height || tile < 1 || tile > VG_MAX_DIM)
		return VG_EINVAL;
	cols = (cur->width + tile - 1) / tile;
	changed = VG_NEW(uint8_t, (size_t)cols + 1);
	for (ty = 0; ty < cur->height && !err; ty += tile) {
		int32_t th = cur->height - ty < tile ? cur->height - ty : tile;
		size_t row_start = count;
		int32_t c = 0;

		mark_changed(prev, cur, mask, tile, ty, th, changed, cols);
		while (c < cols) {
			vg_rect run;
			size_t i;
			bool merged = false;

			if (!changed[c]) {
				c++;
				continue;
			}
			run = vg_rect_make(c * tile, ty, 0, th);
			while (c < cols && changed[c])
				c++;
			run.w = (c * tile < cur->width ? c * tile : cur->width) - run.x;
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
			if (count == dst_cap) {
				err = VG_ENOSPC;
				break;
			}
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
	free(changed);
	if (err)
		return err;
	*n = count;
	return VG_OK;
}
