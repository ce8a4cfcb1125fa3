/* The history both ends keep for REPEAT: the newest VG_HISTORY_MAX items
 * in order, the newest item of a key found, a digest that sees order and
 * width, and a block that round-trips and refuses damage. */
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "fingerprint/proto/vg_history.h"
#include "fingerprint/proto/vg_proto.h"
#include "tests/vg_testutil.h"

/* Item number i of a long made-up sequence; keys repeat every 1000. */
static vg_repeat_item item(uint64_t i)
{
	vg_repeat_item it = { .key = i % 1000 + 1, .hash = vg_test_mix(i), .len = (uint32_t)(i % 37 + 1),
			      .keyed = 1 };

	return it;
}

/* Appends items first .. first + n - 1 in batches of batch. */
static void append_range(vg_history *h, uint64_t first, uint64_t n, uint64_t batch)
{
	vg_repeat_item *buf = g_new(vg_repeat_item, batch);

	for (uint64_t i = 0; i < n; i += batch) {
		uint64_t k, m = MIN(batch, n - i);

		for (k = 0; k < m; k++)
			buf[k] = item(first + i + k);
		vg_history_append(h, buf, m);
	}
	g_free(buf);
}

/* Far past the limit, in odd batches: the newest VG_HISTORY_MAX stay, in
 * order, and find gives the newest of a key, as a plain scan would. */
static void test_window_and_find(void)
{
	vg_history *h = vg_history_new(VG_HISTORY_MAX, true), *plain = vg_history_new(VG_HISTORY_MAX, false);
	uint64_t total = 2 * VG_HISTORY_MAX + 12345, first = total - VG_HISTORY_MAX;
	size_t at;

	append_range(h, 0, total, 777);
	append_range(plain, 0, total, 4096);
	g_assert_cmpuint(vg_history_len(h), ==, VG_HISTORY_MAX);
	g_assert_cmpuint(vg_history_len(plain), ==, VG_HISTORY_MAX);
	for (size_t i = 0; i < VG_HISTORY_MAX; i += 997) {
		vg_repeat_item want = item(first + i);

		g_assert_cmpmem(vg_history_at(h, i), sizeof want, &want, sizeof want);
		g_assert_cmpmem(vg_history_at(plain, i), sizeof want, &want, sizeof want);
	}
	for (uint64_t key = 1; key <= 1000; key++) {
		/* The newest i < total with i % 1000 + 1 == key. */
		uint64_t newest = (total - 1) - ((total - 1) % 1000 + 1000 - (key - 1)) % 1000;

		g_assert_true(vg_history_find(h, key, &at));
		g_assert_cmpuint(at, ==, newest - first);
		g_assert_false(vg_history_find(plain, key, &at));
	}
	g_assert_false(vg_history_find(h, 5000, &at));
	g_assert_cmpuint(vg_history_digest(h, 40), ==, vg_history_digest(plain, 40));
	vg_history_clear(h);
	g_assert_cmpuint(vg_history_len(h), ==, 0);
	g_assert_false(vg_history_find(h, 1, &at));
	g_assert_cmpuint(vg_history_digest(h, 40), ==, 0);
	vg_history_free(h);
	vg_history_free(plain);
}

/* A key that left the history is not found even though its slot stays. */
static void test_dropped_key(void)
{
	vg_history *h = vg_history_new(VG_HISTORY_MAX, true);
	vg_repeat_item once = { .key = 999999, .hash = 7, .len = 3, .keyed = 1 };
	size_t at;

	vg_history_append(h, &once, 1);
	g_assert_true(vg_history_find(h, 999999, &at));
	g_assert_cmpuint(at, ==, 0);
	append_range(h, 0, VG_HISTORY_MAX, 1000);
	g_assert_false(vg_history_find(h, 999999, &at));
	vg_history_free(h);
}

/* A small history, as the window is: the newest max stay, and an item
 * with no key is kept in its place but never found. */
static void test_small_with_unkeyed(void)
{
	vg_history *h = vg_history_new(4, true);
	vg_repeat_item it[6];
	size_t at;

	for (int i = 0; i < 6; i++)
		it[i] = item((uint64_t)i);
	it[5].key = it[4].key;
	it[5].keyed = 0;
	vg_history_append(h, it, 6);
	g_assert_cmpuint(vg_history_len(h), ==, 4);
	g_assert_cmpmem(vg_history_at(h, 0), sizeof it[2], &it[2], sizeof it[2]);
	g_assert_cmpmem(vg_history_at(h, 3), sizeof it[5], &it[5], sizeof it[5]);
	g_assert_true(vg_history_find(h, it[4].key, &at));
	g_assert_cmpuint(at, ==, 2);
	g_assert_false(vg_history_find(h, it[1].key, &at));
	vg_history_free(h);
}

