/* A Varg viewer's updates. LibVNCServer cannot plug a new encoding into
 * its sender, so for a Varg client the display hook, which runs first
 * thing in rfbSendFramebufferUpdate on the client's output thread, takes
 * the pending region, empties the client's requested region and writes a
 * Varg update itself (vg_vargclient_pass); LibVNCServer then finds nothing
 * requested and sends nothing. The update itself is the pipeline's
 * (pipeline/vg_pipeline.h, the one varg-trace ratio measures): differ,
 * movement estimation and segmentation (shared with viewers in step,
 * vg_segshare), then the client's vg_sender; this file adds what is the
 * server's own: the snapshot of the due pixels under the frame lock,
 * the share, progressive refinement, the framing and the socket. It
 * also reads the viewer's Varg messages (HELLO, REPAIR, PING), keeps its
 * beliefs across sessions, and keeps the update credits.
 *
 * Update credits: a Varg viewer keeps several update requests in flight;
 * the request hook counts each as one credit and the server may send one
 * update per credit without waiting for the next request, never more. The
 * hook applies the request itself while holding sendMutex, so no request
 * ever reaches requestedRegion while a send is in progress (LibVNCServer
 * would answer it from its stale copy of the region in its own encoding),
 * and moves the copy LibVNCServer applies after the hook outside the
 * framebuffer, where it can never meet a modified pixel. After each pass
 * vg_vargclient_pass_end re-arms requestedRegion while credits remain.
 */
#include <assert.h>
#include <glib.h>
#include <rfb/rfb.h>
#include <rfb/rfbregion.h>
#include <inttypes.h>
#include <pthread.h>
#include <string.h>

#include "common/vg_cursor.h"
#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "common/vg_writer.h"
#include "fingerprint/codec/vg_approx.h"
#include "fingerprint/codec/vg_pixmodel.h"
#include "fingerprint/cache/vg_beliefstore.h"
#include "fingerprint/proto/vg_cursorlist.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/proto/vg_sender.h"
#include "pipeline/vg_pipeline.h"
#include "server/vg_monitor.h"
#include "server/vg_refine.h"
#include "server/vg_screen.h"
#include "server/vg_segshare.h"
#include "server/vg_vargclient.h"

/* Most updates a viewer may have in flight (doc/protocol.md): requests
 * beyond this are not counted, so a viewer cannot make us queue more. */
#define MAX_CREDITS 8

/* A Varg viewer's state; every client has one, which is a Varg viewer's
 * once it lists VG_ENCODING (c->varg). */
struct vg_vargclient {
	vg_screen *screen;
	bool varg;                /* the client listed VG_ENCODING */
	bool hello_sent;
	pthread_mutex_t lock;              /* sender: output thread vs input thread */
	/* Under lock: capabilities announced ahead of the VIEWER HELLO. */
	uint8_t caps[VG_CAPS_COUNT];
	unsigned caps_seen;       /* bit i: caps[i] arrived */
	bool hello_ahead;         /* the HELLO rides in the first update's message */
	int zstd_level;           /* of this viewer's streams (zstd_level_for) */
	vg_sender *sender;
	vg_pixbuf *snapshot;      /* private copy of the pixels being sent */
	vg_writer out;
	vg_region *repair;        /* asked for again: send as pixels (under lock) */
	vg_region *approximate;   /* sent approximately, or left for later by a banded
				   * update: exact pixels owed (under lock) */
	vg_refine *refine;        /* when to approximate (under lock) */
	GArray *exact_segs;       /* vg_segdesc: an approximating update's exact part */
	GArray *approx_rects;     /* vg_rect: ... and what it approximates */
	GArray *deferred;         /* vg_rect: missed segments a banded update leaves
				   * for the next passes */
	GArray *runs;             /* vg_rect: scratch, rectangles merged into runs
				   * (vg_rects_coalesce) before they meet a region */
	uint64_t banded;          /* updates that left some for later (under lock) */
	uint64_t banded_px;       /* ... and the missed pixels they left */
	vg_region *refined;       /* this pass's share of the refinement (under lock) */
	bool refining;            /* this pass may approximate (under lock) */
	GArray *rects;            /* vg_rect: the due region */
	vg_pipeline *pipe;        /* differ (what the viewer was sent) to sender */
	GArray *shared_segs;      /* vg_segdesc: segments taken from the share */
	uint64_t snap_serial;     /* the frame the snapshot's due pixels come from */
	uint64_t snap_frame_ns;   /* ... and when it changed */
	/* Under the screen's stats lock: */
	uint64_t sent_bytes;      /* Varg bytes written to this viewer */
	uint64_t sent_updates;
	/* Under cl->updateMutex: */
	int credits;              /* requests not yet answered (update credits) */
	sraRegion *wanted;        /* what those requests asked for */
	bool ready;               /* VIEWER HELLO arrived: updates may go out */
	/* On the output thread only: */
	bool lib_pass;            /* LibVNCServer sends its size marker now */
	int lib_sent;             /* its FramebufferUpdate count at the pass's start */
	/* Under lock: */
	bool persist;             /* beliefs are saved under cache_id */
	uint8_t cache_id[16];
	uint64_t saved_ns;        /* when beliefs were last saved */
	/* The pointer's shape as CURSOR messages, for a viewer that listed
	 * VG_CURSOR_ENCODING (cursors, set under lock); the rest on the
	 * output thread only. */
	bool cursors;
	vg_cursorlist *cursor_list;
	uint64_t cursor_sent;     /* the screen's count of shapes when last sent */
	uint32_t *cursor_buf;     /* VG_CURSOR_MAX_DIM squared pixels */
	vg_writer cursor_body;    /* a CURSOR for this pass; empty: none */
};

static int varg_encodings[] = { VG_ENCODING, 0 };

/* Varg sends pixels in the server's own format only; other formats fall
 * back to LibVNCServer's encoders, which translate. */
static bool format_is_native(const rfbPixelFormat *f)
{
	return f->bitsPerPixel == 32 && f->depth == 24 && f->trueColour &&
	       !f->bigEndian && f->redMax == 255 && f->greenMax == 255 &&
	       f->blueMax == 255 && f->redShift == 16 && f->greenShift == 8 &&
	       f->blueShift == 0;
}

/* cl's state here, from the core's; NULL before the new-client hook. */
static vg_vargclient *conn_of(rfbClientPtr cl)
{
	vg_client *k = cl->clientData;

	return k ? k->varg : NULL;
}

/* The socket that crosses the network, for TCP_INFO: behind the TLS
 * gate cl->sock is the plain end of a socketpair. */
static int path_fd_of(rfbClientPtr cl)
{
	vg_client *k = cl->clientData;

	return k && k->path_fd >= 0 ? k->path_fd : cl->sock;
}

