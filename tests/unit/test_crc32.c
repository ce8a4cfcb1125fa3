#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/vg_crc32.h"

static uint32_t zlib_crc(uint32_t crc, const uint8_t *p, size_t n)
{
	return (uint32_t)crc32(crc, p, (uInt)n);
}

/* The check value of CRC-32 (ISO-HDLC) and an empty buffer. */
static void test_known(void)
{
	g_assert_cmphex(vg_crc32(0, "123456789", 9), ==, 0xcbf43926);
	g_assert_cmphex(vg_crc32(0, NULL, 0), ==, 0);
	g_assert_cmphex(vg_crc32(0x12345678, NULL, 0), ==, 0x12345678);
}

/* zlib's value for every length to 1,100 bytes at every alignment, from
 * a starting CRC of 0 and of another buffer's: the folds' lanes, their
 * joining, the tail zlib takes and the carried register all show. */
static void test_against_zlib(void)
{
	GRand *rng = g_rand_new_with_seed(7);
	size_t cap = 1200 + 16, n, off;
	uint8_t *buf = g_malloc(cap);

	for (n = 0; n < cap; n++)
		buf[n] = (uint8_t)g_rand_int(rng);
	for (off = 0; off < 16; off++)
		for (n = 0; n <= 1100; n++) {
			uint32_t seed = n % 3 == 0 ? 0 : g_rand_int(rng);

			if (vg_crc32(seed, buf + off, n) != zlib_crc(seed, buf + off, n))
				g_error("off %zu, length %zu, seed %08x: %08x, zlib %08x", off, n, seed,
					vg_crc32(seed, buf + off, n), zlib_crc(seed, buf + off, n));
		}
	g_free(buf);
	g_rand_free(rng);
}

/* A cache record's size of data, in one call and in pieces of any size. */
static void test_large(void)
{
	GRand *rng = g_rand_new_with_seed(11);
	size_t n = ((size_t)5 << 20) + 7, i, at;
	uint8_t *buf = g_malloc(n);
	uint32_t whole, pieces = 0;

	for (i = 0; i < n; i++)
		buf[i] = (uint8_t)g_rand_int(rng);
	whole = vg_crc32(0, buf, n);
	g_assert_cmphex(whole, ==, zlib_crc(0, buf, n));
	for (at = 0; at < n;) {
		size_t piece = (size_t)g_rand_int_range(rng, 1, 200000);

		piece = MIN(piece, n - at);
		pieces = vg_crc32(pieces, buf + at, piece);
		at += piece;
	}
	g_assert_cmphex(pieces, ==, whole);
	/* A flipped bit anywhere changes it. */
	buf[n / 2] ^= 0x10;
	g_assert_cmphex(vg_crc32(0, buf, n), !=, whole);
	g_free(buf);
	g_rand_free(rng);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/crc32/known", test_known);
	g_test_add_func("/crc32/against-zlib", test_against_zlib);
	g_test_add_func("/crc32/large", test_large);
	return g_test_run();
}
