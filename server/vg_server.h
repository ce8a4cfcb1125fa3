/* The VNC server: LibVNCServer serving a framebuffer to any RFB client,
 * with updates for Varg viewers written by Varg's own encoder.
 *
 * The owner draws into the framebuffer between vg_server_frame_lock() and
 * vg_server_frame_unlock(); clients are served from LibVNCServer's threads.
 */
#ifndef VG_SERVER_H
#define VG_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"
#include "server/vg_monitor.h"

typedef struct vg_server vg_server;

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

/* The pixel model (fingerprint/codec/vg_pixmodel.h) costs a few times the CPU
 * of the literal methods and zstd at both ends and saves a third or more
 * of the pixel bytes: worth it on a slow link. The handshake measures
 * only the round trip, so by default a long one stands for a slow link. */
typedef enum {
	VG_SERVER_PIXMODEL_AUTO, /* from VG_SERVER_SLOW_RTT_US on */
	VG_SERVER_PIXMODEL_ON,
	VG_SERVER_PIXMODEL_OFF,
} vg_server_pixmodel;
#define VG_SERVER_SLOW_RTT_US 30000

/* Parses --pixel-model's value: auto, on or off; anything else is said
 * on stderr and VG_EINVAL. */
int vg_server_pixmodel_option(const char *s, vg_server_pixmodel *out);

typedef struct {
	int port;                 /* TCP port; 0 picks the first free one from 5900 */
	const char *listen;       /* IPv4 address to listen on (default 127.0.0.1) */
	int zstd_level;           /* zstd level of Varg updates, 1..19;
				   * VG_SERVER_ZSTD_AUTO (the default): by the viewer's
				   * round trip, VG_SENDER_ZSTD_LEVEL near,
				   * VG_SENDER_ZSTD_LEVEL_FAR from VG_SERVER_FAR_RTT_US on */
	bool no_moves;            /* moved content as segments, never MOVE runs */
	vg_server_pixmodel pixmodel; /* when to offer the pixel model */
	unsigned refine_ms;       /* approximate missed pixels that would take longer
				   * than this on the link, for viewers that take it;
				   * 0 (the default): never (doc/user-guide.md) */
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
	const char *http_root;    /* serve a browser's files from here on the
				   * RFB port (server/vg_http.h); NULL: none */
	int defer_ms;             /* wait after a change for more before an update
				   * (LibVNCServer's 5 ms); 0 for a source whose
				   * changes come whole, as a relay's do */
} vg_server_config;

void vg_server_config_init(vg_server_config *cfg);

/* A VNC password from a file written by vncpasswd (TigerVNC) or
 * x11vnc -storepasswd: its first 8 bytes, DES-obscured. NULL (logged,
 * naming option) when it cannot be read, or when others may read the
 * file. Free with free(). */
char *vg_server_read_password(const char *path, const char *option);

/* Whether an IPv4 listen address is loopback. */
bool vg_server_address_is_loopback(const char *addr);

/* The access options of a server program (--listen, --password-file,
 * --viewonly-password-file, --allow-no-password; NULL or false when not
 * given): VG_EINVAL, logged, for a reachable address without a password
 * unless allowed, and for a view-only password without a full one. */
int vg_server_check_access(const char *listen, const char *password_file,
			   const char *view_password_file, bool allow_no_password);

/* The directory --http serves when given none: Debian's noVNC. */
#define VG_SERVER_HTTP_DIR "/usr/share/novnc"

/* The --http[=DIR] option of a server program: VG_EINVAL, logged, when
 * dir is not a directory; a warning when it has neither noVNC's vnc.html
 * nor an index.html for "/". */
int vg_server_check_http(const char *dir);

/* The GOptionArgFunc of --http[=DIR] (G_OPTION_FLAG_OPTIONAL_ARG): stores
 * DIR, or VG_SERVER_HTTP_DIR without one, in the char ** that is its
 * group's user data (freeing what was there). Always TRUE. */
int vg_server_http_option(const char *name, const char *value, void *data, void *error);

/* Where Varg's own browser files are (viewer/web/): $VARG_WEB_DIR if
 * set, else the installed ones, else the source tree's and the build
 * tree's (a build run where it was made). Fills 1 or 2 entries of dirs
 * (free each with g_free) and returns how many. */
