/* Benchmarks for common/: pixel buffer copies against memcpy of the same
 * bytes, and transposition. Prints `bench <name> <value> <unit>` lines. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "common/vg_pixbuf.h"
#include "common/vg_time.h"

static volatile uint32_t sink;

static double seconds_per_run(void (*fn)(void *), void *arg)
{
	uint64_t t0, t;
	int runs = 0;

	fn(arg); /* warm the caches and page tables */
	t0 = vg_time_ns();
	do {
		fn(arg);
		runs++;
		t = vg_time_ns();
	} while (t - t0 < 300000000u);
	return (double)(t - t0) / 1e9 / runs;
}

typedef struct {
	vg_pixbuf *src, *dst;
} pair;

static void run_pixbuf_copy(void *arg)
{
	pair *p = arg;
	vg_pixbuf_copy(p->dst, 0, 0, p->src);
	sink ^= p->dst->pixels[7];
}

static void run_memcpy(void *arg)
{
	pair *p = arg;
	memcpy(p->dst->pixels, p->src->pixels, (size_t)p->src->width * p->src->height * 4);
	sink ^= p->dst->pixels[7];
}

static void run_transpose(void *arg)
{
	pair *p = arg;
	vg_pixbuf_transpose(p->dst, p->src);
	sink ^= p->dst->pixels[7];
}

int main(void)
{
	static const int sizes[][2] = { { 1280, 1024 }, { 3328, 1536 } };
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(sizes); i++) {
		int w = sizes[i][0], h = sizes[i][1];
		double mb = (double)w * h * 4 / 1e6, t_copy, t_memcpy, t_tr;
		pair p = { vg_pixbuf_new(w, h), vg_pixbuf_new(w, h) };
		pair q = { p.src, vg_pixbuf_new(h, w) };
		int x, y;

		for (y = 0; y < h; y++)
			for (x = 0; x < w; x++)
				vg_pixbuf_row(p.src, y)[x] = (uint32_t)(x * 2654435761u + y) & VG_PIXEL_MASK;
		t_copy = seconds_per_run(run_pixbuf_copy, &p);
		t_memcpy = seconds_per_run(run_memcpy, &p);
		t_tr = seconds_per_run(run_transpose, &q);
		printf("bench pixbuf_copy_%dx%d %.0f MB/s\n", w, h, mb / t_copy);
		printf("bench memcpy_%dx%d %.0f MB/s\n", w, h, mb / t_memcpy);
		printf("bench pixbuf_copy_vs_memcpy_%dx%d %.2f ratio\n", w, h, t_copy / t_memcpy);
		printf("bench transpose_%dx%d %.2f ms\n", w, h, t_tr * 1e3);
		vg_pixbuf_free(p.src);
		vg_pixbuf_free(p.dst);
		vg_pixbuf_free(q.dst);
	}
	return 0;
}
