/* Shared segmentation: movement estimation and segmentation done once for
 * Varg viewers that are in step.
 *
 * Each viewer keeps its own differ, movement estimator and sender. After
 * its differ has said what changed, a viewer asks the share whether an
 * earlier viewer already estimated and segmented the same input: the same
 * frame (its serial number, bumped by every change to the server's frame),
 * the same changed rectangles, the same extra rectangles (repairs) and a
 * movement estimator remembering exactly the same previous frame (its
 * state bytes are compared, so viewers that fell out of step and caught up
 * again share again). On a hit the viewer takes the direction, the
 * segments (copied into its own array) and the estimator's state after the
 * estimate (loaded into its own estimator), and computes nothing. On a
 * miss it claims a slot, computes as it would alone, and publishes the
 * result; a viewer asking for the same input meanwhile waits for that
 * result instead of computing it a second time. Nothing of the result
 * depends on who computed it, so what each viewer is sent is unchanged.
 *
 * Bounded memory: a fixed number of slots, each holding one result (its
 * rectangles, segments and two estimator states, buffers reused); a new
 * result replaces the least recently used finished one. Thread-safe: one
 * mutex, held for the key comparison and the copies, never during an
 * estimate or a segmentation. No I/O.
 */
#ifndef VG_SEGSHARE_H
#define VG_SEGSHARE_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_rect.h"
#include "common/vg_segdesc.h"
#include "segment2d/vg_motion.h"

typedef struct vg_segshare vg_segshare;

/* A slot claimed by a viewer that computes its result. */
typedef struct vg_segshare_slot vg_segshare_claim;

/* One viewer's input. rects[0..n_changed) are what its differ found
 * changed (the movement estimator's input, never NULL), rects[n_changed..
 * n_rects) the repairs added to them; all of rects go to the segmenter. */
typedef struct {
	uint64_t serial;          /* the frame the viewer's pixels come from */
	const vg_rect *rects;
	size_t n_rects;
	size_t n_changed;
} vg_segshare_input;

typedef struct {
	uint64_t hits;            /* results taken from another viewer */
	uint64_t misses;          /* results computed and published */
	uint64_t waits;           /* lookups that waited for a result being computed */
	uint64_t wait_ns;         /* time spent in those waits */
	uint64_t evictions;       /* finished results replaced by new ones */
	uint64_t unshared;        /* computed without a slot: estimator not primed
				   * (it would read the whole frame) or every
				   * slot being computed */
} vg_segshare_stats;

/* Creates a share of slots results (1..64). VG_EINVAL otherwise. */
int vg_segshare_new(unsigned slots, vg_segshare **out);

/* Frees sh and every result; no claim may be open. Accepts NULL. */
void vg_segshare_free(vg_segshare *sh);

/* Looks for in's result for an estimator in motion's state. On a hit
 * returns VG_OK: motion holds the state the estimate would have left, *dir
 * the direction, segs (a GArray of vg_segdesc, emptied first) the
 * segments, and *claim is NULL. Otherwise returns VG_ENOENT and the caller
 * computes; if *claim is not NULL it then hands the result over with
 * vg_segshare_publish() or, on failure, gives the slot up with
 * vg_segshare_abandon(). May wait while another viewer computes the same
 * input. */
int vg_segshare_lookup(vg_segshare *sh, const vg_segshare_input *in, vg_motion *motion,
			vg_motion_dir *dir, GArray *segs, vg_segshare_claim **claim);

/* Publishes the result of a claimed slot: motion after its estimate, the
 * direction and the segments; wakes viewers waiting for it. */
void vg_segshare_publish(vg_segshare *sh, vg_segshare_claim *claim, const vg_motion *motion,
			 vg_motion_dir dir, const vg_segdesc *segs, size_t n_segs);

/* Frees a claimed slot without a result; accepts NULL. */
void vg_segshare_abandon(vg_segshare *sh, vg_segshare_claim *claim);

void vg_segshare_get_stats(vg_segshare *sh, vg_segshare_stats *st);

#endif
