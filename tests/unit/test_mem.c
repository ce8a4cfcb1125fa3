#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_mem.h"

static void test_alloc(void)
{
	uint32_t *z = VG_NEW0(uint32_t, 1000), *p;
	size_t i;

	g_assert_null(vg_mem_alloc(0));
	g_assert_null(VG_NEW0(uint32_t, 0));
	g_assert_null(VG_NEW(uint32_t, 0));
	for (i = 0; i < 1000; i++)
		g_assert_cmpuint(z[i], ==, 0);
	for (i = 0; i < 1000; i++)
		z[i] = (uint32_t)i * 3;
	/* Growing and shrinking keep what fits. */
	z = VG_RENEW(uint32_t, z, 100000);
	for (i = 0; i < 1000; i++)
		g_assert_cmpuint(z[i], ==, i * 3);
	z = VG_RENEW(uint32_t, z, 10);
	for (i = 0; i < 10; i++)
		g_assert_cmpuint(z[i], ==, i * 3);
	g_assert_null(VG_RENEW(uint32_t, z, 0));
	p = VG_RENEW(uint32_t, NULL, 4);
	g_assert_nonnull(p);
	/* Memory from here is the C library's: free() and g_free() take it. */
	g_free(p);
	free(vg_mem_alloc(16));
	/* Made present at once (or as usual): as large, every byte usable,
	 * at any alignment and size. */
	g_assert_null(vg_mem_alloc_filled(0));
	for (i = 1; i < (3u << 20); i = i * 7 + 5) {
		uint8_t *b = vg_mem_alloc_filled(i);

		memset(b, 0xa5, i);
		g_assert_cmpuint(b[0], ==, 0xa5);
		g_assert_cmpuint(b[i - 1], ==, 0xa5);
		free(b);
	}
}

/* A table in huge pages: zeroed, whole, aligned to 2 MB on Linux (the
 * pages are the kernel's choice, not checked), free()d as any other. */
static void test_huge(void)
{
	const size_t n = (size_t)5 << 20 | 12345;
	uint8_t *t = vg_mem_alloc0_huge(n);
	size_t i, nonzero = 0;

	g_assert_null(vg_mem_alloc0_huge(0));
	g_assert_nonnull(t);
#if defined(__linux__)
	g_assert_cmpuint((uintptr_t)t % ((uintptr_t)2 << 20), ==, 0);
#endif
	for (i = 0; i < n; i++)
		nonzero += t[i] != 0;
	g_assert_cmpuint(nonzero, ==, 0);
	memset(t, 0xa5, n);
	g_assert_cmpuint(t[n - 1], ==, 0xa5);
	free(t);
}

static void test_strings(void)
{
	VG_AUTOFREE char *d = vg_mem_strdup("segment");
	VG_AUTOFREE char *f = vg_mem_printf("%s/%016" G_GINT64_MODIFIER "x.vgc", "dir", (guint64)0xab);
	VG_AUTOFREE char *empty = vg_mem_printf("%s", "");

	g_assert_cmpstr(d, ==, "segment");
	g_assert_null(vg_mem_strdup(NULL));
	g_assert_cmpstr(f, ==, "dir/00000000000000ab.vgc");
	g_assert_cmpstr(empty, ==, "");
}

/* A count times a size that overflows aborts instead of allocating less. */
static void test_overflow(void)
{
	if (g_test_subprocess()) {
		volatile size_t n = SIZE_MAX / 2;

		(void)VG_NEW(uint32_t, n);
		return;
	}
	g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_failed();
	g_test_trap_assert_stderr("*overflows*");
}

static void test_die(void)
{
	if (g_test_subprocess()) {
		vg_mem_die("stopped at %d", 42);
		return;
	}
	g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_failed();
	g_test_trap_assert_stderr("*stopped at 42*");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/mem/alloc", test_alloc);
	g_test_add_func("/mem/huge", test_huge);
	g_test_add_func("/mem/strings", test_strings);
	g_test_add_func("/mem/overflow", test_overflow);
	g_test_add_func("/mem/die", test_die);
	return g_test_run();
}
