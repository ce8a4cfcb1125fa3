/* Test vectors of protocol 1.0 (doc/protocol.md, *Test vectors*): small
 * known pictures and their exact coded bytes, kept in tests/vectors/NAME.vec
 * (GLib key files: a group per vector, pixels as 0xRRGGBB words row by
 * row, bytes as hex). Each is checked both ways: the encoder gives
 * exactly the stored bytes, and the decoder turns the stored bytes into
 * exactly the stored picture; so a change of coding cannot pass
 * unnoticed. With VG_UPDATE_VECTORS=1 in the environment the encoders
 * write the files instead (then read the differences before committing).
 *
 * UPDATE bodies hold zstd chunks, whose bytes depend on the compressor:
 * the vectors keep their decompressed contents (the plain structure and
 * the plain literal blocks), which the sender's chunks must decompress
 * to, and which any zstd compressor may frame for the decoder. */
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <zstd.h>

#include "common/vg_error.h"
#include "common/vg_reader.h"
#include "common/vg_seghash.h"
#include "fingerprint/codec/vg_literal.h"
#include "fingerprint/codec/vg_pixmodel.h"
#include "fingerprint/codec/vg_sha1.h"
#include "fingerprint/codec/vg_zstream.h"
#include "fingerprint/proto/vg_cursorlist.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/proto/vg_receiver.h"
#include "fingerprint/proto/vg_sender.h"
#include "tests/vg_protopair.h"

/* One file of vectors, open for checking or, when regenerating, for
 * writing. */
typedef struct {
	GKeyFile *kf;
	char *path;
	bool write;
} vecfile;

static void vec_open(vecfile *v, const char *name)
{
	const char *top = g_getenv("VG_TOP_SRCDIR");
	GError *err = NULL;

	v->kf = g_key_file_new();
	v->path = g_strdup_printf("%s/tests/vectors/%s.vec", top ? top : ".", name);
	v->write = g_strcmp0(g_getenv("VG_UPDATE_VECTORS"), "1") == 0;
	if (!v->write && !g_key_file_load_from_file(v->kf, v->path, G_KEY_FILE_KEEP_COMMENTS, &err))
		g_error("%s: %s", v->path, err->message);
}

static void vec_close(vecfile *v, const char *comment)
{
	GError *err = NULL;

	if (v->write) {
		g_assert_true(g_key_file_set_comment(v->kf, NULL, NULL, comment, &err));
		g_assert_true(g_key_file_save_to_file(v->kf, v->path, &err));
	}
	g_key_file_free(v->kf);
	g_free(v->path);
}

static char *hex_of(const uint8_t *b, size_t n)
{
	GString *s = g_string_new(NULL);
	size_t i;

	for (i = 0; i < n; i++)
		g_string_append_printf(s, i ? " %02x" : "%02x", b[i]);
	return g_string_free(s, FALSE);
}

/* The bytes stored under group/key. */
static GByteArray *vec_bytes(vecfile *v, const char *group, const char *key)
{
	g_autofree char *text = g_key_file_get_string(v->kf, group, key, NULL);
	g_auto(GStrv) words = NULL;
	GByteArray *out = g_byte_array_new();
	size_t i;

	g_assert_nonnull(text);
	words = g_strsplit_set(text, " \t", -1);
	for (i = 0; words[i]; i++) {
		char *end;
		unsigned long b;

		if (!*words[i])
			continue;
		b = strtoul(words[i], &end, 16);
		g_assert_true(*end == '\0' && b <= 0xff);
		g_byte_array_append(out, (const guint8 *)&(guint8){ (guint8)b }, 1);
	}
	return out;
}

/* The encoder gave got[0..n): stored when writing, else compared. */
static void vec_check_bytes(vecfile *v, const char *group, const char *key, const uint8_t *got,
			    size_t n)
{
	GByteArray *want;

	if (v->write) {
		g_autofree char *hex = hex_of(got, n);

		g_key_file_set_string(v->kf, group, key, hex);
		return;
	}
	want = vec_bytes(v, group, key);
	g_test_message("%s %s: %zu bytes", group, key, n);
	g_assert_cmpmem(got, n, want->data, want->len);
	g_byte_array_unref(want);
}

/* The picture under group/key: stored from pb when writing; else read
 * and compared with pb (the input the encoder is given must be the one
 * the file shows). */
