#include <errno.h>
#include <glib.h>
#include <poll.h>
#include <rfb/rfbclient.h>
#include <stdarg.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/vg_cursor.h"
#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "common/vg_writer.h"
#include "fingerprint/cache/vg_segcache.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/proto/vg_receiver.h"
#include "capture/vg_channel.h"
#include "capture/vg_connection.h"
#include "capture/vg_dial.h"
#include "capture/vg_firstpicture.h"
#include "capture/vg_serverbook.h"
#include "capture/vg_sockstat.h"

/* A message queued by another thread for the network thread to write. */
typedef enum { OUT_KEY, OUT_POINTER, OUT_CUT_TEXT, OUT_PING } out_kind;

typedef struct {
	out_kind kind;
	uint32_t keysym;
	bool down;
	int x, y, buttons;
	char *text;              /* OUT_CUT_TEXT, g_malloc'd */
	size_t len;
} out_msg;

/* Input that piles up while the link is stalled is dropped beyond this. */
#define MAX_QUEUED 4096

struct vg_connection {
	rfbClient *client;
	vg_connection_events events;
	bool view_only;
	bool auth_asked;         /* the server asked for a password */
	vg_dial_watch *watch;    /* during the handshake */
	vg_channel *channel;     /* the server's socket, TLS, and LibVNCClient's plain end */
	void *frame;             /* the client's framebuffer, as last allocated */
	int wake_fd;             /* eventfd: a message was queued */
	GMutex out_lock;
	GQueue out;              /* out_msg *, under out_lock */
	vg_region *dirty;        /* drawn since the last frame_cb */
	MallocFrameBufferProc default_malloc_fb;
	uint32_t ping_token;     /* of the unanswered PING, 0 if none */
	uint32_t ping_seq;       /* the last token used */
	uint64_t ping_sent_ns;
	bool update_bare;        /* this update carried a PONG or a CURSOR */
	uint32_t update_rects;   /* pixel rectangles of this update */
	bool bare_rect;          /* the Varg rectangle just handled drew nothing:
				  * a PONG or a CURSOR */
	vg_receiver *receiver;
	char *cache_dir;         /* persistent caches, for the server book; NULL: none */
	char *host;              /* as dialled, for the server book */
	int port;
	bool noted;              /* the server's identity is in the book */
	vg_writer reply;
	uint8_t *body;           /* a Varg rectangle body, reused */
	size_t body_cap;
	bool varg_rect;          /* the rectangle just decoded was Varg */
	bool proto_error;        /* the server sent something we refused */
	char *encoding;
	char error[256];
	uint64_t t0;
	uint64_t approx_since;   /* when the picture became approximate; 0: exact */
	vg_connection_stats stats;
	vg_firstpicture first;   /* a Varg server's messages count as a picture */
};

static void out_msg_free(gpointer p);
static bool send_ping(vg_connection *c);

/* The tag under which LibVNCClient keeps our pointer. */
static char client_tag;

/* LibVNCClient lists an extension's encodings from one global array:
 * VG_ENCODING, then for a connection that announces its capabilities
 * these (VG_CAPS_*), and for one that takes cursor shapes
 * VG_CURSOR_ENCODING, set under encodings_lock for its handshake only. */
static int varg_encodings[3 + VG_CAPS_COUNT] = { VG_ENCODING, 0 };
static GMutex encodings_lock;

static vg_connection *conn_of(rfbClient *client)
{
	return rfbClientGetClientData(client, &client_tag);
}

/* Times how long parts of the picture stay approximate: from the first
 * APPROX to the UPDATE that leaves nothing approximate. */
static void time_approx(vg_connection *c)
{
	bool approximate = vg_receiver_approximate(c->receiver);
	double ms;

	if (approximate && !c->approx_since) {
		c->approx_since = vg_time_ns();
		c->stats.approx_periods++;
	} else if (!approximate && c->approx_since) {
		ms = (double)(vg_time_ns() - c->approx_since) / 1e6;
		c->approx_since = 0;
		c->stats.approx_total_ms += ms;
		if (ms > c->stats.approx_max_ms)
			c->stats.approx_max_ms = ms;
	}
}

