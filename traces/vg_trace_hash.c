/* The whole-frame hash stored in frame records (doc/trace-format.md). */
#include "common/vg_seghash.h"
#include "traces/vg_trace.h"

#define FNV64_BASIS 0xcbf29ce484222325ull
#define FNV64_PRIME 0x00000100000001b3ull

/* FNV-1a a 32-bit word at a time: four times fewer multiplies than the
 * byte-wise original. The multiplies carry only upwards, so the final mix
 * (the MurmurHash3 finaliser) folds the high bits back into the low ones
 * for those who truncate the hash. */
uint64_t vg_frame_hash(const vg_pixbuf *frame)
{
	uint64_t h = FNV64_BASIS;
	int32_t x, y;

	h = (h ^ (uint32_t)frame->width) * FNV64_PRIME;
	h = (h ^ (uint32_t)frame->height) * FNV64_PRIME;
	for (y = 0; y < frame->height; y++) {
		const uint32_t *p = vg_pixbuf_row(frame, y);

		for (x = 0; x < frame->width; x++)
			h = (h ^ (p[x] & VG_PIXEL_MASK)) * FNV64_PRIME;
	}
	/* The same finaliser as segment hashes (MurmurHash3's). */
	return vg_seghash_fmix(h);
}
