/* Cursor shapes as RFB carries them (the rich-cursor pseudo-encoding, as
 * LibVNCClient hands it over) turned into premultiplied ARGB, the form
 * the trace format and the server's cursor take. */
#ifndef VG_CURSOR_H
#define VG_CURSOR_H

#include <stddef.h>
#include <stdint.h>

/* n pixels of source (0x00RRGGBB, 4 bytes each, any alignment) and mask
 * (one byte a pixel, non-zero where the cursor is opaque) into argb:
 * opaque pixels get alpha 0xff, transparent ones are all zero, as
 * premultiplied ARGB requires. */
void vg_cursor_from_rfb(const uint8_t *source, const uint8_t *mask, size_t n, uint32_t *argb);

/* Bytes of a w x h shape as a rich cursor at 32 bits a pixel: its 12-byte
 * rectangle header, 4 bytes a pixel, the mask's rows of a bit a pixel. */
uint64_t vg_cursor_rich_bytes(int32_t w, int32_t h);

#endif
