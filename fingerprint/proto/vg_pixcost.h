/* What an update's new pixels cost by each coding, and which to use.
 *
 * A sender codes an update's literal pixels by the literal methods and
 * zstd, or by the pixel model (fingerprint/codec/vg_pixmodel.h), which
 * sends a third to three quarters fewer bytes for more CPU at both ends
 * (on a heat map, about zstd level 11's at the sender, 2.5 times level
 * 3's). Which one gets the picture to the viewer sooner depends on
 * the link: the bytes the model saves must cross it in less time than
 * its extra coding takes. vg_pixcost learns each coding's time and bytes
 * a pixel from the updates it codes and chooses per update from the
 * link's rate. Content changes what both cost: the coding not used lately
 * is taken to have changed in proportion with the one used, and now and
 * then it is tried. No I/O, no globals.
 */
#ifndef VG_PIXCOST_H
#define VG_PIXCOST_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
	VG_PIXCOST_LITERAL, /* the literal methods, then the pixel stream's zstd */
	VG_PIXCOST_MODEL,   /* the pixel model */
	VG_PIXCOST_CODINGS,
} vg_pixcost_coding;

typedef struct {
	double ns_px[VG_PIXCOST_CODINGS];    /* the sender's coding time a pixel */
	double bytes_px[VG_PIXCOST_CODINGS]; /* wire bytes a pixel */
	bool measured[VG_PIXCOST_CODINGS];   /* learnt from an update, not assumed only */
	/* The other coding's figures when this one was last learnt. */
	double other_ns_px[VG_PIXCOST_CODINGS];
	double other_bytes_px[VG_PIXCOST_CODINGS];
	unsigned since_other;  /* large updates coded the same way since a trial,
				* counted while the other is within reach */
	unsigned trial_every;  /* ... before the other coding is tried again */
	vg_pixcost_coding last; /* the cheaper coding at the last large update */
} vg_pixcost;

/* Starts with assumed costs (of dense content, measured in doc/results.md),
 * nothing learnt. */
void vg_pixcost_init(vg_pixcost *pc);

/* The coding whose pixels reach the viewer sooner over a link of rate
 * bytes/s, by the figures so far; unknown_choice while the rate is
 * unknown (0). */
vg_pixcost_coding vg_pixcost_cheaper(const vg_pixcost *pc, uint64_t rate,
				     vg_pixcost_coding unknown_choice);

/* The coding for an update of pixels new pixels: the cheaper one, except
 * for a trial of the other now and then (counted here) while the other's
 * estimate is less than twice the cheaper one's, on an update of 65,536
 * pixels at most. */
vg_pixcost_coding vg_pixcost_choose(vg_pixcost *pc, uint64_t pixels, uint64_t rate,
				    vg_pixcost_coding unknown_choice);

/* Learns from an update coded by coding: its new pixels took code_ns at
 * the sender and wire_bytes on the link. Updates of a few pixels say
 * little about the next large one and are left out. */
void vg_pixcost_learn(vg_pixcost *pc, vg_pixcost_coding coding, uint64_t pixels,
		      uint64_t code_ns, uint64_t wire_bytes);

#endif
