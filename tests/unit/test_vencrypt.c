/* vg_vencrypt: both ends against each other, the bytes the specification
 * prescribes, and malformed input from either side. */
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_vencrypt.h"

static const uint8_t T_VC[] = {VG_RFB_SEC_VENCRYPT};
static const uint8_t T_VC_VNC[] = {VG_RFB_SEC_VENCRYPT, VG_RFB_SEC_VNC};
static const uint8_t T_VNC[] = {VG_RFB_SEC_VNC};
static const uint8_t T_NONE[] = {VG_RFB_SEC_NONE};
static const uint32_t S_SERVER[] = {VG_VENCRYPT_X509VNC, VG_VENCRYPT_X509NONE};
static const uint32_t S_CLIENT[] = {VG_VENCRYPT_X509NONE, VG_VENCRYPT_X509VNC};
static const uint32_t S_PLAINONLY[] = {VG_VENCRYPT_TLSPLAIN};

static vg_vencrypt *make(vg_vencrypt_role role, int minor, const uint8_t *t, size_t nt,
			 const uint32_t *s, size_t ns, const char *reason)
{
	vg_vencrypt_config cfg = {.rfb_minor = minor, .types = t, .n_types = nt,
				  .subtypes = s, .n_subtypes = ns, .reason = reason};
	vg_vencrypt *v = NULL;
	g_assert_cmpint(vg_vencrypt_new(role, &cfg, &v), ==, 0);
	g_assert_nonnull(v);
	return v;
}

/* Moves a's output into b, at most chunk bytes per feed. Returns the
 * bytes moved. */
static size_t shuttle(vg_vencrypt *a, vg_vencrypt *b, size_t chunk)
{
	size_t len, moved = 0;
	const uint8_t *o = vg_vencrypt_output(a, &len);
	GByteArray *copy = g_byte_array_new();
	g_byte_array_append(copy, o, (guint)len);
	vg_vencrypt_output_drop(a, len);
	while (moved < copy->len && vg_vencrypt_status_get(b) == VG_VENCRYPT_RUNNING) {
		size_t n = MIN(chunk, copy->len - moved), used = 0;
		vg_vencrypt_feed(b, copy->data + moved, n, &used);
		g_assert_cmpuint(used, <=, n);
		moved += used;
		if (used < n)
			break;
	}
	g_byte_array_unref(copy);
	return moved;
}

/* Runs the two until neither moves. */
static void run(vg_vencrypt *srv, vg_vencrypt *cli, size_t chunk)
{
	for (int i = 0; i < 64; i++) {
		size_t m = shuttle(srv, cli, chunk) + shuttle(cli, srv, chunk);
		if (m == 0)
			break;
	}
}

static void test_x509_pair(void)
{
	for (size_t chunk = 1; chunk <= 64; chunk *= 4) {
		vg_vencrypt *s = make(VG_VENCRYPT_SERVER, 0, T_VC, 1, S_SERVER, 2, NULL);
		vg_vencrypt *c = make(VG_VENCRYPT_CLIENT, 0, T_VC_VNC, 2, S_CLIENT, 2, NULL);
		run(s, c, chunk);
		vg_vencrypt_result rs, rc;
		g_assert_cmpint(vg_vencrypt_status_get(s), ==, VG_VENCRYPT_DONE);
		g_assert_cmpint(vg_vencrypt_status_get(c), ==, VG_VENCRYPT_DONE);
		g_assert_cmpint(vg_vencrypt_result_get(s, &rs), ==, 0);
		g_assert_cmpint(vg_vencrypt_result_get(c, &rc), ==, 0);
		g_assert_cmpint(rs.rfb_minor, ==, 8);
		g_assert_cmpint(rs.type, ==, VG_RFB_SEC_VENCRYPT);
		/* The client's preference wins among what is offered. */
		g_assert_cmpuint(rs.subtype, ==, VG_VENCRYPT_X509NONE);
		g_assert_cmpuint(rc.subtype, ==, VG_VENCRYPT_X509NONE);
		g_assert_cmpuint(vg_vencrypt_want(s), ==, 0);
		g_assert_cmpstr(vg_vencrypt_error(s), ==, "");
		vg_vencrypt_free(s);
		vg_vencrypt_free(c);
	}
}

