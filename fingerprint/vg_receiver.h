/* The viewer side of the Varg protocol, one per connection.
 *
 * Sans-I/O: message bodies go in, pixels are drawn into the caller's
 * framebuffer, and bytes for the server (already framed as RFB client
 * messages) come out in a vg_writer. Every field of a body is checked
 * before use: a malformed body is an error, never an out-of-bounds access.
 */
#ifndef VG_RECEIVER_H
#define VG_RECEIVER_H

#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_writer.h"

typedef struct vg_receiver vg_receiver;

/* Creates a receiver; VG_EZLIB if zlib cannot start. */
int vg_receiver_new(vg_receiver **out);

/* Frees r; accepts NULL. */
void vg_receiver_free(vg_receiver *r);

/* Handles the body of one Varg rectangle (after its u32 length), drawing
 * into fb, which must be the whole framebuffer. Messages for the server
 * are appended to reply. Errors: VG_ETRUNC / VG_ECORRUPT / VG_ERANGE for a
 * malformed body, VG_EPROTO for a message out of order, VG_ENOTSUP for an
 * unknown version, VG_EZLIB when the compressed stream is damaged. After
 * any error the connection must be closed: the zlib stream is out of step. */
int vg_receiver_handle(vg_receiver *r, const uint8_t *body, size_t len,
		       vg_pixbuf *fb, vg_writer *reply);

/* A readable account of the last error (which field, which segment). */
const char *vg_receiver_error_text(const vg_receiver *r);

typedef struct {
	uint64_t updates;
	uint64_t segments;
	uint64_t literal_segments;
	uint64_t cache_hits;
	uint64_t cache_misses;
	uint64_t corrections;
	uint64_t inflated_bytes;
} vg_receiver_stats;

void vg_receiver_get_stats(const vg_receiver *r, vg_receiver_stats *st);

#endif
