/* The settings of a server program's screen: what it serves, to whom and
 * how it codes, as the programs fill them from their options. Read by
 * every part of the screen (vg_screen_config), changed by none. Also the
 * counts the screen keeps for the programs (vg_server_get_stats).
 */
#ifndef VG_SERVERCONFIG_H
#define VG_SERVERCONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What clients do, for a source that can pass it on (an X display, a
 * proxied VNC server). Called on the clients' own threads, so each
 * callback must be thread-safe; NULL callbacks drop the events. Never
 * called for view-only clients. */
typedef struct {
	void (*pointer)(void *user, int32_t x, int32_t y, uint8_t buttons); /* bit 0 = button 1 */
	void (*key)(void *user, uint32_t keysym, bool down);
	void (*cut_text)(void *user, const char *utf8, size_t len);  /* len bytes, not terminated */
	void *user;
} vg_server_input;

#define VG_SERVER_ZSTD_AUTO (-1)
#define VG_SERVER_FAR_RTT_US 5000
#define VG_SERVER_LAN_RTT_US 1000

/* The pixel model (fingerprint/codec/vg_pixmodel.h) costs more CPU than
 * the literal methods and zstd at both ends and saves a third or more of
 * the pixel bytes: worth it on a slow link. By default it is chosen per
 * update by the link's rate (fingerprint/proto/vg_pixcost.h); until that
 * is known, a round trip of VG_SERVER_SLOW_RTT_US or more stands for a
 * slow link. */
typedef enum {
	VG_SERVER_PIXMODEL_AUTO, /* per update, by the link's rate */
	VG_SERVER_PIXMODEL_ON,
	VG_SERVER_PIXMODEL_OFF,
} vg_server_pixmodel;
#define VG_SERVER_SLOW_RTT_US 30000

/* Bands (doc/user-guide.md): a first band of what the link carries in
 * 60 ms, for updates that would reach the viewer later than 200 ms whole,
 * the time within which a change still feels immediate. Measured over
 * the emulated slow links in doc/results.md (*Bands on by default*). */
#define VG_SERVER_BAND_MS 60
#define VG_SERVER_FIRST_PAINT_MS 200

/* Parses --pixel-model's value: auto, on or off; anything else is said
 * on stderr and VG_EINVAL. */
int vg_server_pixmodel_option(const char *s, vg_server_pixmodel *out);

/* TLS (VeNCrypt) for clients: offered beside the plain type (the
 * default), required, or not offered at all. */
typedef enum {
	VG_SERVER_TLS_OFFER,
	VG_SERVER_TLS_REQUIRE,
	VG_SERVER_TLS_OFF,
} vg_server_tls;

