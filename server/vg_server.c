/* The screen: one LibVNCServer screen over one frame (vg_screen.c, with
 * the lock between the source that writes the frame and the clients'
 * output threads that read it), its clients' lifecycle and the hooks. The
 * source takes the frame lock to write and marks what changed; every
 * client's send reads under it. The hooks LibVNCServer calls on each
 * client's threads dispatch to the room of its kind: a Varg viewer's
 * update path (vg_vargclient.c) or a stock client's frame of its own
 * (vg_stockclient.c); input, clipboard and cursor are vg_input.c's,
 * passwords vg_auth.c's. doc/architecture.md has the long version.
 *
 * Lock order: sendMutex -> frame lock -> updateMutex.
 * The locks are pthread locks, not GLib's: GLib's futex-based locks are
 * invisible to ThreadSanitizer, which then reports every guarded access.
 */
#include <arpa/inet.h>
#include <assert.h>
#include <glib.h>
#include <rfb/rfb.h>
#include <pthread.h>
#include <rfb/rfbregion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "fingerprint/cache/vg_beliefstore.h"
#include "server/vg_auth.h"
#include "server/vg_input.h"
#include "server/vg_listener.h"
#include "server/vg_monitor.h"
#include "server/vg_screen.h"
#include "server/vg_segshare.h"
#include "server/vg_server.h"
#include "server/vg_stockclient.h"
#include "server/vg_tlsgate.h"
#include "server/vg_vargclient.h"
#include "server/vg_webdir.h"

/* Exported by LibVNCServer 0.9.14 but not declared in its headers:
 * brings the copies kept for clients that asked for scaling up to date. */
void rfbScaledScreenUpdate(rfbScreenInfoPtr screen, int x1, int y1, int x2, int y2);

struct vg_server {
	const vg_server_config *cfg; /* the screen's */
	vg_screen *scr;           /* the frame and what every client shares */
	rfbScreenInfoPtr screen;
	vg_listener *listener;    /* the accept path, in front of LibVNCServer */
	vg_listener *web_listener; /* browsers' port of their own; NULL: none */
	vg_tlsgate *gate;         /* TLS on the accept path; NULL: off */
	pthread_mutex_t handover_lock; /* one handover at a time, either listener */
	const char *handover_peer; /* the address of the connection being
				   * handed over */
	int handover_path_fd;     /* its network socket behind a bridge, until
				   * the new client takes it; -1: none */
	char *http_roots[4];      /* with HTTP: Varg's web files (viewer/web/),
				   * then cfg->http_root; NULL-ended, owned */
	sraRegion *scale_due;     /* marked under the write lock; scaled at its unlock */
	vg_auth *auth;
	pthread_mutex_t lock;     /* live_conns and past_viewers */
	pthread_cond_t conns_gone;
	unsigned live_conns;      /* conn not yet freed; waited for at shutdown */
	GArray *past_viewers;     /* vg_server_viewer: the last VG_PAST_VIEWERS gone */
};

/* The core's state of one client: the rooms' view first, so that
 * cl->clientData is both, and the server. A client whose connection ended
 * just before the shutdown reaches the server through this while
 * LibVNCServer frees cl->screen, which it no longer lists the client on. */
typedef struct {
	vg_client k;
	vg_server *server;
} conn;

static void client_free(conn *n)
{
	vg_server *s = n->server;

	vg_vargclient_free(n->k.varg);
	vg_stockclient_free(n->k.stock);
	if (n->k.path_fd >= 0)
		close(n->k.path_fd);
	g_free(n);
	/* Client threads that ended earlier are never joined by LibVNCServer:
	 * this count is what orders their last use of s before its free. */
	pthread_mutex_lock(&s->lock);
	s->live_conns--;
	pthread_cond_broadcast(&s->conns_gone);
	pthread_mutex_unlock(&s->lock);
}

