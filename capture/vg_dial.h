/* vg_dial: the viewer's way to a server, bounded in time and stoppable.
 *
 * LibVNCClient's own connect waits without a way to stop it, and its
 * handshake reads wait for ever on a server that accepts and says
 * nothing. vg_dial connects itself (the socket then goes to LibVNCClient
 * as an accepted one would), and a watch beside the handshake shuts the
 * socket down when the caller's cancel flag is raised (a signal) or the
 * deadline passes, so that LibVNCClient's reads end at once. Time spent
 * asking the user for a password does not count.
 */
#ifndef VG_DIAL_H
#define VG_DIAL_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

/* Connects to host:port (TCP, non-blocking, TCP_NODELAY) by deadline_ns
 * (vg_time_ns clock). cancel may be NULL; when *cancel (read atomically) becomes non-zero
 * the attempt stops within 50 ms. Returns 0 and the socket in *fd, or
 * VG_EIO (refused, unreachable, unknown host), VG_ETIMEDOUT or
 * VG_ECANCELED, with a one-line reason in why. */
int vg_dial(const char *host, int port, uint64_t deadline_ns, const gint *cancel,
	    int *fd, char *why, size_t why_cap);

typedef struct vg_dial_watch vg_dial_watch;

/* Watches fd until vg_dial_watch_stop: shuts it down when *cancel (may be
 * NULL) becomes non-zero or deadline_ns passes. */
vg_dial_watch *vg_dial_watch_start(int fd, uint64_t deadline_ns, const gint *cancel);

/* While paused (a password prompt) the deadline moves with the clock. */
void vg_dial_watch_pause(vg_dial_watch *w, int paused);

/* Ends the watch and frees it. Returns 0 if it did not fire, else
 * VG_ECANCELED or VG_ETIMEDOUT. NULL gives 0. */
int vg_dial_watch_stop(vg_dial_watch *w);

#endif