vg_vargclient *vg_vargclient_new(vg_screen *scr)
{
	vg_vargclient *c = g_new0(vg_vargclient, 1);

	c->screen = scr;
	pthread_mutex_init(&c->lock, NULL);
	vg_writer_init(&c->out);
	vg_writer_init(&c->cursor_body);
	c->rects = g_array_new(FALSE, FALSE, sizeof(vg_rect));
	c->shared_segs = g_array_new(FALSE, FALSE, sizeof(vg_segdesc));
	c->repair = vg_region_new();
	c->approximate = vg_region_new();
	c->exact_segs = g_array_new(FALSE, FALSE, sizeof(vg_segdesc));
	c->approx_rects = g_array_new(FALSE, FALSE, sizeof(vg_rect));
	c->deferred = g_array_new(FALSE, FALSE, sizeof(vg_rect));
	c->runs = g_array_new(FALSE, FALSE, sizeof(vg_rect));
	c->refined = vg_region_new();
	c->wanted = sraRgnCreate();
	return c;
}

void vg_vargclient_free(vg_vargclient *c)
{
	if (!c)
		return;
	sraRgnDestroy(c->wanted);
	vg_sender_free(c->sender);
	vg_pixbuf_free(c->snapshot);
	vg_writer_clear(&c->out);
	vg_writer_clear(&c->cursor_body);
	vg_cursorlist_free(c->cursor_list);
	g_free(c->cursor_buf);
	vg_region_free(c->repair);
	vg_region_free(c->approximate);
	vg_refine_free(c->refine);
	g_array_free(c->exact_segs, TRUE);
	g_array_free(c->approx_rects, TRUE);
	g_array_free(c->deferred, TRUE);
	g_array_free(c->runs, TRUE);
	vg_region_free(c->refined);
	g_array_free(c->rects, TRUE);
	vg_pipeline_free(c->pipe);
	g_array_free(c->shared_segs, TRUE);
	if (c->varg)
		vg_screen_varg_left(c->screen);
	pthread_mutex_destroy(&c->lock);
	g_free(c);
}

bool vg_vargclient_takes_pass(rfbClientPtr cl, const vg_vargclient *c)
{
	return c->varg && format_is_native(&cl->format);
}

/* Loads what an earlier session with this viewer's cache left, right
 * after its HELLO set the budget. Caller holds c->lock. */
static void load_beliefs(vg_vargclient *c, const char *host)
{
	vg_screen *s = c->screen;
	vg_beliefstore *beliefs = vg_screen_beliefs(s);
	vg_sender_stats st;
	uint8_t *data = NULL;
	size_t len = 0;
	int err;

	if (!beliefs || !vg_sender_persistent_id(c->sender, c->cache_id))
		return;
	c->persist = true;
	c->saved_ns = vg_time_ns();
	/* Coded ahead of the VIEWER HELLO, the beliefs on disk go below
	 * those of the updates sent since. */
	err = vg_beliefstore_read(beliefs, c->cache_id, &data, &len);
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
			vg_beliefstore_dir(beliefs), vg_strerror(err));
	} else {
		vg_sender_get_stats(c->sender, &st);
		vg_info("client %s: %" G_GUINT64_FORMAT " beliefs from earlier sessions, %" G_GUINT64_FORMAT
			" history items", host, st.beliefs_loaded, st.history_restored);
		vg_screen_stats_lock(s)->kept.warm_viewers++;
		vg_screen_stats_unlock(s);
	}
}

/* Writes this viewer's beliefs to its file. Any thread; takes c->lock. */
static void save_beliefs(vg_vargclient *c, const char *host)
{
	vg_beliefstore *beliefs = vg_screen_beliefs(c->screen);
	uint8_t id[sizeof c->cache_id];
	vg_writer w;
	bool persist;
	int err;

	vg_writer_init(&w);
	/* The VIEWER HELLO may be arriving right now (coded ahead). */
	pthread_mutex_lock(&c->lock);
	persist = c->persist && beliefs;
	if (persist) {
		vg_sender_save_beliefs(c->sender, vg_beliefstore_max_file_bytes(beliefs), &w);
		memcpy(id, c->cache_id, sizeof id);
		c->saved_ns = vg_time_ns();
	}
	pthread_mutex_unlock(&c->lock);
	if (persist && (err = vg_beliefstore_write(beliefs, id, w.data, w.len)))
		vg_warn("client %s: cannot save beliefs in %s: %s", host,
			vg_beliefstore_dir(beliefs), vg_strerror(err));
	vg_writer_clear(&w);
}

/* The session's account: how often the viewer's cache disagreed. */
static void log_session(vg_vargclient *c, const char *host)
{
	vg_sender_stats st;
	vg_pixcost pc;
	char model[80] = "";

	vg_sender_get_stats(c->sender, &st);
	vg_sender_get_pixcost(c->sender, &pc);
	if (st.model_updates)
		snprintf(model, sizeof model, ", pixels of %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
			 " updates by the pixel model", st.model_updates, st.literal_updates);
	vg_info("client %s: Varg session ended: %" G_GUINT64_FORMAT " fingerprints, %"
		G_GUINT64_FORMAT " literal segments, %" G_GUINT64_FORMAT " repairs, miss rate %.2f %%, %"
		G_GUINT64_FORMAT " beliefs (%" G_GUINT64_FORMAT " from disk)%s; zstd level %d%s", host,
		st.fingerprint_segments, st.literal_segments, st.repairs,
		st.fingerprint_segments ? 100.0 * (double)st.repairs / (double)st.fingerprint_segments : 0.0,
		st.beliefs, st.beliefs_loaded, c->persist ? ", saved" : "",
		c->zstd_level, model);
	if (pc.measured[VG_PIXCOST_LITERAL] || pc.measured[VG_PIXCOST_MODEL])
		vg_info("client %s: new pixels cost, a pixel, as last learnt: the literal methods"
			" %.1f ns and %.4f bytes%s, the pixel model %.1f ns and %.4f bytes%s", host,
			pc.ns_px[VG_PIXCOST_LITERAL], pc.bytes_px[VG_PIXCOST_LITERAL],
			pc.measured[VG_PIXCOST_LITERAL] ? "" : " (assumed)", pc.ns_px[VG_PIXCOST_MODEL],
			pc.bytes_px[VG_PIXCOST_MODEL], pc.measured[VG_PIXCOST_MODEL] ? "" : " (assumed)");
	if (st.approx_messages)
		vg_info("client %s: %" G_GUINT64_FORMAT " approximations of %" G_GUINT64_FORMAT
			" pixels in %" G_GUINT64_FORMAT " bytes, of %" G_GUINT64_FORMAT " Varg bytes", host,
			st.approx_messages, st.approx_pixels, st.approx_bytes, st.body_bytes);
	if (c->banded)
		vg_info("client %s: %" G_GUINT64_FORMAT " updates banded, %" G_GUINT64_FORMAT
			" missed pixels left for the next", host, c->banded, c->banded_px);
}

/* zstd's level for this viewer, fixed for the connection's stream: the
 * configured one, or by default more effort where bytes cost more than
 * CPU, beyond a LAN's round trip, and less within one (rtt_us, as the
 * handshake measured it; 0 if unknown: the middle level). */
