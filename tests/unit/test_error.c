#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_id.h"
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

static void test_id_hex(void)
{
	uint8_t id[VG_ID_BYTES], back[VG_ID_BYTES], kept[VG_ID_BYTES];
	char hex[VG_ID_HEX_LEN + 1];
	int i;

	for (i = 0; i < VG_ID_BYTES; i++)
		id[i] = (uint8_t)(i * 17 + 10);
	vg_id_to_hex(id, hex);
	g_assert_cmpstr(hex, ==, "0a1b2c3d4e5f708192a3b4c5d6e7f809");
	g_assert_true(vg_id_from_hex(hex, back));
	g_assert_cmpmem(back, sizeof back, id, sizeof id);
	/* Either case reads; the digits after the 32nd are not looked at. */
	g_assert_true(vg_id_from_hex("0A1B2C3D4E5F708192A3B4C5D6E7F809\n", back));
	g_assert_cmpmem(back, sizeof back, id, sizeof id);
	/* A stray character or a short string: refused, id untouched. */
	memcpy(kept, back, sizeof kept);
	g_assert_false(vg_id_from_hex("0a1b2c3d4e5f708192a3b4c5d6e7f8g9", back));
	g_assert_false(vg_id_from_hex("0a1b2c", back));
	g_assert_false(vg_id_from_hex("", back));
	g_assert_cmpmem(back, sizeof back, kept, sizeof kept);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/error/strerror", test_strerror);
	g_test_add_func("/time/monotonic", test_time);
	g_test_add_func("/log/level", test_log_level);
	g_test_add_func("/id/hex", test_id_hex);
	return g_test_run();
}
