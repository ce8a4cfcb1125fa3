#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_mem.h"
#include "fingerprint/cache/vg_bloom.h"

/* One block is one cache line: 8 words, 512 bits, 9 bits per position. */
#define BLOCK_WORDS 8
#define BLOCK_BITS 512

struct vg_bloom {
	uint64_t *words;
	uint64_t nwords;   /* a multiple of BLOCK_WORDS */
	uint64_t nblocks;  /* blocked layout */
	uint64_t nbits;    /* standard layout */
	uint64_t count;
	unsigned hashes;
	vg_bloom_layout layout;
};

static inline uint64_t mulhi(uint64_t a, uint64_t b)
{
	return (uint64_t)(((unsigned __int128)a * b) >> 64);
}

/* A second, independent-looking hash of h for the bit positions. */
static inline uint64_t remix(uint64_t h)
{
	h ^= h >> 31;
	h *= 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	return h;
}

/* The bit position of probe i in a block: nine bits of g at a time, g
 * re-mixed once its seven 9-bit fields are used up. */
static inline unsigned block_bit(uint64_t *g, unsigned i)
{
	if (i == 7)
		*g = remix(*g + 1);
	return (unsigned)(*g >> ((i % 7) * 9)) & (BLOCK_BITS - 1);
}

int vg_bloom_new(uint64_t entries, unsigned bits_per_entry, unsigned hashes,
		 vg_bloom_layout layout, vg_bloom **out)
{
	vg_bloom *b;
	uint64_t bits;

	*out = NULL;
	if (bits_per_entry < 1 || bits_per_entry > 64 || hashes < 1 || hashes > 16)
		return VG_EINVAL;
	if (layout != VG_BLOOM_BLOCKED && layout != VG_BLOOM_STANDARD)
		return VG_EINVAL;
	if (entries == 0)
		entries = 1;
	if (entries > (UINT64_C(1) << 40))
		return VG_EINVAL;
	bits = entries * bits_per_entry;
	b = VG_NEW0(vg_bloom, 1);
	b->nblocks = (bits + BLOCK_BITS - 1) / BLOCK_BITS;
	b->nwords = b->nblocks * BLOCK_WORDS;
	b->nbits = b->nwords * 64;
	b->hashes = hashes;
	b->layout = layout;
	/* Cache-line aligned so that a block never straddles two lines. */
	b->words = aligned_alloc(64, b->nwords * sizeof(uint64_t));
	if (!b->words)
		vg_mem_die("bloom: out of memory for %" PRIu64 " bytes",
			b->nwords * 8);
	memset(b->words, 0, b->nwords * sizeof(uint64_t));
	*out = b;
	return 0;
}

void vg_bloom_free(vg_bloom *b)
{
	if (!b)
		return;
	free(b->words);
	free(b);
}

void vg_bloom_add(vg_bloom *b, uint64_t h)
{
	unsigned i;

	b->count++;
	if (b->layout == VG_BLOOM_BLOCKED) {
		uint64_t *blk = b->words + mulhi(h, b->nblocks) * BLOCK_WORDS;
		uint64_t g = remix(h);

		for (i = 0; i < b->hashes; i++) {
			unsigned p = block_bit(&g, i);

			blk[p >> 6] |= UINT64_C(1) << (p & 63);
		}
	} else {
		uint64_t h2 = remix(h) | 1;

		for (i = 0; i < b->hashes; i++) {
			uint64_t p = mulhi(h + i * h2, b->nbits);
			b->words[p >> 6] |= UINT64_C(1) << (p & 63);
		}
	}
}

bool vg_bloom_has(const vg_bloom *b, uint64_t h)
{
	unsigned i;

	if (b->layout == VG_BLOOM_BLOCKED) {
		const uint64_t *blk = b->words + mulhi(h, b->nblocks) * BLOCK_WORDS;
		uint64_t g = remix(h);

		for (i = 0; i < b->hashes; i++) {
			unsigned p = block_bit(&g, i);

			if (!(blk[p >> 6] & (UINT64_C(1) << (p & 63))))
				return false;
		}
	} else {
		uint64_t h2 = remix(h) | 1;

		for (i = 0; i < b->hashes; i++) {
			uint64_t p = mulhi(h + i * h2, b->nbits);
			if (!(b->words[p >> 6] & (UINT64_C(1) << (p & 63))))
				return false;
		}
	}
	return true;
}

void vg_bloom_clear(vg_bloom *b)
{
	memset(b->words, 0, b->nwords * sizeof(uint64_t));
	b->count = 0;
}

size_t vg_bloom_bytes(const vg_bloom *b)
{
	return (size_t)(b->nwords * sizeof(uint64_t));
}

uint64_t vg_bloom_count(const vg_bloom *b)
{
	return b->count;
}