/* LibVNCServer's encodings by name, for the viewer list. */
static const char *encoding_name(int enc)
{
	switch (enc) {
	case rfbEncodingRaw: return "raw";
	case rfbEncodingCopyRect: return "copyrect";
	case rfbEncodingRRE: return "rre";
	case rfbEncodingCoRRE: return "corre";
	case rfbEncodingHextile: return "hextile";
	case rfbEncodingZlib: return "zlib";
	case rfbEncodingTight: return "tight";
	case rfbEncodingZlibHex: return "zlibhex";
	case rfbEncodingZRLE: return "zrle";
	case rfbEncodingZYWRLE: return "zywrle";
	case rfbEncodingUltra: return "ultra";
	default: return "other";
	}
}

/* What a client past its handshake was sent; false for one that is not.
 * A client going away is shutting down whatever it reached: it counts
 * if it was sent an update. */
static bool describe_viewer(rfbClientPtr cl, bool gone, vg_server_viewer *v)
{
	vg_vargclient_stats vs;
	vg_client *k;

	LOCK(cl->updateMutex);
	k = cl->clientData;
	UNLOCK(cl->updateMutex);
	if ((!gone && cl->state != RFB_NORMAL) || !k)
		return false;
	memset(v, 0, sizeof *v);
	g_strlcpy(v->host, cl->host ? cl->host : "?", sizeof v->host);
	v->varg = vg_vargclient_account(cl, k->varg, &vs);
	if (v->varg) {
		v->encoding = "varg";
		v->bytes_sent = vs.bytes_sent;
		v->updates = vs.updates;
		v->fingerprints = vs.fingerprints;
		v->misses = vs.misses;
	} else {
		v->encoding = encoding_name(cl->preferredEncoding);
		v->bytes_sent = (uint64_t)rfbStatGetSentBytes(cl);
		v->updates = (uint64_t)rfbStatGetMessageCountSent(cl, rfbFramebufferUpdate);
	}
	return !gone || v->updates > 0;
}

static void client_gone(rfbClientPtr cl)
{
	conn *n = cl->clientData;
	vg_server *s = n->server;
	vg_screen_stats *counts;
	vg_server_viewer v;

	if (describe_viewer(cl, true, &v)) {
		pthread_mutex_lock(&s->lock);
		if (s->past_viewers->len == VG_PAST_VIEWERS)
			g_array_remove_index(s->past_viewers, 0);
		g_array_append_val(s->past_viewers, v);
		pthread_mutex_unlock(&s->lock);
	}
	vg_vargclient_gone(cl, n->k.varg);
	vg_stockclient_gone(cl, n->k.stock);
	/* Its LibVNCServer counts go to the totals. */
	counts = vg_screen_stats_lock(s->scr);
	counts->gone_bytes += (uint64_t)rfbStatGetSentBytes(cl);
	counts->gone_updates += (uint64_t)rfbStatGetMessageCountSent(cl, rfbFramebufferUpdate);
	vg_screen_stats_unlock(s->scr);
	cl->clientData = NULL;
	client_free(n);
}

static enum rfbNewClientAction new_client(rfbClientPtr cl)
{
	vg_server *s = cl->screen->screenData;
	conn *n;
	unsigned secs;

	/* A connection through the TLS gate reaches LibVNCServer over a
	 * socketpair, which has no address: the guard and the log want the
	 * peer's. */
	if (s->handover_peer && strcmp(cl->host, s->handover_peer) != 0) {
		free(cl->host);
		cl->host = strdup(s->handover_peer);
	}
	if ((secs = vg_auth_blocked(s->auth, cl->host))) {
		vg_warn("client %s: refused: %u s left of its block after failed passwords", cl->host,
			secs);
		return RFB_CLIENT_REFUSE;
	}
	n = g_new0(conn, 1);
	n->server = s;
	n->k.screen = s->scr;
	n->k.varg = vg_vargclient_new(s->scr);
	n->k.stock = vg_stockclient_new(s->scr);
	n->k.path_fd = s->handover_path_fd;
	s->handover_path_fd = -1;
	LOCK(cl->updateMutex);
	cl->clientData = n;
	UNLOCK(cl->updateMutex);
	cl->clientGoneHook = client_gone;
	cl->clientFramebufferUpdateRequestHook = vg_vargclient_request;
	if (s->cfg->view_only)
		cl->viewOnly = TRUE;
	pthread_mutex_lock(&s->lock);
	s->live_conns++;
	pthread_mutex_unlock(&s->lock);
	vg_screen_stats_lock(s->scr)->kept.clients_total++;
	vg_screen_stats_unlock(s->scr);
	return RFB_CLIENT_ACCEPT;
}

