/* The segment cache against a reference model, across restarts, kills,
 * damaged files, a second opener, and a memory budget. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "fingerprint/cache/vg_container.h"
#include "fingerprint/cache/vg_segcache.h"
#include "tests/vg_testutil.h"

#define MAXV 4096

/* The value of version v: its length and bytes follow from v alone. */
static size_t value_len(uint64_t v, size_t maxlen)
{
	return (size_t)(vg_test_mix(v * 7 + 1) % (maxlen + 1));
}

static void value_fill(uint64_t v, uint8_t *buf, size_t len)
{
	uint64_t s = vg_test_mix(v) | 1;
	size_t i;

	for (i = 0; i < len; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		buf[i] = (uint8_t)s;
	}
}

static bool value_is(uint64_t v, const uint8_t *buf, size_t len, size_t maxlen)
{
	uint8_t want[MAXV];

	if (len != value_len(v, maxlen))
		return false;
	value_fill(v, want, len);
	return memcmp(want, buf, len) == 0;
}

static char *tmp_dir(void)
{
	GError *e = NULL;
	char *d = g_dir_make_tmp("vg-segcache-XXXXXX", &e);

	g_assert_no_error(e);
	return d;
}

static vg_segcache *open_cache(const char *dir, unsigned key_bits, uint64_t capacity,
			       uint64_t budget, uint32_t container)
{
	vg_segcache_config cfg = {
		.dir = dir, .capacity_bytes = capacity, .memory_budget = budget,
		.key_bits = key_bits, .max_segment_bytes = MAXV, .container_bytes = container,
	};
	vg_segcache *c = NULL;

	g_assert_cmpint(vg_segcache_open(&cfg, &c), ==, 0);
	g_assert_nonnull(c);
	return c;
}

static void put_version(vg_segcache *c, uint64_t key, uint64_t v)
{
	uint8_t buf[MAXV];
	size_t len = value_len(v, MAXV);

	value_fill(v, buf, len);
	g_assert_cmpint(vg_segcache_put(c, key, v, buf, len), ==, 0);
}

/* Returns the version found under key, or -1 on a miss; fails the test if
 * the bytes are not exactly that version's. */
static int64_t get_version(vg_segcache *c, uint64_t key)
{
	uint8_t buf[MAXV];
	uint64_t hash = 0;
	size_t len = 0;
	int err = vg_segcache_get(c, key, &hash, buf, sizeof buf, &len);

	if (err == VG_ENOENT)
		return -1;
	g_assert_cmpint(err, ==, 0);
	if (!value_is(hash, buf, len, MAXV))
		g_error("key %" G_GUINT64_FORMAT ": bytes do not match version %" G_GUINT64_FORMAT,
			key, hash);
	return (int64_t)hash;
}

/* The same through vg_segcache_lookup(): a borrowed view, checked, and
 * checked again after a stats call (which must not disturb it). */
static int64_t lookup_version(vg_segcache *c, uint64_t key)
{
	vg_segcache_view v = { 0 };
	vg_segcache_stats st;
	int err = vg_segcache_lookup(c, key, &v);

	if (err == VG_ENOENT)
		return -1;
	g_assert_cmpint(err, ==, 0);
	g_assert_nonnull(v.data);
	if (!value_is(v.content_hash, v.data, v.len, MAXV))
		g_error("key %" G_GUINT64_FORMAT ": view does not match version %" G_GUINT64_FORMAT,
			key, v.content_hash);
	vg_segcache_stats_get(c, &st);
	g_assert_true(value_is(v.content_hash, v.data, v.len, MAXV));
	return (int64_t)v.content_hash;
}

/* ---- the model test ---------------------------------------------------- */

/* model: key -> latest version + 1 (0: dropped or never put). Gets must
 * return exactly that version, or miss only if the cache may have
 * forgotten (evicted) something. */
