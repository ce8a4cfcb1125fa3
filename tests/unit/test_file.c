#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_file.h"

/* The same joins as GLib's g_build_filename(), separators at the edges,
 * doubled and alone, empty elements included. */
static void test_path_like_glib(void)
{
	static const char *const pairs[][2] = {
		{ "a", "b" }, { "a/", "b" }, { "a", "/b" }, { "a//", "//b" }, { "/", "b" },
		{ "//a", "b" }, { "a", "b/" }, { "a", "b//" }, { "", "b" }, { "a", "" },
		{ "/", "/" }, { "a", "/" }, { "/", "" }, { "", "" }, { "/x/y", "id-00ab" },
		{ "../rel", "varg" }, { "a/./b", "c" }, { "", "/" }, { "//", "//" }, { "a", "//" },
		{ "/", "//" }, { "//", "/" }, { "a/", "/" },
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(pairs); i++) {
		char *want = g_build_filename(pairs[i][0], pairs[i][1], NULL);
		char *got = vg_file_path(pairs[i][0], pairs[i][1], NULL);

		g_assert_cmpstr(got, ==, want);
		g_free(want);
		free(got);
	}
	{
		char *want = g_build_filename("/base/", "", "mid/", "/leaf", NULL);
		char *got = vg_file_path("/base/", "", "mid/", "/leaf", NULL);

		g_assert_cmpstr(got, ==, want);
		g_free(want);
		free(got);
	}
	for (i = 0; i < G_N_ELEMENTS(pairs); i++) {
		char *want = g_build_filename(pairs[i][0], NULL);
		char *got = vg_file_path(pairs[i][0], NULL);

		g_assert_cmpstr(got, ==, want);
		g_free(want);
		free(got);
	}
	{
		char *want = g_build_filename("/", "/", "/", NULL);
		char *got = vg_file_path("/", "/", "/", NULL);

		g_assert_cmpstr(got, ==, want);
		g_free(want);
		free(got);
	}
}

static void test_read_and_dirs(void)
{
	char *dir = g_dir_make_tmp("vg-file-XXXXXX", NULL);
	char *sub = g_build_filename(dir, "one", "two", "three", NULL);
	char *file = g_build_filename(dir, "data", NULL);
	char *in_file = g_build_filename(file, "below", NULL);
	char *tmpl = g_strconcat(file, ".tmp-XXXXXX", NULL);
	char *buf = NULL;
	size_t len = 99;
	struct stat st;
	int fd;

	g_assert_nonnull(dir);
	/* Missing: an error with errno, nothing handed back. */
	errno = 0;
	g_assert_cmpint(vg_file_read(file, &buf, &len), ==, VG_EIO);
	g_assert_cmpint(errno, ==, ENOENT);
	g_assert_null(buf);
	g_assert_false(vg_file_exists(file));
	/* Empty and large files, NUL-terminated. */
	g_assert_true(g_file_set_contents(file, "", 0, NULL));
	g_assert_cmpint(vg_file_read(file, &buf, &len), ==, 0);
	g_assert_cmpuint(len, ==, 0);
	g_assert_cmpint(buf[0], ==, '\0');
	free(buf);
	{
		size_t n = 100000, i;
		char *big = g_malloc(n);

		for (i = 0; i < n; i++)
			big[i] = (char)(i % 251);
		g_assert_true(g_file_set_contents(file, big, (gssize)n, NULL));
		g_assert_cmpint(vg_file_read(file, &buf, &len), ==, 0);
		g_assert_cmpmem(buf, len, big, n);
		g_assert_cmpint(buf[n], ==, '\0');
		free(buf);
		g_free(big);
	}
	g_assert_true(vg_file_exists(file));
	/* Parents made, an existing directory fine, a file in the way not. */
	g_assert_cmpint(vg_file_mkdirs(sub, 0700), ==, 0);
	g_assert_cmpint(stat(sub, &st), ==, 0);
	g_assert_true(S_ISDIR(st.st_mode));
	g_assert_cmpuint(st.st_mode & 0777, ==, 0700);
	g_assert_cmpint(vg_file_mkdirs(sub, 0700), ==, 0);
	g_assert_cmpint(vg_file_mkdirs(dir, 0700), ==, 0);
	errno = 0;
	g_assert_cmpint(vg_file_mkdirs(in_file, 0700), ==, VG_EIO);
	g_assert_cmpint(errno, ==, ENOTDIR);
	g_assert_cmpint(vg_file_mkdirs("", 0700), ==, VG_EIO);
	/* A temporary file: the X's replaced, private to the user. */
	fd = vg_file_temp(tmpl);
	g_assert_cmpint(fd, >=, 0);
	g_assert_null(strstr(tmpl, "XXXXXX"));
	g_assert_cmpint(fstat(fd, &st), ==, 0);
	g_assert_cmpuint(st.st_mode & 0777, ==, 0600);
	g_assert_cmpint(write(fd, "x", 1), ==, 1);
	close(fd);
	g_unlink(tmpl);
	g_unlink(file);
	g_rmdir(sub);
	*strrchr(sub, '/') = '\0';
	g_rmdir(sub);
	*strrchr(sub, '/') = '\0';
	g_rmdir(sub);
	g_assert_cmpint(g_rmdir(dir), ==, 0);
	g_free(tmpl);
	g_free(in_file);
	g_free(file);
	g_free(sub);
	g_free(dir);
}

/* The cache directory follows the XDG rule, as GLib's. */
static void test_user_cache_dir(void)
{
	char *home = g_strdup(g_getenv("HOME"));
	char *dir;

	g_setenv("XDG_CACHE_HOME", "/somewhere/cache", TRUE);
	dir = vg_file_user_cache_dir();
	g_assert_cmpstr(dir, ==, g_get_user_cache_dir());
	free(dir);
	g_setenv("XDG_CACHE_HOME", "", TRUE);
	g_setenv("HOME", "/home/someone", TRUE);
	dir = vg_file_user_cache_dir();
	g_assert_cmpstr(dir, ==, "/home/someone/.cache");
	free(dir);
	g_unsetenv("XDG_CACHE_HOME");
	dir = vg_file_user_cache_dir();
	g_assert_cmpstr(dir, ==, "/home/someone/.cache");
	free(dir);
	if (home)
		g_setenv("HOME", home, TRUE);
	g_free(home);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/file/path-like-glib", test_path_like_glib);
	g_test_add_func("/file/read-and-dirs", test_read_and_dirs);
	g_test_add_func("/file/user-cache-dir", test_user_cache_dir);
	return g_test_run();
}
