/* Literal segment coding: the pixels of segments the viewer does not
 * hold, as compact bytes for the update's pixel stream.
 *
 * Sans-I/O. Five codings: a palette with packed indices, a palette with
 * runs, 3 bytes a pixel either plain or as residuals of a prediction
 * (for smooth, many-coloured content), and a byte a pixel naming a slot
 * of a colour table both ends keep for the connection. The encoder
 * measures each block once (its colours, how often a pixel repeats the
 * one before) and takes a palette only where it shrinks the block to
 * under a quarter; all other blocks of one update share one method,
 * because the compressor that follows gains most from the same pixels
 * coding to the same bytes everywhere; the table carries that across
 * updates at a third of the bytes (measured in doc/results.md).
 * doc/protocol.md describes every byte.
 *
 * The decoder keeps no state but the colour table it is given, and checks
 * every count and index against the block's size and the table, so any
 * input either decodes to exactly w x h pixels or fails without writing
 * outside the block and the table.
 */
#ifndef VG_LITERAL_H
#define VG_LITERAL_H

#include <stdbool.h>
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
	VG_LIT_INDEXED = 4,     /* new colours of the shared table, then a byte a pixel */
	VG_LIT_METHODS = 5
} vg_lit_method;

/* Most colours in a palette, and in a run-coded palette. */
#define VG_LIT_PALETTE_MAX 256
#define VG_LIT_RLE_PALETTE_MAX 128

/* The table that VG_LIT_INDEXED blocks share: slots below
 * VG_LIT_SHORT_SLOTS travel as one byte, the others as two. */
#define VG_LIT_SHORT_SLOTS 240
#define VG_LIT_TABLE_SIZE (VG_LIT_SHORT_SLOTS + 16 * 256)

/* The decoder's copy of that table. Both ends keep it for a connection's
 * life and only ever add to it, so that a colour keeps its slot and the
 * compressor that follows sees the same glyph as the same bytes in every
 * update. A block lists the colours it adds before its pixels. */
typedef struct {
	uint32_t colour[VG_LIT_TABLE_SIZE];
	unsigned filled; /* slots 0 .. filled - 1 hold colours */
} vg_lit_table;

/* Empties t, as at a connection's start. */
void vg_lit_table_init(vg_lit_table *t);

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

/* Lets vg_literal_encode_list() code blocks as VG_LIT_INDEXED (off at
 * creation: only for a decoder that keeps a vg_lit_table). Turning it on
 * starts lc's table empty, as the decoder's is at a connection's start. */
void vg_literal_set_indexed(vg_literal *lc, bool on);

/* Appends the coded pixels of rect of frame (low 24 bits of each pixel)
 * to out, as a list of one block: at most 1 + 3 x width x height bytes.
 * Allocates nothing but out's growth. VG_ERANGE if rect is empty or not
 * inside frame. */
int vg_literal_encode(vg_literal *lc, const vg_pixbuf *frame, vg_rect rect, vg_writer *out);

/* Appends the coded pixels of rects[0..n) of frame, one block after the
 * other, each at most 1 + 3 x width x height bytes. Blocks a palette
 * shrinks to under a quarter are coded with it; the others all with one
 * method: prediction when fewer than 40 % of their pixels repeat the one
 * before and more than a quarter are distinct colours (smooth content),
 * else plain bytes. Grows an internal plan to n bytes; the pixel loops
 * allocate nothing. VG_ERANGE (nothing written) if a rect is empty or not
 * inside frame. */
int vg_literal_encode_list(vg_literal *lc, const vg_pixbuf *frame, const vg_rect *rects,
			   size_t n, vg_writer *out);

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
 * caller has checked lies inside fb). A VG_LIT_INDEXED block reads and
 * fills slots of table; with table NULL it is VG_ECORRUPT. Errors:
 * VG_ETRUNC if rd ends early, VG_ECORRUPT for an unknown method, a bad
 * palette size, an index outside the palette or runs that do not fill the
 * block exactly, VG_ERANGE if rect lies outside fb. On error part of rect
 * (and of table) may be written; nothing outside them is. */
int vg_literal_decode(vg_reader *rd, vg_pixbuf *fb, vg_rect rect, vg_lit_table *table);

#endif
