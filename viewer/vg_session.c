#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "capture/vg_latin1.h"
#include "viewer/vg_session.h"

/* Reconnection backoff: first wait, doubling up to the last. */
#define BACKOFF_FIRST_MS 250
#define BACKOFF_MAX_MS 8000
#define POLL_MS 100
#define PING_EVERY_MS 1000

struct vg_session {
	vg_session_config cfg;
	vg_connection_events events;
	GThread *thread;
	gint stop;                /* atomic */
	gint cancel;              /* atomic: stops a reconnection's handshake */
	gint ping_on;             /* atomic */

	GMutex lock;              /* conn pointer, news, state, stats */
	GCond wake;               /* interrupts the backoff wait at stop */
	vg_connection *conn;
	char *password;           /* remembered for reconnections */
	vg_session_state_kind state;
	int state_err;            /* why it failed: VG_EAUTH, VG_EIO; 0 otherwise */
	char state_msg[720];
	vg_connection_stats stats;
	unsigned reconnects;
	vg_pixbuf *cursor;
	int cursor_hot_x, cursor_hot_y;
	char *cut_text;

	GMutex frame_lock;        /* front, dirty, resized */
	vg_pixbuf *front;
	vg_region *dirty;
	bool resized;
	gint frame_news;          /* atomic: a FRAME notice is unanswered */
};

static void notify(vg_session *s, vg_session_news news)
{
	if (s->cfg.notify_cb)
		s->cfg.notify_cb(s->cfg.user, news);
}

static void set_state(vg_session *s, vg_session_state_kind state, int err, const char *msg);

/* A recording that cannot be written ends the session (the viewer says
 * why when it closes the recorder); the network thread stops. */
static void recording_failed(vg_session *s)
{
	g_atomic_int_set(&s->stop, 1);
	set_state(s, VG_STATE_FAILED, VG_EIO, "the recording failed");
}

/* Network thread: copy what the update drew into the session's frame. */
static void on_frame(void *user, const vg_pixbuf *fb, const vg_region *dirty)
{
	vg_session *s = user;
	const vg_rect *rs;
	size_t i, n;

	g_mutex_lock(&s->frame_lock);
	if (!s->front || s->front->width != fb->width || s->front->height != fb->height) {
		vg_pixbuf_free(s->front);
		s->front = vg_pixbuf_new(fb->width, fb->height);
		vg_region_clear(s->dirty);
		vg_region_add(s->dirty, vg_pixbuf_rect(fb));
		vg_pixbuf_copy_rect(s->front, fb, vg_pixbuf_rect(fb));
		s->resized = true;
	} else {
		rs = vg_region_rects(dirty, &n);
		for (i = 0; i < n; i++)
			vg_pixbuf_copy_rect(s->front, fb, rs[i]);
		vg_region_add_region(s->dirty, dirty);
	}
	g_mutex_unlock(&s->frame_lock);
	if (s->cfg.recorder && vg_recorder_frame(s->cfg.recorder, fb, dirty))
		recording_failed(s);
	/* One notice at a time: a slow window gets one wake-up for many
	 * updates, and takes them all at once. */
	if (g_atomic_int_compare_and_exchange(&s->frame_news, 0, 1))
		notify(s, VG_SESSION_FRAME);
}

static void on_cut_text(void *user, const char *latin1, size_t len)
{
	vg_session *s = user;
	char *utf8 = vg_latin1_to_utf8(latin1, len);

	g_mutex_lock(&s->lock);
	g_free(s->cut_text);
	s->cut_text = utf8;
	g_mutex_unlock(&s->lock);
	notify(s, VG_SESSION_CUT_TEXT);
}

static void on_cursor(void *user, const uint32_t *argb, int w, int h, int hot_x, int hot_y)
{
	vg_session *s = user;
	vg_pixbuf *pb = vg_pixbuf_new(w, h);
	int y;

	for (y = 0; y < h; y++)
		memcpy(vg_pixbuf_row(pb, y), argb + (size_t)y * (size_t)w, (size_t)w * 4);
	g_mutex_lock(&s->lock);
	vg_pixbuf_free(s->cursor);
	s->cursor = pb;
	s->cursor_hot_x = hot_x;
	s->cursor_hot_y = hot_y;
	g_mutex_unlock(&s->lock);
	if (s->cfg.recorder && vg_recorder_cursor(s->cfg.recorder, argb, w, h, hot_x, hot_y))
		recording_failed(s);
	notify(s, VG_SESSION_CURSOR);
}

/* Asks once; the answer serves every reconnection. Runs on the thread that
 * connects (the caller's at start, the network thread later). */