static int zstd_level_for(const vg_server_config *cfg, uint64_t rtt_us)
{
	if (cfg->zstd_level != VG_SERVER_ZSTD_AUTO)
		return cfg->zstd_level;
	if (rtt_us >= VG_SERVER_FAR_RTT_US)
		return VG_SENDER_ZSTD_LEVEL_FAR;
	if (rtt_us > 0 && rtt_us < VG_SERVER_LAN_RTT_US)
		return VG_SENDER_ZSTD_LEVEL_LAN;
	return VG_SENDER_ZSTD_LEVEL;
}

/* Whether the pixel model codes this viewer's pixels: as configured, or
 * by default per update by the link's rate (vg_pixcost.h), and until the
 * rate is known when the round trip says the link is slow and distant. */
static void pixmodel_for(const vg_server_config *cfg, uint64_t rtt_us, vg_sender_config *out)
{
	out->pixmodel_by_rate = cfg->pixmodel == VG_SERVER_PIXMODEL_AUTO;
	if (cfg->pixmodel != VG_SERVER_PIXMODEL_AUTO)
		out->pixmodel = cfg->pixmodel == VG_SERVER_PIXMODEL_ON;
	else
		out->pixmodel = rtt_us >= VG_SERVER_SLOW_RTT_US;
}

static rfbBool enable_varg(rfbClientPtr cl, void **data, int encoding)
{
	vg_vargclient *c = conn_of(cl);
	vg_screen *s;
	const vg_server_config *scfg;
	const vg_pixbuf *frame;
	vg_sender_config cfg;
	vg_pipeline_config pcfg;
	vg_path_sample path;
	uint64_t rtt_us;

	*data = NULL;
	if (!c)
		return FALSE;
	/* Capabilities ahead of the VIEWER HELLO, listed after VG_ENCODING
	 * (LibVNCServer offers an enabled extension every encoding it does
	 * not know itself). */
	if (vg_caps_index(encoding) >= 0) {
		unsigned i = (unsigned)vg_caps_index(encoding);

		if (!c->varg)
			return FALSE;
		pthread_mutex_lock(&c->lock);
		c->caps[i] = (uint8_t)encoding;
		c->caps_seen |= 1u << i;
		pthread_mutex_unlock(&c->lock);
		return TRUE;
	}
	if (encoding == VG_CURSOR_ENCODING) {
		if (!c->varg)
			return FALSE;
		pthread_mutex_lock(&c->lock);
		if (!c->cursor_list && vg_cursorlist_new(&c->cursor_list) == VG_OK) {
			c->cursor_buf = g_new(uint32_t, VG_CURSOR_MAX_DIM * VG_CURSOR_MAX_DIM);
			c->cursors = true;
		}
		pthread_mutex_unlock(&c->lock);
		return c->cursors;
	}
	if (encoding != VG_ENCODING)
		return FALSE;
	if (c->varg)
		return TRUE;
	s = c->screen;
	scfg = vg_screen_config(s);
	frame = vg_screen_frame(s);
	vg_sender_config_init(&cfg);
	/* Both by the path's round trip, read once: the least one seen, as
	 * the smoothed one still holds the viewer's time to answer the
	 * handshake (5 ms for 0.35 on a gigabit link). */
	/* A socket without TCP_INFO leaves path all zero: the middle level. */
	(void)vg_refine_read_socket(path_fd_of(cl), &path);
	rtt_us = vg_path_rtt_us(&path);
	cfg.zstd_level = c->zstd_level = zstd_level_for(scfg, rtt_us);
	pixmodel_for(scfg, rtt_us, &cfg);
	vg_info("client %s: round trip %.2f ms: zstd level %d, %s", cl->host, (double)rtt_us / 1e3,
		cfg.zstd_level,
		!cfg.pixmodel_by_rate ? (cfg.pixmodel ? "the pixel model" : "no pixel model")
		: cfg.pixmodel ? "the pixel model as the link's rate says (until known: on)"
			       : "the pixel model as the link's rate says (until known: off)");
	cfg.fp_bits = scfg->fp_bits;
	cfg.group_size = scfg->group_size;
	cfg.no_persist = scfg->no_persist;
	memcpy(cfg.server_id, vg_screen_server_id(s), sizeof cfg.server_id);
	vg_pipeline_config_init(&pcfg);
	pcfg.moves = !scfg->no_moves;
	pcfg.workers = vg_screen_workers(s);
	pthread_mutex_lock(&c->lock);
	if (vg_sender_new(&cfg, &c->sender) == 0 &&
	    vg_pipeline_new(&pcfg, frame->width, frame->height, c->sender, &c->pipe) == 0) {
		vg_refine_config rcfg = { .budget_ms = scfg->refine_ms, .band_ms = scfg->band_ms,
					  .first_paint_ms = scfg->first_paint_ms,
					  .fixed_rate = vg_screen_testing_aids(s)->link_rate };

		c->snapshot = vg_pixbuf_new(frame->width, frame->height);
		c->refine = vg_refine_new(&rcfg);
		c->varg = true;
	}
	pthread_mutex_unlock(&c->lock);
	if (!c->varg)
		return FALSE;
	vg_screen_varg_joined(s);
	vg_screen_stats_lock(s)->kept.varg_clients++;
	vg_screen_stats_unlock(s);
	return TRUE;
}

/* Marks rects modified for this client alone and wakes its output thread. */
static void mark_modified(rfbClientPtr cl, const vg_rect *rs, size_t n)
{
	sraRegion *rgn = sraRgnCreate();
	size_t i;

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
}

/* Marks a repaired region modified; the next update sends it as pixels. */
static void ask_again(rfbClientPtr cl, vg_vargclient *c, const vg_region *repair)
{
	vg_screen *s = c->screen;
	size_t n;
	const vg_rect *rs = vg_region_rects(repair, &n);

	mark_modified(cl, rs, n);
	vg_screen_stats_lock(s)->kept.repairs += n;
	vg_screen_stats_unlock(s);
}

/* The VIEWER HELLO arrived: hands the requests that waited for it back to
 * LibVNCServer's bookkeeping and wakes the output thread. On the input
 * thread; sendMutex keeps the region away from a send in progress. */
