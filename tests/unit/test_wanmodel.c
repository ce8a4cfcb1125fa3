/* Formula 1 (traces/vg_wanmodel.c) against values worked out by hand. */
#include <glib.h>
#include <string.h>

#include "traces/vg_wanmodel.h"

static void test_profiles(void)
{
	size_t n;
	const vg_wanprofile *p = vg_wan_profiles(&n);

	g_assert_cmpuint(n, ==, 5);
	g_assert_cmpstr(p[0].name, ==, "gigabit");
	g_assert_cmpfloat_with_epsilon(p[0].bandwidth, 80e6, 1e-6);
	g_assert_cmpfloat_with_epsilon(p[1].bandwidth, 8e6, 1e-6);
	g_assert_cmpfloat_with_epsilon(p[2].rtt_ms, 11.0, 1e-9);
	g_assert_cmpfloat_with_epsilon(p[3].bandwidth, 0.38e6, 1e-6);
	g_assert_cmpfloat_with_epsilon(p[4].rtt_ms, 120.0, 1e-9);
	g_assert_true(vg_wan_profile_find("princeton-tromso") == &p[4]);
	g_assert_null(vg_wan_profile_find("moon"));
}

static void test_formula(void)
{
	const vg_wanprofile *boston = vg_wan_profile_find("princeton-boston");
	const vg_wanprofile *tromso = vg_wan_profile_find("princeton-tromso");
	const vg_wanprofile *gig = vg_wan_profile_find("gigabit");
	const vg_wanprofile *fast = vg_wan_profile_find("fast-ethernet");
	const vg_wanprofile *sd = vg_wan_profile_find("princeton-san-diego");

	/* 2L = 11 ms; 21,300 B at 2.13 MB/s = 10 ms; C = 5 ms. */
	g_assert_cmpfloat_with_epsilon(vg_wan_time_sent_ms(boston, 21300, 5.0), 26.0, 1e-9);
	/* S = 1 MB at ratio 50 is 20,000 B; at 0.2 MB/s 100 ms; + 120 ms. */
	g_assert_cmpfloat_with_epsilon(vg_wan_time_ms(tromso, 1e6, 50.0, 0.0), 220.0, 1e-9);
	/* 80,000 B at 80 MB/s = 1 ms, + 0.2 ms, + 0.3 ms. */
	g_assert_cmpfloat_with_epsilon(vg_wan_time_sent_ms(gig, 80000, 0.3), 1.5, 1e-9);
	/* A raw 1024x768x4 frame on 100 Mbit/s: 3,145,728 / 8e6 s = 393.216 ms. */
	g_assert_cmpfloat_with_epsilon(vg_wan_time_ms(fast, 3145728, 1.0, 0.0), 393.416, 1e-9);
	/* 3,800 B at 0.38 MB/s = 10 ms, + 72 ms, + 2 ms. */
	g_assert_cmpfloat_with_epsilon(vg_wan_time_ms(sd, 38000, 10.0, 2.0), 84.0, 1e-9);
}

static void test_quantiles(void)
{
	double v[] = { 5, 1, 4, 2, 3 };
	double w[] = { 250, 50, 150, 99.9, 100, 300, 10, 199, 200, 1 };

	g_assert_cmpfloat(vg_wan_quantile(v, 5, 0.5), ==, 3);
	g_assert_cmpfloat(vg_wan_quantile(v, 5, 0.9), ==, 5);
	g_assert_cmpfloat(vg_wan_quantile(v, 5, 0.2), ==, 1);
	g_assert_cmpfloat(vg_wan_quantile(v, 5, 0.0), ==, 1);
	g_assert_cmpfloat(vg_wan_quantile(v, 5, 1.0), ==, 5);
	/* Sorted: 1 10 50 99.9 100 150 199 200 250 300. */
	g_assert_cmpfloat(vg_wan_share_below(w, 10, 100.0), ==, 0.4);
	g_assert_cmpfloat(vg_wan_share_below(w, 10, 200.0), ==, 0.7);
	g_assert_cmpfloat(vg_wan_quantile(w, 10, 0.5), ==, 100);
	g_assert_cmpfloat(vg_wan_quantile(w, 10, 0.9), ==, 250);
	g_assert_cmpfloat(vg_wan_quantile(w, 10, 0.99), ==, 300);
	g_assert_cmpfloat(vg_wan_share_below(w, 0, 1.0), ==, 0.0);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/wanmodel/profiles", test_profiles);
	g_test_add_func("/wanmodel/formula", test_formula);
	g_test_add_func("/wanmodel/quantiles", test_quantiles);
	return g_test_run();
}