/* Hands the pointer's shape on if the rectangle just handled was a
 * CURSOR. */
static void got_varg_cursor(vg_connection *c)
{
	vg_cursor_shape shape;

	if (!vg_receiver_take_cursor(c->receiver, &shape))
		return;
	c->bare_rect = true;
	c->update_bare = true;
	c->stats.cursors++;
	if (c->events.cursor_cb)
		c->events.cursor_cb(c->events.user, shape.argb, shape.width, shape.height,
				    shape.hot_x, shape.hot_y);
}

/* Takes the round-trip time if the rectangle just handled was our PONG. */
static void got_pong(vg_connection *c)
{
	uint32_t token;

	if (!vg_receiver_take_pong(c->receiver, &token))
		return;
	c->bare_rect = true;
	c->update_bare = true;
	if (c->ping_token && token == c->ping_token) {
		c->stats.rtt_ms = vg_time_ms_since(c->ping_sent_ns, vg_time_ns());
		c->ping_token = 0;
	}
}

/* After the HELLO: the book learns which server answered here, for the
 * next connection's choice (announce_capabilities). */
static void note_server(vg_connection *c)
{
	vg_receiver_stats st;
	uint8_t id[16];

	if (!vg_receiver_server_id(c->receiver, id))
		return;
	c->noted = true;
	vg_receiver_get_stats(c->receiver, &st);
	if (c->cache_dir && st.persistent && vg_serverbook_note(c->cache_dir, c->host, c->port, id))
		vg_warn("segment cache %s: cannot note which server answered at %s::%d", c->cache_dir,
			c->host, c->port);
}

/* Announce the capabilities ahead of the HELLO when this cache holds
 * nothing of any server on the host: the first update then comes a round
 * trip sooner, and would be sent cold anyway. A cache that may hold some
 * waits for the HELLO, so the first update can use it. */
static bool announce_capabilities(const vg_connection_config *cfg)
{
	if (!cfg->varg)
		return false;
	return !cfg->cache_dir || cfg->clear_cache || !vg_serverbook_knows_host(cfg->cache_dir, cfg->host);
}

static rfbBool handle_varg_rect(rfbClient *client, rfbFramebufferUpdateRectHeader *rect)
{
	vg_connection *c = conn_of(client);
	uint8_t lenb[4];
	uint32_t len;
	size_t cap;
	vg_pixbuf fb;
	int err;

	if (!c || rect->encoding != (uint32_t)VG_ENCODING)
		return FALSE;
	if (!ReadFromRFBServer(client, (char *)lenb, 4))
		return FALSE;
	len = (uint32_t)lenb[0] << 24 | (uint32_t)lenb[1] << 16 | (uint32_t)lenb[2] << 8 | lenb[3];
	/* A body never needs more than the frame's pixels plus headers. */
	cap = (size_t)client->width * (size_t)client->height * 8 + 65536;
	if (len > VG_MAX_BODY || len > cap) {
		snprintf(c->error, sizeof c->error, "Varg rectangle of %u bytes is larger than possible", len);
		c->proto_error = true;
		return FALSE;
	}
	if (len > c->body_cap) {
		c->body = g_realloc(c->body, len);
		c->body_cap = len;
	}
	if (len && !ReadFromRFBServer(client, (char *)c->body, len))
		return FALSE;
	fb = vg_pixbuf_wrap((uint32_t *)client->frameBuffer, client->width, client->height, client->width);
	vg_writer_reset(&c->reply);
	err = vg_receiver_handle(c->receiver, c->body, len, &fb, &c->reply);
	if (err) {
		snprintf(c->error, sizeof c->error, "bad Varg message: %s", vg_receiver_error_text(c->receiver));
		c->proto_error = true;
		return FALSE;
	}
	if (c->reply.len && !WriteToRFBServer(client, (const char *)c->reply.data, (unsigned)c->reply.len))
		return FALSE;
	if (!c->noted)
		note_server(c);
	c->varg_rect = true;
	c->first.seen = true;
	c->stats.varg_bytes += len + 4;
	got_pong(c);
	got_varg_cursor(c);
	time_approx(c);
	return TRUE;
}

