/* The segment content hash: known answers and the properties the
 * fingerprint layer relies on. */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_seghash.h"

static int u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return (a > b) - (a < b);
}

static vg_pixbuf *ramp(int32_t w, int32_t h, uint32_t salt)
{
	vg_pixbuf *pb = vg_pixbuf_new(w, h);
	int32_t x, y;

	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			vg_pixbuf_row(pb, y)[x] = ((uint32_t)(x * 2654435761u) ^ (uint32_t)(y * 40503u) ^ salt) &
						  VG_PIXEL_MASK;
	return pb;
}

/* Known answers: these values are part of the protocol (doc/segmentation.md);
 * if one changes, every persistent segment cache becomes stale. They were
 * computed by an independent transcription of the definition in
 * doc/segmentation.md (arbitrary-precision integers, masked to 64 bits). */
static void test_known_answers(void)
{
	static const uint32_t one[] = { 0x00123456 };
	static const uint32_t four[] = { 0x00000000, 0x00ffffff, 0x00ff0000, 0x0000ff00 };
	vg_pixbuf *r = ramp(5, 3, 0);
	vg_pixbuf a = vg_pixbuf_wrap((uint32_t *)one, 1, 1, 1);
	vg_pixbuf b = vg_pixbuf_wrap((uint32_t *)four, 2, 2, 2);

	g_assert_cmphex(vg_seghash_slice(one, 1), ==, 0x3545af93f6177bc9ull);
	g_assert_cmphex(vg_seghash_slice(four, 4), ==, 0xcff90621a7865a7eull);
	g_assert_cmphex(vg_seghash(&a, VG_ORIENT_ROWS), ==, 0x56dc03fa54672a0bull);
	g_assert_cmphex(vg_seghash(&b, VG_ORIENT_ROWS), ==, 0xa3713f96236591e3ull);
	g_assert_cmphex(vg_seghash(&b, VG_ORIENT_COLS), ==, 0x4bcca4091dba3f90ull);
	g_assert_cmphex(vg_seghash(r, VG_ORIENT_ROWS), ==, 0xf054722297b08f51ull);
	g_assert_cmphex(vg_seghash(r, VG_ORIENT_COLS), ==, 0x0cee648fd0a31912ull);
	vg_pixbuf_free(r);
}

/* Prints the values above, for when the definition changes on purpose. */
static void test_print_values(void)
{
	static const uint32_t one[] = { 0x00123456 };
	static const uint32_t four[] = { 0x00000000, 0x00ffffff, 0x00ff0000, 0x0000ff00 };
	vg_pixbuf *r = ramp(5, 3, 0);
	vg_pixbuf a = vg_pixbuf_wrap((uint32_t *)one, 1, 1, 1);
	vg_pixbuf b = vg_pixbuf_wrap((uint32_t *)four, 2, 2, 2);

	g_test_message("slice1 %016" G_GINT64_MODIFIER "x slice4 %016" G_GINT64_MODIFIER "x",
		       vg_seghash_slice(one, 1), vg_seghash_slice(four, 4));
	g_test_message("a %016" G_GINT64_MODIFIER "x b %016" G_GINT64_MODIFIER
		       "x bc %016" G_GINT64_MODIFIER "x",
		       vg_seghash(&a, VG_ORIENT_ROWS), vg_seghash(&b, VG_ORIENT_ROWS),
		       vg_seghash(&b, VG_ORIENT_COLS));
	g_test_message("r %016" G_GINT64_MODIFIER "x rc %016" G_GINT64_MODIFIER "x",
		       vg_seghash(r, VG_ORIENT_ROWS), vg_seghash(r, VG_ORIENT_COLS));
	vg_pixbuf_free(r);
}

/* The strided slice hash is the contiguous one; columns hash like the rows
 * of the transposed buffer (apart from the header). */
static void test_slice_forms(void)
{
	vg_pixbuf *r = ramp(37, 23, 5), *t = vg_pixbuf_new(23, 37);
	int32_t x, n;

	for (n = 1; n <= 37; n++)
		g_assert_cmphex(vg_seghash_slice(r->pixels, n), ==,
				vg_seghash_slice_step(r->pixels, n, 1));
	vg_pixbuf_transpose(t, r);
	for (x = 0; x < 37; x++)
		g_assert_cmphex(vg_seghash_slice_step(r->pixels + x, 23, r->stride), ==,
				vg_seghash_slice(vg_pixbuf_row(t, x), 23));
	{
		uint64_t st = vg_seghash_begin(37, 23, VG_ORIENT_COLS);
		for (x = 0; x < 37; x++)
			st = vg_seghash_add(st, vg_seghash_slice(vg_pixbuf_row(t, x), 23));
		g_assert_cmphex(vg_seghash_end(st), ==, vg_seghash(r, VG_ORIENT_COLS));
	}
	vg_pixbuf_free(r);
	vg_pixbuf_free(t);
}

