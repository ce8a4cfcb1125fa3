/* A Varg viewer's room: its update path (snapshot, segmentation, sender),
 * its messages, its beliefs across sessions and its update credits
 * (vg_vargclient.c says how they fit LibVNCServer). The core
 * (vg_server.c) creates one for every client and calls these; LibVNCServer
 * calls the Varg extension's hooks, which find the client's state through
 * the core's vg_client in cl->clientData.
 */
#ifndef VG_VARGCLIENT_H
#define VG_VARGCLIENT_H

#include <rfb/rfb.h>
#include <stdbool.h>
#include <stdint.h>

#include "server/vg_screen.h"

typedef struct vg_vargclient vg_vargclient;

/* What a Varg viewer was sent. */
typedef struct {
	uint64_t bytes_sent;      /* bytes of Varg updates */
	uint64_t updates;
	uint64_t fingerprints;    /* segments sent as fingerprints */
	uint64_t misses;          /* ... of which its cache did not hold (repairs) */
} vg_vargclient_stats;

/* Registers the Varg pseudo-encoding with LibVNCServer (once a process,
 * any thread). */
void vg_vargclient_register(void);

/* A client's state; it becomes a Varg viewer's when the client lists
 * VG_ENCODING. Free with vg_vargclient_free, after vg_vargclient_gone. */
vg_vargclient *vg_vargclient_new(vg_screen *scr);

/* Frees c; accepts NULL. */
void vg_vargclient_free(vg_vargclient *c);

/* The request hook (clientFramebufferUpdateRequestHook): one
 * FramebufferUpdateRequest, one credit. */
void vg_vargclient_request(rfbClientPtr cl, rfbFramebufferUpdateRequestMsg *msg);

/* Whether cl's passes are Varg passes: a Varg viewer in the server's own
 * pixel format. On its output thread. */
bool vg_vargclient_takes_pass(rfbClientPtr cl, const vg_vargclient *c);

/* One pass of the output thread for a Varg viewer, and the end of every
 * pass (credits); with sendMutex held. */
void vg_vargclient_pass(rfbClientPtr cl, vg_vargclient *c);
void vg_vargclient_pass_end(rfbClientPtr cl, vg_vargclient *c);

/* The viewer's state at a new frame size; caller holds the client's
 * sendMutex and the write lock. */
void vg_vargclient_resize(rfbClientPtr cl, vg_vargclient *c, int32_t width, int32_t height);

/* Fills out and returns true when cl is a Varg viewer; any thread. */
bool vg_vargclient_account(rfbClientPtr cl, vg_vargclient *c, vg_vargclient_stats *out);

/* The client is leaving (its client-gone hook): saves a Varg viewer's
 * beliefs and logs its session's account. */
void vg_vargclient_gone(rfbClientPtr cl, vg_vargclient *c);

#endif
