#include <glib.h>

#include "common/vg_reader.h"
#include "common/vg_writer.h"

/* Everything written reads back the same, through the reader. */
static void test_round_trip(void)
{
	vg_writer w;
	vg_reader r;
	GRand *rng = g_rand_new_with_seed(3);
	guint64 vals[500];
	int i;

	vg_writer_init(&w);
	for (i = 0; i < 500; i++) {
		guint64 v = ((guint64)g_rand_int(rng) << 32 | g_rand_int(rng)) >> g_rand_int_range(rng, 0, 64);
		vals[i] = v;
		switch (i % 5) {
		case 0: vg_writer_uleb(&w, v); break;
		case 1: vg_writer_u64be(&w, v); break;
		case 2: vg_writer_u32le(&w, (guint32)v); break;
		case 3: vg_writer_uint_be(&w, 5, v & 0xffffffffffull); break;
		case 4: vg_writer_u16be(&w, (guint16)v); break;
		}
	}
	vg_reader_init(&r, w.data, w.len);
	for (i = 0; i < 500; i++) {
		guint64 v = 0;
		guint32 u32;
		guint16 u16;
		switch (i % 5) {
		case 0: g_assert_cmpint(vg_reader_uleb(&r, &v), ==, 0); break;
		case 1: g_assert_cmpint(vg_reader_u64be(&r, &v), ==, 0); break;
		case 2: g_assert_cmpint(vg_reader_u32le(&r, &u32), ==, 0); v = u32; vals[i] &= 0xffffffffu; break;
		case 3: g_assert_cmpint(vg_reader_uint_be(&r, 5, &v), ==, 0); vals[i] &= 0xffffffffffull; break;
		case 4: g_assert_cmpint(vg_reader_u16be(&r, &u16), ==, 0); v = u16; vals[i] &= 0xffff; break;
		}
		g_assert_cmphex(v, ==, vals[i]);
	}
	g_assert_cmpuint(vg_reader_remaining(&r), ==, 0);
	vg_writer_clear(&w);
	g_rand_free(rng);
}

static void test_patch_steal(void)
{
	vg_writer w;
	guint8 *p;
	size_t n;

	vg_writer_init(&w);
	vg_writer_u32be(&w, 0);
	vg_writer_bytes(&w, "abc", 3);
	vg_writer_patch_u32be(&w, 0, 0x01020304);
	g_assert_cmpuint(w.data[0], ==, 1);
	g_assert_cmpuint(w.data[3], ==, 4);
	vg_writer_patch_u32le(&w, 0, 0x01020304);
	g_assert_cmpuint(w.data[0], ==, 4);
	vg_writer_reset(&w);
	g_assert_cmpuint(w.len, ==, 0);
	vg_writer_u8(&w, 9);
	p = vg_writer_steal(&w, &n);
	g_assert_cmpuint(n, ==, 1);
	g_assert_cmpuint(p[0], ==, 9);
	g_assert_null(w.data);
	g_free(p);
	vg_writer_clear(&w);
}

/* vg_writer_uleb_size() says what vg_writer_uleb() writes, at every
 * boundary of 7 bits. */
static void test_uleb_size(void)
{
	vg_writer w;
	unsigned b;

	vg_writer_init(&w);
	for (b = 0; b <= 64; b++) {
		uint64_t v = b == 64 ? UINT64_MAX : (UINT64_C(1) << b) - 1, near[2] = { v, v + 1 };
		size_t k;

		for (k = 0; k < (b == 64 ? 1u : 2u); k++) {
			vg_writer_reset(&w);
			vg_writer_uleb(&w, near[k]);
			g_assert_cmpuint(vg_writer_uleb_size(near[k]), ==, w.len);
		}
	}
	g_assert_cmpuint(vg_writer_uleb_size(UINT64_MAX), ==, 10);
	vg_writer_clear(&w);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/writer/round-trip", test_round_trip);
	g_test_add_func("/writer/uleb-size", test_uleb_size);
	g_test_add_func("/writer/patch-steal", test_patch_steal);
	return g_test_run();
}