static void run_model(const char *dir, unsigned key_bits, uint64_t capacity, uint32_t container,
		      int ops, guint32 seed)
{
	GHashTable *model = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	GRand *r = g_rand_new_with_seed(seed);
	uint64_t mask = key_bits >= 64 ? UINT64_MAX : (UINT64_C(1) << key_bits) - 1;
	uint64_t nkeys = key_bits <= 12 ? (UINT64_C(1) << key_bits) : 3000;
	vg_segcache *c = open_cache(dir, key_bits, capacity, 8 << 20, container);
	vg_segcache_stats st;
	uint64_t v = 1, evicted = 0;
	int i, hits = 0;

	for (i = 0; i < ops; i++) {
		uint64_t key = vg_test_mix(g_rand_int_range(r, 0, (gint32)nkeys) + seed) & mask;
		guint32 op = g_rand_int_range(r, 0, 100);
		gpointer m = g_hash_table_lookup(model, &key);
		int64_t got;

		if (op < 45) {
			put_version(c, key, v);
			g_hash_table_replace(model, g_memdup2(&key, sizeof key), GSIZE_TO_POINTER(v));
			v++;
		} else if (op < 50) {
			g_assert_cmpint(vg_segcache_drop(c, key), ==, 0);
			g_hash_table_replace(model, g_memdup2(&key, sizeof key), GSIZE_TO_POINTER(0));
		} else if (op < 99) {
			got = op & 1 ? get_version(c, key) : lookup_version(c, key);
			vg_segcache_stats_get(c, &st);
			if (got >= 0) {
				g_assert_cmpint(got, ==, (int64_t)GPOINTER_TO_SIZE(m));
				hits++;
			} else if (evicted + st.containers_evicted == 0) {
				g_assert_cmpuint(GPOINTER_TO_SIZE(m), ==, 0);
			}
		} else if (dir && g_rand_int_range(r, 0, 4) == 0) {
			vg_segcache_stats_get(c, &st);
			evicted += st.containers_evicted;
			vg_segcache_close(c);
			c = open_cache(dir, key_bits, capacity, 8 << 20, container);
		} else {
			g_assert_cmpint(vg_segcache_flush(c), ==, 0);
		}
	}
	vg_segcache_stats_get(c, &st);
	g_test_message("bits %u: %d ops, %d hits, %" G_GUINT64_FORMAT " containers, %"
		       G_GUINT64_FORMAT " evicted, %" G_GUINT64_FORMAT " bloom fp",
		       key_bits, ops, hits, st.containers, st.containers_evicted,
		       st.bloom_false_positives);
	g_assert_cmpuint(st.containers_damaged, ==, 0);
	g_assert_cmpint(hits, >, 0);
	vg_segcache_close(c);
	g_rand_free(r);
	g_hash_table_destroy(model);
}

static void test_model_memory(void)
{
	run_model(NULL, 8, 0, 64 << 10, 20000, 1);
	run_model(NULL, 16, 0, 64 << 10, 20000, 2);
	run_model(NULL, 64, 0, 1 << 20, 20000, 3);
	/* Small capacity: containers are forgotten, hits stay exact. */
	run_model(NULL, 12, 600 << 10, 64 << 10, 20000, 4);
}

static void test_model_disk(void)
{
	static const unsigned bits[] = { 8, 13, 16, 40, 64 };
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(bits); i++) {
		char *dir = tmp_dir();
		run_model(dir, bits[i], 0, 128 << 10, 8000, 10 + (guint32)i);
		vg_test_rm_rf(dir);
		g_free(dir);
	}
	{
		char *dir = tmp_dir();
		run_model(dir, 12, 1 << 20, 64 << 10, 8000, 20);
		vg_test_rm_rf(dir);
		g_free(dir);
	}
}

/* Views of segments that straddle two 1 MiB chunks (served from a copy)
 * and of segments inside one (served in place), on disk with chunks
 * evicted between lookups by an 8 MiB budget, and in memory. */
