/* Approximations: a missed region shown first at a fraction of its
 * resolution, on links too slow for its exact pixels to come soon.
 *
 * Sans-I/O. The server shrinks each rectangle by a factor f (every f x f
 * block of pixels becomes their average) and codes the small picture with
 * vg_literal; the viewer decodes it and paints each small pixel over its
 * block. The exact pixels follow in a later UPDATE, so the picture always
 * ends exact; an approximation never enters the segment cache, the
 * beliefs or the REPEAT window. doc/protocol.md, APPROX, has the bytes.
 *
 * Shrinking and expanding are deterministic integer arithmetic: both ends
 * (and a benchmark) know exactly what the viewer shows meanwhile.
 */
#ifndef VG_APPROX_H
#define VG_APPROX_H

#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_reader.h"
#include "common/vg_rect.h"
#include "common/vg_writer.h"
#include "fingerprint/codec/vg_literal.h"

#define VG_APPROX_FACTOR_MIN 2
#define VG_APPROX_FACTOR_MAX 16
/* Most rectangles in one APPROX message. */
#define VG_APPROX_MAX_RECTS 4096

typedef struct vg_approx vg_approx;

/* Creates the scratch state of one end; free with vg_approx_free(). */
int vg_approx_new(vg_approx **out);

/* Frees ax; accepts NULL. */
void vg_approx_free(vg_approx *ax);

/* Width and height of r shrunk by factor (rounded up), as a rectangle at
 * the origin. */
vg_rect vg_approx_small(vg_rect r, unsigned factor);

/* Writes the small picture of rect r of frame into dst at (0, 0): pixel
 * (i, j) is the per-channel average, rounded down, of the block of
 * factor x factor pixels at (r.x + i * factor, r.y + j * factor), clipped
 * to r, with each channel's lower 4 bits then set to 8. dst must hold
 * vg_approx_small(r, factor). */
void vg_approx_shrink(const vg_pixbuf *frame, vg_rect r, unsigned factor, vg_pixbuf *dst);

/* Paints rect r of fb from the small picture at (0, 0) of src: each of its
 * pixels over its factor x factor block, clipped to r. */
void vg_approx_expand(const vg_pixbuf *src, unsigned factor, vg_pixbuf *fb, vg_rect r);

/* The server's half: appends the APPROX message's head (factor, count,
 * rectangles) to head and the coded small pictures, one literal block per
 * rectangle, to pix, for the caller's pixel stream. VG_EINVAL for a factor
 * out of range or a count not in 1..VG_APPROX_MAX_RECTS, VG_ERANGE if a
 * rectangle is empty or not inside frame (nothing is then written). */
int vg_approx_encode(vg_approx *ax, vg_literal *lc, const vg_pixbuf *frame, const vg_rect *rects,
		     size_t n, unsigned factor, vg_writer *head, vg_writer *pix);

/* The viewer's half, step one: reads the head from rd, checking that each
 * rectangle lies inside fb. Then vg_approx_rects() lists them and
 * vg_approx_pixel_bound() bounds the pixel chunk. VG_ETRUNC, VG_ECORRUPT
 * (factor or count out of range), VG_ERANGE (a rectangle outside fb). */
int vg_approx_read_head(vg_approx *ax, vg_reader *rd, const vg_pixbuf *fb);

/* The rectangles of the head read last. */
const vg_rect *vg_approx_rects(const vg_approx *ax, size_t *n);

/* A bound on the bytes of the head's literal blocks, whatever method
 * codes them: the most the viewer inflates for one APPROX. */
size_t vg_approx_pixel_bound(const vg_approx *ax);

/* Step two: decodes the blocks from pix (the inflated pixel chunk) and
 * paints them into fb. Errors as vg_literal_decode(), and VG_ECORRUPT if
 * bytes are left over; part of the rectangles may then be painted. */
int vg_approx_draw(vg_approx *ax, vg_reader *pix, vg_pixbuf *fb);

#endif
