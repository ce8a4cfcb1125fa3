/* The server side of the Varg protocol, one per viewer connection.
 *
 * Sans-I/O: segments and pixels go in, message bodies come out in a
 * vg_writer, and the caller writes them to the socket. The sender keeps
 * what it believes the viewer's segment cache holds: the content last sent
 * as pixels under each optimistic fingerprint, forgotten first-in
 * first-out once it adds up to more than 80 % of the cache size the viewer
 * announced. A believed segment travels as its fingerprint; after every
 * group of fingerprinted segments comes the SHA-1 of their pixels, so the
 * viewer can tell when its cache disagreed and ask for a repair.
 *
 * Not thread-safe; one connection's calls are serialised by the caller.
 */
#ifndef VG_SENDER_H
#define VG_SENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"
#include "common/vg_segdesc.h"
#include "common/vg_writer.h"
#include "fingerprint/codec/vg_literal.h"
#include "fingerprint/proto/vg_pixcost.h"

typedef struct vg_sender vg_sender;

/* zstd's level for Varg updates: measured against levels 1-19 in
 * doc/results.md (bytes against encode time per update). Over a WAN the
 * bytes cost more than the CPU: level 11 sends 1-9 % fewer for a fifth
 * more encode time. On a LAN the CPU costs more: level 3 sends 11-36 %
 * more for 14-42 % less encode time, and the updates' p99 comes sooner. */
#define VG_SENDER_ZSTD_LEVEL 9
#define VG_SENDER_ZSTD_LEVEL_FAR 11
#define VG_SENDER_ZSTD_LEVEL_LAN 3

/* What the sender uses is its own choice: the viewer understands every
 * coding of protocol 1.0. The choices below other than the level, the
 * window and the pixel model exist to measure what each coding saves
 * (varg-trace ratio --no-indexed ...). */
typedef struct {
	int zstd_level;          /* 1..19 */
	unsigned zstd_window_log; /* the largest zstd window this end keeps, 20..27 */
	unsigned fp_bits;        /* optimistic fingerprint width, 8..64 */
	unsigned group_size;     /* fingerprinted segments per SHA-1, 1..255 */
	bool no_persist;         /* ask the viewer not to keep segments on disk */
	bool pixmodel;           /* literal pixels by the pixel model (fingerprint/codec/
				  * vg_pixmodel.h), unless the viewer is lean;
				  * with pixmodel_by_rate, only while the
				  * link's rate is unknown */
	bool pixmodel_by_rate;   /* the pixel model or the literal methods, per
				  * update, whichever the link's rate
				  * (vg_sender_set_rate) makes sooner
				  * (fingerprint/proto/vg_pixcost.h) */
	bool indexed;            /* INDEXED literal blocks (the colour table) */
	bool repeat_within;      /* REPEATs naming items of their own update */
	uint8_t server_id[16];   /* names the viewer's cache namespace */
} vg_sender_config;

/* Fills cfg with the defaults (zstd at level VG_SENDER_ZSTD_LEVEL with a
 * window of up to 2^VG_ZSTD_WINDOW_LOG_DEFAULT, 40-bit fingerprints,
 * groups of 20, every coding on, a zero server id). */
void vg_sender_config_init(vg_sender_config *cfg);

/* Creates a sender; *out is freed with vg_sender_free(). Returns VG_EINVAL
 * for a bad setting, VG_EZLIB / VG_ECRYPTO if a library cannot start. */
int vg_sender_new(const vg_sender_config *cfg, vg_sender **out);

/* Frees s; accepts NULL. */
void vg_sender_free(vg_sender *s);

/* Makes s as vg_sender_new(cfg) makes a sender, for the next viewer,
 * keeping the memory of its zstd streams (used again when the next
 * viewer's level and window are the same) and of its pixel model (about
 * 8 MB): a server's next client, or a fuzzer's next input, does not
 * allocate and clear them again. Nothing of the last connection shows:
 * the same inputs give the same bytes as from a new sender. Errors as
 * vg_sender_new's; s is then unchanged. */
int vg_sender_reset(vg_sender *s, const vg_sender_config *cfg);

/* Coding ahead of the VIEWER HELLO: the viewer announced its VIEWER HELLO
 * flags (VG_CAPS_VHELLO_FLAGS only), zstd window log (20..27) and
 * capacity log in SetEncodings (VG_CAPS_*). Updates may then be coded at
 * once; the HELLO says so (VG_HELLO_AHEAD), so call this before
 * vg_sender_hello. The VIEWER HELLO that follows must agree; beliefs of
 * earlier sessions loaded after it go below this session's, and the saved
 * history is not restored. VG_EPROTO for values out of
 * range or after a VIEWER HELLO, VG_EZLIB if zstd cannot start. */
