/* The viewer's SDL window: shows a session's frame scaled to fit, sends
 * keys, pointer and clipboard to the server, draws the server's cursor,
 * and shows the statistics overlay. Runs on the main thread (SDL's rule);
 * the session's network thread only wakes it (vg_window_notify). A frame
 * shown 1:1 is drawn through the window's surface, only the changed
 * rectangles pushed to the display; scaled, or under the overlay, through
 * an SDL renderer.
 *
 * Keys that never reach the server: F8 arms a command, and the next key
 * chooses it: f fullscreen, s statistics overlay, z smooth or nearest
 * scaling, F8 sends F8 itself, any other key cancels.
 */
#ifndef VG_WINDOW_H
#define VG_WINDOW_H

#include <glib.h>
#include <stdbool.h>

#include "viewer/vg_session.h"

typedef struct vg_window vg_window;

typedef struct {
	const char *title;
	bool fullscreen;
	bool nearest;            /* nearest-neighbour scaling instead of smooth */
	bool view_only;          /* send no input */
	bool stats;              /* show the statistics overlay at start */
	const char *font;        /* TrueType font of the overlay */
	const gint *stop; /* non-zero ends vg_window_run (a signal); may be NULL */
} vg_window_config;

/* Starts SDL's video (no window yet). VG_ENOTSUP with the reason in why
 * when there is no display. */
int vg_window_new(const vg_window_config *cfg, vg_window **out, char *why, size_t why_cap);

/* Frees w, its window and everything drawn in it; accepts NULL. Call at
 * exit only: SDL itself stays initialised (see vg_window.c). */
void vg_window_free(vg_window *w);

/* A vg_session_config notify_cb; user is the vg_window. Thread-safe. */
void vg_window_notify(void *user, vg_session_news news);

/* Opens the window and runs until the user closes it, SIGINT/SIGTERM, or
 * the session fails. Returns VG_OK, VG_EAUTH when the server refused the
 * password on a reconnection, VG_EIO when the session gave up, VG_ENOTSUP
 * if SDL cannot open a window (why says why). */
int vg_window_run(vg_window *w, vg_session *s, char *why, size_t why_cap);

#endif