int vg_server_web_dirs(char *dirs[2]);

/* Prints, on stdout, the address a browser opens for a server listening
 * on listen:port with --http=dir. */
void vg_server_print_http(const char *listen, int port, const char *dir);

/* Creates a server for a width x height framebuffer (all black) and starts
 * listening; clients are served from background threads. Errors, each
 * logged: VG_EINVAL (bad size or address), VG_EIO (cannot listen on the
 * port). Warns when a reachable address has no password. */
int vg_server_new(const vg_server_config *cfg, int32_t width, int32_t height, vg_server **out);

/* Disconnects every client, stops the threads and frees s; accepts NULL. */
void vg_server_free(vg_server *s);

/* The port the server listens on. */
int vg_server_port(const vg_server *s);

/* Locks the framebuffer for writing and returns it for drawing: waits for
 * every send reading it (stock encoders read it while they encode). */
vg_pixbuf *vg_server_frame_lock(vg_server *s);

/* Tells every client that rects changed; with the lock held. Marking
 * before drawing lets no client take a region older than the pixels;
 * clients' scaled copies of the marked rects are made at the unlock,
 * from the finished pixels. */
void vg_server_frame_mark(vg_server *s, const vg_rect *changed, size_t n);

/* Marks rects (may be NULL, 0) and unlocks. */
void vg_server_frame_unlock(vg_server *s, const vg_rect *changed, size_t n);

/* Copies the changed rects of src (a frame of the server's size) into the
 * framebuffer and marks them, under the lock: a source that reads the
 * screen into its own frame holds the lock for the copy only. */
void vg_server_frame_copy(vg_server *s, const vg_pixbuf *src, const vg_rect *changed, size_t n);

/* Number of clients past their handshake. */
int vg_server_client_count(vg_server *s);

/* Waits until every client has been sent all changes, at most timeout_ms.
 * Returns true when all are caught up. */
bool vg_server_wait_caught_up(vg_server *s, int timeout_ms);

/* The pointer's image: width x height 0xAARRGGBB words with premultiplied
 * alpha (as XFixes gives them), hot spot inside. */
typedef struct {
	int32_t width, height;    /* 1..256 each */
	int32_t hot_x, hot_y;
	const uint32_t *pixels;
} vg_server_cursor;

/* Sends the cursor's image to every client that takes cursor shapes
 * (RichCursor or XCursor); it is never painted into the framebuffer.
 * VG_EINVAL for a bad size. */
int vg_server_set_cursor(vg_server *s, const vg_server_cursor *cur);

/* Sends clipboard text (UTF-8, len bytes) to every client: as UTF-8 to
 * those that take the extended clipboard, as Latin-1 to the others
 * (characters outside it become '?'). */
void vg_server_cut_text(vg_server *s, const char *utf8, size_t len);

/* Changes the framebuffer's size (contents black until drawn): clients
 * that take desktop-size pseudo-encodings are told, every Varg viewer
 * starts its picture again (its cache of segments stays). Waits for
 * updates in progress. VG_EINVAL for a bad size. */
int vg_server_resize(vg_server *s, int32_t width, int32_t height);

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

void vg_server_get_stats(vg_server *s, vg_server_stats *st);

/* Statistics of the monitor's last updates, computed now; false when the
 * server keeps no monitor (VARG_TEST_NO_MONITOR=1). */
bool vg_server_get_summary(vg_server *s, vg_monitor_summary *out);

/* One connected client. */
typedef struct {
	char host[64];
	const char *encoding;     /* "varg", or its preferred stock encoding; static */
	bool varg;
	uint64_t bytes_sent;      /* Varg: bytes of Varg updates; stock: all RFB bytes */
	uint64_t updates;
	uint64_t fingerprints;    /* Varg: segments sent as fingerprints */
	uint64_t misses;          /* ... of which its cache did not hold (repairs) */
} vg_server_viewer;

/* Fills out[0..cap) with the clients past their handshake; returns how
 * many. */
size_t vg_server_list_viewers(vg_server *s, vg_server_viewer *out, size_t cap);

/* The last clients to leave that were past their handshake, oldest first,
 * as they were when they left. */
#define VG_PAST_VIEWERS 1024
size_t vg_server_list_past_viewers(vg_server *s, vg_server_viewer *out, size_t cap);

#endif
