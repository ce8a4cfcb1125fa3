#include "server/vg_relaysource.h"

#include <stdio.h>
#include <string.h>

#include "capture/vg_connection.h"
#include "capture/vg_latin1.h"
#include "common/vg_error.h"
#include "common/vg_log.h"

/* Lossless encodings only, for an upstream that is not a Varg server:
 * what is relayed must be exact. */
#define ENCODINGS "zrle hextile zlib raw"
/* Backoff between reconnections, doubled from the first to the last. */
#define RETRY_FIRST_MS 500
#define RETRY_LAST_MS 30000

struct vg_relaysource {
	vg_relaysource_config cfg;
	vg_connection_config conn_cfg;
	vg_connection_events events;
	/* The connection is replaced on reconnection by the run thread;
	 * clients' threads post input to it under the lock. */
	GMutex lock;
	vg_connection *conn;
	vg_server *srv;           /* while running */
	int32_t width, height;
	bool failed;              /* a resize failed inside a callback */
	vg_report_upstream done;  /* counts of the connections closed */
	char error[768];
};

/* On the run thread, inside vg_connection_poll. */
static void on_frame(void *user, const vg_pixbuf *fb, const vg_region *dirty)
{
	vg_relaysource *v = user;
	const vg_rect *rs;
	size_t n;

	if (!v->srv || v->failed)
		return;
	if (fb->width != v->width || fb->height != v->height) {
		/* The upstream changed its size: clients follow, and the new
		 * frame's every rectangle is in dirty. */
		if (vg_server_resize(v->srv, fb->width, fb->height)) {
			snprintf(v->error, sizeof v->error, "cannot follow the upstream's size %dx%d",
				 fb->width, fb->height);
			v->failed = true;
			return;
		}
		vg_info("the upstream's screen is now %dx%d", fb->width, fb->height);
		v->width = fb->width;
		v->height = fb->height;
	}
	rs = vg_region_rects(dirty, &n);
	if (n)
		vg_server_frame_copy(v->srv, fb, rs, n);
}

static void on_cut_text(void *user, const char *latin1, size_t len)
{
	vg_relaysource *v = user;
	char *utf8;

	if (!v->srv)
		return;
	utf8 = vg_latin1_to_utf8(latin1, len);
	vg_server_cut_text(v->srv, utf8, strlen(utf8));
	g_free(utf8);
}

static void on_cursor(void *user, const uint32_t *argb, int w, int h, int hot_x, int hot_y)
{
	vg_relaysource *v = user;
	vg_server_cursor cur = { .width = w, .height = h, .hot_x = hot_x, .hot_y = hot_y, .pixels = argb };

	if (v->srv && vg_server_set_cursor(v->srv, &cur))
		vg_debug("cursor of %dx%d not passed on", w, h);
}

static char *on_password(void *user)
{
	vg_relaysource *v = user;

	return v->cfg.password ? g_strdup(v->cfg.password) : NULL;
}

/* Clients' input, on their threads. */
static void on_pointer(void *user, int32_t x, int32_t y, uint8_t buttons)
{
	vg_relaysource *v = user;

	g_mutex_lock(&v->lock);
	if (v->conn)
		vg_connection_post_pointer(v->conn, x, y, buttons);
	g_mutex_unlock(&v->lock);
}

static void on_key(void *user, uint32_t keysym, bool down)
{
	vg_relaysource *v = user;

	g_mutex_lock(&v->lock);
	if (v->conn)
		vg_connection_post_key(v->conn, keysym, down);
	g_mutex_unlock(&v->lock);
}

static void on_client_cut_text(void *user, const char *utf8, size_t len)
{
	vg_relaysource *v = user;
	g_autofree char *text = g_strndup(utf8, len);
	g_autofree char *latin1 = NULL;
	size_t n;

	latin1 = vg_latin1_from_utf8(text, &n);
	g_mutex_lock(&v->lock);
	if (v->conn)
		vg_connection_post_cut_text(v->conn, latin1, n);
	g_mutex_unlock(&v->lock);
}

static int connect_upstream(vg_relaysource *v, char *why, size_t why_cap)
{
	vg_connection *conn;
	int err = vg_connection_open_reason(&v->conn_cfg, &conn, why, why_cap);

	if (err)
		return err;
	g_mutex_lock(&v->lock);
	v->conn = conn;
	g_mutex_unlock(&v->lock);
	v->done.connections++;
	return VG_OK;
}

/* Adds one connection's counts to st. */
static void add_counts(vg_report_upstream *st, const vg_connection *conn)
{
	vg_connection_stats cs;

	vg_connection_get_stats(conn, &cs);
	st->bytes_received += cs.bytes_received;
	st->updates += cs.updates;
	st->cache_hits += cs.cache_hits;
	st->cache_misses += cs.cache_misses;
}

/* Closes the connection, keeping its counts. */
static void close_upstream(vg_relaysource *v)
{
	vg_connection *conn;

	g_mutex_lock(&v->lock);
	conn = v->conn;
	v->conn = NULL;
	g_mutex_unlock(&v->lock);
	if (!conn)
		return;
	add_counts(&v->done, conn);
	vg_connection_close(conn);
}

