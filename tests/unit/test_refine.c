/* The refinement planner (server/vg_refine): when an update's missed pixels
 * are approximated and by what factor, on paths given by hand. */
#include <glib.h>

#include "common/vg_error.h"
#include "server/vg_refine.h"

#define S_NS G_GUINT64_CONSTANT(1000000000)

static void test_factor(void)
{
	vg_refine_config cfg = { .budget_ms = 100 };
	vg_refine *rf = vg_refine_new(&cfg);
	vg_path_sample p = { .rate = 200000 };

	/* Before any sample the rate is unknown: everything exact. */
	g_assert_cmpuint(vg_refine_factor(rf, 0, 1000000, 0), ==, 0);
	vg_refine_observe(rf, 1 * S_NS, &p);
	g_assert_cmpuint(vg_refine_rate(rf), ==, 200000);
	/* 0.25 B a pixel until measured: 20,000 B of budget is 80,000 pixels. */
	g_assert_cmpuint(vg_refine_factor(rf, 0, 80000, 0), ==, 0);
	/* Just over: halving would cost 10,000 of the 20,000 B, not worth a
	 * second sending; a quarter of the size is (2,500 B). */
	g_assert_cmpuint(vg_refine_factor(rf, 0, 80001, 0), ==, 4);
	/* Shrunk pixels cost 0.5 B: 200,000 pixels fit at a factor of 4
	 * (6,250 B), 1,000,000 at 8 (7,813 B). */
	g_assert_cmpuint(vg_refine_factor(rf, 0, 200000, 0), ==, 4);
	g_assert_cmpuint(vg_refine_factor(rf, 0, 1000000, 0), ==, 8);
	/* A trial coding overrules the guess: cheap content goes exact. */
	g_assert_cmpuint(vg_refine_factor(rf, 0, 200000, 15000), ==, 0);
	g_assert_cmpuint(vg_refine_factor(rf, 0, 200000, 400000), ==, 4);
	/* Exact pixels leave less for the rest. */
	g_assert_cmpuint(vg_refine_factor(rf, 60000, 100000, 0), ==, 4);
	p.queued = 30000;
	vg_refine_observe(rf, 2 * S_NS, &p);
	g_assert_cmpuint(vg_refine_factor(rf, 0, 1, 0), ==, 16);
	/* Nothing to approximate: nothing to decide. */
	g_assert_cmpuint(vg_refine_factor(rf, 1000000, 0, 0), ==, 0);
	vg_refine_free(rf);
}

static void test_rate_memory(void)
{
	vg_refine_config cfg = { .budget_ms = 100 };
	vg_refine *rf = vg_refine_new(&cfg);
	vg_path_sample fast = { .rate = 2000000 }, slow = { .rate = 50000 };
	vg_path_sample none = { .cwnd_rate = 120000 };

	/* The congestion window's rate until a delivery is measured. */
	vg_refine_observe(rf, 0, &none);
	g_assert_cmpuint(vg_refine_rate(rf), ==, 120000);
	vg_refine_observe(rf, 1 * S_NS, &fast);
	/* A sample from a quiet moment does not lower it for a while... */
	vg_refine_observe(rf, 2 * S_NS, &slow);
	g_assert_cmpuint(vg_refine_rate(rf), ==, 2000000);
	/* ... but the path may really have slowed down. */
	vg_refine_observe(rf, 7 * S_NS, &slow);
	g_assert_cmpuint(vg_refine_rate(rf), ==, 50000);
	vg_refine_free(rf);
}

static void test_cost(void)
{
	vg_refine_config cfg = { .budget_ms = 100, .fixed_rate = 100000 };
	vg_refine *rf = vg_refine_new(&cfg);
	vg_path_sample p = { .rate = 1 };
	int i;

	vg_refine_observe(rf, 0, &p);
	g_assert_cmpuint(vg_refine_rate(rf), ==, 100000);
	/* Small updates teach nothing; large ones at 2 B a pixel do. */
	vg_refine_coded(rf, 100, 100000, 0);
	g_assert_cmpuint(vg_refine_factor(rf, 0, 40000, 0), ==, 0);
	for (i = 0; i < 20; i++)
		vg_refine_coded(rf, 100000, 200000, 0);
	g_assert_cmpuint(vg_refine_factor(rf, 0, 40000, 0), !=, 0);
	vg_refine_free(rf);
	/* A budget of 0 never approximates. */
	cfg.budget_ms = 0;
	rf = vg_refine_new(&cfg);
	g_assert_cmpuint(vg_refine_factor(rf, 0, 1u << 30, 0), ==, 0);
	vg_refine_free(rf);
}

