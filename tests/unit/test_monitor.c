/* The monitor: statistics over the ring of the last updates, kinds kept
 * apart, totals since the start. */
#include <glib.h>

#include "common/vg_error.h"
#include "server/vg_monitor.h"

static void test_summary(void)
{
	vg_monitor_summary sum;
	vg_monitor *m;
	int i;

	g_assert_cmpint(vg_monitor_new(8, &m), ==, VG_EINVAL);
	g_assert_cmpint(vg_monitor_new(100, &m), ==, 0);
	vg_monitor_summarize(m, &sum);
	g_assert_cmpuint(sum.window, ==, 0);
	g_assert_cmpuint(sum.varg[VG_STAGE_SENDER].n, ==, 0);
	/* 150 Varg updates with sender times 1..150, then one stock. */
	for (i = 1; i <= 150; i++) {
		vg_monitor_update u = { .raw_bytes = 400, .sent_bytes = 4, .shared = i % 2 == 0 };

		u.ns[VG_STAGE_SENDER] = (uint64_t)i;
		vg_monitor_record(m, &u);
	}
	{
		vg_monitor_update u = { .stock = true, .sent_bytes = 1000 };

		u.ns[VG_STAGE_WRITE] = 77;
		vg_monitor_record(m, &u);
	}
	vg_monitor_summarize(m, &sum);
	g_assert_cmpuint(sum.updates, ==, 151);
	g_assert_cmpuint(sum.window, ==, 100);
	/* The ring holds Varg updates 52..150 and the stock one. */
	g_assert_cmpuint(sum.varg[VG_STAGE_SENDER].n, ==, 99);
	g_assert_cmpuint(sum.varg[VG_STAGE_SENDER].p50_ns, ==, 101);
	g_assert_cmpuint(sum.varg[VG_STAGE_SENDER].p99_ns, ==, 149);
	g_assert_cmpuint(sum.varg[VG_STAGE_SENDER].max_ns, ==, 150);
	g_assert_cmpfloat_with_epsilon(sum.varg[VG_STAGE_SENDER].mean_ns, 101.0, 1e-9);
	g_assert_cmpuint(sum.window_shared, ==, 50);
	g_assert_cmpuint(sum.window_raw, ==, 99 * 400);
	g_assert_cmpuint(sum.window_sent, ==, 99 * 4);
	g_assert_cmpuint(sum.raw_bytes, ==, 150 * 400);
	g_assert_cmpuint(sum.sent_bytes, ==, 150 * 4);
	g_assert_cmpuint(sum.stock[VG_STAGE_WRITE].n, ==, 1);
	g_assert_cmpuint(sum.stock[VG_STAGE_WRITE].p50_ns, ==, 77);
	g_assert_cmpuint(sum.stock[VG_STAGE_SENDER].n, ==, 0);
	g_assert_cmpstr(vg_stage_name(VG_STAGE_LATENCY), ==, "latency");
	vg_monitor_free(m);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/monitor/summary", test_summary);
	return g_test_run();
}
