#include <glib.h>
#include <stdint.h>
#include <string.h>

#include "common/vg_array.h"

typedef struct {
	uint64_t key;
	uint32_t len;
} item;

static void test_basics(void)
{
	vg_array *a = vg_array_new(sizeof(uint32_t));
	uint32_t v, some[3] = { 7, 8, 9 };

	g_assert_cmpuint(a->len, ==, 0);
	g_assert_null(a->data);
	for (v = 0; v < 1000; v++)
		vg_array_append(a, &v, 1);
	vg_array_append(a, some, 3);
	vg_array_append(a, some, 0);
	g_assert_cmpuint(a->len, ==, 1003);
	g_assert_cmpuint(a->cap, >=, a->len);
	g_assert_cmpuint(VG_ARRAY_AT(a, uint32_t, 999), ==, 999);
	g_assert_cmpuint(VG_ARRAY_AT(a, uint32_t, 1002), ==, 9);
	/* Removing keeps the order of the rest. */
	vg_array_remove(a, 0, 500);
	g_assert_cmpuint(a->len, ==, 503);
	g_assert_cmpuint(VG_ARRAY_AT(a, uint32_t, 0), ==, 500);
	vg_array_remove(a, 1, 1);
	g_assert_cmpuint(VG_ARRAY_AT(a, uint32_t, 1), ==, 502);
	vg_array_remove(a, a->len, 0);
	vg_array_pop(a, &v);
	g_assert_cmpuint(v, ==, 9);
	g_assert_cmpuint(a->len, ==, 501);
	vg_array_set_len(a, 0);
	g_assert_cmpuint(a->len, ==, 0);
	vg_array_set_len(a, 5000);
	g_assert_cmpuint(a->len, ==, 5000);
	g_assert_cmpuint(a->cap, >=, 5000);
	vg_array_free(a);
	vg_array_free(NULL);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_sort(void)
{
	vg_array *a = vg_array_new(sizeof(uint64_t));
	uint64_t v;
	size_t i;

	vg_array_sort(a, cmp_u64);
	for (i = 0; i < 300; i++) {
		v = (i * 7919) % 301;
		vg_array_append(a, &v, 1);
	}
	vg_array_sort(a, cmp_u64);
	for (i = 1; i < a->len; i++)
		g_assert_cmpuint(VG_ARRAY_AT(a, uint64_t, i - 1), <, VG_ARRAY_AT(a, uint64_t, i));
	vg_array_free(a);
}

/* Random appends, removals, pops and resizes, done alike on a GArray: the
 * elements stay the same throughout. */
static void test_against_garray(void)
{
	vg_array *a = vg_array_new(sizeof(item));
	GArray *g = g_array_new(FALSE, FALSE, sizeof(item));
	GRand *rnd = g_rand_new_with_seed(11);
	int step;

	for (step = 0; step < 20000; step++) {
		guint op = (guint)g_rand_int_range(rnd, 0, 10);

		if (op < 5) {
			item it[4];
			guint n = (guint)g_rand_int_range(rnd, 0, 5), k;

			for (k = 0; k < n; k++) {
				memset(&it[k], 0, sizeof it[k]);
				it[k].key = g_rand_int(rnd);
				it[k].len = (uint32_t)step;
			}
			vg_array_append(a, it, n);
			g_array_append_vals(g, it, n);
		} else if (op < 7 && g->len > 0) {
			guint at = (guint)g_rand_int_range(rnd, 0, (gint32)g->len);
			guint n = (guint)g_rand_int_range(rnd, 0, (gint32)(g->len - at) + 1);

			vg_array_remove(a, at, n);
			g_array_remove_range(g, at, n);
		} else if (op < 8 && g->len > 0) {
			item it;

			vg_array_pop(a, &it);
			g_assert_cmpmem(&it, sizeof it, &g_array_index(g, item, g->len - 1), sizeof it);
			g_array_set_size(g, g->len - 1);
		} else if (op < 9) {
			/* Shrinking only: grown elements are undefined in both. */
			guint n = g->len ? (guint)g_rand_int_range(rnd, 0, (gint32)g->len) : 0;

			vg_array_set_len(a, n);
			g_array_set_size(g, n);
		}
		g_assert_cmpuint(a->len, ==, g->len);
		if (g->len)
			g_assert_cmpmem(a->data, a->len * sizeof(item), g->data, g->len * sizeof(item));
	}
	g_rand_free(rnd);
	g_array_free(g, TRUE);
	vg_array_free(a);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/array/basics", test_basics);
	g_test_add_func("/array/sort", test_sort);
	g_test_add_func("/array/against-garray", test_against_garray);
	return g_test_run();
}
