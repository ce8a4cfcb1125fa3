/* Segmenters: cut the changed part of a frame into rectangular segments,
 * each with its content hash (common/vg_seghash.h).
 *
 * Four methods share one interface (doc/segmentation.md describes them):
 *
 *  VG_SEGMETHOD_VARG       static columns of width w aligned to screen x,
 *                          each cut into segments at content-selected
 *                          anchor rows (Manber selection on the row hash,
 *                          minimum distance m, runs of >= s identical rows
 *                          as one "similar" segment). With VG_ORIENT_COLS
 *                          the same algorithm runs on the transposed
 *                          region: bands of w rows cut at anchor columns.
 *  VG_SEGMETHOD_STATIC     a fixed grid of tile_w x tile_h tiles.
 *  VG_SEGMETHOD_CONTENT2D  big tiles, cut into variable-width columns at
 *                          anchor columns, each cut at anchor rows.
 *  VG_SEGMETHOD_KARPRABIN  every m x m window gets a rolling 2-D Karp-Rabin
 *                          fingerprint; windows whose fingerprint passes
 *                          Manber selection become segments. These may
 *                          overlap and leave gaps (see vg_segs_coverage()).
 *
 * VARG, STATIC and CONTENT2D tile exactly: every pixel of the changed rects
 * is covered by exactly one segment, and pixels outside them (the widening
 * to column or tile bounds) at most once. Segments are reported in a
 * deterministic order; a segment's rect is always in screen coordinates.
 *
 * The segmenter does no I/O and keeps no state between runs except scratch
 * memory, so the same input always gives the same output.
 */
#ifndef VG_SEGMENTER_H
#define VG_SEGMENTER_H

#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"
#include "common/vg_segdesc.h"

typedef enum {
	VG_SEGMETHOD_VARG = 0,
	VG_SEGMETHOD_STATIC = 1,
	VG_SEGMETHOD_CONTENT2D = 2,
	VG_SEGMETHOD_KARPRABIN = 3,
} vg_segmethod;

/* Parameters; fill with vg_segparams_init() and change what you need.
 * Fields a method does not use are ignored by it. */
typedef struct {
	vg_segmethod method;
	int32_t column_width; /* VARG: w, static column width (1..4096), 16 */
	int32_t anchor_bits;  /* VARG, CONTENT2D: k, one anchor row every 2^k
			       * rows on average (0..20), 3 */
	int32_t min_height;   /* VARG, CONTENT2D: m, minimum rows between
			       * anchors (1..VG_MAX_DIM), 16 */
	int32_t similar_run;  /* VARG, CONTENT2D: s, runs of >= s identical
			       * rows become one similar segment; 0 = off, 8 */
	int32_t max_height;   /* VARG, CONTENT2D: longest segment; 0 = none */
	int32_t similar_chunk;/* VARG, CONTENT2D: similar runs are cut into
			       * chunks of this many rows, the remainder
			       * first; 0 = one segment per run, 64 */
	int32_t tile_w;       /* STATIC: grid tile width, 16 */
	int32_t tile_h;       /* STATIC: grid tile height, 16 */
	int32_t big_tile;     /* CONTENT2D: big tile side, 128 */
	int32_t col_bits;     /* CONTENT2D: one anchor column every 2^col_bits
			       * columns on average, 3 */
	int32_t min_width;    /* CONTENT2D: minimum columns between anchor
			       * columns, 8 */
	int32_t window;       /* KARPRABIN: window side m (1..256), 16 */
	int32_t select_bits;  /* KARPRABIN: one window selected per
			       * 2^select_bits positions, 8 */
} vg_segparams;

/* Sets every field of p to the defaults above, for method. */
void vg_segparams_init(vg_segparams *p, vg_segmethod method);

/* Returns 0 if p holds a usable parameter set, else VG_EINVAL. */
int vg_segparams_check(const vg_segparams *p);

/* The method's short name ("varg", "static", "content2d", "karprabin"), or
 * "unknown"; a static string. */
const char *vg_segmethod_name(vg_segmethod method);

/* Parses a name as returned by vg_segmethod_name(). VG_EINVAL if unknown. */
int vg_segmethod_parse(const char *name, vg_segmethod *out);

typedef struct vg_segmenter vg_segmenter;

/* Creates a segmenter with a copy of params. Returns VG_EINVAL (and sets
 * *out to NULL) for a bad parameter set. Free with vg_segmenter_free(). */
int vg_segmenter_new(const vg_segparams *params, vg_segmenter **out);

/* Frees s and its scratch and result memory; accepts NULL. */
void vg_segmenter_free(vg_segmenter *s);

/* The parameters s was made with. */
const vg_segparams *vg_segmenter_params(const vg_segmenter *s);

/* Segments the part of frame covered by rects[0..n_rects) (which may
 * overlap; each is clipped to the frame; NULL with n_rects == 0 means the
 * whole frame). orient says how VARG walks the region: VG_ORIENT_ROWS for
 * vertical or no motion, VG_ORIENT_COLS for horizontal motion; the other
 * methods always cut and hash along rows (VG_ORIENT_ROWS).
 *
 * On success *segs points at *n_segs descriptors owned by s, valid until
 * the next vg_segmenter_run() or vg_segmenter_free() on s. Errors:
 * VG_EINVAL for a bad orient or a negative n_rects with rects.
 * Not thread-safe on one segmenter; use one per thread. */
int vg_segmenter_run(vg_segmenter *s, const vg_pixbuf *frame, const vg_rect *rects,
		     size_t n_rects, vg_orient orient, const vg_segdesc **segs, size_t *n_segs);

/* Splitting a run across threads. VARG cuts each band (a static column
 * of column_width pixels, or with VG_ORIENT_COLS a band of as many rows)
 * on its own, so a frame's bands may be segmented in parts, one
 * segmenter per thread: the parts' segments, one after another in band
 * order, are the whole run's. Other methods have one band, the frame.
 *
 * vg_segmenter_n_bands(): the frame's bands for orient (>= 1).
 * vg_segmenter_cut(): cuts them into n_parts runs of about equal work
 * for rects[0..n_rects): part i is bands [cuts[i], cuts[i + 1]).
 * vg_segmenter_run_bands(): vg_segmenter_run() on bands [band0, band1)
 * alone (none when band0 >= band1); VG_EINVAL for a band out of range. */
int32_t vg_segmenter_n_bands(const vg_segmenter *s, const vg_pixbuf *frame, vg_orient orient);
void vg_segmenter_cut(const vg_segmenter *s, const vg_pixbuf *frame, const vg_rect *rects,
		      size_t n_rects, vg_orient orient, int n_parts, int32_t *cuts);
int vg_segmenter_run_bands(vg_segmenter *s, const vg_pixbuf *frame, const vg_rect *rects,
			   size_t n_rects, vg_orient orient, int32_t band0, int32_t band1,
			   const vg_segdesc **segs, size_t *n_segs);

/* Measures how segs cover area: *covered receives the number of pixels of
 * area inside at least one segment, *overlap the number covered by more
 * than one. For exact methods covered == area of the changed pixels and
 * overlap == 0; for KARPRABIN they show its gaps and overlaps. Allocates a
 * counter per pixel of area; meant for tests and tools, not the hot path. */
void vg_segs_coverage(const vg_segdesc *segs, size_t n_segs, vg_rect area,
		      int64_t *covered, int64_t *overlap);

#endif
