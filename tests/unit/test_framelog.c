#include <glib.h>
#include <inttypes.h>
#include <stdio.h>

#include "common/vg_error.h"
#include "tests/vg_testutil.h"
#include "traces/vg_trace.h"
#include "viewer/vg_framelog.h"

/* Lines carry the time, the update number and the trace's frame hash of
 * the whole framebuffer, so they pair with a trace's frame records. */
static void test_lines(void)
{
	g_autofree char *dir = g_dir_make_tmp("vg-framelog-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "v.log", NULL);
	g_autofree char *text = NULL;
	g_autofree char *want = NULL;
	vg_pixbuf *fb = vg_pixbuf_new(3, 2);
	vg_framelog *fl = NULL;
	uint64_t h0, h1;

	g_assert_nonnull(dir);
	vg_pixbuf_row(fb, 1)[2] = 0x00123456;
	h0 = vg_frame_hash(fb);
	g_assert_cmpint(vg_framelog_open(path, &fl), ==, VG_OK);
	g_assert_cmpint(vg_framelog_update(fl, 123456789012ull, fb, 0, 0), ==, VG_OK);
	/* The top byte is not part of a pixel, as in the trace's hash. */
	vg_pixbuf_row(fb, 1)[2] = 0xff123456;
	g_assert_cmpint(vg_framelog_update(fl, 123456789013ull, fb, 1, 640), ==, VG_OK);
	vg_pixbuf_row(fb, 0)[0] = 0x00000001;
	h1 = vg_frame_hash(fb);
	g_assert_cmpuint(h1, !=, h0);
	g_assert_cmpint(vg_framelog_update(fl, 123456789999ull, fb, 3, 0), ==, VG_OK);
	g_assert_cmpuint(vg_framelog_lines(fl), ==, 3);
	/* Flushed per line: readable before the log is closed. */
	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	want = g_strdup_printf("123456789012 0 %016" PRIx64 " 0 0\n123456789013 1 %016" PRIx64
			       " 1 640\n123456789999 2 %016" PRIx64 " 3 0\n", h0, h0, h1);
	g_assert_cmpstr(text, ==, want);
	g_assert_cmpint(vg_framelog_close(fl), ==, VG_OK);
	vg_pixbuf_free(fb);
	vg_test_rm_rf(dir);
}

static void test_errors(void)
{
	vg_pixbuf *fb = vg_pixbuf_new(2, 2);
	vg_framelog *fl = (vg_framelog *)&fl;

	g_assert_cmpint(vg_framelog_open("/nonexistent-dir/v.log", &fl), ==, VG_EIO);
	g_assert_null(fl);
	g_assert_cmpint(vg_framelog_close(NULL), ==, VG_OK);
	/* A full disk: the failing write is reported, and so is every later one. */
	if (g_file_test("/dev/full", G_FILE_TEST_EXISTS)) {
		g_assert_cmpint(vg_framelog_open("/dev/full", &fl), ==, VG_OK);
		g_assert_cmpint(vg_framelog_update(fl, 1, fb, 0, 0), ==, VG_EIO);
		g_assert_cmpint(vg_framelog_update(fl, 2, fb, 0, 0), ==, VG_EIO);
		g_assert_cmpuint(vg_framelog_lines(fl), ==, 0);
		g_assert_cmpint(vg_framelog_close(fl), ==, VG_EIO);
	}
	vg_pixbuf_free(fb);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/framelog/lines", test_lines);
	g_test_add_func("/framelog/errors", test_errors);
	return g_test_run();
}
