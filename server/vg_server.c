/* How Varg takes over updates for its viewers (doc/architecture.md has the
 * long version). LibVNCServer cannot plug a new encoding into its sender,
 * so for a Varg client the display hook, which runs first thing in
 * rfbSendFramebufferUpdate on the client's output thread, takes the pending
 * region, empties the client's requested region and writes a Varg update
 * itself; LibVNCServer then finds nothing requested and sends nothing.
 *
 * Update credits: a Varg viewer keeps several update requests in flight;
 * the request hook counts each as one credit and the server may send one
 * update per credit without waiting for the next request, never more. The
 * hook applies the request itself while holding sendMutex, so no request
 * ever reaches requestedRegion while a send is in progress (LibVNCServer
 * would answer it from its stale copy of the region in its own encoding),
 * and moves the copy LibVNCServer applies after the hook outside the
 * framebuffer, where it can never meet a modified pixel. After each pass
 * the finished hook re-arms requestedRegion while credits remain.
 *
 * Stock clients: LibVNCServer's encoders read cl->scaledScreen->frameBuffer
 * and write to the socket as they go, so a client on a slow link would hold
 * whatever they read for as long as its writes take. Each stock client
 * therefore gets a 1:1 "scaled screen" of its own over a private copy of
 * the frame: the display hook copies the client's modified region into it
 * under frame_lock (read) and lets go; the encoders then read the copy
 * while the source writes new frames. A change marked while the pass runs
 * is kept aside (conn->late) and becomes modified again in the finished
 * hook, because LibVNCServer subtracts the region it sends, taken before
 * the hook, from modifiedRegion after it: a newer change inside it would
 * be lost. So no stock update mixes two frames, and a slow stock client
 * delays no one but itself. A client that asked for real scaling
 * (SetScale) reads LibVNCServer's scaled screen, which the source updates
 * under the write lock: its pass holds the read lock throughout.
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
#include "fingerprint/vg_beliefstore.h"
#include "fingerprint/vg_proto.h"
#include "fingerprint/vg_sender.h"
#include "segment2d/vg_differ.h"
#include "segment2d/vg_motion.h"
#include "segment2d/vg_segmenter.h"
#include "server/vg_authguard.h"
#include "server/vg_monitor.h"
#include "server/vg_segshare.h"
#include "server/vg_listener.h"
#include "server/vg_server.h"
#include "server/vg_serverkey.h"

struct vg_server {
	vg_server_config cfg;
	rfbScreenInfoPtr screen;
	vg_pixbuf *frame;         /* shared with LibVNCServer as frameBuffer */
	vg_listener *listener;    /* the accept path, in front of LibVNCServer */
	pthread_rwlock_t frame_lock;       /* written by the source; read by every send */
	uint64_t serial;          /* bumped by every write to the frame (under frame_lock) */
	uint64_t frame_ns;        /* when the frame last changed (under frame_lock) */
	sraRegion *scale_due;     /* marked under the write lock; scaled at its unlock */
	vg_segshare *share;       /* motion and segments of viewers in step */
	vg_monitor *monitor;      /* per-stage records; NULL: not kept */
	int varg_now;             /* Varg viewers connected (atomic) */
	uint8_t server_id[16];
	vg_serverkey *key;        /* holds the identity's slot; NULL: random */
	vg_beliefstore *beliefs;  /* NULL: beliefs die with the connection */
	int send_delay_ms;        /* testing aid: widens the request race */
	bool race_fix;            /* testing aid: off only to show the race */
	pthread_mutex_t stats_lock; /* stats and live_conns */
	pthread_cond_t conns_gone;
	unsigned live_conns;      /* vg_conn not yet freed; waited for at shutdown */
	vg_server_stats stats;
	char *passwords[3];       /* NULL-terminated, full access first */
	GPtrArray *old_frames;    /* vg_pixbuf: frames before a resize (see vg_server_resize) */
	uint64_t gone_bytes;      /* LibVNCServer's bytes to clients now gone */
	uint64_t gone_updates;
	bool shared_read;         /* testing aid: stock clients encode from the shared frame */
	pthread_mutex_t guard_lock;
	vg_authguard *guard;      /* failed passwords per address (under guard_lock) */
};

/* Per-client state, in cl->clientData. */
typedef struct {
	vg_server *server;
	bool varg;                /* the client listed VG_ENCODING */
	bool hello_sent;
	pthread_mutex_t lock;              /* sender: output thread vs input thread */
	vg_sender *sender;
	vg_pixbuf *snapshot;      /* private copy of the pixels being sent */
	vg_writer out;
	vg_region *repair;        /* asked for again: send as pixels (under lock) */
	GArray *rects;            /* vg_rect: the due region */
	GArray *todo;             /* vg_rect: what changed in it, and repairs */
	vg_differ *differ;        /* what the viewer was sent */
	vg_motion *motion;
	vg_segmenter *segmenter;
	GArray *shared_segs;      /* vg_segdesc: segments taken from the share */
	uint64_t snap_serial;     /* the frame the snapshot's due pixels come from */
	uint64_t snap_frame_ns;   /* ... and when it changed */
	/* Under the server's stats_lock: */
	uint64_t sent_bytes;      /* Varg bytes written to this viewer */
	uint64_t sent_updates;
	/* Under cl->updateMutex: */
	int credits;              /* requests not yet answered (update credits) */
	sraRegion *wanted;        /* what those requests asked for */
	bool ready;               /* VIEWER HELLO arrived: updates may go out */
	bool encoding;            /* a stock pass encodes from own_frame */
	sraRegion *late;          /* marked while it does: modified after it */
	/* On the output thread only (and in vg_server_resize, under sendMutex): */
	rfbScreenInfo *own_screen; /* stock clients: cl->scaledScreen, 1:1 over own_frame */
	vg_pixbuf *own_frame;     /* the frame as this stock client is sent it */
	bool reading;             /* this pass holds frame_lock for reading */
	bool lib_pass;            /* LibVNCServer sends its size marker now */
	int lib_sent;             /* its FramebufferUpdate count at the pass's start */
	int lib_bytes;            /* its byte count at the pass's start (stock clients) */
	uint64_t pass_ns;         /* when a stock pass started */
	uint64_t pass_frame_ns;   /* when the frame it reads changed */
	bool persist;             /* beliefs are saved under cache_id */
	uint8_t cache_id[16];
	uint64_t saved_ns;        /* when beliefs were last saved */
} vg_conn;

static int varg_encodings[] = { VG_ENCODING, 0 };

/* Exported by LibVNCServer 0.9.14 but not declared in its headers:
 * brings the copies kept for clients that asked for scaling up to date. */
void rfbScaledScreenUpdate(rfbScreenInfoPtr screen, int x1, int y1, int x2, int y2);

/* Movement estimation's strip width (its default, as in varg-trace ratio). */
#define MOTION_STRIP 64