static void test_lookup_views(void)
{
	enum { N = 200, BIG = 300000 };
	char *dir = tmp_dir();
	const char *dirs[] = { dir, NULL };
	uint8_t *buf = g_malloc(BIG);
	size_t d;

	for (d = 0; d < G_N_ELEMENTS(dirs); d++) {
		vg_segcache_config cfg = { .dir = dirs[d], .memory_budget = 8 << 20, .key_bits = 32,
					   .max_segment_bytes = BIG, .container_bytes = 4 << 20 };
		vg_segcache *c = NULL;
		vg_segcache_view v, w;
		uint64_t i, round;

		g_assert_cmpint(vg_segcache_open(&cfg, &c), ==, 0);
		for (i = 0; i < N; i++) {
			size_t len = BIG - (size_t)(vg_test_mix(i) % 5000);

			value_fill(i, buf, len);
			g_assert_cmpint(vg_segcache_put(c, i + 1, i, buf, len), ==, 0);
		}
		g_assert_cmpint(vg_segcache_flush(c), ==, 0);
		for (round = 0; round < 2; round++) {
			for (i = 0; i < N; i++) {
				uint64_t k = round ? N - 1 - i : i;
				int err = vg_segcache_lookup(c, k + 1, &v);

				/* Memory mode keeps 8 MiB: the oldest were forgotten. */
				if (err == VG_ENOENT && !dirs[d])
					continue;
				g_assert_cmpint(err, ==, 0);
				g_assert_cmpuint(v.content_hash, ==, k);
				g_assert_cmpuint(v.len, ==, BIG - vg_test_mix(k) % 5000);
				value_fill(k, buf, v.len);
				g_assert_true(memcmp(buf, v.data, v.len) == 0);
			}
		}
		/* A miss leaves nothing to read; a zero-length segment has a
		 * non-NULL view. */
		g_assert_cmpint(vg_segcache_lookup(c, 999999, &w), ==, VG_ENOENT);
		g_assert_cmpint(vg_segcache_put(c, 777, 5, buf, 0), ==, 0);
		g_assert_cmpint(vg_segcache_lookup(c, 777, &w), ==, 0);
		g_assert_nonnull(w.data);
		g_assert_cmpuint(w.len, ==, 0);
		g_assert_cmpint(vg_segcache_lookup(c, UINT64_C(1) << 40, &w), ==, VG_EINVAL);
		{
			vg_segcache_stats st;

			vg_segcache_stats_get(c, &st);
			if (dirs[d])
				g_assert_cmpuint(st.memory_used, <=, st.memory_budget);
		}
		vg_segcache_close(c);
	}
	g_free(buf);
	vg_test_rm_rf(dir);
	g_free(dir);
}

/* ---- restart ------------------------------------------------------------ */

static void test_restart(void)
{
	char *dir = tmp_dir();
	vg_segcache *c = open_cache(dir, 40, 0, 0, 256 << 10);
	vg_segcache_stats st;
	uint64_t k;

	for (k = 0; k < 3000; k++)
		put_version(c, k * 0x10001 + 5, k + 1);
	g_assert_cmpint(vg_segcache_drop(c, 5), ==, 0);
	vg_segcache_close(c);
	c = open_cache(dir, 40, 0, 0, 256 << 10);
	g_assert_cmpint(get_version(c, 5), ==, -1);
	for (k = 1; k < 3000; k++)
		g_assert_cmpint(get_version(c, k * 0x10001 + 5), ==, (int64_t)(k + 1));
	vg_segcache_stats_get(c, &st);
	g_assert_cmpuint(st.hits, ==, 2999);
	g_assert_cmpuint(st.disk_reads, >, 0);
	g_assert_cmpuint(st.containers, >, 10);
	/* A miss of a key never put costs no disk read, nearly always. */
	{
		uint64_t reads = st.disk_reads;
		for (k = 0; k < 1000; k++)
			g_assert_cmpint(get_version(c, (UINT64_C(1) << 39) + k), ==, -1);
		vg_segcache_stats_get(c, &st);
		g_assert_cmpuint(st.bloom_misses, >, 950);
		g_assert_cmpuint(st.disk_reads - reads, <, 50 * st.containers);
	}
	vg_segcache_close(c);

	/* Another key width clears the directory. */
	c = open_cache(dir, 41, 0, 0, 256 << 10);
	g_assert_cmpint(get_version(c, 3 * 0x10001 + 5), ==, -1);
	vg_segcache_stats_get(c, &st);
	g_assert_cmpuint(st.entries, ==, 0);
	vg_segcache_close(c);
	vg_test_rm_rf(dir);
	g_free(dir);
}

/* ---- kill -9 ------------------------------------------------------------- */

#define CRASH_KEYS 4096
#define CRASH_OPS 3000000

static uint64_t crash_key(uint64_t i, uint64_t seed)
{
	return vg_test_mix(i ^ (seed << 32)) % CRASH_KEYS;
}

static bool crash_is_drop(uint64_t i, uint64_t seed)
{
	return vg_test_mix(i * 3 + seed) % 16 == 0;
}

