/* A connection from the viewer to a VNC server, through LibVNCClient,
 * decoding Varg updates as well as every standard encoding into one
 * framebuffer. One network thread makes every call, except the
 * vg_connection_post_* functions, which any thread may call: they queue a
 * message that the network thread writes during its next poll, so every
 * write to the server happens on that one thread (LibVNCClient has no
 * write lock).
 */
#ifndef VG_CONNECTION_H
#define VG_CONNECTION_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"

typedef struct vg_connection vg_connection;

/* Called on the network thread. The framebuffer and region are valid only
 * during the call. */
typedef struct {
	void *user;
	/* After each FramebufferUpdate: the rectangles drawn since the last
	 * call (the whole frame after a desktop-size change). */
	void (*frame_cb)(void *user, const vg_pixbuf *fb, const vg_region *dirty);
	/* The server's cut text, Latin-1, len bytes (no terminator counted). */
	void (*cut_text_cb)(void *user, const char *latin1, size_t len);
	/* A new cursor shape: argb is w x h pixels, 0xAARRGGBB, alpha 0 or 255. */
	void (*cursor_cb)(void *user, const uint32_t *argb, int w, int h, int hot_x, int hot_y);
	/* The server asks for a VNC password: return it (g_malloc'd, the
	 * connection frees it) or NULL to give up. */
	char *(*password_cb)(void *user);
} vg_connection_events;

typedef struct {
	const char *host;
	int port;
	bool varg;               /* advertise the Varg encoding */
	const char *encodings;   /* LibVNCClient's list, e.g. "hextile zlib"; NULL: its default */
	bool verbose;            /* pass LibVNCClient's log through */
	const char *cache_dir;   /* base of persistent segment caches; NULL: memory only */
	uint64_t cache_size;     /* bytes; 0: the cache's default */
	unsigned zstd_window_log; /* zstd window kept, log2 bytes, 20..27 */
	bool lossless_only;      /* do not take approximations of missed regions */
	bool lean;               /* keep no pixel model (its tables take about 8 MB) */
	bool clear_cache;        /* empty this server's cache at connect */
	bool remote_cursor;      /* ask for the cursor shape instead of cursor pixels */
	bool view_only;          /* send no key, pointer or cut-text events */
	const vg_connection_events *events; /* NULL: none */
	int requests;            /* update requests kept in flight; 0: 2 */
	int timeout_ms;          /* connect + handshake, password prompt not counted; 0: 20 s */
	const gint *cancel; /* non-zero stops a connect or handshake; may be NULL */
	/* TLS (VeNCrypt, X509None or X509Vnc) is used whenever the server
	 * offers it. The server's certificate must be signed by tls_ca if
	 * set, and be tls_fingerprint if set; with neither, trust on first
	 * use (vg_knownhosts in trust_dir, by tls_host::tls_port). */
	bool tls_required;       /* refuse a server that does not offer TLS */
	const char *tls_ca;      /* PEM file of CA certificates; NULL: none */
	const char *tls_fingerprint; /* the certificate's SHA-256, as vg_tls_fingerprint_parse reads it */
	const char *trust_dir;   /* known hosts; NULL: cache_dir, else the
				    user's default cache directory */
	const char *tls_host;    /* the server's name as the user gave it, for
				    its certificate and known hosts; NULL: host, port */
	int tls_port;
	const char *tls_via;     /* the SSH gateway host is named on, or NULL */
} vg_connection_config;

/* Connects and completes the RFB handshake; on failure writes a one-line
 * reason to why (why_cap bytes, may be 0). Errors: VG_EIO (cannot connect
 * or the handshake failed), VG_ENOTSUP (the server's framebuffer is too
 * large), VG_ECRYPTO (TLS: the handshake failed, the server's certificate
 * is not the one trusted, or the server does not offer TLS and
 * tls_required), VG_EINVAL (tls_fingerprint is not a fingerprint),
 * VG_EAUTH (the server refused the password, or none could be had),
 * VG_ETIMEDOUT (no connection or handshake within timeout_ms),
 * VG_ECANCELED (*cancel was raised). */
int vg_connection_open_reason(const vg_connection_config *cfg, vg_connection **out,
			      char *why, size_t why_cap);

