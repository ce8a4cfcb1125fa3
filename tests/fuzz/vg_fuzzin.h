/* Fuzz input for the round-trip fuzzers: the bytes libFuzzer gives, read
 * as choices (a size, a rectangle, what to paint where). Reading past the
 * end gives zeros, so every input, however short, is a complete run. No
 * allocation; the pixbufs painted are the caller's. */
#ifndef VG_FUZZIN_H
#define VG_FUZZIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"

typedef struct {
	const uint8_t *data; /* the caller's, valid while the vg_fuzzin is used */
	size_t left;
} vg_fuzzin;

void vg_fuzzin_init(vg_fuzzin *in, const uint8_t *data, size_t size);

/* The next byte, or 0 once the input is used up. */
uint8_t vg_fuzzin_u8(vg_fuzzin *in);

/* The next two bytes, big-endian (zeros past the end). */
uint16_t vg_fuzzin_u16(vg_fuzzin *in);

bool vg_fuzzin_done(const vg_fuzzin *in);

/* A non-empty rectangle inside a w x h picture (w, h >= 1). */
vg_rect vg_fuzzin_rect(vg_fuzzin *in, int32_t w, int32_t h);

/* Paints r (inside fb) with content of a kind the input picks: one
 * colour, a few colours in a pattern, pixels as the input's bytes, a
 * gradient, noise, or a copy of another part of fb (so that segments
 * repeat). Returns the kind's copy source through *src when it copied
 * (then *copied is true), for MOVE runs. */
void vg_fuzzin_paint(vg_fuzzin *in, vg_pixbuf *fb, vg_rect r, vg_rect *src, bool *copied);

#endif