static rfbClientProtocolExtension varg_extension = {
	.encodings = varg_encodings,
	.handleEncoding = handle_varg_rect,
};

/* Called after every rectangle that carried pixels, of any encoding. */
static void got_rect(rfbClient *client, int x, int y, int w, int h)
{
	vg_connection *c = conn_of(client);

	if (!c)
		return;
	/* A PONG or a CURSOR is not a pixel rectangle: it counts nowhere. */
	if (c->bare_rect) {
		c->bare_rect = false;
		c->varg_rect = false;
		return;
	}
	if (c->varg_rect)
		c->stats.varg_rects++;
	else
		c->stats.other_rects++;
	c->varg_rect = false;
	c->first.seen = true;
	c->update_rects++;
	c->stats.raw_bytes += (uint64_t)w * (uint64_t)h * 4;
	if (c->events.frame_cb && w > 0 && h > 0)
		vg_region_add(c->dirty, vg_rect_make(x, y, w, h));
}

static void finished_update(rfbClient *client)
{
	vg_connection *c = conn_of(client);
	bool bare;
	double t;

	if (!c)
		return;
	bare = c->update_bare && c->update_rects == 0;
	c->update_bare = false;
	c->update_rects = 0;
	if (bare)
		return;
	t = vg_time_ms_since(c->t0, vg_time_ns()) / 1000.0;
	if (c->stats.updates++ == 0)
		c->stats.first_update_s = t;
	c->stats.last_update_s = t;
	if (c->events.frame_cb && !vg_region_is_empty(c->dirty)) {
		vg_pixbuf fb = vg_pixbuf_wrap((uint32_t *)client->frameBuffer, client->width,
					      client->height, client->width);

		vg_region_clip(c->dirty, vg_pixbuf_rect(&fb));
		c->events.frame_cb(c->events.user, &fb, c->dirty);
		vg_region_clear(c->dirty);
	}
}

/* A new framebuffer (at connect, and when the desktop size changes):
 * LibVNCClient's own allocation, then everything is dirty. */
static rfbBool malloc_frame(rfbClient *client)
{
	vg_connection *c = conn_of(client);

	if (!c->default_malloc_fb(client))
		return FALSE;
	c->frame = client->frameBuffer;
	vg_region_clear(c->dirty);
	vg_region_add(c->dirty, vg_rect_make(0, 0, client->width, client->height));
	return TRUE;
}

static void got_cut_text(rfbClient *client, const char *text, int len)
{
	vg_connection *c = conn_of(client);

	if (c && c->events.cut_text_cb && len >= 0)
		c->events.cut_text_cb(c->events.user, text, (size_t)len);
}

/* rcSource holds the shape in our pixel format (0x00RRGGBB), rcMask one
 * byte a pixel, non-zero where the cursor is opaque. */
static void got_cursor(rfbClient *client, int xhot, int yhot, int w, int h, int bpp)
{
	vg_connection *c = conn_of(client);
	uint32_t *argb;
	size_t n;

	if (c)
		c->stats.rich_cursors++;
	if (!c || !c->events.cursor_cb || bpp != 4 || w <= 0 || h <= 0 || !client->rcSource ||
	    !client->rcMask)
		goto out;
	n = (size_t)w * (size_t)h;
	argb = g_new(uint32_t, n);
	vg_cursor_from_rfb(client->rcSource, client->rcMask, n, argb);
	c->events.cursor_cb(c->events.user, argb, w, h, xhot, yhot);
	g_free(argb);
out:
	/* LibVNCClient 0.9.14 frees the previous rcSource before the next
	 * shape but not the previous rcMask: the mask is done with here. */
	free(client->rcMask);
	client->rcMask = NULL;
}

