/* A stock client's frame of its own. LibVNCServer's encoders read
 * cl->scaledScreen->frameBuffer and write to the socket as they go, so a
 * client on a slow link would hold whatever they read for as long as its
 * writes take. Each stock client therefore gets a 1:1 "scaled screen" of
 * its own over a private copy of the frame: at the start of a pass its
 * modified region is copied into it under frame_lock (read), which is
 * then let go; the encoders read the copy while the source writes new
 * frames. A change marked while the pass runs is kept aside (conn->late)
 * and becomes modified again at the pass's end, because LibVNCServer
 * subtracts the region it sends, taken before the hook, from
 * modifiedRegion after it: a newer change inside it would be lost. So no
 * stock update mixes two frames, and a slow stock client delays no one but
 * itself. A client that asked for real scaling (SetScale) reads
 * LibVNCServer's scaled screen, which the source updates under the write
 * lock: its pass holds the read lock throughout.
 */
#include <glib.h>
#include <rfb/rfb.h>
#include <rfb/rfbregion.h>
#include <pthread.h>

#include "common/vg_time.h"
#include "server/vg_monitor.h"
#include "server/vg_serverpriv.h"

/* Makes c->own_screen a 1:1 screen of the current frame's size and, the
 * first time, this client's cl->scaledScreen. Returns false if the client
 * reads another scaled screen (it asked for scaling). On the output thread
 * with sendMutex held, or in vg_server_resize with it held; caller holds
 * frame_lock. */
bool vg__stock_fit(rfbClientPtr cl, vg_conn *c)
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
void vg__stock_pass_begin(rfbClientPtr cl, vg_conn *c)
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
	if (s->shared_read || !vg__stock_fit(cl, c)) {
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

/* After every pass, on the same thread: lets go of the frame, records
 * the pass for the monitor, and marks what changed meanwhile. Does
 * nothing after a Varg pass. */
void vg__stock_pass_end(rfbClientPtr cl, vg_conn *c)
{
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
}
