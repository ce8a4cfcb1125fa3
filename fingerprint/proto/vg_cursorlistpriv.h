/* What vg_cursorlist.c (the list, and the receiver's half) and
 * vg_cursorlist_enc.c (the sender's half) share. */
#ifndef VG_CURSORLISTPRIV_H
#define VG_CURSORLISTPRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fingerprint/proto/vg_cursorlist.h"

typedef struct {
	int32_t width, height, hot_x, hot_y;
	uint32_t *argb;
} vg_cursorlist_entry;

struct vg_cursorlist {
	vg_cursorlist_entry e[VG_CURSORLIST_LEN]; /* most recent first */
	size_t n;
};

/* Premultiplied: no channel above its pixel's alpha. */
bool vg_cursorlist_colours_valid(const uint32_t *argb, size_t n);

/* Moves entry i to the front. */
void vg_cursorlist_to_front(vg_cursorlist *l, size_t i);

/* Puts a new entry in front, owning argb; the oldest falls out of a full
 * list. */
void vg_cursorlist_push_front(vg_cursorlist *l, int32_t w, int32_t h, int32_t hx, int32_t hy,
			      uint32_t *argb);

#endif
