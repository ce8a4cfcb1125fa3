/* Stock RFB encoders: LibVNCServer's own Raw, Hextile, Zlib, Tight and ZRLE
 * encoders run in-process over a framebuffer, so that a trace's updates can
 * be measured with them beside Varg (varg-trace ratio).
 *
 * Each encoding gets one real LibVNCServer client (rfbNewClient) on one end
 * of a socketpair; an update is rfbSendFramebufferUpdate() on that client
 * with the update's rectangles, and the bytes are counted where a viewer
 * would read them, at the other end, by a drain thread. What is counted is
 * the whole FramebufferUpdate message exactly as LibVNCServer writes it
 * (message header, rectangle headers, encoded data, LastRect markers).
 * The handshake LibVNCServer writes when a client is created is not counted.
 *
 * Clients are set up as a stock viewer in the server's native pixel format
 * would leave them after SetEncodings: no cursor updates, LastRect enabled
 * (as LibVNCClient and TigerVNC announce it), Tight lossless (no JPEG).
 * Not thread-safe; one vg_stockenc per thread.
 */
#ifndef VG_STOCKENC_H
#define VG_STOCKENC_H

#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"

typedef enum {
	VG_STOCKENC_RAW = 0,
	VG_STOCKENC_HEXTILE = 1,
	VG_STOCKENC_ZLIB = 2,
	VG_STOCKENC_TIGHT = 3,
	VG_STOCKENC_ZRLE = 4,
	VG_STOCKENC_COUNT = 5,
} vg_stockenc_kind;

typedef struct {
	int zlib_level;   /* Zlib encoding's deflate level (0..9), 6 */
	int tight_level;  /* Tight compress level (0..9; LibVNCServer uses 0,
			   * 1 or, for 9, its level 3 when JPEG is off), 9 */
} vg_stockenc_config;

typedef struct {
	uint64_t bytes[VG_STOCKENC_COUNT]; /* bytes the viewer would read */
	uint64_t ns[VG_STOCKENC_COUNT];    /* time in rfbSendFramebufferUpdate */
} vg_stockenc_result;

typedef struct vg_stockenc vg_stockenc;

/* Fills cfg with the defaults above. */
void vg_stockenc_config_init(vg_stockenc_config *cfg);

/* The encoding's lower-case name ("raw", "hextile", "zlib", "tight",
 * "zrle"); a static string. */
const char *vg_stockenc_name(vg_stockenc_kind kind);

/* Creates the encoders over frame, which is borrowed: it must stay valid
 * (same pixels pointer, size and stride) until vg_stockenc_free(). The
 * caller changes its pixels between updates. Returns VG_EINVAL for a bad
 * config or frame, VG_EIO if a socket pair or the drain thread cannot be
 * made; *out is NULL on failure. */
int vg_stockenc_new(const vg_stockenc_config *cfg, const vg_pixbuf *frame, vg_stockenc **out);

/* Frees e, closing its clients and sockets; accepts NULL. */
void vg_stockenc_free(vg_stockenc *e);

/* Sends one update covering rects[0..n) (clipped to the frame; may overlap)
 * through every encoder, and stores each one's byte count and time in
 * *res. An empty update sends nothing and counts zero. Returns VG_EIO if
 * LibVNCServer failed to write (the encoder is then unusable). */
int vg_stockenc_update(vg_stockenc *e, const vg_rect *rects, size_t n, vg_stockenc_result *res);

#endif