/* First statement of rfbSendFramebufferUpdate, on the client's output
 * thread with sendMutex held. */
static void display_hook(rfbClientPtr cl)
{
	vg_client *k = cl->clientData;

	if (!k)
		return;
	if (vg_vargclient_takes_pass(cl, k->varg))
		vg_vargclient_pass(cl, k->varg);
	else
		vg_stockclient_pass_begin(cl, k->stock);
}

/* Last statement of every path of rfbSendFramebufferUpdate, on the same
 * thread, still under sendMutex. */
static void display_finished_hook(rfbClientPtr cl, int result)
{
	vg_client *k = cl->clientData;

	(void)result;
	if (!k)
		return;
	vg_stockclient_pass_end(cl, k->stock);
	vg_vargclient_pass_end(cl, k->varg);
}

/* rfbNewFramebuffer would also reset the pixel format to its defaults
 * (red in the low byte), so the screen is changed here in the same steps
 * with Varg's format kept: every client's sends wait (sendMutex), the
 * framebuffer is swapped, every client gets the whole screen as modified
 * and, if it takes them, a desktop-size message first. */
int vg_server_resize(vg_server *s, int32_t width, int32_t height)
{
	rfbScreenInfoPtr screen = s->screen;
	rfbClientIteratorPtr it;
	rfbClientPtr cl;
	GPtrArray *clients;
	vg_pixbuf *frame;
	guint i;

	if (width < 1 || height < 1 || width > 8192 || height > 8192)
		return VG_EINVAL;
	frame = vg_pixbuf_new(width, height);
	if (!frame)
		return VG_ERANGE;
	clients = g_ptr_array_new();
	it = rfbGetClientIterator(screen);
	while ((cl = rfbClientIteratorNext(it))) {
		LOCK(cl->sendMutex);
		g_ptr_array_add(clients, cl);
	}
	vg_screen_write_lock(s->scr);
	LOCK(screen->cursorMutex);
	/* LibVNCServer's threads may still hold the old frame's address
	 * (a stock encoder between two reads): it lives until the end. */
	vg_screen_replace_frame(s->scr, frame);
	sraRgnMakeEmpty(s->scale_due);
	screen->width = width;
	screen->height = height;
	screen->paddedWidthInBytes = width * 4;
	screen->frameBuffer = (char *)frame->pixels;
	for (i = 0; i < clients->len; i++) {
		vg_client *fresh;  /* read under updateMutex, as new_client sets it */

		cl = clients->pdata[i];
		LOCK(cl->updateMutex);
		fresh = cl->clientData;
		UNLOCK(cl->updateMutex);
		if (fresh) {
			vg_vargclient_resize(cl, fresh->varg, width, height);
			vg_stockclient_resize(cl, fresh->stock);
		}
		LOCK(cl->updateMutex);
		sraRgnDestroy(cl->modifiedRegion);
		cl->modifiedRegion = sraRgnCreateRect(0, 0, width, height);
		sraRgnMakeEmpty(cl->copyRegion);
		cl->copyDX = cl->copyDY = 0;
		if (cl->useNewFBSize)
			cl->newFBSizePending = TRUE;
		TSIGNAL(cl->updateCond);
		UNLOCK(cl->updateMutex);
	}
	UNLOCK(screen->cursorMutex);
	vg_screen_write_unlock(s->scr);
	for (i = 0; i < clients->len; i++) {
		cl = clients->pdata[i];
		UNLOCK(cl->sendMutex);
	}
	rfbReleaseClientIterator(it);
	g_ptr_array_free(clients, TRUE);
	vg_screen_stats_lock(s->scr)->kept.resizes++;
	vg_screen_stats_unlock(s->scr);
	return VG_OK;
}

