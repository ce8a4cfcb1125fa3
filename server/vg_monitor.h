/* The server's monitor: what each update cost, stage by stage.
 *
 * Senders record one fixed-size record per update (nanoseconds per stage,
 * bytes) into a ring of the last N updates; recording is a copy under a
 * mutex, nothing is computed. Statistics (mean, median, 99th percentile
 * per stage, ratio of raw to sent bytes) are computed from the ring only
 * when asked, by vg_monitor_summarize(). Thread-safe; no I/O.
 */
#ifndef VG_MONITOR_H
#define VG_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	VG_STAGE_SNAPSHOT = 0,    /* copying the due pixels out of the frame */
	VG_STAGE_DIFFER,          /* what changed since the viewer's last update */
	VG_STAGE_MOTION,          /* movement estimation (0 when shared) */
	VG_STAGE_SEGMENTER,       /* segmentation and content hashes (0 when shared) */
	VG_STAGE_SENDER,          /* fingerprints, literals, zlib */
	VG_STAGE_WRITE,           /* the socket write; for stock clients the whole
				   * LibVNCServer pass, encoding included */
	VG_STAGE_LATENCY,         /* from the frame change the update carries to
				   * the end of its write */
	VG_STAGE_COUNT
} vg_stage;

/* One update. */
typedef struct {
	uint64_t ns[VG_STAGE_COUNT];
	uint64_t raw_bytes;       /* 4 bytes per pixel of the rectangles sent */
	uint64_t sent_bytes;      /* bytes written */
	bool stock;               /* a LibVNCServer encoding: only WRITE and LATENCY */
	bool shared;              /* motion and segments came from another viewer */
} vg_monitor_update;

typedef struct {
	uint64_t n;               /* records that measured the stage */
	double mean_ns;
	uint64_t p50_ns, p99_ns, max_ns;
} vg_stage_summary;

typedef struct {
	uint64_t updates;         /* recorded since the start, Varg and stock */
	uint64_t raw_bytes, sent_bytes; /* Varg updates since the start */
	/* Over the records still in the ring: */
	uint64_t window;          /* records summarised */
	uint64_t window_shared;   /* Varg records whose segments were shared */
	uint64_t window_raw, window_sent; /* Varg records' bytes */
	vg_stage_summary varg[VG_STAGE_COUNT];
	vg_stage_summary stock[VG_STAGE_COUNT]; /* WRITE and LATENCY only */
} vg_monitor_summary;

typedef struct vg_monitor vg_monitor;

/* A monitor keeping the last ring updates (16..1048576). VG_EINVAL
 * otherwise. Free with vg_monitor_free(). */
int vg_monitor_new(size_t ring, vg_monitor **out);

/* Frees m; accepts NULL. */
void vg_monitor_free(vg_monitor *m);

/* Records one update (copied). */
void vg_monitor_record(vg_monitor *m, const vg_monitor_update *u);

/* Computes the statistics now (allocates scratch; not for hot paths). */
void vg_monitor_summarize(vg_monitor *m, vg_monitor_summary *out);

/* A stage's short name ("snapshot", "differ", ...); a static string. */
const char *vg_stage_name(vg_stage stage);

#endif
