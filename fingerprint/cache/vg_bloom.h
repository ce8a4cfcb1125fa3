/* A Bloom filter over 64-bit hashes.
 *
 * The segment cache asks it whether an optimistic fingerprint may be cached
 * before it looks at any container, so that a miss costs one memory access
 * and never a disk read. A "no" is certain; a "maybe" is wrong with the
 * false-positive rate of the filter's size and number of hash functions.
 *
 * Two layouts. VG_BLOOM_BLOCKED (the default) puts all bits of one key in
 * one 64-byte block, so a query touches a single cache line; it pays for
 * that with a slightly higher false-positive rate than VG_BLOOM_STANDARD,
 * whose bits are spread over the whole bitmap (one cache miss per bit).
 * With 8 bits per entry and 6 hash functions at full load, theory gives
 * 2.16 % for the standard layout and 2.34 % for the blocked one; see
 * doc/cache-format.md for the measured figures.
 *
 * A Bloom filter cannot forget a key; callers that remove keys rebuild it
 * (vg_bloom_clear() and add the survivors again).
 *
 * The input must already be a well-mixed hash: the filter does not hash
 * again. Not thread-safe; a filter that is only queried may be shared.
 */
#ifndef VG_BLOOM_H
#define VG_BLOOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct vg_bloom vg_bloom;

typedef enum {
	VG_BLOOM_BLOCKED = 0,
	VG_BLOOM_STANDARD = 1,
} vg_bloom_layout;

/* Creates an empty filter sized for entries keys at bits_per_entry bits
 * each (1..64), probed with hashes hash functions (1..16). entries 0 is
 * taken as 1. Returns VG_EINVAL for parameters out of range; on success
 * *out owns the filter (free with vg_bloom_free). */
int vg_bloom_new(uint64_t entries, unsigned bits_per_entry, unsigned hashes,
		 vg_bloom_layout layout, vg_bloom **out);

/* Frees the filter; accepts NULL. */
void vg_bloom_free(vg_bloom *b);

/* Adds a key hash. Never fails. */
void vg_bloom_add(vg_bloom *b, uint64_t h);

/* false: h was certainly never added since the last clear. true: it may
 * have been. Allocates nothing. */
bool vg_bloom_has(const vg_bloom *b, uint64_t h);

/* Forgets every key. */
void vg_bloom_clear(vg_bloom *b);

/* Size of the bitmap in bytes. */
size_t vg_bloom_bytes(const vg_bloom *b);

/* Number of vg_bloom_add() calls since the last clear. */
uint64_t vg_bloom_count(const vg_bloom *b);

#endif