static void log_quiet(const char *fmt, ...)
{
	(void)fmt;
}

/* A connection the listener screened becomes LibVNCServer's client, as
 * its own accept thread would have made it. */
static void hand_over(void *user, int fd, int path_fd, const char *peer)
{
	vg_server *s = user;
	rfbClientPtr cl;

	pthread_mutex_lock(&s->handover_lock);
	s->handover_peer = peer;
	s->handover_path_fd = path_fd;
	cl = rfbNewClient(s->screen, fd);
	s->handover_peer = NULL;
	/* Not taken by a client: refused. */
	if (s->handover_path_fd >= 0)
		close(s->handover_path_fd);
	s->handover_path_fd = -1;
	if (cl && !cl->onHold)
		rfbStartOnHoldClient(cl);
	pthread_mutex_unlock(&s->handover_lock);
}

static int gate_open(void *user, int fd, const char *peer, void **state)
{
	vg_server *s = user;

	return vg_tlsgate_open(s->gate, fd, peer, state);
}

static void gate_done(void *user, void *state, int handed)
{
	vg_server *s = user;

	vg_tlsgate_done(s->gate, state, handed);
}

static bool gate_refuses(void *user, const char *peer)
{
	vg_server *s = user;
	unsigned secs = vg_auth_blocked(s->auth, peer);

	if (secs)
		vg_warn("client %s: refused: %u s left of its block after failed passwords", peer, secs);
	return secs != 0;
}

/* TLS's certificate lives with the server's identity (vg_serverkey), in
 * the base of the belief files, even when no beliefs are kept: viewers
 * remember it. */
static int open_gate(vg_server *s, const vg_server_config *cfg)
{
	g_autofree char *dir = cfg->beliefs_dir ? g_strdup(cfg->beliefs_dir) : vg_beliefstore_default_base_dir();
	vg_tlsgate_config gc = {
		.mode = cfg->tls == VG_SERVER_TLS_REQUIRE ? VG_TLSGATE_REQUIRE : VG_TLSGATE_OFFER,
		.cert_file = cfg->tls_cert,
		.key_file = cfg->tls_key,
		.state_dir = dir,
		.vnc_auth = cfg->password != NULL,
		.refuse_cb = gate_refuses,
		.user = s,
	};

	return vg_tlsgate_new(&gc, &s->gate);
}

static rfbScreenInfoPtr new_screen(vg_server *s, int32_t width, int32_t height)
{
	int argc = 1;
	char *argv[] = { (char *)"varg-server", NULL };
	rfbScreenInfoPtr screen = rfbGetScreen(&argc, argv, width, height, 8, 3, 4);

	screen->screenData = s;
	screen->frameBuffer = (char *)vg_screen_frame(s->scr)->pixels;
	screen->serverFormat.redShift = 16;
	screen->serverFormat.greenShift = 8;
	screen->serverFormat.blueShift = 0;
	screen->desktopName = s->cfg->desktop_name ? s->cfg->desktop_name : "varg";
	screen->alwaysShared = TRUE;
	screen->deferUpdateTime = s->cfg->defer_ms;
	screen->cursor = NULL;  /* never paint a cursor into the frame */
	screen->newClientHook = new_client;
	screen->displayHook = display_hook;
	screen->displayFinishedHook = display_finished_hook;
	vg_input_setup(screen, s->cfg);
	vg_auth_install(s->auth, screen);
	/* No listener of LibVNCServer's own: vg_listener accepts. */
	screen->autoPort = FALSE;
	screen->port = 0;
	screen->ipv6port = 0;
	rfbInitServer(screen);
	return screen;
}

