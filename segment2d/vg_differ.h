/* Region differencing: which pixels of a new frame really changed.
 *
 * A differ keeps its own copy of the previous frame. Given the new frame
 * (and optionally the damaged rectangles a capture source reported), it
 * compares the two, tile by tile (rows of each damaged tile band are first
 * compared with one memcmp each; only differing rows are looked at tile by
 * tile), tightens each changed tile to the exact bounds of its changed
 * pixels, merges neighbours, reports the result and copies the changed
 * pixels into its saved frame.
 */
#ifndef VG_DIFFER_H
#define VG_DIFFER_H

#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"

typedef struct vg_differ vg_differ;

/* Creates a differ for width x height frames with tile x tile tiles
 * (tile in 8..1024; 0 means the default, 64). The saved frame starts
 * "unknown": the first vg_differ_update() reports all of its damage as
 * changed. Returns VG_EINVAL (and *out = NULL) for bad sizes. Free with
 * vg_differ_free(). */
int vg_differ_new(int32_t width, int32_t height, int32_t tile, vg_differ **out);

/* Frees d; accepts NULL. */
void vg_differ_free(vg_differ *d);

/* Compares frame (the same size as d) with the saved frame where
 * damage[0..n_damage) says it may have changed (clipped to the frame; NULL
 * with n_damage == 0 means the whole frame), then saves the changed pixels.
 * Precisely, inside each tile the bounding box of the damage in that tile
 * is compared; elsewhere nothing is compared, reported or saved. On
 * success *changed points at *n_changed disjoint rectangles, owned by d
 * and valid until the next call on d, that hold every changed pixel: each
 * is the exact bounding box of the changes in one tile or in a run of
 * tiles whose changes meet at the tile edges. Errors: VG_EINVAL for a
 * frame of another size (nothing is saved). */
int vg_differ_update(vg_differ *d, const vg_pixbuf *frame, const vg_rect *damage,
		     size_t n_damage, const vg_rect **changed, size_t *n_changed);

/* Splitting an update across threads: vg_differ_update() is
 * vg_differ_begin(), vg_differ_rows() on all the tile rows, then
 * vg_differ_end(). vg_differ_rows() on disjoint runs of tile rows may
 * run at once on several threads, such as the parts [cuts[i],
 * cuts[i + 1]) of vg_differ_cut() for the same damage (about equal
 * damaged area each); the
 * rows must all be done before vg_differ_end(). vg_differ_begin() fails
 * as vg_differ_update() does, and nothing else may follow then. */
int vg_differ_begin(vg_differ *d, const vg_pixbuf *frame, const vg_rect *damage,
		    size_t n_damage);
void vg_differ_cut(const vg_differ *d, const vg_rect *damage, size_t n_damage, int n_parts,
		   int32_t *cuts);
void vg_differ_rows(vg_differ *d, const vg_pixbuf *frame, int32_t ty0, int32_t ty1);
void vg_differ_end(vg_differ *d, const vg_rect **changed, size_t *n_changed);

/* Replaces the saved frame with a copy of frame (same size, else
 * VG_EINVAL): after this, the differ compares against frame. */
int vg_differ_reset(vg_differ *d, const vg_pixbuf *frame);

/* From now on also keeps the saved frame as it was before each update
 * (vg_differ_previous), where moved content is looked up: one more frame
 * of memory and one more copy of the changed pixels per update. Call it
 * between updates; calling it again does nothing. */
void vg_differ_keep_previous(vg_differ *d);

/* The saved frame before the last update (the saved frame itself unless
 * vg_differ_keep_previous was called), read only, valid as long as d. */
const vg_pixbuf *vg_differ_previous(const vg_differ *d);

/* The saved frame (read only), valid as long as d. Before the first update
 * or reset it is all zero. */
const vg_pixbuf *vg_differ_saved(const vg_differ *d);

#endif