static void expect_out(vg_vencrypt *v, const void *bytes, size_t n)
{
	size_t len;
	const uint8_t *o = vg_vencrypt_output(v, &len);
	g_assert_cmpmem(o, len, bytes, n);
	vg_vencrypt_output_drop(v, len);
}

static void feed_all(vg_vencrypt *v, const void *bytes, size_t n, int want_rc)
{
	size_t used = 0;
	g_assert_cmpint(vg_vencrypt_feed(v, bytes, n, &used), ==, want_rc);
	g_assert_cmpuint(used, ==, n);
}

/* The server's bytes, step by step, as RFB 3.8 and VeNCrypt 0.2 say. */
static void test_server_bytes(void)
{
	vg_vencrypt *s = make(VG_VENCRYPT_SERVER, 0, T_VC, 1, S_SERVER, 2, NULL);
	expect_out(s, "RFB 003.008\n", 12);
	g_assert_cmpuint(vg_vencrypt_want(s), ==, 12);
	feed_all(s, "RFB 003.008\n", 12, 0);
	expect_out(s, "\x01\x13", 2);
	g_assert_cmpuint(vg_vencrypt_want(s), ==, 1);
	feed_all(s, "\x13", 1, 0);
	expect_out(s, "\x00\x02", 2);
	feed_all(s, "\x00\x02", 2, 0);
	expect_out(s, "\x00\x02\x00\x00\x01\x05\x00\x00\x01\x04", 10);
	g_assert_cmpuint(vg_vencrypt_want(s), ==, 4);
	/* The TLS ClientHello may follow at once: it is left alone. */
	size_t used = 0;
	g_assert_cmpint(vg_vencrypt_feed(s, (const uint8_t *)"\x00\x00\x01\x05\x16\x03\x01", 7, &used), ==, 0);
	g_assert_cmpuint(used, ==, 4);
	expect_out(s, "\x01", 1);
	g_assert_cmpint(vg_vencrypt_status_get(s), ==, VG_VENCRYPT_DONE);
	vg_vencrypt_free(s);
}

/* The client's bytes against a server's, including the start-TLS byte. */
static void test_client_bytes(void)
{
	vg_vencrypt *c = make(VG_VENCRYPT_CLIENT, 0, T_VC, 1, S_CLIENT, 2, NULL);
	size_t len;
	vg_vencrypt_output(c, &len);
	g_assert_cmpuint(len, ==, 0);
	feed_all(c, "RFB 003.889\n", 12, 0);
	expect_out(c, "RFB 003.008\n", 12);
	feed_all(c, "\x02\x02\x13", 3, 0);
	expect_out(c, "\x13", 1);
	feed_all(c, "\x00\x03", 2, 0);
	expect_out(c, "\x00\x02", 2);
	feed_all(c, "\x00\x02\x00\x00\x01\x05\x00\x00\x01\x04", 10, 0);
	expect_out(c, "\x00\x00\x01\x04", 4);
	g_assert_cmpint(vg_vencrypt_status_get(c), ==, VG_VENCRYPT_RUNNING);
	feed_all(c, "\x01", 1, 0);
	g_assert_cmpint(vg_vencrypt_status_get(c), ==, VG_VENCRYPT_DONE);
	vg_vencrypt_free(c);

	/* A refusal of the subtype. */
	c = make(VG_VENCRYPT_CLIENT, 0, T_VC, 1, S_CLIENT, 2, NULL);
	feed_all(c, "RFB 003.008\n\x01\x13\x00\x02\x00\x01\x00\x00\x01\x04\x00", 23, VG_EAUTH);
	g_assert_nonnull(strstr(vg_vencrypt_error(c), "X509None"));
	vg_vencrypt_free(c);
}

