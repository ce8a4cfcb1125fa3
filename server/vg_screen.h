/* The screen's core as the parts around it see it: the frame and its
 * lock, the settings, the handles every client shares (segmentation
 * share, monitor, beliefs, the server's identity) and the counters. The
 * core (vg_server.c) owns a vg_screen and calls the rooms of each kind of
 * client (vg_vargclient.c, vg_stockclient.c) and the desktop's modules;
 * they reach the core through this header only. Not for use outside
 * server/.
 *
 * Lock order: a client's sendMutex -> the frame lock -> its updateMutex
 * -> the stats lock.
 */
#ifndef VG_SCREEN_H
#define VG_SCREEN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "fingerprint/proto/vg_cursorlist.h"
#include "pipeline/vg_workers.h"
#include "fingerprint/cache/vg_beliefstore.h"
#include "server/vg_monitor.h"
#include "server/vg_segshare.h"
#include "server/vg_serverconfig.h"

typedef struct vg_screen vg_screen;

/* What one client is to the core, in LibVNCServer's cl->clientData from
 * the new-client hook to the client-gone hook: the screen, and the
 * client's state in each room (owned by the core, which creates both for
 * every client). Read cl->clientData under cl->updateMutex on any thread
 * but the client's own. */
typedef struct {
	vg_screen *screen;
	struct vg_vargclient *varg;
	struct vg_stockclient *stock;
	/* The network socket when cl->sock is a TLS bridge's plain end (a
	 * duplicate, owned by the core, for TCP_INFO); -1: cl->sock is it. */
	int path_fd;
} vg_client;

/* Testing aids, from the environment (VARG_TEST_*). */
typedef struct {
	int send_delay_ms;        /* widens the request race */
	int pass_delay_ms;        /* widens the stock pass race */
	uint64_t link_rate;       /* bytes/s the refinement planner assumes; 0: measured */
	bool race_fix;            /* off only to show the race */
	bool shared_read;         /* stock clients encode from the shared frame */
} vg_screen_testing;

/* Counters, under the stats lock (vg_screen_stats_lock): the programs'
 * counts where the screen keeps them (the rest are computed when asked),
 * and LibVNCServer's counts of clients gone. */
typedef struct {
	vg_server_stats kept;
	uint64_t gone_bytes;      /* LibVNCServer's bytes to clients now gone */
	uint64_t gone_updates;    /* ... and its updates */
} vg_screen_stats;

/* A screen with a black width x height frame and cfg's settings (copied;
 * the strings must outlive it). VG_EINVAL, logged, when the shared
 * segmentation or the monitor cannot be set up. Free with
 * vg_screen_free. */
int vg_screen_new(const vg_server_config *cfg, int32_t width, int32_t height, vg_screen **out);

/* Opens the server's identity and, unless the settings say no_persist,
 * the beliefs kept under it (warnings, logged, when they cannot be kept).
 * Once, before the first client. */
void vg_screen_open_beliefs(vg_screen *scr);

/* Frees scr and every frame it had; accepts NULL. After every client. */
void vg_screen_free(vg_screen *scr);

/* The settings, valid as long as scr. */
const vg_server_config *vg_screen_config(const vg_screen *scr);
const vg_screen_testing *vg_screen_testing_aids(const vg_screen *scr);

/* The 16-byte identity viewers file this server's segments under. */
const uint8_t *vg_screen_server_id(const vg_screen *scr);

/* Shared handles, each NULL when not kept. */
vg_beliefstore *vg_screen_beliefs(const vg_screen *scr);
vg_segshare *vg_screen_share(const vg_screen *scr);
vg_monitor *vg_screen_monitor(const vg_screen *scr);

/* The threads the viewers' pipelines share (cfg->threads of them); never
 * NULL. */
vg_workers *vg_screen_workers(const vg_screen *scr);

/* The frame, for reading: between these two nothing writes it. */
const vg_pixbuf *vg_screen_read_lock(vg_screen *scr);
void vg_screen_read_unlock(vg_screen *scr);

/* The frame for the source to write: waits for every reader. */
vg_pixbuf *vg_screen_write_lock(vg_screen *scr);
void vg_screen_write_unlock(vg_screen *scr);

/* Makes frame (owned by scr from now on) the frame, with the write lock
 * held. The old one lives until scr is freed: LibVNCServer's threads may
 * still hold its address. */
void vg_screen_replace_frame(vg_screen *scr, vg_pixbuf *frame);

/* The frame itself (its size may be read without the lock: only a resize
 * changes it, while every client's sends wait), the count of writes to
 * it and when it last changed (these two under either lock). */
vg_pixbuf *vg_screen_frame(const vg_screen *scr);
uint64_t vg_screen_serial(const vg_screen *scr);
uint64_t vg_screen_frame_ns(const vg_screen *scr);

/* The pointer's shape, premultiplied ARGB as the source gave it, for
 * viewers that take it as a CURSOR message (LibVNCServer keeps only a
 * 1-bit mask). vg_screen_set_cursor copies it (VG_EINVAL out of range)
 * and counts it. vg_screen_cursor returns the count of shapes set (0
 * before the first); when that is not `since`, it also copies the last
 * shape into *shape, its pixels into argb (VG_CURSOR_MAX_DIM squared). */
int vg_screen_set_cursor(vg_screen *scr, const uint32_t *argb, int32_t width, int32_t height,
			 int32_t hot_x, int32_t hot_y);
uint64_t vg_screen_cursor(vg_screen *scr, uint64_t since, uint32_t *argb, vg_cursor_shape *shape);

/* Varg viewers connected now (atomic). */
void vg_screen_varg_joined(vg_screen *scr);
void vg_screen_varg_left(vg_screen *scr);
int vg_screen_varg_count(vg_screen *scr);

/* The counters, locked; unlock with vg_screen_stats_unlock. */
vg_screen_stats *vg_screen_stats_lock(vg_screen *scr);
void vg_screen_stats_unlock(vg_screen *scr);

#endif