static void vec_check_pixels(vecfile *v, const char *group, const char *key, const vg_pixbuf *pb)
{
	g_autofree char *text = NULL;
	GString *s;
	int32_t x, y;

	s = g_string_new(NULL);
	for (y = 0; y < pb->height; y++)
		for (x = 0; x < pb->width; x++)
			g_string_append_printf(s, s->len ? " %06x" : "%06x",
					       (unsigned)vg_pixbuf_row(pb, y)[x]);
	if (v->write) {
		g_key_file_set_integer(v->kf, group, "width", pb->width);
		g_key_file_set_integer(v->kf, group, "height", pb->height);
		g_key_file_set_string(v->kf, group, key, s->str);
	} else {
		text = g_key_file_get_string(v->kf, group, key, NULL);
		g_assert_cmpint(g_key_file_get_integer(v->kf, group, "width", NULL), ==, pb->width);
		g_assert_cmpint(g_key_file_get_integer(v->kf, group, "height", NULL), ==, pb->height);
		g_assert_cmpstr(text, ==, s->str);
	}
	g_string_free(s, TRUE);
}

/* A picture of w x h from a list of 0xRRGGBB words. */
static vg_pixbuf *picture(int32_t w, int32_t h, const uint32_t *px)
{
	vg_pixbuf *pb = vg_pixbuf_new(w, h);
	int32_t y;

	for (y = 0; y < h; y++)
		memcpy(vg_pixbuf_row(pb, y), px + (size_t)y * (size_t)w, (size_t)w * 4);
	return pb;
}

/* ---- literal blocks ---------------------------------------------------- */

static void literal_vector(vecfile *v, const char *group, vg_literal *enc, vg_lit_table *table,
			   const vg_pixbuf *pb, vg_lit_method method, const char *key)
{
	vg_pixbuf *out = vg_pixbuf_new(pb->width, pb->height);
	vg_writer w;
	GByteArray *block;
	vg_reader rd;

	vg_writer_init(&w);
	g_assert_cmpint(vg_literal_encode_as(enc, pb, vg_pixbuf_rect(pb), method, &w), ==, 0);
	g_assert_cmpuint(w.data[0], ==, method);
	vec_check_bytes(v, group, key, w.data, w.len);
	if (!v->write) {
		block = vec_bytes(v, group, key);
		vg_reader_init(&rd, block->data, block->len);
		g_assert_cmpint(vg_literal_decode(&rd, out, vg_pixbuf_rect(out), table), ==, 0);
		g_assert_cmpuint(vg_reader_remaining(&rd), ==, 0);
		g_assert_true(vg_pixbuf_equal(out, pb));
		g_byte_array_unref(block);
	}
	vg_writer_clear(&w);
	vg_pixbuf_free(out);
}

/* One block of each method, and a second INDEXED block that reuses the
 * colour table the first filled. */
static void test_literal_vectors(void)
{
	static const uint32_t raw[] = { 0x102030, 0x405060, 0x708090, 0xa0b0c0 };
	static const uint32_t ramp[] = { 0x000000, 0x101010, 0x202020, 0x080808, 0x181818, 0x282828 };
	static const uint32_t two[] = { 0xffffff, 0x000000, 0x000000, 0xffffff,
					0xffffff, 0xffffff, 0x000000, 0xffffff };
	static const uint32_t runs[] = { 0x336699, 0x336699, 0x336699, 0x336699,
					 0xcc0000, 0x336699, 0x336699, 0x336699 };
	static const uint32_t glyph[] = { 0xffffff, 0x000000, 0x808080, 0xffffff,
					  0xffffff, 0x808080, 0x000000, 0xffffff };
	static const uint32_t glyph2[] = { 0x000000, 0xffffff, 0xffffff, 0x0000ff };
	static const struct {
		const char *group;
		int32_t w, h;
		const uint32_t *px;
		vg_lit_method method;
	} cases[] = {
		{ "raw", 2, 2, raw, VG_LIT_RAW },
		{ "predict", 3, 2, ramp, VG_LIT_PREDICT },
		{ "palette", 4, 2, two, VG_LIT_PALETTE },
		{ "palette-rle", 8, 1, runs, VG_LIT_PALETTE_RLE },
		{ "indexed", 4, 2, glyph, VG_LIT_INDEXED },
	};
	vg_lit_table table;
	vg_literal *enc;
	vg_pixbuf *pb;
	vecfile v;
	size_t i;

	vec_open(&v, "literal");
	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_assert_cmpint(vg_literal_new(&enc), ==, 0);
		vg_literal_set_indexed(enc, cases[i].method == VG_LIT_INDEXED);
		vg_lit_table_init(&table);
		pb = picture(cases[i].w, cases[i].h, cases[i].px);
		vec_check_pixels(&v, cases[i].group, "pixels", pb);
		literal_vector(&v, cases[i].group, enc, &table, pb, cases[i].method, "block");
		vg_pixbuf_free(pb);
		if (cases[i].method == VG_LIT_INDEXED) {
			/* The same connection's next block: one new colour. */
			g_assert_cmpuint(table.filled, ==, v.write ? 0 : 3);
			pb = picture(2, 2, glyph2);
			vec_check_pixels(&v, "indexed-next", "pixels", pb);
			literal_vector(&v, "indexed-next", enc, &table, pb, VG_LIT_INDEXED, "block");
			g_assert_cmpuint(table.filled, ==, v.write ? 0 : 4);
			vg_pixbuf_free(pb);
		}
		vg_literal_free(enc);
	}
	vec_close(&v, " Literal blocks (doc/protocol.md, Literal blocks): each group's pixels\n"
		      " (0xRRGGBB, row by row) and the block that codes them, method byte first.\n"
		      " indexed-next follows indexed on the same connection (colour table).");
}