static void crash_child(const char *dir, uint64_t seed, int fd)
{
	vg_segcache *c = NULL;
	vg_segcache_config cfg = { .dir = dir, .key_bits = 12, .max_segment_bytes = MAXV,
				   .container_bytes = 96 << 10, .memory_budget = 8 << 20 };
	uint8_t buf[MAXV];
	uint64_t i;

	if (vg_segcache_open(&cfg, &c) != 0)
		_exit(3);
	for (i = 1; i < CRASH_OPS; i++) {
		uint64_t key = crash_key(i, seed);

		if (crash_is_drop(i, seed)) {
			if (vg_segcache_drop(c, key) != 0)
				_exit(4);
		} else {
			size_t len = value_len(i, MAXV);

			value_fill(i, buf, len);
			if (vg_segcache_put(c, key, i, buf, len) != 0)
				_exit(5);
		}
		if (i % 13 == 0 || crash_is_drop(i, seed)) {
			uint32_t done = (uint32_t)i;

			if (vg_segcache_flush(c) != 0)
				_exit(6);
			if (write(fd, &done, sizeof done) != sizeof done)
				_exit(7);
		}
	}
	vg_segcache_close(c);
	_exit(0);
}

static void test_crash(void)
{
	GRand *r = g_rand_new_with_seed(77);
	int round;

	for (round = 0; round < 8; round++) {
		char *dir = tmp_dir();
		uint64_t seed = 1000 + (uint64_t)round, i, flushed = 0;
		int64_t *latest = g_new(int64_t, CRASH_KEYS);
		int pipefd[2], status, k;
		uint32_t done;
		pid_t pid;

		g_assert_cmpint(pipe(pipefd), ==, 0);
		pid = fork();
		g_assert_cmpint(pid, >=, 0);
		if (pid == 0) {
			close(pipefd[0]);
			crash_child(dir, seed, pipefd[1]);
		}
		close(pipefd[1]);
		g_usleep((gulong)g_rand_int_range(r, 20000, 400000));
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		g_assert_true(WIFSIGNALED(status));
		while (read(pipefd[0], &done, sizeof done) == sizeof done)
			flushed = done;
		close(pipefd[0]);

		/* latest[k]: the last op <= flushed on key k (a version, or -1
		 * for a drop or nothing). */
		for (k = 0; k < CRASH_KEYS; k++)
			latest[k] = -1;
		for (i = 1; i <= flushed; i++)
			latest[crash_key(i, seed)] = crash_is_drop(i, seed) ? -1 : (int64_t)i;

		for (int pass = 0; pass < 2; pass++) {
			vg_segcache *c = open_cache(dir, 12, 0, 8 << 20, 96 << 10);
			vg_segcache_stats st;
			int hits = 0;

			for (k = 0; k < CRASH_KEYS; k++) {
				int64_t got = get_version(c, (uint64_t)k);

				if (got < 0) {
					/* A miss: fine only if the flushed state has none,
					 * or a later (unflushed) drop may have landed. */
					if (latest[k] >= 0) {
						bool later_drop = false;
						for (i = flushed + 1; i < flushed + 200000 && !later_drop; i++)
							later_drop = crash_key(i, seed) == (uint64_t)k &&
								     crash_is_drop(i, seed);
						g_assert_true(later_drop);
					}
					continue;
				}
				hits++;
				/* Whatever is served was put under this key, and is
				 * not older than what was flushed. */
				g_assert_cmpuint(crash_key((uint64_t)got, seed), ==, (uint64_t)k);
				g_assert_false(crash_is_drop((uint64_t)got, seed));
				g_assert_cmpint(got, >=, latest[k]);
				if (got > latest[k])
					g_assert_cmpuint((uint64_t)got, >, flushed);
			}
			vg_segcache_stats_get(c, &st);
			g_test_message("round %d pass %d: %" G_GUINT64_FORMAT " ops flushed, %d hits, "
				       "%" G_GUINT64_FORMAT " containers", round, pass, flushed, hits,
				       st.containers);
			g_assert_cmpuint(st.containers_damaged, ==, 0);
			vg_segcache_close(c);
		}
		g_free(latest);
		vg_test_rm_rf(dir);
		g_free(dir);
	}
	g_rand_free(r);
}

/* ---- damaged files ------------------------------------------------------ */

#define DMG_KEYS 3000

static char *filled_dir(void)
{
	char *dir = tmp_dir();
	vg_segcache *c = open_cache(dir, 24, 0, 0, 128 << 10);
	uint64_t k;

	for (k = 0; k < DMG_KEYS; k++)
		put_version(c, k * 977 + 1, k + 1);
	vg_segcache_close(c);
	return dir;
}

static gint cmp_path(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static GPtrArray *container_files(const char *dir)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *name;

	while ((name = g_dir_read_name(d)) != NULL)
		if (g_str_has_suffix(name, ".vgc"))
			g_ptr_array_add(a, g_build_filename(dir, name, NULL));
	g_dir_close(d);
	g_ptr_array_sort(a, cmp_path);
	return a;
}

