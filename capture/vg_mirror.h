/* A mirror of a VNC server's screen through LibVNCClient: connects as an
 * ordinary viewer asking for Varg's pixel format (32-bit 0x00RRGGBB) and
 * lossless encodings, keeps the server's framebuffer up to date, and says
 * which parts changed since the last look, as tiles that really differ.
 * It also asks for cursor shapes (the RichCursor and XCursor
 * pseudo-encodings): a server that sends them leaves the pointer out of
 * the picture, so a user shows the shapes vg_mirror_take_cursor gives.
 * A server that offers TLS (VeNCrypt) gets it, its certificate trusted on
 * first use as varg-viewer trusts it (capture/vg_channel).
 *
 * Used by varg-trace record --vnc and the server's --vnc source;
 * built into capture/libvgcapture.a with the X capture. One thread per
 * mirror.
 */
#ifndef VG_MIRROR_H
#define VG_MIRROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"

typedef struct vg_mirror vg_mirror;

/* Connects to the server at host:port asking for encodings
 * (a LibVNCClient list such as "tight zrle hextile"; NULL for its
 * default), and reads its first framebuffer geometry. tile (1..VG_MAX_DIM)
 * is the comparison tile size. On success *out owns a new mirror (free
 * with vg_mirror_free). VG_EIO when the connection or handshake fails
 * (a refused TLS certificate is logged as a warning, with both
 * fingerprints),
 * VG_ERANGE for a screen larger than VG_MAX_DIM, VG_EINVAL for bad
 * arguments. */
int vg_mirror_open(const char *host, int port, const char *encodings, int32_t tile, vg_mirror **out);

/* As vg_mirror_open, answering VNC authentication with password (NULL:
 * the server must not ask for one). */
int vg_mirror_open_auth(const char *host, int port, const char *encodings, int32_t tile,
			const char *password, vg_mirror **out);

int32_t vg_mirror_width(const vg_mirror *m);
int32_t vg_mirror_height(const vg_mirror *m);

/* Waits up to timeout_ms for a message from the server and handles it.
 * Returns 1 when a message was handled, 0 after the timeout, VG_EIO when
 * the connection ended (vg_mirror_error_text says how), VG_ENOTSUP when the
 * server changed its screen size. */
int vg_mirror_poll(vg_mirror *m, int timeout_ms);

/* Whether a framebuffer update has completed since the last grab. */
bool vg_mirror_is_dirty(const vg_mirror *m);

/* The most rectangles one grab can report. */
size_t vg_mirror_max_rects(const vg_mirror *m);

/* Copies the mirrored screen into fb (width x height, holding the previous
 * grab's frame; the first grab reports the whole screen) and writes the
 * changed rectangles, disjoint and top to bottom, to dst and their count to
 * *n. VG_EINVAL for an fb of the wrong size, VG_ENOSPC for dst_cap below
 * vg_mirror_max_rects(). */
int vg_mirror_grab(vg_mirror *m, vg_pixbuf *fb, vg_rect *dst, size_t dst_cap, size_t *n);

/* Input for the mirrored server, as an RFB client sends it: a pointer
 * position with its button mask (bit 0 = button 1), a key by keysym,
 * clipboard text (UTF-8; sent as Latin-1, '?' for what it lacks).
 * VG_EIO when the write fails. */
int vg_mirror_pointer(vg_mirror *m, int32_t x, int32_t y, uint8_t buttons);
int vg_mirror_key(vg_mirror *m, uint32_t keysym, bool down);
int vg_mirror_cut_text(vg_mirror *m, const char *utf8, size_t len);

/* Clipboard text the server sent since the last call: 1 with *text
 * (UTF-8, *len bytes, NUL-terminated; owned by m, valid until the next
 * call), 0 when none arrived. */
int vg_mirror_take_cut_text(vg_mirror *m, const char **text, size_t *len);

/* A cursor shape: width x height 0xAARRGGBB words with premultiplied
 * alpha, rows top to bottom, each pixel opaque or all zero (RFB cursors
 * have a 1-bit mask), and the hot spot, inside the image. */
typedef struct {
	int32_t width, height;
	int32_t hot_x, hot_y;
	const uint32_t *pixels;
} vg_mirror_cursor;

/* The cursor shape the server sent since the last call (the newest when
 * several came): 1 with *cur (pixels owned by m, valid until the next
 * vg_mirror_poll), 0 when none arrived. */
int vg_mirror_take_cursor(vg_mirror *m, vg_mirror_cursor *cur);

/* Why the connection ended ("" while it lasts). */
const char *vg_mirror_error_text(const vg_mirror *m);

/* Disconnects and frees m; accepts NULL. */
void vg_mirror_free(vg_mirror *m);

#endif
