/* LibVNCServer's encoders over socket pairs; see vg_stockenc.h.
 *
 * What a client needs before rfbSendFramebufferUpdate() can be called on it
 * outside LibVNCServer's event loop (from rfbserver.c of 0.9.14): the pixel
 * format and its translate function, a preferred encoding, a requested
 * region covering what is to be sent, and, for Tight, the quality levels.
 * rfbNewClient() leaves turboQualityLevel at 0 (only SetEncodings resets it
 * to -1), which would make Tight send JPEG: it is set to -1 here. Nothing
 * reads from the clients' sockets on LibVNCServer's side, so no client
 * message is ever processed; the screen is never started (no rfbInitServer)
 * and has no listening socket.
 */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <poll.h>
#include <rfb/rfb.h>
#include <rfb/rfbregion.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_time.h"
#include "traces/vg_stockenc.h"

static const struct {
	const char *name;
	int encoding;
} kinds[VG_STOCKENC_COUNT] = {
	[VG_STOCKENC_RAW] = { "raw", rfbEncodingRaw },
	[VG_STOCKENC_HEXTILE] = { "hextile", rfbEncodingHextile },
	[VG_STOCKENC_ZLIB] = { "zlib", rfbEncodingZlib },
	[VG_STOCKENC_TIGHT] = { "tight", rfbEncodingTight },
	[VG_STOCKENC_ZRLE] = { "zrle", rfbEncodingZRLE },
};

struct vg_stockenc {
	rfbScreenInfoPtr screen;
	rfbClientPtr cl[VG_STOCKENC_COUNT];
	int read_fd[VG_STOCKENC_COUNT];  /* the viewer's ends */
	int stop_pipe[2];
	GThread *drain;
	GMutex lock;                     /* counted[] and reads in progress */
	GCond cond;
	uint64_t counted[VG_STOCKENC_COUNT];
	bool drain_failed;
};

void vg_stockenc_config_init(vg_stockenc_config *cfg)
{
	cfg->zlib_level = 6;
	cfg->tight_level = 9;
}

const char *vg_stockenc_name(vg_stockenc_kind kind)
{
	return (unsigned)kind < VG_STOCKENC_COUNT ? kinds[kind].name : "unknown";
}

static void log_quiet(const char *fmt, ...)
{
	(void)fmt;
}

/* Reads everything that arrives on the viewer ends and counts it. Each
 * read happens under the lock, so a reader of the counters who sees an
 * empty socket under the lock knows every byte sent so far is counted. */
