/* Formula 1 of the Varg paper: the time to get one screen update across a
 * network, with compression counted as part of the communication,
 *
 *     T = 2L + S / (B * R) + C
 *
 * L the one-way latency (2L is the round trip), S the update's size before
 * compression, B the bandwidth, R the compression ratio (so S / R is what
 * goes on the wire) and C the compression time. doc/json.md explains how
 * varg-trace ratio fills in each term. Pure functions, no state.
 */
#ifndef VG_WANMODEL_H
#define VG_WANMODEL_H

#include <stddef.h>
#include <stdint.h>

/* A network of Table 7 of the paper. */
typedef struct {
	const char *name;       /* "gigabit", "fast-ethernet", ... */
	double bandwidth;       /* bytes per second (MB = 10^6 bytes) */
	double rtt_ms;          /* round-trip time, 2L */
} vg_wanprofile;

/* The five profiles of Table 7, in the paper's order; *n receives 5. The
 * array is static. */
const vg_wanprofile *vg_wan_profiles(size_t *n);

/* Finds a profile by name; NULL if none. */
const vg_wanprofile *vg_wan_profile_find(const char *name);

/* Formula 1 in milliseconds for an update of raw_bytes (S) sent with
 * compression ratio ratio (R > 0) after compute_ms (C) of compression. */
double vg_wan_time_ms(const vg_wanprofile *p, double raw_bytes, double ratio, double compute_ms);

/* The same with the bytes on the wire (S / R) given directly. */
double vg_wan_time_sent_ms(const vg_wanprofile *p, double sent_bytes, double compute_ms);

/* The q-quantile (0 <= q <= 1) of v[0..n), n >= 1, by the nearest-rank
 * method: the smallest value with at least q * n values at or below it.
 * Sorts v in place. */
double vg_wan_quantile(double *v, size_t n, double q);

/* The share (0..1) of v[0..n) strictly below limit; 0 for n == 0. */
double vg_wan_share_below(const double *v, size_t n, double limit);

#endif