/* Most updates a viewer may have in flight (doc/protocol.md): requests
 * beyond this are not counted, so a viewer cannot make us queue more. */
#define MAX_CREDITS 8

/* Results kept for viewers in step: two per update in flight is plenty
 * when viewers are in step; more only helps viewers that lag by several
 * frames, whose motion memories then rarely match anyway. */
#define SHARE_SLOTS 8

/* Updates whose stage times the monitor keeps (80 bytes each). */
#define MONITOR_RING 4096

void vg_server_config_init(vg_server_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->port = 5900;
	cfg->listen = "127.0.0.1";
	cfg->zlib_level = 6;
	cfg->zstd_level = VG_SENDER_ZSTD_LEVEL;
	cfg->fp_bits = VG_FP_BITS_DEFAULT;
	cfg->group_size = VG_GROUP_DEFAULT;
	cfg->desktop_name = "varg";
}

/* Varg sends pixels in the server's own format only; other formats fall
 * back to LibVNCServer's encoders, which translate. */
static bool format_is_native(const rfbPixelFormat *f)
{
	return f->bitsPerPixel == 32 && f->depth == 24 && f->trueColour &&
	       !f->bigEndian && f->redMax == 255 && f->greenMax == 255 &&
	       f->blueMax == 255 && f->redShift == 16 && f->greenShift == 8 &&
	       f->blueShift == 0;
}

/* Writes this viewer's beliefs to its file. Any thread; takes c->lock. */
static void save_beliefs(vg_conn *c, const char *host)
{
	vg_server *s = c->server;
	vg_writer w;
	int err;

	if (!c->persist || !s->beliefs)
		return;
	vg_writer_init(&w);
	pthread_mutex_lock(&c->lock);
	vg_sender_save_beliefs(c->sender, vg_beliefstore_max_file_bytes(s->beliefs), &w);
	pthread_mutex_unlock(&c->lock);
	if ((err = vg_beliefstore_write(s->beliefs, c->cache_id, w.data, w.len)))
		vg_warn("client %s: cannot save beliefs in %s: %s", host,
			vg_beliefstore_dir(s->beliefs), vg_strerror(err));
	c->saved_ns = vg_time_ns();
	vg_writer_clear(&w);
}

/* Loads what an earlier session with this viewer's cache left, right
 * after its HELLO set the budget. Caller holds c->lock. */
static void load_beliefs(vg_conn *c, const char *host)
{
	vg_server *s = c->server;
	vg_sender_stats st;
	uint8_t *data = NULL;
	size_t len = 0;
	int err;

	if (!s->beliefs || !vg_sender_persistent_id(c->sender, c->cache_id))
		return;
	c->persist = true;
	c->saved_ns = vg_time_ns();
	err = vg_beliefstore_read(s->beliefs, c->cache_id, &data, &len);
	if (err == VG_ENOENT)
		return;
	if (!err)
		err = vg_sender_load_beliefs(c->sender, data, len);
	g_free(data);
	if (err == VG_ENOENT) {
		vg_info("client %s: beliefs on disk are for another fingerprint width; starting cold",
			host);
	} else if (err == VG_ENOTSUP) {
		vg_info("client %s: beliefs on disk are in an older format; starting cold", host);
	} else if (err) {
		vg_warn("client %s: belief file in %s is unusable (%s); starting cold", host,
			vg_beliefstore_dir(s->beliefs), vg_strerror(err));
	} else {
		vg_sender_get_stats(c->sender, &st);
		vg_info("client %s: %" G_GUINT64_FORMAT " beliefs from earlier sessions, %" G_GUINT64_FORMAT
			" history items", host, st.beliefs_loaded, st.history_restored);
		pthread_mutex_lock(&s->stats_lock);
		s->stats.warm_viewers++;
		pthread_mutex_unlock(&s->stats_lock);
	}
}