/* LibVNCClient frees the answer with free(). */
static char *get_password(rfbClient *client)
{
	vg_connection *c = conn_of(client);
	char *p, *copy;

	c->auth_asked = true;
	if (!c->events.password_cb)
		return NULL;
	vg_dial_watch_pause(c->watch, 1);
	p = c->events.password_cb(c->events.user);
	vg_dial_watch_pause(c->watch, 0);
	if (!p)
		return NULL;
	copy = strdup(p);
	memset(p, 0, strlen(p));
	g_free(p);
	return copy;
}

/* LibVNCClient logs through two global function pointers without saying
 * which client: keep the last line, which names the reason a handshake
 * failed, and pass everything on when verbose. */
static GMutex log_lock;
static char log_last[256];
static bool log_verbose;

static void log_capture(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	g_mutex_lock(&log_lock);
	if (n)
		memcpy(log_last, line, n + 1);
	g_mutex_unlock(&log_lock);
	if (log_verbose)
		vg_debug("libvncclient: %s", line);
}

static void log_last_line(char *buf, size_t cap)
{
	g_mutex_lock(&log_lock);
	snprintf(buf, cap, "%s", log_last);
	log_last[0] = '\0';
	g_mutex_unlock(&log_lock);
}

/* Runs the security handshake on fd (the channel owns it, also on
 * failure) and gives LibVNCClient's plain end in *plain_fd. */
static int open_channel(vg_connection *c, const vg_connection_config *cfg, int fd, uint64_t deadline,
			int *plain_fd, char *why, size_t why_cap)
{
	g_autofree char *default_dir = NULL;
	vg_channel_config ch = { 0 };
	uint8_t pinned[VG_TLS_FP_LEN];
	char text[640];
	int err;

	if (cfg->tls_fingerprint && vg_tls_fingerprint_parse(cfg->tls_fingerprint, pinned)) {
		close(fd);
		snprintf(why, why_cap, "'%s' is not a SHA-256 fingerprint", cfg->tls_fingerprint);
		return VG_EINVAL;
	}
	ch.tls_required = cfg->tls_required;
	ch.ca_file = cfg->tls_ca;
	ch.fingerprint = cfg->tls_fingerprint ? pinned : NULL;
	ch.trust_dir = cfg->trust_dir ? cfg->trust_dir : cfg->cache_dir;
	if (!ch.trust_dir)
		ch.trust_dir = default_dir = vg_segcache_default_base_dir();
	ch.host = cfg->tls_host ? cfg->tls_host : cfg->host;
	ch.port = cfg->tls_host ? cfg->tls_port : cfg->port;
	ch.via = cfg->tls_via;
	ch.deadline_ns = deadline;
	err = vg_channel_open(fd, &ch, &c->channel, plain_fd, text, sizeof text);
	if (err && why && why_cap)
		snprintf(why, why_cap, "%s", text);
	return err == VG_EPROTO ? VG_EIO : err;
}