/* ---- the pixel model ----------------------------------------------------- */

/* One chunk of frame's segments rects, coded by a fresh model, checked
 * against group of the pixel model's vectors both ways. stored: the
 * vectors as stored, when they are of this revision (NULL: none, or
 * another's, which the bytes may leave). */
static void check_pixmodel_chunk(vecfile *v, vecfile *stored, const char *group, const vg_pixbuf *frame,
				 const vg_rect *rects, size_t n)
{
	vg_pixbuf *out = vg_pixbuf_new(frame->width, frame->height);
	vg_pixmodel *enc, *dec;
	GByteArray *chunk;
	vg_writer w;
	size_t i;

	vec_check_pixels(v, group, "pixels", frame);
	g_assert_cmpint(vg_pixmodel_new(&enc), ==, 0);
	vg_writer_init(&w);
	g_assert_cmpint(vg_pixmodel_encode(enc, frame, rects, n, &w), ==, 0);
	/* New bytes need a new revision: viewers of the old one must not
	 * be coded for by this model (vg_pixmodel.h). */
	if (stored) {
		g_autoptr(GByteArray) old = vec_bytes(stored, group, "chunk");

		if (old->len != w.len || memcmp(old->data, w.data, w.len) != 0)
			g_error("%s: the pixel model codes this chunk otherwise than revision %d did: "
				"raise VG_PIXMODEL_REVISION, then VG_UPDATE_VECTORS=1 to store the new bytes",
				group, VG_PIXMODEL_REVISION);
	}
	vec_check_bytes(v, group, "chunk", w.data, w.len);
	if (!v->write) {
		chunk = vec_bytes(v, group, "chunk");
		g_assert_cmpint(vg_pixmodel_new(&dec), ==, 0);
		vg_pixmodel_decode_begin(dec, chunk->data, chunk->len);
		for (i = 0; i < n; i++)
			g_assert_cmpint(vg_pixmodel_decode_rect(dec, out, rects[i]), ==, 0);
		g_assert_cmpint(vg_pixmodel_decode_end(dec), ==, 0);
		g_assert_true(vg_pixbuf_equal(out, frame));
		vg_pixmodel_free(dec);
		g_byte_array_unref(chunk);
	}
	vg_writer_clear(&w);
	vg_pixmodel_free(enc);
	vg_pixbuf_free(out);
}

/* Chunks from a fresh model: a glyph of two colours (contexts) and a
 * gradient (prediction) side by side in one frame; a heat map's cells
 * (runs). */