/* The session's account: how often the viewer's cache disagreed. */
static void log_session(vg_conn *c, const char *host)
{
	vg_sender_stats st;

	vg_sender_get_stats(c->sender, &st);
	vg_info("client %s: Varg session ended: %" G_GUINT64_FORMAT " fingerprints, %"
		G_GUINT64_FORMAT " literal segments, %" G_GUINT64_FORMAT " repairs, miss rate %.2f %%, %"
		G_GUINT64_FORMAT " beliefs (%" G_GUINT64_FORMAT " from disk)%s", host,
		st.fingerprint_segments, st.literal_segments, st.repairs,
		st.fingerprint_segments ? 100.0 * (double)st.repairs / (double)st.fingerprint_segments : 0.0,
		st.beliefs, st.beliefs_loaded, c->persist ? ", saved" : "");
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
	g_array_free(c->rects, TRUE);
	g_array_free(c->todo, TRUE);
	vg_differ_free(c->differ);
	vg_motion_free(c->motion);
	vg_segmenter_free(c->segmenter);
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

static void account_gone(rfbClientPtr cl);

static void client_gone(rfbClientPtr cl)
{
	vg_conn *c = cl->clientData;

	if (c && c->varg && c->sender && vg_sender_has_viewer_hello(c->sender)) {
		save_beliefs(c, cl->host);
		log_session(c, cl->host);
	}
	account_gone(cl);
	/* LibVNCServer is done with cl->scaledScreen (it dropped its count
	 * before this hook); point it back at the screen before ours goes. */
	if (c && c->own_screen && cl->scaledScreen == c->own_screen)
		cl->scaledScreen = cl->screen;
	conn_free(cl->clientData);
	cl->clientData = NULL;
}

/* Called on the input thread before LibVNCServer applies a
 * FramebufferUpdateRequest (msg is in host order and clipped). For a Varg
 * viewer the request is one credit and is applied here, under sendMutex so
 * that it never lands while a send is in progress. The copy LibVNCServer
 * applies after this hook is moved to one pixel outside the framebuffer,
 * which no update region can intersect; the next pass removes it. */
static void request_hook(rfbClientPtr cl, rfbFramebufferUpdateRequestMsg *msg)
{
	vg_conn *c = cl->clientData;
	sraRegion *r;

	if (!c || !c->varg || !c->server->race_fix || !format_is_native(&cl->format))
		return;
	r = sraRgnCreateRect(msg->x, msg->y, msg->x + msg->w, msg->y + msg->h);
	LOCK(cl->sendMutex);
	LOCK(cl->updateMutex);
	if (c->credits < MAX_CREDITS)
		c->credits++;
	sraRgnOr(c->wanted, r);
	if (!msg->incremental) {
		sraRgnOr(cl->modifiedRegion, r);
		sraRgnSubtract(cl->copyRegion, r);
	}
	/* Before the VIEWER HELLO only the first request wakes the output
	 * thread (for the HELLO); the others wait in c->wanted. */
	if (c->ready || !c->hello_sent)
		sraRgnOr(cl->requestedRegion, r);
	TSIGNAL(cl->updateCond);
	UNLOCK(cl->updateMutex);
	UNLOCK(cl->sendMutex);
	sraRgnDestroy(r);
	msg->incremental = 1;
	msg->x = msg->y = UINT16_MAX;
	msg->w = msg->h = 1;
}

/* Seconds for which cl's address may not try a password (0: it may). */
static unsigned auth_blocked(vg_server *s, rfbClientPtr cl)
{
	unsigned secs;

	pthread_mutex_lock(&s->guard_lock);
	secs = vg_authguard_blocked_s(s->guard, cl->host, vg_time_ns());
	pthread_mutex_unlock(&s->guard_lock);
	return secs;
}

/* LibVNCServer's password check, behind the guard: an address that is
 * blocked fails even with the right password (connections opened before
 * the block must not go on guessing), and each result is recorded. */
static rfbBool check_password(rfbClientPtr cl, const char *response, int len)
{
	vg_server *s = cl->screen->screenData;
	unsigned secs = auth_blocked(s, cl);
	rfbBool ok;

	if (secs) {
		vg_warn("client %s: password refused unchecked: blocked for %u s more after failed passwords",
			cl->host, secs);
		return FALSE;
	}
	ok = rfbCheckPasswordByList(cl, response, len);
	pthread_mutex_lock(&s->guard_lock);
	if (ok)
		vg_authguard_succeeded(s->guard, cl->host);
	else
		secs = vg_authguard_failed(s->guard, cl->host, vg_time_ns());
	pthread_mutex_unlock(&s->guard_lock);
	if (!ok && secs)
		vg_warn("client %s: wrong password; this address is refused for %u s", cl->host, secs);
	else if (!ok)
		vg_warn("client %s: wrong password", cl->host);
	return ok;
}

static enum rfbNewClientAction new_client(rfbClientPtr cl)
{
	vg_server *s = cl->screen->screenData;
	vg_conn *c;
	unsigned secs;

	if (s->passwords[0] && (secs = auth_blocked(s, cl))) {
		vg_warn("client %s: refused: %u s left of its block after failed passwords", cl->host,
			secs);
		return RFB_CLIENT_REFUSE;
	}
	c = g_new0(vg_conn, 1);

	c->server = s;
	pthread_mutex_init(&c->lock, NULL);
	vg_writer_init(&c->out);
	c->rects = g_array_new(FALSE, FALSE, sizeof(vg_rect));
	c->todo = g_array_new(FALSE, FALSE, sizeof(vg_rect));
	c->shared_segs = g_array_new(FALSE, FALSE, sizeof(vg_segdesc));
	c->repair = vg_region_new();
	c->wanted = sraRgnCreate();
	c->late = sraRgnCreate();
	LOCK(cl->updateMutex);
	cl->clientData = c;
	UNLOCK(cl->updateMutex);
	cl->clientGoneHook = client_gone;
	cl->clientFramebufferUpdateRequestHook = request_hook;
	if (s->cfg.view_only)
		cl->viewOnly = TRUE;
	pthread_mutex_lock(&s->stats_lock);
	s->live_conns++;
	s->stats.clients_total++;
	pthread_mutex_unlock(&s->stats_lock);
	return RFB_CLIENT_ACCEPT;
}

static rfbBool enable_varg(rfbClientPtr cl, void **data, int encoding)
{
	vg_conn *c = cl->clientData;
	vg_server *s;
	vg_sender_config cfg;
	vg_segparams params;

	*data = NULL;
	if (encoding != VG_ENCODING || !c)
		return FALSE;
	if (c->varg)
		return TRUE;
	s = c->server;
	vg_sender_config_init(&cfg);
	cfg.zlib_level = s->cfg.zlib_level;
	cfg.zstd_level = s->cfg.zstd_level;
	cfg.fp_bits = s->cfg.fp_bits;
	cfg.group_size = s->cfg.group_size;
	cfg.no_persist = s->cfg.no_persist;
	memcpy(cfg.server_id, s->server_id, sizeof cfg.server_id);
	pthread_mutex_lock(&c->lock);
	vg_segparams_init(&params, VG_SEGMETHOD_VARG);
	if (vg_sender_new(&cfg, &c->sender) == 0 &&
	    vg_segmenter_new(&params, &c->segmenter) == 0 &&
	    vg_differ_new(s->frame->width, s->frame->height, 0, &c->differ) == 0 &&
	    vg_motion_new(s->frame->width, s->frame->height, MOTION_STRIP, 0, &c->motion) == 0) {
		c->snapshot = vg_pixbuf_new(s->frame->width, s->frame->height);
		c->varg = true;
	}
	pthread_mutex_unlock(&c->lock);
	if (!c->varg)
		return FALSE;
	g_atomic_int_inc(&s->varg_now);
	pthread_mutex_lock(&s->stats_lock);
	s->stats.varg_clients++;
	pthread_mutex_unlock(&s->stats_lock);
	return TRUE;
}

/* Marks a repaired region modified for this client alone and wakes its
 * output thread; the next update sends it as pixels. */
static void ask_again(rfbClientPtr cl, const vg_region *repair)
{
	vg_server *s = ((vg_conn *)cl->clientData)->server;
	sraRegion *rgn = sraRgnCreate();
	const vg_rect *rs;
	size_t i, n;

	rs = vg_region_rects(repair, &n);
	for (i = 0; i < n; i++) {
		sraRegion *one = sraRgnCreateRect(rs[i].x, rs[i].y, rs[i].x + rs[i].w, rs[i].y + rs[i].h);
		sraRgnOr(rgn, one);
		sraRgnDestroy(one);
	}
	LOCK(cl->updateMutex);
	sraRgnOr(cl->modifiedRegion, rgn);
	TSIGNAL(cl->updateCond);
	UNLOCK(cl->updateMutex);
	sraRgnDestroy(rgn);
	pthread_mutex_lock(&s->stats_lock);
	s->stats.repairs += n;
	pthread_mutex_unlock(&s->stats_lock);
}

/* The VIEWER HELLO arrived: hands the requests that waited for it back to
 * LibVNCServer's bookkeeping and wakes the output thread. On the input
 * thread; sendMutex keeps the region away from a send in progress. */
static void unpark(rfbClientPtr cl, vg_conn *c)
{
	LOCK(cl->sendMutex);
	LOCK(cl->updateMutex);
	c->ready = true;
	sraRgnOr(cl->requestedRegion, c->wanted);
	if (!c->server->race_fix)
		sraRgnMakeEmpty(c->wanted);
	TSIGNAL(cl->updateCond);
	UNLOCK(cl->updateMutex);
	UNLOCK(cl->sendMutex);
}

/* Writes the header of a Varg rectangle r and returns where its body
 * length goes (patched once the body is written). */
static size_t put_rect(vg_writer *w, vg_rect r)
{
	size_t len_at;

	vg_writer_u16be(w, (uint16_t)r.x);
	vg_writer_u16be(w, (uint16_t)r.y);
	vg_writer_u16be(w, (uint16_t)r.w);
	vg_writer_u16be(w, (uint16_t)r.h);
	vg_writer_u32be(w, (uint32_t)VG_ENCODING);
	len_at = w->len;
	vg_writer_u32be(w, 0);
	return len_at;
}

/* The start of a FramebufferUpdate holding one Varg rectangle r. */
static size_t begin_update(vg_writer *w, vg_rect r)
{
	vg_writer_u8(w, rfbFramebufferUpdate);
	vg_writer_u8(w, 0);
	vg_writer_u16be(w, 1);
	return put_rect(w, r);
}

/* Answers a PING at once, from the input thread, as an update of its own
 * holding one empty Varg rectangle. sendMutex keeps it whole between the
 * output thread's updates; nothing else is locked, so the lock order holds. */
static int send_pong(rfbClientPtr cl, uint32_t token)
{
	vg_writer w;
	size_t len_at;
	int n;

	vg_writer_init(&w);
	len_at = begin_update(&w, vg_rect_make(0, 0, 0, 0));
	vg_sender_pong(token, &w);
	vg_writer_patch_u32be(&w, len_at, (uint32_t)(w.len - len_at - 4));
	assert(w.len == 4 + 12 + 4 + VG_PING_LEN);
	LOCK(cl->sendMutex);
	n = rfbWriteExact(cl, (const char *)w.data, (int)w.len);
	UNLOCK(cl->sendMutex);
	vg_writer_clear(&w);
	return n < 0 ? VG_EIO : VG_OK;
}

/* Reads one Varg viewer message (the type byte is already read). */
static rfbBool handle_varg_message(rfbClientPtr cl, void *data, const rfbClientToServerMsg *msg)
{
	vg_conn *c = cl->clientData;
	uint8_t hdr[2], *body;
	vg_region *repair;
	bool had_hello, now_ready = false;
	uint32_t token;
	size_t len;
	bool ping;
	int err;

	(void)data;
	if (msg->type != VG_CLIENT_MSG || !c || !c->varg)
		return FALSE;
	if (rfbReadExact(cl, (char *)hdr, 2) <= 0) {
		rfbCloseClient(cl);
		return TRUE;
	}
	len = (size_t)hdr[0] << 8 | hdr[1];
	body = g_malloc(len ? len : 1);
	if (len && rfbReadExact(cl, (char *)body, (int)len) <= 0) {
		g_free(body);
		rfbCloseClient(cl);
		return TRUE;
	}
	repair = vg_region_new();
	pthread_mutex_lock(&c->lock);
	had_hello = vg_sender_has_viewer_hello(c->sender);
	err = vg_sender_handle(c->sender, body, len, c->server->frame->width,
			       c->server->frame->height, repair);
	vg_region_add_region(c->repair, repair);
	if (!err && !had_hello && vg_sender_has_viewer_hello(c->sender)) {
		load_beliefs(c, cl->host);
		now_ready = true;
	}
	ping = !err && vg_sender_take_ping(c->sender, &token);
	pthread_mutex_unlock(&c->lock);
	if (now_ready)
		unpark(cl, c);
	g_free(body);
	if (ping && send_pong(cl, token))
		err = VG_EIO;
	if (err) {
		vg_warn("client %s: bad Varg message (%s); closing", cl->host, vg_strerror(err));
		rfbCloseClient(cl);
	} else if (!vg_region_is_empty(repair)) {
		ask_again(cl, repair);
	}
	vg_region_free(repair);
	return TRUE;
}

static rfbProtocolExtension varg_extension = {
	.pseudoEncodings = varg_encodings,
	.enablePseudoEncoding = enable_varg,
	.handleMessage = handle_varg_message,
};

/* Takes (modified | copy) & requested from the client under its lock,
 * empties what LibVNCServer would look at and uses up one credit. Returns
 * NULL if nothing is due. */
static sraRegion *take_due_region(rfbClientPtr cl, vg_conn *c)
{
	sraRegion *due;

	LOCK(cl->updateMutex);
	due = sraRgnCreateRgn(cl->modifiedRegion);
	sraRgnOr(due, cl->copyRegion);
	sraRgnAnd(due, cl->requestedRegion);
	if (sraRgnEmpty(due)) {
		UNLOCK(cl->updateMutex);
		sraRgnDestroy(due);
		return NULL;
	}
	sraRgnSubtract(cl->modifiedRegion, due);
	sraRgnMakeEmpty(cl->requestedRegion);
	sraRgnMakeEmpty(cl->copyRegion);
	if (c->credits > 0)
		c->credits--;
	UNLOCK(cl->updateMutex);
	return due;
}

/* Lists the rectangles of due in c->rects and copies the pixels around
 * them from the frame to the client's snapshot: their bounding box,
 * widened to whole motion strips and segmenter columns, because movement
 * estimation reads whole strips and the segmenter widens to its columns
 * (rows, when it cuts bands). Caller holds frame_lock. */
static void snapshot_region(vg_conn *c, sraRegion *due)
{
	vg_server *s = c->server;
	sraRectangleIterator *it = sraRgnGetIterator(due);
	int32_t cw = vg_segmenter_params(c->segmenter)->column_width;
	vg_rect bounds = vg_rect_make(0, 0, 0, 0);
	int32_t x0, y0, x1, y1;
	sraRect sr;

	g_array_set_size(c->rects, 0);
	c->snap_serial = s->serial;
	c->snap_frame_ns = s->frame_ns;
	while (sraRgnIteratorNext(it, &sr)) {
		vg_rect r = vg_rect_intersect(vg_rect_make(sr.x1, sr.y1, sr.x2 - sr.x1, sr.y2 - sr.y1),
					      vg_pixbuf_rect(s->frame));

		if (vg_rect_is_empty(r))
			continue;
		g_array_append_val(c->rects, r);
		bounds = vg_rect_bounds(bounds, r);
	}
	sraRgnReleaseIterator(it);
	if (vg_rect_is_empty(bounds))
		return;
	x0 = bounds.x / MOTION_STRIP * MOTION_STRIP / cw * cw;
	y0 = bounds.y / MOTION_STRIP * MOTION_STRIP / cw * cw;
	x1 = bounds.x + bounds.w;
	y1 = bounds.y + bounds.h;
	x1 = ((x1 + MOTION_STRIP - 1) / MOTION_STRIP * MOTION_STRIP + cw - 1) / cw * cw;
	y1 = ((y1 + MOTION_STRIP - 1) / MOTION_STRIP * MOTION_STRIP + cw - 1) / cw * cw;
	vg_pixbuf_copy_rect(c->snapshot, s->frame,
			    vg_rect_intersect(vg_rect_make(x0, y0, x1 - x0, y1 - y0),
					      vg_pixbuf_rect(s->frame)));
}

/* The pipeline of varg-trace ratio, on the snapshot: the differ keeps what
 * changed of the due rectangles (LibVNCServer's region is cut into bands,
 * and its damage is often wider than the change), repairs are added as
 * they are, movement estimation picks the orientation and the segmenter
 * cuts. With other Varg viewers connected, movement estimation and
 * segmentation are taken from the share when a viewer in step has done
 * them for the same input (vg_segshare.h), and published for the others
 * otherwise. Stage times go to u. Caller holds c->lock (for c->repair). */
static int segment_due(vg_conn *c, vg_monitor_update *u, const vg_segdesc **segs,
		       size_t *n_segs)
{
	vg_server *s = c->server;
	const vg_rect *changed, *rs;
	size_t n_changed, n_repair, i, k;
	vg_segshare_claim *claim = NULL;
	vg_motion_result mr;
	vg_motion_dir dir;
	uint64_t t0, t1;
	int err;

	*n_segs = 0;
	*segs = NULL;
	t0 = vg_time_ns();
	if ((err = vg_differ_update(c->differ, c->snapshot, (const vg_rect *)c->rects->data,
				    c->rects->len, &changed, &n_changed)))
		return err;
	t1 = vg_time_ns();
	u->ns[VG_STAGE_DIFFER] = t1 - t0;
	g_array_set_size(c->todo, 0);
	g_array_append_vals(c->todo, changed, (guint)n_changed);
	rs = vg_region_rects(c->repair, &n_repair);
	for (i = 0; i < c->rects->len; i++)
		for (k = 0; k < n_repair; k++) {
			vg_rect r = vg_rect_intersect(g_array_index(c->rects, vg_rect, i), rs[k]);

			if (!vg_rect_is_empty(r))
				g_array_append_val(c->todo, r);
		}
	/* One viewer alone computes as it always did. A NULL list would
	 * make the estimator read the whole frame, beyond the snapshot. */
	if (s->share && changed && g_atomic_int_get(&s->varg_now) > 1) {
		vg_segshare_input in = { .serial = c->snap_serial,
					 .rects = (const vg_rect *)(void *)c->todo->data,
					 .n_rects = c->todo->len,
					 .n_changed = n_changed };

		if (vg_segshare_lookup(s->share, &in, c->motion, &dir, c->shared_segs, &claim) == VG_OK) {
			u->shared = true;
			*segs = (const vg_segdesc *)(void *)c->shared_segs->data;
			*n_segs = c->shared_segs->len;
			return VG_OK;
		}
	}
	t0 = vg_time_ns();
	if ((err = vg_motion_estimate(c->motion, c->snapshot, changed, n_changed, &mr)))
		goto out;
	t1 = vg_time_ns();
	u->ns[VG_STAGE_MOTION] = t1 - t0;
	dir = mr.dir;
	if (c->todo->len > 0)
		err = vg_segmenter_run(c->segmenter, c->snapshot,
				       (const vg_rect *)(void *)c->todo->data, c->todo->len,
				       dir == VG_MOTION_HORIZONTAL ? VG_ORIENT_COLS : VG_ORIENT_ROWS,
				       segs, n_segs);
	u->ns[VG_STAGE_SEGMENTER] = vg_time_ns() - t1;
out:
	if (claim && !err)
		vg_segshare_publish(s->share, claim, c->motion, dir, *segs, *n_segs);
	else
		vg_segshare_abandon(s->share, claim);
	return err;
}

/* Before the VIEWER HELLO: the first request is answered with the HELLO
 * alone, later ones wait (parked) until the viewer has answered, so that
 * the first segments are written knowing the beliefs of earlier sessions
 * with its cache. Returns true when this pass is done. On the output
 * thread with sendMutex held. */
static bool hello_first(rfbClientPtr cl, vg_conn *c)
{
	bool requested, write_hello = false;
	size_t len_at;

	pthread_mutex_lock(&c->lock);
	if (vg_sender_has_viewer_hello(c->sender)) {
		pthread_mutex_unlock(&c->lock);
		return false;
	}
	/* Take the request, so LibVNCServer does not answer it in its own
	 * encodings; the modified region stays for the first update. With
	 * credits the requests are in c->wanted already. */
	LOCK(cl->updateMutex);
	requested = !sraRgnEmpty(cl->requestedRegion);
	if (requested && c->hello_sent && !c->server->race_fix)
		sraRgnOr(c->wanted, cl->requestedRegion);
	sraRgnMakeEmpty(cl->requestedRegion);
	if (requested && !c->hello_sent && c->credits > 0)
		c->credits--;
	UNLOCK(cl->updateMutex);
	if (requested && !c->hello_sent) {
		vg_writer_reset(&c->out);
		len_at = begin_update(&c->out, vg_rect_make(0, 0, 0, 0));
		vg_sender_hello(c->sender, &c->out);
		vg_writer_patch_u32be(&c->out, len_at, (uint32_t)(c->out.len - len_at - 4));
		c->hello_sent = true;
		write_hello = true;
	}
	pthread_mutex_unlock(&c->lock);
	if (write_hello && rfbWriteExact(cl, (const char *)c->out.data, (int)c->out.len) < 0)
		rfbCloseClient(cl);
	return true;
}

/* Makes c->own_screen a 1:1 screen of the current frame's size and, the
 * first time, this client's cl->scaledScreen. Returns false if the client
 * reads another scaled screen (it asked for scaling). On the output thread
 * with sendMutex held, or in vg_server_resize with it held; caller holds
 * frame_lock. */
static bool own_screen_fit(rfbClientPtr cl, vg_conn *c)
{
	vg_server *s = c->server;
	rfbScreenInfo *own = c->own_screen;

	if (cl->scaledScreen != cl->screen && (!own || cl->scaledScreen != own))
		return false;
	if (!own) {
		own = c->own_screen = g_new0(rfbScreenInfo, 1);
		own->bitsPerPixel = cl->screen->bitsPerPixel;
		own->depth = cl->screen->depth;
		own->serverFormat = cl->screen->serverFormat;
	}
	if (!c->own_frame || c->own_frame->width != s->frame->width ||
	    c->own_frame->height != s->frame->height) {
		vg_pixbuf *frame = vg_pixbuf_new(s->frame->width, s->frame->height);

		if (!frame)
			return false;
		/* The whole screen is modified after a resize: no need to
		 * fill the new copy here. */
		vg_pixbuf_free(c->own_frame);
		c->own_frame = frame;
		own->width = frame->width;
		own->height = frame->height;
		own->paddedWidthInBytes = frame->stride * 4;
		own->frameBuffer = (char *)frame->pixels;
	}
	if (cl->scaledScreen != own) {
		/* As rfbScalingSetup switches screens, but without its
		 * reference counts: LibVNCServer reads them only for the
		 * scaled copies it lists after the main screen, and the main
		 * screen's count is shared by every client's thread. */
		LOCK(cl->updateMutex);
		cl->scaledScreen = own;
		UNLOCK(cl->updateMutex);
	}
	return true;
}

/* A stock client's pass begins: its modified region is copied from the
 * frame into its own, and changes from now until the finished hook are
 * kept in c->late. The region LibVNCServer will send was taken from
 * modifiedRegion before this hook and lies inside it. On the output
 * thread with sendMutex held. */
static void stock_begin(rfbClientPtr cl, vg_conn *c)
{
	vg_server *s = c->server;
	sraRectangleIterator *it;
	sraRegion *due;
	sraRect sr;

	pthread_rwlock_rdlock(&s->frame_lock);
	if (s->monitor) {
		c->pass_ns = vg_time_ns();
		c->pass_frame_ns = s->frame_ns;
		c->lib_sent = rfbStatGetMessageCountSent(cl, rfbFramebufferUpdate);
		c->lib_bytes = rfbStatGetSentBytes(cl);
	}
	if (s->shared_read || !own_screen_fit(cl, c)) {
		/* Encoders read a frame the source writes: hold the read
		 * lock until the finished hook. */
		c->reading = true;
		return;
	}
	LOCK(cl->updateMutex);
	due = sraRgnCreateRgn(cl->modifiedRegion);
	c->encoding = true;
	UNLOCK(cl->updateMutex);
	it = sraRgnGetIterator(due);
	while (sraRgnIteratorNext(it, &sr)) {
		vg_rect r = vg_rect_intersect(vg_rect_make(sr.x1, sr.y1, sr.x2 - sr.x1, sr.y2 - sr.y1),
					      vg_pixbuf_rect(s->frame));

		if (!vg_rect_is_empty(r))
			vg_pixbuf_copy_rect(c->own_frame, s->frame, r);
	}
	sraRgnReleaseIterator(it);
	pthread_rwlock_unlock(&s->frame_lock);
	sraRgnDestroy(due);
}

/* First statement of rfbSendFramebufferUpdate, on the client's output
 * thread with sendMutex held. */
static void display_hook(rfbClientPtr cl)
{
	vg_conn *c = cl->clientData;
	vg_server *s;
	sraRegion *due;
	vg_rect bounds = vg_rect_make(0, 0, 0, 0);
	const vg_segdesc *segs;
	vg_sender_stats before, after;
	vg_monitor_update u;
	size_t n_segs, len_at, body_at, i;
	uint64_t t0, t1;
	int err;

	if (!c)
		return;
	s = c->server;
	if (!c->varg || !format_is_native(&cl->format)) {
		stock_begin(cl, c);
		return;
	}
	c->lib_sent = rfbStatGetMessageCountSent(cl, rfbFramebufferUpdate);
	/* LibVNCServer's pass that only carries a desktop-size marker. */
	c->lib_pass = cl->useNewFBSize && cl->newFBSizePending;
	if (c->lib_pass)
		return;
	if (hello_first(cl, c))
		return;
	memset(&u, 0, sizeof u);
	pthread_rwlock_rdlock(&s->frame_lock);
	due = take_due_region(cl, c);
	if (!due) {
		pthread_rwlock_unlock(&s->frame_lock);
		return;
	}
	t0 = vg_time_ns();
	snapshot_region(c, due);
	u.ns[VG_STAGE_SNAPSHOT] = vg_time_ns() - t0;
	pthread_rwlock_unlock(&s->frame_lock);
	sraRgnDestroy(due);

	pthread_mutex_lock(&c->lock);
	if ((err = segment_due(c, &u, &segs, &n_segs))) {
		pthread_mutex_unlock(&c->lock);
		vg_error("client %s: cannot segment update: %s", cl->host, vg_strerror(err));
		rfbCloseClient(cl);
		return;
	}
	/* An update with nothing changed still goes out (empty): the request
	 * it answers is used up, and the viewer asks again on each update. */
	for (i = 0; i < n_segs; i++)
		bounds = vg_rect_bounds(bounds, segs[i].rect);
	vg_writer_reset(&c->out);
	/* The restored history is announced before the first UPDATE, as a
	 * rectangle of the same FramebufferUpdate. */
	len_at = begin_update(&c->out, vg_rect_make(0, 0, 0, 0));
	if (vg_sender_take_history(c->sender, &c->out)) {
		vg_writer_patch_u32be(&c->out, len_at, (uint32_t)(c->out.len - len_at - 4));
		c->out.data[3] = 2;
		len_at = put_rect(&c->out, bounds);
	} else {
		vg_writer_reset(&c->out);
		len_at = begin_update(&c->out, bounds);
	}
	body_at = c->out.len;
	vg_sender_get_stats(c->sender, &before);
	t0 = vg_time_ns();
	err = vg_sender_update(c->sender, c->snapshot, segs, n_segs, c->repair, &c->out);
	u.ns[VG_STAGE_SENDER] = vg_time_ns() - t0;
	if (err == 0) {
		vg_writer_patch_u32be(&c->out, len_at, (uint32_t)(c->out.len - body_at));
		/* What this update covered is repaired; repairs that arrived
		 * since the region was taken stay for the next one. */
		for (i = 0; i < c->rects->len; i++)
			vg_region_subtract(c->repair, g_array_index(c->rects, vg_rect, i));
	}
	vg_sender_get_stats(c->sender, &after);
	pthread_mutex_unlock(&c->lock);
	if (err) {
		vg_error("client %s: cannot encode update: %s", cl->host, vg_strerror(err));
		rfbCloseClient(cl);
		return;
	}
	t0 = vg_time_ns();
	if (rfbWriteExact(cl, (const char *)c->out.data, (int)c->out.len) < 0) {
		rfbCloseClient(cl);
		return;
	}
	t1 = vg_time_ns();
	if (s->monitor) {
		u.ns[VG_STAGE_WRITE] = t1 - t0;
		u.ns[VG_STAGE_LATENCY] = t1 > c->snap_frame_ns ? t1 - c->snap_frame_ns : 0;
		u.sent_bytes = c->out.len;
		for (i = 0; i < c->rects->len; i++) {
			vg_rect r = g_array_index(c->rects, vg_rect, i);

			u.raw_bytes += 4 * (uint64_t)r.w * (uint64_t)r.h;
		}
		vg_monitor_record(s->monitor, &u);
	}
	pthread_mutex_lock(&s->stats_lock);
	c->sent_bytes += c->out.len;
	c->sent_updates++;
	if (u.shared)
		s->stats.shared_updates++;
	s->stats.varg_updates++;
	s->stats.varg_bytes += c->out.len;
	s->stats.fingerprints += after.fingerprint_segments - before.fingerprint_segments;
	s->stats.literals += after.literal_segments - before.literal_segments;
	pthread_mutex_unlock(&s->stats_lock);
	/* Also while connected: a server that dies keeps most of what it knew. */
	if (c->persist && vg_time_ns() - c->saved_ns > (uint64_t)s->cfg.beliefs_save_s * 1000000000u)
		save_beliefs(c, cl->host);
	if (s->send_delay_ms)
		g_usleep((gulong)s->send_delay_ms * 1000);
}

/* Last statement of every path of rfbSendFramebufferUpdate, on the same
 * thread, still under sendMutex. A LibVNCServer update sent to a Varg
 * viewer in this pass (its size marker, its first pseudo-rectangles) also
 * answered a request, so it uses up a credit. Then requestedRegion holds
 * exactly what the remaining credits ask for: the output thread sends the
 * next change without waiting for the viewer. */
static void display_finished_hook(rfbClientPtr cl, int result)
{
	vg_conn *c = cl->clientData;

	(void)result;
	if (!c)
		return;
	if (c->reading) {
		c->reading = false;
		pthread_rwlock_unlock(&c->server->frame_lock);
	}
	/* A stock client's pass (pass_ns is set only for those). */
	if (c->pass_ns) {
		if (c->server->monitor &&
		    rfbStatGetMessageCountSent(cl, rfbFramebufferUpdate) != c->lib_sent) {
			vg_monitor_update u = { .stock = true };
			uint64_t now = vg_time_ns();

			u.ns[VG_STAGE_WRITE] = now - c->pass_ns;
			u.ns[VG_STAGE_LATENCY] = now > c->pass_frame_ns ? now - c->pass_frame_ns : 0;
			u.sent_bytes = (uint64_t)(rfbStatGetSentBytes(cl) - c->lib_bytes);
			vg_monitor_record(c->server->monitor, &u);
		}
		c->pass_ns = 0;
	}
	if (c->encoding) {
		LOCK(cl->updateMutex);
		c->encoding = false;
		if (!sraRgnEmpty(c->late)) {
			sraRgnOr(cl->modifiedRegion, c->late);
			sraRgnMakeEmpty(c->late);
			TSIGNAL(cl->updateCond);
		}
		UNLOCK(cl->updateMutex);
	}
	if (!c->varg || !c->server->race_fix || !format_is_native(&cl->format))
		return;
	LOCK(cl->updateMutex);
	if ((c->lib_pass || rfbStatGetMessageCountSent(cl, rfbFramebufferUpdate) != c->lib_sent) &&
	    c->credits > 0)
		c->credits--;
	sraRgnMakeEmpty(cl->requestedRegion);
	if (c->credits == 0)
		sraRgnMakeEmpty(c->wanted);
	else if (c->ready)
		sraRgnOr(cl->requestedRegion, c->wanted);
	UNLOCK(cl->updateMutex);
	c->lib_pass = false;
}

/* ---- The desktop: input, clipboard, cursor, size, authentication ---- */

static void on_pointer(int mask, int x, int y, rfbClientPtr cl)
{
	vg_server *s = cl->screen->screenData;

	/* Not rfbDefaultPtrAddEvent: it would move screen->cursorX/Y, which
	 * are kept off the screen (see setup_desktop). */
	if (s->cfg.input.pointer)
		s->cfg.input.pointer(s->cfg.input.user, x, y, (uint8_t)mask);
}

static void on_key(rfbBool down, rfbKeySym keysym, rfbClientPtr cl)
{
	vg_server *s = cl->screen->screenData;

	if (s->cfg.input.key)
		s->cfg.input.key(s->cfg.input.user, (uint32_t)keysym, down != FALSE);
}

/* Plain RFB cut text is Latin-1. */
static void on_cut_text(char *str, int len, rfbClientPtr cl)
{
	vg_server *s = cl->screen->screenData;
	g_autofree char *utf8 = NULL;
	gsize n = 0;

	if (!s->cfg.input.cut_text || len < 0)
		return;
	utf8 = g_convert(str, len, "UTF-8", "ISO-8859-1", NULL, &n, NULL);
	if (utf8)
		s->cfg.input.cut_text(s->cfg.input.user, utf8, n);
}

static void on_cut_text_utf8(char *str, int len, rfbClientPtr cl)
{
	vg_server *s = cl->screen->screenData;

	if (s->cfg.input.cut_text && len >= 0 && g_utf8_validate(str, len, NULL))
		s->cfg.input.cut_text(s->cfg.input.user, str, (size_t)len);
}

/* Called by new_screen before the server starts. */
static void setup_desktop(vg_server *s, rfbScreenInfoPtr screen)
{
	int n = 0;

	screen->ptrAddEvent = on_pointer;
	screen->kbdAddEvent = on_key;
	if (!s->cfg.no_clipboard) {
		screen->setXCutText = on_cut_text;
		screen->setXCutTextUTF8 = on_cut_text_utf8;
	}
	/* LibVNCServer paints the cursor into the shared framebuffer for
	 * clients that do not take cursor shapes (rfbShowCursor, at
	 * screen->cursorX/Y); with the position far off the screen it
	 * paints nothing. Clients that take shapes get them. */
	screen->cursorX = screen->cursorY = -0x4000;
	if (s->cfg.password)
		s->passwords[n++] = g_strdup(s->cfg.password);
	if (s->cfg.view_password)
		s->passwords[n++] = g_strdup(s->cfg.view_password);
	if (n) {
		screen->authPasswdData = s->passwords;
		screen->passwordCheck = check_password;
		screen->authPasswdFirstViewOnly = s->cfg.password ? 1 : 0;
	}
}

/* Adds a leaving client's LibVNCServer counts to the totals. */
static void account_gone(rfbClientPtr cl)
{
	vg_server *s = cl->screen->screenData;

	pthread_mutex_lock(&s->stats_lock);
	s->gone_bytes += (uint64_t)rfbStatGetSentBytes(cl);
	s->gone_updates += (uint64_t)rfbStatGetMessageCountSent(cl, rfbFramebufferUpdate);
	pthread_mutex_unlock(&s->stats_lock);
}

int vg_server_set_cursor(vg_server *s, const vg_server_cursor *cur)
{
	rfbCursorPtr c;
	int32_t x, y, row_bytes;

	if (cur->width < 1 || cur->height < 1 || cur->width > 256 || cur->height > 256 ||
	    cur->hot_x < 0 || cur->hot_y < 0 || cur->hot_x >= cur->width || cur->hot_y >= cur->height)
		return VG_EINVAL;
	row_bytes = (cur->width + 7) / 8;
	/* malloc, not g_malloc: LibVNCServer frees these (cleanup flags). */
	c = calloc(1, sizeof *c);
	c->width = (unsigned short)cur->width;
	c->height = (unsigned short)cur->height;
	c->xhot = (unsigned short)cur->hot_x;
	c->yhot = (unsigned short)cur->hot_y;
	c->richSource = calloc((size_t)cur->width * (size_t)cur->height, 4);
	c->mask = calloc((size_t)row_bytes * (size_t)cur->height, 1);
	c->cleanup = c->cleanupMask = c->cleanupRichSource = TRUE;
	for (y = 0; y < cur->height; y++)
		for (x = 0; x < cur->width; x++) {
			uint32_t p = cur->pixels[(size_t)y * (size_t)cur->width + (size_t)x];
			uint32_t a = p >> 24, r = p >> 16 & 0xff, g = p >> 8 & 0xff, b = p & 0xff;

			/* RFB cursors have a 1-bit mask: opaque from half alpha,
			 * colours taken back out of premultiplication. */
			if (a < 0x80)
				continue;
			if (a < 0xff) {
				r = MIN(255u, r * 255 / a);
				g = MIN(255u, g * 255 / a);
				b = MIN(255u, b * 255 / a);
			}
			((uint32_t *)(void *)c->richSource)[(size_t)y * (size_t)cur->width + (size_t)x] =
				r << 16 | g << 8 | b;
			c->mask[(size_t)y * (size_t)row_bytes + (size_t)x / 8] |= (uint8_t)(0x80u >> (x % 8));
		}
	/* For clients that only take two-colour X cursors. */
	rfbMakeXCursorFromRichCursor(s->screen, c);
	rfbSetCursor(s->screen, c);
	return VG_OK;
}

void vg_server_cut_text(vg_server *s, const char *utf8, size_t len)
{
	g_autofree char *latin1 = NULL;
	g_autofree char *copy = NULL;
	gsize n = 0;

	if (s->cfg.no_clipboard || len > INT_MAX / 2)
		return;
	latin1 = g_convert_with_fallback(utf8, (gssize)len, "ISO-8859-1", "UTF-8", "?", NULL, &n, NULL);
	copy = g_malloc(len + 1);
	memcpy(copy, utf8, len);
	if (!latin1)
		latin1 = g_strdup("");
	rfbSendServerCutTextUTF8(s->screen, copy, (int)len, latin1, (int)n);
}

/* A new picture for one Varg viewer at the new size: its differ, movement
 * estimator and snapshot start from nothing, pending repairs (in old
 * coordinates) are dropped. The sender keeps its beliefs:
 * segments are named by content, not place. Caller holds the client's
 * sendMutex and frame_lock. */
static void reset_conn(vg_conn *c, int32_t width, int32_t height)
{
	vg_differ *differ = NULL;
	vg_motion *motion = NULL;

	pthread_mutex_lock(&c->lock);
	if (c->varg && vg_differ_new(width, height, 0, &differ) == 0 &&
	    vg_motion_new(width, height, MOTION_STRIP, 0, &motion) == 0) {
		vg_differ_free(c->differ);
		vg_motion_free(c->motion);
		vg_pixbuf_free(c->snapshot);
		c->differ = differ;
		c->motion = motion;
		c->snapshot = vg_pixbuf_new(width, height);
		vg_region_free(c->repair);
		c->repair = vg_region_new();
	} else if (c->varg) {
		vg_differ_free(differ);
		vg_motion_free(motion);
		/* Without state at the new size the viewer gets stock
		 * encodings from now on. */
		c->varg = false;
		g_atomic_int_dec_and_test(&c->server->varg_now);
	}
	pthread_mutex_unlock(&c->lock);
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
			reset_conn(fresh, width, height);
			if (fresh->own_screen)
				own_screen_fit(cl, fresh);
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
	screen->cursor = NULL;  /* never paint a cursor into the frame */
	screen->newClientHook = new_client;
	screen->displayHook = display_hook;
	screen->displayFinishedHook = display_finished_hook;
	setup_desktop(s, screen);
	/* No listener of LibVNCServer's own: vg_listener accepts. */
	screen->autoPort = FALSE;
	screen->port = 0;
	screen->ipv6port = 0;
	rfbInitServer(screen);
	return screen;
}

int vg_server_new(const vg_server_config *cfg, int32_t width, int32_t height, vg_server **out)
{
	static gsize ext_registered;
	vg_server *s;
	in_addr_t addr;
	const char *env;

	if (width < 1 || height < 1 || width > 8192 || height > 8192)
		return VG_EINVAL;
	if (inet_pton(AF_INET, cfg->listen ? cfg->listen : "127.0.0.1", &addr) != 1)
		return VG_EINVAL;
	if (g_once_init_enter(&ext_registered)) {
		rfbRegisterProtocolExtension(&varg_extension);
		g_once_init_leave(&ext_registered, 1);
	}
	if (!cfg->verbose)
		rfbLog = rfbErr = log_quiet;

	s = g_new0(vg_server, 1);
	s->cfg = *cfg;
	s->race_fix = true;
	if ((env = g_getenv("VARG_TEST_SEND_DELAY_MS")))
		s->send_delay_ms = atoi(env);
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
	/* Testing aid: VARG_TEST_NO_MONITOR=1 measures the server without
	 * its monitor, VARG_TEST_NO_SHARE=1 without shared segmentation. */
	if ((!((env = g_getenv("VARG_TEST_NO_SHARE")) && *env == '1') &&
	     vg_segshare_new(SHARE_SLOTS, &s->share)) ||
	    (!((env = g_getenv("VARG_TEST_NO_MONITOR")) && *env == '1') &&
	     vg_monitor_new(MONITOR_RING, &s->monitor))) {
		vg_server_free(s);
		return VG_EINVAL;
	}

	{
		vg_listener_config lc = { .addr = addr, .port = cfg->port, .handover_cb = hand_over,
					  .user = s };

		if (vg_listener_new(&lc, &s->listener)) {
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
		vg_server_free(s);
		return VG_EIO;
	}
	*out = s;
	return VG_OK;
}

void vg_server_free(vg_server *s)
{
	struct timespec until;

	if (!s)
		return;
	/* No handover may be under way while LibVNCServer shuts down. */
	vg_listener_free(s->listener);
	if (s->screen) {
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

size_t vg_server_list_viewers(vg_server *s, vg_server_viewer *out, size_t cap)
{
	rfbClientIteratorPtr it = rfbGetClientIterator(s->screen);
	rfbClientPtr cl;
	size_t n = 0;

	while (n < cap && (cl = rfbClientIteratorNext(it))) {
		vg_server_viewer *v = &out[n];
		vg_conn *c;

		LOCK(cl->updateMutex);
		c = cl->clientData;
		UNLOCK(cl->updateMutex);

		if (cl->state != RFB_NORMAL || !c)
			continue;
		memset(v, 0, sizeof *v);
		g_strlcpy(v->host, cl->host ? cl->host : "?", sizeof v->host);
		pthread_mutex_lock(&c->lock);
		v->varg = c->varg && c->sender && format_is_native(&cl->format);
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
		n++;
	}
	rfbReleaseClientIterator(it);
	return n;
}
