#include <zlib.h>

#include "common/vg_crc32.h"

static uint32_t crc32_zlib(uint32_t crc, const uint8_t *p, size_t n)
{
	/* zlib takes lengths as uInt: very large buffers go in pieces. */
	while (n > 0) {
		uInt piece = n > (1u << 30) ? (1u << 30) : (uInt)n;

		crc = (uint32_t)crc32(crc, p, piece);
		p += piece;
		n -= piece;
	}
	return crc;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define VG_CRC32_FOLDS 1

/* The reflected CRC's folding constants: x^(32 * k) mod P for the
 * distances a lane moves (512 bits when four lanes go on, 128 when they
 * fold into one, 64, 32), then floor(x^64 / P) and P for the final
 * Barrett reduction (Intel's "Fast CRC computation for generic
 * polynomials using PCLMULQDQ", 2009). */
#define K_512_LO 0x154442bd4
#define K_512_HI 0x1c6e41596
#define K_128_LO 0x1751997d0
#define K_128_HI 0x0ccaa009e
#define K_64 0x163cd6124
#define BARRETT_P 0x1db710641
#define BARRETT_MU 0x1f7011641

/* x's 128 bits carried forward over k's distance, then next added. */
__attribute__((target("pclmul,sse4.1"))) static inline __m128i fold16(__m128i x, __m128i k, __m128i next)
{
	__m128i lo = _mm_clmulepi64_si128(x, k, 0x00), hi = _mm_clmulepi64_si128(x, k, 0x11);

	return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

/* The CRC register (zlib's, before its final inversion) carried over the
 * n bytes at p, n a multiple of 16 and at least 64. */
__attribute__((target("pclmul,sse4.1"))) static uint32_t fold(uint32_t reg, const uint8_t *p, size_t n)
{
	const __m128i k512 = _mm_set_epi64x(K_512_HI, K_512_LO), k128 = _mm_set_epi64x(K_128_HI, K_128_LO);
	const __m128i k64 = _mm_set_epi64x(0, K_64), barrett = _mm_set_epi64x(BARRETT_MU, BARRETT_P);
	const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
	__m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
	__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
	__m128i d = _mm_loadu_si128((const __m128i *)(const void *)(p + 48));
	__m128i t;

	a = _mm_xor_si128(a, _mm_cvtsi32_si128((int)reg));
	for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
		a = fold16(a, k512, _mm_loadu_si128((const __m128i *)(const void *)p));
		b = fold16(b, k512, _mm_loadu_si128((const __m128i *)(const void *)(p + 16)));
		c = fold16(c, k512, _mm_loadu_si128((const __m128i *)(const void *)(p + 32)));
		d = fold16(d, k512, _mm_loadu_si128((const __m128i *)(const void *)(p + 48)));
	}
	a = fold16(a, k128, b);
	a = fold16(a, k128, c);
	a = fold16(a, k128, d);
	for (; n >= 16; p += 16, n -= 16)
		a = fold16(a, k128, _mm_loadu_si128((const __m128i *)(const void *)p));
	/* 128 bits to 64, 64 to 32, then the remainder by P. */
	a = _mm_xor_si128(_mm_clmulepi64_si128(a, k128, 0x10), _mm_srli_si128(a, 8));
	a = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(a, low32), k64, 0x00), _mm_srli_si128(a, 4));
	t = _mm_clmulepi64_si128(_mm_and_si128(a, low32), barrett, 0x10);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), barrett, 0x00);
	return (uint32_t)_mm_extract_epi32(_mm_xor_si128(t, a), 1);
}
#endif

uint32_t vg_crc32(uint32_t crc, const void *buf, size_t n)
{
	const uint8_t *p = buf;

#ifdef VG_CRC32_FOLDS
	if (n >= 64 && __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1")) {
		size_t bulk = n & ~(size_t)15;

		crc = ~fold(~crc, p, bulk);
		p += bulk;
		n -= bulk;
	}
#endif
	return crc32_zlib(crc, p, n);
}