static void test_properties(void)
{
	vg_pixbuf *r = ramp(16, 8, 9), *q = ramp(16, 8, 9), *aa = vg_pixbuf_new(4, 2),
		  *bb = vg_pixbuf_new(4, 2);
	vg_pixbuf v1 = vg_pixbuf_wrap(r->pixels, 8, 2, 8), v2 = vg_pixbuf_wrap(r->pixels, 2, 8, 2);
	uint64_t h = vg_seghash(r, VG_ORIENT_ROWS);
	int32_t x, y;

	/* The top byte is not content. */
	q->pixels[77] |= 0xab000000u;
	g_assert_cmphex(vg_seghash(q, VG_ORIENT_ROWS), ==, h);
	/* Every pixel counts. */
	for (y = 0; y < 8; y++)
		for (x = 0; x < 16; x++) {
			uint32_t *p = &vg_pixbuf_row(q, y)[x], old = *p;
			*p ^= 1u << ((x + y) % 24);
			g_assert_cmphex(vg_seghash(q, VG_ORIENT_ROWS), !=, h);
			g_assert_cmphex(vg_seghash(q, VG_ORIENT_COLS), !=, vg_seghash(r, VG_ORIENT_COLS));
			*p = old;
		}
	/* Size and orientation count: same 16 pixels, other shapes. */
	g_assert_cmphex(vg_seghash(&v1, VG_ORIENT_ROWS), !=, vg_seghash(&v2, VG_ORIENT_ROWS));
	g_assert_cmphex(vg_seghash(r, VG_ORIENT_ROWS), !=, vg_seghash(r, VG_ORIENT_COLS));
	/* Swapped rows differ. */
	memcpy(vg_pixbuf_row(q, 0), vg_pixbuf_row(r, 1), 64);
	memcpy(vg_pixbuf_row(q, 1), vg_pixbuf_row(r, 0), 64);
	g_assert_cmphex(vg_seghash(q, VG_ORIENT_ROWS), !=, h);
	/* Pairs of equal rows do not cancel (an XOR of row hashes would make
	 * both of these equal to the empty fold). */
	vg_pixbuf_fill(aa, vg_pixbuf_rect(aa), 0x112233);
	vg_pixbuf_fill(bb, vg_pixbuf_rect(bb), 0x445566);
	g_assert_cmphex(vg_seghash(aa, VG_ORIENT_ROWS), !=, vg_seghash(bb, VG_ORIENT_ROWS));
	/* An empty buffer hashes to 0. */
	{
		vg_pixbuf e = vg_pixbuf_wrap(r->pixels, 0, 0, 16);
		g_assert_cmphex(vg_seghash(&e, VG_ORIENT_ROWS), ==, 0);
	}
	vg_pixbuf_free(r);
	vg_pixbuf_free(q);
	vg_pixbuf_free(aa);
	vg_pixbuf_free(bb);
}

/* Every two-colour pattern of 16 pixels, as 4x4, 16x1 and 1x16 segments
 * in both orientations: all of those contents are distinct, and so must
 * their hashes be (a linear hash would collide systematically here). */
static void test_no_collisions(void)
{
	static const int32_t shapes[][2] = { { 4, 4 }, { 16, 1 }, { 1, 16 } };
	const size_t n = 65536u * G_N_ELEMENTS(shapes) * 2;
	uint64_t *all = g_new(uint64_t, n);
	uint32_t px[16];
	size_t k = 0, i;
	uint32_t pat;

	for (pat = 0; pat < 65536u; pat++) {
		for (i = 0; i < 16; i++)
			px[i] = (pat >> i) & 1u ? 0x00ffffffu : 0x00000000u;
		for (i = 0; i < G_N_ELEMENTS(shapes); i++) {
			vg_pixbuf v = vg_pixbuf_wrap(px, shapes[i][0], shapes[i][1], shapes[i][0]);
			all[k++] = vg_seghash(&v, VG_ORIENT_ROWS);
			all[k++] = vg_seghash(&v, VG_ORIENT_COLS);
		}
	}
	g_assert_cmpuint(k, ==, n);
	qsort(all, n, sizeof *all, u64_cmp);
	for (i = 1; i < n; i++)
		g_assert_cmphex(all[i], !=, all[i - 1]);
	g_free(all);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/seghash/print", test_print_values);
	g_test_add_func("/seghash/known-answers", test_known_answers);
	g_test_add_func("/seghash/slice-forms", test_slice_forms);
	g_test_add_func("/seghash/properties", test_properties);
	g_test_add_func("/seghash/no-collisions", test_no_collisions);
	return g_test_run();
}