static void test_bands(void)
{
	vg_refine_config cfg = { .band_ms = 50 };
	vg_refine *rf = vg_refine_new(&cfg);
	vg_path_sample p = { .rate = 200000 };

	/* No rate, then no large update seen: one band. */
	g_assert_cmpuint(vg_refine_band_pixels(rf), ==, UINT64_MAX);
	vg_refine_observe(rf, 1 * S_NS, &p);
	g_assert_cmpuint(vg_refine_band_pixels(rf), ==, UINT64_MAX);
	vg_refine_coded(rf, 100, 1000, 0);
	g_assert_cmpuint(vg_refine_band_pixels(rf), ==, UINT64_MAX);
	/* 10,000 B in 50 ms; a large update moves the 0.25 B a pixel guess
	 * a quarter of the way to its 0.05: 0.2 B, 50,000 pixels. */
	vg_refine_coded(rf, 100000, 5000, 0);
	g_assert_cmpuint(vg_refine_band_pixels(rf), ==, 50001);
	vg_refine_free(rf);
	/* Without a band budget, never. */
	cfg.band_ms = 0;
	rf = vg_refine_new(&cfg);
	vg_refine_observe(rf, 1 * S_NS, &p);
	vg_refine_coded(rf, 100000, 5000, 0);
	g_assert_cmpuint(vg_refine_band_pixels(rf), ==, UINT64_MAX);
	vg_refine_free(rf);
}

static void test_band_worth(void)
{
	vg_refine_config cfg = { .band_ms = 60, .first_paint_ms = 200 };
	vg_refine *rf = vg_refine_new(&cfg);
	vg_path_sample p = { .rate = 200000, .rtt_us = 150000, .min_rtt_us = 120000 };

	/* The rate unknown: no bands. */
	g_assert_false(vg_refine_band_worth(rf, 1000000, 0));
	/* 60 ms one way (half the least round trip) leaves 140 ms, 28,000 B,
	 * 112,000 pixels at the 0.25 B a pixel guess. */
	vg_refine_observe(rf, 1 * S_NS, &p);
	g_assert_false(vg_refine_band_worth(rf, 112000, 0));
	g_assert_true(vg_refine_band_worth(rf, 112004, 0));
	/* Bytes queued ahead of the update come first: 10,000 B, 50 ms. */
	p.queued = 10000;
	vg_refine_observe(rf, 2 * S_NS, &p);
	g_assert_false(vg_refine_band_worth(rf, 72000, 0));
	g_assert_true(vg_refine_band_worth(rf, 72004, 0));
	/* Without the least round trip, the smoothed one: 75 ms one way. */
	p.queued = 0;
	p.min_rtt_us = 0;
	vg_refine_observe(rf, 3 * S_NS, &p);
	g_assert_false(vg_refine_band_worth(rf, 100000, 0));
	g_assert_true(vg_refine_band_worth(rf, 100004, 0));
	/* The time since the change and the coding at both ends count: after
	 * 75 ms one way and 20 ms waited, 105 ms are left, 72,400 pixels at
	 * 1.45 us each (1.25 on the link, 100 ns coding at each end). */
	vg_refine_coded(rf, 100000, 25000, 10000000);
	g_assert_false(vg_refine_band_worth(rf, 72000, 20000000));
	g_assert_true(vg_refine_band_worth(rf, 73000, 20000000));
	vg_refine_free(rf);
	/* Without a target, every update over the band budget. */
	cfg.first_paint_ms = 0;
	rf = vg_refine_new(&cfg);
	g_assert_true(vg_refine_band_worth(rf, 1, 0));
	vg_refine_free(rf);
}

static void test_socket(void)
{
	vg_path_sample p;

	/* Not a TCP socket. */
	g_assert_cmpint(vg_refine_read_socket(-1, &p), ==, VG_EIO);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/refine/factor", test_factor);
	g_test_add_func("/refine/rate-memory", test_rate_memory);
	g_test_add_func("/refine/cost", test_cost);
	g_test_add_func("/refine/bands", test_bands);
	g_test_add_func("/refine/band-worth", test_band_worth);
	g_test_add_func("/refine/socket", test_socket);
	return g_test_run();
}