/* Closes the connection and frees c; accepts NULL. */
void vg_connection_close(vg_connection *c);

/* Writes the queued messages, then waits up to timeout_ms for data from
 * the server (or for a newly queued message) and handles one message.
 * Returns 1 if a message was handled, 0 otherwise, VG_EIO when the server
 * closed the connection, VG_EPROTO on a protocol error (the text of
 * vg_connection_error_text() says which). */
int vg_connection_poll(vg_connection *c, int timeout_ms);

const char *vg_connection_error_text(const vg_connection *c);

/* A view of the current framebuffer, valid until the next poll. */
vg_pixbuf vg_connection_frame(const vg_connection *c);

typedef struct {
	uint64_t bytes_received;     /* from the kernel's TCP counters: the
					wire's bytes, TLS records included */
	bool encrypted;              /* the session runs over TLS */
	char tls_version[16];        /* e.g. "TLSv1.3"; "" when not encrypted */
	char tls_cipher[64];         /* e.g. "TLS_AES_256_GCM_SHA384" */
	char tls_fingerprint[96];    /* the server certificate's SHA-256 (vg_tls_fingerprint_format) */
	const char *tls_trust;       /* how it was checked: "ca", "pinned",
					"known", "first use"; NULL when not encrypted */
	uint64_t updates;            /* FramebufferUpdate messages completed */
	uint64_t varg_rects;         /* rectangles of the Varg encoding */
	uint64_t other_rects;        /* pixel rectangles of any other encoding */
	uint64_t varg_bytes;         /* bodies of Varg rectangles */
	uint64_t cursors;            /* pointer shapes as Varg CURSOR messages */
	uint64_t rich_cursors;       /* ... as RFB rich (or X) cursors */
	uint64_t cache_hits;
	uint64_t cache_misses;
	uint64_t corrections;
	uint64_t checks;
	uint64_t repairs_sent;
	uint64_t owed_pixels;        /* asked for again and not received yet */
	uint64_t varg_updates;       /* Varg UPDATE messages read */
	uint64_t approx_messages;    /* APPROX messages drawn */
	uint64_t approx_pixels;      /* pixels approximate now, exact ones to come */
	uint64_t approx_periods;     /* times some of the picture became approximate */
	double approx_max_ms;        /* the longest such time until all was exact */
	double approx_total_ms;      /* all of them together */
	unsigned zstd_window_log;    /* zstd window in use for Varg */
	bool coded_ahead;            /* the server coded the first update without
					waiting for our VIEWER HELLO */
	uint64_t model_updates;      /* updates whose new pixels the pixel model coded */
	uint64_t segments;
	uint64_t repeats;            /* REPEAT items read */
	uint64_t moves;              /* MOVE runs applied */
	uint64_t moved_pixels;       /* pixels they copied */
	uint64_t history_restored;   /* history items kept from the last session */
	bool cache_persistent;
	uint64_t cache_entries;
	uint64_t cache_bytes_on_disk;
	double first_update_s;       /* time from connect to the first update */
	double last_update_s;        /* time from connect to the last update */
	double rtt_ms;               /* latest PING round trip; < 0: none yet */
	uint64_t raw_bytes;          /* 4 bytes per pixel of every pixel rectangle */
} vg_connection_stats;

void vg_connection_get_stats(const vg_connection *c, vg_connection_stats *st);

/* "varg" if Varg updates arrived, otherwise the first of the configured
 * encodings ("default" for LibVNCClient's own list). */
const char *vg_connection_encoding(const vg_connection *c);

/* Thread-safe: queue a message for the network thread (dropped in
 * view-only mode, and when the queue already holds more than a few
 * seconds' worth: a stalled link must not grow memory without bound).
 * Consecutive pointer moves with the same buttons are merged. */
void vg_connection_post_key(vg_connection *c, uint32_t keysym, bool down);
void vg_connection_post_pointer(vg_connection *c, int x, int y, int buttons);
void vg_connection_post_cut_text(vg_connection *c, const char *latin1, size_t len);

/* Thread-safe: measure the round-trip time with a Varg PING, if the server
 * speaks Varg and no PING is unanswered. */
void vg_connection_post_ping(vg_connection *c);

#endif
