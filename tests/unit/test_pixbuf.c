#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_pixbuf.h"

static void fill_pattern(vg_pixbuf *pb, guint32 seed)
{
	int32_t x, y;

	for (y = 0; y < pb->height; y++)
		for (x = 0; x < pb->width; x++)
			vg_pixbuf_row(pb, y)[x] = (guint32)(x * 7 + y * 131 + seed) & VG_PIXEL_MASK;
}

static void test_new_free(void)
{
	vg_pixbuf *pb = vg_pixbuf_new(3, 2);

	g_assert_nonnull(pb);
	g_assert_cmpint(pb->stride, ==, 3);
	g_assert_cmpuint(vg_pixbuf_row(pb, 1)[2], ==, 0);
	vg_pixbuf_free(pb);
	g_assert_null(vg_pixbuf_new(0, 5));
	g_assert_null(vg_pixbuf_new(5, VG_MAX_DIM + 1));
	vg_pixbuf_free(NULL);
	g_assert_cmphex(VG_RGB(0x12, 0x34, 0x56), ==, 0x123456);
}

static void test_view_copy(void)
{
	vg_pixbuf *a = vg_pixbuf_new(17, 9), *b = vg_pixbuf_new(17, 9);
	vg_pixbuf v;

	fill_pattern(a, 1);
	v = vg_pixbuf_view(a, vg_rect_make(3, 2, 5, 4));
	g_assert_cmpint(v.width, ==, 5);
	g_assert_cmpint(v.height, ==, 4);
	g_assert_false(v.owned);
	g_assert_cmpuint(vg_pixbuf_row(&v, 1)[1], ==, vg_pixbuf_row(a, 3)[4]);
	/* A view clipped at the edge. */
	v = vg_pixbuf_view(a, vg_rect_make(15, 8, 10, 10));
	g_assert_cmpint(v.width, ==, 2);
	g_assert_cmpint(v.height, ==, 1);

	g_assert_false(vg_pixbuf_equal(a, b));
	g_assert_cmpint(vg_pixbuf_copy_rect(b, a, vg_pixbuf_rect(a)), ==, 0);
	g_assert_true(vg_pixbuf_equal(a, b));
	g_assert_cmpint(vg_pixbuf_copy_rect(b, a, vg_rect_make(10, 0, 8, 1)), ==, VG_ERANGE);
	v = vg_pixbuf_view(a, vg_rect_make(0, 0, 4, 4));
	g_assert_cmpint(vg_pixbuf_copy(b, 14, 0, &v), ==, VG_ERANGE);
	g_assert_cmpint(vg_pixbuf_copy(b, 13, 5, &v), ==, 0);
	g_assert_cmpuint(vg_pixbuf_row(b, 5)[13], ==, vg_pixbuf_row(a, 0)[0]);

	vg_pixbuf_fill(b, vg_rect_make(-5, -5, 7, 7), 0xabcdef);
	g_assert_cmpuint(vg_pixbuf_row(b, 1)[1], ==, 0xabcdef);
	g_assert_cmpuint(vg_pixbuf_row(b, 2)[2], ==, vg_pixbuf_row(a, 2)[2]);
	vg_pixbuf_free(a);
	vg_pixbuf_free(b);
}

static void test_transpose(void)
{
	vg_pixbuf *a = vg_pixbuf_new(70, 33), *t = vg_pixbuf_new(33, 70), *back = vg_pixbuf_new(70, 33);
	int32_t x, y;

	fill_pattern(a, 9);
	g_assert_cmpint(vg_pixbuf_transpose(t, a), ==, 0);
	for (y = 0; y < a->height; y++)
		for (x = 0; x < a->width; x++)
			g_assert_cmpuint(vg_pixbuf_row(t, x)[y], ==, vg_pixbuf_row(a, y)[x]);
	g_assert_cmpint(vg_pixbuf_transpose(back, t), ==, 0);
	g_assert_true(vg_pixbuf_equal(a, back));
	g_assert_cmpint(vg_pixbuf_transpose(back, a), ==, VG_ERANGE);
	vg_pixbuf_free(a);
	vg_pixbuf_free(t);
	vg_pixbuf_free(back);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/pixbuf/new-free", test_new_free);
	g_test_add_func("/pixbuf/view-copy", test_view_copy);
	g_test_add_func("/pixbuf/transpose", test_transpose);
	return g_test_run();
}