static void test_pixmodel_vectors(void)
{
	static const uint32_t scale[5] = { 0x2c7bb6, 0xabd9e9, 0xffffbf, 0xfdae61, 0xd7191c };
	vg_pixbuf *frame = vg_pixbuf_new(16, 8), *cells = vg_pixbuf_new(24, 12);
	vg_rect rects[2] = { vg_rect_make(0, 0, 8, 8), vg_rect_make(8, 0, 8, 8) };
	vg_rect whole = vg_rect_make(0, 0, 24, 12);
	vecfile v, old = { 0 }, *stored = NULL;
	int32_t x, y;

	for (y = 0; y < 8; y++)
		for (x = 0; x < 8; x++) {
			bool ink = x == 2 || y == 6 || (x + y == 8);

			vg_pixbuf_row(frame, y)[x] = ink ? 0x202020 : 0xf0f0f0;
			vg_pixbuf_row(frame, y)[8 + x] =
				(uint32_t)(x * 29 + y * 3) << 16 | (uint32_t)(y * 31) << 8 | (uint32_t)(x * y * 4);
		}
	/* Cells 12 x 4, their colours on a scale. */
	for (y = 0; y < 12; y++)
		for (x = 0; x < 24; x++)
			vg_pixbuf_row(cells, y)[x] = scale[(x / 12 * 3 + y / 4 * 2) % 5];
	vec_open(&v, "pixmodel");
	/* The revision the bytes are of: this model's when checking. When
	 * writing, the file as it was, whose bytes must stay if its
	 * revision is this one. */
	if (!v.write) {
		g_assert_cmpint(g_key_file_get_integer(v.kf, "model", "revision", NULL), ==, VG_PIXMODEL_REVISION);
		stored = &v;
	} else {
		old.kf = g_key_file_new();
		if (g_key_file_load_from_file(old.kf, v.path, G_KEY_FILE_NONE, NULL) &&
		    g_key_file_get_integer(old.kf, "model", "revision", NULL) == VG_PIXMODEL_REVISION)
			stored = &old;
	}
	check_pixmodel_chunk(&v, stored, "glyph-and-gradient", frame, rects, 2);
	check_pixmodel_chunk(&v, stored, "cells", cells, &whole, 1);
	if (v.write) {
		g_key_file_set_integer(v.kf, "model", "revision", VG_PIXMODEL_REVISION);
		g_key_file_free(old.kf);
	}
	vec_close(&v, " The pixel model (doc/protocol.md, The pixel model): each group a frame\n"
		      " whose segments (glyph-and-gradient: 0,0 8x8 then 8,0 8x8; cells: the\n"
		      " whole 24x12 frame) are coded in that order by a fresh model into one\n"
		      " chunk (an UPDATE's pixel chunk when its head says so). The group\n"
		      " model names the revision (VG_PIXMODEL_REVISION) the bytes are of.");
	vg_pixbuf_free(frame);
	vg_pixbuf_free(cells);
}

/* ---- SHA-1 of a group ---------------------------------------------------- */

/* Two segments of a group: the digest of their pixels, each segment's
 * rows in order, 4 bytes a pixel, 0x00RRGGBB little-endian. */
static void test_sha1_vectors(void)
{
	static const uint32_t px[] = { 0x616263, 0x000001, 0xff8000, 0x123456,
				       0x0000ff, 0xabcdef, 0x010203, 0xfedcba };
	vg_pixbuf *pb = picture(4, 2, px);
	uint8_t digest[VG_SHA1_LEN], bytes[4 * 6];
	vg_sha1 *h;
	vecfile v;
	size_t i, k = 0;

	vec_open(&v, "sha1");
	vec_check_pixels(&v, "group", "pixels", pb);
	/* Segment 1: 0,0 2x2; segment 2: 2,0 2x1. */
	g_assert_cmpint(vg_sha1_new(&h), ==, 0);
	g_assert_cmpint(vg_sha1_update_rect(h, pb, vg_rect_make(0, 0, 2, 2)), ==, 0);
	g_assert_cmpint(vg_sha1_update_rect(h, pb, vg_rect_make(2, 0, 2, 1)), ==, 0);
	g_assert_cmpint(vg_sha1_final(h, digest), ==, 0);
	vec_check_bytes(&v, "group", "digest", digest, sizeof digest);
	/* The same digest over the bytes as the specification lays them out. */
	{
		static const int at[6][2] = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 1 }, { 2, 0 }, { 3, 0 } };
		uint8_t again[VG_SHA1_LEN];

		for (i = 0; i < 6; i++) {
			uint32_t p = vg_pixbuf_row(pb, at[i][1])[at[i][0]];

			bytes[k++] = (uint8_t)p;
			bytes[k++] = (uint8_t)(p >> 8);
			bytes[k++] = (uint8_t)(p >> 16);
			bytes[k++] = 0;
		}
		g_assert_cmpint(vg_sha1_digest(bytes, sizeof bytes, again), ==, 0);
		g_assert_cmpmem(again, sizeof again, digest, sizeof digest);
	}
	vec_close(&v, " A CHECK's digest (doc/protocol.md, Groups and CHECK): the group's segments\n"
		      " are 0,0 2x2 and 2,0 2x1 of this 4 x 2 picture.");
	vg_sha1_free(h);
	vg_pixbuf_free(pb);
}

