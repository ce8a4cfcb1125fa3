#include <glib.h>
#include <stdio.h>

#include "server/vg_authguard.h"

#define S 1000000000ull

/* Free tries, then 10 s, doubling to the cap; others are not affected. */
static void test_growing_block(void)
{
	vg_authguard *g = vg_authguard_new();
	uint64_t t = 100 * S;
	unsigned i, want = VG_AUTHGUARD_FIRST_S;

	for (i = 0; i < VG_AUTHGUARD_FREE; i++) {
		g_assert_cmpuint(vg_authguard_failed(g, "10.0.0.1", t), ==, 0);
		g_assert_cmpuint(vg_authguard_blocked_s(g, "10.0.0.1", t), ==, 0);
	}
	for (i = 0; i < 12; i++) {
		unsigned secs = vg_authguard_failed(g, "10.0.0.1", t);

		g_assert_cmpuint(secs, ==, want);
		g_assert_cmpuint(vg_authguard_blocked_s(g, "10.0.0.1", t), ==, secs);
		g_assert_cmpuint(vg_authguard_blocked_s(g, "10.0.0.1", t + secs * S - S / 2), ==, 1);
		g_assert_cmpuint(vg_authguard_blocked_s(g, "10.0.0.1", t + secs * S), ==, 0);
		g_assert_cmpuint(vg_authguard_blocked_s(g, "10.0.0.2", t), ==, 0);
		t += secs * S;
		want = MIN(want * 2, VG_AUTHGUARD_MAX_S);
	}
	g_assert_cmpuint(want, ==, VG_AUTHGUARD_MAX_S);
	vg_authguard_free(g);
}

/* A good password forgets the failures: the free tries are back. */
static void test_success_forgets(void)
{
	vg_authguard *g = vg_authguard_new();
	unsigned i;

	for (i = 0; i < VG_AUTHGUARD_FREE + 2; i++)
		vg_authguard_failed(g, "::1", 0);
	g_assert_cmpuint(vg_authguard_blocked_s(g, "::1", 0), >, 0);
	vg_authguard_succeeded(g, "::1");
	g_assert_cmpuint(vg_authguard_blocked_s(g, "::1", 0), ==, 0);
	g_assert_cmpuint(vg_authguard_failed(g, "::1", 0), ==, 0);
	vg_authguard_free(g);
	vg_authguard_free(NULL);
}

/* Many addresses: the table stays bounded and drops unblocked entries
 * before blocked ones. */
static void test_bounded(void)
{
	vg_authguard *g = vg_authguard_new();
	char addr[32];
	unsigned i;

	for (i = 0; i < VG_AUTHGUARD_FREE + 1; i++)
		vg_authguard_failed(g, "blocked", 0);
	for (i = 0; i < 3 * VG_AUTHGUARD_MAX; i++) {
		snprintf(addr, sizeof addr, "10.1.%u.%u", i / 256, i % 256);
		vg_authguard_failed(g, addr, 0);
	}
	g_assert_cmpuint(vg_authguard_blocked_s(g, "blocked", 0), ==, VG_AUTHGUARD_FIRST_S);
	vg_authguard_free(g);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/authguard/growing-block", test_growing_block);
	g_test_add_func("/authguard/success-forgets", test_success_forgets);
	g_test_add_func("/authguard/bounded", test_bounded);
	return g_test_run();
}