int vg_sender_assume_viewer(vg_sender *s, uint8_t flags, unsigned window_log, unsigned capacity_log);

/* Appends the body of the HELLO message (without the u32 length). */
void vg_sender_hello(vg_sender *s, vg_writer *out);

/* Appends the body of one UPDATE message carrying segs (in screen
 * coordinates, all inside frame), with their pixels read from frame.
 * Segments the viewer is believed to hold travel as fingerprints, except
 * those touching literal_only (may be NULL: repairs ask for pixels).
 * Returns VG_ERANGE if a segment lies outside frame, VG_EZLIB or
 * VG_ECRYPTO on a library failure (the connection is then unusable). */
int vg_sender_update(vg_sender *s, const vg_pixbuf *frame, const vg_segdesc *segs,
		     size_t n, const vg_region *literal_only, vg_writer *out);

/* vg_sender_update with MOVE runs first: moves[0..n_moves), each copied
 * by the viewer from its picture as it was before the update; segs must
 * not cover them.
 * VG_EINVAL before updates may be coded (vg_sender_takes_moves),
 * VG_ERANGE if a move's rectangle or source lies outside frame. */
int vg_sender_update_moves(vg_sender *s, const vg_pixbuf *frame, const vg_move *moves,
			   size_t n_moves, const vg_segdesc *segs, size_t n,
			   const vg_region *literal_only, vg_writer *out);

/* True once updates may be coded: every viewer of 1.0 takes MOVE runs. */
bool vg_sender_takes_moves(const vg_sender *s);

/* True once updates may be coded to a viewer that takes approximations
 * (APPROX): every one but those whose HELLO says exact pixels only. */
bool vg_sender_takes_approx(const vg_sender *s);

/* True when vg_sender_update would send d as pixels, literal_only aside:
 * the viewer is not believed to hold it. Reads the beliefs only. */
bool vg_sender_is_miss(const vg_sender *s, const vg_segdesc *d);

/* What rects[0..n) of frame would cost as literal pixels on the wire: a
 * trial coding with vg_literal, at the ratio the pixel stream has had so
 * far (half, before any); with the pixel model, their pixels at its bytes
 * a pixel so far. Changes nothing the viewer sees. VG_ERANGE if a
 * rectangle is empty or not inside frame. */
int vg_sender_estimate(vg_sender *s, const vg_pixbuf *frame, const vg_rect *rects, size_t n,
		       uint64_t *wire_bytes);

/* Appends the body of an APPROX message: rects[0..n) of frame shrunk by
 * factor (fingerprint/codec/vg_approx.h), their pixels through the connection's
 * pixel stream. The caller must send the exact pixels of every rectangle
 * in a later UPDATE. Beliefs, window and history do not change. VG_EPROTO
 * if the viewer does not take approximations, VG_EINVAL / VG_ERANGE as
 * vg_approx_encode(), VG_EZLIB when the stream fails (the connection is
 * then unusable). */
int vg_sender_approx(vg_sender *s, const vg_pixbuf *frame, const vg_rect *rects, size_t n,
		     unsigned factor, vg_writer *out);

/* Handles one viewer message body (after its RFB type and length). The
 * rectangles of a REPAIR are added to repair, which the caller must send
 * again with literal_only covering them. VG_ENOTSUP for a VIEWER HELLO
 * of another version than 1.0, VG_EPROTO for a malformed or unexpected
 * message (vg_sender_error_text says which); VG_EZLIB when zstd cannot
 * start. The connection must then be closed. */
int vg_sender_handle(vg_sender *s, const uint8_t *body, size_t len,
		     int32_t fb_width, int32_t fb_height, vg_region *repair);

/* A readable account of why vg_sender_handle last refused a message
 * (a version other than 1.0, which field); valid until the next call. */
const char *vg_sender_error_text(const vg_sender *s);

/* After vg_sender_handle: true once per PING received, with its token in
 * *token; the caller must answer with a PONG (vg_sender_pong) at once. */
bool vg_sender_take_ping(vg_sender *s, uint32_t *token);

/* Appends the body of a PONG (kind and token, VG_PING_LEN bytes) to out;
 * the caller frames it as a Varg rectangle of an update on its own. */
void vg_sender_pong(uint32_t token, vg_writer *out);

