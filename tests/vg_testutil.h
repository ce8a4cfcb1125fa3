/* Small helpers shared by tests and benchmarks. */
#ifndef VG_TESTUTIL_H
#define VG_TESTUTIL_H

#include <stdint.h>

/* A 64-bit mixer (splitmix64's finaliser): turns counters into
 * well-spread keys and byte values, deterministically. */
static inline uint64_t vg_test_mix(uint64_t k)
{
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ull;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebull;
	return k ^ (k >> 31);
}

/* Removes path and, if it is a directory, everything below it. */
void vg_test_rm_rf(const char *path);

#endif
