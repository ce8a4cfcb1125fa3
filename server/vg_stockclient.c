/* A stock client's frame of its own. LibVNCServer's encoders read
 * cl->scaledScreen->frameBuffer and write to the socket as they go, so a
 * client on a slow link would hold whatever they read for as long as its
 * writes take. Each stock client therefore gets a 1:1 "scaled screen" of
 * its own over a private copy of the frame: at the start of a pass its
 * modified region is copied into it under frame_lock (read), which is
 * then let go; the encoders read the copy while the source writes new
 * frames. A change marked while the pass runs is kept aside (c->late)
 * and becomes modified again at the pass's end: a newer change inside the
 * region being sent would otherwise be subtracted with it and lost.
 *
 * LibVNCServer's output thread copies modifiedRegion before the hook,
 * without the frame lock; a frame written in between would be sent only
 * where that older region covers it, half of it on the client's screen.
 * So the hook sends the update itself, of the region it copied under the
 * lock, and LibVNCServer's own send finds nothing left requested. No stock
 * update mixes two frames, and a slow stock client delays no one but
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
#include "server/vg_screen.h"
#include "server/vg_stockclient.h"

struct vg_stockclient {
	vg_screen *screen;
	/* Under cl->updateMutex: */
	bool encoding;            /* a pass encodes from own_frame */
	sraRegion *late;          /* marked while it does: modified after it */
	/* On the output thread only (and in vg_server_resize, under sendMutex): */
	rfbScreenInfo *own_screen; /* cl->scaledScreen, 1:1 over own_frame */
	vg_pixbuf *own_frame;     /* the frame as this client is sent it */
	bool reading;             /* this pass holds the frame lock for reading */
	bool sending;             /* the pass's own send calls the hooks again */
	int lib_sent;             /* LibVNCServer's FramebufferUpdate count at the pass's start */
	int lib_bytes;            /* its byte count at the pass's start */
	uint64_t pass_ns;         /* when a pass started */
	uint64_t pass_frame_ns;   /* when the frame it reads changed */
};

vg_stockclient *vg_stockclient_new(vg_screen *scr)
{
	vg_stockclient *c = g_new0(vg_stockclient, 1);

	c->screen = scr;
	c->late = sraRgnCreate();
	return c;
}

void vg_stockclient_free(vg_stockclient *c)
{
	if (!c)
		return;
	sraRgnDestroy(c->late);
	g_free(c->own_screen);
	vg_pixbuf_free(c->own_frame);
	g_free(c);
}

void vg_stockclient_gone(rfbClientPtr cl, vg_stockclient *c)
{
	/* LibVNCServer is done with cl->scaledScreen (it dropped its count
	 * before this hook); point it back at the screen before ours goes. */
	if (c->own_screen && cl->scaledScreen == c->own_screen)
		cl->scaledScreen = cl->screen;
}

bool vg_stockclient_defer(vg_stockclient *c, sraRegion *rgn)
{
	if (!c->encoding)
		return false;
	sraRgnOr(c->late, rgn);
	return true;
}

/* Makes c->own_screen a 1:1 screen of the current frame's size and, the
 * first time, this client's cl->scaledScreen. Returns false if the client
 * reads another scaled screen (it asked for scaling). On the output thread
 * with sendMutex held, or in vg_server_resize with it held; caller holds
 * frame_lock. */
