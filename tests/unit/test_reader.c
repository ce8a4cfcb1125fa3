#include <glib.h>

#include "common/vg_error.h"
#include "common/vg_pixbuf.h"
#include "common/vg_reader.h"

static void test_fixed(void)
{
	static const guint8 b[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	vg_reader r;
	guint8 u8;
	guint16 u16;
	guint32 u32;
	guint64 u64;

	vg_reader_init(&r, b, sizeof b);
	g_assert_cmpint(vg_reader_u8(&r, &u8), ==, 0);
	g_assert_cmpuint(u8, ==, 1);
	g_assert_cmpint(vg_reader_u16be(&r, &u16), ==, 0);
	g_assert_cmphex(u16, ==, 0x0203);
	g_assert_cmpint(vg_reader_u16le(&r, &u16), ==, 0);
	g_assert_cmphex(u16, ==, 0x0504);
	g_assert_cmpint(vg_reader_u32be(&r, &u32), ==, 0);
	g_assert_cmphex(u32, ==, 0x06070809);
	g_assert_cmpuint(vg_reader_remaining(&r), ==, 0);
	g_assert_cmpint(vg_reader_u8(&r, &u8), ==, VG_ETRUNC);

	vg_reader_init(&r, b, sizeof b);
	g_assert_cmpint(vg_reader_u64le(&r, &u64), ==, 0);
	g_assert_cmphex(u64, ==, 0x0807060504030201ull);
	vg_reader_init(&r, b, sizeof b);
	g_assert_cmpint(vg_reader_u64be(&r, &u64), ==, 0);
	g_assert_cmphex(u64, ==, 0x0102030405060708ull);
	g_assert_cmpint(vg_reader_u32le(&r, &u32), ==, VG_ETRUNC);
	g_assert_cmpint(vg_reader_uint_be(&r, 1, &u64), ==, 0);
	g_assert_cmpuint(u64, ==, 9);
}

/* A read past the end returns VG_ETRUNC and consumes nothing. */
static void test_refuses_past_end(void)
{
	static const guint8 b[] = { 0xaa, 0xbb, 0xcc };
	vg_reader r;
	guint32 u32;
	guint8 out[4];
	const guint8 *p;
	guint64 v;

	vg_reader_init(&r, b, sizeof b);
	g_assert_cmpint(vg_reader_u32be(&r, &u32), ==, VG_ETRUNC);
	g_assert_cmpuint(r.pos, ==, 0);
	g_assert_cmpint(vg_reader_bytes(&r, out, 4), ==, VG_ETRUNC);
	g_assert_cmpint(vg_reader_skip(&r, 4), ==, VG_ETRUNC);
	g_assert_cmpint(vg_reader_ptr(&r, SIZE_MAX, &p), ==, VG_ETRUNC);
	g_assert_cmpint(vg_reader_uint_be(&r, 4, &v), ==, VG_ETRUNC);
	g_assert_cmpint(vg_reader_uint_be(&r, 9, &v), ==, VG_EINVAL);
	g_assert_cmpint(vg_reader_uint_be(&r, 0, &v), ==, VG_EINVAL);
	g_assert_cmpuint(r.pos, ==, 0);
	g_assert_cmpint(vg_reader_skip(&r, 2), ==, 0);
	g_assert_cmpint(vg_reader_ptr(&r, 1, &p), ==, 0);
	g_assert_cmphex(*p, ==, 0xcc);
	g_assert_cmpint(vg_reader_skip(&r, 1), ==, VG_ETRUNC);

	vg_reader_init(&r, NULL, 100);
	g_assert_cmpuint(vg_reader_remaining(&r), ==, 0);
}

static void test_uleb(void)
{
	static const guint8 one[] = { 0x7f };
	static const guint8 two[] = { 0xe5, 0x8e, 0x26 };
	static const guint8 cut[] = { 0x80, 0x80 };
	static const guint8 max[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	static const guint8 over[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 };
	static const guint8 eleven[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 };
	vg_reader r;
	guint64 v;

	vg_reader_init(&r, one, sizeof one);
	g_assert_cmpint(vg_reader_uleb(&r, &v), ==, 0);
	g_assert_cmpuint(v, ==, 127);
	vg_reader_init(&r, two, sizeof two);
	g_assert_cmpint(vg_reader_uleb(&r, &v), ==, 0);
	g_assert_cmpuint(v, ==, 624485);
	vg_reader_init(&r, cut, sizeof cut);
	g_assert_cmpint(vg_reader_uleb(&r, &v), ==, VG_ETRUNC);
	g_assert_cmpuint(r.pos, ==, 0);
	vg_reader_init(&r, max, sizeof max);
	g_assert_cmpint(vg_reader_uleb(&r, &v), ==, 0);
	g_assert_cmpuint(v, ==, G_MAXUINT64);
	vg_reader_init(&r, over, sizeof over);
	g_assert_cmpint(vg_reader_uleb(&r, &v), ==, VG_ERANGE);
	vg_reader_init(&r, eleven, sizeof eleven);
	g_assert_cmpint(vg_reader_uleb(&r, &v), ==, VG_ERANGE);
}

static void test_dim(void)
{
	static const guint8 max[] = { 0x80, 0x80, 0x01 };  /* 16384 */
	static const guint8 over[] = { 0x81, 0x80, 0x01 }; /* 16385 */
	vg_reader r;
	gint32 v = -1;

	vg_reader_init(&r, max, sizeof max);
	g_assert_cmpint(vg_reader_dim(&r, &v), ==, 0);
	g_assert_cmpint(v, ==, VG_MAX_DIM);
	vg_reader_init(&r, over, sizeof over);
	g_assert_cmpint(vg_reader_dim(&r, &v), ==, VG_ERANGE);
	g_assert_cmpint(v, ==, VG_MAX_DIM);
	vg_reader_init(&r, max, 1);
	g_assert_cmpint(vg_reader_dim(&r, &v), ==, VG_ETRUNC);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/reader/fixed", test_fixed);
	g_test_add_func("/reader/refuses-past-end", test_refuses_past_end);
	g_test_add_func("/reader/uleb", test_uleb);
	g_test_add_func("/reader/dim", test_dim);
	return g_test_run();
}
