/* Movement estimation: did the content move vertically, horizontally or
 * not at all since the previous frame, and by how much?
 *
 * The estimator keeps, for the previous frame, a 32-bit fingerprint of
 * every row inside each vertical strip (strip x strip columns wide, aligned
 * to screen x) and of every column inside each horizontal band (strip rows
 * high, aligned to screen y). For a new frame it fingerprints a sample of
 * rows (every sample-th) in each strip and of columns in each band, and
 * looks each one that changed up among ALL of the previous frame's
 * fingerprints of that strip or band, so a move by any offset is found.
 * Uniform samples (one colour) tell nothing and are skipped. If sampled
 * rows survived (reappeared elsewhere) clearly better than columns, the
 * motion is vertical; if columns did, horizontal; else none (see decide()
 * in vg_motion.c for the exact rule). The offset is the one that explains
 * most surviving samples (0 when no sample was found elsewhere).
 */
#ifndef VG_MOTION_H
#define VG_MOTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"

typedef enum {
	VG_MOTION_NONE = 0,
	VG_MOTION_VERTICAL = 1,
	VG_MOTION_HORIZONTAL = 2,
} vg_motion_dir;

typedef struct {
	vg_motion_dir dir;
	int32_t offset;     /* dominant move in pixels along dir (new position
			     * minus old; negative = up or left); 0 if none */
	int32_t row_samples;/* changed, non-uniform sampled row pieces */
	int32_t row_hits;   /* ... of them found in the previous frame */
	int32_t row_same;   /* non-uniform sampled row pieces left unchanged */
	int32_t col_samples;
	int32_t col_hits;
	int32_t col_same;
} vg_motion_result;

typedef struct vg_motion vg_motion;

/* The strips' width and the bands' height by default. A caller that
 * makes only part of a frame current (the server's snapshot of the due
 * pixels) widens it to whole strips and bands, which the estimator reads. */
#define VG_MOTION_STRIP 64

/* Creates an estimator for width x height frames. strip: width of the row
 * strips and height of the column bands (16..1024; 0 = VG_MOTION_STRIP). sample: every
 * sample-th row and column is looked up (1..256; 0 = 32). VG_EINVAL (and
 * *out = NULL) for bad arguments. Free with vg_motion_free(). */
int vg_motion_new(int32_t width, int32_t height, int32_t strip, int32_t sample,
		  vg_motion **out);

/* Frees m; accepts NULL. */
void vg_motion_free(vg_motion *m);

/* Estimates the motion from the previous frame to frame (the same size as
 * m), looking only at samples inside changed[0..n_changed) (NULL with 0
 * means the whole frame), then remembers frame's fingerprints there (the
 * rest of the remembered frame is assumed unchanged). The first call, with
 * nothing remembered, reports VG_MOTION_NONE. Errors: VG_EINVAL for a frame
 * of another size (nothing is remembered). */
int vg_motion_estimate(vg_motion *m, const vg_pixbuf *frame, const vg_rect *changed,
		       size_t n_changed, vg_motion_result *out);

/* Splitting an estimate across threads: vg_motion_estimate() is
 * vg_motion_sample() (look the frame's samples up in the previous frame
 * and decide), then vg_motion_remember() on all the bands. Remembering is
 * most of the work of a big change and may run in parts on several
 * threads at once: bands [cuts[i], cuts[i + 1]) of vg_motion_cut() (bands
 * of strip rows; about equal work each), with the changed rectangles the
 * sample was given. Every part must end before the next call on m. A
 * frame of another size is not remembered. */
int vg_motion_sample(vg_motion *m, const vg_pixbuf *frame, const vg_rect *changed,
		     size_t n_changed, vg_motion_result *out);

/* vg_motion_sample() is itself vg_motion_sample_begin(), then
 * vg_motion_sample_lines() for the rows and for the columns, which touch
 * nothing in common and may run at once on two threads, then
 * vg_motion_sample_end(), which decides. All with the same frame and
 * changed rectangles; after a begin that failed, the rest does nothing. */
int vg_motion_sample_begin(vg_motion *m, const vg_pixbuf *frame, const vg_rect *changed,
			   size_t n_changed);
void vg_motion_sample_lines(vg_motion *m, const vg_pixbuf *frame, const vg_rect *changed,
			    size_t n_changed, bool rows);
void vg_motion_sample_end(vg_motion *m, const vg_pixbuf *frame, vg_motion_result *out);
void vg_motion_cut(const vg_motion *m, const vg_rect *changed, size_t n_changed, int n_parts,
		   int32_t *cuts);
void vg_motion_remember(vg_motion *m, const vg_pixbuf *frame, const vg_rect *changed,
			size_t n_changed, int32_t band0, int32_t band1);

/* Forgets the previous frame: the next estimate reports VG_MOTION_NONE. */
void vg_motion_reset(vg_motion *m);

/* The remembered previous frame as bytes, so that an estimator fed the
 * same frames can take another's memory instead of computing it (the
 * server shares estimates between viewers in step, server/vg_segshare.h).
 * vg_motion_state_save() writes vg_motion_state_size() bytes; two
 * estimators with equal state bytes give the same direction and leave the
 * same state for the same frame pixels inside the changed rectangles.
 * vg_motion_state_load() takes bytes saved from an estimator of the same
 * size, strip and sample (else VG_EINVAL, nothing changed). */
size_t vg_motion_state_size(const vg_motion *m);
void vg_motion_state_save(const vg_motion *m, void *buf);
bool vg_motion_state_equal(const vg_motion *m, const void *buf, size_t len);
int vg_motion_state_load(vg_motion *m, const void *buf, size_t len);

/* Whether a previous frame is remembered: before that, an estimate reads
 * the whole frame, not just the changed rectangles. */
bool vg_motion_is_primed(const vg_motion *m);

/* A static name for dir: "none", "vertical", "horizontal". */
const char *vg_motion_dir_name(vg_motion_dir dir);

#endif
