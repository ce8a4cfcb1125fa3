/* The trace library: round trips, hand-made and damaged traces. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <zlib.h>

#include "common/vg_error.h"
#include "common/vg_writer.h"
#include "traces/vg_trace.h"

#define W 40
#define H 30

static void scene(vg_pixbuf *pb, int k)
{
	int x, y;

	for (y = 0; y < pb->height; y++)
		for (x = 0; x < pb->width; x++)
			vg_pixbuf_row(pb, y)[x] = VG_RGB((x + k) * 7, (y + 2 * k) * 5, (x ^ y) + k);
}

typedef struct {
	char *dir, *path;
	guint8 *bytes;
	gsize len;
	uint64_t hashes[8];
	size_t n_records;     /* without the end record */
	size_t offsets[16];   /* record start offsets, the end record's included */
} fixture;

/* A 3x2 cursor with its hot spot at (2, 1): opaque, translucent
 * (premultiplied) and transparent pixels. */
static const uint32_t cursor_px[6] = { 0xff000000, 0xffffffff, 0x80400000,
				       0x00000000, 0xff123456, 0xff00ff00 };

/* Writes a trace of 4 frames, a pointer, a key, a marker and a cursor, and keeps
 * its bytes and the offset where each record starts. */
static void fixture_make(fixture *fx)
{
	vg_trace_writer *w;
	vg_pixbuf *f = vg_pixbuf_new(W, H);
	vg_rect all = vg_rect_make(0, 0, W, H);
	vg_rect two[2] = { { 0, 0, 8, 8 }, { 30, 20, 10, 10 } };
	vg_trace_reader *r;
	vg_trace_record rec;
	size_t i = 0;

	fx->dir = g_dir_make_tmp("vgtrace-XXXXXX", NULL);
	fx->path = g_build_filename(fx->dir, "t.vtr", NULL);
	g_assert_cmpint(vg_trace_writer_open(fx->path, W, H, &w), ==, 0);
	scene(f, 0);
	fx->hashes[0] = vg_frame_hash(f);
	g_assert_cmpint(vg_trace_writer_frame(w, 0, f, &all, 1), ==, 0);
	g_assert_cmpint(vg_trace_writer_pointer(w, 5, 3, 4, 1), ==, 0);
	scene(f, 1);
	fx->hashes[1] = vg_frame_hash(f);
	g_assert_cmpint(vg_trace_writer_frame(w, 100000000, f, &all, 1), ==, 0);
	g_assert_cmpint(vg_trace_writer_key(w, 100000001, 0xff0d, true), ==, 0);
	vg_pixbuf_fill(f, two[0], 0xff0000);
	vg_pixbuf_fill(f, two[1], 0x00ff00);
	fx->hashes[2] = vg_frame_hash(f);
	g_assert_cmpint(vg_trace_writer_frame(w, 200000000, f, two, 2), ==, 0);
	g_assert_cmpint(vg_trace_writer_marker(w, 200000000, "scroll \xc3\xa9nd"), ==, 0);
	{
		vg_trace_cursor cur = { 3, 2, 2, 1, cursor_px };

		g_assert_cmpint(vg_trace_writer_cursor(w, 250000000, &cur), ==, 0);
	}
	g_assert_cmpint(vg_trace_writer_frame(w, 300000000, f, NULL, 0), ==, 0);
	fx->hashes[3] = fx->hashes[2];
	fx->n_records = vg_trace_writer_records(w);
	g_assert_cmpuint(fx->n_records, ==, 8);
	g_assert_cmpint(vg_trace_writer_close(w), ==, 0);
	vg_pixbuf_free(f);
	g_assert_true(g_file_get_contents(fx->path, (char **)&fx->bytes, &fx->len, NULL));

	g_assert_cmpint(vg_trace_reader_open_memory(fx->bytes, fx->len, &r), ==, 0);
	fx->offsets[i++] = vg_trace_reader_offset(r);
	while (vg_trace_reader_next(r, &rec, NULL) == 1)
		fx->offsets[i++] = vg_trace_reader_offset(r);
	g_assert_cmpuint(i, ==, fx->n_records + 1);
	g_assert_cmpuint(vg_trace_reader_offset(r), ==, fx->len);
	vg_trace_reader_free(r);
}

