/* The plain-C SHA-1 of the WebAssembly build (viewer/web/vg_sha1_portable.c,
 * linked here instead of fingerprint/codec/vg_sha1.c): the FIPS 180-1 vectors, and
 * the same digests as OpenSSL's on random data fed in random pieces. */
#include <glib.h>
#include <openssl/evp.h>
#include <string.h>

#include "common/vg_error.h"
#include "fingerprint/codec/vg_sha1.h"

static void hex(const uint8_t d[VG_SHA1_LEN], char out[2 * VG_SHA1_LEN + 1])
{
	int i;

	for (i = 0; i < VG_SHA1_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void check_digest(const void *data, size_t len, const char *want)
{
	uint8_t d[VG_SHA1_LEN];
	char text[2 * VG_SHA1_LEN + 1];

	g_assert_cmpint(vg_sha1_digest(data, len, d), ==, VG_OK);
	hex(d, text);
	g_assert_cmpstr(text, ==, want);
}

static void openssl_sha1(const void *data, size_t len, uint8_t out[VG_SHA1_LEN])
{
	unsigned int n = 0;

	g_assert_cmpint(EVP_Digest(data, len, out, &n, EVP_sha1(), NULL), ==, 1);
	g_assert_cmpuint(n, ==, VG_SHA1_LEN);
}

static void test_vectors(void)
{
	static const char two_blocks[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	vg_sha1 *h;
	uint8_t d[VG_SHA1_LEN];
	char text[2 * VG_SHA1_LEN + 1];
	char a[1000];
	int i;

	check_digest("abc", 3, "a9993e364706816aba3e25717850c26c9cd0d89d");
	check_digest("", 0, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
	check_digest(two_blocks, strlen(two_blocks), "84983e441c3bd26ebaae4aa1f95129e5e54670f1");

	/* A million 'a's, in pieces of 1000. */
	memset(a, 'a', sizeof a);
	g_assert_cmpint(vg_sha1_new(&h), ==, VG_OK);
	for (i = 0; i < 1000; i++)
		g_assert_cmpint(vg_sha1_update(h, a, sizeof a), ==, VG_OK);
	g_assert_cmpint(vg_sha1_final(h, d), ==, VG_OK);
	hex(d, text);
	g_assert_cmpstr(text, ==, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");

	/* final starts a new digest; reset forgets what was given. */
	g_assert_cmpint(vg_sha1_update(h, "abc", 3), ==, VG_OK);
	g_assert_cmpint(vg_sha1_final(h, d), ==, VG_OK);
	hex(d, text);
	g_assert_cmpstr(text, ==, "a9993e364706816aba3e25717850c26c9cd0d89d");
	g_assert_cmpint(vg_sha1_update(h, "xyz", 3), ==, VG_OK);
	g_assert_cmpint(vg_sha1_reset(h), ==, VG_OK);
	g_assert_cmpint(vg_sha1_final(h, d), ==, VG_OK);
	hex(d, text);
	g_assert_cmpstr(text, ==, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
	vg_sha1_free(h);
	vg_sha1_free(NULL);
}

/* Random lengths 0..5000, fed in random pieces (empty ones included),
 * against OpenSSL. */
static void test_against_openssl(void)
{
	GRand *rng = g_rand_new_with_seed(20240601);
	uint8_t *buf = g_malloc(5000);
	vg_sha1 *h;
	int round;

	g_assert_cmpint(vg_sha1_new(&h), ==, VG_OK);
	for (round = 0; round < 2000; round++) {
		size_t len = round < 200 ? (size_t)round : (size_t)g_rand_int_range(rng, 0, 5001);
		size_t at = 0;
		uint8_t want[VG_SHA1_LEN], got[VG_SHA1_LEN];
		size_t i;

		for (i = 0; i < len; i++)
			buf[i] = (uint8_t)g_rand_int(rng);
		openssl_sha1(buf, len, want);
		while (at < len) {
			size_t piece = (size_t)g_rand_int_range(rng, 0, 200);

			if (g_rand_boolean(rng))
				piece = (size_t)g_rand_int_range(rng, 0, 3);
			piece = MIN(piece, len - at);
			g_assert_cmpint(vg_sha1_update(h, buf + at, piece), ==, VG_OK);
			at += piece;
		}
		g_assert_cmpint(vg_sha1_final(h, got), ==, VG_OK);
		g_assert_cmpmem(got, VG_SHA1_LEN, want, VG_SHA1_LEN);

		g_assert_cmpint(vg_sha1_digest(buf, len, got), ==, VG_OK);
		g_assert_cmpmem(got, VG_SHA1_LEN, want, VG_SHA1_LEN);
	}
	vg_sha1_free(h);
	g_free(buf);
	g_rand_free(rng);
}

/* A rectangle of a pixel buffer hashes as its rows' bytes, 4 a pixel in
 * memory order: whole-width rectangles (one contiguous run) and inner
 * ones, and VG_ERANGE for one outside. */
static void test_update_rect(void)
{
	static const vg_rect rects[] = {
		{ 0, 0, 37, 23 }, { 0, 5, 37, 7 }, { 3, 4, 10, 9 }, { 36, 22, 1, 1 }, { 0, 0, 1, 23 },
	};
	vg_pixbuf *pb = vg_pixbuf_new(37, 23);
	vg_pixbuf view;
	vg_sha1 *h;
	size_t k;
	int32_t x, y;

	for (y = 0; y < pb->height; y++)
		for (x = 0; x < pb->width; x++)
			vg_pixbuf_row(pb, y)[x] = VG_RGB(x * 7, y * 11, x ^ y);
	g_assert_cmpint(vg_sha1_new(&h), ==, VG_OK);
	for (k = 0; k < G_N_ELEMENTS(rects); k++) {
		vg_rect r = rects[k];
		GByteArray *bytes = g_byte_array_new();
		uint8_t want[VG_SHA1_LEN], got[VG_SHA1_LEN];

		for (y = r.y; y < r.y + r.h; y++)
			g_byte_array_append(bytes, (const guint8 *)(vg_pixbuf_row(pb, y) + r.x),
					    (guint)r.w * 4);
		openssl_sha1(bytes->data, bytes->len, want);
		g_assert_cmpint(vg_sha1_update_rect(h, pb, r), ==, VG_OK);
		g_assert_cmpint(vg_sha1_final(h, got), ==, VG_OK);
		g_assert_cmpmem(got, VG_SHA1_LEN, want, VG_SHA1_LEN);
		g_byte_array_unref(bytes);
	}
	/* A view: its stride is not its width. */
	view = vg_pixbuf_view(pb, vg_rect_make(2, 3, 20, 10));
	{
		uint8_t want[VG_SHA1_LEN], got[VG_SHA1_LEN];
		GByteArray *bytes = g_byte_array_new();

		for (y = 0; y < view.height; y++)
			g_byte_array_append(bytes, (const guint8 *)vg_pixbuf_row(&view, y),
					    (guint)view.width * 4);
		openssl_sha1(bytes->data, bytes->len, want);
		g_assert_cmpint(vg_sha1_update_rect(h, &view, vg_pixbuf_rect(&view)), ==, VG_OK);
		g_assert_cmpint(vg_sha1_final(h, got), ==, VG_OK);
		g_assert_cmpmem(got, VG_SHA1_LEN, want, VG_SHA1_LEN);
		g_byte_array_unref(bytes);
	}
	g_assert_cmpint(vg_sha1_update_rect(h, pb, vg_rect_make(30, 0, 8, 1)), ==, VG_ERANGE);
	vg_sha1_free(h);
	vg_pixbuf_free(pb);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/sha1-portable/vectors", test_vectors);
	g_test_add_func("/sha1-portable/against-openssl", test_against_openssl);
	g_test_add_func("/sha1-portable/update-rect", test_update_rect);
	return g_test_run();
}
