/* The segment descriptor: what segment2d produces and fingerprint consumes.
 *
 * A segment is a rectangle of the screen cut by a segmenter. Its content
 * hash covers its size, orientation and every pixel (common/vg_seghash.h
 * defines it); the fingerprint layer truncates it to the optimistic
 * fingerprint, so pixels are hashed once per update.
 */
#ifndef VG_SEGDESC_H
#define VG_SEGDESC_H

#include <stdint.h>

#include "common/vg_rect.h"

/* How the segmenter walked the pixels: along rows (vertical motion, or
 * none), or along columns (horizontal motion: the region was transposed). */
typedef enum {
	VG_ORIENT_ROWS = 0,
	VG_ORIENT_COLS = 1,
} vg_orient;

typedef enum {
	VG_SEG_NORMAL = 0,
	VG_SEG_SIMILAR = 1, /* a run of identical rows (or columns) */
} vg_segkind;

typedef struct {
	vg_rect rect;     /* screen coordinates, never transposed */
	uint64_t hash;    /* content hash, see vg_seghash.h */
	uint8_t orient;   /* vg_orient */
	uint8_t kind;     /* vg_segkind */
} vg_segdesc;

#endif
