/* Internal to varg-trace record: what its X display and VNC sources share. */
#ifndef VG_TRACE_CMD_REC_H
#define VG_TRACE_CMD_REC_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
	const char *display;   /* X display, or NULL */
	const char *vnc;       /* HOST:PORT of a VNC server, or NULL */
	const char *out;       /* trace to write */
	double duration;       /* seconds; 0: until a signal */
	double fps;            /* most frame records a second */
	int tile;              /* differencing tile size */
	int level;             /* zlib level */
	bool poll;             /* X: compare every tick, without XDamage */
	bool input;            /* record input events */
	bool quiet;            /* no summary */
	bool progress;         /* a progress line on the terminal */
} vg__trace_rec_options;

typedef struct {
	uint64_t frames;       /* frame records written */
	uint64_t inputs;       /* input records written */
} vg__trace_rec_stats;

/* SIGINT and SIGTERM set a flag that vg__trace_rec_stopped() reports and
 * interrupt poll(). */
void vg__trace_rec_catch_signals(void);
bool vg__trace_rec_stopped(void);

/* Rewrites the progress line on stderr (ends it when final). */
void vg__trace_rec_progress(const vg__trace_rec_stats *s, uint64_t now_ns, bool final);

/* Records the VNC server o->vnc; returns the exit status. */
int vg__trace_record_vnc(const vg__trace_rec_options *o);

#endif
