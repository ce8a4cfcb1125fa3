/* Beliefs across sessions, sans-I/O: the belief image round trip and its
 * rejection when damaged, the server's belief files, the viewer's cache
 * identity, and sender -> receiver sessions that reconnect warm, with a
 * cache cleared or stale, ending pixel-exact. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/vg_error.h"
#include "common/vg_reader.h"
#include "common/vg_seghash.h"
#include "fingerprint/proto/vg_beliefs.h"
#include "fingerprint/cache/vg_beliefstore.h"
#include "fingerprint/cache/vg_cacheid.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/proto/vg_receiver.h"
#include "fingerprint/proto/vg_history.h"
#include "fingerprint/proto/vg_sender.h"
#include "tests/vg_testutil.h"

static const vg_beliefs_tag tag0 = { "server-id-012345", "cache-id-0123456", 40 };

static void fill(vg_beliefs *b, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		uint64_t h = vg_test_mix((uint64_t)i);
		vg_beliefs_put(b, vg_fp_key(h, 40), h, 100 + (uint32_t)i % 900);
	}
}

static void test_table(void)
{
	vg_beliefs *b = vg_beliefs_new();
	uint64_t h1 = vg_test_mix(1), h2 = vg_test_mix(2);

	/* Nothing is believed before the viewer announced a cache. */
	vg_beliefs_put(b, 7, h1, 10);
	g_assert_false(vg_beliefs_holds(b, 7, h1));
	vg_beliefs_set_budget(b, 100);
	vg_beliefs_put(b, 7, h1, 10);
	g_assert_true(vg_beliefs_holds(b, 7, h1));
	/* The latest content under a key wins. */
	vg_beliefs_put(b, 7, h2, 10);
	g_assert_false(vg_beliefs_holds(b, 7, h1));
	g_assert_true(vg_beliefs_holds(b, 7, h2));
	g_assert_cmpuint(vg_beliefs_count(b), ==, 1);
	/* First in, first out past the budget. */
	vg_beliefs_put(b, 8, h1, 50);
	vg_beliefs_put(b, 9, h1, 45);
	g_assert_false(vg_beliefs_holds(b, 7, h2));
	g_assert_true(vg_beliefs_holds(b, 8, h1) && vg_beliefs_holds(b, 9, h1));
	g_assert_cmpuint(vg_beliefs_bytes(b), ==, 95);
	vg_beliefs_set_budget(b, 50);
	g_assert_false(vg_beliefs_holds(b, 8, h1));
	g_assert_cmpuint(vg_beliefs_bytes(b), ==, 45);
	vg_beliefs_free(b);
}

static const vg_repeat_item test_win[] = {
	{ .key = 0x1234567890ull, .len = 16, .keyed = 1 },
	{ .key = 0x77, .len = 300, .keyed = 1 },
	{ .key = 0xabcdef0123ull, .len = 1, .keyed = 1 },
};

/* A history holding test_win[0 .. n). */
static vg_history *test_history(size_t n)
{
	vg_history *h = vg_history_new(VG_HISTORY_MAX, false);

	vg_history_append(h, test_win, n);
	return h;
}

