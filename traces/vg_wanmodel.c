/* Formula 1 and the statistics over it; see vg_wanmodel.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "traces/vg_wanmodel.h"

/* Table 7: TCP throughput and round-trip latency measured with Iperf. */
static const vg_wanprofile profiles[] = {
	{ "gigabit", 80.0e6, 0.2 },
	{ "fast-ethernet", 8.0e6, 0.2 },
	{ "princeton-boston", 2.13e6, 11.0 },
	{ "princeton-san-diego", 0.38e6, 72.0 },
	{ "princeton-tromso", 0.20e6, 120.0 },
};

const vg_wanprofile *vg_wan_profiles(size_t *n)
{
	*n = sizeof profiles / sizeof profiles[0];
	return profiles;
}

const vg_wanprofile *vg_wan_profile_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
		if (strcmp(profiles[i].name, name) == 0)
			return &profiles[i];
	return NULL;
}

double vg_wan_time_sent_ms(const vg_wanprofile *p, double sent_bytes, double compute_ms)
{
	return p->rtt_ms + sent_bytes / p->bandwidth * 1000.0 + compute_ms;
}

double vg_wan_time_ms(const vg_wanprofile *p, double raw_bytes, double ratio, double compute_ms)
{
	return vg_wan_time_sent_ms(p, raw_bytes / ratio, compute_ms);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double vg_wan_quantile(double *v, size_t n, double q)
{
	size_t rank;

	qsort(v, n, sizeof *v, cmp_double);
	rank = (size_t)ceil(q * (double)n - 1e-9);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

double vg_wan_share_below(const double *v, size_t n, double limit)
{
	size_t i, below = 0;

	for (i = 0; i < n; i++)
		below += v[i] < limit;
	return n ? (double)below / (double)n : 0.0;
}