static char *on_password(void *user)
{
	vg_session *s = user;

	if (!s->password && s->cfg.password)
		s->password = g_strdup(s->cfg.password);
	if (!s->password && s->cfg.password_cb)
		s->password = s->cfg.password_cb(s->cfg.password_user);
	return s->password ? g_strdup(s->password) : NULL;
}

static void set_state(vg_session *s, vg_session_state_kind state, int err, const char *msg)
{
	g_mutex_lock(&s->lock);
	s->state = state;
	s->state_err = err;
	snprintf(s->state_msg, sizeof s->state_msg, "%s", msg);
	g_mutex_unlock(&s->lock);
	notify(s, VG_SESSION_STATE);
}

/* Waits ms, or less if the session is stopping; true if it is. */
static bool wait_or_stop(vg_session *s, int ms)
{
	gint64 until = g_get_monotonic_time() + (gint64)ms * 1000;
	bool stop;

	g_mutex_lock(&s->lock);
	while (!(stop = g_atomic_int_get(&s->stop)))
		if (!g_cond_wait_until(&s->wake, &s->lock, until))
			break;
	g_mutex_unlock(&s->lock);
	return stop || g_atomic_int_get(&s->stop);
}

/* Network thread, after the connection dropped: new connections with
 * growing pauses until one works, authentication is refused, the server
 * is not trusted, or stop. */
static void reconnect(vg_session *s)
{
	vg_connection *c = NULL;
	char why[640], msg[720];
	int backoff = BACKOFF_FIRST_MS, err;

	while (!wait_or_stop(s, backoff)) {
		err = vg_connection_open_reason(&s->cfg.conn, &c, why, sizeof why);
		if (err == 0) {
			g_mutex_lock(&s->lock);
			s->conn = c;
			s->reconnects++;
			g_mutex_unlock(&s->lock);
			vg_warn("reconnected to %s port %d", s->cfg.conn.host, s->cfg.conn.port);
			set_state(s, VG_STATE_CONNECTED, 0, "connected");
			return;
		}
		/* A refused password or an untrusted certificate is the same
		 * at the next try. */
		if (err == VG_EAUTH || err == VG_ECRYPTO) {
			snprintf(msg, sizeof msg, "%s port %d: %s", s->cfg.conn.host, s->cfg.conn.port, why);
			set_state(s, VG_STATE_FAILED, err, msg);
			return;
		}
		vg_debug("reconnect: %s", why);
		backoff = MIN(backoff * 2, BACKOFF_MAX_MS);
	}
}

static gpointer run(gpointer data)
{
	vg_session *s = data;
	uint64_t last_ping = 0;
	char msg[720];
	int n;

	while (!g_atomic_int_get(&s->stop)) {
		if (!s->conn) {
			if (!s->cfg.reconnect)
				break;
			reconnect(s);
			if (!s->conn)
				break;
		}
		if (g_atomic_int_get(&s->ping_on) &&
		    vg_time_ms_since(last_ping, vg_time_ns()) >= PING_EVERY_MS) {
			vg_connection_post_ping(s->conn);
			last_ping = vg_time_ns();
		}
		n = vg_connection_poll(s->conn, POLL_MS);
		g_mutex_lock(&s->lock);
		vg_connection_get_stats(s->conn, &s->stats);
		g_mutex_unlock(&s->lock);
		if (n >= 0)
			continue;
		snprintf(msg, sizeof msg, "%s; %s", vg_connection_error_text(s->conn),
			 s->cfg.reconnect ? "reconnecting" : "giving up");
		vg_warn("%s port %d: %s", s->cfg.conn.host, s->cfg.conn.port, msg);
		g_mutex_lock(&s->lock);
		vg_connection_close(s->conn);
		s->conn = NULL;
		g_mutex_unlock(&s->lock);
		set_state(s, s->cfg.reconnect ? VG_STATE_RECONNECTING : VG_STATE_FAILED,
			  s->cfg.reconnect ? 0 : VG_EIO, msg);
	}
	return NULL;
}

int vg_session_start(const vg_session_config *cfg, vg_session **out, char *why, size_t why_cap)
{
	vg_session *s = g_new0(vg_session, 1);
	int err;

	s->cfg = *cfg;
	s->events.user = s;
	s->events.frame_cb = on_frame;
	s->events.cut_text_cb = on_cut_text;
	s->events.cursor_cb = on_cursor;
	s->events.password_cb = on_password;
	s->cfg.conn.events = &s->events;
	g_mutex_init(&s->lock);
	g_cond_init(&s->wake);
	g_mutex_init(&s->frame_lock);
	s->dirty = vg_region_new();
	s->stats.rtt_ms = -1;
	err = vg_connection_open_reason(&s->cfg.conn, &s->conn, why, why_cap);
	if (err) {
		vg_session_stop(s);
		return err;
	}
	/* Reconnections stop when the session does. */
	s->cfg.conn.cancel = &s->cancel;
	s->state = VG_STATE_CONNECTED;
	snprintf(s->state_msg, sizeof s->state_msg, "connected");
	s->thread = g_thread_new("varg-network", run, s);
	*out = s;
	return VG_OK;
}