/* The plain negotiation the server replays to a library behind it. */
static void test_plain_pair(void)
{
	vg_vencrypt *s = make(VG_VENCRYPT_SERVER, 0, T_VC_VNC, 2, S_SERVER, 2, NULL);
	vg_vencrypt *c = make(VG_VENCRYPT_CLIENT, 0, T_VNC, 1, NULL, 0, NULL);
	run(s, c, 5);
	vg_vencrypt_result r;
	g_assert_cmpint(vg_vencrypt_result_get(s, &r), ==, 0);
	g_assert_cmpint(r.type, ==, VG_RFB_SEC_VNC);
	g_assert_cmpuint(r.subtype, ==, 0);
	vg_vencrypt_free(s);
	vg_vencrypt_free(c);

	/* An RFB 3.7 client, and one speaking 3.3 (the server chooses). */
	int minors[] = {7, 3};
	for (size_t i = 0; i < G_N_ELEMENTS(minors); i++) {
		s = make(VG_VENCRYPT_SERVER, 0, T_NONE, 1, NULL, 0, NULL);
		c = make(VG_VENCRYPT_CLIENT, minors[i], T_NONE, 1, NULL, 0, NULL);
		run(s, c, 3);
		g_assert_cmpint(vg_vencrypt_result_get(c, &r), ==, 0);
		g_assert_cmpint(r.rfb_minor, ==, minors[i]);
		g_assert_cmpint(r.type, ==, VG_RFB_SEC_NONE);
		g_assert_cmpint(vg_vencrypt_result_get(s, &r), ==, 0);
		g_assert_cmpint(r.rfb_minor, ==, minors[i]);
		vg_vencrypt_free(s);
		vg_vencrypt_free(c);
	}
}

/* A server that requires TLS and a client that cannot do it: the reason
 * reaches the client. */
static void test_refusals(void)
{
	const char *why = "TLS required";
	/* RFB 3.3: the failure with its reason, in place of a type. */
	vg_vencrypt *s = make(VG_VENCRYPT_SERVER, 0, T_VC, 1, S_SERVER, 2, why);
	vg_vencrypt *c = make(VG_VENCRYPT_CLIENT, 3, T_NONE, 1, NULL, 0, NULL);
	run(s, c, 7);
	g_assert_cmpint(vg_vencrypt_status_get(s), ==, VG_VENCRYPT_FAILED);
	g_assert_cmpint(vg_vencrypt_status_get(c), ==, VG_VENCRYPT_FAILED);
	g_assert_nonnull(strstr(vg_vencrypt_error(c), why));
	vg_vencrypt_free(s);
	vg_vencrypt_free(c);

	/* RFB 3.8: the client finds no type it takes. */
	s = make(VG_VENCRYPT_SERVER, 0, T_VC, 1, S_SERVER, 2, why);
	c = make(VG_VENCRYPT_CLIENT, 0, T_NONE, 1, NULL, 0, NULL);
	run(s, c, 64);
	g_assert_cmpint(vg_vencrypt_status_get(c), ==, VG_VENCRYPT_FAILED);
	g_assert_nonnull(strstr(vg_vencrypt_error(c), "19"));
	vg_vencrypt_free(s);
	vg_vencrypt_free(c);

	/* RFB 3.8: a client that picks a type anyway gets the reason. */
	s = make(VG_VENCRYPT_SERVER, 0, T_VC, 1, S_SERVER, 2, why);
	expect_out(s, "RFB 003.008\n", 12);
	feed_all(s, "RFB 003.008\n", 12, 0);
	expect_out(s, "\x01\x13", 2);
	feed_all(s, "\x01", 1, VG_ENOTSUP);
	expect_out(s, "\x00\x00\x00\x01\x00\x00\x00\x0cTLS required", 20);
	vg_vencrypt_free(s);

	/* RFB 3.7 has no reason after SecurityResult. */
	s = make(VG_VENCRYPT_SERVER, 0, T_VC, 1, S_SERVER, 2, why);
	expect_out(s, "RFB 003.008\n", 12);
	feed_all(s, "RFB 003.007\n\x02", 13, VG_ENOTSUP);
	expect_out(s, "\x01\x13\x00\x00\x00\x01", 6);
	vg_vencrypt_free(s);

	/* A server's empty list with its reason. */
	c = make(VG_VENCRYPT_CLIENT, 0, T_VC, 1, S_CLIENT, 2, NULL);
	feed_all(c, "RFB 003.008\n\x00\x00\x00\x00\x07go away", 24, VG_EAUTH);
	g_assert_nonnull(strstr(vg_vencrypt_error(c), "go away"));
	vg_vencrypt_free(c);
}

