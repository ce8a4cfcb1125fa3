/* Inside varg-server's screen: the state its parts share. vg_server.c
 * owns the screen, the frame and its lock, and the clients' lifecycle;
 * vg_vargclient.c a Varg viewer's update path; vg_stockclient.c a stock
 * client's frame of its own; vg_desktop.c input, clipboard, cursor and
 * passwords. Not for use outside server/.
 */
#ifndef VG_SERVERPRIV_H
#define VG_SERVERPRIV_H

#include <pthread.h>
#include <rfb/rfb.h>
#include <rfb/rfbregion.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"
#include "common/vg_writer.h"
#include "fingerprint/cache/vg_beliefstore.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/proto/vg_sender.h"
#include "pipeline/vg_pipeline.h"
#include "server/vg_authguard.h"
#include "server/vg_listener.h"
#include "server/vg_monitor.h"
#include "server/vg_refine.h"
#include "server/vg_segshare.h"
#include "server/vg_server.h"
#include "server/vg_serverkey.h"

/* Most updates a viewer may have in flight (doc/protocol.md): requests
 * beyond this are not counted, so a viewer cannot make us queue more. */
#define MAX_CREDITS 8

struct vg_server {
	vg_server_config cfg;
	rfbScreenInfoPtr screen;
	vg_pixbuf *frame;         /* shared with LibVNCServer as frameBuffer */
	vg_listener *listener;    /* the accept path, in front of LibVNCServer */
	char *http_roots[4];      /* with HTTP: Varg's web files (viewer/web/),
				   * then cfg.http_root; NULL-ended, owned */
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
	uint64_t test_link_rate;  /* testing aid: bytes/s the refinement planner assumes */
	bool race_fix;            /* testing aid: off only to show the race */
	pthread_mutex_t stats_lock; /* stats and live_conns */
	pthread_cond_t conns_gone;
	unsigned live_conns;      /* vg_conn not yet freed; waited for at shutdown */
	vg_server_stats stats;
	char *passwords[3];       /* NULL-terminated, full access first */
	GPtrArray *old_frames;    /* vg_pixbuf: frames before a resize (see vg_server_resize) */
	GArray *past_viewers;     /* vg_server_viewer: the last VG_PAST_VIEWERS gone */
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
	/* Under lock: capabilities announced ahead of the VIEWER HELLO. */
	uint8_t caps[VG_CAPS_COUNT];
	unsigned caps_seen;       /* bit i: caps[i] arrived */
	bool hello_ahead;         /* the HELLO rides in the first update's message */
	int zstd_level;           /* of this viewer's streams (zstd_level_for) */
	vg_sender *sender;
	vg_pixbuf *snapshot;      /* private copy of the pixels being sent */
	vg_writer out;
	vg_region *repair;        /* asked for again: send as pixels (under lock) */
	vg_region *approximate;   /* sent approximately: exact pixels owed (under lock) */
	vg_refine *refine;        /* when to approximate (under lock) */
	GArray *exact_segs;       /* vg_segdesc: an approximating update's exact part */
	GArray *approx_rects;     /* vg_rect: ... and what it approximates */
	vg_region *refined;       /* this pass's share of the refinement (under lock) */
	bool refining;            /* this pass may approximate (under lock) */
	GArray *rects;            /* vg_rect: the due region */
	vg_pipeline *pipe;        /* differ (what the viewer was sent) to sender */
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

/* vg_server.c */

/* Varg sends pixels in the server's own format only; other formats fall
 * back to LibVNCServer's encoders, which translate. */
bool vg__format_is_native(const rfbPixelFormat *f);

/* vg_vargclient.c: a Varg viewer's update path. */

/* Registers the Varg pseudo-encoding with LibVNCServer (once). */
void vg__varg_register(void);

/* The request hook: one FramebufferUpdateRequest, one credit. */
void vg__varg_request(rfbClientPtr cl, rfbFramebufferUpdateRequestMsg *msg);

/* One pass of the output thread for a Varg viewer in the server's
 * format, and the end of every pass (credits); with sendMutex held. */
void vg__varg_pass(rfbClientPtr cl, vg_conn *c);
void vg__varg_pass_end(rfbClientPtr cl, vg_conn *c);

/* The viewer's state at a new frame size; caller holds the client's
 * sendMutex and frame_lock. */
void vg__varg_resize(vg_conn *c, int32_t width, int32_t height);

/* Writes this viewer's beliefs to its file (any thread; takes c->lock),
 * and logs the session's account. */
void vg__varg_save_beliefs(vg_conn *c, const char *host);
void vg__varg_log_session(vg_conn *c, const char *host);

/* vg_stockclient.c: a stock client's frame of its own. */

/* Fits c's own screen to the frame; false if the client reads another
 * scaled screen. Caller holds frame_lock and sendMutex. */
bool vg__stock_fit(rfbClientPtr cl, vg_conn *c);

/* The start and the end of a stock client's pass, with sendMutex held;
 * the end does nothing after a Varg pass. */
void vg__stock_pass_begin(rfbClientPtr cl, vg_conn *c);
void vg__stock_pass_end(rfbClientPtr cl, vg_conn *c);

/* vg_desktop.c */

/* Installs input, clipboard and password hooks on a new screen. */
void vg__desktop_setup(vg_server *s, rfbScreenInfoPtr screen);

/* Seconds for which cl's address may not try a password (0: it may). */
unsigned vg__auth_blocked(vg_server *s, rfbClientPtr cl);

/* Adds a leaving client's LibVNCServer counts to the totals. */
void vg__account_gone(rfbClientPtr cl);

#endif