int vg_connection_open_reason(const vg_connection_config *cfg, vg_connection **out,
			      char *why, size_t why_cap)
{
	static gsize ext_registered;
	vg_connection *c;
	rfbClient *client;
	vg_receiver_config rcfg;
	char last[256], dial_why[160];
	uint64_t deadline;
	int argc = 0, fd = -1, plain_fd = -1, fired, n_enc;
	rfbBool ok;
	int err;

	if (why && why_cap)
		why[0] = '\0';
	log_verbose = cfg->verbose;
	rfbClientLog = rfbClientErr = log_capture;
	/* LibVNCClient's extension list is global and cannot shrink: register
	 * Varg once, and only in a process that wants it. */
	if (cfg->varg && g_once_init_enter(&ext_registered)) {
		rfbClientRegisterExtension(&varg_extension);
		g_once_init_leave(&ext_registered, 1);
	}

	c = g_new0(vg_connection, 1);
	c->wake_fd = -1;
	g_mutex_init(&c->out_lock);
	g_queue_init(&c->out);
	c->dirty = vg_region_new();
	c->stats.rtt_ms = -1;
	c->view_only = cfg->view_only;
	if (cfg->events)
		c->events = *cfg->events;
	c->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (c->wake_fd < 0) {
		if (why && why_cap)
			snprintf(why, why_cap, "eventfd: %s", g_strerror(errno));
		vg_connection_close(c);
		return VG_EIO;
	}
	vg_writer_init(&c->reply);
	vg_receiver_config_init(&rcfg);
	rcfg.cache_dir = cfg->cache_dir;
	rcfg.cache_capacity = cfg->cache_size;
	rcfg.clear_cache = cfg->clear_cache;
	rcfg.zstd_window_log = cfg->zstd_window_log;
	rcfg.exact = cfg->lossless_only;
	rcfg.lean = cfg->lean;
	rcfg.cursors = cfg->remote_cursor;
	if ((err = vg_receiver_new(&rcfg, &c->receiver))) {
		vg_connection_close(c);
		return err;
	}
	c->cache_dir = g_strdup(cfg->cache_dir);
	c->host = g_strdup(cfg->host);
	c->port = cfg->port;
	c->encoding = g_strdup(cfg->encodings ? cfg->encodings : "default");
	if (strchr(c->encoding, ' '))
		*strchr(c->encoding, ' ') = '\0';

	client = rfbGetClient(8, 3, 4);
	client->format.redShift = 16;
	client->format.greenShift = 8;
	client->format.blueShift = 0;
	/* LibVNCClient owns serverHost and frees it with free(). */
	free(client->serverHost);
	client->serverHost = strdup(cfg->host);
	client->serverPort = cfg->port;
	client->appData.encodingsString = cfg->encodings;
	/* Lossless only: Tight must not switch to JPEG. */
	client->appData.enableJPEG = FALSE;
	client->appData.useRemoteCursor = cfg->remote_cursor;
	client->appData.viewOnly = cfg->view_only;
	client->GotFrameBufferUpdate = got_rect;
	client->FinishedFrameBufferUpdate = finished_update;
	client->GotXCutText = got_cut_text;
	client->GotCursorShape = got_cursor;
	client->GetPassword = get_password;
	c->default_malloc_fb = client->MallocFrameBuffer;
	client->MallocFrameBuffer = malloc_frame;
	rfbClientSetClientData(client, &client_tag, c);
	c->t0 = vg_time_ns();
	deadline = c->t0 + (uint64_t)(cfg->timeout_ms > 0 ? cfg->timeout_ms : 20000) * 1000000u;
	if ((err = vg_dial(cfg->host, cfg->port, deadline, cfg->cancel, &fd, dial_why, sizeof dial_why))) {
		if (why && why_cap)
			snprintf(why, why_cap, "%s", dial_why);
		rfbClientCleanup(client);
		vg_connection_close(c);
		return err;
	}
	/* The security handshake, TLS when the server offers it; then
	 * LibVNCClient takes the channel's plain end as it takes a socket it
	 * accepted in listen mode, and shakes hands through it. */
	c->watch = vg_dial_watch_start(fd, deadline, cfg->cancel);
	err = open_channel(c, cfg, fd, deadline, &plain_fd, why, why_cap);
	fired = vg_dial_watch_stop(c->watch);
	c->watch = NULL;
	if (err) {
		err = fired ? fired : err;
		if (err == VG_ECANCELED && why && why_cap)
			snprintf(why, why_cap, "stopped during the handshake");
		else if (err == VG_ETIMEDOUT && why && why_cap)
			snprintf(why, why_cap, "the server did not complete the handshake within %d s",
				 (cfg->timeout_ms > 0 ? cfg->timeout_ms : 20000) / 1000);
		rfbClientCleanup(client);
		vg_connection_close(c);
		return err;
	}
	client->sock = plain_fd;
	client->listenSpecified = TRUE;
	c->watch = vg_dial_watch_start(plain_fd, deadline, cfg->cancel);
	/* rfbInitClient frees the client itself when it fails; it sends
	 * SetEncodings (and with it the capabilities) at its end. */
	g_mutex_lock(&encodings_lock);
	n_enc = 1;
	if (announce_capabilities(cfg)) {
		vg_receiver_capabilities(c->receiver, &varg_encodings[1]);
		n_enc += VG_CAPS_COUNT;
	}
	if (cfg->remote_cursor)
		varg_encodings[n_enc++] = VG_CURSOR_ENCODING;
	varg_encodings[n_enc] = 0;
	ok = rfbInitClient(client, &argc, NULL);
	varg_encodings[1] = 0;
	g_mutex_unlock(&encodings_lock);
	fired = vg_dial_watch_stop(c->watch);
	c->watch = NULL;
	if (!ok || fired) {
		err = fired ? fired : c->auth_asked ? VG_EAUTH : VG_EIO;
		log_last_line(last, sizeof last);
		if (err == VG_ECANCELED)
			snprintf(last, sizeof last, "stopped during the handshake");
		else if (err == VG_ETIMEDOUT)
			snprintf(last, sizeof last, "the server did not complete the handshake within %d s",
				 (cfg->timeout_ms > 0 ? cfg->timeout_ms : 20000) / 1000);
		if (why && why_cap && (err == VG_ECANCELED || err == VG_ETIMEDOUT))
			snprintf(why, why_cap, "%s", last);
		else if (why && why_cap)
			snprintf(why, why_cap, "%s%s%s", err == VG_EAUTH ? "authentication failed" : "handshake failed",
				 last[0] ? ": " : "", last);
		if (ok)
			rfbClientCleanup(client);
		/* LibVNCClient leaves the framebuffer to the application, also
		 * when its handshake fails after allocating it. */
		free(c->frame);
		vg_connection_close(c);
		return err;
	}
	c->client = client;
	/* More requests in flight (LibVNCClient sends one more after each
	 * update): varg-server counts each as a credit and sends the next
	 * change at once instead of waiting a round trip for our request. */
	for (int i = 1; i < (cfg->requests > 0 ? cfg->requests : 2); i++)
		SendIncrementalFramebufferUpdateRequest(client);
	vg_firstpicture_heard(&c->first, vg_time_ns());
	*out = c;
	return VG_OK;
}

