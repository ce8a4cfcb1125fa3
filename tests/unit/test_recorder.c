/* The viewer's recorder: what it writes is read back with the trace
 * reader; a resize ends the trace, a cursor that comes before the first
 * frame is kept, input before it is not, and write failures stick. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "traces/vg_trace.h"
#include "viewer/vg_recorder.h"

static void paint(vg_pixbuf *pb, uint32_t k)
{
	int x, y;

	for (y = 0; y < pb->height; y++)
		for (x = 0; x < pb->width; x++)
			vg_pixbuf_row(pb, y)[x] = VG_RGB(x * 3 + k, y * 5, (x ^ y) + k);
}

static void test_record_and_resize(void)
{
	g_autofree char *dir = g_dir_make_tmp("vgrec-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "r.vtr", NULL);
	static const uint32_t shape[4] = { 0xff000000u, 0xffffffffu, 0, 0xff00ff00u };
	vg_pixbuf *fb = vg_pixbuf_new(64, 48), *big = vg_pixbuf_new(80, 48);
	vg_pixbuf *back = vg_pixbuf_new(64, 48);
	vg_region *dirty = vg_region_new();
	vg_recorder_stats st;
	vg_trace_reader *r;
	vg_trace_record rec;
	vg_recorder *rc;
	uint64_t last_t = 0;

	g_assert_cmpint(vg_recorder_new(path, &rc), ==, 0);
	/* Before the first frame: input is dropped, the cursor waits. */
	g_assert_cmpint(vg_recorder_pointer(rc, 3, 3, 1), ==, 0);
	g_assert_cmpint(vg_recorder_cursor(rc, shape, 2, 2, 5, 1), ==, 0);
	g_assert_cmpint(vg_recorder_cursor(rc, shape, 300, 2, 0, 0), ==, 0); /* too big: left out */

	paint(fb, 0);
	vg_region_add(dirty, vg_rect_make(0, 0, 10, 10)); /* the first frame is stored whole */
	g_assert_cmpint(vg_recorder_frame(rc, fb, dirty), ==, 0);
	vg_region_clear(dirty);
	vg_pixbuf_fill(fb, vg_rect_make(60, 40, 4, 8), 0x123456);
	vg_region_add(dirty, vg_rect_make(60, 40, 10, 10)); /* clipped to the frame */
	g_assert_cmpint(vg_recorder_frame(rc, fb, dirty), ==, 0);
	g_assert_cmpint(vg_recorder_pointer(rc, 100, -5, 4), ==, 0);   /* clamped */
	g_assert_cmpint(vg_recorder_key(rc, 0x61, true), ==, 0);
	g_assert_false(vg_recorder_ended(rc));
	/* A new size ends the trace; nothing more is written. */
	paint(big, 1);
	vg_region_clear(dirty);
	vg_region_add(dirty, vg_pixbuf_rect(big));
	g_assert_cmpint(vg_recorder_frame(rc, big, dirty), ==, 0);
	g_assert_true(vg_recorder_ended(rc));
	g_assert_cmpint(vg_recorder_key(rc, 0x62, true), ==, 0);
	vg_recorder_get_stats(rc, &st);
	g_assert_cmpuint(st.frames, ==, 2);
	g_assert_cmpuint(st.inputs, ==, 2);
	g_assert_cmpuint(st.cursors, ==, 1);
	g_assert_cmpint(vg_recorder_close(rc), ==, 0);

	g_assert_cmpint(vg_trace_reader_open(path, &r), ==, 0);
	g_assert_cmpint(vg_trace_reader_width(r), ==, 64);
	g_assert_cmpint(vg_trace_reader_next(r, &rec, back), ==, 1);
	g_assert_cmpint(rec.kind, ==, VG_TRACE_CURSOR);
	g_assert_cmpint(rec.cursor.width, ==, 2);
	g_assert_cmpint(rec.cursor.hot_x, ==, 1);
	g_assert_cmpint(rec.cursor.hot_y, ==, 1);
	g_assert_cmpmem(rec.cursor.pixels, 16, shape, 16);
	g_assert_cmpint(vg_trace_reader_next(r, &rec, back), ==, 1);
	g_assert_cmpint(rec.kind, ==, VG_TRACE_FRAME);
	g_assert_cmpuint(rec.n_rects, ==, 1);
	g_assert_true(vg_rect_equal(rec.rects[0], vg_rect_make(0, 0, 64, 48)));
	g_assert_cmpint(vg_trace_reader_next(r, &rec, back), ==, 1);
	g_assert_true(vg_rect_equal(rec.rects[0], vg_rect_make(60, 40, 4, 8)));
	g_assert_true(vg_pixbuf_equal(back, fb));
	last_t = rec.t_ns;
	g_assert_cmpint(vg_trace_reader_next(r, &rec, back), ==, 1);
	g_assert_cmpint(rec.input, ==, VG_TRACE_POINTER);
	g_assert_cmpint(rec.x, ==, 63);
	g_assert_cmpint(rec.y, ==, 0);
	g_assert_cmpuint(rec.buttons, ==, 4);
	g_assert_cmpuint(rec.t_ns, >=, last_t);
	g_assert_cmpint(vg_trace_reader_next(r, &rec, back), ==, 1);
	g_assert_cmpint(rec.input, ==, VG_TRACE_KEY);
	g_assert_cmphex(rec.keysym, ==, 0x61);
	g_assert_cmpint(vg_trace_reader_next(r, &rec, back), ==, 0);
	vg_trace_reader_free(r);

	vg_region_free(dirty);
	vg_pixbuf_free(fb);
	vg_pixbuf_free(big);
	vg_pixbuf_free(back);
	g_remove(path);
	g_rmdir(dir);
}

static void test_failures(void)
{
	g_autofree char *dir = g_dir_make_tmp("vgrec-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "none.vtr", NULL);
	g_autofree char *missing = g_build_filename(dir, "no", "x.vtr", NULL);
	vg_pixbuf *fb = vg_pixbuf_new(256, 256);
	vg_region *dirty = vg_region_new();
	vg_recorder *rc;
	int err = 0, i;

	g_assert_cmpint(vg_recorder_new(missing, &rc), ==, VG_ENOENT);
	g_assert_null(rc);
	/* No frame ever: the file made at the start is removed again. */
	g_assert_cmpint(vg_recorder_new(path, &rc), ==, 0);
	g_assert_true(g_file_test(path, G_FILE_TEST_EXISTS));
	g_assert_cmpint(vg_recorder_close(rc), ==, 0);
	g_assert_false(g_file_test(path, G_FILE_TEST_EXISTS));
	vg_recorder_close(NULL);

	/* A full disk: the failure sticks and close reports it. */
	if (access("/dev/full", W_OK) == 0) {
		paint(fb, 7);
		vg_region_add(dirty, vg_pixbuf_rect(fb));
		g_assert_cmpint(vg_recorder_new("/dev/full", &rc), ==, 0);
		for (i = 0; i < 8 && !err; i++) {
			paint(fb, (uint32_t)i);
			err = vg_recorder_frame(rc, fb, dirty);
		}
		g_assert_cmpint(err, ==, VG_EIO);
		g_assert_cmpint(vg_recorder_error(rc), ==, VG_EIO);
		g_assert_cmpint(vg_recorder_key(rc, 1, true), ==, VG_EIO);
		g_assert_cmpint(vg_recorder_close(rc), ==, VG_EIO);
	}
	vg_region_free(dirty);
	vg_pixbuf_free(fb);
	g_rmdir(dir);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/recorder/record-and-resize", test_record_and_resize);
	g_test_add_func("/recorder/failures", test_failures);
	return g_test_run();
}