static void fixture_free(fixture *fx)
{
	g_remove(fx->path);
	g_rmdir(fx->dir);
	g_free(fx->path);
	g_free(fx->dir);
	g_free(fx->bytes);
}

static void test_hash_vectors(void)
{
	uint32_t one[1] = { 0 };
	uint32_t six[6] = { 0x000000, 0xff0000, 0x00ff00, 0x0000ff, 0xffffff, 0x123456 };
	vg_pixbuf a = vg_pixbuf_wrap(one, 1, 1, 1);
	vg_pixbuf b = vg_pixbuf_wrap(six, 3, 2, 3);

	g_assert_cmphex(vg_frame_hash(&a), ==, 0x9c0fa2e9e11da76eull);
	g_assert_cmphex(vg_frame_hash(&b), ==, 0x157efb86f13cbbd7ull);
	/* The top byte does not count. */
	six[5] |= 0xff000000u;
	g_assert_cmphex(vg_frame_hash(&b), ==, 0x157efb86f13cbbd7ull);
}

/* Reads the whole fixture through r and checks every record. */
static void check_records(vg_trace_reader *r, const fixture *fx)
{
	vg_pixbuf *fb = vg_pixbuf_new(W, H), *want = vg_pixbuf_new(W, H);
	vg_trace_record rec;

	g_assert_cmpint(vg_trace_reader_width(r), ==, W);
	g_assert_cmpint(vg_trace_reader_height(r), ==, H);
	g_assert_cmpuint(vg_trace_reader_version(r), ==, VG_TRACE_VERSION);
	vg_pixbuf_fill(fb, vg_pixbuf_rect(fb), 0x777777); /* cleared by the reader */

	g_assert_cmpint(vg_trace_reader_next(r, &rec, fb), ==, 1);
	g_assert_cmpint(rec.kind, ==, VG_TRACE_FRAME);
	g_assert_cmpuint(rec.index, ==, 0);
	g_assert_cmpuint(rec.n_rects, ==, 1);
	g_assert_cmphex(rec.frame_hash, ==, fx->hashes[0]);
	scene(want, 0);
	g_assert_true(vg_pixbuf_equal(fb, want));

	g_assert_cmpint(vg_trace_reader_next(r, &rec, fb), ==, 1);
	g_assert_cmpint(rec.kind, ==, VG_TRACE_INPUT);
	g_assert_cmpint(rec.input, ==, VG_TRACE_POINTER);
	g_assert_cmpint(rec.x, ==, 3);
	g_assert_cmpint(rec.y, ==, 4);
	g_assert_cmpuint(rec.buttons, ==, 1);
	g_assert_cmpuint(rec.t_ns, ==, 5);

	g_assert_cmpint(vg_trace_reader_next(r, &rec, fb), ==, 1);
	scene(want, 1);
	g_assert_true(vg_pixbuf_equal(fb, want));
	g_assert_cmpuint(rec.t_ns, ==, 100000000);

	g_assert_cmpint(vg_trace_reader_next(r, &rec, fb), ==, 1);
	g_assert_cmpint(rec.input, ==, VG_TRACE_KEY);
	g_assert_cmphex(rec.keysym, ==, 0xff0d);
	g_assert_true(rec.down);

	g_assert_cmpint(vg_trace_reader_next(r, &rec, fb), ==, 1);
	g_assert_cmpuint(rec.n_rects, ==, 2);
	g_assert_true(vg_rect_equal(rec.rects[1], vg_rect_make(30, 20, 10, 10)));
	vg_pixbuf_fill(want, rec.rects[0], 0xff0000);
	vg_pixbuf_fill(want, rec.rects[1], 0x00ff00);
	g_assert_true(vg_pixbuf_equal(fb, want));
	g_assert_cmphex(vg_frame_hash(fb), ==, fx->hashes[2]);

	g_assert_cmpint(vg_trace_reader_next(r, &rec, fb), ==, 1);
	g_assert_cmpint(rec.kind, ==, VG_TRACE_MARKER);
	g_assert_cmpstr(rec.text, ==, "scroll \xc3\xa9nd");
	g_assert_cmpuint(rec.text_len, ==, 11);

	g_assert_cmpint(vg_trace_reader_next(r, &rec, fb), ==, 1);
	g_assert_cmpint(rec.kind, ==, VG_TRACE_CURSOR);
	g_assert_cmpuint(rec.t_ns, ==, 250000000);
	g_assert_cmpint(rec.cursor.width, ==, 3);
	g_assert_cmpint(rec.cursor.height, ==, 2);
	g_assert_cmpint(rec.cursor.hot_x, ==, 2);
	g_assert_cmpint(rec.cursor.hot_y, ==, 1);
	g_assert_cmpmem(rec.cursor.pixels, 6 * 4, cursor_px, sizeof cursor_px);

	g_assert_cmpint(vg_trace_reader_next(r, &rec, fb), ==, 1);
	g_assert_cmpuint(rec.n_rects, ==, 0);
	g_assert_cmpuint(rec.index, ==, 7);
	g_assert_true(vg_pixbuf_equal(fb, want));

	g_assert_cmpint(vg_trace_reader_next(r, &rec, fb), ==, 0);
	g_assert_cmpint(vg_trace_reader_next(r, &rec, fb), ==, 0);
	g_assert_cmpstr(vg_trace_reader_error_text(r), ==, "");
	vg_pixbuf_free(fb);
	vg_pixbuf_free(want);
}