/* Every key hits with exactly its value or misses; returns the hits. */
static int check_all(const char *dir, vg_segcache_stats *st)
{
	vg_segcache *c = open_cache(dir, 24, 0, 0, 128 << 10);
	uint64_t k;
	int hits = 0;

	for (k = 0; k < DMG_KEYS; k++) {
		int64_t got = get_version(c, k * 977 + 1);
		if (got >= 0) {
			g_assert_cmpint(got, ==, (int64_t)(k + 1));
			hits++;
		}
	}
	vg_segcache_stats_get(c, st);
	vg_segcache_close(c);
	return hits;
}

static void poke(const char *path, long off, uint8_t x)
{
	int fd = open(path, O_RDWR);
	uint8_t b;

	g_assert_cmpint(fd, >=, 0);
	if (off < 0)
		off += (long)lseek(fd, 0, SEEK_END);
	g_assert_cmpint(pread(fd, &b, 1, off), ==, 1);
	b ^= x;
	g_assert_cmpint(pwrite(fd, &b, 1, off), ==, 1);
	close(fd);
}

static void test_damage(void)
{
	vg_segcache_stats st;
	GPtrArray *files;
	char *dir;
	int hits;

	/* A flipped data byte: that container is dropped when read. */
	dir = filled_dir();
	files = container_files(dir);
	g_assert_cmpuint(files->len, >, 8);
	poke(files->pdata[2], 4000, 0x40);
	hits = check_all(dir, &st);
	g_assert_cmpuint(st.containers_damaged, ==, 1);
	g_assert_cmpint(hits, <, DMG_KEYS);
	g_assert_cmpint(hits, >, DMG_KEYS * 3 / 4);
	g_assert_false(g_file_test(files->pdata[2], G_FILE_TEST_EXISTS));
	/* Keys of that container read before the damaged record hit the
	 * first time; now the container is gone. */
	g_assert_cmpint(check_all(dir, &st), <=, hits);
	g_assert_cmpint(check_all(dir, &st), >, DMG_KEYS * 3 / 4);
	g_ptr_array_free(files, TRUE);
	vg_test_rm_rf(dir);
	g_free(dir);

	/* A flipped byte in a trailer table: the records are rescanned and
	 * nothing is lost. */
	dir = filled_dir();
	files = container_files(dir);
	poke(files->pdata[1], -40, 0x01);
	g_assert_cmpint(check_all(dir, &st), ==, DMG_KEYS);
	g_ptr_array_free(files, TRUE);
	vg_test_rm_rf(dir);
	g_free(dir);

	/* A truncated container keeps its whole records; a deleted one and
	 * one with a bad header are gone; the rest works. */
	dir = filled_dir();
	files = container_files(dir);
	g_assert_cmpint(truncate(files->pdata[3], 50000), ==, 0);
	g_assert_cmpint(g_unlink(files->pdata[5]), ==, 0);
	poke(files->pdata[6], 20, 0x10);
	hits = check_all(dir, &st);
	g_assert_cmpuint(st.containers_damaged, ==, 1); /* the header, at open */
	g_assert_cmpint(hits, <, DMG_KEYS - 100);
	g_assert_cmpint(hits, >, DMG_KEYS / 2);
	g_assert_cmpint(check_all(dir, &st), ==, hits);
	g_ptr_array_free(files, TRUE);
	vg_test_rm_rf(dir);
	g_free(dir);

	/* Random bytes flipped all over: never a wrong byte served. */
	{
		GRand *r = g_rand_new_with_seed(5);
		int n;

		dir = filled_dir();
		files = container_files(dir);
		for (n = 0; n < 30; n++) {
			const char *f = files->pdata[g_rand_int_range(r, 0, (gint32)files->len)];
			struct stat sb;

			g_assert_cmpint(stat(f, &sb), ==, 0);
			poke(f, g_rand_int_range(r, 0, (gint32)sb.st_size), (uint8_t)g_rand_int_range(r, 1, 256));
		}
		hits = check_all(dir, &st);
		g_assert_cmpint(hits, >, 0);
		g_ptr_array_free(files, TRUE);
		vg_test_rm_rf(dir);
		g_free(dir);
		g_rand_free(r);
	}
}

/* ---- lock and permissions ------------------------------------------------ */