static void test_image_round_trip(void)
{
	vg_beliefs *a = vg_beliefs_new(), *b = vg_beliefs_new();
	vg_history *win = vg_history_new(VG_HISTORY_MAX, false), *none = vg_history_new(VG_HISTORY_MAX, false), *h3 = test_history(3);
	vg_history *h2 = test_history(2);
	vg_beliefs_tag other = tag0;
	vg_writer w;
	int i;

	vg_writer_init(&w);
	vg_beliefs_set_budget(a, 1u << 30);
	vg_beliefs_set_budget(b, 1u << 30);
	fill(a, 5000);
	vg_beliefs_save(a, &tag0, 1u << 20, none, &w);
	/* An empty history is its 4-byte count. */
	g_assert_cmpuint(w.len, ==, VG_BELIEFS_HEADER_BYTES + 5000 * VG_BELIEFS_ENTRY_BYTES + 4 +
				     VG_BELIEFS_TRAILER_BYTES);
	g_assert_cmpuint(vg_history_len(win), ==, 0);
	g_assert_cmpint(vg_beliefs_load(b, &tag0, w.data, w.len, win), ==, 0);
	g_assert_cmpuint(vg_beliefs_count(b), ==, 5000);
	g_assert_cmpuint(vg_beliefs_bytes(b), ==, vg_beliefs_bytes(a));
	for (i = 0; i < 5000; i++) {
		uint64_t h = vg_test_mix((uint64_t)i);
		g_assert_true(vg_beliefs_holds(b, vg_fp_key(h, 40), h));
	}
	/* Loading into a smaller budget keeps the newest: the FIFO order
	 * survived the image. */
	vg_beliefs_set_budget(b, 20000);
	g_assert_true(vg_beliefs_holds(b, vg_fp_key(vg_test_mix(4999), 40), vg_test_mix(4999)));
	g_assert_false(vg_beliefs_holds(b, vg_fp_key(vg_test_mix(0), 40), vg_test_mix(0)));
	/* A bounded image keeps the newest entries. */
	vg_writer_reset(&w);
	vg_beliefs_save(a, &tag0, 4096, none, &w);
	g_assert_cmpuint(w.len, <=, 4096);
	vg_beliefs_set_budget(b, 1u << 30);
	vg_beliefs_clear(b);
	g_assert_cmpint(vg_beliefs_load(b, &tag0, w.data, w.len, win), ==, 0);
	g_assert_cmpuint(vg_beliefs_count(b), ==, (4096 - 60) / 12);
	g_assert_true(vg_beliefs_holds(b, vg_fp_key(vg_test_mix(4999), 40), vg_test_mix(4999)));
	/* A sound image for another server, viewer or width is not loaded. */
	other.fp_bits = 12;
	g_assert_cmpint(vg_beliefs_load(b, &other, w.data, w.len, win), ==, VG_ENOENT);
	other = tag0;
	other.cache_id[0] ^= 1;
	g_assert_cmpint(vg_beliefs_load(b, &other, w.data, w.len, win), ==, VG_ENOENT);
	g_assert_cmpuint(vg_beliefs_count(b), ==, (4096 - 60) / 12);
	/* The history travels whole with the beliefs, or not at all. */
	vg_writer_reset(&w);
	vg_beliefs_save(a, &tag0, 1u << 20, h3, &w);
	g_assert_cmpint(vg_beliefs_load(b, &tag0, w.data, w.len, win), ==, 0);
	g_assert_cmpuint(vg_history_len(win), ==, G_N_ELEMENTS(test_win));
	for (i = 0; i < 3; i++)
		g_assert_cmpmem(vg_history_at(win, (size_t)i), sizeof *test_win, &test_win[i],
				sizeof *test_win);
	g_assert_cmpuint(vg_history_digest(win, 40), ==, vg_history_digest(h3, 40));
	g_assert_cmpuint(vg_history_digest(h2, 40), !=, vg_history_digest(h3, 40));
	g_assert_cmpuint(vg_history_digest(h3, 40), !=, vg_history_digest(h3, 41));
	g_assert_cmpuint(vg_history_digest(none, 40), ==, 0);
	vg_writer_reset(&w);
	vg_beliefs_save(a, &tag0, VG_BELIEFS_HEADER_BYTES + 8 + 2 * VG_HISTORY_ITEM_BYTES, h3, &w);
	g_assert_cmpint(vg_beliefs_load(b, &tag0, w.data, w.len, win), ==, 0);
	g_assert_cmpuint(vg_history_len(win), ==, 0);
	vg_writer_clear(&w);
	vg_history_free(win);
	vg_history_free(none);
	vg_history_free(h2);
	vg_history_free(h3);
	vg_beliefs_free(a);
	vg_beliefs_free(b);
}

/* Loading into beliefs that hold some already (a session coded ahead of
 * its VIEWER HELLO) keeps them, as the newest: past the budget the saved
 * ones go first. */