int vg_relaysource_open(const vg_relaysource_config *cfg, vg_relaysource **out, char *why,
			size_t why_cap)
{
	vg_relaysource *v = g_new0(vg_relaysource, 1);
	vg_pixbuf fb;
	int err;

	*out = NULL;
	v->cfg = *cfg;
	g_mutex_init(&v->lock);
	v->events.user = v;
	v->events.frame_cb = on_frame;
	v->events.cut_text_cb = on_cut_text;
	v->events.cursor_cb = on_cursor;
	v->events.password_cb = on_password;
	v->conn_cfg.host = cfg->host;
	v->conn_cfg.port = cfg->port;
	v->conn_cfg.varg = true;
	v->conn_cfg.encodings = ENCODINGS;
	v->conn_cfg.verbose = cfg->verbose;
	v->conn_cfg.cache_dir = cfg->cache_dir;
	v->conn_cfg.cache_size = cfg->cache_size;
	v->conn_cfg.zstd_window_log = cfg->zstd_window_log;
	/* Approximations would be passed on, and cached, as if exact. */
	v->conn_cfg.lossless_only = true;
	/* The clients draw the pointer from its shape. */
	v->conn_cfg.remote_cursor = true;
	v->conn_cfg.events = &v->events;
	v->conn_cfg.requests = 3;
	v->conn_cfg.timeout_ms = cfg->timeout_ms;
	v->conn_cfg.cancel = cfg->cancel;
	v->conn_cfg.tls_required = cfg->tls_required;
	v->conn_cfg.tls_ca = cfg->tls_ca;
	v->conn_cfg.tls_fingerprint = cfg->tls_fingerprint;
	v->conn_cfg.tls_host = cfg->tls_host;
	v->conn_cfg.tls_port = cfg->tls_port;
	v->conn_cfg.tls_via = cfg->tls_via;
	if ((err = connect_upstream(v, why, why_cap))) {
		vg_relaysource_free(v);
		return err;
	}
	fb = vg_connection_frame(v->conn);
	v->width = fb.width;
	v->height = fb.height;
	*out = v;
	return VG_OK;
}

int32_t vg_relaysource_width(const vg_relaysource *v)
{
	return v->width;
}

int32_t vg_relaysource_height(const vg_relaysource *v)
{
	return v->height;
}

void vg_relaysource_input(vg_relaysource *v, vg_server_input *in)
{
	in->pointer = on_pointer;
	in->key = on_key;
	in->cut_text = on_client_cut_text;
	in->user = v;
}

int vg_relaysource_run(vg_relaysource *v, vg_server *srv, const gint *stop)
{
	unsigned retry_ms = RETRY_FIRST_MS;
	char why[640];
	int n, err;

	v->srv = srv;
	while (!g_atomic_int_get(stop)) {
		if (!v->conn) {
			err = connect_upstream(v, why, sizeof why);
			/* A refused password, or a certificate that is not trusted
			 * (a changed one names both fingerprints): trying again
			 * would only hide it. */
			if (err == VG_EAUTH || err == VG_ECRYPTO) {
				snprintf(v->error, sizeof v->error, "%.100s:%d: %s", v->cfg.host, v->cfg.port, why);
				return err;
			}
			if (err) {
				vg_debug("upstream %s:%d: %s; again in %u ms", v->cfg.host, v->cfg.port, why,
					 retry_ms);
				/* In short naps: a stop must not wait for the backoff. */
				for (unsigned t = 0; t < retry_ms && !g_atomic_int_get(stop); t += 100)
					g_usleep(100 * 1000);
				retry_ms = MIN(2 * retry_ms, RETRY_LAST_MS);
				continue;
			}
			vg_info("upstream %s:%d: connected again", v->cfg.host, v->cfg.port);
			retry_ms = RETRY_FIRST_MS;
		}
		/* Queued input wakes the poll, so a long wait delays nothing. */
		n = vg_connection_poll(v->conn, 200);
		if (v->failed)
			return VG_EIO;
		if (n < 0 && v->cfg.no_reconnect) {
			snprintf(v->error, sizeof v->error, "%.200s:%d: %s", v->cfg.host, v->cfg.port,
				 vg_connection_error_text(v->conn));
			return VG_EIO;
		}
		if (n < 0) {
			vg_warn("upstream %s:%d: %s; serving the last picture and connecting again",
				v->cfg.host, v->cfg.port, vg_connection_error_text(v->conn));
			close_upstream(v);
		}
	}
	return VG_OK;
}

void vg_relaysource_get_stats(vg_relaysource *v, vg_report_upstream *st)
{
	*st = v->done;
	if (v->conn)
		add_counts(st, v->conn);
}

const char *vg_relaysource_error_text(const vg_relaysource *v)
{
	return v->error;
}

void vg_relaysource_free(vg_relaysource *v)
{
	if (!v)
		return;
	close_upstream(v);
	g_mutex_clear(&v->lock);
	g_free(v);
}