static void test_lock(void)
{
	char *dir = tmp_dir();
	vg_segcache_config cfg = { .dir = dir };
	vg_segcache *a = NULL, *b = NULL;
	int status;
	pid_t pid;

	g_assert_cmpint(vg_segcache_open(&cfg, &a), ==, 0);
	g_assert_cmpint(vg_segcache_open(&cfg, &b), ==, VG_EBUSY);
	g_assert_null(b);
	pid = fork();
	if (pid == 0) {
		int err = vg_segcache_open(&cfg, &b);
		_exit(err == VG_EBUSY ? 0 : 1);
	}
	g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
	g_assert_true(WIFEXITED(status));
	g_assert_cmpint(WEXITSTATUS(status), ==, 0);
	vg_segcache_close(a);
	g_assert_cmpint(vg_segcache_open(&cfg, &b), ==, 0);
	vg_segcache_close(b);
	vg_test_rm_rf(dir);
	g_free(dir);
}

static void test_permissions(void)
{
	char *top = tmp_dir();
	char *dir = g_build_filename(top, "a", "b", NULL);
	vg_segcache *c = open_cache(dir, 40, 0, 0, 0);
	GPtrArray *files;
	struct stat sb;
	char *lock;
	guint i;

	put_version(c, 1, 1);
	g_assert_cmpint(vg_segcache_flush(c), ==, 0);
	g_assert_cmpint(stat(dir, &sb), ==, 0);
	g_assert_cmpint(sb.st_mode & 07777, ==, 0700);
	lock = g_build_filename(dir, "lock", NULL);
	g_assert_cmpint(stat(lock, &sb), ==, 0);
	g_assert_cmpint(sb.st_mode & 07777, ==, 0600);
	files = container_files(dir);
	g_assert_cmpuint(files->len, >=, 1);
	for (i = 0; i < files->len; i++) {
		g_assert_cmpint(stat(files->pdata[i], &sb), ==, 0);
		g_assert_cmpint(sb.st_mode & 07777, ==, 0600);
	}
	vg_segcache_close(c);
	g_ptr_array_free(files, TRUE);
	g_free(lock);
	vg_test_rm_rf(top);
	g_free(dir);
	g_free(top);
}

/* ---- memory budget, capacity, clear ---------------------------------------- */

static void test_budget(void)
{
	char *dir = tmp_dir();
	uint64_t budget = 8 << 20, k, n = 24000; /* ~48 MB of segments */
	vg_segcache *c = open_cache(dir, 40, 0, budget, 4 << 20);
	vg_segcache_stats st;
	GRand *r = g_rand_new_with_seed(9);

	for (k = 0; k < n; k++) {
		put_version(c, k + 100, k + 1);
		if (k % 500 == 0) {
			vg_segcache_stats_get(c, &st);
			g_assert_cmpuint(st.memory_used, <=, budget);
		}
	}
	for (k = 0; k < 3000; k++) {
		uint64_t key = (uint64_t)g_rand_int_range(r, 0, (gint32)n);
		g_assert_cmpint(get_version(c, key + 100), ==, (int64_t)(key + 1));
	}
	vg_segcache_stats_get(c, &st);
	g_test_message("memory %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT ", disk %"
		       G_GUINT64_FORMAT ", reads %" G_GUINT64_FORMAT, st.memory_used, budget,
		       st.bytes_on_disk, st.disk_reads);
	g_assert_cmpuint(st.memory_used, <=, budget);
	g_assert_cmpuint(st.bytes_on_disk, >, 5 * budget);
	g_assert_cmpuint(st.disk_reads, >, 0);
	vg_segcache_close(c);
	g_rand_free(r);
	vg_test_rm_rf(dir);
	g_free(dir);
}

