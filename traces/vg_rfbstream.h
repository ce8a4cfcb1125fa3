/* Decoding a recorded RFB server-to-client byte stream (RFC 6143) into
 * frames: the handshake up to ServerInit, then server messages, with the
 * standard encodings Raw, CopyRect, RRE, Hextile, Zlib, ZRLE and Tight
 * (lossless: fill, copy, palette and gradient filters; not JPEG), and the
 * pseudo-encodings a server sends unasked-for content in (cursor shapes,
 * pointer position, LastRect, desktop size and name, LED state).
 *
 * The stream is what a recorder such as rfbproxy saw; what the client sent
 * is not in it, so the decoder assumes the client chose security type None
 * (or VNC authentication when None was not offered) and kept the server's
 * pixel format. Only true-colour formats of 8, 16 or 32 bits a pixel are
 * decoded.
 *
 * Every length and rectangle is checked against the bytes present and the
 * framebuffer: the decoder is meant for untrusted files and is fuzzed.
 * Memory use is bounded by the framebuffer's size, which the caller caps.
 */
#ifndef VG_RFBSTREAM_H
#define VG_RFBSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"

typedef struct vg_rfbstream vg_rfbstream;

/* A new decoder that refuses framebuffers of more than max_pixels pixels
 * (VG_ERANGE at the handshake). Free with vg_rfbstream_free(). */
vg_rfbstream *vg_rfbstream_new(uint64_t max_pixels);

void vg_rfbstream_free(vg_rfbstream *s);

/* Reads ProtocolVersion, the security handshake and ServerInit from the
 * start of data and sets *used to the bytes they took. Then the frame is
 * width x height and black. Errors: VG_ETRUNC (data ends first),
 * VG_EPROTO (not RFB, or the server refused the connection), VG_ENOTSUP
 * (a security type or pixel format it cannot follow), VG_ERANGE (too
 * large). vg_rfbstream_error_text() says which. */
int vg_rfbstream_handshake(vg_rfbstream *s, const uint8_t *data, size_t len, size_t *used);

/* Decodes the server message at the start of data and sets *used to its
 * length. Returns 1 after a FramebufferUpdate (the frame now holds its
 * result), 0 after any other message, or a negative code: VG_ETRUNC when
 * data ends inside the message, VG_ECORRUPT for a malformed message or
 * compressed data, VG_ENOTSUP for a message type or encoding not handled.
 * After an error the frame and the zlib streams are unspecified: stop. */
int vg_rfbstream_message(vg_rfbstream *s, const uint8_t *data, size_t len, size_t *used);

/* The current frame (valid after a successful handshake, until free). */
const vg_pixbuf *vg_rfbstream_frame(const vg_rfbstream *s);

/* A one-line description of the last failure ("" if none). */
const char *vg_rfbstream_error_text(const vg_rfbstream *s);

#endif
