/* The measuring pipeline behind `varg-trace ratio`: every frame update of
 * a trace goes through the differ, then through each segmenter variant's
 * own vg_sender -> vg_receiver pair (in-process, the receiver drawing into
 * its own framebuffer), and through LibVNCServer's stock encoders
 * (vg_stockenc.h). Per-update bytes and times are kept for Formula 1.
 *
 * The first variant is the main pipeline (Tables 8 and 9); the others are
 * the comparison rows of Table 12: varg without movement estimation, varg
 * without similar-run detection (similar_run = 0), and the other methods
 * with their default parameters. KARPRABIN leaves gaps: the pipeline adds
 * static 16x16 tiles over every gap, so its viewer stays exact too.
 */
#ifndef VG_RATIO_H
#define VG_RATIO_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "fingerprint/proto/vg_receiver.h"
#include "fingerprint/proto/vg_sender.h"
#include "fingerprint/codec/vg_zstream.h"
#include "pipeline/vg_workers.h"
#include "segment2d/vg_segmenter.h"
#include "traces/vg_stockenc.h"

typedef struct {
	vg_segparams params;        /* the main pipeline's segmenter */
	bool no_motion;             /* main pipeline without movement estimation */
	bool no_moves;              /* sender: with it, but no MOVE runs */
	bool no_indexed;            /* sender: no literal blocks of the shared colour table */
	bool no_repeat_within;      /* sender: no REPEATs within an update */
	bool no_pixmodel;           /* sender: literal methods and zstd only, no pixel model */
	bool trace_damage;          /* send the trace's own rectangles, not the
				     * differ's tighter ones */
	int zlib_level;             /* the Zlib encoding's deflate level */
	int zstd_level;             /* its zstd level; 0: zlib, as older viewers */
	unsigned zstd_window_log;   /* the viewer's zstd window (log2 bytes) */
	bool variants;              /* also run the Table 12 variants */
	bool stock;                 /* also run LibVNCServer's encoders */
	bool progress;              /* a progress bar on stderr */
	unsigned fp_bits;           /* optimistic fingerprint bits; 0: sender's default */
	unsigned group_size;        /* segments per SHA-1 check; 0: default */
	uint64_t cache_size;        /* viewer's cache capacity; 0: default */
	vg_stockenc_config stock_cfg;
	vg_workers *workers;        /* borrowed, may be NULL: threads for the
				     * segment step, as the server's */
} vg_ratio_options;

/* What one variant measured. Arrays have one element per update. */
typedef struct {
	uint64_t wire_bytes;        /* FramebufferUpdate messages as the server
				     * writes them: 4-byte header, per rectangle
				     * 12-byte header + 4-byte length + body,
				     * HELLO included */
	uint64_t rect_bytes;        /* bodies + their 4-byte lengths: what
				     * varg-viewer counts as varg_bytes */
	uint64_t gap_segments;      /* KARPRABIN: static tiles added */
	vg_sender_stats sender;     /* at the end of the run */
	vg_receiver_stats receiver;
	bool exact;                 /* the receiver's frame was the trace's after
				     * every update (and its repairs) */
	uint64_t inexact_updates;   /* updates after which it was not */
	GArray *upd_bytes;          /* uint64_t: wire bytes of each update */
	GArray *upd_ms;             /* double: differ + segment + encode */
	GArray *diff_ms;            /* double: the pipeline's differ */
	GArray *seg_ms;             /* double: motion + segmenter + hashes */
	GArray *enc_ms;             /* double: vg_sender_update (incl. zlib and
				     * SHA-1) */
	GArray *sha1_ms;            /* double: the sender's SHA-1 time */
	GArray *dec_ms;             /* double: vg_receiver_handle (decompression,
				     * literal decoding, cache, SHA-1 checks) */
	uint64_t repair_rects;      /* rectangles the viewer asked for again */
} vg_ratio_totals;

typedef struct vg_ratio_variant vg_ratio_variant;

typedef struct {
	int32_t width, height;
	uint64_t frames;            /* frame records */
	uint64_t updates;           /* frame records with changed pixels */
	uint64_t raw_bytes;         /* frames x width x height x 4 */
	uint64_t diff_bytes;        /* changed pixels x 4 */
	GArray *diff_ms;            /* double per update */
	GArray *raw_upd;            /* uint64_t per update: changed pixels x 4 */
	GPtrArray *variants;        /* vg_ratio_variant *, main pipeline first */
	uint64_t stock_total[VG_STOCKENC_COUNT];
	uint64_t stock_ns[VG_STOCKENC_COUNT];
	GArray *stock_bytes[VG_STOCKENC_COUNT]; /* uint64_t per update */
	GArray *stock_ms[VG_STOCKENC_COUNT];    /* double per update */
	/* The pointer's shapes, apart from the updates' bytes: */
	uint64_t cursors;           /* cursor records */
	uint64_t cursor_bytes;      /* as CURSOR rectangles (12 + 4 + body) */
	uint64_t rich_cursor_bytes; /* as RFB rich cursor rectangles */
} vg_ratio_result;

/* Fills o with the defaults: the Varg segmenter's defaults, zlib level 6,
 * variants and stock encoders on, no progress bar. */
void vg_ratio_options_init(vg_ratio_options *o);

/* Runs the trace at path. On failure prints one line through vg_error()
 * and returns a negative VG_E code; res must still be cleared. */
int vg_ratio_run(const char *path, const vg_ratio_options *o, vg_ratio_result *res);

/* Frees what res holds; res may be cleared twice. */
void vg_ratio_result_clear(vg_ratio_result *res);

/* A variant's name ("varg", "varg-nomotion", ...) and totals, valid as
 * long as the result. */
const char *vg_ratio_variant_name(const vg_ratio_variant *v);
const vg_ratio_totals *vg_ratio_variant_totals(const vg_ratio_variant *v);

#endif