/* After vg_sender_load_beliefs restored the saved history: appends the
 * body of the HISTORY message (kind and digest) to out once and returns
 * true. The caller must send it as a Varg rectangle before the first
 * UPDATE's; an UPDATE written before it drops the restored history. */
bool vg_sender_take_history(vg_sender *s, vg_writer *out);

/* The link's rate lately, bytes/s (0: unknown), for the choice of coding
 * when the configuration has pixmodel_by_rate. */
void vg_sender_set_rate(vg_sender *s, uint64_t rate);

/* What each coding of new pixels has cost so far (for the logs). */
void vg_sender_get_pixcost(const vg_sender *s, vg_pixcost *out);

/* The revision of the pixel model the viewer said it decodes (its VIEWER
 * HELLO or capabilities; VG_PIXMODEL_REVISION is this build's): 0 for a
 * lean viewer, or before either came. The model codes for it only when
 * the two agree. */
unsigned vg_sender_viewer_model(const vg_sender *s);

/* True once updates may be coded: the viewer's HELLO has arrived, or its
 * capabilities were taken ahead of it. */
bool vg_sender_has_viewer_hello(const vg_sender *s);

/* True once the VIEWER HELLO itself has arrived (its cache identity). */
bool vg_sender_viewer_named(const vg_sender *s);

/* True when updates were coded ahead of the VIEWER HELLO. */
bool vg_sender_coded_ahead(const vg_sender *s);

typedef struct {
	uint64_t updates;
	uint64_t segments;
	uint64_t literal_segments;
	uint64_t fingerprint_segments; /* repeated ones included */
	uint64_t repeats;         /* REPEAT items */
	uint64_t repeated_segments; /* segments they stand for */
	uint64_t checks;          /* SHA-1 groups sent */
	uint64_t literal_bytes;   /* literal pixels at 3 bytes a pixel */
	uint64_t literal_coded_bytes; /* the same after literal coding, before zstd */
	uint64_t literal_pixels[VG_LIT_METHODS]; /* literal pixels coded with each method */
	uint64_t literal_wire_bytes; /* ... and compressed: the updates' pixel chunks */
	uint64_t literal_updates; /* updates with literal pixels */
	uint64_t model_updates;   /* of them, those whose pixels went by the pixel model */
	uint64_t model_ns;        /* time spent in the pixel model */
	uint64_t fingerprinted_bytes; /* 4-byte pixels replaced by fingerprints */
	uint64_t plain_bytes;     /* update bytes before compression */
	uint64_t body_bytes;      /* bytes of message bodies produced */
	uint64_t repairs;         /* repair rectangles received */
	uint64_t approx_messages; /* APPROX messages written */
	uint64_t approx_pixels;   /* pixels they covered */
	uint64_t approx_bytes;    /* their bodies' bytes */
	uint64_t beliefs;         /* fingerprints believed held right now */
	uint64_t beliefs_loaded;  /* of them, loaded from an earlier session */
	uint64_t history_restored; /* history items kept from it */
	uint64_t sha1_ns;         /* time spent hashing groups */
	uint64_t zlib_ns;         /* time spent compressing (zstd) */
	unsigned zstd_window_log; /* the pixel stream's zstd window; 0 before it starts */
} vg_sender_stats;

void vg_sender_get_stats(const vg_sender *s, vg_sender_stats *st);

/* Beliefs across sessions. The caller keeps them (fingerprint/
 * vg_beliefstore.h) per server identity and viewer cache identity. */

/* True, with the viewer's cache identity in cache_id, when this viewer's
 * beliefs may be kept after the connection: its HELLO has arrived, it
 * named a persistent cache (not all zero, not flagged per-connection) of
 * non-zero capacity, and this server does not ask viewers not to persist. */
bool vg_sender_persistent_id(const vg_sender *s, uint8_t cache_id[16]);

/* Appends the image of the current beliefs (vg_beliefs_save(), tagged
 * with this server, this viewer and the fingerprint width), at most
 * max_bytes long: the newest beliefs that fit. */
void vg_sender_save_beliefs(const vg_sender *s, size_t max_bytes, vg_writer *out);

/* Replaces the beliefs by those of an image saved in an earlier session,
 * and the history by the saved one if the viewer's HELLO named its
 * digest and no UPDATE went out yet (then see vg_sender_take_history),
 * within the budget the viewer's HELLO set. VG_EPROTO before that HELLO;
 * the errors of vg_beliefs_load() for an image that is damaged or for
 * another server, viewer or width (the beliefs are then unchanged). */
int vg_sender_load_beliefs(vg_sender *s, const uint8_t *data, size_t len);

#endif
