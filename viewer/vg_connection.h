/* A connection from the viewer to a VNC server, through LibVNCClient,
 * decoding Varg updates as well as every standard encoding into one
 * framebuffer. Single-threaded: every call on one connection comes from
 * the same thread.
 */
#ifndef VG_CONNECTION_H
#define VG_CONNECTION_H

#include <stdbool.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"

typedef struct vg_connection vg_connection;

typedef struct {
	const char *host;
	int port;
	bool varg;               /* advertise the Varg encoding */
	const char *encodings;   /* LibVNCClient's list, e.g. "hextile zlib"; NULL: its default */
	bool verbose;            /* pass LibVNCClient's log through */
	const char *cache_dir;   /* base of persistent segment caches; NULL: memory only */
	uint64_t cache_size;     /* bytes; 0: the cache's default */
	bool clear_cache;        /* empty this server's cache at connect */
	int requests;            /* update requests kept in flight; 0: 2 */
} vg_connection_config;

/* Connects and completes the RFB handshake. Errors: VG_EIO (cannot connect
 * or the handshake failed), VG_ENOTSUP (the server's framebuffer is too
 * large). */
int vg_connection_open(const vg_connection_config *cfg, vg_connection **out);

/* Closes the connection and frees c; accepts NULL. */
void vg_connection_close(vg_connection *c);

/* Waits up to timeout_ms for data from the server and handles one message.
 * Returns 1 if a message was handled, 0 on timeout, VG_EIO when the server
 * closed the connection, VG_EPROTO on a protocol error (the text of
 * vg_connection_error_text() says which). */
int vg_connection_poll(vg_connection *c, int timeout_ms);

const char *vg_connection_error_text(const vg_connection *c);

/* A view of the current framebuffer, valid until the next poll. */
vg_pixbuf vg_connection_frame(const vg_connection *c);

typedef struct {
	uint64_t bytes_received;     /* from the kernel's TCP counters */
	uint64_t updates;            /* FramebufferUpdate messages completed */
	uint64_t varg_rects;         /* rectangles of the Varg encoding */
	uint64_t other_rects;        /* pixel rectangles of any other encoding */
	uint64_t varg_bytes;         /* bodies of Varg rectangles */
	uint64_t cache_hits;
	uint64_t cache_misses;
	uint64_t corrections;
	uint64_t checks;
	uint64_t repairs_sent;
	uint64_t segments;
	bool cache_persistent;
	uint64_t cache_entries;
	uint64_t cache_bytes_on_disk;
	double first_update_s;       /* time from connect to the first update */
	double last_update_s;        /* time from connect to the last update */
} vg_connection_stats;

void vg_connection_get_stats(const vg_connection *c, vg_connection_stats *st);

/* "varg" if Varg updates arrived, otherwise the first of the configured
 * encodings ("default" for LibVNCClient's own list). */
const char *vg_connection_encoding(const vg_connection *c);

#endif