/* ---- CURSOR ------------------------------------------------------------- */

/* A 2 x 2 shape, hot spot 1,0, with a translucent pixel, then the same
 * shape again. The zstd frame depends on the compressor: the file gives
 * the bytes before it and the pixels it must decompress to; the
 * encoder's frame must decompress to them, and the same bytes compressed
 * by any zstd must read as the shape. */
static void test_cursor_vectors(void)
{
	static const uint32_t argb[] = { 0xff102030, 0x80404000, 0x00000000, 0xffffffff };
	vg_cursor_shape shape = { 2, 2, 1, 0, argb }, got;
	vg_cursorlist *tx, *rx;
	GByteArray *head, *raw;
	uint8_t plain[sizeof argb], z[256];
	size_t z_len, n;
	vg_writer w;
	vecfile v;

	vec_open(&v, "cursor");
	g_assert_cmpint(vg_cursorlist_new(&tx), ==, VG_OK);
	g_assert_cmpint(vg_cursorlist_new(&rx), ==, VG_OK);
	vg_writer_init(&w);
	g_assert_cmpint(vg_cursorlist_encode(tx, &shape, &w), ==, VG_OK);
	n = 6;
	vec_check_bytes(&v, "new", "head", w.data, n);
	g_assert_cmpuint(ZSTD_decompress(plain, sizeof plain, w.data + n, w.len - n), ==, sizeof plain);
	vec_check_bytes(&v, "new", "pixels", plain, sizeof plain);
	/* The file's bytes, compressed here, read as the shape. */
	if (!v.write) {
		head = vec_bytes(&v, "new", "head");
		raw = vec_bytes(&v, "new", "pixels");
		z_len = ZSTD_compress(z, sizeof z, raw->data, raw->len, 1);
		g_assert_false(ZSTD_isError(z_len));
		g_byte_array_append(head, z, (guint)z_len);
		g_assert_cmpint(vg_cursorlist_decode(rx, head->data, head->len, &got), ==, VG_OK);
		g_assert_cmpint(got.width, ==, 2);
		g_assert_cmpint(got.hot_x, ==, 1);
		g_assert_cmpmem(got.argb, sizeof argb, argb, sizeof argb);
		g_byte_array_unref(head);
		g_byte_array_unref(raw);
	}
	vg_writer_reset(&w);
	g_assert_cmpint(vg_cursorlist_encode(tx, &shape, &w), ==, VG_OK);
	vec_check_bytes(&v, "again", "body", w.data, w.len);
	vec_close(&v, " CURSOR bodies (doc/protocol.md, CURSOR): a 2 x 2 shape, hot spot 1,0, new\n"
		      " (the bytes before the zstd frame, and the pixels the frame holds), then\n"
		      " the same shape again (its place in the list).");
	vg_writer_clear(&w);
	vg_cursorlist_free(tx);
	vg_cursorlist_free(rx);
}

/* ---- UPDATE bodies ------------------------------------------------------- */

#define SERVER_ID "vectors-server-1"

/* A VIEWER HELLO of 1.0 naming the cache all 0x42, 16 MiB, window 2^20. */
static void viewer_hello(uint8_t out[36])
{
	memset(out, 0, 36);
	out[0] = VG_VMSG_HELLO;
	out[1] = VG_PROTO_VERSION;
	memset(out + 2, 0x42, 16);
	out[18 + 4] = 1; /* 2^24 bytes, big-endian u64 */
	out[35] = VG_ZSTD_WINDOW_LOG_MIN;
}

static void sender_config(vg_sender_config *cfg)
{
	vg_sender_config_init(cfg);
	cfg->group_size = 2;
	cfg->pixmodel = false;
	cfg->zstd_window_log = VG_ZSTD_WINDOW_LOG_MIN;
	memcpy(cfg->server_id, SERVER_ID, 16);
}

/* Paints rows y .. y + 7 of a 16-wide frame one colour. */
static void band(vg_pixbuf *fb, int32_t y, uint32_t colour)
{
	vg_pixbuf_fill(fb, vg_rect_make(0, y, 16, 8), colour);
}

static vg_segdesc band_seg(const vg_pixbuf *fb, int32_t y)
{
	return vg_pair_seg(fb, vg_rect_make(0, y, 16, 8), VG_ORIENT_ROWS);
}

