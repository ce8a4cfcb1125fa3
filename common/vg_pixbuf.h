/* Pixel buffers: 32-bit true colour, 8 bits per channel.
 *
 * Varg's one pixel format: each pixel is a uint32_t 0x00RRGGBB (red shift 16,
 * green 8, blue 0) in host order, which on the little-endian hosts we build
 * for is the byte order B, G, R, 0 -- the same as an X11 ZPixmap of depth 24.
 * The top byte is always zero, so equal colours have equal words.
 *
 * The struct is public on purpose: hot loops index rows directly. A buffer
 * either owns its pixels (vg_pixbuf_new) or is a view into another one
 * (vg_pixbuf_view, vg_pixbuf_wrap); a view must not outlive its pixels.
 */
#ifndef VG_PIXBUF_H
#define VG_PIXBUF_H

#include <stdbool.h>
#include <stdint.h>

#include "common/vg_rect.h"

#define VG_RGB(r, g, b) \
	((uint32_t)(((uint32_t)(r) & 0xff) << 16 | ((uint32_t)(g) & 0xff) << 8 | ((uint32_t)(b) & 0xff)))
#define VG_PIXEL_MASK 0x00ffffffu

/* Largest width or height accepted anywhere: keeps w*h*4 within 2^32. */
#define VG_MAX_DIM 16384

typedef struct {
	uint32_t *pixels; /* pixel (0, 0) */
	int32_t width;
	int32_t height;
	int32_t stride;   /* pixels from the start of one row to the next */
	bool owned;       /* pixels were allocated by vg_pixbuf_new */
} vg_pixbuf;

/* Allocates a zeroed width x height buffer (stride == width). Returns NULL
 * when a dimension is not in 1..VG_MAX_DIM. Free with vg_pixbuf_free(). */
vg_pixbuf *vg_pixbuf_new(int32_t width, int32_t height);

/* Frees pb and, when it owns them, its pixels; accepts NULL. */
void vg_pixbuf_free(vg_pixbuf *pb);

/* Wraps caller-owned pixels without copying. */
vg_pixbuf vg_pixbuf_wrap(uint32_t *pixels, int32_t width, int32_t height, int32_t stride);

/* A view of rect inside pb (rect is clipped to pb); shares pb's pixels. */
vg_pixbuf vg_pixbuf_view(const vg_pixbuf *pb, vg_rect rect);

static inline uint32_t *vg_pixbuf_row(const vg_pixbuf *pb, int32_t y)
{
	return pb->pixels + (intptr_t)y * pb->stride;
}

static inline vg_rect vg_pixbuf_rect(const vg_pixbuf *pb)
{
	return vg_rect_make(0, 0, pb->width, pb->height);
}

/* Whether r is a rectangle of pixels inside pb: not empty, not outside. */
static inline bool vg_pixbuf_holds(const vg_pixbuf *pb, vg_rect r)
{
	return !vg_rect_is_empty(r) && vg_rect_contains(vg_pixbuf_rect(pb), r);
}

/* Copies all of src into dst with its top-left corner at (dx, dy).
 * Returns VG_ERANGE, copying nothing, if it would not fit. */
int vg_pixbuf_copy(vg_pixbuf *dst, int32_t dx, int32_t dy, const vg_pixbuf *src);

/* Copies rect (in both buffers' coordinates) from src to dst; both must
 * contain rect, else VG_ERANGE and nothing is copied. */
int vg_pixbuf_copy_rect(vg_pixbuf *dst, const vg_pixbuf *src, vg_rect rect);

/* Fills rect (clipped to pb) with colour. */
void vg_pixbuf_fill(vg_pixbuf *pb, vg_rect rect, uint32_t colour);

/* True when a and b have the same size and the same pixels. */
bool vg_pixbuf_equal(const vg_pixbuf *a, const vg_pixbuf *b);

/* Writes src transposed into dst (dst->width == src->height and
 * dst->height == src->width, else VG_ERANGE). */
int vg_pixbuf_transpose(vg_pixbuf *dst, const vg_pixbuf *src);

#endif