static void test_capacity_and_clear(void)
{
	char *dir = tmp_dir();
	uint64_t cap = 2 << 20, k, total = 0;
	vg_segcache *c = open_cache(dir, 40, cap, 0, 128 << 10);
	vg_segcache_stats st;
	GPtrArray *files;
	guint i;

	for (k = 0; k < 8000; k++)
		put_version(c, k, k + 1);
	vg_segcache_flush(c);
	vg_segcache_stats_get(c, &st);
	g_assert_cmpuint(st.bytes_on_disk, <=, cap);
	g_assert_cmpuint(st.containers_evicted, >, 0);
	files = container_files(dir);
	for (i = 0; i < files->len; i++) {
		struct stat sb;
		g_assert_cmpint(stat(files->pdata[i], &sb), ==, 0);
		total += (uint64_t)sb.st_size;
	}
	g_assert_cmpuint(total, ==, st.bytes_on_disk);
	g_ptr_array_free(files, TRUE);
	g_assert_cmpint(get_version(c, 0), ==, -1);
	g_assert_cmpint(get_version(c, 7999), ==, 8000);

	g_assert_cmpint(vg_segcache_clear(c), ==, 0);
	g_assert_cmpint(get_version(c, 7999), ==, -1);
	put_version(c, 5, 6);
	vg_segcache_close(c);
	c = open_cache(dir, 40, cap, 0, 128 << 10);
	g_assert_cmpint(get_version(c, 7999), ==, -1);
	g_assert_cmpint(get_version(c, 5), ==, 6);
	vg_segcache_stats_get(c, &st);
	g_assert_cmpuint(st.containers, ==, 2);
	vg_segcache_close(c);
	vg_test_rm_rf(dir);
	g_free(dir);
}

/* What vg_segcache_kept_bytes() promises, which a server's beliefs rest
 * on: after every put, the newest records that fit in it are all there,
 * in memory and on disk, with the default container size, while the
 * cache passes its bound many times over. */
static void test_kept(void)
{
	static const struct {
		bool disk;
		uint64_t capacity, budget;
	} cases[] = {
		{ false, 0, 8 << 20 },        /* bound by the budget */
		{ false, 6 << 20, 64 << 20 }, /* by the capacity */
		{ true, 6 << 20, 8 << 20 },
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *dir = cases[i].disk ? tmp_dir() : NULL;
		vg_segcache_config cfg = {
			.dir = dir, .capacity_bytes = cases[i].capacity,
			.memory_budget = cases[i].budget, .key_bits = 40, .max_segment_bytes = MAXV,
		};
		uint64_t kept = vg_segcache_kept_bytes(&cfg), bound, put = 0, k, j;
		vg_segcache_stats st;
		vg_segcache *c = open_cache(dir, 40, cases[i].capacity, cases[i].budget, 0);

		bound = cases[i].capacity ? cases[i].capacity : cases[i].budget;
		/* Most of the bound, not all: two containers' worth may go. */
		g_assert_cmpuint(kept, >, bound / 10 * 8);
		g_assert_cmpuint(kept, <, bound);
		for (k = 0; put < 4 * bound; k++) {
			uint64_t span = 0;

			put_version(c, k, k + 1);
			put += value_len(k + 1, MAXV);
			if (k % 499)
				continue;
			for (j = k + 1; j-- > 0;) {
				span += vg_container_record_span((uint32_t)value_len(j + 1, MAXV));
				if (span > kept)
					break;
				if (get_version(c, j) != (int64_t)(j + 1))
					g_error("case %zu: key %" G_GUINT64_FORMAT " gone after %" G_GUINT64_FORMAT
						" puts, %" G_GUINT64_FORMAT " bytes after it", i, j, k + 1, span);
			}
		}
		vg_segcache_stats_get(c, &st);
		g_assert_cmpuint(st.containers_evicted, >, 4);
		vg_segcache_close(c);
		if (dir)
			vg_test_rm_rf(dir);
		g_free(dir);
	}
}

/* A memory-only cache cleared again and again, as a viewer's at each
 * connection: the clear empties what was written (its table is reused,
 * emptied where used), so nothing of an earlier round is found and the
 * round's own keys all are, whether a round wrote nothing (a clear
 * cache is left as it is), a few entries or enough to spread over the
 * whole table. */
static void test_clear_rounds(void)
{
	vg_segcache *c = open_cache(NULL, 40, 0, 16 << 20, 0);
	static const uint64_t sizes[] = { 0, 3, 1, 2000, 5, 4000, 0, 0, 7 };
	vg_segcache_stats st;
	size_t round;
	uint64_t k;

	for (round = 0; round < G_N_ELEMENTS(sizes); round++) {
		uint64_t base = round * 10000;

		g_assert_cmpint(vg_segcache_clear(c), ==, 0);
		for (k = 0; k < sizes[round]; k++)
			put_version(c, base + k, round + 1);
		vg_segcache_stats_get(c, &st);
		g_assert_cmpuint(st.entries, ==, sizes[round]);
		for (k = 0; k < sizes[round]; k++)
			g_assert_cmpint(get_version(c, base + k), ==, (int64_t)round + 1);
		if (round > 0)
			for (k = 0; k < sizes[round - 1]; k++)
				g_assert_cmpint(get_version(c, base - 10000 + k), ==, -1);
	}
	vg_segcache_close(c);
}

