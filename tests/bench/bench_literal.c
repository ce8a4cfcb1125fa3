/* The miss coder on a real session: every frame record of the bundled
 * TreeView trace (or the trace named on the command line) is one update,
 * its changed rectangles its literal segments. Coded six ways, each
 * through a stream that lives for the whole session as a connection's
 * does: vg_literal then zlib (what older viewers get), vg_literal then
 * zstd with a 16 MiB window (the default now), and for comparison the
 * plain 3-byte pixels through zlib and through zstd; the pixel model
 * (vg_pixmodel, each pixel predicted from its neighbours, one model for
 * the session; it keeps no whole rows, so the scrolled content that Varg
 * sends as fingerprints and zstd's window finds again costs it more
 * here than zstd); and, when libwebp is there, each rectangle as a lossless
 * WebP image of its own (the usual yardstick for lossless screen images).
 * Prints bytes,
 * encode and decode MB/s (of 3-byte pixels) and, as the yardstick,
 * memcpy of as many bytes. `bench <name> <value> <unit>` lines.
 * Usage: bench_literal [TRACE [METHOD...]], METHOD one of the names
 * printed (e.g. pixmodel), to time some methods alone. */
#include "config.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>
#ifdef HAVE_WEBP
#include <webp/decode.h>
#include <webp/encode.h>
#endif

#include "common/vg_error.h"
#include "common/vg_reader.h"
#include "common/vg_time.h"
#include "fingerprint/codec/vg_literal.h"
#include "fingerprint/codec/vg_pixmodel.h"
#include "fingerprint/codec/vg_zstream.h"
#include "traces/vg_trace.h"

/* The update's pixels as plain B, G, R bytes, rectangle after rectangle. */
static void plain_pixels(const vg_pixbuf *frame, const vg_rect *rects, size_t n, vg_writer *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		vg_rect q = rects[i];
		int32_t x, y;

		for (y = q.y; y < q.y + q.h; y++) {
			const uint32_t *row = vg_pixbuf_row(frame, y);
			uint8_t *p = vg_writer_reserve(out, (size_t)q.w * 3);

			for (x = q.x; x < q.x + q.w; x++) {
				*p++ = (uint8_t)row[x];
				*p++ = (uint8_t)(row[x] >> 8);
				*p++ = (uint8_t)(row[x] >> 16);
			}
		}
	}
}

static volatile uint8_t sink;

typedef struct {
	const char *name;
	bool literal;   /* vg_literal first, else plain pixels */
	vg_coder coder;
	int level;
	bool webp;      /* instead: lossless WebP, one image per rectangle */
	bool table;     /* vg_literal with the connection's colour table */
	bool model;     /* instead: the pixel model */
} method;

typedef struct {
	uint64_t updates, px_bytes, bytes, enc_ns, dec_ns;
	bool exact;
} result;

#ifdef HAVE_WEBP
/* One rectangle as a lossless WebP image and back; false if the pixels
 * do not come back. scratch holds w x h BGRA pixels. */
static bool webp_rect(const vg_pixbuf *fb, vg_rect q, uint8_t *scratch, result *res)
{
	uint8_t *webp = NULL, *p = scratch;
	uint64_t t0 = vg_time_ns();
	size_t n;
	int32_t x, y;
	bool same = true;

	/* Opaque: WebP may change the colour of transparent pixels. */
	for (y = q.y; y < q.y + q.h; y++) {
		const uint32_t *row = vg_pixbuf_row(fb, y);

		for (x = q.x; x < q.x + q.w; x++) {
			*p++ = (uint8_t)row[x];
			*p++ = (uint8_t)(row[x] >> 8);
			*p++ = (uint8_t)(row[x] >> 16);
			*p++ = 0xff;
		}
	}
	n = WebPEncodeLosslessBGRA(scratch, q.w, q.h, q.w * 4, &webp);
	res->enc_ns += vg_time_ns() - t0;
	if (n == 0)
		return false;
	res->bytes += n;
	t0 = vg_time_ns();
	same = WebPDecodeBGRAInto(webp, n, scratch, (size_t)q.w * q.h * 4, q.w * 4) != NULL;
	res->dec_ns += vg_time_ns() - t0;
	WebPFree(webp);
	p = scratch;
	for (y = q.y; y < q.y + q.h && same; y++) {
		const uint32_t *row = vg_pixbuf_row(fb, y);

		for (x = q.x; x < q.x + q.w; x++, p += 4)
			same = same && (((uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]) == (row[x] & 0xffffff));
	}
	return same;
}
#endif

/* The bytes of rects' pixels at 3 a pixel. */
static uint64_t pixel_bytes(const vg_rect *rects, size_t n)
{
	uint64_t b = 0;
	size_t i;

	for (i = 0; i < n; i++)
		b += (uint64_t)rects[i].w * (uint64_t)rects[i].h * 3;
	return b;
}