typedef struct {
	int port;                 /* TCP port; 0 picks the first free one from 5900 */
	const char *listen;       /* IPv4 address to listen on (default 127.0.0.1) */
	int zstd_level;           /* zstd level of Varg updates, 1..19;
				   * VG_SERVER_ZSTD_AUTO (the default): by the viewer's
				   * round trip: VG_SENDER_ZSTD_LEVEL_LAN below
				   * VG_SERVER_LAN_RTT_US, VG_SENDER_ZSTD_LEVEL_FAR
				   * from VG_SERVER_FAR_RTT_US on, else (or if
				   * unknown) VG_SENDER_ZSTD_LEVEL */
	bool no_moves;            /* moved content as segments, never MOVE runs */
	int threads;              /* threads beside a viewer's own that share its
				   * updates' segment step, 0..VG_WORKERS_MAX - 1;
				   * default: the processors less one */
	vg_server_pixmodel pixmodel; /* when to offer the pixel model */
	unsigned refine_ms;       /* approximate missed pixels that would take longer
				   * than this on the link, for viewers that take it;
				   * 0 (the default): never (doc/user-guide.md) */
	unsigned band_ms;         /* send an update's missed pixels in bands when they
				   * would take longer than this on the link, the
				   * first band as soon as it is coded; 0: never;
				   * default VG_SERVER_BAND_MS */
	unsigned first_paint_ms;  /* ... and would reach the viewer later than this
				   * whole; 0: whenever; default VG_SERVER_FIRST_PAINT_MS */
	unsigned fp_bits;         /* optimistic fingerprint width, 8..64 */
	unsigned group_size;      /* fingerprinted segments per SHA-1 */
	bool no_persist;          /* ask viewers not to keep segments on disk,
				   * and keep no beliefs about them either */
	const char *beliefs_dir;  /* base of belief files; NULL: $XDG_STATE_HOME/varg/beliefs */
	unsigned beliefs_viewers; /* belief files kept; 0: 64 */
	size_t beliefs_file_bytes; /* bound on one belief file; 0: 16 MiB */
	unsigned beliefs_save_s;  /* seconds between saves while connected; 0: 60 */
	const char *desktop_name; /* shown by viewers */
	bool verbose;             /* pass LibVNCServer's own log through */
	vg_server_input input;    /* where clients' input goes; zeroed: nowhere */
	bool view_only;           /* every client is view-only */
	bool no_clipboard;        /* cut text crosses neither way */
	const char *password;     /* VNC authentication with this password; NULL: none */
	const char *view_password; /* a second password giving view-only access; NULL: none */
	FILE *update_log;         /* a line per Varg update written; NULL: none */
	const char *http_root;    /* serve a browser's files from here
				   * (server/vg_http.h); NULL: none */
	int http_port;            /* with http_root: browsers on this port, a
				   * port of their own; 0: on the RFB port */
	vg_server_tls tls;        /* VeNCrypt on the accept path (server/vg_tlsgate.h) */
	const char *tls_cert;     /* PEM certificate and key for TLS, both or neither; */
	const char *tls_key;      /* neither: made once in the state directory */
	int defer_ms;             /* wait after a change for more before an update
				   * (LibVNCServer's 5 ms); 0 for a source whose
				   * changes come whole, as a relay's do */
} vg_server_config;

void vg_server_config_init(vg_server_config *cfg);

/* Fills cfg's TLS fields from the programs' options --tls, --no-tls,
 * --tls-cert FILE and --tls-key FILE (false or NULL when not given; the
 * strings are borrowed): VG_EINVAL, said on stderr, for --tls with
 * --no-tls, a certificate without its key or the other way round, or
 * either with --no-tls. */
int vg_server_tls_options(bool tls, bool no_tls, const char *cert, const char *key, vg_server_config *cfg);

/* What a screen has done so far (vg_server_get_stats). */
typedef struct {
	uint64_t clients_total;   /* clients accepted so far */
	uint64_t varg_clients;    /* of which spoke Varg */
	uint64_t varg_updates;    /* Varg updates written */
	uint64_t varg_bytes;      /* bytes of Varg updates written */
	uint64_t fingerprints;    /* segments sent as fingerprints */
	uint64_t literals;        /* segments sent as pixels */
	uint64_t repairs;         /* rectangles viewers asked for again */
	uint64_t warm_viewers;    /* Varg viewers whose beliefs were loaded from disk */
	uint64_t clients_now;     /* clients connected now */
	uint64_t bytes_sent;      /* RFB bytes written to all clients, Varg or not */
	uint64_t updates_sent;    /* framebuffer updates written to all clients */
	uint64_t resizes;         /* framebuffer size changes */
	/* Shared segmentation (server/vg_segshare.h), with 2+ Varg viewers: */
	uint64_t shared_updates;  /* Varg updates whose segments were shared */
	uint64_t shared_hits;     /* results taken from another viewer */
	uint64_t shared_misses;   /* results computed and offered to others */
	uint64_t shared_waits;    /* lookups that waited for a result being computed */
	uint64_t shared_wait_ns;  /* ... and how long they waited in all */
	uint64_t shared_evictions; /* results dropped for newer ones */
	uint64_t unshared;        /* computed without sharing (first update, no slot) */
} vg_server_stats;

#endif
