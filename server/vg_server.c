/* The screen: one LibVNCServer screen over one frame, its clients, and
 * the lock between the source that writes the frame and the clients'
 * output threads that read it. The source takes frame_lock to write and
 * marks what changed; every client's send reads under it. The hooks
 * LibVNCServer calls on each client's threads dispatch to a Varg viewer's
 * update path (vg_vargclient.c) or to a stock client's frame of its own
 * (vg_stockclient.c); input, clipboard, cursor and passwords are the
 * desktop's (vg_desktop.c). doc/architecture.md has the long version.
 *
 * Lock order: sendMutex -> frame_lock -> updateMutex.
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
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "common/vg_writer.h"
#include "fingerprint/cache/vg_beliefstore.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/proto/vg_sender.h"
#include "pipeline/vg_pipeline.h"
#include "server/vg_authguard.h"
#include "server/vg_monitor.h"
#include "server/vg_segshare.h"
#include "server/vg_listener.h"
#include "server/vg_server.h"
#include "server/vg_serverkey.h"
#include "server/vg_serverpriv.h"

/* Exported by LibVNCServer 0.9.14 but not declared in its headers:
 * brings the copies kept for clients that asked for scaling up to date. */
void rfbScaledScreenUpdate(rfbScreenInfoPtr screen, int x1, int y1, int x2, int y2);

/* Results kept for viewers in step: two per update in flight is plenty
 * when viewers are in step; more only helps viewers that lag by several
 * frames, whose motion memories then rarely match anyway. */
#define SHARE_SLOTS 8

/* Updates whose stage times the monitor keeps (80 bytes each). */
#define MONITOR_RING 4096

int vg_server_pixmodel_option(const char *s, vg_server_pixmodel *out)
{
	if (!strcmp(s, "auto"))
		*out = VG_SERVER_PIXMODEL_AUTO;
	else if (!strcmp(s, "on"))
		*out = VG_SERVER_PIXMODEL_ON;
	else if (!strcmp(s, "off"))
		*out = VG_SERVER_PIXMODEL_OFF;
	else {
		vg_error("--pixel-model must be auto, on or off");
		return VG_EINVAL;
	}
	return VG_OK;
}

void vg_server_config_init(vg_server_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->port = 5900;
	cfg->listen = "127.0.0.1";
	cfg->zstd_level = VG_SERVER_ZSTD_AUTO;
	cfg->pixmodel = VG_SERVER_PIXMODEL_AUTO;
	cfg->fp_bits = VG_FP_BITS_DEFAULT;
	cfg->group_size = VG_GROUP_DEFAULT;
	cfg->desktop_name = "varg";
	cfg->defer_ms = 5;
}

bool vg__format_is_native(const rfbPixelFormat *f)
{
	return f->bitsPerPixel == 32 && f->depth == 24 && f->trueColour &&
	       !f->bigEndian && f->redMax == 255 && f->greenMax == 255 &&
	       f->blueMax == 255 && f->redShift == 16 && f->greenShift == 8 &&
	       f->blueShift == 0;
}

