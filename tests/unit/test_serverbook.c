#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "capture/vg_serverbook.h"
#include "common/vg_error.h"
#include "fingerprint/cache/vg_segcache.h"
#include "tests/vg_testutil.h"

/* Makes the namespace directory of the server with identity id. */
static void make_namespace(const char *base, const uint8_t id[16])
{
	g_autofree char *dir = NULL;
	char hex[33];
	int i;

	for (i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	g_assert_cmpint(vg_segcache_namespace_dir(base, hex, &dir), ==, 0);
	g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
}

static void test_note_and_know(void)
{
	g_autofree char *base = g_dir_make_tmp("vg-serverbook-XXXXXX", NULL);
	g_autofree char *book = g_build_filename(base, "servers", NULL);
	uint8_t a[16], b[16];

	memset(a, 0xa1, sizeof a);
	memset(b, 0x07, sizeof b);
	/* No book, no directory: nothing known. */
	g_assert_false(vg_serverbook_knows_host(base, "example.org"));
	g_assert_false(vg_serverbook_knows_host(NULL, "example.org"));
	g_assert_cmpint(vg_serverbook_note(base, "example.org", 5901, a), ==, VG_OK);
	/* Noted, but the cache holds nothing of it yet. */
	g_assert_false(vg_serverbook_knows_host(base, "example.org"));
	make_namespace(base, a);
	g_assert_true(vg_serverbook_knows_host(base, "example.org"));
	g_assert_false(vg_serverbook_knows_host(base, "example.net"));
	g_assert_false(vg_serverbook_knows_host(base, "example.or"));
	/* Another server, one this cache never saw, now answers there: the
	 * host is still known by its other port. */
	g_assert_cmpint(vg_serverbook_note(base, "example.org", 5902, a), ==, VG_OK);
	g_assert_cmpint(vg_serverbook_note(base, "example.org", 5901, b), ==, VG_OK);
	g_assert_true(vg_serverbook_knows_host(base, "example.org"));
	g_assert_cmpint(vg_serverbook_note(base, "example.org", 5902, b), ==, VG_OK);
	g_assert_false(vg_serverbook_knows_host(base, "example.org"));
	make_namespace(base, b);
	g_assert_true(vg_serverbook_knows_host(base, "example.org"));
	/* A damaged book knows nothing, and the next note rewrites it. */
	g_assert_true(g_file_set_contents(book, "[broken\n\x01\x02", -1, NULL));
	g_assert_false(vg_serverbook_knows_host(base, "example.org"));
	g_assert_cmpint(vg_serverbook_note(base, "::1", 5999, a), ==, VG_OK);
	g_assert_true(vg_serverbook_knows_host(base, "::1"));
	g_assert_cmpint(vg_serverbook_note(base, "", 5999, a), ==, VG_EINVAL);
	/* A cache directory that cannot be made. */
	g_assert_cmpint(vg_serverbook_note(book, "x", 1, a), ==, VG_EIO);
	vg_test_rm_rf(base);
}

static void test_bounded(void)
{
	g_autofree char *base = g_dir_make_tmp("vg-serverbook-XXXXXX", NULL);
	g_autofree char *book = g_build_filename(base, "servers", NULL);
	GKeyFile *kf = g_key_file_new();
	uint8_t id[16];
	gsize n;
	int i;

	memset(id, 0x33, sizeof id);
	make_namespace(base, id);
	for (i = 0; i < VG_SERVERBOOK_MAX + 10; i++) {
		g_autofree char *host = g_strdup_printf("host%d", i);

		g_assert_cmpint(vg_serverbook_note(base, host, 5900, id), ==, VG_OK);
	}
	g_assert_true(g_key_file_load_from_file(kf, book, G_KEY_FILE_NONE, NULL));
	g_strfreev(g_key_file_get_groups(kf, &n));
	g_assert_cmpuint(n, ==, VG_SERVERBOOK_MAX);
	/* The oldest went, the latest stayed; noting again keeps it. */
	g_assert_false(vg_serverbook_knows_host(base, "host0"));
	g_assert_true(vg_serverbook_knows_host(base, "host10"));
	g_assert_cmpint(vg_serverbook_note(base, "host10", 5900, id), ==, VG_OK);
	g_assert_cmpint(vg_serverbook_note(base, "new", 5900, id), ==, VG_OK);
	g_assert_true(vg_serverbook_knows_host(base, "host10"));
	g_assert_false(vg_serverbook_knows_host(base, "host11"));
	g_key_file_free(kf);
	vg_test_rm_rf(base);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/serverbook/note-and-know", test_note_and_know);
	g_test_add_func("/serverbook/bounded", test_bounded);
	return g_test_run();
}