static void test_round_trip(void)
{
	fixture fx;
	vg_trace_reader *r;

	fixture_make(&fx);
	g_assert_cmpint(vg_trace_reader_open(fx.path, &r), ==, 0);
	check_records(r, &fx);
	g_assert_cmpint(vg_trace_reader_rewind(r), ==, 0);
	check_records(r, &fx);
	vg_trace_reader_free(r);

	g_assert_cmpint(vg_trace_reader_open_memory(fx.bytes, fx.len, &r), ==, 0);
	check_records(r, &fx);
	g_assert_cmpint(vg_trace_reader_rewind(r), ==, 0);
	check_records(r, &fx);
	vg_trace_reader_free(r);
	fixture_free(&fx);
}

/* Reads bytes to the end; returns the first failure (or 0) and counts the
 * records read before it. */
static int read_all(const guint8 *bytes, size_t len, size_t *good, char **errtext)
{
	vg_pixbuf *fb = vg_pixbuf_new(W, H);
	vg_trace_reader *r;
	vg_trace_record rec;
	int err;

	*good = 0;
	err = vg_trace_reader_open_memory(bytes, len, &r);
	if (err == 0) {
		while ((err = vg_trace_reader_next(r, &rec, fb)) == 1)
			(*good)++;
		if (errtext)
			*errtext = g_strdup(vg_trace_reader_error_text(r));
		vg_trace_reader_free(r);
	} else if (errtext) {
		*errtext = g_strdup("");
	}
	vg_pixbuf_free(fb);
	return err;
}

/* The record that holds byte pos. */
static size_t record_at(const fixture *fx, size_t pos)
{
	size_t i;

	for (i = 0; i < fx->n_records; i++)
		if (pos < fx->offsets[i + 1])
			return i;
	return fx->n_records;
}

static void test_truncated(void)
{
	fixture fx;
	size_t len, good;

	fixture_make(&fx);
	for (len = 0; len < fx.len; len++) {
		g_autofree char *text = NULL;
		int err = read_all(fx.bytes, len, &good, &text);

		if (len < fx.offsets[0]) {
			g_assert_cmpint(err, ==, len == 0 ? VG_EFORMAT : VG_ETRUNC);
			continue;
		}
		/* Every record wholly inside the prefix is read, then the cut is
		 * named by record number and offset. */
		{
			size_t k = record_at(&fx, len);
			g_autofree char *want = g_strdup_printf("record %zu at offset %zu:", k, fx.offsets[k]);

			g_assert_cmpint(err, ==, VG_ETRUNC);
			g_assert_cmpuint(good, ==, k);
			g_assert_nonnull(strstr(text, want));
		}
	}
	/* The same through a file, cut at every record boundary. */
	for (size_t k = 0; k <= fx.n_records; k++) {
		vg_trace_reader *r;
		vg_trace_record rec;
		size_t n = 0;

		g_assert_true(g_file_set_contents(fx.path, (char *)fx.bytes, (gssize)fx.offsets[k], NULL));
		g_assert_cmpint(vg_trace_reader_open(fx.path, &r), ==, 0);
		while (vg_trace_reader_next(r, &rec, NULL) == 1)
			n++;
		g_assert_cmpuint(n, ==, k);
		g_assert_cmpint(vg_trace_reader_next(r, &rec, NULL), ==, VG_ETRUNC);
		vg_trace_reader_free(r);
	}
	fixture_free(&fx);
}

