/* Plays a recorded trace (.vtr) into a server's framebuffer. */
#ifndef VG_TRACESOURCE_H
#define VG_TRACESOURCE_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "server/vg_server.h"

typedef struct vg_tracesource vg_tracesource;

typedef struct {
	double speed;          /* 1.0 real time, 2.0 twice as fast; 0: as fast as the clients take it */
	bool loop;             /* start again at the end */
	int pace_timeout_ms;   /* speed 0: longest wait for a slow client per frame */
	int wait_clients;      /* start playing once this many clients are connected */
	bool progress;         /* print a line per second of playback on stderr */
	FILE *frame_log;       /* if not NULL, a line per frame played: "T_NS FRAME HASH"
	                        * (vg_time_ns() once the server has it, frame number
	                        * from 0, the record's frame hash in 16 hex digits) */
} vg_tracesource_options;

void vg_tracesource_options_init(vg_tracesource_options *o);

/* Opens path and reads its header; errors are the trace reader's. */
int vg_tracesource_open(const char *path, vg_tracesource **out);

int32_t vg_tracesource_width(const vg_tracesource *t);
int32_t vg_tracesource_height(const vg_tracesource *t);

/* Plays the trace into srv until its end (or forever with loop) or until
 * *stop becomes non-zero. Returns 0, or a negative code when a record is
 * corrupt (vg_tracesource_error_text() names it; frames before it were
 * played). */
int vg_tracesource_play(vg_tracesource *t, vg_server *srv, const vg_tracesource_options *o,
			const volatile sig_atomic_t *stop);

const char *vg_tracesource_error_text(const vg_tracesource *t);

/* Number of frames played so far. */
uint64_t vg_tracesource_frames(const vg_tracesource *t);

void vg_tracesource_free(vg_tracesource *t);

#endif
