#include "fingerprint/proto/vg_pixcost.h"

/* Assumed until measured: the heat map session's figures (the literal
 * methods with zstd at level 11; doc/results.md, "The pixel model, chosen
 * by the link's rate"). */
#define ASSUMED_LITERAL_NS_PX 37.0
#define ASSUMED_LITERAL_BYTES_PX 0.084
#define ASSUMED_MODEL_NS_PX 35.0
#define ASSUMED_MODEL_BYTES_PX 0.018

/* The viewer's decoding of the literal methods and zstd, a pixel: the
 * sender cannot time it, and it changes less with content than coding. */
#define LITERAL_DECODE_NS_PX 10.0

/* Updates smaller than this are neither learnt from nor counted towards a
 * trial: their fixed costs hide the per-pixel ones. */
#define LARGE_UPDATE_PX 16384

/* Large updates coded one way before the other is tried: doubling while
 * trials confirm the choice, from the first figure again when it flips.
 * Only while the other takes less than TRIAL_WITHIN times as long, and on
 * an update of TRIAL_MAX_PX pixels at most: a trial costs the update it
 * codes (a whole page tried by the literal methods over a slow link: half
 * a second more). */
#define TRIAL_FIRST 16
#define TRIAL_MAX 512
#define TRIAL_WITHIN 2.0
#define TRIAL_MAX_PX 65536

void vg_pixcost_init(vg_pixcost *pc)
{
	pc->ns_px[VG_PIXCOST_LITERAL] = ASSUMED_LITERAL_NS_PX;
	pc->bytes_px[VG_PIXCOST_LITERAL] = ASSUMED_LITERAL_BYTES_PX;
	pc->ns_px[VG_PIXCOST_MODEL] = ASSUMED_MODEL_NS_PX;
	pc->bytes_px[VG_PIXCOST_MODEL] = ASSUMED_MODEL_BYTES_PX;
	pc->measured[VG_PIXCOST_LITERAL] = pc->measured[VG_PIXCOST_MODEL] = false;
	pc->other_ns_px[VG_PIXCOST_LITERAL] = ASSUMED_MODEL_NS_PX;
	pc->other_bytes_px[VG_PIXCOST_LITERAL] = ASSUMED_MODEL_BYTES_PX;
	pc->other_ns_px[VG_PIXCOST_MODEL] = ASSUMED_LITERAL_NS_PX;
	pc->other_bytes_px[VG_PIXCOST_MODEL] = ASSUMED_LITERAL_BYTES_PX;
	pc->since_other = 0;
	pc->trial_every = TRIAL_FIRST;
	pc->last = VG_PIXCOST_CODINGS; /* none yet */
}

static vg_pixcost_coding other_of(vg_pixcost_coding coding)
{
	return coding == VG_PIXCOST_MODEL ? VG_PIXCOST_LITERAL : VG_PIXCOST_MODEL;
}

/* A figure of a coding scaled by how the other's changed since the
 * coding was last learnt (1 for the coding learnt last). */
static double follow(double figure, double other_now, double other_then)
{
	return other_then > 1e-9 ? figure * other_now / other_then : figure;
}

/* A coding's figures a pixel as they stand now: as last learnt, scaled
 * by how the other coding's changed since. */
static void estimate(const vg_pixcost *pc, vg_pixcost_coding coding, double *ns, double *bytes)
{
	vg_pixcost_coding o = other_of(coding);

	*ns = follow(pc->ns_px[coding], pc->ns_px[o], pc->other_ns_px[coding]);
	*bytes = follow(pc->bytes_px[coding], pc->bytes_px[o], pc->other_bytes_px[coding]);
}

/* A pixel's time from the sender to the viewer's picture by coding:
 * coding, the link, decoding. The model decodes in about the time it
 * codes; the literal methods and zstd in LITERAL_DECODE_NS_PX. */
static double to_viewer_ns(const vg_pixcost *pc, vg_pixcost_coding coding, uint64_t rate)
{
	double ns, bytes, link_ns;

	estimate(pc, coding, &ns, &bytes);
	link_ns = bytes * 1e9 / (double)rate;

	if (coding == VG_PIXCOST_MODEL)
		return 2.0 * ns + link_ns;
	return ns + link_ns + LITERAL_DECODE_NS_PX;
}

vg_pixcost_coding vg_pixcost_cheaper(const vg_pixcost *pc, uint64_t rate,
				     vg_pixcost_coding unknown_choice)
{
	if (rate == 0)
		return unknown_choice;
	return to_viewer_ns(pc, VG_PIXCOST_MODEL, rate) < to_viewer_ns(pc, VG_PIXCOST_LITERAL, rate)
		       ? VG_PIXCOST_MODEL
		       : VG_PIXCOST_LITERAL;
}

vg_pixcost_coding vg_pixcost_choose(vg_pixcost *pc, uint64_t pixels, uint64_t rate,
				    vg_pixcost_coding unknown_choice)
{
	vg_pixcost_coding best = vg_pixcost_cheaper(pc, rate, unknown_choice);
	vg_pixcost_coding other = other_of(best);

	if (rate == 0 || pixels < LARGE_UPDATE_PX)
		return best;
	if (best != pc->last) {
		pc->last = best;
		pc->since_other = 0;
		pc->trial_every = TRIAL_FIRST;
		return best;
	}
	if (to_viewer_ns(pc, other, rate) >= TRIAL_WITHIN * to_viewer_ns(pc, best, rate))
		return best;
	if (pc->since_other < pc->trial_every)
		pc->since_other++;
	if (pc->since_other < pc->trial_every || pixels > TRIAL_MAX_PX)
		return best;
	pc->since_other = 0;
	if (pc->trial_every < TRIAL_MAX)
		pc->trial_every *= 2;
	return other;
}

void vg_pixcost_learn(vg_pixcost *pc, vg_pixcost_coding coding, uint64_t pixels,
		      uint64_t code_ns, uint64_t wire_bytes)
{
	vg_pixcost_coding o = other_of(coding);
	double ns, bytes, ns_now, bytes_now;

	if (pixels < LARGE_UPDATE_PX)
		return;
	ns = (double)code_ns / (double)pixels;
	bytes = (double)wire_bytes / (double)pixels;
	/* A quarter of the way from the estimate (from the assumed figures
	 * too: a coding's first updates, its tables cold, cost more than its
	 * next ones). */
	estimate(pc, coding, &ns_now, &bytes_now);
	pc->measured[coding] = true;
	pc->ns_px[coding] = 0.75 * ns_now + 0.25 * ns;
	pc->bytes_px[coding] = 0.75 * bytes_now + 0.25 * bytes;
	pc->other_ns_px[coding] = pc->ns_px[o];
	pc->other_bytes_px[coding] = pc->bytes_px[o];
}
