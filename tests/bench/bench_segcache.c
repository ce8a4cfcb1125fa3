/* Benchmarks for the segment cache: inserts, misses (answered by the Bloom
 * filter), hits in memory and hits that must read container files.
 *
 * segcache_hit_* use vg_segcache_get (a copy into the caller's buffer),
 * segcache_lookup_* vg_segcache_lookup (a borrowed view, no copy).
 *
 * Segments are 16 pixels wide and 16..64 rows high at 4 bytes a pixel
 * (1-4 KiB), keys are 40-bit. The data set size is VG_BENCH_SEGCACHE_MB
 * megabytes (default 1024) with a memory budget of
 * VG_BENCH_SEGCACHE_BUDGET_MB (default 512); the case is
 *   VG_BENCH_SEGCACHE_MB=10240 ./tests/bench/bench_segcache
 * Files go to a temporary directory under g_get_tmp_dir(), removed after.
 * "Disk" hits are served from container files, usually out of the kernel's
 * page cache on a machine with free memory; the figure is the cost of the
 * cache's own read path, not of a cold disk. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/vg_crc32.h"
#include "common/vg_time.h"
#include "fingerprint/cache/vg_segcache.h"
#include "tests/vg_testutil.h"

#define KEY_MASK ((UINT64_C(1) << 40) - 1)

static uint64_t key_of(uint64_t i)
{
	return vg_test_mix(i) & KEY_MASK;
}

static size_t len_of(uint64_t i)
{
	return (size_t)16 * (16 + vg_test_mix(i ^ 0x55) % 49) * 4;
}

/* Every record the cache keeps is checked by its CRC-32: vg_crc32 against
 * zlib's crc32 and memcpy, over 16 MB eight times. */
static void bench_crc(void)
{
	const size_t n = (size_t)16 << 20;
	uint8_t *a = g_malloc(n), *b = g_malloc(n);
	uint32_t c = 0;
	uint64_t t0;
	size_t i;
	int r;

	for (i = 0; i < n; i++)
		a[i] = (uint8_t)vg_test_mix(i);
	t0 = vg_time_ns();
	for (r = 0; r < 8; r++)
		c = vg_crc32(c, a, n);
	printf("bench segcache_crc32 %.0f MB/s\n", 8.0 * (double)n / 1e6 / ((double)(vg_time_ns() - t0) / 1e9));
	t0 = vg_time_ns();
	for (r = 0; r < 8; r++)
		c ^= (uint32_t)crc32(c, a, (uInt)n);
	printf("bench segcache_crc32_zlib %.0f MB/s\n", 8.0 * (double)n / 1e6 / ((double)(vg_time_ns() - t0) / 1e9));
	t0 = vg_time_ns();
	for (r = 0; r < 8; r++) {
		memcpy(b, a, n);
		a[r] ^= b[n - 1 - (size_t)r];
	}
	printf("bench segcache_crc32_memcpy %.0f MB/s\n", 8.0 * (double)n / 1e6 / ((double)(vg_time_ns() - t0) / 1e9));
	if (c == 0x5eed)
		printf("#\n");
	g_free(a);
	g_free(b);
}

static uint64_t env_mb(const char *name, uint64_t def)
{
	const char *v = g_getenv(name);
	return v && *v ? g_ascii_strtoull(v, NULL, 10) : def;
}