/* Whether a and b have the same pixels in every one of rects. */
static bool same_rects(const vg_pixbuf *a, const vg_pixbuf *b, const vg_rect *rects, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		vg_pixbuf va = vg_pixbuf_view(a, rects[i]), vb = vg_pixbuf_view(b, rects[i]);

		if (!vg_pixbuf_equal(&va, &vb))
			return false;
	}
	return true;
}

/* One update by the pixel model: coded, timed, decoded into out. */
static int model_round_trip(vg_pixmodel *enc, vg_pixmodel *dec, const vg_pixbuf *fb,
			    const vg_trace_record *rec, vg_writer *wire, vg_pixbuf *out, result *res)
{
	uint64_t t0 = vg_time_ns();
	size_t i;
	int err;

	if ((err = vg_pixmodel_encode(enc, fb, rec->rects, rec->n_rects, wire)))
		return err;
	res->enc_ns += vg_time_ns() - t0;
	res->bytes += wire->len;
	t0 = vg_time_ns();
	vg_pixmodel_decode_begin(dec, wire->data, wire->len);
	for (i = 0; i < rec->n_rects && !err; i++)
		err = vg_pixmodel_decode_rect(dec, out, rec->rects[i]);
	if (err || (err = vg_pixmodel_decode_end(dec)))
		return err;
	res->dec_ns += vg_time_ns() - t0;
	return VG_OK;
}

/* Codes every update of the trace at path with m, decodes it again and
 * checks the pixels; the trace's own decoding is not timed. */
static int run(const method *m, const char *path, result *res)
{
	vg_trace_reader *tr = NULL;
	vg_trace_record rec;
	vg_literal *lit = NULL;
	vg_pixmodel *pm_enc = NULL, *pm_dec = NULL;
	vg_zout *zo = NULL;
	vg_zin *zi = NULL;
	vg_writer plain, wire;
	vg_pixbuf *fb = NULL, *out = NULL;
	vg_lit_table table;
	uint8_t *buf = NULL;
	size_t cap = 0, n, i;
	int32_t w, h;
	int err, more;

	memset(res, 0, sizeof *res);
	res->exact = true;
	vg_writer_init(&plain);
	vg_writer_init(&wire);
	if ((err = vg_trace_reader_open(path, &tr)) || (err = vg_literal_new(&lit)) ||
	    (err = vg_zout_new(m->coder, m->level, VG_ZSTD_WINDOW_LOG_DEFAULT, &zo)) ||
	    (err = vg_zin_new(m->coder, VG_ZSTD_WINDOW_LOG_DEFAULT, &zi)) ||
	    (m->model && ((err = vg_pixmodel_new(&pm_enc)) || (err = vg_pixmodel_new(&pm_dec)))))
		goto out;
	vg_literal_set_indexed(lit, m->table);
	vg_lit_table_init(&table);
	w = vg_trace_reader_width(tr);
	h = vg_trace_reader_height(tr);
	fb = vg_pixbuf_new(w, h);
	out = vg_pixbuf_new(w, h);
	while ((more = vg_trace_reader_next(tr, &rec, fb)) == 1) {
		uint64_t t0;
		vg_reader rd;

		if (rec.kind != VG_TRACE_FRAME || rec.n_rects == 0)
			continue;
		res->updates++;
#ifdef HAVE_WEBP
		if (m->webp) {
			uint8_t *scratch = g_malloc((size_t)w * h * 4);

			for (i = 0; i < rec.n_rects; i++)
				res->exact = res->exact && webp_rect(fb, rec.rects[i], scratch, res);
			res->px_bytes += pixel_bytes(rec.rects, rec.n_rects);
			g_free(scratch);
			continue;
		}
#endif
		vg_writer_reset(&plain);
		vg_writer_reset(&wire);
		if (m->model) {
			if ((err = model_round_trip(pm_enc, pm_dec, fb, &rec, &wire, out, res)))
				goto out;
			res->px_bytes += pixel_bytes(rec.rects, rec.n_rects);
			res->exact = res->exact && same_rects(fb, out, rec.rects, rec.n_rects);
			continue;
		}
		t0 = vg_time_ns();
		if (m->literal)
			err = vg_literal_encode_list(lit, fb, rec.rects, rec.n_rects, &plain);
		else
			plain_pixels(fb, rec.rects, rec.n_rects, &plain);
		if (err || (err = vg_zout_put(zo, plain.data, plain.len, &wire)))
			goto out;
		res->enc_ns += vg_time_ns() - t0;
		res->bytes += wire.len;
		t0 = vg_time_ns();
		if ((err = vg_zin_get(zi, wire.data, wire.len, &buf, &cap, (size_t)w * h * 4 + 65536, &n)))
			goto out;
		if (m->literal) {
			vg_reader_init(&rd, buf, n);
			for (i = 0; i < rec.n_rects && !err; i++)
				err = vg_literal_decode(&rd, out, rec.rects[i], &table);
			if (err)
				goto out;
		}
		res->dec_ns += vg_time_ns() - t0;
		res->px_bytes += pixel_bytes(rec.rects, rec.n_rects);
		if (m->literal)
			res->exact = res->exact && same_rects(fb, out, rec.rects, rec.n_rects);
		else
			res->exact = res->exact && n == plain.len && memcmp(buf, plain.data, n) == 0;
	}
	if (more < 0)
		err = more;
out:
	g_free(buf);
	vg_zin_free(zi);
	vg_zout_free(zo);
	vg_literal_free(lit);
	vg_pixmodel_free(pm_enc);
	vg_pixmodel_free(pm_dec);
	vg_writer_clear(&plain);
	vg_writer_clear(&wire);
	vg_pixbuf_free(fb);
	vg_pixbuf_free(out);
	vg_trace_reader_free(tr);
	return err;
}