int vg_server_new(const vg_server_config *cfg, int32_t width, int32_t height, vg_server **out)
{
	const char *listen = cfg->listen ? cfg->listen : "127.0.0.1";
	vg_server *s;
	in_addr_t addr;

	if (width < 1 || height < 1 || width > 8192 || height > 8192) {
		vg_error("a screen of %dx%d cannot be served", width, height);
		return VG_EINVAL;
	}
	if (inet_pton(AF_INET, listen, &addr) != 1) {
		vg_error("bad listen address '%s'", listen);
		return VG_EINVAL;
	}
	vg_vargclient_register();
	if (!cfg->verbose)
		rfbLog = rfbErr = log_quiet;

	s = g_new0(vg_server, 1);
	s->handover_path_fd = -1;
	s->scale_due = sraRgnCreate();
	s->auth = vg_auth_new(cfg->password, cfg->view_password);
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->handover_lock, NULL);
	pthread_cond_init(&s->conns_gone, NULL);
	s->past_viewers = g_array_new(FALSE, FALSE, sizeof(vg_server_viewer));
	if (vg_screen_new(cfg, width, height, &s->scr)) {
		vg_server_free(s);
		return VG_EINVAL;
	}
	s->cfg = vg_screen_config(s->scr);

	if (cfg->tls != VG_SERVER_TLS_OFF && open_gate(s, cfg)) {
		vg_server_free(s);
		return VG_EINVAL;
	}
	{
		vg_listener_config lc = { .addr = addr, .port = cfg->port, .handover_cb = hand_over,
					  .user = s };

		if (s->gate) {
			lc.gate_cb = gate_open;
			lc.gate_done_cb = gate_done;
			/* A TLS handshake holds its thread longer than a
			 * screening: room for a burst of them. */
			lc.max_pending = 256;
		}

		if (cfg->http_root) {
			s->http_roots[vg_webdir_varg(s->http_roots)] = g_strdup(cfg->http_root);
			lc.http_roots = (const char *const *)s->http_roots;
			/* Browsers get TLS as viewers do: https:// and wss://
			 * with the same certificate, plain HTTP refused when
			 * TLS is required. */
			if (s->gate) {
				lc.tls = vg_tlsgate_tls(s->gate);
				lc.tls_required = vg_tlsgate_required(s->gate);
			}
		}

		/* Browsers on a port of their own: RFB's port then greets
		 * at once, and a browser's late request meets no greeting. */
		if (cfg->http_root && cfg->http_port) {
			vg_listener_config wc = lc;

			wc.port = cfg->http_port;
			wc.http_only = true;
			lc.http_roots = NULL;
			lc.tls = NULL;
			lc.tls_required = false;
			if (vg_listener_new(&wc, &s->web_listener)) {
				vg_error("cannot listen on %s port %d", listen, cfg->http_port);
				vg_server_free(s);
				return VG_EIO;
			}
		}
		if (vg_listener_new(&lc, &s->listener)) {
			vg_error("cannot listen on %s port %d", listen, cfg->port);
			vg_server_free(s);
			return VG_EIO;
		}
	}
	s->screen = new_screen(s, width, height);
	vg_screen_open_beliefs(s->scr);
	rfbRunEventLoop(s->screen, -1, TRUE);
	if (vg_listener_start(s->listener) || (s->web_listener && vg_listener_start(s->web_listener))) {
		vg_error("cannot start listening on %s", listen);
		vg_server_free(s);
		return VG_EIO;
	}
	/* Said once the address is known to be good. */
	if (!vg_auth_address_is_loopback(listen) && !cfg->password)
		vg_warn("WARNING: listening on %s with no password: anyone who can reach this "
			"address can see%s this screen; use --password-file, or keep the default "
			"127.0.0.1 and connect through ssh -L", listen,
			cfg->view_only ? "" : " and control");
	if (cfg->password && strlen(cfg->password) >= 8)
		vg_info("VNC authentication uses only the first 8 characters of the password");
	*out = s;
	return VG_OK;
}