static void test_image_below(void)
{
	vg_beliefs *a = vg_beliefs_new(), *b = vg_beliefs_new();
	vg_history *none = vg_history_new(VG_HISTORY_MAX, false);
	uint64_t fresh = vg_test_mix(99999), saved0 = vg_test_mix(0), saved9 = vg_test_mix(9);
	vg_writer w;

	vg_writer_init(&w);
	vg_beliefs_set_budget(a, 1u << 30);
	vg_beliefs_set_budget(b, 1u << 30);
	fill(a, 10);
	vg_beliefs_save(a, &tag0, 1u << 20, none, &w);
	vg_beliefs_put(b, vg_fp_key(fresh, 40), fresh, 500);
	/* The same key as a saved one, other content: the session's wins. */
	vg_beliefs_put(b, vg_fp_key(saved9, 40), fresh, 500);
	g_assert_cmpint(vg_beliefs_load(b, &tag0, w.data, w.len, none), ==, 0);
	g_assert_cmpuint(vg_beliefs_count(b), ==, 11);
	g_assert_true(vg_beliefs_holds(b, vg_fp_key(fresh, 40), fresh));
	g_assert_true(vg_beliefs_holds(b, vg_fp_key(saved0, 40), saved0));
	g_assert_true(vg_beliefs_holds(b, vg_fp_key(saved9, 40), fresh));
	g_assert_false(vg_beliefs_holds(b, vg_fp_key(saved9, 40), saved9));
	g_assert_cmpuint(vg_beliefs_bytes(b), ==, vg_beliefs_bytes(a) - (100 + 9) + 1000);
	/* Room for the session's two only: every saved one goes. */
	vg_beliefs_set_budget(b, 1000);
	g_assert_cmpuint(vg_beliefs_count(b), ==, 2);
	g_assert_true(vg_beliefs_holds(b, vg_fp_key(fresh, 40), fresh));
	vg_writer_clear(&w);
	vg_history_free(none);
	vg_beliefs_free(a);
	vg_beliefs_free(b);
}

/* Every truncation and every single-bit flip is refused, and leaves the
 * table as it was. */
static void test_image_damaged(void)
{
	vg_beliefs *a = vg_beliefs_new(), *b = vg_beliefs_new();
	vg_history *win = vg_history_new(VG_HISTORY_MAX, false), *h3 = test_history(3);
	vg_writer w;
	size_t i, len;
	uint8_t *copy;
	int bit;

	vg_writer_init(&w);
	vg_beliefs_set_budget(a, 1u << 30);
	vg_beliefs_set_budget(b, 1u << 30);
	fill(a, 40);
	vg_beliefs_save(a, &tag0, 1u << 20, h3, &w);
	len = w.len;
	copy = g_memdup2(w.data, len);
	fill(b, 3);
	for (i = 0; i < len; i++) {
		g_assert_cmpint(vg_beliefs_load(b, &tag0, copy, i, win), <, 0);
		g_assert_cmpint(vg_beliefs_load(b, &tag0, copy, i, win), !=, VG_ENOENT);
	}
	for (i = 0; i < len; i++)
		for (bit = 0; bit < 8; bit++) {
			copy[i] ^= (uint8_t)(1 << bit);
			g_assert_cmpint(vg_beliefs_load(b, &tag0, copy, len, win), <, 0);
			copy[i] ^= (uint8_t)(1 << bit);
		}
	g_assert_cmpuint(vg_beliefs_count(b), ==, 3);
	/* Trailing garbage, too. */
	vg_writer_u8(&w, 0);
	g_assert_cmpint(vg_beliefs_load(b, &tag0, w.data, w.len, win), ==, VG_ECORRUPT);
	g_assert_cmpint(vg_beliefs_load(b, &tag0, copy, len, win), ==, 0);
	g_assert_cmpuint(vg_beliefs_count(b), ==, 40);
	g_assert_cmpuint(vg_history_len(win), ==, G_N_ELEMENTS(test_win));
	/* An image of version 1 (no history) is another format: start cold. */
	copy[8] = 1;
	g_assert_cmpint(vg_beliefs_load(b, &tag0, copy, len, win), ==, VG_ENOTSUP);
	g_assert_cmpuint(vg_history_len(win), ==, 0);
	g_free(copy);
	vg_history_free(win);
	vg_history_free(h3);
	vg_writer_clear(&w);
	vg_beliefs_free(a);
	vg_beliefs_free(b);
}