void vg_session_stop(vg_session *s)
{
	if (!s)
		return;
	g_atomic_int_set(&s->stop, 1);
	g_atomic_int_set(&s->cancel, 1);
	g_mutex_lock(&s->lock);
	g_cond_broadcast(&s->wake);
	g_mutex_unlock(&s->lock);
	if (s->thread)
		g_thread_join(s->thread);
	vg_connection_close(s->conn);
	if (s->password) {
		memset(s->password, 0, strlen(s->password));
		g_free(s->password);
	}
	vg_pixbuf_free(s->cursor);
	g_free(s->cut_text);
	vg_pixbuf_free(s->front);
	vg_region_free(s->dirty);
	g_mutex_clear(&s->lock);
	g_cond_clear(&s->wake);
	g_mutex_clear(&s->frame_lock);
	g_free(s);
}

const vg_pixbuf *vg_session_lock_frame(vg_session *s, const vg_rect **rects, size_t *n,
				       bool *resized)
{
	g_mutex_lock(&s->frame_lock);
	/* Cleared before the copy is taken: an update arriving meanwhile
	 * sends a new notice rather than being missed. */
	g_atomic_int_set(&s->frame_news, 0);
	*rects = vg_region_rects(s->dirty, n);
	*resized = s->resized;
	return s->front;
}

void vg_session_unlock_frame(vg_session *s)
{
	vg_region_clear(s->dirty);
	s->resized = false;
	g_mutex_unlock(&s->frame_lock);
}

vg_pixbuf *vg_session_take_cursor(vg_session *s, int *hot_x, int *hot_y)
{
	vg_pixbuf *pb;

	g_mutex_lock(&s->lock);
	pb = s->cursor;
	s->cursor = NULL;
	*hot_x = s->cursor_hot_x;
	*hot_y = s->cursor_hot_y;
	g_mutex_unlock(&s->lock);
	return pb;
}

char *vg_session_take_cut_text(vg_session *s)
{
	char *t;

	g_mutex_lock(&s->lock);
	t = s->cut_text;
	s->cut_text = NULL;
	g_mutex_unlock(&s->lock);
	return t;
}

vg_session_state_kind vg_session_state(vg_session *s, char *msg, size_t msg_cap, int *err)
{
	vg_session_state_kind k;

	g_mutex_lock(&s->lock);
	k = s->state;
	if (err)
		*err = s->state_err;
	if (msg && msg_cap)
		snprintf(msg, msg_cap, "%s", s->state_msg);
	g_mutex_unlock(&s->lock);
	return k;
}

void vg_session_get_stats(vg_session *s, vg_connection_stats *st, unsigned *reconnects)
{
	g_mutex_lock(&s->lock);
	*st = s->stats;
	if (reconnects)
		*reconnects = s->reconnects;
	g_mutex_unlock(&s->lock);
}

/* Input is recorded as it is sent: only while a connection is up, and
 * never in view-only mode, where nothing is sent. A write failure is
 * noticed by the network thread at the next frame. */
void vg_session_key(vg_session *s, uint32_t keysym, bool down)
{
	bool sent = false;

	g_mutex_lock(&s->lock);
	if (s->conn && !s->cfg.conn.view_only) {
		vg_connection_post_key(s->conn, keysym, down);
		sent = true;
	}
	g_mutex_unlock(&s->lock);
	if (sent && s->cfg.recorder)
		vg_recorder_key(s->cfg.recorder, keysym, down);
}

void vg_session_pointer(vg_session *s, int x, int y, int buttons)
{
	bool sent = false;

	g_mutex_lock(&s->lock);
	if (s->conn && !s->cfg.conn.view_only) {
		vg_connection_post_pointer(s->conn, x, y, buttons);
		sent = true;
	}
	g_mutex_unlock(&s->lock);
	if (sent && s->cfg.recorder)
		vg_recorder_pointer(s->cfg.recorder, x, y, buttons);
}

void vg_session_cut_text(vg_session *s, const char *latin1, size_t len)
{
	g_mutex_lock(&s->lock);
	if (s->conn)
		vg_connection_post_cut_text(s->conn, latin1, len);
	g_mutex_unlock(&s->lock);
}

void vg_session_set_ping(vg_session *s, bool on)
{
	g_atomic_int_set(&s->ping_on, on ? 1 : 0);
}