/* Closes every client and waits (bounded) until their threads have taken
 * them off LibVNCServer's list. rfbShutdownServer does not do this safely:
 * it drops its reference to a client before closing it, so a client whose
 * connection is ending on its own can close its notify pipe (and be freed)
 * while the shutdown still writes to it. Here each client is closed while
 * the iterator holds it, so its thread waits for us before it goes. */
static void close_all_clients(vg_server *s)
{
	uint64_t deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	rfbClientIteratorPtr it = rfbGetClientIterator(s->screen);
	rfbClientPtr cl;
	bool any;

	while ((cl = rfbClientIteratorNext(it)))
		rfbCloseClient(cl);
	rfbReleaseClientIterator(it);
	do {
		/* Skips only clients with no socket, which the shutdown
		 * skips as well. */
		it = rfbGetClientIterator(s->screen);
		any = rfbClientIteratorNext(it) != NULL;
		rfbReleaseClientIterator(it);
		if (any)
			g_usleep(1000);
	} while (any && (uint64_t)g_get_monotonic_time() < deadline);
}

void vg_server_free(vg_server *s)
{
	struct timespec until;

	if (!s)
		return;
	/* No handover may be under way while LibVNCServer shuts down. */
	vg_listener_free(s->listener);
	vg_listener_free(s->web_listener);
	for (char **root = s->http_roots; *root; root++)
		g_free(*root);
	if (s->screen) {
		close_all_clients(s);
		rfbShutdownServer(s->screen, TRUE);
		rfbScreenCleanup(s->screen);
	}
	/* Connected clients were joined above; a client whose connection
	 * ended just before may still be saving its beliefs. */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;     /* bounded: never hang an exit on it */
	pthread_mutex_lock(&s->lock);
	while (s->live_conns > 0 &&
	       pthread_cond_timedwait(&s->conns_gone, &s->lock, &until) == 0)
		;
	pthread_mutex_unlock(&s->lock);
	/* Every client is closed: their bridges are ending. */
	vg_tlsgate_free(s->gate);
	vg_screen_free(s->scr);
	g_array_free(s->past_viewers, TRUE);
	sraRgnDestroy(s->scale_due);
	vg_auth_free(s->auth);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->handover_lock);
	pthread_cond_destroy(&s->conns_gone);
	g_free(s);
}

int vg_server_port(const vg_server *s)
{
	return vg_listener_port(s->listener);
}

int vg_server_http_port(const vg_server *s)
{
	return vg_listener_port(s->web_listener ? s->web_listener : s->listener);
}

const char *vg_server_tls_fingerprint(const vg_server *s)
{
	return s->gate ? vg_tlsgate_fingerprint(s->gate) : NULL;
}

const char *vg_server_tls_cert_path(const vg_server *s)
{
	return s->gate ? vg_tlsgate_cert_path(s->gate) : NULL;
}

void vg_server_print_tls(const vg_server *s, const char *prog)
{
	if (!s->gate)
		return;
	printf("%s: TLS %s; certificate %s\n%s: certificate SHA-256 fingerprint %s\n", prog,
	       s->cfg->tls == VG_SERVER_TLS_REQUIRE ? "required" : "offered", vg_tlsgate_cert_path(s->gate),
	       prog, vg_tlsgate_fingerprint(s->gate));
}

vg_pixbuf *vg_server_frame_lock(vg_server *s)
{
	return vg_screen_write_lock(s->scr);
}

/* rfbMarkRegionAsModified, except that a stock client whose pass is
 * encoding from its own copy keeps the region aside (vg_stockclient.c). No copy is ever scheduled (rfbScheduleCopyRegion), so the
 * copy-region bookkeeping of LibVNCServer's version has nothing to do. */