static void test_store(void)
{
	g_autofree char *base = g_dir_make_tmp("vg-beliefs-XXXXXX", NULL);
	vg_beliefstore_config cfg = { .base_dir = base, .max_viewers = 3, .max_file_bytes = 4096 };
	vg_beliefstore *st;
	uint8_t id[16] = { 0 }, *data;
	uint8_t big[5000] = { 0 };
	size_t len;
	struct stat sb;
	int i;
	GDir *d;
	const char *name;
	int files = 0;

	g_assert_cmpint(vg_beliefstore_open(&cfg, (const uint8_t *)"server-id-012345", &st), ==, 0);
	g_assert_cmpint(stat(vg_beliefstore_dir(st), &sb), ==, 0);
	g_assert_cmpint(sb.st_mode & 0777, ==, 0700);
	g_assert_cmpint(vg_beliefstore_read(st, id, &data, &len), ==, VG_ENOENT);
	g_assert_cmpint(vg_beliefstore_write(st, id, big, sizeof big), ==, VG_ERANGE);
	/* Five viewers, three kept: the two written first are gone. */
	for (i = 0; i < 5; i++) {
		id[0] = (uint8_t)i;
		g_assert_cmpint(vg_beliefstore_write(st, id, (const uint8_t *)"abc", 3), ==, 0);
		g_usleep(20000); /* distinct mtimes */
	}
	id[0] = 0;
	g_assert_cmpint(vg_beliefstore_read(st, id, &data, &len), ==, VG_ENOENT);
	id[0] = 4;
	g_assert_cmpint(vg_beliefstore_read(st, id, &data, &len), ==, 0);
	g_assert_cmpuint(len, ==, 3);
	g_assert_cmpmem(data, 3, "abc", 3);
	g_free(data);
	/* Rewriting refreshes; no temporary files stay behind. */
	g_assert_cmpint(vg_beliefstore_write(st, id, (const uint8_t *)"abcd", 4), ==, 0);
	d = g_dir_open(vg_beliefstore_dir(st), 0, NULL);
	while ((name = g_dir_read_name(d))) {
		g_assert_true(g_str_has_suffix(name, ".vgb"));
		files++;
	}
	g_dir_close(d);
	g_assert_cmpint(files, ==, 3);
	vg_beliefstore_free(st);
	vg_test_rm_rf(base);
}

