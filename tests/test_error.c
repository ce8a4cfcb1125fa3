#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"

static void test_strerror(void)
{
	int c;

	g_assert_cmpstr(vg_strerror(VG_OK), ==, "success");
	/* Every code has its own text. */
	for (c = VG_EINVAL; c >= VG_ETIMEDOUT; c--) {
		g_assert_cmpstr(vg_strerror(c), !=, "unknown error");
		g_assert_cmpstr(vg_strerror(c), !=, vg_strerror(c + 1));
	}
	g_assert_cmpstr(vg_strerror(-9999), ==, "unknown error");
}

static void test_time(void)
{
	guint64 a = vg_time_ns(), b;

	g_usleep(2000);
	b = vg_time_ns();
	g_assert_cmpuint(b, >, a);
	g_assert_cmpfloat(vg_time_ms_since(a, b), >=, 1.9);
	g_assert_cmpuint(vg_time_wall_ns(), >, 1600000000ull * 1000000000ull);
}

static void test_log_level(void)
{
	vg_log_set_level(VG_LOG_ERROR);
	g_assert_cmpint(vg_log_get_level(), ==, VG_LOG_ERROR);
	vg_log_set_prefix("test");
	vg_warn("dropped %d", 1);
	vg_log_set_level(VG_LOG_WARN);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/error/strerror", test_strerror);
	g_test_add_func("/time/monotonic", test_time);
	g_test_add_func("/log/level", test_log_level);
	return g_test_run();
}