int main(void)
{
	uint64_t size = env_mb("VG_BENCH_SEGCACHE_MB", 1024) << 20;
	uint64_t budget = env_mb("VG_BENCH_SEGCACHE_BUDGET_MB", 512) << 20;
	vg_segcache_config cfg = { .key_bits = 40, .memory_budget = budget,
				   .capacity_bytes = 2 * size + (UINT64_C(256) << 20) };
	static uint8_t seg[16 * 64 * 4], out[16 * 64 * 4];
	uint64_t n = 0, bytes = 0, i, t0, t, recent, hits, reads;
	volatile uint64_t sink = 0;
	vg_segcache_stats st;
	vg_segcache *c;
	char *dir;
	size_t len;
	int err;

	bench_crc();
	dir = g_dir_make_tmp("vg-bench-segcache-XXXXXX", NULL);
	if (!dir)
		return 1;
	cfg.dir = dir;
	if ((err = vg_segcache_open(&cfg, &c)) != 0) {
		fprintf(stderr, "bench_segcache: open: %d\n", err);
		return 1;
	}
	for (i = 0; i < sizeof seg; i++)
		seg[i] = (uint8_t)vg_test_mix(i);

	/* Inserts, data set size in all. */
	t0 = vg_time_ns();
	while (bytes < size) {
		size_t l = len_of(n);

		memcpy(seg, &n, sizeof n);
		if (vg_segcache_put(c, key_of(n), n, seg, l) != 0)
			return 1;
		bytes += l;
		n++;
	}
	vg_segcache_flush(c);
	t = vg_time_ns() - t0;
	printf("bench segcache_insert %.0f ns\n", (double)t / (double)n);
	printf("bench segcache_insert_rate %.0f MB/s\n", (double)bytes / 1e6 / ((double)t / 1e9));

	/* Misses: keys never stored (the Bloom filter answers almost all). */
	vg_segcache_stats_get(c, &st);
	t0 = vg_time_ns();
	for (i = 0; i < 2000000; i++)
		sink += vg_segcache_get(c, key_of(i + (UINT64_C(1) << 50)), NULL, out, sizeof out, &len);
	t = vg_time_ns() - t0;
	{
		vg_segcache_stats s2;

		vg_segcache_stats_get(c, &s2);
		printf("bench segcache_miss %.1f ns\n", (double)t / 2e6);
		printf("bench segcache_bloom_fp_rate %.2f %%\n",
		       100.0 * (double)(s2.bloom_false_positives - st.bloom_false_positives) / 2e6);
	}

	/* Hits in memory: the most recent 64 MB of segments, warmed first. */
	recent = n / (size / (UINT64_C(64) << 20) ? size / (UINT64_C(64) << 20) : 1);
	for (i = n - recent; i < n; i++)
		sink += vg_segcache_get(c, key_of(i), NULL, out, sizeof out, &len);
	vg_segcache_stats_get(c, &st);
	t0 = vg_time_ns();
	for (i = 0; i < 2000000; i++) {
		uint64_t j = n - 1 - vg_test_mix(i) % recent;
		sink += vg_segcache_get(c, key_of(j), NULL, out, sizeof out, &len);
	}
	t = vg_time_ns() - t0;
	{
		vg_segcache_stats s2;

		vg_segcache_stats_get(c, &s2);
		printf("bench segcache_hit_memory %.1f ns\n", (double)t / 2e6);
		printf("bench segcache_hit_memory_disk_reads %.4f per get\n",
		       (double)(s2.disk_reads - st.disk_reads) / 2e6);
	}

	/* The same hits through vg_segcache_lookup(): a borrowed view, no
	 * copy (the viewer copies once, into its framebuffer). In 10 batches:
	 * the mean, and the best batch, which a machine shared with other
	 * work disturbs least. */
	{
		uint64_t total = 0, best = UINT64_MAX, b;

		for (b = 0; b < 10; b++) {
			t0 = vg_time_ns();
			for (i = b * 200000; i < (b + 1) * 200000; i++) {
				uint64_t j = n - 1 - vg_test_mix(i) % recent;
				vg_segcache_view v;

				if (vg_segcache_lookup(c, key_of(j), &v) == 0)
					sink += v.data[0] + v.len;
			}
			t = vg_time_ns() - t0;
			total += t;
			best = t < best ? t : best;
		}
		printf("bench segcache_lookup_memory %.1f ns\n", (double)total / 2e6);
		printf("bench segcache_lookup_memory_best %.1f ns\n", (double)best / 2e5);
	}
	t0 = vg_time_ns();
	for (i = 0; i < 2000000; i++) {
		vg_segcache_view v;

		if (vg_segcache_lookup(c, key_of(n - 1 - vg_test_mix(i) % 256), &v) == 0)
			sink += v.data[0] + v.len;
	}
	t = vg_time_ns() - t0;
	printf("bench segcache_lookup_hot %.1f ns\n", (double)t / 2e6);

	/* An update's worth: the 5,000 segments of a frame stored 1 to 16
	 * frames ago, looked up in the order they were stored (a scroll
	 * brings back earlier frames' segments in screen order). Mean and
	 * best of 400 updates. */
	{
		uint64_t base, rounds = 400, r, total = 0, best = UINT64_MAX;

		for (r = 0; r < rounds; r++) {
			base = n - 5000 - (vg_test_mix(r) % 16) * 5000;
			t0 = vg_time_ns();
			for (i = 0; i < 5000; i++) {
				vg_segcache_view v;

				if (vg_segcache_lookup(c, key_of(base + i), &v) == 0)
					sink += v.data[0] + v.len;
			}
			t = vg_time_ns() - t0;
			total += t;
			best = t < best ? t : best;
		}
		printf("bench segcache_lookup_update_5000 %.1f us\n", (double)total / 1e3 / (double)rounds);
		printf("bench segcache_lookup_update_5000_best %.1f us\n", (double)best / 1e3);
		printf("bench segcache_lookup_in_order %.1f ns\n", (double)total / (double)rounds / 5000);
	}

	/* The same hits on a hot set (the last 256 segments, in the CPU
	 * caches): the cache's own overhead. */
	t0 = vg_time_ns();
	for (i = 0; i < 2000000; i++)
		sink += vg_segcache_get(c, key_of(n - 1 - vg_test_mix(i) % 256), NULL, out, sizeof out, &len);
	t = vg_time_ns() - t0;
	printf("bench segcache_hit_hot %.1f ns\n", (double)t / 2e6);

	/* Baseline: copying segments of the same sizes from random places in
	 * 64 MB of memory, which any in-memory hit must do. */
	{
		size_t big = (size_t)64 << 20;
		uint8_t *mem = g_malloc(big);

		memset(mem, 1, big);
		t0 = vg_time_ns();
		for (i = 0; i < 2000000; i++) {
			size_t l = len_of(i), at = (size_t)(vg_test_mix(i) % (big - l)) & ~(size_t)15;
			memcpy(out, mem + at, l);
			sink += out[l - 1];
		}
		t = vg_time_ns() - t0;
		printf("bench segcache_memcpy_baseline %.1f ns\n", (double)t / 2e6);
		g_free(mem);
	}

	/* Hits anywhere in the data set: most need a chunk or table read. */
	vg_segcache_stats_get(c, &st);
	hits = st.hits;
	reads = st.disk_reads;
	t0 = vg_time_ns();
	for (i = 0; i < 200000; i++) {
		uint64_t j = vg_test_mix(i * 7 + 3) % n;
		sink += vg_segcache_get(c, key_of(j), NULL, out, sizeof out, &len);
	}
	t = vg_time_ns() - t0;
	vg_segcache_stats_get(c, &st);
	printf("bench segcache_hit_any %.1f us\n", (double)t / 2e5 / 1e3);
	printf("bench segcache_hit_any_disk_reads %.3f per get\n", (double)(st.disk_reads - reads) / 2e5);
	printf("bench segcache_hit_any_hit_rate %.2f %%\n", 100.0 * (double)(st.hits - hits) / 2e5);
	printf("bench segcache_memory_used %.0f MB\n", (double)st.memory_used / 1e6);
	printf("bench segcache_bloom %.1f MB\n", (double)st.bloom_bytes / 1e6);
	printf("bench segcache_containers %" G_GUINT64_FORMAT " count\n", st.containers);

	/* Reopen: the table scan and Bloom rebuild of a restart. */
	vg_segcache_close(c);
	t0 = vg_time_ns();
	if (vg_segcache_open(&cfg, &c) != 0)
		return 1;
	t = vg_time_ns() - t0;
	printf("bench segcache_reopen %.1f ms\n", (double)t / 1e6);
	sink += vg_segcache_get(c, key_of(n - 1), NULL, out, sizeof out, &len) == 0;
	vg_segcache_close(c);
	vg_test_rm_rf(dir);
	g_free(dir);
	return sink == 0xdeadbeef;
}
