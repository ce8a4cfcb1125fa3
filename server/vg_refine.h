/* Progressive refinement: when to show missed regions approximately.
 *
 * On a slow link a large update's exact pixels take long, and everything
 * after it waits behind them. The planner estimates, per update, how long
 * its missed pixels would take on the path (the bytes already queued in
 * the socket plus the missed pixels at the bytes a pixel the pixel stream
 * has been costing, over the rate the path delivered lately) and, beyond
 * the budget, picks the smallest shrink factor that brings the first
 * paint within it. The exact pixels then follow in the next updates, a
 * share each, as the queue leaves room (fingerprint/codec/vg_approx.h). Plain arithmetic, no I/O but
 * vg_refine_read_socket(); the path comes from the socket's TCP_INFO.
 */
#ifndef VG_REFINE_H
#define VG_REFINE_H

#include <stdbool.h>
#include <stdint.h>

/* What the kernel knows of a TCP connection's path. */
typedef struct {
	uint64_t rate;     /* bytes/s it delivered at its latest sample; 0: none yet */
	uint64_t cwnd_rate; /* bytes/s its congestion window allows per round trip */
	uint64_t queued;   /* bytes written and not yet acknowledged */
	uint64_t rtt_us;   /* smoothed round trip; 0: none yet */
	/* The least round trip seen: the path's own, without the peer's
	 * time to answer or a queue's (the handshake's smoothed one holds
	 * both); 0: none yet or not known. */
	uint64_t min_rtt_us;
} vg_path_sample;

/* The path's round trip: the least one seen (the smoothed one also holds
 * the peer's time to answer), else the smoothed one; 0: none yet. */
uint64_t vg_path_rtt_us(const vg_path_sample *p);

/* Reads fd's TCP_INFO into *out. VG_EIO if fd is not a TCP socket; *out
 * is then all zero. */
int vg_refine_read_socket(int fd, vg_path_sample *out);

typedef struct {
	unsigned budget_ms;  /* an update's missed pixels may take this long; 0: never approximate */
	uint64_t fixed_rate; /* testing aid: bytes/s to assume instead of measuring; 0: measure */
	unsigned band_ms;    /* an update's first band of missed pixels may take this long; 0: no bands */
	unsigned first_paint_ms; /* bands only for updates that would reach the viewer
				  * later than this whole; 0: for any longer than band_ms */
} vg_refine_config;

typedef struct vg_refine vg_refine;

/* Creates a planner; free with vg_refine_free(). */
vg_refine *vg_refine_new(const vg_refine_config *cfg);

/* Frees rf; accepts NULL. */
void vg_refine_free(vg_refine *rf);

/* Takes a sample of the path at now_ns. The rate used is the highest
 * delivered in the last seconds (a sample taken while the sender had
 * little to send understates the path); before any, the congestion
 * window's. */
void vg_refine_observe(vg_refine *rf, uint64_t now_ns, const vg_path_sample *p);

/* Tells the planner what literal pixels cost: pixels coded as wire_bytes,
 * in code_ns of the sender's time. */
void vg_refine_coded(vg_refine *rf, uint64_t pixels, uint64_t wire_bytes, uint64_t code_ns);

/* ... and what approximations cost: pixels shrunk by factor, coded as
 * wire_bytes. */
void vg_refine_approx_coded(vg_refine *rf, uint64_t pixels, unsigned factor, uint64_t wire_bytes);

/* How many approximate pixels an update may refine: what the budget leaves
 * beside the queue, at least a quarter of the budget's worth (so that the
 * picture always ends exact); unbounded while the rate is unknown. */
uint64_t vg_refine_chunk_pixels(const vg_refine *rf);

/* How many missed pixels the first band of an update may hold: what the
 * link carries in band_ms at what literal pixels have been costing;
 * unbounded without bands, while the rate is unknown, and until a large
 * update's cost has been told (vg_refine_coded). */
uint64_t vg_refine_band_pixels(const vg_refine *rf);

/* Whether an update whose missed pixels number missed_px, waited_ns after
 * its frame changed, is worth banding: coded at both ends at the time
 * literal pixels have been taking the sender (the viewer's decoding
 * counted as long), sent whole behind the bytes queued at what they have
 * been costing, it would reach the viewer (half the path's least round
 * trip after it left) later than first_paint_ms after the change. Below
 * that, a band would only make the exact picture later. True without a
 * target; false while the rate is unknown. */
bool vg_refine_band_worth(const vg_refine *rf, uint64_t missed_px, uint64_t waited_ns);

/* The shrink factor (2..16) for the approx_px missed pixels that may be
 * approximated, when the queue, the exact_px missed pixels that may not
 * and the approx_px together would take longer than the budget, and the
 * approximation would cost under a quarter of the exact pixels; 0 to send
 * everything exact. approx_bytes is what the approx_px would cost exact
 * (a trial coding); 0: guess from the pixel count. */
unsigned vg_refine_factor(const vg_refine *rf, uint64_t exact_px, uint64_t approx_px,
			  uint64_t approx_bytes);

/* The path's rate the planner works with, bytes/s (0: unknown). */
uint64_t vg_refine_rate(const vg_refine *rf);

/* The same once a large update has gone, 0 before: until then it is the
 * handshake's, far below what the link carries. */
uint64_t vg_refine_known_rate(const vg_refine *rf);

#endif