static void mark_modified(vg_server *s, sraRegion *rgn)
{
	rfbClientIteratorPtr it = rfbGetClientIterator(s->screen);
	rfbClientPtr cl;

	while ((cl = rfbClientIteratorNext(it))) {
		vg_client *k;

		/* Under updateMutex: new_client may be setting it right now
		 * (the client is in the list before its hook runs). */
		LOCK(cl->updateMutex);
		k = cl->clientData;
		if (!k || !vg_stockclient_defer(k->stock, rgn))
			sraRgnOr(cl->modifiedRegion, rgn);
		TSIGNAL(cl->updateCond);
		UNLOCK(cl->updateMutex);
	}
	rfbReleaseClientIterator(it);
}

void vg_server_frame_mark(vg_server *s, const vg_rect *changed, size_t n)
{
	sraRegion *rgn = sraRgnCreate();
	size_t i;

	for (i = 0; i < n; i++) {
		vg_rect r = vg_rect_intersect(changed[i], vg_pixbuf_rect(vg_screen_frame(s->scr)));
		sraRegion *one;

		if (vg_rect_is_empty(r))
			continue;
		one = sraRgnCreateRect(r.x, r.y, r.x + r.w, r.y + r.h);
		sraRgnOr(rgn, one);
		sraRgnDestroy(one);
	}
	if (!sraRgnEmpty(rgn)) {
		sraRgnOr(s->scale_due, rgn);
		mark_modified(s, rgn);
	}
	sraRgnDestroy(rgn);
}

/* Clients that asked for scaling read copies of the framebuffer: made
 * once the source has drawn what it marked. With the write lock held. */
static void update_scaled(vg_server *s)
{
	sraRectangleIterator *it;
	sraRect r;

	if (sraRgnEmpty(s->scale_due))
		return;
	it = sraRgnGetIterator(s->scale_due);
	while (sraRgnIteratorNext(it, &r))
		rfbScaledScreenUpdate(s->screen, r.x1, r.y1, r.x2, r.y2);
	sraRgnReleaseIterator(it);
	sraRgnMakeEmpty(s->scale_due);
}

void vg_server_frame_unlock(vg_server *s, const vg_rect *changed, size_t n)
{
	/* Marked before readers come back (lock order: frame, then
	 * updateMutex), so no send finds new pixels outside its region. */
	vg_server_frame_mark(s, changed, n);
	update_scaled(s);
	vg_screen_write_unlock(s->scr);
}

void vg_server_frame_copy(vg_server *s, const vg_pixbuf *src, const vg_rect *changed, size_t n)
{
	vg_pixbuf *frame = vg_server_frame_lock(s);
	size_t i;

	for (i = 0; i < n; i++)
		vg_pixbuf_copy_rect(frame, src, changed[i]);
	vg_server_frame_unlock(s, changed, n);
}

int vg_server_client_count(vg_server *s)
{
	rfbClientIteratorPtr it = rfbGetClientIterator(s->screen);
	rfbClientPtr cl;
	int n = 0;

	while ((cl = rfbClientIteratorNext(it)))
		if (cl->state == RFB_NORMAL)
			n++;
	rfbReleaseClientIterator(it);
	return n;
}

static bool all_caught_up(vg_server *s)
{
	rfbClientIteratorPtr it = rfbGetClientIterator(s->screen);
	rfbClientPtr cl;
	bool done = true;

	while (done && (cl = rfbClientIteratorNext(it))) {
		if (cl->state != RFB_NORMAL || cl->sock == RFB_INVALID_SOCKET)
			continue;
		LOCK(cl->updateMutex);
		done = sraRgnEmpty(cl->modifiedRegion);
		UNLOCK(cl->updateMutex);
		/* A new shape is cleared when sent, under sendMutex. */
		LOCK(cl->sendMutex);
		if (cl->enableCursorShapeUpdates && cl->cursorWasChanged)
			done = false;
		UNLOCK(cl->sendMutex);
	}
	rfbReleaseClientIterator(it);
	return done;
}

bool vg_server_wait_caught_up(vg_server *s, int timeout_ms)
{
	uint64_t deadline = g_get_monotonic_time() + (uint64_t)timeout_ms * 1000;

	while (!all_caught_up(s)) {
		if ((uint64_t)g_get_monotonic_time() >= deadline)
			return false;
		g_usleep(1000);
	}
	return true;
}

