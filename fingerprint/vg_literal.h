/* Literal segment coding: the pixels of a segment the viewer does not
 * hold, as compact bytes for the update's pixel stream.
 *
 * Sans-I/O. The encoder measures each block once (how many colours, how
 * many runs) and picks whichever of four codings is shortest before zlib:
 * a palette with packed indices, a palette with runs, or 3 bytes a pixel
 * either plain or after a prediction filter (for smooth, many-coloured
 * content; chosen over plain when its residuals are smaller). Fewer bytes
 * before zlib also let zlib's 32 KB window reach further back.
 * doc/protocol.md describes every byte.
 *
 * The decoder keeps no state and checks every count and index against the
 * block's size, so any input either decodes to exactly w x h pixels or
 * fails without writing outside the block.
 */
#ifndef VG_LITERAL_H
#define VG_LITERAL_H

#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_reader.h"
#include "common/vg_rect.h"
#include "common/vg_writer.h"

/* The first byte of a coded block. */
typedef enum {
	VG_LIT_RAW = 0,         /* 3 bytes a pixel: blue, green, red */
	VG_LIT_PREDICT = 1,     /* 3 bytes a pixel: residuals of a prediction */
	VG_LIT_PALETTE = 2,     /* palette, then packed indices row by row */
	VG_LIT_PALETTE_RLE = 3, /* palette, then runs of one index */
	VG_LIT_METHODS = 4
} vg_lit_method;

/* Most colours in a palette, and in a run-coded palette. */
#define VG_LIT_PALETTE_MAX 256
#define VG_LIT_RLE_PALETTE_MAX 128

typedef struct vg_literal vg_literal;

typedef struct {
	uint64_t blocks[VG_LIT_METHODS];  /* blocks coded with each method */
	uint64_t bytes[VG_LIT_METHODS];   /* their coded bytes */
	uint64_t pixels[VG_LIT_METHODS];  /* their pixels */
} vg_literal_stats;

/* Creates an encoder (its scratch tables); free with vg_literal_free(). */
int vg_literal_new(vg_literal **out);

/* Frees lc; accepts NULL. */
void vg_literal_free(vg_literal *lc);

/* Appends the coded pixels of rect of frame (low 24 bits of each pixel)
 * to out: at most 1 + 3 x width x height bytes. Allocates nothing but
 * out's growth. VG_ERANGE if rect is empty or not inside frame. */
int vg_literal_encode(vg_literal *lc, const vg_pixbuf *frame, vg_rect rect, vg_writer *out);

/* Appends one block coded with method, whatever it costs (for tests and
 * measurements). VG_EINVAL if method cannot code the block (too many
 * colours for a palette), VG_ERANGE as vg_literal_encode(). */
int vg_literal_encode_as(vg_literal *lc, const vg_pixbuf *frame, vg_rect rect,
			 vg_lit_method method, vg_writer *out);

/* Counts of what lc has coded so far. */
void vg_literal_get_stats(const vg_literal *lc, vg_literal_stats *st);

/* A static name for a method ("raw", "predict", "palette", "palette-rle"),
 * "?" for others. */
const char *vg_lit_method_name(unsigned method);

/* Reads one coded block from rd and draws it into rect of fb (which the
 * caller has checked lies inside fb). Errors: VG_ETRUNC if rd ends
 * early, VG_ECORRUPT for an unknown method, a bad palette size, an index
 * outside the palette or runs that do not fill the block exactly,
 * VG_ERANGE if rect lies outside fb. On error part of rect may be drawn;
 * nothing outside it is. */
int vg_literal_decode(vg_reader *rd, vg_pixbuf *fb, vg_rect rect);

#endif
