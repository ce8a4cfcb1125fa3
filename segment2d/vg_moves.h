/* Moved content: the rectangles where a new frame shows the previous
 * frame's pixels moved by one offset, the one movement estimation found.
 * The viewer copies them from its own picture (a MOVE run), so a scroll
 * costs a few bytes whatever the segments the viewer's cache holds: after
 * a screen of new content was cut along rows, the first sideways scroll
 * would otherwise miss every segment it cuts along columns.
 */
#ifndef VG_MOVES_H
#define VG_MOVES_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"
#include "common/vg_segdesc.h"
#include "segment2d/vg_motion.h"

/* Compares, inside rects[0..n), each block of VG_MOVE_BLOCK x VG_MOVE_BLOCK
 * pixels of cur with the pixels of prev at (-dx, -dy) from it, and appends
 * to out (a GArray of vg_move) the rectangles of blocks that are equal:
 * neighbours in a row of blocks merged, and a rectangle extended downwards
 * while the blocks below cover the same columns. Blocks whose source lies
 * outside the frame are left out. VG_EINVAL when prev and cur differ in
 * size or (dx, dy) is (0, 0). The rectangles of one call are disjoint if
 * rects are. */
#define VG_MOVE_BLOCK 16
int vg_moves_find(const vg_pixbuf *prev, const vg_pixbuf *cur, const vg_rect *rects, size_t n,
		  int32_t dx, int32_t dy, GArray *out);

/* The moves of the motion mr found (none without an offset), in moves,
 * and the part of rects[0..n) they leave, as disjoint rectangles, in rest
 * (a GArray of vg_rect); both are emptied first. No move takes its source
 * from unknown (may be NULL), the pixels prev shows that the viewer does
 * not hold exactly: owed or approximate ones. Moves that cover less
 * than 1/VG_MOVE_MIN_SHARE of the rects' area are dropped: they are
 * blocks that happen to match (margins, blank runs) rather than a scroll,
 * and cutting them out leaves ragged rects whose segments miss the cache
 * (on a recorded Artemis session, 5.6 % more bytes than no moves at all).
 * VG_EINVAL when prev and cur differ in size. */
#define VG_MOVE_MIN_SHARE 3
int vg_moves_split(const vg_pixbuf *prev, const vg_pixbuf *cur, const vg_rect *rects, size_t n,
		   const vg_motion_result *mr, const vg_region *unknown, GArray *moves, GArray *rest);

#endif
