/* One Varg update, from a picture to the bytes of its UPDATE body: the
 * differ keeps what really changed of the damage (against what this
 * viewer was sent), repairs are added as they are, movement estimation
 * picks rows or columns, what moved becomes MOVE runs, the segmenter
 * cuts the rest, and the viewer's vg_sender codes it. varg-server (for
 * each Varg viewer) and varg-trace ratio (for each variant it measures)
 * both run their updates through this module, so the tool measures what
 * the server sends.
 *
 * An update is three calls, always in this order:
 *   vg_pipeline_begin()    differ, and what is to be coded (the "todo")
 *   vg_pipeline_segment()  movement estimation, moves, segmenter
 *   vg_pipeline_send()     the sender
 * Between them a caller may add to the todo (vg_pipeline_add: the
 * server's progressive refinement), take the estimate and the segments
 * that another viewer's pipeline computed for the same input instead of
 * segmenting (vg_pipeline_motion, vg_pipeline_take), or replace the
 * segments before they are sent (vg_pipeline_take again: the server's
 * approximation, varg-trace's gap tiles).
 *
 * No I/O, no globals, no locks: one pipeline is used by one thread at a
 * time (the server holds the viewer's lock). Its segment step may borrow
 * the program's workers for the length of the call.
 */
#ifndef VG_PIPELINE_H
#define VG_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"
#include "common/vg_segdesc.h"
#include "common/vg_writer.h"
#include "fingerprint/proto/vg_sender.h"
#include "pipeline/vg_workers.h"
#include "segment2d/vg_motion.h"
#include "segment2d/vg_segmenter.h"

typedef struct vg_pipeline vg_pipeline;

typedef struct {
	vg_segparams params;  /* the segmenter's */
	bool motion;          /* estimate movement (else always rows) */
	bool moves;           /* MOVE runs, when the viewer takes them and
			       * movement estimation is on */
	bool trust_damage;    /* code the damage as given, not the differ's
			       * tighter changed rectangles */
	vg_workers *workers;  /* borrowed, may be NULL: threads that share the
			       * segment step; the result is the same */
} vg_pipeline_config;

/* Stage times of the last update, in nanoseconds, and what the segment
 * step added. A stage that did not run (segments taken from elsewhere)
 * reads 0. */
typedef struct {
	uint64_t differ_ns;
	uint64_t motion_ns;
	uint64_t segmenter_ns;    /* the segmenter, moves and gap tiles, and
				   * the estimator's remembering, which runs
				   * beside the segmenter across the workers */
	uint64_t sender_ns;
	uint64_t gap_segments;    /* static tiles over the segmenter's gaps */
} vg_pipeline_times;

/* Fills cfg with the server's pipeline: the Varg segmenter's defaults,
 * movement estimation and moves on, the differ's rectangles. */
void vg_pipeline_config_init(vg_pipeline_config *cfg);

/* Creates a pipeline for width x height pictures whose updates go to
 * sender. sender is borrowed: it must outlive the pipeline, and may be
 * used by the caller between updates (HELLO, the viewer's messages).
 * A segmentation method that leaves gaps (KARPRABIN) gets static tiles
 * over them, so the viewer ends exact. VG_EINVAL for bad parameters or
 * sizes (*out = NULL). Free with vg_pipeline_free(). */
int vg_pipeline_new(const vg_pipeline_config *cfg, int32_t width, int32_t height,
		    vg_sender *sender, vg_pipeline **out);

/* Frees p (not its sender); accepts NULL. */
void vg_pipeline_free(vg_pipeline *p);

/* A new picture size: the differ and the estimator start from nothing;
 * the segmenter and the sender are kept (segments are named by content,
 * not place). On failure (VG_EINVAL) p is unchanged. */
int vg_pipeline_resize(vg_pipeline *p, int32_t width, int32_t height);

/* The segmenter's parameters, valid as long as p. */
const vg_segparams *vg_pipeline_params(const vg_pipeline *p);

/* Starts an update of pic (the size of p; only the pixels around the
 * damage need be current: see VG_MOTION_STRIP) for damage[0..n_damage)
 * (NULL with 0: the whole picture): runs the differ, whose changed
 * rectangles start the todo, then adds what of again (may be NULL: the
 * regions the viewer asked for again) lies in the damage, as it is.
 * While again is not empty, the update has no moves. Errors: VG_EINVAL
 * for a picture of another size. */
int vg_pipeline_begin(vg_pipeline *p, const vg_pixbuf *pic, const vg_rect *damage,
		      size_t n_damage, const vg_region *again);

/* Adds rects[0..n) to the todo, coded as they are. Between begin and
 * segment. */
void vg_pipeline_add(vg_pipeline *p, const vg_rect *rects, size_t n);

/* The input of the segment step: the todo (never NULL; owned by p, valid
 * until the next call on p that changes it), of which the first
 * *n_changed are the differ's, the movement estimator's input. */
const vg_rect *vg_pipeline_todo(const vg_pipeline *p, size_t *n_todo, size_t *n_changed);

/* The movement estimator (NULL when off), borrowed: a caller that shares
 * results between viewers saves and loads its state (server/vg_segshare.h). */
vg_motion *vg_pipeline_motion(vg_pipeline *p);

/* Segments the todo of pic: estimates the movement over the changed
 * rectangles, cuts what moved into MOVE runs (when on, the viewer takes
 * them, and no repair forbids them), and runs the segmenter on the rest,
 * across the movement. owed (may be NULL): where the viewer's picture is
 * not exact; no move takes its source there, and the caller carries it
 * through the moves (vg_region_carry). Errors: the segmenter's and the
 * estimator's. */
int vg_pipeline_segment(vg_pipeline *p, const vg_pixbuf *pic, const vg_region *owed);

/* Takes segs[0..n) (copied; they may be p's own) as the update's
 * segments and dir as its movement, instead of segmenting or after it:
 * segments another viewer's pipeline computed for the same input (taken
 * before vg_pipeline_segment, when the update has no moves), or the
 * caller's selection of them (after it; the moves stay, and segs must
 * not cover them). */
void vg_pipeline_take(vg_pipeline *p, vg_motion_dir dir, const vg_segdesc *segs, size_t n);

/* The update's result so far, owned by p and valid until its next update:
 * its movement, its segments, and its moves (their number, or them). */
vg_motion_dir vg_pipeline_dir(const vg_pipeline *p);
const vg_segdesc *vg_pipeline_segments(const vg_pipeline *p, size_t *n);
size_t vg_pipeline_n_moves(const vg_pipeline *p);
const vg_move *vg_pipeline_moves(const vg_pipeline *p, size_t *n);

/* The bounds of the update's segments and moves (empty when none). */
vg_rect vg_pipeline_bounds(const vg_pipeline *p);

/* Appends to out the UPDATE body of the moves and segments, pixels read
 * from pic, those touching literal_only (may be NULL) as pixels. Errors
 * are the sender's (vg_sender_update_moves); after one the sender's
 * connection is unusable. */
int vg_pipeline_send(vg_pipeline *p, const vg_pixbuf *pic, const vg_region *literal_only,
		     vg_writer *out);

/* The last update's stage times, valid as long as p. */
const vg_pipeline_times *vg_pipeline_last_times(const vg_pipeline *p);

#endif
