/* Monotonic time for measurements and timeouts. */
#ifndef VG_TIME_H
#define VG_TIME_H

#include <stdint.h>

/* Nanoseconds on the monotonic clock; only differences are meaningful. */
uint64_t vg_time_ns(void);

/* Nanoseconds since the Unix epoch (wall clock), for timestamps in files. */
uint64_t vg_time_wall_ns(void);

/* Milliseconds between two vg_time_ns() readings, as a double. */
static inline double vg_time_ms_since(uint64_t start_ns, uint64_t end_ns)
{
	return (double)(end_ns - start_ns) / 1e6;
}

#endif
