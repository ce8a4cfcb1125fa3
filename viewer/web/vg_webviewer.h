/* The browser viewer's C interface: one Varg receiver per page, compiled
 * to WebAssembly (varg-wasm.js, varg-wasm.wasm) and called from the page
 * through cwrap. Pointers are offsets into the module's memory (HEAPU8);
 * errors are the negative VG_E* codes of common/vg_error.h.
 */
#ifndef VG_WEBVIEWER_H
#define VG_WEBVIEWER_H

#include <stddef.h>
#include <stdint.h>

/* Opens the page's receiver with a width x height framebuffer (black),
 * closing any open one first. persistent: the segment cache lives below
 * /varg-cache, which the page has mounted (IDBFS); else it is in memory
 * only. cache_mb: its capacity in MiB, 0 for the receiver's default. */
int vgw_open(int width, int height, int persistent, double cache_mb);

/* A buffer of at least n bytes for the page to write one Varg body into
 * (the bytes after the rectangle's u32 length); valid until the next
 * vgw_buffer or vgw_close. NULL when memory runs out. */
uint8_t *vgw_buffer(size_t n);

/* Handles the first len bytes of the buffer as one Varg body, drawing into
 * the framebuffer; bytes for the server are appended to the reply. Then,
 * when w * h > 0, copies the framebuffer's rectangle (x, y, w, h) into the
 * RGBA buffer: w * h * 4 bytes, R, G, B, 255 a pixel, row-major, opaque
 * black where the rectangle leaves the framebuffer. After an error the
 * connection must be closed. */
int vgw_handle(size_t len, int x, int y, int w, int h);

/* The RGBA rectangle of the last vgw_handle that asked for one. */
uint8_t *vgw_rgba(void);

/* Bytes for the server, already framed as RFB client messages, gathered
 * since the last vgw_reply_clear. */
uint8_t *vgw_reply(void);
int vgw_reply_len(void);
void vgw_reply_clear(void);

/* A readable account of the last error. */
const char *vgw_error(void);

/* A new framebuffer of width x height for a desktop size change, keeping
 * the old content where the two overlap (the rest black); on an error the
 * old one is kept. */
int vgw_resize(int width, int height);

/* A field of the receiver's statistics by name: those of
 * vg_receiver_stats (fingerprint/proto/vg_receiver.h; "persistent" is 0 or 1),
 * and "approximate", 1 while some drawn pixels are approximations. NaN
 * for an unknown name or when no receiver is open. */
double vgw_stat(const char *name);

/* Empties the segment cache, on disk too; later fingerprints miss and are
 * repaired. */
void vgw_clear_cache(void);

/* Frees the receiver (which saves its cache and history files below
 * /varg-cache; the page syncs IDBFS afterwards), the framebuffer and the
 * buffers. */
void vgw_close(void);

#endif
