#include <glib.h>

#include "common/vg_error.h"
#include "capture/vg_address.h"

static void test_forms(void)
{
	static const struct { const char *in, *host; int port; } ok[] = {
		{ "example.org", "example.org", 5900 },
		{ "example.org:1", "example.org", 5901 },
		{ "example.org::5999", "example.org", 5999 },
		{ ":2", "localhost", 5902 },
		{ "::6000", "localhost", 6000 },
		{ "[::1]:3", "::1", 5903 },
		{ "[fe80::1]::7000", "fe80::1", 7000 },
		{ "10.0.0.1:0", "10.0.0.1", 5900 },
	};
	static const char *bad[] = { "", "host:", "host::", "host:x", "host::0", "host::70000",
				     "host:60000", "[::1", "[]:1", "a b:1", "host:1:2", "host::-1" };
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(ok); i++) {
		char *host = NULL;
		int port = 0;
		g_assert_cmpint(vg_address_parse(ok[i].in, &host, &port), ==, 0);
		g_assert_cmpstr(host, ==, ok[i].host);
		g_assert_cmpint(port, ==, ok[i].port);
		g_free(host);
	}
	for (i = 0; i < G_N_ELEMENTS(bad); i++) {
		char *host = NULL;
		int port = 0;
		g_test_message("bad: '%s'", bad[i]);
		g_assert_cmpint(vg_address_parse(bad[i], &host, &port), ==, VG_EINVAL);
		g_assert_null(host);
	}
	g_assert_cmpint(vg_address_parse(NULL, NULL, NULL), ==, VG_EINVAL);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/address/forms", test_forms);
	return g_test_run();
}
