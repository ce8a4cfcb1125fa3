/* A stock client's frame of its own: the room of the clients that get
 * LibVNCServer's encoders (vg_stockclient.c says why they read a copy).
 * Called by the core (vg_server.c) only, which creates one for every
 * client.
 */
#ifndef VG_STOCKCLIENT_H
#define VG_STOCKCLIENT_H

#include <rfb/rfb.h>
#include <rfb/rfbregion.h>
#include <stdbool.h>

#include "server/vg_screen.h"

typedef struct vg_stockclient vg_stockclient;

/* A client's state; nothing is copied before its first pass. Free with
 * vg_stockclient_free, after vg_stockclient_gone. */
vg_stockclient *vg_stockclient_new(vg_screen *scr);

/* Frees c; accepts NULL. */
void vg_stockclient_free(vg_stockclient *c);

/* The client is leaving (its client-gone hook): its scaled screen is the
 * main screen again before c's goes. */
void vg_stockclient_gone(rfbClientPtr cl, vg_stockclient *c);

/* The start and the end of a stock client's pass, on its output thread
 * with sendMutex held: the start sends the update, LibVNCServer's send
 * then has nothing left to do; the end does nothing after a Varg pass. */
void vg_stockclient_pass_begin(rfbClientPtr cl, vg_stockclient *c);
void vg_stockclient_pass_end(rfbClientPtr cl, vg_stockclient *c);

/* Fits c's own frame to the frame's new size, if it has one. Caller
 * holds the write lock and the client's sendMutex. */
void vg_stockclient_resize(rfbClientPtr cl, vg_stockclient *c);

/* Keeps a newly modified rgn aside while c's pass encodes from its own
 * frame, and returns true; false (rgn not taken) otherwise. Caller holds
 * the client's updateMutex. */
bool vg_stockclient_defer(vg_stockclient *c, sraRegion *rgn);

#endif