static gpointer drain_main(gpointer data)
{
	vg_stockenc *e = data;
	struct pollfd pfd[VG_STOCKENC_COUNT + 1];
	char buf[1 << 16];        /* per thread: encoders may run side by side */
	int i;

	for (;;) {
		for (i = 0; i < VG_STOCKENC_COUNT; i++)
			pfd[i] = (struct pollfd){ .fd = e->read_fd[i], .events = POLLIN };
		pfd[VG_STOCKENC_COUNT] = (struct pollfd){ .fd = e->stop_pipe[0], .events = POLLIN };
		if (poll(pfd, VG_STOCKENC_COUNT + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[VG_STOCKENC_COUNT].revents)
			return NULL;
		for (i = 0; i < VG_STOCKENC_COUNT; i++) {
			ssize_t n;

			if (!pfd[i].revents)
				continue;
			g_mutex_lock(&e->lock);
			n = read(e->read_fd[i], buf, sizeof buf);
			if (n > 0)
				e->counted[i] += (uint64_t)n;
			g_cond_broadcast(&e->cond);
			g_mutex_unlock(&e->lock);
			if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
				goto failed;
		}
	}
failed:
	g_mutex_lock(&e->lock);
	e->drain_failed = true;
	g_cond_broadcast(&e->cond);
	g_mutex_unlock(&e->lock);
	return NULL;
}

/* Waits until everything written to encoder i has been read and counted;
 * returns the count, or -1 if the drain thread gave up. */
static int64_t wait_drained(vg_stockenc *e, int i)
{
	int64_t count = -1;

	g_mutex_lock(&e->lock);
	for (;;) {
		int pending = 0;

		if (e->drain_failed)
			break;
		if (ioctl(e->read_fd[i], FIONREAD, &pending) == 0 && pending == 0) {
			count = (int64_t)e->counted[i];
			break;
		}
		g_cond_wait(&e->cond, &e->lock);
	}
	g_mutex_unlock(&e->lock);
	return count;
}

static int add_client(vg_stockenc *e, const vg_stockenc_config *cfg, int i)
{
	int sv[2], size = 4 << 20;
	rfbClientPtr cl;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return VG_EIO;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
	e->read_fd[i] = sv[1];
	/* rfbNewClient makes the socket non-blocking, sets TCP_NODELAY (which
	 * fails quietly on a Unix socket) and writes the protocol version. */
	cl = rfbNewClient(e->screen, sv[0]);
	if (!cl)
		return VG_EIO;
	e->cl[i] = cl;
	cl->state = RFB_NORMAL;
	cl->format = e->screen->serverFormat;
	if (!rfbSetTranslateFunction(cl))
		return VG_EIO;
	cl->preferredEncoding = kinds[i].encoding;
	cl->enableLastRectEncoding = TRUE;
	cl->enableCursorShapeUpdates = FALSE;
	cl->enableCursorPosUpdates = FALSE;
	cl->useCopyRect = FALSE;
	cl->zlibCompressLevel = cfg->zlib_level;
	cl->tightCompressLevel = cfg->tight_level;
	cl->tightQualityLevel = -1;
	cl->turboQualityLevel = -1;
	sraRgnMakeEmpty(cl->modifiedRegion);
	return VG_OK;
}

int vg_stockenc_new(const vg_stockenc_config *cfg, const vg_pixbuf *frame, vg_stockenc **out)
{
	vg_stockenc *e;
	int argc = 1, i, err = VG_OK;
	char *argv[] = { (char *)"varg-trace", NULL };

	*out = NULL;
	if (cfg->zlib_level < 0 || cfg->zlib_level > 9 || cfg->tight_level < 0 ||
	    cfg->tight_level > 9 || frame->width < 1 || frame->height < 1 ||
	    frame->width > 8192 || frame->height > 8192 || frame->stride < frame->width)
		return VG_EINVAL;
	rfbLog = rfbErr = log_quiet;
	e = g_new0(vg_stockenc, 1);
	g_mutex_init(&e->lock);
	g_cond_init(&e->cond);
	for (i = 0; i < VG_STOCKENC_COUNT; i++)
		e->read_fd[i] = -1;
	e->stop_pipe[0] = e->stop_pipe[1] = -1;

	e->screen = rfbGetScreen(&argc, argv, frame->width, frame->height, 8, 3, 4);
	if (!e->screen) {
		err = VG_EIO;
		goto out;
	}
	e->screen->frameBuffer = (char *)frame->pixels;
	e->screen->paddedWidthInBytes = frame->stride * 4;
	e->screen->serverFormat.redShift = 16;
	e->screen->serverFormat.greenShift = 8;
	e->screen->serverFormat.blueShift = 0;
	e->screen->cursor = NULL;  /* nothing may paint into the frame */
	for (i = 0; i < VG_STOCKENC_COUNT && !err; i++)
		err = add_client(e, cfg, i);
	if (err)
		goto out;
	if (pipe(e->stop_pipe) < 0) {
		err = VG_EIO;
		goto out;
	}
	e->drain = g_thread_new("stockenc-drain", drain_main, e);
	/* The handshake bytes rfbNewClient wrote are not part of any update. */
	for (i = 0; i < VG_STOCKENC_COUNT; i++) {
		if (wait_drained(e, i) < 0) {
			err = VG_EIO;
			goto out;
		}
	}
	g_mutex_lock(&e->lock);
	memset(e->counted, 0, sizeof e->counted);
	g_mutex_unlock(&e->lock);
out:
	if (err) {
		vg_stockenc_free(e);
		return err;
	}
	*out = e;
	return VG_OK;
}

void vg_stockenc_free(vg_stockenc *e)
{
	int i;

	if (!e)
		return;
	if (e->drain) {
		if (write(e->stop_pipe[1], "", 1) != 1)
			g_warning("cannot stop the drain thread");
		g_thread_join(e->drain);
	}
	/* Closes the clients' sockets and frees their encoder state. */
	if (e->screen)
		rfbScreenCleanup(e->screen);
	for (i = 0; i < VG_STOCKENC_COUNT; i++)
		if (e->read_fd[i] >= 0)
			close(e->read_fd[i]);
	if (e->stop_pipe[0] >= 0)
		close(e->stop_pipe[0]);
	if (e->stop_pipe[1] >= 0)
		close(e->stop_pipe[1]);
	g_mutex_clear(&e->lock);
	g_cond_clear(&e->cond);
	g_free(e);
}

int vg_stockenc_update(vg_stockenc *e, const vg_rect *rects, size_t n, vg_stockenc_result *res)
{
	vg_rect whole = vg_rect_make(0, 0, e->screen->width, e->screen->height);
	sraRegion *region = sraRgnCreate();
	size_t k;
	int i, err = VG_OK;

	memset(res, 0, sizeof *res);
	for (k = 0; k < n; k++) {
		vg_rect r = vg_rect_intersect(rects[k], whole);

		if (!vg_rect_is_empty(r)) {
			sraRegion *one = sraRgnCreateRect(r.x, r.y, r.x + r.w, r.y + r.h);
			sraRgnOr(region, one);
			sraRgnDestroy(one);
		}
	}
	if (sraRgnEmpty(region))
		goto out;
	for (i = 0; i < VG_STOCKENC_COUNT; i++) {
		rfbClientPtr cl = e->cl[i];
		uint64_t before, t0;
		int64_t after;
		rfbBool ok;

		/* As if the viewer had asked for the whole screen and the
		 * application had marked the update's rectangles. */
		if ((after = wait_drained(e, i)) < 0) {
			err = VG_EIO;
			goto out;
		}
		before = (uint64_t)after;
		sraRgnMakeEmpty(cl->requestedRegion);
		sraRgnOr(cl->requestedRegion, region);
		sraRgnOr(cl->modifiedRegion, region);
		t0 = vg_time_ns();
		ok = rfbSendFramebufferUpdate(cl, region);
		res->ns[i] = vg_time_ns() - t0;
		after = wait_drained(e, i);
		if (!ok || after < 0 || cl->sock == RFB_INVALID_SOCKET) {
			err = VG_EIO;
			goto out;
		}
		res->bytes[i] = (uint64_t)after - before;
	}
out:
	sraRgnDestroy(region);
	return err;
}