void vg_connection_close(vg_connection *c)
{
	if (!c)
		return;
	if (c->client) {
		free(c->client->frameBuffer);
		c->client->frameBuffer = NULL;
		/* The last cursor shape: rfbClientCleanup leaves it behind. */
		free(c->client->rcSource);
		free(c->client->rcMask);
		c->client->rcSource = NULL;
		c->client->rcMask = NULL;
		rfbClientCleanup(c->client);
	}
	vg_channel_free(c->channel);
	vg_receiver_free(c->receiver);
	g_free(c->cache_dir);
	g_free(c->host);
	vg_writer_clear(&c->reply);
	g_free(c->body);
	g_free(c->encoding);
	g_queue_clear_full(&c->out, out_msg_free);
	g_mutex_clear(&c->out_lock);
	vg_region_free(c->dirty);
	if (c->wake_fd >= 0)
		close(c->wake_fd);
	g_free(c);
}

/* Writes every queued message; false on a write error. */
static bool flush_out(vg_connection *c)
{
	GQueue q = G_QUEUE_INIT;
	out_msg *m;
	bool ok = true;
	uint64_t n;

	/* Read the counter first: a message queued after this read wakes the
	 * next poll instead of being lost. */
	if (read(c->wake_fd, &n, sizeof n) < 0 && errno != EAGAIN)
		return false;
	g_mutex_lock(&c->out_lock);
	q = c->out;
	g_queue_init(&c->out);
	g_mutex_unlock(&c->out_lock);
	while (ok && (m = g_queue_pop_head(&q))) {
		switch (m->kind) {
		case OUT_KEY:
			ok = SendKeyEvent(c->client, m->keysym, m->down);
			break;
		case OUT_POINTER:
			ok = SendPointerEvent(c->client, m->x, m->y, m->buttons);
			break;
		case OUT_CUT_TEXT:
			ok = SendClientCutText(c->client, m->text, (int)m->len);
			break;
		case OUT_PING:
			ok = send_ping(c);
			break;
		}
		out_msg_free(m);
	}
	g_queue_clear_full(&q, out_msg_free);
	return ok;
}