static void test_cacheid(void)
{
	g_autofree char *dir = g_dir_make_tmp("vg-cacheid-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, VG_CACHEID_FILE, NULL);
	uint8_t a[16], b[16], c[16];
	bool created;
	struct stat sb;
	FILE *f;

	g_assert_cmpint(vg_cacheid_load(dir, false, a, &created), ==, 0);
	g_assert_true(created);
	g_assert_false(vg_cacheid_is_none(a));
	g_assert_cmpint(stat(path, &sb), ==, 0);
	g_assert_cmpint(sb.st_mode & 0777, ==, 0600);
	g_assert_cmpint(vg_cacheid_load(dir, false, b, &created), ==, 0);
	g_assert_false(created);
	g_assert_cmpmem(a, 16, b, 16);
	g_assert_cmpint(vg_cacheid_load(dir, true, c, &created), ==, 0);
	g_assert_true(created);
	g_assert_true(memcmp(a, c, 16) != 0);
	/* A damaged identity is replaced, never used. */
	f = fopen(path, "r+b");
	fseek(f, 14, SEEK_SET);
	fputc(0x5a, f);
	fclose(f);
	g_assert_cmpint(vg_cacheid_load(dir, false, b, &created), ==, 0);
	g_assert_true(created);
	g_assert_true(memcmp(b, c, 16) != 0);
	vg_test_rm_rf(dir);
}

/* One viewer connection to one server connection, over byte buffers. */
typedef struct {
	vg_sender *s;
	vg_receiver *r;
	vg_writer wire, reply;
	vg_region *repair;
} link_t;

static void feed(link_t *l, int w, int h)
{
	vg_reader rd;

	vg_reader_init(&rd, l->reply.data, l->reply.len);
	while (vg_reader_remaining(&rd)) {
		guint8 type;
		guint16 len;
		const guint8 *body;

		g_assert_cmpint(vg_reader_u8(&rd, &type), ==, 0);
		g_assert_cmpint(vg_reader_u16be(&rd, &len), ==, 0);
		g_assert_cmpint(vg_reader_ptr(&rd, len, &body), ==, 0);
		g_assert_cmpint(vg_sender_handle(l->s, body, len, w, h, l->repair), ==, 0);
	}
	vg_writer_reset(&l->reply);
}

static void link_open(link_t *l, const char *cache_dir, uint64_t capacity, bool clear,
		      vg_pixbuf *viewer_fb, const vg_writer *image)
{
	vg_sender_config sc;
	vg_receiver_config rc;

	vg_sender_config_init(&sc);
	memcpy(sc.server_id, "server-id-012345", 16);
	vg_receiver_config_init(&rc);
	rc.cache_dir = cache_dir;
	rc.cache_capacity = capacity;
	rc.clear_cache = clear;
	g_assert_cmpint(vg_sender_new(&sc, &l->s), ==, 0);
	g_assert_cmpint(vg_receiver_new(&rc, &l->r), ==, 0);
	vg_writer_init(&l->wire);
	vg_writer_init(&l->reply);
	l->repair = vg_region_new();
	vg_sender_hello(l->s, &l->wire);
	g_assert_cmpint(vg_receiver_handle(l->r, l->wire.data, l->wire.len, viewer_fb, &l->reply), ==, 0);
	feed(l, viewer_fb->width, viewer_fb->height);
	if (image) {
		int err = vg_sender_load_beliefs(l->s, image->data, image->len);
		/* An image for an identity the viewer no longer has is refused. */
		g_assert_true(err == 0 || err == VG_ENOENT);
	}
	/* A restored history is announced before the first update. */
	vg_writer_reset(&l->wire);
	if (vg_sender_take_history(l->s, &l->wire))
		g_assert_cmpint(vg_receiver_handle(l->r, l->wire.data, l->wire.len, viewer_fb,
						   &l->reply), ==, 0);
	g_assert_false(vg_sender_take_history(l->s, &l->wire));
}

static void link_close(link_t *l, vg_writer *image)
{
	uint8_t id[16];

	if (image && vg_sender_persistent_id(l->s, id)) {
		vg_writer_reset(image);
		vg_sender_save_beliefs(l->s, 16u << 20, image);
	}
	vg_sender_free(l->s);
	vg_receiver_free(l->r);
	vg_writer_clear(&l->wire);
	vg_writer_clear(&l->reply);
	vg_region_free(l->repair);
}

/* A screen of 64 x 16 tiles drawn from a pool, scrolled one tile a step. */
static void paint(vg_pixbuf *fb, int step)
{
	int32_t x, y;

	for (y = 0; y < fb->height; y++)
		for (x = 0; x < fb->width; x++) {
			uint32_t tile = (uint32_t)vg_test_mix((uint64_t)((y / 16 + step) % 40) * 7 + (uint64_t)x / 64);
			vg_pixbuf_row(fb, y)[x] = (tile ^ (uint32_t)(x % 64) * 977u ^ (uint32_t)(y % 16) * 31u) & VG_PIXEL_MASK;
		}
}

/* Cuts fb into 64 x 16 row segments, into segs. */
static void cut_tiles(const vg_pixbuf *fb, GArray *segs)
{
	g_array_set_size(segs, 0);
	for (int32_t x = 0; x < fb->width; x += 64)
		for (int32_t y = 0; y < fb->height; y += 16) {
			vg_segdesc d = { 0 };
			vg_pixbuf v;

			d.rect = vg_rect_make(x, y, 64, 16);
			v = vg_pixbuf_view(fb, d.rect);
			d.hash = vg_seghash(&v, VG_ORIENT_ROWS);
			g_array_append_val(segs, d);
		}
}

/* Sends steps frames (as 64 x 16 row segments) and the repairs the viewer
 * asks for; the viewer must be exact after each. Returns body bytes. */
static uint64_t session(link_t *l, vg_pixbuf *server_fb, vg_pixbuf *viewer_fb, int steps)
{
	GArray *segs = g_array_new(FALSE, FALSE, sizeof(vg_segdesc));
	vg_sender_stats st;
	int step, round;

	for (step = 0; step < steps; step++) {
		const vg_region *only = NULL;

		paint(server_fb, step);
		cut_tiles(server_fb, segs);
		for (round = 0; round < 3; round++) {
			vg_writer_reset(&l->wire);
			g_assert_cmpint(vg_sender_update(l->s, server_fb, (vg_segdesc *)segs->data,
							 segs->len, only, &l->wire), ==, 0);
			g_assert_cmpint(vg_receiver_handle(l->r, l->wire.data, l->wire.len, viewer_fb,
							   &l->reply), ==, 0);
			vg_region_clear(l->repair);
			feed(l, server_fb->width, server_fb->height);
			if (vg_region_is_empty(l->repair))
				break;
			/* The server sends the repaired region again as pixels. */
			only = l->repair;
		}
		g_assert_cmpint(round, <, 3);
		g_assert_true(vg_pixbuf_equal(server_fb, viewer_fb));
	}
	g_array_free(segs, TRUE);
	vg_sender_get_stats(l->s, &st);
	return st.body_bytes;
}

static void test_warm_sessions(void)
{
	g_autofree char *dir = g_dir_make_tmp("vg-warm-XXXXXX", NULL);
	g_autofree char *other = g_dir_make_tmp("vg-warm2-XXXXXX", NULL);
	vg_pixbuf *sfb = vg_pixbuf_new(256, 256), *vfb = vg_pixbuf_new(256, 256);
	vg_receiver_stats rs;
	vg_sender_stats ss;
	vg_writer image;
	uint64_t cold, warm, bytes;
	link_t l;

	vg_writer_init(&image);
	/* Cold, then warm with the saved beliefs and the same cache. */
	link_open(&l, dir, 0, false, vfb, NULL);
	cold = session(&l, sfb, vfb, 30);
	link_close(&l, &image);
	g_assert_cmpuint(image.len, >, VG_BELIEFS_HEADER_BYTES);
	vg_pixbuf_fill(vfb, vg_pixbuf_rect(vfb), 0);
	link_open(&l, dir, 0, false, vfb, &image);
	warm = session(&l, sfb, vfb, 30);
	vg_receiver_get_stats(l.r, &rs);
	g_test_message("cold %" G_GUINT64_FORMAT " bytes, warm %" G_GUINT64_FORMAT, cold, warm);
	g_assert_cmpuint(warm * 2, <=, cold);
	g_assert_cmpuint(rs.literal_segments, ==, 0);
	g_assert_cmpuint(rs.corrections, ==, 0);
	g_assert_cmpuint(rs.history_restored, >, 0);
	vg_sender_get_stats(l.s, &ss);
	g_assert_cmpuint(ss.history_restored, ==, rs.history_restored);
	g_assert_cmpuint(rs.repeats, >, 0);
	link_close(&l, &image);
	/* A damaged history file: both ends start with an empty history. */
	{
		g_autofree char *path = NULL;
		const char *ns;
		GDir *d = g_dir_open(dir, 0, NULL);
		FILE *f;

		ns = g_dir_read_name(d);
		path = g_build_filename(dir, ns, VG_HISTORY_FILE, NULL);
		g_dir_close(d);
		f = fopen(path, "r+b");
		g_assert_nonnull(f);
		fseek(f, 20, SEEK_SET);
		fputc(0x5a, f);
		fclose(f);
	}
	vg_pixbuf_fill(vfb, vg_pixbuf_rect(vfb), 0);
	link_open(&l, dir, 0, false, vfb, &image);
	session(&l, sfb, vfb, 10);
	vg_receiver_get_stats(l.r, &rs);
	vg_sender_get_stats(l.s, &ss);
	g_assert_cmpuint(rs.history_restored, ==, 0);
	g_assert_cmpuint(ss.history_restored, ==, 0);
	g_assert_cmpuint(rs.corrections, ==, 0);
	/* Cleared mid-stream: repairs, convergence, and a new identity. */
	vg_receiver_clear_cache(l.r);
	session(&l, sfb, vfb, 10);
	vg_receiver_get_stats(l.r, &rs);
	g_assert_cmpuint(rs.corrections, >, 0);
	link_close(&l, &image);
	/* The beliefs saved were for the old identity: refused, cold start. */
	vg_pixbuf_fill(vfb, vg_pixbuf_rect(vfb), 0);
	link_open(&l, dir, 0, false, vfb, &image);
	session(&l, sfb, vfb, 5);
	vg_receiver_get_stats(l.r, &rs);
	g_assert_cmpuint(rs.corrections, ==, 0);
	link_close(&l, &image);
	/* Stale: another directory with the same identity and no segments. */
	{
		g_autofree char *src = NULL, *dst = NULL, *ns = NULL;
		g_autofree gchar *buf = NULL;
		gsize n;
		GDir *d = g_dir_open(dir, 0, NULL);

		ns = g_strdup(g_dir_read_name(d));
		g_dir_close(d);
		src = g_build_filename(dir, ns, VG_CACHEID_FILE, NULL);
		dst = g_build_filename(other, ns, NULL);
		g_assert_cmpint(g_mkdir_with_parents(dst, 0700), ==, 0);
		g_free(dst);
		dst = g_build_filename(other, ns, VG_CACHEID_FILE, NULL);
		g_assert_true(g_file_get_contents(src, &buf, &n, NULL));
		g_assert_true(g_file_set_contents(dst, buf, (gssize)n, NULL));
	}
	vg_pixbuf_fill(vfb, vg_pixbuf_rect(vfb), 0);
	link_open(&l, other, 0, false, vfb, &image);
	bytes = session(&l, sfb, vfb, 3);
	vg_receiver_get_stats(l.r, &rs);
	g_test_message("stale: %" G_GUINT64_FORMAT " bytes, %" G_GUINT64_FORMAT " corrections",
		       bytes, rs.corrections);
	g_assert_cmpuint(rs.corrections, >, 0);
	link_close(&l, NULL);
	vg_writer_clear(&image);
	vg_pixbuf_free(sfb);
	vg_pixbuf_free(vfb);
	vg_test_rm_rf(dir);
	vg_test_rm_rf(other);
}

/* Page p of a screen of 64 x 16 tiles, each seen on that page only. */
static void paint_page(vg_pixbuf *fb, uint32_t p)
{
	int32_t x, y;

	for (y = 0; y < fb->height; y++)
		for (x = 0; x < fb->width; x++) {
			uint32_t tile = (uint32_t)vg_test_mix((uint64_t)p << 32 | (uint64_t)(y / 16) << 16 |
							      (uint64_t)(x / 64));

			vg_pixbuf_row(fb, y)[x] = (tile ^ (uint32_t)(x % 64) * 977u) & VG_PIXEL_MASK;
		}
}

/* A viewer cache of 24 MB, pages of 2 MB coming back after three to
 * eleven others: the server fingerprints only what the
 * cache still holds, though the cache drops its oldest container whole.
 * (With the capacity as the server's yardstick, it believed in pages the
 * cache had dropped: every one a repair, a round trip.) */
static void test_full_cache(void)
{
	vg_pixbuf *sfb = vg_pixbuf_new(1024, 512), *vfb = vg_pixbuf_new(1024, 512);
	GArray *segs = g_array_new(FALSE, FALSE, sizeof(vg_segdesc));
	GRand *rng = g_rand_new_with_seed(7);
	uint32_t shown[64], next = 0;
	vg_receiver_config rc;
	vg_sender_config sc;
	vg_receiver_stats rs;
	link_t l;
	int step;

	vg_sender_config_init(&sc);
	sc.pixmodel = false;
	vg_receiver_config_init(&rc);
	rc.memory_budget = 24u << 20;
	g_assert_cmpint(vg_sender_new(&sc, &l.s), ==, 0);
	g_assert_cmpint(vg_receiver_new(&rc, &l.r), ==, 0);
	vg_writer_init(&l.wire);
	vg_writer_init(&l.reply);
	l.repair = vg_region_new();
	vg_sender_hello(l.s, &l.wire);
	g_assert_cmpint(vg_receiver_handle(l.r, l.wire.data, l.wire.len, vfb, &l.reply), ==, 0);
	feed(&l, vfb->width, vfb->height);
	for (step = 0; step < 64; step++) {
		uint32_t back = (uint32_t)g_rand_int_range(rng, 3, 12);

		shown[step] = step >= 12 && g_rand_boolean(rng) ? shown[step - (int)back] : next++;
		paint_page(sfb, shown[step]);
		cut_tiles(sfb, segs);
		vg_writer_reset(&l.wire);
		g_assert_cmpint(vg_sender_update(l.s, sfb, (vg_segdesc *)segs->data, segs->len, NULL, &l.wire),
				==, 0);
		g_assert_cmpint(vg_receiver_handle(l.r, l.wire.data, l.wire.len, vfb, &l.reply), ==, 0);
		vg_region_clear(l.repair);
		feed(&l, sfb->width, sfb->height);
		g_assert_true(vg_region_is_empty(l.repair));
		g_assert_true(vg_pixbuf_equal(sfb, vfb));
	}
	vg_receiver_get_stats(l.r, &rs);
	g_test_message("%" G_GUINT64_FORMAT " cache hits", rs.cache_hits);
	g_assert_cmpuint(rs.corrections, ==, 0);
	/* Pages three or four back still come from the cache. */
	g_assert_cmpuint(rs.cache_hits, >, 1000);
	g_array_free(segs, TRUE);
	g_rand_free(rng);
	link_close(&l, NULL);
	vg_pixbuf_free(sfb);
	vg_pixbuf_free(vfb);
}

/* Without a persistent cache the identity is fresh per connection and
 * the server keeps nothing. */
static void test_ephemeral(void)
{
	vg_pixbuf *vfb = vg_pixbuf_new(64, 64);
	uint8_t id1[16], id2[16];
	link_t l;

	link_open(&l, NULL, 0, false, vfb, NULL);
	g_assert_false(vg_receiver_cache_id(l.r, id1));
	g_assert_false(vg_cacheid_is_none(id1));
	g_assert_false(vg_sender_persistent_id(l.s, id2));
	link_close(&l, NULL);
	link_open(&l, NULL, 0, false, vfb, NULL);
	vg_receiver_cache_id(l.r, id2);
	g_assert_true(memcmp(id1, id2, 16) != 0);
	link_close(&l, NULL);
	vg_pixbuf_free(vfb);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/beliefs/table", test_table);
	g_test_add_func("/beliefs/image-round-trip", test_image_round_trip);
	g_test_add_func("/beliefs/image-damaged", test_image_damaged);
	g_test_add_func("/beliefs/image-below", test_image_below);
	g_test_add_func("/beliefs/store", test_store);
	g_test_add_func("/beliefs/cache-identity", test_cacheid);
	g_test_add_func("/beliefs/warm-sessions", test_warm_sessions);
	g_test_add_func("/beliefs/ephemeral", test_ephemeral);
	g_test_add_func("/beliefs/full-cache", test_full_cache);
	return g_test_run();
}
