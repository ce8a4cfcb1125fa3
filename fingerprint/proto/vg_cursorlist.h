/* The pointer's shapes both ends of a connection keep, and the CURSOR
 * message that names one (doc/protocol.md, CURSOR).
 *
 * RFB's rich cursor sends every shape whole and uncompressed, with a
 * 1-bit mask: 9.5 kB for a 4K desktop's pointer, each time it crosses a
 * link or a text field. A CURSOR sends a new shape once, in premultiplied
 * ARGB with its alpha, compressed; a shape seen lately is its place in a
 * list of the last VG_CURSORLIST_LEN, most recent first, which both ends
 * update the same way. Sans-I/O and GLib-free (the browser's receiver
 * compiles it).
 */
#ifndef VG_CURSORLIST_H
#define VG_CURSORLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_writer.h"

/* Shapes remembered; a reference names one of these. */
#define VG_CURSORLIST_LEN 16

/* Largest cursor side, as RFB servers and SDL allow. */
#define VG_CURSOR_MAX_DIM 256

typedef struct {
	int32_t width, height;   /* 1..VG_CURSOR_MAX_DIM */
	int32_t hot_x, hot_y;    /* inside the shape */
	const uint32_t *argb;    /* width * height pixels, premultiplied ARGB */
} vg_cursor_shape;

typedef struct vg_cursorlist vg_cursorlist;

/* Size 1..VG_CURSOR_MAX_DIM each way, the hot spot inside: a shape
 * either protocol carries. */
bool vg_cursorlist_shape_valid(int32_t w, int32_t h, int32_t hx, int32_t hy);

/* An empty list; VG_ENOSPC if memory cannot be had. */
int vg_cursorlist_new(vg_cursorlist **out);

/* Accepts NULL. */
void vg_cursorlist_free(vg_cursorlist *l);

/* Forgets every shape, as at a HELLO. */
void vg_cursorlist_clear(vg_cursorlist *l);

/* Sender: appends the body of a CURSOR message (its kind byte first) for
 * shape to w, and puts the shape first in the list. VG_EINVAL for a
 * shape out of range or a colour channel above its alpha, VG_ENOSPC or
 * VG_EZLIB if it cannot be coded; the list and w are then unchanged. */
int vg_cursorlist_encode(vg_cursorlist *l, const vg_cursor_shape *shape, vg_writer *w);

/* Receiver: reads a CURSOR body (the kind byte first), puts the shape it
 * names first in the list and points *shape at it (valid until the list
 * next changes). VG_ETRUNC, VG_ECORRUPT or VG_ERANGE for a malformed
 * body, which leaves the list unchanged. */
int vg_cursorlist_decode(vg_cursorlist *l, const uint8_t *body, size_t len,
			 vg_cursor_shape *shape);

/* Shapes in the list, for tests. */
size_t vg_cursorlist_len(const vg_cursorlist *l);

#endif