static void test_args(void)
{
	vg_segcache_config cfg = { .key_bits = 16, .max_segment_bytes = 100 };
	uint8_t buf[200] = { 0 };
	vg_segcache *c;
	size_t len;
	uint64_t h;

	g_assert_cmpint(vg_segcache_open(&cfg, &c), ==, 0);
	g_assert_cmpint(vg_segcache_put(c, 1 << 16, 0, buf, 10), ==, VG_EINVAL);
	g_assert_cmpint(vg_segcache_put(c, 1, 0, buf, 101), ==, VG_ERANGE);
	g_assert_cmpint(vg_segcache_put(c, 1, 99, buf, 100), ==, 0);
	g_assert_cmpint(vg_segcache_get(c, 1, &h, buf, 50, &len), ==, VG_ENOSPC);
	g_assert_cmpuint(len, ==, 100);
	g_assert_cmpint(vg_segcache_get(c, 1, &h, buf, sizeof buf, &len), ==, 0);
	g_assert_cmpuint(h, ==, 99);
	g_assert_cmpint(vg_segcache_put(c, 2, 7, NULL, 0), ==, 0);
	g_assert_cmpint(vg_segcache_get(c, 2, NULL, NULL, 0, &len), ==, 0);
	g_assert_cmpuint(len, ==, 0);
	g_assert_cmpint(vg_segcache_get(c, 1 << 16, &h, buf, sizeof buf, &len), ==, VG_EINVAL);
	vg_segcache_close(c);
	vg_segcache_close(NULL);
	cfg.key_bits = 65;
	g_assert_cmpint(vg_segcache_open(&cfg, &c), ==, VG_EINVAL);
	g_assert_null(c);
}

static void test_namespace(void)
{
	char *base = vg_segcache_default_base_dir(), *p;

	g_assert_true(g_str_has_suffix(base, "/varg"));
	g_assert_cmpint(vg_segcache_namespace_dir("/b", "00ab12ef", &p), ==, 0);
	g_assert_cmpstr(p, ==, "/b/id-00ab12ef");
	g_free(p);
	g_assert_cmpint(vg_segcache_namespace_dir("/b", "../../etc", &p), ==, 0);
	g_assert_true(g_str_has_prefix(p, "/b/h-"));
	g_assert_cmpuint(strlen(p), ==, strlen("/b/h-") + 32);
	g_assert_null(strchr(p + 3, '/'));
	g_free(p);
	g_assert_cmpint(vg_segcache_namespace_dir("/b", "..", &p), ==, 0);
	g_assert_true(g_str_has_prefix(p, "/b/h-"));
	g_free(p);
	/* The hashed name is the first half of the identity's SHA-256 in
	 * hex, as GLib computes it: directories made before stay found. */
	{
		const char *id = "a server identity with spaces, longer than sixty-four characters";
		char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, id, -1);
		char *want = g_strdup_printf("/b/h-%.32s", sum);

		g_assert_cmpint(vg_segcache_namespace_dir("/b", id, &p), ==, 0);
		g_assert_cmpstr(p, ==, want);
		g_free(p);
		g_free(want);
		g_free(sum);
	}
	g_assert_cmpint(vg_segcache_namespace_dir("/b", "", &p), ==, VG_EINVAL);
	g_assert_null(p);
	g_free(base);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	/* Damage tests provoke warnings by design. */
	if (!g_getenv("VG_SEGCACHE_VERBOSE"))
		vg_log_set_level(VG_LOG_ERROR);
	g_test_add_func("/segcache/args", test_args);
	g_test_add_func("/segcache/namespace", test_namespace);
	g_test_add_func("/segcache/model-memory", test_model_memory);
	g_test_add_func("/segcache/model-disk", test_model_disk);
	g_test_add_func("/segcache/lookup-views", test_lookup_views);
	g_test_add_func("/segcache/restart", test_restart);
	g_test_add_func("/segcache/crash", test_crash);
	g_test_add_func("/segcache/damage", test_damage);
	g_test_add_func("/segcache/lock", test_lock);
	g_test_add_func("/segcache/permissions", test_permissions);
	g_test_add_func("/segcache/budget", test_budget);
	g_test_add_func("/segcache/capacity-and-clear", test_capacity_and_clear);
	g_test_add_func("/segcache/kept", test_kept);
	g_test_add_func("/segcache/clear-rounds", test_clear_rounds);
	return g_test_run();
}