void vg_server_get_stats(vg_server *s, vg_server_stats *st)
{
	rfbClientIteratorPtr it = rfbGetClientIterator(s->screen);
	rfbClientPtr cl;
	uint64_t now = 0, bytes = 0, updates = 0;
	vg_segshare *share = vg_screen_share(s->scr);
	vg_screen_stats *counts;

	while ((cl = rfbClientIteratorNext(it))) {
		if (cl->state != RFB_NORMAL)
			continue;
		now++;
		bytes += (uint64_t)rfbStatGetSentBytes(cl);
		updates += (uint64_t)rfbStatGetMessageCountSent(cl, rfbFramebufferUpdate);
	}
	rfbReleaseClientIterator(it);
	counts = vg_screen_stats_lock(s->scr);
	*st = counts->kept;
	st->clients_now = now;
	/* LibVNCServer counts what it writes; Varg updates are written
	 * past it. */
	st->bytes_sent = counts->gone_bytes + bytes + st->varg_bytes;
	st->updates_sent = counts->gone_updates + updates + st->varg_updates;
	vg_screen_stats_unlock(s->scr);
	if (share) {
		vg_segshare_stats sh;

		vg_segshare_get_stats(share, &sh);
		st->shared_hits = sh.hits;
		st->shared_misses = sh.misses;
		st->shared_waits = sh.waits;
		st->shared_wait_ns = sh.wait_ns;
		st->shared_evictions = sh.evictions;
		st->unshared = sh.unshared;
	}
}

bool vg_server_get_summary(vg_server *s, vg_monitor_summary *out)
{
	vg_monitor *monitor = vg_screen_monitor(s->scr);

	if (!monitor)
		return false;
	vg_monitor_summarize(monitor, out);
	return true;
}

size_t vg_server_list_viewers(vg_server *s, vg_server_viewer *out, size_t cap)
{
	rfbClientIteratorPtr it = rfbGetClientIterator(s->screen);
	rfbClientPtr cl;
	size_t n = 0;

	while (n < cap && (cl = rfbClientIteratorNext(it)))
		if (describe_viewer(cl, false, &out[n]))
			n++;
	rfbReleaseClientIterator(it);
	return n;
}

size_t vg_server_list_past_viewers(vg_server *s, vg_server_viewer *out, size_t cap)
{
	size_t n;

	pthread_mutex_lock(&s->lock);
	n = MIN(cap, (size_t)s->past_viewers->len);
	if (n)
		memcpy(out, s->past_viewers->data, n * sizeof *out);
	pthread_mutex_unlock(&s->lock);
	return n;
}

int vg_server_set_cursor(vg_server *s, const vg_server_cursor *cur)
{
	rfbClientIteratorPtr it;
	rfbClientPtr cl;
	int err;

	/* Viewers that take CURSOR messages get the shape with its alpha,
	 * the others LibVNCServer's rich cursor. */
	if ((err = vg_screen_set_cursor(s->scr, cur->pixels, cur->width, cur->height, cur->hot_x,
					cur->hot_y)) ||
	    (err = vg_input_set_cursor(s->screen, cur->pixels, cur->width, cur->height, cur->hot_x,
				       cur->hot_y)))
		return err;
	/* rfbSetCursor marks the clients but wakes none: an output thread
	 * already waiting with a request in hand would keep the new shape
	 * until the next change of the frame. */
	it = rfbGetClientIterator(s->screen);
	while ((cl = rfbClientIteratorNext(it))) {
		LOCK(cl->updateMutex);
		TSIGNAL(cl->updateCond);
		UNLOCK(cl->updateMutex);
	}
	rfbReleaseClientIterator(it);
	return VG_OK;
}

void vg_server_cut_text(vg_server *s, const char *utf8, size_t len)
{
	if (!s->cfg->no_clipboard)
		vg_input_cut_text(s->screen, utf8, len);
}
