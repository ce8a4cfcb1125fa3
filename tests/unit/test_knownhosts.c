#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "capture/vg_knownhosts.h"
#include "common/vg_error.h"
#include "tests/vg_testutil.h"

static void fill(uint8_t fp[VG_TLS_FP_LEN], uint8_t seed)
{
	int i;

	for (i = 0; i < VG_TLS_FP_LEN; i++)
		fp[i] = (uint8_t)(seed + i * 7);
}

/* First use remembers, later lookups give it back, a new certificate
 * replaces it only when remembered again; addresses stay apart. */
static void test_remember_and_lookup(void)
{
	g_autofree char *dir = g_dir_make_tmp("vg-knownhosts-XXXXXX", NULL);
	g_autofree char *sub = g_build_filename(dir, "a", "b", NULL);
	uint8_t a[VG_TLS_FP_LEN], b[VG_TLS_FP_LEN], got[VG_TLS_FP_LEN];

	fill(a, 1);
	fill(b, 200);
	g_assert_cmpint(vg_knownhosts_lookup(dir, "example.org", 5901, got), ==, VG_ENOENT);
	g_assert_cmpint(vg_knownhosts_remember(dir, "example.org", 5901, a), ==, VG_OK);
	g_assert_cmpint(vg_knownhosts_lookup(dir, "example.org", 5901, got), ==, VG_OK);
	g_assert_cmpmem(got, sizeof got, a, sizeof a);
	/* Another port, another host: unknown. */
	g_assert_cmpint(vg_knownhosts_lookup(dir, "example.org", 5902, got), ==, VG_ENOENT);
	g_assert_cmpint(vg_knownhosts_lookup(dir, "example.net", 5901, got), ==, VG_ENOENT);
	/* IPv6 literals and odd characters are kept apart by escaping. */
	g_assert_cmpint(vg_knownhosts_remember(dir, "::1", 5901, b), ==, VG_OK);
	g_assert_cmpint(vg_knownhosts_remember(dir, "[x]=y", 1, b), ==, VG_OK);
	g_assert_cmpint(vg_knownhosts_lookup(dir, "::1", 5901, got), ==, VG_OK);
	g_assert_cmpmem(got, sizeof got, b, sizeof b);
	g_assert_cmpint(vg_knownhosts_lookup(dir, "example.org", 5901, got), ==, VG_OK);
	g_assert_cmpmem(got, sizeof got, a, sizeof a);
	/* Replaced. */
	g_assert_cmpint(vg_knownhosts_remember(dir, "example.org", 5901, b), ==, VG_OK);
	g_assert_cmpint(vg_knownhosts_lookup(dir, "example.org", 5901, got), ==, VG_OK);
	g_assert_cmpmem(got, sizeof got, b, sizeof b);
	/* The directory is made when missing. */
	g_assert_cmpint(vg_knownhosts_remember(sub, "h", 2, a), ==, VG_OK);
	g_assert_cmpint(vg_knownhosts_lookup(sub, "h", 2, got), ==, VG_OK);
	g_assert_cmpint(vg_knownhosts_remember(dir, "", 1, a), ==, VG_EINVAL);
	g_assert_cmpint(vg_knownhosts_lookup(NULL, "h", 1, got), ==, VG_EINVAL);
	vg_test_rm_rf(dir);
}

/* A damaged store is an error, never "unknown": it must not let any
 * certificate through, and it is not overwritten. */
static void test_damaged(void)
{
	g_autofree char *dir = g_dir_make_tmp("vg-knownhosts-XXXXXX", NULL);
	g_autofree char *path = vg_knownhosts_path(dir);
	g_autofree char *after = NULL;
	uint8_t a[VG_TLS_FP_LEN], got[VG_TLS_FP_LEN];

	fill(a, 3);
	g_assert_true(g_file_set_contents(path, "[broken\n\x01\x02", -1, NULL));
	g_assert_cmpint(vg_knownhosts_lookup(dir, "h", 1, got), ==, VG_EFORMAT);
	g_assert_cmpint(vg_knownhosts_remember(dir, "h", 1, a), ==, VG_EFORMAT);
	g_assert_true(g_file_get_contents(path, &after, NULL, NULL));
	g_assert_cmpstr(after, ==, "[broken\n\x01\x02");
	/* A readable file whose entry is not a fingerprint. */
	g_assert_true(g_file_set_contents(path, "[h%3A%3A1]\nsha256=12:34\n[h%3A%3A2]\nother=1\n", -1, NULL));
	g_assert_cmpint(vg_knownhosts_lookup(dir, "h", 1, got), ==, VG_EFORMAT);
	g_assert_cmpint(vg_knownhosts_lookup(dir, "h", 2, got), ==, VG_EFORMAT);
	g_assert_cmpint(vg_knownhosts_lookup(dir, "h", 3, got), ==, VG_ENOENT);
	/* A directory that is a file holds no store, and can take none. */
	g_assert_cmpint(vg_knownhosts_lookup(path, "h", 1, got), ==, VG_ENOENT);
	g_assert_cmpint(vg_knownhosts_remember(path, "h", 1, a), ==, VG_EIO);
	/* A store that is a directory cannot be read or written. */
	g_assert_cmpint(g_unlink(path), ==, 0);
	g_assert_cmpint(g_mkdir(path, 0700), ==, 0);
	g_assert_cmpint(vg_knownhosts_lookup(dir, "h", 1, got), !=, VG_OK);
	g_assert_cmpint(vg_knownhosts_remember(dir, "h", 1, a), !=, VG_OK);
	vg_test_rm_rf(dir);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/knownhosts/remember_and_lookup", test_remember_and_lookup);
	g_test_add_func("/knownhosts/damaged", test_damaged);
	return g_test_run();
}
