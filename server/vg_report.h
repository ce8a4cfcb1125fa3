/* What a running server tells its operator: a status line every few
 * seconds, a summary when asked (SIGUSR1), and its counts as JSON at
 * exit, with each viewer's bytes. Shared by varg-server and varg-relay.
 */
#ifndef VG_REPORT_H
#define VG_REPORT_H

#include <stdint.h>

#include "server/vg_server.h"

typedef struct vg_report vg_report;

/* The signals of a server program, from now on: SIGINT and SIGTERM call
 * on_stop (which must be async-signal-safe), SIGUSR1 prints the running
 * report's summary (ignored while none runs), SIGPIPE is ignored (a
 * client that vanishes mid-write must not kill the server). Call once,
 * early. */
void vg_report_catch_signals(void (*on_stop)(int sig));

/* Starts the status thread of srv: a line on stderr every interval
 * seconds (0: never), the summary on each SIGUSR1. prog names the
 * program in the summary. NULL (and a warning) when no pipe can be made:
 * the server runs without reports. One report at a time. */
vg_report *vg_report_start(vg_server *srv, const char *prog, int interval);

/* Stops the thread and frees r; accepts NULL. Call before freeing the
 * server. */
void vg_report_stop(vg_report *r);

/* What a relay adds to its counts: its upstream connection. */
typedef struct {
	uint64_t bytes_received;  /* from the upstream server */
	uint64_t updates;         /* its framebuffer updates */
	uint64_t cache_hits;      /* segments the relay's cache held */
	uint64_t cache_misses;
	uint64_t connections;     /* connections made (1 + reconnections) */
} vg_report_upstream;

/* Writes srv's counts to path as one JSON object (keys in
 * varg-server(1)): frames played, and "viewers", one object a client
 * past its handshake, connected or gone (the last VG_PAST_VIEWERS),
 * with its bytes sent; up (may be NULL) as "upstream_*" keys. VG_EIO
 * when the file cannot be written. */
int vg_report_write_json(const char *path, vg_server *srv, uint64_t frames,
			 const vg_report_upstream *up);

#endif