static void test_flipped(void)
{
	fixture fx;
	size_t pos, good;
	int bit;

	fixture_make(&fx);
	for (pos = 0; pos < fx.len; pos++) {
		for (bit = 0; bit < 8; bit += 3) {
			g_autofree char *text = NULL;
			int err;

			fx.bytes[pos] ^= (guint8)(1u << bit);
			err = read_all(fx.bytes, fx.len, &good, &text);
			fx.bytes[pos] ^= (guint8)(1u << bit);
			g_assert_cmpint(err, <, 0);
			if (pos < fx.offsets[0]) {
				g_assert_cmpuint(good, ==, 0);
			} else {
				size_t k = record_at(&fx, pos);
				g_autofree char *want = g_strdup_printf("record %zu at offset %zu:", k, fx.offsets[k]);

				g_assert_cmpuint(good, ==, k);
				g_assert_nonnull(strstr(text, want));
			}
		}
	}
	fixture_free(&fx);
}

/* Builds a record with a correct checksum. */
static void put_record(vg_writer *wr, uint8_t kind, uint8_t flags, uint64_t t, const void *body,
		       size_t len)
{
	size_t start = wr->len;

	vg_writer_u32le(wr, (uint32_t)len);
	vg_writer_u8(wr, kind);
	vg_writer_u8(wr, flags);
	vg_writer_u16le(wr, 0);
	vg_writer_u64le(wr, t);
	vg_writer_bytes(wr, body, len);
	vg_writer_u32le(wr, (uint32_t)crc32(0, wr->data + start, (uInt)(wr->len - start)));
}

static void put_header(vg_writer *wr, uint32_t w, uint32_t h)
{
	vg_writer_bytes(wr, "\x89VTR\r\n\x1a\n", 8);
	vg_writer_u16le(wr, 1);
	vg_writer_u16le(wr, 36);
	vg_writer_u32le(wr, w);
	vg_writer_u32le(wr, h);
	vg_writer_u32le(wr, 1);
	vg_writer_u64le(wr, 0);
	vg_writer_u32le(wr, (uint32_t)crc32(0, wr->data, (uInt)wr->len));
}

static void put_end(vg_writer *wr, uint64_t n, uint64_t t)
{
	guint8 b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (guint8)(n >> (8 * i));
	put_record(wr, 4, 0, t, b, 8);
}

/* A frame body: rects (x, y, w, h quadruples), then raw bytes deflated. */
static void frame_body(vg_writer *body, const uint16_t *rects, uint32_t n, size_t raw)
{
	g_autofree guint8 *pixels = g_malloc0(raw + 1);
	uLongf zlen = compressBound((uLong)raw);
	guint8 *z;

	vg_writer_u32le(body, n);
	vg_writer_u64le(body, 0);
	for (uint32_t i = 0; i < 4 * n; i++)
		vg_writer_u16le(body, rects[i]);
	z = vg_writer_reserve(body, zlen);
	g_assert_cmpint(compress(z, &zlen, pixels, (uLong)raw), ==, Z_OK);
	body->len -= compressBound((uLong)raw) - zlen;
}

static int read_made(vg_writer *wr, size_t *good, char **text)
{
	return read_all(wr->data, wr->len, good, text);
}