static bool fit(rfbClientPtr cl, vg_stockclient *c)
{
	const vg_pixbuf *frame = vg_screen_frame(c->screen);
	rfbScreenInfo *own = c->own_screen;

	if (cl->scaledScreen != cl->screen && (!own || cl->scaledScreen != own))
		return false;
	if (!own) {
		own = c->own_screen = g_new0(rfbScreenInfo, 1);
		own->bitsPerPixel = cl->screen->bitsPerPixel;
		own->depth = cl->screen->depth;
		own->serverFormat = cl->screen->serverFormat;
	}
	if (!c->own_frame || c->own_frame->width != frame->width ||
	    c->own_frame->height != frame->height) {
		vg_pixbuf *copy = vg_pixbuf_new(frame->width, frame->height);

		if (!copy)
			return false;
		/* The whole screen is modified after a resize: no need to
		 * fill the new copy here. */
		vg_pixbuf_free(c->own_frame);
		c->own_frame = copy;
		own->width = copy->width;
		own->height = copy->height;
		own->paddedWidthInBytes = copy->stride * 4;
		own->frameBuffer = (char *)copy->pixels;
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

void vg_stockclient_resize(rfbClientPtr cl, vg_stockclient *c)
{
	if (c->own_screen)
		fit(cl, c);
}

/* Sends due (what was modified when the frame was locked) in
 * LibVNCServer's encodings, with this client's hooks turned off for the
 * call. A pending desktop-size marker is left to the caller's send, which
 * sends it alone. */
static void send_due(rfbClientPtr cl, vg_stockclient *c, sraRegion *due)
{
	if (cl->useNewFBSize && cl->newFBSizePending)
		return;
	c->sending = true;
	rfbSendFramebufferUpdate(cl, due);
	c->sending = false;
}

/* A stock client's pass begins: its modified region is copied from the
 * frame into its own and sent, and changes from now until the finished
 * hook are kept in c->late. On the output thread with sendMutex held. */
void vg_stockclient_pass_begin(rfbClientPtr cl, vg_stockclient *c)
{
	vg_screen *s = c->screen;
	const vg_pixbuf *frame;
	sraRectangleIterator *it;
	sraRegion *due;
	sraRect sr;
	bool shared;

	if (c->sending)
		return;
	if (vg_screen_testing_aids(s)->pass_delay_ms)
		g_usleep((gulong)vg_screen_testing_aids(s)->pass_delay_ms * 1000);
	frame = vg_screen_read_lock(s);
	if (vg_screen_monitor(s)) {
		c->pass_ns = vg_time_ns();
		c->pass_frame_ns = vg_screen_frame_ns(s);
		c->lib_sent = rfbStatGetMessageCountSent(cl, rfbFramebufferUpdate);
		c->lib_bytes = rfbStatGetSentBytes(cl);
	}
	/* Encoders read a frame the source writes unless this client has
	 * its own copy of the frame to encode from. */
	shared = vg_screen_testing_aids(s)->shared_read || !fit(cl, c);
	LOCK(cl->updateMutex);
	due = sraRgnCreateRgn(cl->modifiedRegion);
	c->encoding = !shared;
	UNLOCK(cl->updateMutex);
	if (shared) {
		/* Hold the read lock until the finished hook. */
		c->reading = true;
	} else {
		it = sraRgnGetIterator(due);
		while (sraRgnIteratorNext(it, &sr)) {
			vg_rect r = vg_rect_intersect(vg_rect_make(sr.x1, sr.y1, sr.x2 - sr.x1, sr.y2 - sr.y1),
						      vg_pixbuf_rect(frame));

			if (!vg_rect_is_empty(r))
				vg_pixbuf_copy_rect(c->own_frame, frame, r);
		}
		sraRgnReleaseIterator(it);
		vg_screen_read_unlock(s);
	}
	send_due(cl, c, due);
	sraRgnDestroy(due);
}

/* After every pass, on the same thread: lets go of the frame, records
 * the pass for the monitor, and marks what changed meanwhile. Does
 * nothing after a Varg pass. */
void vg_stockclient_pass_end(rfbClientPtr cl, vg_stockclient *c)
{
	vg_monitor *monitor = vg_screen_monitor(c->screen);

	if (c->sending)
		return;
	if (c->reading) {
		c->reading = false;
		vg_screen_read_unlock(c->screen);
	}
	/* A stock client's pass (pass_ns is set only for those). */
	if (c->pass_ns) {
		if (monitor &&
		    rfbStatGetMessageCountSent(cl, rfbFramebufferUpdate) != c->lib_sent) {
			vg_monitor_update u = { .stock = true };
			uint64_t now = vg_time_ns();

			u.ns[VG_STAGE_WRITE] = now - c->pass_ns;
			u.ns[VG_STAGE_LATENCY] = now > c->pass_frame_ns ? now - c->pass_frame_ns : 0;
			u.sent_bytes = (uint64_t)(rfbStatGetSentBytes(cl) - c->lib_bytes);
			vg_monitor_record(monitor, &u);
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