static void conn_free(vg_conn *c)
{
	vg_server *s;

	if (!c)
		return;
	s = c->server;
	if (c->wanted)
		sraRgnDestroy(c->wanted);
	if (c->late)
		sraRgnDestroy(c->late);
	g_free(c->own_screen);
	vg_pixbuf_free(c->own_frame);
	vg_sender_free(c->sender);
	vg_pixbuf_free(c->snapshot);
	vg_writer_clear(&c->out);
	vg_region_free(c->repair);
	vg_region_free(c->approximate);
	vg_refine_free(c->refine);
	g_array_free(c->exact_segs, TRUE);
	g_array_free(c->approx_rects, TRUE);
	vg_region_free(c->refined);
	g_array_free(c->rects, TRUE);
	vg_pipeline_free(c->pipe);
	g_array_free(c->shared_segs, TRUE);
	if (c->varg)
		g_atomic_int_dec_and_test(&s->varg_now);
	pthread_mutex_destroy(&c->lock);
	g_free(c);
	/* Client threads that ended earlier are never joined by LibVNCServer:
	 * this count is what orders their last use of s before its free. */
	pthread_mutex_lock(&s->stats_lock);
	s->live_conns--;
	pthread_cond_broadcast(&s->conns_gone);
	pthread_mutex_unlock(&s->stats_lock);
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
static bool describe_viewer(vg_server *s, rfbClientPtr cl, bool gone, vg_server_viewer *v)
{
	vg_conn *c;

	LOCK(cl->updateMutex);
	c = cl->clientData;
	UNLOCK(cl->updateMutex);
	if ((!gone && cl->state != RFB_NORMAL) || !c)
		return false;
	memset(v, 0, sizeof *v);
	g_strlcpy(v->host, cl->host ? cl->host : "?", sizeof v->host);
	pthread_mutex_lock(&c->lock);
	v->varg = c->varg && c->sender && vg__format_is_native(&cl->format);
	if (v->varg) {
		vg_sender_stats st;

		vg_sender_get_stats(c->sender, &st);
		v->fingerprints = st.fingerprint_segments;
		v->misses = st.repairs;
	}
	pthread_mutex_unlock(&c->lock);
	if (v->varg) {
		v->encoding = "varg";
		pthread_mutex_lock(&s->stats_lock);
		v->bytes_sent = c->sent_bytes;
		v->updates = c->sent_updates;
		pthread_mutex_unlock(&s->stats_lock);
	} else {
		v->encoding = encoding_name(cl->preferredEncoding);
		v->bytes_sent = (uint64_t)rfbStatGetSentBytes(cl);
		v->updates = (uint64_t)rfbStatGetMessageCountSent(cl, rfbFramebufferUpdate);
	}
	return !gone || v->updates > 0;
}

static void client_gone(rfbClientPtr cl)
{
	vg_conn *c = cl->clientData;
	vg_server *s = cl->screen->screenData;
	vg_server_viewer v;

	if (describe_viewer(s, cl, true, &v)) {
		pthread_mutex_lock(&s->stats_lock);
		if (s->past_viewers->len == VG_PAST_VIEWERS)
			g_array_remove_index(s->past_viewers, 0);
		g_array_append_val(s->past_viewers, v);
		pthread_mutex_unlock(&s->stats_lock);
	}
	if (c && c->varg && c->sender && vg_sender_has_viewer_hello(c->sender)) {
		vg__varg_save_beliefs(c, cl->host);
		vg__varg_log_session(c, cl->host);
	}
	vg__account_gone(cl);
	/* LibVNCServer is done with cl->scaledScreen (it dropped its count
	 * before this hook); point it back at the screen before ours goes. */
	if (c && c->own_screen && cl->scaledScreen == c->own_screen)
		cl->scaledScreen = cl->screen;
	conn_free(cl->clientData);
	cl->clientData = NULL;
}

static enum rfbNewClientAction new_client(rfbClientPtr cl)
{
	vg_server *s = cl->screen->screenData;
	vg_conn *c;
	unsigned secs;

	if (s->passwords[0] && (secs = vg__auth_blocked(s, cl))) {
		vg_warn("client %s: refused: %u s left of its block after failed passwords", cl->host,
			secs);
		return RFB_CLIENT_REFUSE;
	}
	c = g_new0(vg_conn, 1);

	c->server = s;
	pthread_mutex_init(&c->lock, NULL);
	vg_writer_init(&c->out);
	c->rects = g_array_new(FALSE, FALSE, sizeof(vg_rect));
	c->shared_segs = g_array_new(FALSE, FALSE, sizeof(vg_segdesc));
	c->repair = vg_region_new();
	c->approximate = vg_region_new();
	c->exact_segs = g_array_new(FALSE, FALSE, sizeof(vg_segdesc));
	c->approx_rects = g_array_new(FALSE, FALSE, sizeof(vg_rect));
	c->refined = vg_region_new();
	c->wanted = sraRgnCreate();
	c->late = sraRgnCreate();
	LOCK(cl->updateMutex);
	cl->clientData = c;
	UNLOCK(cl->updateMutex);
	cl->clientGoneHook = client_gone;
	cl->clientFramebufferUpdateRequestHook = vg__varg_request;
	if (s->cfg.view_only)
		cl->viewOnly = TRUE;
	pthread_mutex_lock(&s->stats_lock);
	s->live_conns++;
	s->stats.clients_total++;
	pthread_mutex_unlock(&s->stats_lock);
	return RFB_CLIENT_ACCEPT;
}

/* First statement of rfbSendFramebufferUpdate, on the client's output
 * thread with sendMutex held. */
static void display_hook(rfbClientPtr cl)
{
	vg_conn *c = cl->clientData;

	if (!c)
		return;
	if (c->varg && vg__format_is_native(&cl->format))
		vg__varg_pass(cl, c);
	else
		vg__stock_pass_begin(cl, c);
}

/* Last statement of every path of rfbSendFramebufferUpdate, on the same
 * thread, still under sendMutex. */
static void display_finished_hook(rfbClientPtr cl, int result)
{
	vg_conn *c = cl->clientData;

	(void)result;
	if (!c)
		return;
	vg__stock_pass_end(cl, c);
	vg__varg_pass_end(cl, c);
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
	pthread_rwlock_wrlock(&s->frame_lock);
	LOCK(screen->cursorMutex);
	/* LibVNCServer's threads may still hold the old frame's address
	 * (a stock encoder between two reads): it lives until the end. */
	g_ptr_array_add(s->old_frames, s->frame);
	s->frame = frame;
	sraRgnMakeEmpty(s->scale_due);
	s->serial++;
	s->frame_ns = vg_time_ns();
	screen->width = width;
	screen->height = height;
	screen->paddedWidthInBytes = width * 4;
	screen->frameBuffer = (char *)frame->pixels;
	for (i = 0; i < clients->len; i++) {
		vg_conn *fresh;  /* read under updateMutex, as new_client sets it */

		cl = clients->pdata[i];
		LOCK(cl->updateMutex);
		fresh = cl->clientData;
		UNLOCK(cl->updateMutex);
		if (fresh) {
			vg__varg_resize(fresh, width, height);
			if (fresh->own_screen)
				vg__stock_fit(cl, fresh);
		}
		LOCK(cl->updateMutex);
		if (cl->clientData) {
			vg_conn *c = cl->clientData;

			/* Requests waiting for credits now ask for the new screen. */
			if (c->wanted && !sraRgnEmpty(c->wanted)) {
				sraRgnDestroy(c->wanted);
				c->wanted = sraRgnCreateRect(0, 0, width, height);
			}
		}
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
	pthread_rwlock_unlock(&s->frame_lock);
	for (i = 0; i < clients->len; i++) {
		cl = clients->pdata[i];
		UNLOCK(cl->sendMutex);
	}
	rfbReleaseClientIterator(it);
	g_ptr_array_free(clients, TRUE);
	pthread_mutex_lock(&s->stats_lock);
	s->stats.resizes++;
	pthread_mutex_unlock(&s->stats_lock);
	return VG_OK;
}

/* The identity viewers file this server's segments under: a random key
 * kept beside the beliefs (vg_serverkey), stable across restarts and
 * ports. A server whose viewers keep nothing on disk, or that cannot keep
 * the key, takes a random one for this run. */
static void make_server_id(vg_server *s, const vg_server_config *cfg)
{
	g_autofree char *base = NULL;
	int err, replaced = 0;

	if (!cfg->no_persist) {
		base = cfg->beliefs_dir ? g_strdup(cfg->beliefs_dir) : vg_beliefstore_default_base_dir();
		err = vg_serverkey_open(base, s->server_id, &replaced, &s->key);
		if (!err) {
			if (replaced)
				vg_warn("%s was damaged: a new server identity (viewers start cold once)",
					vg_serverkey_path(s->key));
			return;
		}
		vg_warn("cannot keep a server identity in %s (%s); viewers' caches stay cold across restarts",
			base, vg_strerror(err));
	}
	/* GLib's generator is seeded from /dev/urandom. */
	for (size_t i = 0; i < sizeof s->server_id; i += 4) {
		guint32 r = g_random_int();

		memcpy(s->server_id + i, &r, 4);
	}
}

static void log_quiet(const char *fmt, ...)
{
	(void)fmt;
}

/* A connection the listener screened becomes LibVNCServer's client, as
 * its own accept thread would have made it. */
static void hand_over(void *user, int fd)
{
	vg_server *s = user;
	rfbClientPtr cl = rfbNewClient(s->screen, fd);

	if (cl && !cl->onHold)
		rfbStartOnHoldClient(cl);
}

static rfbScreenInfoPtr new_screen(vg_server *s, int32_t width, int32_t height)
{
	int argc = 1;
	char *argv[] = { (char *)"varg-server", NULL };
	rfbScreenInfoPtr screen = rfbGetScreen(&argc, argv, width, height, 8, 3, 4);

	screen->screenData = s;
	screen->frameBuffer = (char *)s->frame->pixels;
	screen->serverFormat.redShift = 16;
	screen->serverFormat.greenShift = 8;
	screen->serverFormat.blueShift = 0;
	screen->desktopName = s->cfg.desktop_name ? s->cfg.desktop_name : "varg";
	screen->alwaysShared = TRUE;
	screen->deferUpdateTime = s->cfg.defer_ms;
	screen->cursor = NULL;  /* never paint a cursor into the frame */
	screen->newClientHook = new_client;
	screen->displayHook = display_hook;
	screen->displayFinishedHook = display_finished_hook;
	vg__desktop_setup(s, screen);
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
	const char *env;

	if (width < 1 || height < 1 || width > 8192 || height > 8192) {
		vg_error("a screen of %dx%d cannot be served", width, height);
		return VG_EINVAL;
	}
	if (inet_pton(AF_INET, listen, &addr) != 1) {
		vg_error("bad listen address '%s'", listen);
		return VG_EINVAL;
	}
	vg__varg_register();
	if (!cfg->verbose)
		rfbLog = rfbErr = log_quiet;

	s = g_new0(vg_server, 1);
	s->cfg = *cfg;
	s->race_fix = true;
	if ((env = g_getenv("VARG_TEST_SEND_DELAY_MS")))
		s->send_delay_ms = atoi(env);
	/* Approximations on loopback, as if the link were this slow. */
	if ((env = g_getenv("VARG_TEST_LINK_RATE")))
		s->test_link_rate = g_ascii_strtoull(env, NULL, 10);
	if ((env = g_getenv("VARG_TEST_NO_RACE_FIX")) && *env == '1')
		s->race_fix = false;
	/* Shows what a slow stock client did to everyone before it had a
	 * frame of its own (tests/test_stress.sh). */
	if ((env = g_getenv("VARG_TEST_SHARED_FRAME")) && *env == '1')
		s->shared_read = true;
	pthread_rwlock_init(&s->frame_lock, NULL);
	s->scale_due = sraRgnCreate();
	pthread_mutex_init(&s->guard_lock, NULL);
	s->guard = vg_authguard_new();
	pthread_mutex_init(&s->stats_lock, NULL);
	pthread_cond_init(&s->conns_gone, NULL);
	s->frame = vg_pixbuf_new(width, height);
	s->old_frames = g_ptr_array_new_with_free_func((GDestroyNotify)vg_pixbuf_free);
	s->past_viewers = g_array_new(FALSE, FALSE, sizeof(vg_server_viewer));
	/* Testing aid: VARG_TEST_NO_MONITOR=1 measures the server without
	 * its monitor, VARG_TEST_NO_SHARE=1 without shared segmentation. */
	if ((!((env = g_getenv("VARG_TEST_NO_SHARE")) && *env == '1') &&
	     vg_segshare_new(SHARE_SLOTS, &s->share)) ||
	    (!((env = g_getenv("VARG_TEST_NO_MONITOR")) && *env == '1') &&
	     vg_monitor_new(MONITOR_RING, &s->monitor))) {
		vg_error("cannot set up the shared segmentation or the monitor");
		vg_server_free(s);
		return VG_EINVAL;
	}

	{
		vg_listener_config lc = { .addr = addr, .port = cfg->port, .handover_cb = hand_over,
					  .user = s };

		if (cfg->http_root) {
			s->http_roots[vg_server_web_dirs(s->http_roots)] = g_strdup(cfg->http_root);
			lc.http_roots = (const char *const *)s->http_roots;
		}

		if (vg_listener_new(&lc, &s->listener)) {
			vg_error("cannot listen on %s port %d", listen, cfg->port);
			vg_server_free(s);
			return VG_EIO;
		}
	}
	s->screen = new_screen(s, width, height);
	make_server_id(s, cfg);
	if (!s->cfg.beliefs_save_s)
		s->cfg.beliefs_save_s = 60;
	if (!cfg->no_persist) {
		vg_beliefstore_config bc = { .base_dir = cfg->beliefs_dir,
					     .max_viewers = cfg->beliefs_viewers,
					     .max_file_bytes = cfg->beliefs_file_bytes };
		int err = vg_beliefstore_open(&bc, s->server_id, &s->beliefs);

		if (err)
			vg_warn("cannot keep beliefs about viewers' caches (%s); every viewer starts cold",
				vg_strerror(err));
	}
	rfbRunEventLoop(s->screen, -1, TRUE);
	if (vg_listener_start(s->listener)) {
		vg_error("cannot start listening on %s port %d", listen, cfg->port);
		vg_server_free(s);
		return VG_EIO;
	}
	/* Said once the address is known to be good. */
	if (!vg_server_address_is_loopback(listen) && !cfg->password)
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
	pthread_mutex_lock(&s->stats_lock);
	while (s->live_conns > 0 &&
	       pthread_cond_timedwait(&s->conns_gone, &s->stats_lock, &until) == 0)
		;
	pthread_mutex_unlock(&s->stats_lock);
	vg_beliefstore_free(s->beliefs);
	vg_serverkey_free(s->key);
	vg_segshare_free(s->share);
	vg_monitor_free(s->monitor);
	vg_pixbuf_free(s->frame);
	if (s->old_frames)
		g_ptr_array_free(s->old_frames, TRUE);
	if (s->past_viewers)
		g_array_free(s->past_viewers, TRUE);
	g_free(s->passwords[0]);
	g_free(s->passwords[1]);
	pthread_rwlock_destroy(&s->frame_lock);
	sraRgnDestroy(s->scale_due);
	vg_authguard_free(s->guard);
	pthread_mutex_destroy(&s->guard_lock);
	pthread_mutex_destroy(&s->stats_lock);
	pthread_cond_destroy(&s->conns_gone);
	g_free(s);
}

int vg_server_port(const vg_server *s)
{
	return vg_listener_port(s->listener);
}

vg_pixbuf *vg_server_frame_lock(vg_server *s)
{
	pthread_rwlock_wrlock(&s->frame_lock);
	/* The writer may change any pixel: results shared for the old
	 * serial never match a snapshot of the new one. */
	s->serial++;
	return s->frame;
}

/* rfbMarkRegionAsModified, except that a stock client whose pass is
 * encoding from its own copy gets the region in c->late (see the top of
 * this file). No copy is ever scheduled (rfbScheduleCopyRegion), so the
 * copy-region bookkeeping of LibVNCServer's version has nothing to do. */
static void mark_modified(vg_server *s, sraRegion *rgn)
{
	rfbClientIteratorPtr it = rfbGetClientIterator(s->screen);
	rfbClientPtr cl;

	while ((cl = rfbClientIteratorNext(it))) {
		vg_conn *c;

		/* Under updateMutex: new_client may be setting it right now
		 * (the client is in the list before its hook runs). */
		LOCK(cl->updateMutex);
		c = cl->clientData;
		if (c && c->encoding)
			sraRgnOr(c->late, rgn);
		else
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
		vg_rect r = vg_rect_intersect(changed[i], vg_pixbuf_rect(s->frame));
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
	s->frame_ns = vg_time_ns();
	pthread_rwlock_unlock(&s->frame_lock);
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

	while ((cl = rfbClientIteratorNext(it))) {
		if (cl->state != RFB_NORMAL)
			continue;
		now++;
		bytes += (uint64_t)rfbStatGetSentBytes(cl);
		updates += (uint64_t)rfbStatGetMessageCountSent(cl, rfbFramebufferUpdate);
	}
	rfbReleaseClientIterator(it);
	pthread_mutex_lock(&s->stats_lock);
	*st = s->stats;
	st->clients_now = now;
	/* LibVNCServer counts what it writes; Varg updates are written
	 * past it. */
	st->bytes_sent = s->gone_bytes + bytes + st->varg_bytes;
	st->updates_sent = s->gone_updates + updates + st->varg_updates;
	pthread_mutex_unlock(&s->stats_lock);
	if (s->share) {
		vg_segshare_stats sh;

		vg_segshare_get_stats(s->share, &sh);
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
	if (!s->monitor)
		return false;
	vg_monitor_summarize(s->monitor, out);
	return true;
}

size_t vg_server_list_viewers(vg_server *s, vg_server_viewer *out, size_t cap)
{
	rfbClientIteratorPtr it = rfbGetClientIterator(s->screen);
	rfbClientPtr cl;
	size_t n = 0;

	while (n < cap && (cl = rfbClientIteratorNext(it)))
		if (describe_viewer(s, cl, false, &out[n]))
			n++;
	rfbReleaseClientIterator(it);
	return n;
}

size_t vg_server_list_past_viewers(vg_server *s, vg_server_viewer *out, size_t cap)
{
	size_t n;

	pthread_mutex_lock(&s->stats_lock);
	n = MIN(cap, (size_t)s->past_viewers->len);
	if (n)
		memcpy(out, s->past_viewers->data, n * sizeof *out);
	pthread_mutex_unlock(&s->stats_lock);
	return n;
}
