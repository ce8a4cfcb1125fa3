/* Equation 1 of the Varg paper: the compression ratio of two-level
 * fingerprinting over a data set,
 *
 *                                    S
 *   ratio = ---------------------------------------------------------------
 *           (S - R) + (k/8 + l/(8p)) S/s + p s  sum_{i=1}^{(S-R)/s} i / 2^k
 *
 * S the data set size in bytes, R the redundant bytes (found in the cache),
 * k the optimistic fingerprint bits, l the conservative fingerprint bits,
 * p the segments per conservative fingerprint and s the segment size in
 * bytes. The first term is the unique segments sent whole, the second the
 * fingerprints (one optimistic per segment, one conservative per p
 * segments), the third the collisions: the i-th unique segment inserted
 * collides with one of the i cached before it with probability about
 * i / 2^k, and each collision resends its whole group of p segments.
 *
 * With Table 10's parameters (S = 100 GiB, R = 75 %, k = 40, l = 160,
 * p = 20, s = 32) the ratio is 2.28; 1.12 with k = 32; 1.14 for one-level
 * 160-bit fingerprints. One level (l = 0) has no group to resend: a
 * collision there costs its one segment (p is taken as 1 in the third
 * term), which for 160 bits is nothing.
 *
 * Pure functions, no state, no I/O.
 */
#ifndef VG_FPMODEL_H
#define VG_FPMODEL_H

#include <stddef.h>

typedef struct {
	double data_bytes;      /* S, > 0 */
	double redundancy;      /* R / S, 0..1 */
	double k;               /* optimistic bits, 1..160 */
	double l;               /* conservative bits, 0..512; 0: one level */
	double p;               /* segments per conservative fingerprint, >= 1 */
	double segment_bytes;   /* s, 1..S */
} vg_fpmodel_params;

typedef struct {
	double segments;          /* S / s */
	double unique_bytes;      /* S - R: unique segments sent whole */
	double fingerprint_bytes; /* (k/8 + l/(8p)) S/s */
	double collision_bytes;   /* p s sum i / 2^k */
	double total_bytes;       /* the denominator */
	double ratio;             /* S / total_bytes */
	double ratio_no_collisions; /* S / (total_bytes - collision_bytes) */
} vg_fpmodel_result;

/* Which parameter a sweep varies. */
typedef enum {
	VG_FPMODEL_K,         /* "k" */
	VG_FPMODEL_L,         /* "l" */
	VG_FPMODEL_P,         /* "p" */
	VG_FPMODEL_S,         /* "s": segment size, bytes */
	VG_FPMODEL_R,         /* "R": redundancy, percent */
	VG_FPMODEL_DATA,      /* "S": data set size, GiB (2^30 bytes) */
} vg_fpmodel_var;

#define VG_FPMODEL_MAX_POINTS 10000

typedef struct {
	vg_fpmodel_var var;
	size_t n;             /* points, 1..VG_FPMODEL_MAX_POINTS */
	double first, step;   /* a range: first + i * step */
	const char *name;     /* "k", "p", ... (static) */
} vg_fpmodel_sweep;

/* Fills *p with Table 10's parameters. */
void vg_fpmodel_defaults(vg_fpmodel_params *p);

/* Evaluates Equation 1. VG_EINVAL (and *out untouched) when a parameter is
 * outside the ranges above. */
int vg_fpmodel_eval(const vg_fpmodel_params *p, vg_fpmodel_result *out);

/* Parses a sweep: "NAME=FROM..TO" (step 1), "NAME=FROM..TO:STEP" or
 * "NAME=V" with NAME one of k l p s R S (see vg_fpmodel_var for units).
 * FROM <= TO, STEP > 0, at most VG_FPMODEL_MAX_POINTS points. VG_EINVAL for
 * anything else. */
int vg_fpmodel_sweep_parse(const char *spec, vg_fpmodel_sweep *out);

/* Point i (< sw->n) of a sweep. */
double vg_fpmodel_sweep_value(const vg_fpmodel_sweep *sw, size_t i);

/* Sets in *p the parameter a sweep varies to v, in the sweep's units. */
void vg_fpmodel_set(vg_fpmodel_params *p, vg_fpmodel_var var, double v);

#endif
