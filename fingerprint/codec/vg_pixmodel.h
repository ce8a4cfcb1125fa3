/* The pixel model: literal segments coded pixel by pixel, each colour
 * predicted from the colours around it and range-coded (vg_rangecoder.h).
 * Screens repeat small patterns everywhere: glyph strokes, cell borders,
 * anti-aliasing ramps. A row may first be one yes or no, that it repeats
 * the row above (a zoomed heat map's cells, a pile of reads). Inside a
 * flat area one yes or no says whether the colour goes on, and below a
 * long stretch of one colour (a heat map's cells) a few say how far the
 * left colour runs; elsewhere, under the contexts of the ten neighbours
 * already coded (then six, four, two, then none), the next colour is nearly
 * certain, which a coder that finds repeated strings (zstd over the
 * literal methods of vg_literal.h) sees only where whole rows repeat.
 * Blocks of many colours (photographs, gradients) go instead as the
 * differences from a median predictor, coded by their frequencies.
 *
 * Both ends keep one model per connection, learning from every segment in
 * order, so they stay in step as long as each end codes and decodes the
 * same segments in the same order (doc/protocol.md, *The pixel model*).
 * Neighbours outside the segment count as absent: a segment never depends
 * on pixels the viewer might not hold. No socket I/O, no globals. */
#ifndef VG_PIXMODEL_H
#define VG_PIXMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"
#include "common/vg_writer.h"

typedef struct vg_pixmodel vg_pixmodel;

/* The revision of the coding this module implements. Both ends must code
 * alike, bit for bit: any change to what a chunk's bits mean (a context,
 * a rule, a table's size) raises it, and a server codes by the model only
 * for a viewer that announces the same revision (doc/protocol.md, VIEWER
 * HELLO); others get the literal methods. 1..31 (five bits of the VIEWER
 * HELLO's flags). tests/vectors/pixmodel.vec names the revision its bytes
 * are of, and tests/unit/test_vectors refuses new bytes under an old
 * revision. */
#define VG_PIXMODEL_REVISION 1

/* About 8 MB of tables (vg_pixmodel_bytes, at most 8,000,000), learning
 * from nothing. */
int vg_pixmodel_new(vg_pixmodel **out);
void vg_pixmodel_free(vg_pixmodel *m);

/* The memory a model holds, the same at both ends and for every model,
 * besides a block's scratch (the largest block coded, 4 bytes a pixel)
 * and a bit a pixel of the screen. */
size_t vg_pixmodel_bytes(void);

/* Forgets everything m learnt, as if new, keeping its tables: a model
 * used for a few segments is reset in microseconds, one used for many
 * in the time it takes to clear 8 MB. For a new connection, and for
 * fuzzers that run one input after another. */
void vg_pixmodel_reset(vg_pixmodel *m);

/* Codes rects of frame, in order, as one chunk appended to out. */
int vg_pixmodel_encode(vg_pixmodel *m, const vg_pixbuf *frame, const vg_rect *rects, size_t n,
		       vg_writer *out);

/* Decoding a chunk: begin, then one call per rect in the encoder's order,
 * then end. in must stay valid until end. decode_rect draws r into fb
 * (r must lie inside it); VG_ECORRUPT when the chunk is damaged (the
 * model is then out of step: the connection must close). end returns
 * VG_ECORRUPT if the coded bytes ran out before the last pixel. */
void vg_pixmodel_decode_begin(vg_pixmodel *m, const uint8_t *in, size_t len);
int vg_pixmodel_decode_rect(vg_pixmodel *m, vg_pixbuf *fb, vg_rect r);
int vg_pixmodel_decode_end(vg_pixmodel *m);

#endif
