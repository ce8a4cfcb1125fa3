/* The server side of the Varg protocol, one per viewer connection.
 *
 * Sans-I/O: segments and pixels go in, message bodies come out in a
 * vg_writer, and the caller writes them to the socket. Not thread-safe;
 * one connection's sends are serialised by the caller.
 */
#ifndef VG_SENDER_H
#define VG_SENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_segdesc.h"
#include "common/vg_writer.h"

typedef struct vg_sender vg_sender;

typedef struct {
	int zlib_level;          /* 0..9; -1 for zlib's default */
	uint8_t server_id[16];   /* names the viewer's cache namespace */
} vg_sender_config;

/* Fills cfg with the defaults (zlib level 6, a zero server id). */
void vg_sender_config_init(vg_sender_config *cfg);

/* Creates a sender; *out is freed with vg_sender_free(). Returns VG_EINVAL
 * for a bad level, VG_EZLIB if zlib cannot start. */
int vg_sender_new(const vg_sender_config *cfg, vg_sender **out);

/* Frees s; accepts NULL. */
void vg_sender_free(vg_sender *s);

/* Appends the body of the HELLO message (without the u32 length). */
void vg_sender_hello(vg_sender *s, vg_writer *out);

/* Appends the body of one UPDATE message carrying segs (in screen
 * coordinates, all inside frame), with their pixels read from frame.
 * Consecutive segments with the same x, width and orientation that touch
 * vertically are sent as one run. Returns VG_ERANGE if a segment lies
 * outside frame, VG_EZLIB on a compression failure (the connection's
 * stream is then unusable). */
int vg_sender_update(vg_sender *s, const vg_pixbuf *frame,
		     const vg_segdesc *segs, size_t n, vg_writer *out);

/* Handles one viewer message body (after its type and length). Returns
 * VG_EPROTO for a malformed or unexpected message. */
int vg_sender_handle(vg_sender *s, const uint8_t *body, size_t len);

/* True once the viewer's HELLO has arrived. */
bool vg_sender_has_viewer_hello(const vg_sender *s);

typedef struct {
	uint64_t updates;
	uint64_t segments;
	uint64_t literal_bytes;  /* pixel bytes before compression */
	uint64_t body_bytes;     /* bytes of message bodies produced */
} vg_sender_stats;

void vg_sender_get_stats(const vg_sender *s, vg_sender_stats *st);

#endif