static void test_hand_made(void)
{
	static const uint16_t inside[4] = { 2, 2, 4, 4 }, outside[4] = { 38, 0, 4, 4 };
	static const uint16_t empty[4] = { 0, 0, 0, 4 }, over[8] = { 0, 0, 40, 30, 0, 0, 40, 30 };
	vg_writer wr, body;
	size_t good;
	char *text;

	vg_writer_init(&wr);
	vg_writer_init(&body);

	/* An unknown kind is skipped, a required unknown kind stops. */
	put_header(&wr, W, H);
	put_record(&wr, 99, 0, 0, "future", 6);
	put_record(&wr, 3, 0, 1, "hi", 2);
	put_end(&wr, 2, 1);
	g_assert_cmpint(read_made(&wr, &good, &text), ==, 0);
	g_assert_cmpuint(good, ==, 1);
	g_free(text);
	vg_writer_reset(&wr);
	put_header(&wr, W, H);
	put_record(&wr, 99, 1, 0, "future", 6);
	put_end(&wr, 1, 0);
	g_assert_cmpint(read_made(&wr, &good, &text), ==, VG_ENOTSUP);
	g_assert_nonnull(strstr(text, "record 0 at offset 36"));
	g_free(text);

	/* A length claiming gigabytes is refused before anything is read. */
	vg_writer_reset(&wr);
	put_header(&wr, W, H);
	vg_writer_u32le(&wr, 0xfffffff0u);
	vg_writer_u8(&wr, 1);
	vg_writer_bytes(&wr, "\0\0\0\0\0\0\0\0\0\0\0", 11);
	g_assert_cmpint(read_made(&wr, &good, &text), ==, VG_ERANGE);
	g_free(text);

	/* Checked frames: good, outside, empty, overlapping past the area,
	 * too little and too much pixel data. */
	struct {
		const uint16_t *rects;
		uint32_t n;
		size_t raw;
		int want;
	} cases[] = {
		{ inside, 1, 64, 0 },
		{ outside, 1, 64, VG_ERANGE },
		{ empty, 1, 0, VG_ERANGE },
		{ over, 2, 2 * W * H * 4, VG_ERANGE },
		{ inside, 1, 63, VG_ECORRUPT },
		{ inside, 1, 65, VG_ECORRUPT },
		{ inside, 1, 0, VG_ECORRUPT },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		vg_writer_reset(&wr);
		vg_writer_reset(&body);
		put_header(&wr, W, H);
		frame_body(&body, cases[i].rects, cases[i].n, cases[i].raw);
		put_record(&wr, 1, 0, 0, body.data, body.len);
		put_end(&wr, 1, 0);
		/* The hash field is 0, so verification fails on a good frame:
		 * read without it. */
		{
			vg_trace_reader *r;
			vg_trace_record rec;
			vg_pixbuf *fb = vg_pixbuf_new(W, H);
			int err;

			g_assert_cmpint(vg_trace_reader_open_memory(wr.data, wr.len, &r), ==, 0);
			vg_trace_reader_set_verify(r, false);
			err = vg_trace_reader_next(r, &rec, fb);
			g_assert_cmpint(err, ==, cases[i].want ? cases[i].want : 1);
			if (cases[i].want)
				g_assert_nonnull(strstr(vg_trace_reader_error_text(r), "record 0 at offset 36"));
			vg_trace_reader_free(r);
			vg_pixbuf_free(fb);
		}
		/* With verification the good one fails on its hash. */
		if (cases[i].want == 0) {
			g_assert_cmpint(read_made(&wr, &good, &text), ==, VG_ECORRUPT);
			g_assert_nonnull(strstr(text, "hash"));
			g_free(text);
		}
	}

	/* Cursor records: good, cut, empty, too wide, hot spot outside,
	 * pixels short or long. Each is checked before its pixels are used. */
	struct {
		uint16_t w, h, hx, hy;
		size_t pixels;
		int want;
		const char *says;
	} curs[] = {
		{ 2, 2, 1, 1, 4, 1, NULL },
		{ 256, 256, 255, 0, 65536, 1, NULL },
		{ 0, 2, 0, 0, 0, VG_ERANGE, "cursor size" },
		{ 257, 1, 0, 0, 257, VG_ERANGE, "cursor size" },
		{ 2, 2, 2, 0, 4, VG_ERANGE, "hot spot" },
		{ 2, 2, 0, 2, 4, VG_ERANGE, "hot spot" },
		{ 2, 2, 0, 0, 3, VG_ECORRUPT, "cursor pixels" },
		{ 2, 2, 0, 0, 5, VG_ECORRUPT, "cursor pixels" },
		{ 2, 2, 0, 0, (size_t)-1, VG_ECORRUPT, "too short" },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(curs); i++) {
		vg_writer_reset(&wr);
		vg_writer_reset(&body);
		put_header(&wr, W, H);
		vg_writer_u16le(&body, curs[i].w);
		vg_writer_u16le(&body, curs[i].h);
		vg_writer_u16le(&body, curs[i].hx);
		if (curs[i].pixels != (size_t)-1) {
			vg_writer_u16le(&body, curs[i].hy);
			for (size_t k = 0; k < curs[i].pixels; k++)
				vg_writer_u32le(&body, 0xff000000u | (uint32_t)k);
		}
		put_record(&wr, 5, 0, 0, body.data, body.len);
		put_end(&wr, 1, 0);
		g_assert_cmpint(read_made(&wr, &good, &text), ==, curs[i].want == 1 ? 0 : curs[i].want);
		g_assert_cmpuint(good, ==, curs[i].want == 1 ? 1 : 0);
		if (curs[i].says) {
			g_assert_nonnull(strstr(text, "record 0 at offset 36"));
			g_assert_nonnull(strstr(text, curs[i].says));
		}
		g_free(text);
	}

	/* Time may not run backwards; bytes after the end are refused. */
	vg_writer_reset(&wr);
	put_header(&wr, W, H);
	put_record(&wr, 3, 0, 10, "a", 1);
	put_record(&wr, 3, 0, 9, "b", 1);
	g_assert_cmpint(read_made(&wr, &good, &text), ==, VG_ECORRUPT);
	g_assert_cmpuint(good, ==, 1);
	g_free(text);
	vg_writer_reset(&wr);
	put_header(&wr, W, H);
	put_end(&wr, 0, 0);
	vg_writer_u8(&wr, 0);
	g_assert_cmpint(read_made(&wr, &good, &text), ==, VG_ECORRUPT);
	g_free(text);

	/* Headers: newer version, huge size, not a trace. */
	vg_writer_reset(&wr);
	put_header(&wr, 100000, 10);
	g_assert_cmpint(read_made(&wr, &good, &text), ==, VG_ERANGE);
	g_free(text);
	wr.data[8] = 2;
	g_assert_cmpint(read_made(&wr, &good, &text), ==, VG_ENOTSUP);
	g_free(text);
	g_assert_cmpint(read_all((const guint8 *)"P6\n1 1\n255\nabc", 14, &good, &text), ==, VG_EFORMAT);
	g_free(text);

	vg_writer_clear(&wr);
	vg_writer_clear(&body);
}

