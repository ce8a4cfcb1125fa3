#include "common/vg_seghash.h"

uint64_t vg_seghash(const vg_pixbuf *seg, vg_orient orient)
{
	uint64_t s;
	int32_t i;

	if (seg->width < 1 || seg->height < 1)
		return 0;
	s = vg_seghash_begin(seg->width, seg->height, orient);
	if (orient == VG_ORIENT_COLS) {
		/* Columns left to right, each read top to bottom: the rows of
		 * the transposed segment the segmenter walked. */
		for (i = 0; i < seg->width; i++)
			s = vg_seghash_add(s, vg_seghash_slice_step(seg->pixels + i, seg->height,
								   seg->stride));
	} else {
		for (i = 0; i < seg->height; i++)
			s = vg_seghash_add(s, vg_seghash_slice(vg_pixbuf_row(seg, i), seg->width));
	}
	return vg_seghash_end(s);
}
