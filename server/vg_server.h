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
#include "server/vg_serverconfig.h"

typedef struct vg_server vg_server;

/* Creates a server for a width x height framebuffer (all black) and starts
 * listening; clients are served from background threads. Errors, each
 * logged: VG_EINVAL (bad size or address), VG_EIO (cannot listen on the
 * port). Warns when a reachable address has no password. */
int vg_server_new(const vg_server_config *cfg, int32_t width, int32_t height, vg_server **out);

/* Disconnects every client, stops the threads and frees s; accepts NULL. */
void vg_server_free(vg_server *s);

/* The port the server listens on. */
int vg_server_port(const vg_server *s);

/* The port browsers open (with http_root): http_port's, or the RFB port
 * without one. */
int vg_server_http_port(const vg_server *s);

/* The TLS certificate's SHA-256 fingerprint and file (valid while s
 * lives); NULL with TLS off. */
const char *vg_server_tls_fingerprint(const vg_server *s);
const char *vg_server_tls_cert_path(const vg_server *s);

/* Prints on stdout, after prog's name, whether TLS is offered or
 * required, the certificate's file and its fingerprint (nothing with TLS
 * off): what an administrator hands to viewers for their first
 * connection. */
void vg_server_print_tls(const vg_server *s, const char *prog);

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

/* Waits until every client has been sent all changes and the cursor's
 * latest shape, at most timeout_ms.
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
