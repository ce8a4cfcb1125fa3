/* Deterministic synthetic screens for the segment2d tests and benchmark.
 *
 * A scene is a "document" larger than the screen; a frame is the view of
 * it at some scroll position, so scrolling by d pixels is a view moved by
 * d. The same kind, size and seed always give the same pixels, on every
 * host. Test code only: it allocates freely and aborts on bad arguments.
 */
#ifndef VG_TESTSCENE_H
#define VG_TESTSCENE_H

#include <stdint.h>

#include "common/vg_pixbuf.h"

typedef enum {
	/* A clustered expression heat map (red/green cells 12x6 px, genes in
	 * clusters of similar profiles), its dendrogram on the left and gene
	 * labels on the right, in the manner of Java TreeView. */
	VG_SCENE_HEATMAP = 0,
	/* Lines of text in a 6x9 pixel font, 14 px line pitch, with
	 * paragraphs, indentation and a few coloured words. */
	VG_SCENE_TEXT = 1,
	/* Pseudo-random pixels: unrelated to everything else. */
	VG_SCENE_NOISE = 2,
} vg_scene_kind;

/* Renders a width x height document of kind from seed. Free with
 * vg_pixbuf_free(). */
vg_pixbuf *vg_testscene_new(vg_scene_kind kind, int32_t width, int32_t height, uint32_t seed);

/* Copies the w x h view of doc at (x, y) into a new buffer (free with
 * vg_pixbuf_free()); the view must lie inside doc. */
vg_pixbuf *vg_testscene_frame(const vg_pixbuf *doc, int32_t x, int32_t y, int32_t w, int32_t h);

/* A small deterministic generator for tests: splitmix64. */
uint64_t vg_testscene_rand(uint64_t *state);

#endif