static void test_malformed_server_side(void)
{
	static const struct {
		const char *bytes;
		size_t n;
		int rc;
		uint8_t out;      /* the refusal byte sent, or 0xaa for none */
	} cases[] = {
		{"GET / HTTP/1.1\r\n", 16, VG_EPROTO, 0xaa},
		{"RFB 003.00x\n", 12, VG_EPROTO, 0xaa},
		{"RFB 003.008\r", 12, VG_EPROTO, 0xaa},
		{"RFB 004.000\n", 12, VG_ENOTSUP, 0xaa},
		{"RFB 003.002\n", 12, VG_ENOTSUP, 0xaa},
		{"RFB 003.008\n\x13\x00\x01", 15, VG_ENOTSUP, 0xff},
		{"RFB 003.008\n\x13\x01\x02", 15, VG_ENOTSUP, 0xff},
		{"RFB 003.008\n\x13\x00\x02\x00\x00\x01\x00", 19, VG_ENOTSUP, 0x00},
		{"RFB 003.008\n\x13\x00\x02\xff\xff\xff\xff", 19, VG_ENOTSUP, 0x00},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		vg_vencrypt *s = make(VG_VENCRYPT_SERVER, 0, T_VC, 1, S_SERVER, 2, NULL);
		size_t len, used = 0;
		vg_vencrypt_output(s, &len);
		vg_vencrypt_output_drop(s, len);
		g_assert_cmpint(vg_vencrypt_feed(s, (const uint8_t *)cases[i].bytes, cases[i].n, &used), ==, cases[i].rc);
		g_assert_cmpint(vg_vencrypt_status_get(s), ==, VG_VENCRYPT_FAILED);
		g_assert_cmpstr(vg_vencrypt_error(s), !=, "");
		g_assert_cmpuint(vg_vencrypt_want(s), ==, 0);
		const uint8_t *o = vg_vencrypt_output(s, &len);
		if (cases[i].out != 0xaa) {
			g_assert_cmpuint(len, >, 0);
			g_assert_cmpint(o[len - 1], ==, cases[i].out);
		}
		/* Nothing more is taken once failed. */
		g_assert_cmpint(vg_vencrypt_feed(s, (const uint8_t *)"x", 1, &used), ==, cases[i].rc);
		g_assert_cmpuint(used, ==, 0);
		vg_vencrypt_result r;
		g_assert_cmpint(vg_vencrypt_result_get(s, &r), ==, VG_EINVAL);
		vg_vencrypt_free(s);
	}
}