/* An UPDATE body's parts. */
typedef struct {
	uint64_t head;
	const uint8_t *digests, *structure, *pixels;
	size_t n_digests, s_len, p_len;
} update_parts;

static void split_update(const uint8_t *body, size_t len, update_parts *u)
{
	vg_reader rd;
	uint64_t s_len;

	vg_reader_init(&rd, body, len);
	g_assert_cmpuint(body[0], ==, VG_MSG_UPDATE);
	rd.pos = 1;
	g_assert_cmpint(vg_reader_uleb(&rd, &u->head), ==, 0);
	u->n_digests = (size_t)(u->head >> 1);
	g_assert_cmpint(vg_reader_ptr(&rd, u->n_digests * VG_SHA1_LEN, &u->digests), ==, 0);
	g_assert_cmpint(vg_reader_uleb(&rd, &s_len), ==, 0);
	u->s_len = (size_t)s_len;
	g_assert_cmpint(vg_reader_ptr(&rd, u->s_len, &u->structure), ==, 0);
	u->p_len = vg_reader_remaining(&rd);
	g_assert_cmpint(vg_reader_ptr(&rd, u->p_len, &u->pixels), ==, 0);
}

/* Checks one update the sender wrote in wire against group: its head,
 * digests, the structure and literal blocks its chunks decompress to. */
static void check_update(vecfile *v, const char *group, const vg_writer *wire, vg_zin *zs,
			 vg_zin *zpix)
{
	update_parts u;
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;
	vg_writer hw;

	split_update(wire->data, wire->len, &u);
	vg_writer_init(&hw);
	vg_writer_uleb(&hw, u.head);
	vec_check_bytes(v, group, "head", hw.data, hw.len);
	vg_writer_clear(&hw);
	vec_check_bytes(v, group, "digests", u.digests, u.n_digests * VG_SHA1_LEN);
	g_assert_cmpint(vg_zin_get(zs, u.structure, u.s_len, &buf, &cap, 1 << 20, &n), ==, 0);
	vec_check_bytes(v, group, "structure", buf, n);
	n = 0;
	if (u.p_len)
		g_assert_cmpint(vg_zin_get(zpix, u.pixels, u.p_len, &buf, &cap, 1 << 20, &n), ==, 0);
	vec_check_bytes(v, group, "literal", buf, n);
	g_free(buf);
}

/* The body a decoder gets for group: the stored parts, the structure and
 * literal blocks through any zstd compressor (here level 1). */
static void body_of(vecfile *v, const char *group, vg_zout *zs, vg_zout *zpix, vg_writer *out)
{
	GByteArray *head = vec_bytes(v, group, "head"), *dig = vec_bytes(v, group, "digests");
	GByteArray *st = vec_bytes(v, group, "structure"), *lit = vec_bytes(v, group, "literal");
	vg_writer chunk;

	vg_writer_init(&chunk);
	vg_writer_reset(out);
	vg_writer_u8(out, VG_MSG_UPDATE);
	vg_writer_bytes(out, head->data, head->len);
	vg_writer_bytes(out, dig->data, dig->len);
	g_assert_cmpint(vg_zout_put(zs, st->data, st->len, &chunk), ==, 0);
	vg_writer_uleb(out, chunk.len);
	vg_writer_bytes(out, chunk.data, chunk.len);
	if (lit->len)
		g_assert_cmpint(vg_zout_put(zpix, lit->data, lit->len, out), ==, 0);
	vg_writer_clear(&chunk);
	g_byte_array_unref(head);
	g_byte_array_unref(dig);
	g_byte_array_unref(st);
	g_byte_array_unref(lit);
}

/* A connection whose viewer's cache holds A and B from an earlier session
 * and whose server believes so (it saved its beliefs, not its history):
 *   update 1: rows 0-7 A, 8-15 B, 16-23 A, 24-31 C (new): FINGERPRINT A,
 *     FINGERPRINT B, CHECK, FINGERPRINT A, LITERAL C, CHECK;
 *   update 2: rows 16-23 MOVEd from rows 0-7 (dy 16), rows 0-7 B and 8-15
 *     A: one REPEAT of the window's items 1 and 2; rows 24-31 unchanged.
 * The encoder's bodies must decompress to the stored parts; the stored
 * parts, compressed afresh, must draw the stored pictures. */