/* A full request while the server's first picture is overdue. */
static int ask_again(vg_connection *c)
{
	if (!vg_firstpicture_ask_due(&c->first, vg_time_ns()))
		return 0;
	vg_debug("no picture from the server yet: asking again");
	if (!SendFramebufferUpdateRequest(c->client, 0, 0, c->client->width, c->client->height, FALSE)) {
		snprintf(c->error, sizeof c->error, "connection lost");
		return VG_EIO;
	}
	return 0;
}

int vg_connection_poll(vg_connection *c, int timeout_ms)
{
	struct pollfd pfd[2];
	uint64_t bytes;
	int n;

	if (!flush_out(c)) {
		snprintf(c->error, sizeof c->error, "connection lost");
		return VG_EIO;
	}
	/* LibVNCClient may hold bytes it already read from the socket. */
	if (c->client->buffered > 0) {
		n = 1;
		pfd[0].revents = POLLIN;
	} else {
		pfd[0].fd = c->client->sock;
		pfd[0].events = POLLIN;
		pfd[0].revents = 0;
		pfd[1].fd = c->wake_fd;
		pfd[1].events = POLLIN;
		pfd[1].revents = 0;
		n = poll(pfd, 2, timeout_ms);
	}
	if (vg_sockstat_bytes_received(vg_channel_net_fd(c->channel), &bytes) == 0)
		c->stats.bytes_received = bytes;
	if (n < 0 && errno != EINTR) {
		snprintf(c->error, sizeof c->error, "connection lost");
		return VG_EIO;
	}
	if (n <= 0 || !(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
		return ask_again(c);
	vg_firstpicture_heard(&c->first, vg_time_ns());
	if (!HandleRFBServerMessage(c->client)) {
		if (!c->error[0])
			snprintf(c->error, sizeof c->error, "server closed the connection");
		return c->proto_error ? VG_EPROTO : VG_EIO;
	}
	if (vg_sockstat_bytes_received(vg_channel_net_fd(c->channel), &bytes) == 0)
		c->stats.bytes_received = bytes;
	return 1;
}

static void out_msg_free(gpointer p)
{
	out_msg *m = p;

	if (!m)
		return;
	g_free(m->text);
	g_free(m);
}

/* Writes a PING unless one is unanswered (a lost PONG is given up on
 * after 10 s). Only against a server that said HELLO. */
static bool send_ping(vg_connection *c)
{
	uint64_t now = vg_time_ns();
	uint32_t token;

	if (c->ping_token && vg_time_ms_since(c->ping_sent_ns, now) < 10000)
		return true;
	/* Tokens never repeat soon, so a PONG given up on is not taken
	 * for a later PING's; 0 means "none". */
	token = c->ping_seq + 1 ? c->ping_seq + 1 : 1;
	vg_writer_reset(&c->reply);
	if (vg_receiver_ping(c->receiver, token, &c->reply))
		return true;
	c->ping_seq = token;
	c->ping_token = token;
	c->ping_sent_ns = now;
	return WriteToRFBServer(c->client, (const char *)c->reply.data, (unsigned)c->reply.len);
}

static void post(vg_connection *c, out_msg *m)
{
	out_msg *last;
	uint64_t one = 1;
	bool queued = true;

	g_mutex_lock(&c->out_lock);
	last = g_queue_peek_tail(&c->out);
	if (m->kind == OUT_POINTER && last && last->kind == OUT_POINTER &&
	    last->buttons == m->buttons) {
		last->x = m->x;
		last->y = m->y;
		out_msg_free(m);
	} else if (c->out.length >= MAX_QUEUED) {
		out_msg_free(m);
		queued = false;
	} else {
		g_queue_push_tail(&c->out, m);
	}
	g_mutex_unlock(&c->out_lock);
	if (queued && write(c->wake_fd, &one, sizeof one) < 0)
		vg_debug("cannot wake the network thread: %s", g_strerror(errno));
}

void vg_connection_post_key(vg_connection *c, uint32_t keysym, bool down)
{
	out_msg *m;

	if (c->view_only)
		return;
	m = g_new0(out_msg, 1);
	m->kind = OUT_KEY;
	m->keysym = keysym;
	m->down = down;
	post(c, m);
}

void vg_connection_post_pointer(vg_connection *c, int x, int y, int buttons)
{
	out_msg *m;

	if (c->view_only)
		return;
	m = g_new0(out_msg, 1);
	m->kind = OUT_POINTER;
	m->x = x;
	m->y = y;
	m->buttons = buttons;
	post(c, m);
}

void vg_connection_post_cut_text(vg_connection *c, const char *latin1, size_t len)
{
	out_msg *m;

	if (c->view_only || len > INT32_MAX)
		return;
	m = g_new0(out_msg, 1);
	m->kind = OUT_CUT_TEXT;
	m->text = g_memdup2(latin1, len ? len : 1);
	m->len = len;
	post(c, m);
}

void vg_connection_post_ping(vg_connection *c)
{
	out_msg *m = g_new0(out_msg, 1);

	m->kind = OUT_PING;
	post(c, m);
}

const char *vg_connection_error_text(const vg_connection *c)
{
	return c->error[0] ? c->error : "no error";
}

vg_pixbuf vg_connection_frame(const vg_connection *c)
{
	return vg_pixbuf_wrap((uint32_t *)c->client->frameBuffer, c->client->width,
			      c->client->height, c->client->width);
}

void vg_connection_get_stats(const vg_connection *c, vg_connection_stats *st)
{
	vg_channel_info info;
	vg_receiver_stats rs;

	*st = c->stats;
	vg_channel_get_info(c->channel, &info);
	st->encrypted = info.encrypted;
	snprintf(st->tls_version, sizeof st->tls_version, "%s", info.version);
	snprintf(st->tls_cipher, sizeof st->tls_cipher, "%s", info.cipher);
	snprintf(st->tls_fingerprint, sizeof st->tls_fingerprint, "%s", info.fingerprint);
	st->tls_trust = info.trust;
	vg_receiver_get_stats(c->receiver, &rs);
	st->cache_hits = rs.cache_hits;
	st->cache_misses = rs.cache_misses;
	st->corrections = rs.corrections;
	st->checks = rs.checks;
	st->repairs_sent = rs.repairs_sent;
	st->owed_pixels = rs.owed_pixels;
	st->varg_updates = rs.updates;
	st->approx_messages = rs.approx_messages;
	st->approx_pixels = rs.approx_pixels;
	st->zstd_window_log = rs.zstd_window_log;
	st->coded_ahead = rs.coded_ahead;
	st->model_updates = rs.model_updates;
	st->segments = rs.segments;
	st->repeats = rs.repeats;
	st->moves = rs.moves;
	st->moved_pixels = rs.moved_pixels;
	st->history_restored = rs.history_restored;
	st->cache_persistent = rs.persistent;
	st->cache_entries = rs.cache_entries;
	st->cache_bytes_on_disk = rs.cache_bytes_on_disk;
}

const char *vg_connection_encoding(const vg_connection *c)
{
	return c->stats.varg_rects ? "varg" : c->encoding;
}
