#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>

#include "common/vg_error.h"
#include "common/vg_imgfile.h"

static vg_pixbuf *pattern(int w, int h)
{
	vg_pixbuf *pb = vg_pixbuf_new(w, h);
	int x, y;

	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			vg_pixbuf_row(pb, y)[x] = VG_RGB(x * 3, y * 5, x ^ y);
	return pb;
}

static void test_round_trip(void)
{
	g_autofree char *dir = g_dir_make_tmp("vgimg-XXXXXX", NULL);
	g_autofree char *png = g_build_filename(dir, "a.png", NULL);
	g_autofree char *ppm = g_build_filename(dir, "a.ppm", NULL);
	vg_pixbuf *a = pattern(37, 21), *b = NULL, *c = NULL;

	g_assert_cmpint(vg_png_write(png, a), ==, 0);
	g_assert_cmpint(vg_image_read(png, &b), ==, 0);
	g_assert_true(vg_pixbuf_equal(a, b));
	g_assert_cmpint(vg_ppm_write(ppm, a), ==, 0);
	g_assert_cmpint(vg_image_read(ppm, &c), ==, 0);
	g_assert_true(vg_pixbuf_equal(a, c));
	g_remove(png);
	g_remove(ppm);
	g_rmdir(dir);
	vg_pixbuf_free(a);
	vg_pixbuf_free(b);
	vg_pixbuf_free(c);
}

static void test_bad_files(void)
{
	g_autofree char *dir = g_dir_make_tmp("vgimg-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "bad", NULL);
	vg_pixbuf *a = pattern(40, 30), *out = NULL;
	gchar *bytes;
	gsize len;

	g_assert_cmpint(vg_image_read("/nonexistent/x.png", &out), ==, VG_ENOENT);
	g_assert_true(g_file_set_contents(path, "hello world", -1, NULL));
	g_assert_cmpint(vg_image_read(path, &out), ==, VG_EFORMAT);
	g_assert_true(g_file_set_contents(path, "P6\n99999999 1\n255\n", -1, NULL));
	g_assert_cmpint(vg_image_read(path, &out), ==, VG_ERANGE);
	g_assert_true(g_file_set_contents(path, "P6\n4 4\n255\nabc", -1, NULL));
	g_assert_cmpint(vg_image_read(path, &out), ==, VG_ETRUNC);
	g_assert_true(g_file_set_contents(path, "P6\n4 4\n65535\n", -1, NULL));
	g_assert_cmpint(vg_image_read(path, &out), ==, VG_ENOTSUP);

	/* A PNG cut in half is reported as corrupt, not crashed on. */
	g_assert_cmpint(vg_png_write(path, a), ==, 0);
	g_assert_true(g_file_get_contents(path, &bytes, &len, NULL));
	g_assert_true(g_file_set_contents(path, bytes, (gssize)(len / 2), NULL));
	g_assert_cmpint(vg_image_read(path, &out), ==, VG_ECORRUPT);
	g_assert_null(out);
	g_free(bytes);
	g_remove(path);
	g_rmdir(dir);
	vg_pixbuf_free(a);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/imgfile/round-trip", test_round_trip);
	g_test_add_func("/imgfile/bad-files", test_bad_files);
	return g_test_run();
}