int main(int argc, char **argv)
{
	static const method methods[] = {
		{ "literal+zlib6", true, VG_CODER_ZLIB, 6, false, false, false },
		{ "literal+zstd3", true, VG_CODER_ZSTD, 3, false, false, false },
		{ "literal+zstd9", true, VG_CODER_ZSTD, 9, false, false, false },
		{ "literal+table+zstd9", true, VG_CODER_ZSTD, 9, false, true, false },
		{ "literal+zstd19", true, VG_CODER_ZSTD, 19, false, false, false },
		{ "plain+zlib6", false, VG_CODER_ZLIB, 6, false, false, false },
		{ "plain+zstd9", false, VG_CODER_ZSTD, 9, false, false, false },
		{ "pixmodel", false, VG_CODER_ZLIB, 6, false, false, true },
#ifdef HAVE_WEBP
		{ "webp-lossless", false, VG_CODER_ZLIB, 6, true, false, false },
#endif
	};
	const char *path = argc > 1 ? argv[1] : NULL;
	g_autofree char *def = NULL;
	uint8_t *a, *b;
	uint64_t t0;
	size_t i;
	bool printed_totals = false;

	if (!path) {
		def = g_build_filename(VG_SRCDIR, "traces", "samples", "treeview-scroll.vtr", NULL);
		path = def;
	}
	for (int j = 2; j < argc; j++) {
		for (i = 0; i < G_N_ELEMENTS(methods) && strcmp(argv[j], methods[i].name) != 0; i++)
			;
		if (i == G_N_ELEMENTS(methods)) {
			fprintf(stderr, "bench_literal: no method %s\n", argv[j]);
			return 2;
		}
	}
	for (i = 0; i < G_N_ELEMENTS(methods); i++) {
		result r;
		bool wanted = argc <= 2;

		for (int j = 2; j < argc; j++)
			wanted = wanted || strcmp(argv[j], methods[i].name) == 0;
		if (!wanted)
			continue;
		if (run(&methods[i], path, &r)) {
			fprintf(stderr, "bench_literal: %s: %s failed\n", path, methods[i].name);
			return 1;
		}
		if (!r.exact) {
			fprintf(stderr, "bench_literal: %s does not decode to its input\n", methods[i].name);
			return 1;
		}
		if (r.updates && !printed_totals) {
			printed_totals = true;
			printf("bench literal_updates %" G_GUINT64_FORMAT " updates\n", r.updates);
			printf("bench literal_pixel_bytes %" G_GUINT64_FORMAT " bytes\n", r.px_bytes);
			/* The yardstick: memcpy of as many bytes, 1 MB at a time. */
			a = g_malloc(1 << 20);
			b = g_malloc(1 << 20);
			memset(a, 1, 1 << 20);
			t0 = vg_time_ns();
			for (uint64_t done = 0; done < r.px_bytes; done += 1 << 20) {
				memcpy(b, a, 1 << 20);
				sink ^= b[done % (1 << 20)];
			}
			printf("bench literal_memcpy %.0f MB/s\n",
			       (double)r.px_bytes / 1e6 / ((double)(vg_time_ns() - t0 + 1) / 1e9));
			g_free(a);
			g_free(b);
		}
		printf("bench literal_%s_bytes %" G_GUINT64_FORMAT " bytes\n", methods[i].name, r.bytes);
		printf("bench literal_%s_encode %.1f MB/s\n", methods[i].name,
		       (double)r.px_bytes / 1e6 / ((double)r.enc_ns / 1e9));
		printf("bench literal_%s_decode %.1f MB/s\n", methods[i].name,
		       (double)r.px_bytes / 1e6 / ((double)r.dec_ns / 1e9));
	}
	return 0;
}
