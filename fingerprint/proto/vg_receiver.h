/* The viewer side of the Varg protocol, one per connection.
 *
 * Sans-I/O: message bodies go in, pixels are drawn into the caller's
 * framebuffer, and bytes for the server (already framed as RFB client
 * messages) come out in a vg_writer. Segments sent as pixels go into the
 * segment cache; fingerprinted ones come out of it; every group is checked
 * against the server's SHA-1, and what disagreed is dropped from the cache
 * and asked for again (a REPAIR message). Every field of a body is checked
 * before use: a malformed body is an error, never an out-of-bounds access.
 */
#ifndef VG_RECEIVER_H
#define VG_RECEIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_writer.h"
#include "fingerprint/proto/vg_cursorlist.h"
#include "fingerprint/proto/vg_proto.h"

typedef struct vg_receiver vg_receiver;

typedef struct {
	/* Base directory of persistent caches, one namespace per server
	 * identity below it; NULL keeps segments in memory only. */
	const char *cache_dir;
	uint64_t cache_capacity;  /* bytes; 0: 2 GB on disk, 256 MB in memory */
	uint64_t memory_budget;   /* bytes; 0: 256 MB */
	bool clear_cache;         /* empty this server's namespace at open */
	/* Largest zstd window kept for the pixel stream (log2 bytes, 20..27;
	 * default VG_ZSTD_WINDOW_LOG_DEFAULT). */
	unsigned zstd_window_log;
	/* Exact pixels only: the server sends no approximations of missed
	 * regions (fingerprint/codec/vg_approx.h). Default false. */
	bool exact;
	/* Keep no pixel model (its tables take about 8 MB): the server
	 * codes literal pixels by the literal methods only. Default false. */
	bool lean;
	/* Takes the pointer's shape as CURSOR messages: the viewer lists
	 * VG_CURSOR_ENCODING. Default false (a CURSOR is then an error). */
	bool cursors;
} vg_receiver_config;

void vg_receiver_config_init(vg_receiver_config *cfg);

/* Creates a receiver (cfg is copied, cache_dir included); VG_EZLIB or
 * VG_ECRYPTO if a library cannot start. */
int vg_receiver_new(const vg_receiver_config *cfg, vg_receiver **out);

/* Frees r and closes its cache; accepts NULL. */
void vg_receiver_free(vg_receiver *r);

/* Makes r what vg_receiver_new made with the same configuration, for a
 * new connection: the cache is closed as vg_receiver_free closes it (a
 * persistent one keeps its segments and history on disk for the next
 * HELLO), and every state of the last connection is forgotten, while
 * buffers, the zstd streams and the pixel model's 8 MB of tables are
 * kept (the streams started again at the next HELLO, the model reset, so
 * a reset costs what the last connection touched). VG_EZLIB if zstd
 * cannot reset a stream; r must then be freed. */
int vg_receiver_reset(vg_receiver *r);

/* Handles the body of one Varg rectangle (after its u32 length), drawing
 * into fb, which must be the whole framebuffer. Messages for the server
 * are appended to reply. Errors: VG_ETRUNC / VG_ECORRUPT / VG_ERANGE for a
 * malformed body, VG_EPROTO for a message out of order, VG_ENOTSUP for an
 * version other than 1.0, VG_EZLIB when a compressed stream is damaged.
 * After any error the connection must be closed: the streams are out of
 * step. */
int vg_receiver_handle(vg_receiver *r, const uint8_t *body, size_t len,
		       vg_pixbuf *fb, vg_writer *reply);

/* The pseudo-encodings that announce this viewer's capabilities ahead of
 * the HELLO (VG_CAPS_*, doc/protocol.md), for SetEncodings after
 * VG_ENCODING. A server that takes them codes its first update at once
 * (HELLO flag VG_HELLO_AHEAD), without the beliefs of earlier sessions:
 * worth it when this cache holds nothing of that server. Call before the
 * HELLO arrives; a HELLO coded ahead is an error unless this was called. */
void vg_receiver_capabilities(vg_receiver *r, int32_t caps[VG_CAPS_COUNT]);

/* Copies the server identity of the HELLO to id; false before it. */
bool vg_receiver_server_id(const vg_receiver *r, uint8_t id[16]);

/* Appends a PING carrying token, framed for the server, to out; the
 * server answers with a PONG echoing it. VG_EPROTO before the HELLO (a
 * server that did not say HELLO may not know the message). */
int vg_receiver_ping(vg_receiver *r, uint32_t token, vg_writer *out);

/* After vg_receiver_handle: true once per PONG received, with its token
 * in *token. */
bool vg_receiver_take_pong(vg_receiver *r, uint32_t *token);

/* After vg_receiver_handle: true once per CURSOR received, with the
 * shape in *shape (its pixels valid until the next vg_receiver_handle). */
bool vg_receiver_take_cursor(vg_receiver *r, vg_cursor_shape *shape);

/* A readable account of the last error (which field, which segment). */
const char *vg_receiver_error_text(const vg_receiver *r);

/* Empties the segment cache (also on disk); later fingerprints miss and
 * are repaired. A persistent cache also gets a new identity, announced
 * at the next connection. */
void vg_receiver_clear_cache(vg_receiver *r);

/* Copies the cache identity announced in the VIEWER HELLO (all zero
 * before it, or without a cache) to id. True when it names a persistent
 * cache, false when it names this connection only. */
bool vg_receiver_cache_id(const vg_receiver *r, uint8_t id[16]);

/* Testing aid: stores pixels in the cache under key, whatever their
 * content, as a stale or foreign cache would hold them. VG_EPROTO before
 * the HELLO (the cache opens then). */
int vg_receiver_seed_cache(vg_receiver *r, uint64_t key, const vg_pixbuf *pixels);

typedef struct {
	uint64_t updates;
	uint64_t segments;
	uint64_t literal_segments;
	uint64_t cache_hits;      /* fingerprints found in the cache */
	uint64_t cache_misses;    /* fingerprints not found (repaired) */
	uint64_t repeats;         /* REPEAT items read */
	uint64_t moves;           /* MOVE runs applied */
	uint64_t moved_pixels;    /* pixels they copied */
	uint64_t history_restored; /* history items kept from the last session */
	uint64_t corrections;     /* segments repaired after a SHA-1 mismatch or miss */
	uint64_t checks;          /* SHA-1 groups verified */
	uint64_t check_failures;
	uint64_t repairs_sent;    /* rectangles asked for again */
	uint64_t owed_pixels;     /* pixels asked for again and not received yet */
	uint64_t approx_messages; /* APPROX messages drawn */
	uint64_t approx_pixels;   /* pixels approximate now, exact ones to come */
	uint64_t cursors;         /* CURSOR messages taken */
	unsigned zstd_window_log; /* the zstd window in use; 0 before the HELLO */
	bool coded_ahead;         /* the first update came without waiting for our HELLO */
	uint64_t model_updates;   /* updates whose new pixels the pixel model coded */
	uint64_t inflated_bytes;
	bool persistent;          /* the cache is on disk */
	uint64_t cache_entries;
	uint64_t cache_bytes_on_disk;
	uint64_t cache_memory;
} vg_receiver_stats;

void vg_receiver_get_stats(const vg_receiver *r, vg_receiver_stats *st);

/* True while some drawn pixels are approximations, exact ones to come. */
bool vg_receiver_approximate(const vg_receiver *r);

#endif
