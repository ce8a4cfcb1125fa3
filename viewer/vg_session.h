/* A viewer's session with one server: the network thread that runs the
 * connection, reconnects with backoff when it drops, and hands the window
 * what changed.
 *
 * The network thread alone calls into LibVNCClient. It copies the
 * rectangles each update drew into the session's own frame under the
 * frame lock, so the window uploads only those rectangles and never waits
 * for the network; input goes the other way through the connection's
 * queue (vg_connection_post_*). Everything the window learns comes through
 * notify_cb, called on the network thread, which must only wake the window
 * (e.g. SDL_PushEvent); the window then takes the news with the
 * vg_session_take_* functions on its own thread.
 */
#ifndef VG_SESSION_H
#define VG_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"
#include "capture/vg_connection.h"
#include "viewer/vg_recorder.h"

typedef struct vg_session vg_session;

typedef enum {
	VG_SESSION_FRAME = 1,     /* pixels changed (vg_session_lock_frame) */
	VG_SESSION_CURSOR = 2,    /* a new cursor shape (vg_session_take_cursor) */
	VG_SESSION_CUT_TEXT = 3,  /* the server's clipboard (vg_session_take_cut_text) */
	VG_SESSION_STATE = 4,     /* connected, reconnecting or failed (vg_session_state) */
} vg_session_news;

typedef enum {
	VG_STATE_CONNECTED,
	VG_STATE_RECONNECTING,
	VG_STATE_FAILED,          /* gave up; vg_session_state says why */
} vg_session_state_kind;

typedef struct {
	/* Copied at start; host, encodings and cache_dir must outlive the
	 * session; events are the session's own. */
	vg_connection_config conn;
	/* The password, if the server asks; NULL: ask password_cb once and
	 * remember the answer for reconnections. */
	const char *password;
	char *(*password_cb)(void *password_user);
	void *password_user;
	void (*notify_cb)(void *user, vg_session_news news);
	void *user;
	bool reconnect;           /* reconnect when the connection drops */
	/* If not NULL, gets every update, cursor shape and input event sent
	 * (not owned; must outlive the session). A write failure ends the
	 * session: the state becomes VG_STATE_FAILED. */
	vg_recorder *recorder;
} vg_session_config;

/* Connects (on the calling thread, so that a password prompt and a first
 * failure happen before any window opens), then starts the network thread.
 * Errors as vg_connection_open_reason, with the reason in why. */
int vg_session_start(const vg_session_config *cfg, vg_session **out, char *why, size_t why_cap);

/* Stops the network thread, closes the connection and frees s; accepts
 * NULL. */
void vg_session_stop(vg_session *s);

/* The frame and the rectangles changed since the last unlock, which
 * forgets them. *resized is true when the frame's size changed (all of it
 * is then in rects). Valid until vg_session_unlock_frame, which must
 * follow soon: the network thread waits for it before it copies more. */
const vg_pixbuf *vg_session_lock_frame(vg_session *s, const vg_rect **rects, size_t *n,
				       bool *resized);
void vg_session_unlock_frame(vg_session *s);

/* The latest cursor shape (0xAARRGGBB), or NULL if none arrived since the
 * last call; the caller frees it with vg_pixbuf_free(). */
vg_pixbuf *vg_session_take_cursor(vg_session *s, int *hot_x, int *hot_y);

/* The latest server cut text as UTF-8 (g_free), or NULL. */
char *vg_session_take_cut_text(vg_session *s);

/* The state and a one-line message about it (copied to msg); for a
 * failure, why in *err if err is not NULL (VG_EAUTH: the password was
 * refused; VG_ECRYPTO: the server's certificate is not trusted; VG_EIO:
 * the connection or the recording failed). */
vg_session_state_kind vg_session_state(vg_session *s, char *msg, size_t msg_cap, int *err);

/* Statistics of the current connection, as of the network thread's last
 * poll; *reconnects counts the connections after the first. */
void vg_session_get_stats(vg_session *s, vg_connection_stats *st, unsigned *reconnects);

/* Thread-safe input, dropped while no connection is up. */
void vg_session_key(vg_session *s, uint32_t keysym, bool down);
void vg_session_pointer(vg_session *s, int x, int y, int buttons);
void vg_session_cut_text(vg_session *s, const char *latin1, size_t len);

/* While on, the network thread measures the round trip once a second. */
void vg_session_set_ping(vg_session *s, bool on);

#endif