static void unpark(rfbClientPtr cl, vg_vargclient *c)
{
	LOCK(cl->sendMutex);
	LOCK(cl->updateMutex);
	c->ready = true;
	sraRgnOr(cl->requestedRegion, c->wanted);
	if (!vg_screen_testing_aids(c->screen)->race_fix)
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

/* The start of a FramebufferUpdate of n rectangles. */
static void put_update_header(vg_writer *w, uint16_t n)
{
	vg_writer_u8(w, rfbFramebufferUpdate);
	vg_writer_u8(w, 0);
	vg_writer_u16be(w, n);
}

/* The start of a FramebufferUpdate holding one Varg rectangle r. */
static size_t begin_update(vg_writer *w, vg_rect r)
{
	put_update_header(w, 1);
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
	vg_vargclient *c = conn_of(cl);
	const vg_pixbuf *frame;
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
	had_hello = vg_sender_viewer_named(c->sender);
	frame = vg_screen_frame(c->screen);
	err = vg_sender_handle(c->sender, body, len, frame->width, frame->height, repair);
	vg_region_add_region(c->repair, repair);
	if (!err && !had_hello && vg_sender_viewer_named(c->sender)) {
		unsigned model = vg_sender_viewer_model(c->sender);

		if (model != 0 && model != VG_PIXMODEL_REVISION)
			vg_info("client %s: its viewer decodes pixel model revision %u, this server codes %u: "
				"literal methods only (the same release at both ends gains the model's bytes)",
				cl->host, model, VG_PIXMODEL_REVISION);
		load_beliefs(c, cl->host);
		/* Coded ahead: updates went out already. */
		now_ready = !vg_sender_coded_ahead(c->sender);
	}
	ping = !err && vg_sender_take_ping(c->sender, &token);
	pthread_mutex_unlock(&c->lock);
	if (now_ready)
		unpark(cl, c);
	g_free(body);
	if (ping && send_pong(cl, token))
		err = VG_EIO;
	if (err) {
		vg_warn("client %s: bad Varg message (%s: %s); closing", cl->host, vg_strerror(err),
			vg_sender_error_text(c->sender));
		rfbCloseClient(cl);
	} else if (!vg_region_is_empty(repair)) {
		ask_again(cl, c, repair);
	}
	vg_region_free(repair);
	return TRUE;
}

static rfbProtocolExtension varg_extension = {
	.pseudoEncodings = varg_encodings,
	.enablePseudoEncoding = enable_varg,
	.handleMessage = handle_varg_message,
};

/* Called on the input thread before LibVNCServer applies a
 * FramebufferUpdateRequest (msg is in host order and clipped). For a Varg
 * viewer the request is one credit and is applied here, under sendMutex so
 * that it never lands while a send is in progress. The copy LibVNCServer
 * applies after this hook is moved to one pixel outside the framebuffer,
 * which no update region can intersect; the next pass removes it. */
void vg_vargclient_request(rfbClientPtr cl, rfbFramebufferUpdateRequestMsg *msg)
{
	vg_vargclient *c = conn_of(cl);
	sraRegion *r;

	if (!c || !c->varg || !vg_screen_testing_aids(c->screen)->race_fix ||
	    !format_is_native(&cl->format))
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

/* Takes (modified | copy) & requested from the client under its lock,
 * empties what LibVNCServer would look at and uses up one credit. Returns
 * NULL if nothing is due. */
static sraRegion *take_due_region(rfbClientPtr cl, vg_vargclient *c)
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
 * (rows, when it cuts bands). Caller holds the frame lock. */
static void snapshot_region(vg_vargclient *c, sraRegion *due)
{
	vg_screen *s = c->screen;
	const vg_pixbuf *frame = vg_screen_frame(s);
	sraRectangleIterator *it = sraRgnGetIterator(due);
	const int32_t cw = vg_pipeline_params(c->pipe)->column_width, ms = VG_MOTION_STRIP;
	vg_rect bounds = vg_rect_make(0, 0, 0, 0);
	int32_t x0, y0, x1, y1;
	sraRect sr;

	g_array_set_size(c->rects, 0);
	c->snap_serial = vg_screen_serial(s);
	c->snap_frame_ns = vg_screen_frame_ns(s);
	while (sraRgnIteratorNext(it, &sr)) {
		vg_rect r = vg_rect_intersect(vg_rect_make(sr.x1, sr.y1, sr.x2 - sr.x1, sr.y2 - sr.y1),
					      vg_pixbuf_rect(frame));

		if (vg_rect_is_empty(r))
			continue;
		g_array_append_val(c->rects, r);
		bounds = vg_rect_bounds(bounds, r);
	}
	sraRgnReleaseIterator(it);
	if (vg_rect_is_empty(bounds))
		return;
	x0 = bounds.x / ms * ms / cw * cw;
	y0 = bounds.y / ms * ms / cw * cw;
	x1 = bounds.x + bounds.w;
	y1 = bounds.y + bounds.h;
	x1 = ((x1 + ms - 1) / ms * ms + cw - 1) / cw * cw;
	y1 = ((y1 + ms - 1) / ms * ms + cw - 1) / cw * cw;
	vg_pixbuf_copy_rect(c->snapshot, frame,
			    vg_rect_intersect(vg_rect_make(x0, y0, x1 - x0, y1 - y0),
					      vg_pixbuf_rect(frame)));
}

/* True when d must go exact: it covers a repair or this pass's refinement. */
static bool must_be_exact(const vg_vargclient *c, const vg_segdesc *d)
{
	return vg_region_touches(c->repair, d->rect) || vg_region_touches(c->refined, d->rect);
}

/* True when d may be approximated: the viewer lacks it, and it need not
 * go exact. */
static bool approximable(const vg_vargclient *c, const vg_segdesc *d)
{
	return vg_sender_is_miss(c->sender, d) && !must_be_exact(c, d);
}

/* Takes this pass's share of what is owed (shown approximately, or left
 * for later by a band): at most max_px pixels of it (the rest waits, so
 * that a fresh change never queues behind a whole screen of refinement),
 * into c->refined and the pipeline's todo. */
static void add_refinement(vg_vargclient *c, uint64_t max_px)
{
	size_t i, k, n;
	const vg_rect *rs = vg_region_rects(c->approximate, &n);

	g_array_set_size(c->runs, 0);
	for (k = 0; k < n && max_px > 0; k++)
		for (i = 0; i < c->rects->len && max_px > 0; i++) {
			vg_rect r = vg_rect_intersect(g_array_index(c->rects, vg_rect, i), rs[k]);
			uint64_t rows;

			if (vg_rect_is_empty(r))
				continue;
			rows = max_px / (uint64_t)r.w;
			if (rows == 0)
				rows = 1;
			if (rows < (uint64_t)r.h)
				r.h = (int32_t)rows;
			max_px -= MIN(max_px, (uint64_t)r.w * (uint64_t)r.h);
			g_array_append_val(c->runs, r);
		}
	/* LibVNCServer's region cuts the owed columns into many bands. */
	n = vg_rects_coalesce((vg_rect *)(void *)c->runs->data, c->runs->len);
	for (i = 0; i < n; i++)
		vg_region_add(c->refined, g_array_index(c->runs, vg_rect, i));
	vg_pipeline_add(c->pipe, (const vg_rect *)(const void *)c->runs->data, n);
}

/* Progressive refinement: when the viewer takes approximations and the
 * planner finds the update's missed pixels too slow for the link, splits
 * the pipeline's segments into c->exact_segs, which the pipeline sends,
 * and c->approx_rects (merged), and returns the shrink factor; else
 * returns 0 and everything goes exact. Repairs and this pass's
 * refinement always go exact; a fresh change over an area still
 * approximate may be approximated again. Caller holds c->lock. */
static unsigned plan_refinement(vg_vargclient *c)
{
	uint64_t exact_px = 0, approx_px = 0, approx_bytes;
	const vg_segdesc *segs;
	unsigned factor;
	size_t i, n;

	segs = vg_pipeline_segments(c->pipe, &n);
	if (!c->refining || n == 0)
		return 0;
	for (i = 0; i < n; i++) {
		uint64_t px = (uint64_t)segs[i].rect.w * (uint64_t)segs[i].rect.h;

		if (!vg_sender_is_miss(c->sender, &segs[i]))
			continue;
		if (must_be_exact(c, &segs[i]))
			exact_px += px;
		else
			approx_px += px;
	}
	/* A first guess from the pixel count alone, then, if it says the
	 * update is too slow, a trial coding of what would be approximated:
	 * a page of text and a page of blank lines differ a hundredfold. */
	if (!vg_refine_factor(c->refine, exact_px, approx_px, 0))
		return 0;
	g_array_set_size(c->exact_segs, 0);
	g_array_set_size(c->approx_rects, 0);
	for (i = 0; i < n; i++) {
		if (approximable(c, &segs[i]))
			g_array_append_val(c->approx_rects, segs[i].rect);
		else
			g_array_append_val(c->exact_segs, segs[i]);
	}
	/* Disjoint already, the segments are the rectangles: no region,
	 * whose operations are quadratic in a 4K page's thousands of them,
	 * and not merged into runs, which would change the trial coding. */
	if (vg_sender_estimate(c->sender, c->snapshot,
			       (const vg_rect *)(const void *)c->approx_rects->data,
			       c->approx_rects->len, &approx_bytes))
		return 0;
	factor = vg_refine_factor(c->refine, exact_px, approx_px, approx_bytes);
	if (factor)
		vg_pipeline_take(c->pipe, vg_pipeline_dir(c->pipe),
				 (const vg_segdesc *)(const void *)c->exact_segs->data,
				 c->exact_segs->len);
	return factor;
}

/* Bands: when the update's missed pixels would take longer than the band
 * budget on the link, and reach the viewer later than the first-paint
 * target (vg_refine_band_worth), keeps the first budget's worth of them,
 * with every segment the viewer holds and every one that must go exact,
 * and leaves the others in c->deferred: owed, they go in the next
 * passes, which the viewer's credits allow at once. The viewer draws the
 * first band a round of coding and a band's transfer after the change,
 * not the whole update's. Not with an approximation (factor), which
 * already shows everything soon. Caller holds c->lock. */
static void plan_bands(vg_vargclient *c, unsigned factor)
{
	uint64_t max_px = vg_refine_band_pixels(c->refine), kept = 0, left = 0;
	const vg_segdesc *segs;
	size_t i, n;

	g_array_set_size(c->deferred, 0);
	if (factor || max_px == UINT64_MAX)
		return;
	segs = vg_pipeline_segments(c->pipe, &n);
	g_array_set_size(c->exact_segs, 0);
	/* One look-up a segment: a miss past the budget that need not go
	 * exact waits. */
	for (i = 0; i < n; i++) {
		bool miss = vg_sender_is_miss(c->sender, &segs[i]);

		if (miss && kept >= max_px && !must_be_exact(c, &segs[i])) {
			g_array_append_val(c->deferred, segs[i].rect);
			left += (uint64_t)vg_rect_area(segs[i].rect);
			continue;
		}
		g_array_append_val(c->exact_segs, segs[i]);
		if (miss)
			kept += (uint64_t)vg_rect_area(segs[i].rect);
	}
	if (c->deferred->len) {
		uint64_t now = vg_time_ns();

		if (!vg_refine_band_worth(c->refine, kept + left,
					  now > c->snap_frame_ns ? now - c->snap_frame_ns : 0))
			g_array_set_size(c->deferred, 0);
	}
	if (c->deferred->len == 0)
		return;
	g_array_set_size(c->deferred, (guint)vg_rects_coalesce((vg_rect *)(void *)c->deferred->data,
								  c->deferred->len));
	c->banded++;
	c->banded_px += left;
	vg_pipeline_take(c->pipe, vg_pipeline_dir(c->pipe),
			 (const vg_segdesc *)(const void *)c->exact_segs->data, c->exact_segs->len);
}

/* Appends the APPROX messages for c->approx_rects as Varg rectangles (at
 * most VG_APPROX_MAX_RECTS each), counting them in *n_msgs. Caller holds
 * c->lock. */
static int put_approx(vg_vargclient *c, unsigned factor, unsigned *n_msgs)
{
	const vg_rect *rs = (const vg_rect *)(const void *)c->approx_rects->data;
	size_t left = c->approx_rects->len, i, m, len_at, body_at;
	int err;

	*n_msgs = 0;
	while (left > 0) {
		vg_rect bounds = vg_rect_make(0, 0, 0, 0);

		m = MIN(left, (size_t)VG_APPROX_MAX_RECTS);
		for (i = 0; i < m; i++)
			bounds = vg_rect_bounds(bounds, rs[i]);
		len_at = put_rect(&c->out, bounds);
		body_at = c->out.len;
		if ((err = vg_sender_approx(c->sender, c->snapshot, rs, m, factor, &c->out)))
			return err;
		vg_writer_patch_u32be(&c->out, len_at, (uint32_t)(c->out.len - body_at));
		rs += m;
		left -= m;
		++*n_msgs;
	}
	return VG_OK;
}

/* Starts the pipeline on the snapshot: the differ keeps what changed of
 * the due rectangles (LibVNCServer's region is cut into bands, and its
 * damage is often wider than the change), the repairs in them are added
 * as they are, and this pass's share of what is owed, which the differ
 * has seen already. Caller holds c->lock (for c->repair). */
static int begin_pipeline(vg_vargclient *c, vg_monitor_update *u)
{
	int err = vg_pipeline_begin(c->pipe, c->snapshot, (const vg_rect *)(void *)c->rects->data,
				    c->rects->len, c->repair);

	u->ns[VG_STAGE_DIFFER] = vg_pipeline_last_times(c->pipe)->differ_ns;
	if (err)
		return err;
	vg_region_clear(c->refined);
	/* Also for a viewer that takes exact pixels only: a band's rest. */
	if (!vg_region_is_empty(c->approximate))
		add_refinement(c, vg_refine_chunk_pixels(c->refine));
	return VG_OK;
}

/* Takes movement estimation and segmentation from the share when a viewer
 * in step did them for the same input (vg_segshare.h): true on a hit, else
 * *claim is the slot to publish in (NULL when not shared). One viewer
 * alone computes as it always did. Caller holds c->lock. */
static bool take_shared(vg_vargclient *c, vg_segshare_claim **claim)
{
	vg_segshare *share = vg_screen_share(c->screen);
	vg_segshare_input in = { .serial = c->snap_serial };
	vg_motion_dir dir;

	*claim = NULL;
	if (!share || vg_screen_varg_count(c->screen) <= 1)
		return false;
	in.rects = vg_pipeline_todo(c->pipe, &in.n_rects, &in.n_changed);
	if (vg_segshare_lookup(share, &in, vg_pipeline_motion(c->pipe), &dir, c->shared_segs,
			       claim) != VG_OK)
		return false;
	vg_pipeline_take(c->pipe, dir, (const vg_segdesc *)(void *)c->shared_segs->data,
			 c->shared_segs->len);
	return true;
}

/* Movement estimation, moves and segmentation of the pipeline's todo,
 * taken from viewers in step or computed and published for them. Caller
 * holds c->lock. */
static int segment_update(vg_vargclient *c, vg_monitor_update *u)
{
	vg_segshare *share = vg_screen_share(c->screen);
	vg_segshare_claim *claim;
	const vg_pipeline_times *t = vg_pipeline_last_times(c->pipe);
	const vg_segdesc *segs;
	size_t n_segs;
	int err;

	if (take_shared(c, &claim)) {
		u->shared = true;
		return VG_OK;
	}
	err = vg_pipeline_segment(c->pipe, c->snapshot, c->approximate);
	u->ns[VG_STAGE_MOTION] = t->motion_ns;
	u->ns[VG_STAGE_SEGMENTER] = t->segmenter_ns;
	/* Segments that leave moved parts out are no one else's. */
	if (claim && !err && vg_pipeline_n_moves(c->pipe) == 0) {
		segs = vg_pipeline_segments(c->pipe, &n_segs);
		vg_segshare_publish(share, claim, vg_pipeline_motion(c->pipe),
				    vg_pipeline_dir(c->pipe), segs, n_segs);
	} else {
		vg_segshare_abandon(share, claim);
	}
	return err;
}

/* The CURSOR of this pass, as a rectangle of c->out. */
static void put_cursor(vg_vargclient *c)
{
	size_t len_at = put_rect(&c->out, vg_rect_make(0, 0, 0, 0));

	vg_writer_bytes(&c->out, c->cursor_body.data, c->cursor_body.len);
	vg_writer_patch_u32be(&c->out, len_at, (uint32_t)(c->out.len - len_at - 4));
}

/* True when the viewer takes the pointer's shape as CURSOR messages. */
static bool takes_cursors(rfbClientPtr cl, vg_vargclient *c)
{
	bool yes;

	pthread_mutex_lock(&c->lock);
	yes = c->cursors && cl->enableCursorShapeUpdates;
	pthread_mutex_unlock(&c->lock);
	return yes;
}

/* Cancels the rich cursor LibVNCServer would send after this hook. */
static void cancel_rich_cursor(rfbClientPtr cl)
{
	LOCK(cl->screen->cursorMutex);
	cl->cursorWasChanged = FALSE;
	UNLOCK(cl->screen->cursorMutex);
}

/* For a viewer that takes CURSOR messages: a shape new since the last
 * sent is coded into c->cursor_body, in place of the rich cursor; one
 * that cannot be coded goes as a rich cursor. A shape set between the
 * two reads may still go both ways once. On the output thread with
 * sendMutex held. */
static void take_cursor(rfbClientPtr cl, vg_vargclient *c)
{
	vg_cursor_shape shape;
	uint64_t serial;
	int err;

	vg_writer_reset(&c->cursor_body);
	if (!takes_cursors(cl, c))
		return;
	serial = vg_screen_cursor(c->screen, c->cursor_sent, c->cursor_buf, &shape);
	if (serial != c->cursor_sent) {
		c->cursor_sent = serial;
		if ((err = vg_cursorlist_encode(c->cursor_list, &shape, &c->cursor_body))) {
			vg_debug("client %s: cursor of %dx%d goes as a rich cursor: %s", cl->host,
				 shape.width, shape.height, vg_strerror(err));
			return;
		}
		vg_debug("client %s: cursor of %dx%d in a CURSOR of %zu bytes (as a rich cursor %" PRIu64 ")",
			 cl->host, shape.width, shape.height, c->cursor_body.len + 16,
			 vg_cursor_rich_bytes(shape.width, shape.height));
	}
	cancel_rich_cursor(cl);
}

/* A pass with nothing due but a new pointer shape: a FramebufferUpdate
 * of its CURSOR alone, which answers a request as any update does. */
static void write_cursor_alone(rfbClientPtr cl, vg_vargclient *c)
{
	LOCK(cl->updateMutex);
	sraRgnMakeEmpty(cl->requestedRegion);
	if (c->credits > 0)
		c->credits--;
	UNLOCK(cl->updateMutex);
	vg_writer_reset(&c->out);
	put_update_header(&c->out, 1);
	put_cursor(c);
	if (rfbWriteExact(cl, (const char *)c->out.data, (int)c->out.len) < 0) {
		rfbCloseClient(cl);
		return;
	}
	vg_screen_stats_lock(c->screen)->kept.varg_bytes += c->out.len;
	c->sent_bytes += c->out.len;
	vg_screen_stats_unlock(c->screen);
}

/* Appends a Varg rectangle holding the HELLO to c->out. Caller holds
 * c->lock. */
static void put_hello(vg_vargclient *c)
{
	size_t len_at = put_rect(&c->out, vg_rect_make(0, 0, 0, 0));

	vg_sender_hello(c->sender, &c->out);
	vg_writer_patch_u32be(&c->out, len_at, (uint32_t)(c->out.len - len_at - 4));
	c->hello_sent = true;
}

/* True when the viewer announced all its capabilities ahead of the
 * VIEWER HELLO and the sender takes them: the first update may be coded
 * now, the HELLO travelling in front of it. Caller holds c->lock. */
static bool code_ahead(vg_vargclient *c)
{
	return c->caps_seen == (1u << VG_CAPS_COUNT) - 1 && vg_screen_testing_aids(c->screen)->race_fix &&
	       vg_sender_assume_viewer(c->sender, c->caps[0], c->caps[1], c->caps[2]) == VG_OK;
}

/* Before the VIEWER HELLO: unless the viewer's capabilities came ahead of
 * it (code_ahead), the first request is answered with the HELLO
 * alone, later ones wait (parked) until the viewer has answered, so that
 * the first segments are written knowing the beliefs of earlier sessions
 * with its cache. Returns true when this pass is done. On the output
 * thread with sendMutex held. */
static bool hello_first(rfbClientPtr cl, vg_vargclient *c)
{
	bool requested, write_hello = false;

	pthread_mutex_lock(&c->lock);
	if (vg_sender_has_viewer_hello(c->sender)) {
		pthread_mutex_unlock(&c->lock);
		return false;
	}
	if (!c->hello_sent && code_ahead(c)) {
		c->hello_sent = true;
		c->hello_ahead = true;
		LOCK(cl->updateMutex);
		c->ready = true;
		sraRgnOr(cl->requestedRegion, c->wanted);
		UNLOCK(cl->updateMutex);
		pthread_mutex_unlock(&c->lock);
		return false;
	}
	/* Take the request, so LibVNCServer does not answer it in its own
	 * encodings; the modified region stays for the first update. With
	 * credits the requests are in c->wanted already. */
	LOCK(cl->updateMutex);
	requested = !sraRgnEmpty(cl->requestedRegion);
	if (requested && c->hello_sent && !vg_screen_testing_aids(c->screen)->race_fix)
		sraRgnOr(c->wanted, cl->requestedRegion);
	sraRgnMakeEmpty(cl->requestedRegion);
	if (requested && !c->hello_sent && c->credits > 0)
		c->credits--;
	UNLOCK(cl->updateMutex);
	if (requested && !c->hello_sent) {
		vg_writer_reset(&c->out);
		put_update_header(&c->out, 1);
		put_hello(c);
		write_hello = true;
	}
	pthread_mutex_unlock(&c->lock);
	if (write_hello && rfbWriteExact(cl, (const char *)c->out.data, (int)c->out.len) < 0)
		rfbCloseClient(cl);
	return true;
}

/* Takes what is due and copies its pixels into the snapshot under the
 * frame lock; false when nothing is due. */
static bool take_snapshot(rfbClientPtr cl, vg_vargclient *c, vg_monitor_update *u)
{
	vg_screen *s = c->screen;
	sraRegion *due;
	uint64_t t0;

	vg_screen_read_lock(s);
	due = take_due_region(cl, c);
	if (!due) {
		vg_screen_read_unlock(s);
		return false;
	}
	t0 = vg_time_ns();
	snapshot_region(c, due);
	u->ns[VG_STAGE_SNAPSHOT] = vg_time_ns() - t0;
	vg_screen_read_unlock(s);
	sraRgnDestroy(due);
	return true;
}

/* Whether this pass may approximate, and what the link does now (for
 * the refinement planner and the bands). Caller holds c->lock. */
static void observe_link(rfbClientPtr cl, vg_vargclient *c)
{
	vg_path_sample path;

	c->refining = vg_sender_takes_approx(c->sender);
	/* One getsockopt a pass: refinement, bands and the pixel model's
	 * choice all follow the link's rate. */
	if (vg_refine_read_socket(path_fd_of(cl), &path) == VG_OK)
		vg_refine_observe(c->refine, vg_time_ns(), &path);
	vg_sender_set_rate(c->sender, vg_refine_known_rate(c->refine));
}

/* Codes one FramebufferUpdate into c->out: the HELLO when it rides ahead,
 * the restored history (before the first UPDATE), a new pointer shape,
 * the approximations (small, so the first paint comes soon), then the
 * pipeline's UPDATE. An update with nothing changed still goes out
 * (empty): the request it answers is used up, and the viewer asks again
 * on each update. Caller holds c->lock. */
static int code_update(vg_vargclient *c, unsigned factor, vg_monitor_update *u)
{
	size_t len_at, body_at;
	unsigned n_approx = 0, n_rects = 0;
	uint64_t t0;
	int err;

	vg_writer_reset(&c->out);
	put_update_header(&c->out, 0);
	if (c->hello_ahead) {
		put_hello(c);
		c->hello_ahead = false;
		n_rects++;
	}
	body_at = c->out.len;
	len_at = put_rect(&c->out, vg_rect_make(0, 0, 0, 0));
	if (vg_sender_take_history(c->sender, &c->out)) {
		vg_writer_patch_u32be(&c->out, len_at, (uint32_t)(c->out.len - len_at - 4));
		n_rects++;
	} else {
		c->out.len = body_at;
	}
	if (c->cursor_body.len) {
		put_cursor(c);
		n_rects++;
	}
	t0 = vg_time_ns();
	err = factor ? put_approx(c, factor, &n_approx) : VG_OK;
	n_rects += n_approx;
	len_at = put_rect(&c->out, vg_pipeline_bounds(c->pipe));
	body_at = c->out.len;
	if (!err)
		err = vg_pipeline_send(c->pipe, c->snapshot, c->repair, &c->out);
	u->ns[VG_STAGE_SENDER] = vg_time_ns() - t0;
	if (err)
		return err;
	vg_writer_patch_u32be(&c->out, len_at, (uint32_t)(c->out.len - body_at));
	n_rects++;
	c->out.data[2] = (uint8_t)(n_rects >> 8);
	c->out.data[3] = (uint8_t)n_rects;
	return VG_OK;
}

/* After a coded update: what it covered is repaired (repairs that
 * arrived since the region was taken stay for the next one); what was
 * approximated is owed, and what was owed goes where the moves took it;
 * every segment sent is exact on the viewer now, what was left for later
 * is owed, and all that is owed is marked modified again for the next
 * passes. Caller holds c->lock. */
static void settle_update(rfbClientPtr cl, vg_vargclient *c, unsigned factor)
{
	const vg_segdesc *segs;
	const vg_move *moves;
	const vg_rect *owed;
	size_t i, n_segs, n_moves, n_owed;

	for (i = 0; i < c->rects->len; i++)
		vg_region_subtract(c->repair, g_array_index(c->rects, vg_rect, i));
	if (!c->refining && c->deferred->len == 0 && vg_region_is_empty(c->approximate))
		return;
	/* In the viewer's order: the APPROX rectangles, the moves (which may
	 * read them), the segments. */
	for (i = 0; factor && i < c->approx_rects->len; i++)
		vg_region_add(c->approximate, g_array_index(c->approx_rects, vg_rect, i));
	moves = vg_pipeline_moves(c->pipe, &n_moves);
	vg_region_carry(c->approximate, moves, n_moves);
	/* The segments as runs: thousands of them would cut the region up. */
	segs = vg_pipeline_segments(c->pipe, &n_segs);
	g_array_set_size(c->runs, 0);
	for (i = 0; i < n_segs; i++)
		g_array_append_val(c->runs, segs[i].rect);
	n_segs = vg_rects_coalesce((vg_rect *)(void *)c->runs->data, c->runs->len);
	for (i = 0; i < n_segs; i++)
		vg_region_subtract(c->approximate, g_array_index(c->runs, vg_rect, i));
	for (i = 0; i < c->deferred->len; i++)
		vg_region_add(c->approximate, g_array_index(c->deferred, vg_rect, i));
	owed = vg_region_rects(c->approximate, &n_owed);
	if (n_owed)
		mark_modified(cl, owed, n_owed);
}

/* Tells the refinement planner what the update's pixels cost. */
static void tell_planner(vg_vargclient *c, unsigned factor, const vg_sender_stats *before,
			 const vg_sender_stats *after, uint64_t code_ns)
{
	vg_refine_coded(c->refine, (after->literal_bytes - before->literal_bytes) / 3,
			after->literal_wire_bytes - before->literal_wire_bytes, code_ns);
	if (factor)
		vg_refine_approx_coded(c->refine, after->approx_pixels - before->approx_pixels,
				       factor, after->approx_bytes - before->approx_bytes);
}

/* Writes c->out to the socket and records its stages with the monitor;
 * false (the client closed) when the write failed. Sets *done_ns. */
static bool write_update(rfbClientPtr cl, vg_vargclient *c, vg_monitor_update *u, uint64_t *done_ns)
{
	vg_monitor *monitor = vg_screen_monitor(c->screen);
	uint64_t t0 = vg_time_ns(), t1;
	size_t i;

	if (rfbWriteExact(cl, (const char *)c->out.data, (int)c->out.len) < 0) {
		rfbCloseClient(cl);
		return false;
	}
	t1 = *done_ns = vg_time_ns();
	if (!monitor)
		return true;
	u->ns[VG_STAGE_WRITE] = t1 - t0;
	u->ns[VG_STAGE_LATENCY] = t1 > c->snap_frame_ns ? t1 - c->snap_frame_ns : 0;
	u->sent_bytes = c->out.len;
	for (i = 0; i < c->rects->len; i++) {
		vg_rect r = g_array_index(c->rects, vg_rect, i);

		u->raw_bytes += 4 * (uint64_t)r.w * (uint64_t)r.h;
	}
	vg_monitor_record(monitor, u);
	return true;
}

/* Counts a written update in the server's statistics and its update log. */
static void count_update(vg_vargclient *c, const vg_monitor_update *u, uint64_t done_ns,
			 const vg_sender_stats *before, const vg_sender_stats *after)
{
	FILE *log = vg_screen_config(c->screen)->update_log;
	vg_screen_stats *counts = vg_screen_stats_lock(c->screen);

	if (log) {
		fprintf(log, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %zu\n",
			done_ns, after->updates, c->snap_frame_ns,
			after->approx_pixels - before->approx_pixels, c->out.len);
		/* Flushed per line: a benchmark stops the server with a signal. */
		fflush(log);
	}
	c->sent_bytes += c->out.len;
	c->sent_updates++;
	if (u->shared)
		counts->kept.shared_updates++;
	counts->kept.varg_updates++;
	counts->kept.varg_bytes += c->out.len;
	counts->kept.fingerprints += after->fingerprint_segments - before->fingerprint_segments;
	counts->kept.literals += after->literal_segments - before->literal_segments;
	vg_screen_stats_unlock(c->screen);
}

/* Writes one Varg update for what is due (first statement of
 * rfbSendFramebufferUpdate, on the output thread with sendMutex held):
 * snapshot, pipeline (shared between viewers in step), refinement plan,
 * coding, then the socket. */
void vg_vargclient_pass(rfbClientPtr cl, vg_vargclient *c)
{
	vg_screen *s = c->screen;
	vg_sender_stats before, after;
	vg_monitor_update u;
	unsigned factor = 0;
	uint64_t done_ns, code_ns;
	bool save;
	int err;

	c->lib_sent = rfbStatGetMessageCountSent(cl, rfbFramebufferUpdate);
	/* LibVNCServer's pass that only carries a desktop-size marker. */
	c->lib_pass = cl->useNewFBSize && cl->newFBSizePending;
	if (c->lib_pass)
		return;
	if (hello_first(cl, c)) {
		/* The shape waits for the first update. */
		if (takes_cursors(cl, c))
			cancel_rich_cursor(cl);
		return;
	}
	take_cursor(cl, c);
	memset(&u, 0, sizeof u);
	if (!take_snapshot(cl, c, &u)) {
		if (c->cursor_body.len)
			write_cursor_alone(cl, c);
		return;
	}

	pthread_mutex_lock(&c->lock);
	observe_link(cl, c);
	if ((err = begin_pipeline(c, &u)) || (err = segment_update(c, &u))) {
		pthread_mutex_unlock(&c->lock);
		vg_error("client %s: cannot segment update: %s", cl->host, vg_strerror(err));
		rfbCloseClient(cl);
		return;
	}
	factor = plan_refinement(c);
	plan_bands(c, factor);
	vg_sender_get_stats(c->sender, &before);
	code_ns = vg_time_ns();
	if (!(err = code_update(c, factor, &u)))
		settle_update(cl, c, factor);
	code_ns = vg_time_ns() - code_ns;
	vg_sender_get_stats(c->sender, &after);
	tell_planner(c, factor, &before, &after, code_ns);
	/* Also while connected: a server that dies keeps most of what it knew. */
	save = c->persist && vg_time_ns() - c->saved_ns > (uint64_t)vg_screen_config(s)->beliefs_save_s * 1000000000u;
	pthread_mutex_unlock(&c->lock);
	if (err) {
		vg_error("client %s: cannot encode update: %s", cl->host, vg_strerror(err));
		rfbCloseClient(cl);
		return;
	}
	if (!write_update(cl, c, &u, &done_ns))
		return;
	count_update(c, &u, done_ns, &before, &after);
	if (save)
		save_beliefs(c, cl->host);
	if (vg_screen_testing_aids(s)->send_delay_ms)
		g_usleep((gulong)vg_screen_testing_aids(s)->send_delay_ms * 1000);
}

/* After every pass (last statement of rfbSendFramebufferUpdate, same
 * thread, still under sendMutex). A LibVNCServer update sent to a Varg
 * viewer in this pass (its size marker, its first pseudo-rectangles) also
 * answered a request, so it uses up a credit. Then requestedRegion holds
 * exactly what the remaining credits ask for: the output thread sends the
 * next change without waiting for the viewer. */
void vg_vargclient_pass_end(rfbClientPtr cl, vg_vargclient *c)
{
	if (!c->varg || !vg_screen_testing_aids(c->screen)->race_fix || !format_is_native(&cl->format))
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

/* A new picture for one Varg viewer at the new size: its differ, movement
 * estimator and snapshot start from nothing, pending repairs (in old
 * coordinates) are dropped, and requests waiting for credits now ask for
 * the new screen. The sender keeps its beliefs: segments are named by
 * content, not place. Caller holds the client's sendMutex and the write
 * lock. */
void vg_vargclient_resize(rfbClientPtr cl, vg_vargclient *c, int32_t width, int32_t height)
{
	pthread_mutex_lock(&c->lock);
	if (c->varg && vg_pipeline_resize(c->pipe, width, height) == 0) {
		vg_pixbuf_free(c->snapshot);
		c->snapshot = vg_pixbuf_new(width, height);
		vg_region_free(c->repair);
		c->repair = vg_region_new();
		vg_region_free(c->approximate);
		c->approximate = vg_region_new();
	} else if (c->varg) {
		/* Without state at the new size the viewer gets stock
		 * encodings from now on. */
		c->varg = false;
		vg_screen_varg_left(c->screen);
	}
	pthread_mutex_unlock(&c->lock);
	LOCK(cl->updateMutex);
	if (!sraRgnEmpty(c->wanted)) {
		sraRgnDestroy(c->wanted);
		c->wanted = sraRgnCreateRect(0, 0, width, height);
	}
	UNLOCK(cl->updateMutex);
}

bool vg_vargclient_account(rfbClientPtr cl, vg_vargclient *c, vg_vargclient_stats *out)
{
	bool varg;

	pthread_mutex_lock(&c->lock);
	varg = c->varg && c->sender && format_is_native(&cl->format);
	if (varg) {
		vg_sender_stats st;

		vg_sender_get_stats(c->sender, &st);
		out->fingerprints = st.fingerprint_segments;
		out->misses = st.repairs;
	}
	pthread_mutex_unlock(&c->lock);
	if (varg) {
		vg_screen_stats_lock(c->screen);
		out->bytes_sent = c->sent_bytes;
		out->updates = c->sent_updates;
		vg_screen_stats_unlock(c->screen);
	}
	return varg;
}

void vg_vargclient_gone(rfbClientPtr cl, vg_vargclient *c)
{
	if (c->varg && c->sender && vg_sender_has_viewer_hello(c->sender)) {
		save_beliefs(c, cl->host);
		log_session(c, cl->host);
	}
}

void vg_vargclient_register(void)
{
	static gsize registered;

	if (g_once_init_enter(&registered)) {
		rfbRegisterProtocolExtension(&varg_extension);
		g_once_init_leave(&registered, 1);
	}
}