static void test_malformed_client_side(void)
{
	static const struct {
		const char *bytes;
		size_t n;
		int rc;
	} cases[] = {
		{"RFB 003.008\n\x00\xff\xff\xff\xff", 17, VG_EPROTO},         /* a huge reason */
		{"RFB 003.008\n\x00\x00\x00\x00\x00", 17, VG_EAUTH},          /* refused, no reason */
		{"RFB 003.008\n\x01\x02", 14, VG_ENOTSUP},                    /* VNC only */
		{"RFB 003.008\n\x01\x13\x00\x01", 16, VG_ENOTSUP},            /* VeNCrypt 0.1 */
		{"RFB 003.008\n\x01\x13\x00\x02\x01", 17, VG_ENOTSUP},        /* our version refused */
		{"RFB 003.008\n\x01\x13\x00\x02\x00\x00", 18, VG_EPROTO},     /* no subtypes */
		{"RFB 003.008\n\x01\x13\x00\x02\x00\x01\x00\x00\x01\x03", 22, VG_ENOTSUP}, /* TLSPlain only */
		{"RFB 003.003\n\x00\x00\x00\x13", 16, VG_ENOTSUP},            /* 3.3 cannot choose 19 */
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		vg_vencrypt *c = make(VG_VENCRYPT_CLIENT, 0, T_VC, 1, S_CLIENT, 2, NULL);
		size_t used = 0;
		g_assert_cmpint(vg_vencrypt_feed(c, (const uint8_t *)cases[i].bytes, cases[i].n, &used), ==, cases[i].rc);
		g_assert_cmpuint(used, ==, cases[i].n);
		g_assert_cmpint(vg_vencrypt_status_get(c), ==, VG_VENCRYPT_FAILED);
		g_assert_cmpstr(vg_vencrypt_error(c), !=, "");
		vg_vencrypt_free(c);
	}
	/* The client names what it was offered. */
	vg_vencrypt *c = make(VG_VENCRYPT_CLIENT, 0, T_VC, 1, S_CLIENT, 2, NULL);
	vg_vencrypt_feed(c, (const uint8_t *)"RFB 003.008\n\x01\x13\x00\x02\x00\x01\x00\x00\x01\x03", 22, NULL);
	g_assert_nonnull(strstr(vg_vencrypt_error(c), "TLSPlain"));
	vg_vencrypt_free(c);
}

static void test_config(void)
{
	vg_vencrypt *v = NULL;
	vg_vencrypt_config cfg = {.types = T_VC, .n_types = 1};
	g_assert_cmpint(vg_vencrypt_new(VG_VENCRYPT_SERVER, &cfg, &v), ==, VG_EINVAL);  /* 19 without subtypes */
	cfg.subtypes = S_PLAINONLY;
	cfg.n_subtypes = 1;
	g_assert_cmpint(vg_vencrypt_new(VG_VENCRYPT_SERVER, &cfg, &v), ==, 0);
	vg_vencrypt_free(v);
	static const uint32_t plain256[] = {256};
	cfg.subtypes = plain256;
	g_assert_cmpint(vg_vencrypt_new(VG_VENCRYPT_SERVER, &cfg, &v), ==, VG_EINVAL);
	cfg.subtypes = S_SERVER;
	cfg.n_subtypes = 2;
	cfg.rfb_minor = 5;
	g_assert_cmpint(vg_vencrypt_new(VG_VENCRYPT_CLIENT, &cfg, &v), ==, VG_EINVAL);
	cfg.rfb_minor = 0;
	cfg.n_types = 0;
	g_assert_cmpint(vg_vencrypt_new(VG_VENCRYPT_CLIENT, &cfg, &v), ==, VG_EINVAL);
	static const uint8_t zero[] = {0};
	cfg.types = zero;
	cfg.n_types = 1;
	g_assert_cmpint(vg_vencrypt_new(VG_VENCRYPT_CLIENT, &cfg, &v), ==, VG_EINVAL);
	g_assert_null(v);
	g_assert_cmpstr(vg_vencrypt_type_name(261), ==, "X509Vnc");
	g_assert_cmpstr(vg_vencrypt_type_name(77), ==, "unknown");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/vencrypt/x509_pair", test_x509_pair);
	g_test_add_func("/vencrypt/server_bytes", test_server_bytes);
	g_test_add_func("/vencrypt/client_bytes", test_client_bytes);
	g_test_add_func("/vencrypt/plain_pair", test_plain_pair);
	g_test_add_func("/vencrypt/refusals", test_refusals);
	g_test_add_func("/vencrypt/malformed_server_side", test_malformed_server_side);
	g_test_add_func("/vencrypt/malformed_client_side", test_malformed_client_side);
	g_test_add_func("/vencrypt/config", test_config);
	return g_test_run();
}
