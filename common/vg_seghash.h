/* The segment content hash: the 64-bit value that names a segment's pixels.
 *
 * The server's segmenter, the fingerprint layer and the viewer must all
 * compute the very same value from a segment's pixels, so the definition
 * lives here, in common/, and is written out in doc/segmentation.md. In
 * short: every slice (a row of the segment for VG_ORIENT_ROWS, a column for
 * VG_ORIENT_COLS) is hashed on its own with vg_seghash_slice(); the slice
 * hashes are then folded in order into a state seeded with the segment's
 * width, height and orientation, and the state is finalised.
 *
 * Segmenters already hash every slice to find anchors, so they build the
 * content hash from those slice hashes (vg_seghash_begin/add/end) and never
 * read a pixel twice. Only the low 24 bits of each pixel take part: the
 * top byte of a 0x00RRGGBB pixel is not content.
 *
 * All functions are pure and thread-safe. The inline ones are the
 * definition; do not change a constant without changing the protocol
 * version, because cached fingerprints on disk depend on them.
 */
#ifndef VG_SEGHASH_H
#define VG_SEGHASH_H

#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_segdesc.h"

#define VG_SEGHASH_K1 0x9e3779b97f4a7c15ull /* slice seed multiplier */
#define VG_SEGHASH_K2 0xc2b2ae3d27d4eb4full /* slice step multiplier */
#define VG_SEGHASH_K3 0x165667b19e3779f9ull /* fold multiplier */
#define VG_SEGHASH_SEED 0x5661726753656721ull /* "VargSeg!" */
#define VG_SEGHASH_PAIR_MASK 0x00ffffff00ffffffull

/* The 64-bit finaliser of MurmurHash3: every input bit affects every
 * output bit with probability close to one half. */
static inline uint64_t vg_seghash_fmix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* One step of the slice hash: absorbs a 64-bit word holding two pixels. */
static inline uint64_t vg_seghash_step(uint64_t h, uint64_t word)
{
	h ^= word & VG_SEGHASH_PAIR_MASK;
	h *= VG_SEGHASH_K2;
	h ^= h >> 32;
	return h;
}

/* Hash of n (>= 1) pixels px[0], px[step], ..., px[(n-1)*step]: a slice of
 * a segment. Pixels are taken two at a time as the little-endian word
 * px[2i] | px[2i+1] << 32 (top bytes cleared); an odd last pixel is taken
 * alone. The state starts at K1 * n, so slices of different lengths never
 * share a hash systematically, and ends through vg_seghash_fmix(). */
static inline uint64_t vg_seghash_slice_step(const uint32_t *px, int32_t n, intptr_t step)
{
	uint64_t h = VG_SEGHASH_K1 * (uint64_t)(uint32_t)n;
	int32_t i;

	for (i = 0; i + 1 < n; i += 2)
		h = vg_seghash_step(h, (uint64_t)px[i * step] | (uint64_t)px[(i + 1) * step] << 32);
	if (i < n)
		h = vg_seghash_step(h, (uint64_t)px[i * step]);
	return vg_seghash_fmix(h);
}

/* Hash of n (>= 1) contiguous pixels: one row of a VG_ORIENT_ROWS segment.
 * Equal to vg_seghash_slice_step(px, n, 1). */
static inline uint64_t vg_seghash_slice(const uint32_t *px, int32_t n)
{
	uint64_t h = VG_SEGHASH_K1 * (uint64_t)(uint32_t)n;
	int32_t i;

	for (i = 0; i + 1 < n; i += 2) {
		uint64_t w = (uint64_t)px[i] | (uint64_t)px[i + 1] << 32;
		h = vg_seghash_step(h, w);
	}
	if (i < n)
		h = vg_seghash_step(h, (uint64_t)px[i]);
	return vg_seghash_fmix(h);
}

/* Folds v into the segment state: non-linear and order dependent, so
 * swapped, repeated or cancelling slices do not collide systematically. */
static inline uint64_t vg_seghash_fold(uint64_t state, uint64_t v)
{
	state = (state ^ v) * VG_SEGHASH_K3;
	state ^= state >> 29;
	return state;
}

/* Starts the hash of a width x height segment (screen orientation) cut with
 * orient. Then call vg_seghash_add() once per slice in order (rows top to
 * bottom for VG_ORIENT_ROWS; columns left to right, each read top to
 * bottom, for VG_ORIENT_COLS), then vg_seghash_end(). */
static inline uint64_t vg_seghash_begin(int32_t width, int32_t height, vg_orient orient)
{
	uint64_t s = VG_SEGHASH_SEED;

	s = vg_seghash_fold(s, (uint64_t)(uint32_t)width << 32 | (uint32_t)height);
	s = vg_seghash_fold(s, (uint64_t)orient);
	return s;
}

static inline uint64_t vg_seghash_add(uint64_t state, uint64_t slice_hash)
{
	return vg_seghash_fold(state, slice_hash);
}

static inline uint64_t vg_seghash_end(uint64_t state)
{
	return vg_seghash_fmix(state);
}

/* The content hash of all of seg's pixels (seg in screen orientation, any
 * stride), for a segment cut with orient. Returns 0 for an empty buffer;
 * a non-empty segment may hash to any value, 0 included. */
uint64_t vg_seghash(const vg_pixbuf *seg, vg_orient orient);

#endif
