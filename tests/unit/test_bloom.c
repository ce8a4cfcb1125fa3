/* The Bloom filter: no false negatives, and false-positive rates near
 * theory for both layouts at 8 bits per entry and 6 hash functions. */
#include <glib.h>

#include "common/vg_error.h"
#include "fingerprint/cache/vg_bloom.h"
#include "tests/vg_testutil.h"

static double measure(vg_bloom_layout layout, unsigned bits, unsigned hashes, uint64_t n)
{
	vg_bloom *b;
	uint64_t i, fp = 0, probes = 1000000;

	g_assert_cmpint(vg_bloom_new(n, bits, hashes, layout, &b), ==, 0);
	for (i = 0; i < n; i++)
		vg_bloom_add(b, vg_test_mix(i));
	for (i = 0; i < n; i++)
		g_assert_true(vg_bloom_has(b, vg_test_mix(i)));
	for (i = 0; i < probes; i++)
		fp += vg_bloom_has(b, vg_test_mix(i + (UINT64_C(1) << 40)));
	g_assert_cmpuint(vg_bloom_count(b), ==, n);
	vg_bloom_free(b);
	return (double)fp / (double)probes;
}

static void test_rates(void)
{
	double blocked = measure(VG_BLOOM_BLOCKED, 8, 6, 200000);
	double standard = measure(VG_BLOOM_STANDARD, 8, 6, 200000);
	double blocked10 = measure(VG_BLOOM_BLOCKED, 10, 6, 200000);

	g_test_message("false positives at 8 bits/entry, 6 hashes: blocked %.3f %%, standard %.3f %%; "
		       "blocked at 10 bits/entry: %.3f %%", blocked * 100, standard * 100, blocked10 * 100);
	/* Theory: 2.34 % blocked, 2.16 % standard, about 1.0 % blocked at 10. */
	g_assert_cmpfloat(blocked, <, 0.0265);
	g_assert_cmpfloat(blocked, >, 0.020);
	g_assert_cmpfloat(standard, <, 0.0240);
	g_assert_cmpfloat(standard, >, 0.019);
	g_assert_cmpfloat(blocked10, <, 0.0156);
	/* Half full, the filter is far better. */
	g_assert_cmpfloat(measure(VG_BLOOM_BLOCKED, 16, 6, 200000), <, 0.003);
}

static void test_clear_and_params(void)
{
	vg_bloom *b;

	g_assert_cmpint(vg_bloom_new(10, 0, 6, VG_BLOOM_BLOCKED, &b), ==, VG_EINVAL);
	g_assert_null(b);
	g_assert_cmpint(vg_bloom_new(10, 8, 0, VG_BLOOM_BLOCKED, &b), ==, VG_EINVAL);
	g_assert_cmpint(vg_bloom_new(10, 8, 17, VG_BLOOM_STANDARD, &b), ==, VG_EINVAL);
	g_assert_cmpint(vg_bloom_new(0, 8, 12, VG_BLOOM_BLOCKED, &b), ==, 0);
	g_assert_cmpuint(vg_bloom_bytes(b), ==, 64);
	vg_bloom_add(b, 42);
	g_assert_true(vg_bloom_has(b, 42));
	vg_bloom_clear(b);
	g_assert_false(vg_bloom_has(b, 42));
	g_assert_cmpuint(vg_bloom_count(b), ==, 0);
	vg_bloom_free(b);
	vg_bloom_free(NULL);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/bloom/rates", test_rates);
	g_test_add_func("/bloom/clear-and-params", test_clear_and_params);
	return g_test_run();
}