static void test_digest(void)
{
	vg_history *a = vg_history_new(VG_HISTORY_MAX, false), *b = vg_history_new(VG_HISTORY_MAX, false);
	vg_repeat_item x = item(1), y = item(2);

	vg_history_append(a, &x, 1);
	vg_history_append(a, &y, 1);
	vg_history_append(b, &y, 1);
	vg_history_append(b, &x, 1);
	g_assert_cmpuint(vg_history_digest(a, 40), !=, 0);
	g_assert_cmpuint(vg_history_digest(a, 40), !=, vg_history_digest(b, 40));
	g_assert_cmpuint(vg_history_digest(a, 40), !=, vg_history_digest(a, 41));
	/* The content hash counts too. */
	vg_history_clear(b);
	y.hash ^= 1;
	vg_history_append(b, &x, 1);
	vg_history_append(b, &y, 1);
	g_assert_cmpuint(vg_history_digest(a, 40), !=, vg_history_digest(b, 40));
	vg_history_free(a);
	vg_history_free(b);
}

/* The block round-trips; every truncation, a bad item and a count past
 * the limit are refused and leave the history empty. */
static void test_block(void)
{
	vg_history *h = vg_history_new(VG_HISTORY_MAX, true), *r = vg_history_new(VG_HISTORY_MAX, true);
	vg_writer w;
	vg_reader rd;
	size_t i, at;

	append_range(h, 0, 50, 7);
	vg_writer_init(&w);
	vg_history_write(h, &w);
	g_assert_cmpuint(w.len, ==, 4 + 50 * VG_HISTORY_ITEM_BYTES);
	vg_reader_init(&rd, w.data, w.len);
	g_assert_cmpint(vg_history_read(&rd, r), ==, 0);
	g_assert_cmpuint(vg_reader_remaining(&rd), ==, 0);
	g_assert_cmpuint(vg_history_digest(r, 40), ==, vg_history_digest(h, 40));
	g_assert_true(vg_history_find(r, item(49).key, &at));
	g_assert_cmpuint(at, ==, 49);
	for (i = 0; i < w.len; i++) {
		vg_reader_init(&rd, w.data, i);
		g_assert_cmpint(vg_history_read(&rd, r), ==, VG_ETRUNC);
		g_assert_cmpuint(vg_history_len(r), ==, 0);
	}
	/* Item 3's length 0, then its keyed byte 2. */
	w.data[4 + 3 * VG_HISTORY_ITEM_BYTES + 16] = 0;
	w.data[4 + 3 * VG_HISTORY_ITEM_BYTES + 17] = 0;
	w.data[4 + 3 * VG_HISTORY_ITEM_BYTES + 18] = 0;
	w.data[4 + 3 * VG_HISTORY_ITEM_BYTES + 19] = 0;
	vg_reader_init(&rd, w.data, w.len);
	g_assert_cmpint(vg_history_read(&rd, r), ==, VG_ECORRUPT);
	g_assert_cmpuint(vg_history_len(r), ==, 0);
	vg_writer_reset(&w);
	vg_history_write(h, &w);
	w.data[4 + 3 * VG_HISTORY_ITEM_BYTES + 20] = 2;
	vg_reader_init(&rd, w.data, w.len);
	g_assert_cmpint(vg_history_read(&rd, r), ==, VG_ECORRUPT);
	vg_writer_reset(&w);
	vg_writer_u32le(&w, VG_HISTORY_MAX + 1);
	vg_reader_init(&rd, w.data, w.len);
	g_assert_cmpint(vg_history_read(&rd, r), ==, VG_ECORRUPT);
	vg_writer_clear(&w);
	vg_history_free(h);
	vg_history_free(r);
}

/* The viewer's file: saved, loaded, and refused when damaged. */
static void test_file(void)
{
	g_autofree char *dir = g_dir_make_tmp("vg-history-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, VG_HISTORY_FILE, NULL);
	vg_history *h = vg_history_new(VG_HISTORY_MAX, false), *r = vg_history_new(VG_HISTORY_MAX, false);
	g_autofree gchar *bytes = NULL;
	unsigned bits = 0;
	gsize len;

	g_assert_cmpint(vg_history_load(dir, &bits, r), ==, VG_ENOENT);
	append_range(h, 100, 300, 64);
	g_assert_cmpint(vg_history_save(dir, 40, h), ==, 0);
	g_assert_cmpint(vg_history_load(dir, &bits, r), ==, 0);
	g_assert_cmpuint(bits, ==, 40);
	g_assert_cmpuint(vg_history_digest(r, 40), ==, vg_history_digest(h, 40));
	g_assert_true(g_file_get_contents(path, &bytes, &len, NULL));
	bytes[len / 2] ^= 0x10;
	g_assert_true(g_file_set_contents(path, bytes, (gssize)len, NULL));
	g_assert_cmpint(vg_history_load(dir, &bits, r), ==, VG_ECORRUPT);
	g_assert_cmpuint(vg_history_len(r), ==, 0);
	g_assert_true(g_file_set_contents(path, bytes, 10, NULL));
	g_assert_cmpint(vg_history_load(dir, &bits, r), <, 0);
	vg_history_free(h);
	vg_history_free(r);
	vg_test_rm_rf(dir);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/history/window-and-find", test_window_and_find);
	g_test_add_func("/history/dropped-key", test_dropped_key);
	g_test_add_func("/history/small-with-unkeyed", test_small_with_unkeyed);
	g_test_add_func("/history/digest", test_digest);
	g_test_add_func("/history/block", test_block);
	g_test_add_func("/history/file", test_file);
	return g_test_run();
}