/* A big geometry and a record claiming a gigabyte in a short file: the
 * reader fails with ETRUNC and never allocates what the length says (ASan
 * and the test's memory would notice). */
static void test_huge_claim_file(void)
{
	g_autofree char *dir = g_dir_make_tmp("vgtrace-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "big.vtr", NULL);
	vg_trace_reader *r;
	vg_trace_record rec;
	vg_writer wr;

	vg_writer_init(&wr);
	put_header(&wr, VG_MAX_DIM, VG_MAX_DIM);
	vg_writer_u32le(&wr, 0x40000000u);
	vg_writer_u8(&wr, 1);
	vg_writer_bytes(&wr, "\0\0\0\0\0\0\0\0\0\0\0", 11);
	vg_writer_bytes(&wr, "tiny", 4);
	g_assert_true(g_file_set_contents(path, (char *)wr.data, (gssize)wr.len, NULL));
	g_assert_cmpint(vg_trace_reader_open(path, &r), ==, 0);
	g_assert_cmpint(vg_trace_reader_next(r, &rec, NULL), ==, VG_ETRUNC);
	g_assert_nonnull(strstr(vg_trace_reader_error_text(r), "record 0 at offset 36"));
	vg_trace_reader_free(r);
	vg_writer_clear(&wr);
	g_remove(path);
	g_rmdir(dir);
}

static void test_writer_errors(void)
{
	g_autofree char *dir = g_dir_make_tmp("vgtrace-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "w.vtr", NULL);
	vg_pixbuf *f = vg_pixbuf_new(W, H), *g = vg_pixbuf_new(W + 1, H);
	vg_rect out = vg_rect_make(35, 0, 10, 10), ok = vg_rect_make(0, 0, 5, 5);
	vg_trace_writer *w;

	g_assert_cmpint(vg_trace_writer_open(path, 0, 10, &w), ==, VG_ERANGE);
	g_assert_null(w);
	g_assert_cmpint(vg_trace_writer_open("/nonexistent/dir/x.vtr", 10, 10, &w), ==, VG_ENOENT);
	g_assert_cmpint(vg_trace_writer_open(path, W, H, &w), ==, 0);
	g_assert_cmpint(vg_trace_writer_frame(w, 10, f, &out, 1), ==, VG_EINVAL);
	g_assert_cmpint(vg_trace_writer_frame(w, 10, g, &ok, 1), ==, VG_EINVAL);
	g_assert_cmpint(vg_trace_writer_frame(w, 10, f, &ok, 1), ==, 0);
	g_assert_cmpint(vg_trace_writer_frame(w, 9, f, &ok, 1), ==, VG_EINVAL);
	g_assert_cmpint(vg_trace_writer_pointer(w, 10, W, 0, 0), ==, VG_EINVAL);
	g_assert_cmpint(vg_trace_writer_marker(w, 10, "\xff"), ==, VG_EINVAL);
	{
		static const uint32_t px[2] = { 0xff000000u, 0 };
		vg_trace_cursor bad_hot = { 2, 1, 0, 1, px }, bad_size = { 0, 1, 0, 0, px };
		vg_trace_cursor too_big = { VG_TRACE_MAX_CURSOR + 1, 1, 0, 0, px };

		g_assert_cmpint(vg_trace_writer_cursor(w, 10, &bad_hot), ==, VG_EINVAL);
		g_assert_cmpint(vg_trace_writer_cursor(w, 10, &bad_size), ==, VG_EINVAL);
		g_assert_cmpint(vg_trace_writer_cursor(w, 10, &too_big), ==, VG_EINVAL);
		bad_hot.hot_y = 0;
		g_assert_cmpint(vg_trace_writer_cursor(w, 9, &bad_hot), ==, VG_EINVAL);
	}
	g_assert_cmpint(vg_trace_writer_set_level(w, 10), ==, VG_EINVAL);
	g_assert_cmpint(vg_trace_writer_set_level(w, 0), ==, 0);
	g_assert_cmpint(vg_trace_writer_frame(w, 11, f, &ok, 1), ==, 0);
	g_assert_cmpuint(vg_trace_writer_records(w), ==, 2);
	g_assert_cmpint(vg_trace_writer_close(w), ==, 0);
	vg_trace_writer_close(NULL);
	vg_trace_writer_abandon(NULL);
	vg_trace_reader_free(NULL);
	vg_pixbuf_free(f);
	vg_pixbuf_free(g);
	g_remove(path);
	g_rmdir(dir);
}

static void test_open_errors(void)
{
	vg_trace_reader *r;
	vg_pixbuf *fb = vg_pixbuf_new(W + 1, H);
	vg_trace_record rec;
	fixture fx;

	g_assert_cmpint(vg_trace_reader_open("/nonexistent/x.vtr", &r), ==, VG_ENOENT);
	g_assert_null(r);
	g_assert_cmpint(vg_trace_reader_open_memory(NULL, 0, &r), ==, VG_EFORMAT);
	fixture_make(&fx);
	g_assert_cmpint(vg_trace_reader_open_memory(fx.bytes, fx.len, &r), ==, 0);
	g_assert_cmpint(vg_trace_reader_next(r, &rec, fb), ==, VG_EINVAL);
	g_assert_cmpint(vg_trace_reader_next(r, &rec, NULL), ==, 1);
	vg_trace_reader_free(r);
	fixture_free(&fx);
	vg_pixbuf_free(fb);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/trace/hash-vectors", test_hash_vectors);
	g_test_add_func("/trace/round-trip", test_round_trip);
	g_test_add_func("/trace/truncated", test_truncated);
	g_test_add_func("/trace/flipped", test_flipped);
	g_test_add_func("/trace/hand-made", test_hand_made);
	g_test_add_func("/trace/huge-claim-file", test_huge_claim_file);
	g_test_add_func("/trace/writer-errors", test_writer_errors);
	g_test_add_func("/trace/open-errors", test_open_errors);
	return g_test_run();
}