static void test_update_vectors(void)
{
	const uint32_t A = 0x2060a0, B = 0xe0c010, C = 0x11aa44;
	static const char *const groups[] = { "update-1", "update-2" };
	vg_sender_config cfg;
	vg_sender *s1, *s2;
	vg_receiver_config rcfg;
	vg_receiver *r;
	vg_pixbuf *fb = vg_pixbuf_new(16, 32), *seen = vg_pixbuf_new(16, 32), *a, *b;
	vg_writer wire, reply, image;
	vg_zin *zs, *zpix;
	vg_zout *zos, *zopix;
	uint8_t vhello[36];
	vg_segdesc segs[4];
	vg_move move = { vg_rect_make(0, 16, 16, 8), 0, 16 };
	vg_receiver_stats rs;
	vecfile v;
	int k;

	vec_open(&v, "update");
	vg_writer_init(&wire);
	vg_writer_init(&reply);
	vg_writer_init(&image);
	viewer_hello(vhello);
	a = vg_pixbuf_new(16, 8);
	b = vg_pixbuf_new(16, 8);
	vg_pixbuf_fill(a, vg_pixbuf_rect(a), A);
	vg_pixbuf_fill(b, vg_pixbuf_rect(b), B);

	/* The earlier session: A and B as pixels; its beliefs saved. */
	sender_config(&cfg);
	g_assert_cmpint(vg_sender_new(&cfg, &s1), ==, 0);
	vg_sender_hello(s1, &wire);
	g_assert_cmpint(vg_sender_handle(s1, vhello, sizeof vhello, 16, 32, NULL), ==, 0);
	band(fb, 0, A);
	band(fb, 8, B);
	segs[0] = band_seg(fb, 0);
	segs[1] = band_seg(fb, 8);
	g_assert_cmpint(vg_sender_update(s1, fb, segs, 2, NULL, &wire), ==, 0);
	vg_sender_save_beliefs(s1, 1 << 20, &image);
	vg_sender_free(s1);

	/* This session: the server loads them; the viewer's cache has A, B. */
	g_assert_cmpint(vg_sender_new(&cfg, &s2), ==, 0);
	vg_writer_reset(&wire);
	vg_sender_hello(s2, &wire);
	vg_receiver_config_init(&rcfg);
	rcfg.memory_budget = 16u << 20;
	rcfg.zstd_window_log = VG_ZSTD_WINDOW_LOG_MIN;
	g_assert_cmpint(vg_receiver_new(&rcfg, &r), ==, 0);
	g_assert_cmpint(vg_receiver_handle(r, wire.data, wire.len, seen, &reply), ==, 0);
	g_assert_cmpint(vg_sender_handle(s2, vhello, sizeof vhello, 16, 32, NULL), ==, 0);
	g_assert_cmpint(vg_sender_load_beliefs(s2, image.data, image.len), ==, 0);
	g_assert_cmpint(vg_receiver_seed_cache(r, vg_fp_key(vg_seghash(a, VG_ORIENT_ROWS),
							    VG_FP_BITS_DEFAULT), a), ==, 0);
	g_assert_cmpint(vg_receiver_seed_cache(r, vg_fp_key(vg_seghash(b, VG_ORIENT_ROWS),
							    VG_FP_BITS_DEFAULT), b), ==, 0);
	g_assert_cmpint(vg_zin_new(VG_CODER_ZSTD, VG_ZSTD_WINDOW_LOG_MIN, &zs), ==, 0);
	g_assert_cmpint(vg_zin_new(VG_CODER_ZSTD, VG_ZSTD_WINDOW_LOG_MIN, &zpix), ==, 0);
	g_assert_cmpint(vg_zout_new(VG_CODER_ZSTD, 1, VG_ZSTD_WINDOW_LOG_MIN, &zos), ==, 0);
	g_assert_cmpint(vg_zout_new(VG_CODER_ZSTD, 1, VG_ZSTD_WINDOW_LOG_MIN, &zopix), ==, 0);

	for (k = 0; k < 2; k++) {
		vg_sender_stats ss;

		vg_writer_reset(&wire);
		if (k == 0) {
			band(fb, 16, A);
			band(fb, 24, C);
			for (int i = 0; i < 4; i++)
				segs[i] = band_seg(fb, 8 * i);
			g_assert_cmpint(vg_sender_update(s2, fb, segs, 4, NULL, &wire), ==, 0);
			vg_sender_get_stats(s2, &ss);
			g_assert_cmpuint(ss.fingerprint_segments, ==, 3);
			g_assert_cmpuint(ss.checks, ==, 2);
			g_assert_cmpuint(ss.literal_segments, ==, 1);
		} else {
			/* Rows 16-23 stay A: the viewer copies them from 0-7. */
			band(fb, 0, B);
			band(fb, 8, A);
			segs[0] = band_seg(fb, 0);
			segs[1] = band_seg(fb, 8);
			g_assert_cmpint(vg_sender_update_moves(s2, fb, &move, 1, segs, 2, NULL, &wire), ==, 0);
			vg_sender_get_stats(s2, &ss);
			g_assert_cmpuint(ss.repeats, ==, 1);
			g_assert_cmpuint(ss.repeated_segments, ==, 2);
		}
		vec_check_pixels(&v, groups[k], "picture", fb);
		check_update(&v, groups[k], &wire, zs, zpix);
		/* The encoder's own body draws the picture too. */
		g_assert_cmpint(vg_receiver_handle(r, wire.data, wire.len, seen, &reply), ==, 0);
		g_assert_true(vg_pixbuf_equal(seen, fb));
	}
	vg_receiver_get_stats(r, &rs);
	g_assert_cmpuint(rs.check_failures, ==, 0);
	g_assert_cmpuint(rs.cache_misses, ==, 0);
	g_assert_cmpuint(rs.moves, ==, 1);
	vg_receiver_free(r);

	/* The stored parts, compressed afresh, to a viewer in the same state. */
	if (!v.write) {
		vg_pixbuf_free(seen);
		seen = vg_pixbuf_new(16, 32);
		vg_writer_reset(&wire);
		vg_writer_reset(&reply);
		vg_sender_hello(s2, &wire);
		g_assert_cmpint(vg_receiver_new(&rcfg, &r), ==, 0);
		g_assert_cmpint(vg_receiver_handle(r, wire.data, wire.len, seen, &reply), ==, 0);
		g_assert_cmpint(vg_receiver_seed_cache(r, vg_fp_key(vg_seghash(a, VG_ORIENT_ROWS),
								    VG_FP_BITS_DEFAULT), a), ==, 0);
		g_assert_cmpint(vg_receiver_seed_cache(r, vg_fp_key(vg_seghash(b, VG_ORIENT_ROWS),
								    VG_FP_BITS_DEFAULT), b), ==, 0);
		for (k = 0; k < 2; k++) {
			vg_pixbuf *want = vg_pixbuf_new(16, 32);
			g_autofree char *text = g_key_file_get_string(v.kf, groups[k], "picture", NULL);
			g_auto(GStrv) words = g_strsplit(text, " ", -1);
			int32_t i;

			for (i = 0; i < 16 * 32; i++)
				vg_pixbuf_row(want, i / 16)[i % 16] = (uint32_t)strtoul(words[i], NULL, 16);
			body_of(&v, groups[k], zos, zopix, &wire);
			vg_writer_reset(&reply);
			g_assert_cmpint(vg_receiver_handle(r, wire.data, wire.len, seen, &reply), ==, 0);
			g_assert_cmpuint(reply.len, ==, 0); /* no repair */
			g_assert_true(vg_pixbuf_equal(seen, want));
			vg_pixbuf_free(want);
		}
		vg_receiver_free(r);
	}
	vec_close(&v, " UPDATE bodies (doc/protocol.md, UPDATE and Test vectors): 16 x 32, fingerprints\n"
		      " of 40 bits, groups of 2, literal methods. Server identity \"" SERVER_ID "\";\n"
		      " the viewer's cache holds the 16x8 segments of colours 2060a0 and e0c010 from\n"
		      " an earlier session, which the server believes; window and history start empty.\n"
		      " Each group: head (the uleb after the kind), digests, the structure and the\n"
		      " literal blocks as they decompress, and the picture after the update.");
	vg_zin_free(zs);
	vg_zin_free(zpix);
	vg_zout_free(zos);
	vg_zout_free(zopix);
	vg_sender_free(s2);
	vg_writer_clear(&wire);
	vg_writer_clear(&reply);
	vg_writer_clear(&image);
	vg_pixbuf_free(fb);
	vg_pixbuf_free(seen);
	vg_pixbuf_free(a);
	vg_pixbuf_free(b);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/protocol/vectors/literal", test_literal_vectors);
	g_test_add_func("/protocol/vectors/pixmodel", test_pixmodel_vectors);
	g_test_add_func("/protocol/vectors/sha1", test_sha1_vectors);
	g_test_add_func("/protocol/vectors/cursor", test_cursor_vectors);
	g_test_add_func("/protocol/vectors/update", test_update_vectors);
	return g_test_run();
}
