#include <time.h>

#include "common/vg_time.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	/* clock_gettime cannot fail for these clocks on Linux. */
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t vg_time_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t vg_time_wall_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}
