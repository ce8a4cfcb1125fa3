#include <glib.h>
#include <string.h>

#include "common/vg_id.h"
#include "common/vg_sha256.h"

static void hex_of(const uint8_t d[VG_SHA256_LEN], char out[2 * VG_SHA256_LEN + 1])
{
	vg_id_to_hex(d, out);
	vg_id_to_hex(d + 16, out + 32);
}

/* FIPS 180-4's examples. */
static void test_known_answers(void)
{
	static const struct {
		const char *msg;
		const char *digest;
	} kat[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	uint8_t d[VG_SHA256_LEN];
	char hex[2 * VG_SHA256_LEN + 1];
	size_t i;
	char *million;

	for (i = 0; i < G_N_ELEMENTS(kat); i++) {
		vg_sha256(kat[i].msg, strlen(kat[i].msg), d);
		hex_of(d, hex);
		g_assert_cmpstr(hex, ==, kat[i].digest);
	}
	million = g_malloc(1000000);
	memset(million, 'a', 1000000);
	vg_sha256(million, 1000000, d);
	hex_of(d, hex);
	g_assert_cmpstr(hex, ==, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	g_free(million);
}

/* Every length across the padding's edges (55, 56, 64 bytes ...), against
 * GLib's. */
static void test_against_glib(void)
{
	guint8 buf[300];
	uint8_t d[VG_SHA256_LEN];
	char hex[2 * VG_SHA256_LEN + 1];
	size_t n;

	for (n = 0; n < sizeof buf; n++)
		buf[n] = (guint8)(n * 131 + 7);
	for (n = 0; n <= sizeof buf; n++) {
		char *want = g_compute_checksum_for_data(G_CHECKSUM_SHA256, buf, n);

		vg_sha256(buf, n, d);
		hex_of(d, hex);
		g_assert_cmpstr(hex, ==, want);
		g_free(want);
	}
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/sha256/known-answers", test_known_answers);
	g_test_add_func("/sha256/against-glib", test_against_glib);
	return g_test_run();
}
