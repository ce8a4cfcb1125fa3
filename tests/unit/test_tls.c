/* vg_tls: the generated certificate and key, handshakes over a real
 * socketpair (verification, deadlines, garbage), and the bridge carrying
 * bytes both ways with a clean end. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "capture/vg_tls.h"
#include "common/vg_error.h"
#include "common/vg_sha256.h"
#include "common/vg_time.h"

static char *tmpdir;

static char *path_in(const char *sub, const char *name)
{
	return g_build_filename(tmpdir, sub, name, NULL);
}

static vg_tls_ctx *server_in(const char *sub)
{
	g_autofree char *dir = g_build_filename(tmpdir, sub, NULL);
	char err[256] = "";
	vg_tls_ctx *c = NULL;
	int rc = vg_tls_server_new(NULL, NULL, dir, &c, err, sizeof err);
	if (rc < 0)
		g_error("server context in %s: %s", dir, err);
	return c;
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	g_assert_cmpint(stat(path, &st), ==, 0);
	return st.st_mode & 0777;
}

/* The fingerprint of a PEM certificate file, through OpenSSL's parser and
 * our own SHA-256, apart from the module's way. */
static void file_fingerprint(const char *path, char out[VG_TLS_FP_TEXT])
{
	FILE *f = fopen(path, "r");
	g_assert_nonnull(f);
	X509 *x = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	g_assert_nonnull(x);
	unsigned char *der = NULL;
	int n = i2d_X509(x, &der);
	g_assert_cmpint(n, >, 0);
	uint8_t d[VG_SHA256_LEN];
	vg_sha256(der, (size_t)n, d);
	vg_tls_fingerprint_format(d, out);
	OPENSSL_free(der);
	X509_free(x);
}

static void test_generated(void)
{
	vg_tls_ctx *c = server_in("state/deeper");
	g_autofree char *cert = path_in("state/deeper", VG_TLS_CERT_FILE);
	g_autofree char *key = path_in("state/deeper", VG_TLS_KEY_FILE);
	g_autofree char *dir = g_build_filename(tmpdir, "state", "deeper", NULL);
	g_assert_cmpint(mode_of(cert), ==, 0600);
	g_assert_cmpint(mode_of(key), ==, 0600);
	g_assert_cmpint(mode_of(dir), ==, 0700);
	g_assert_cmpstr(vg_tls_ctx_cert_path(c), ==, cert);
	const char *fp = vg_tls_ctx_fingerprint(c);
	g_assert_cmpuint(strlen(fp), ==, VG_TLS_FP_TEXT - 1);
	char want[VG_TLS_FP_TEXT];
	file_fingerprint(cert, want);
	g_assert_cmpstr(fp, ==, want);

	/* A second start finds the same pair. */
	vg_tls_ctx *again = server_in("state/deeper");
	g_assert_cmpstr(vg_tls_ctx_fingerprint(again), ==, fp);
	vg_tls_ctx_free(again);

	/* And loads it as named files too. */
	char err[256];
	g_assert_cmpint(vg_tls_server_new(cert, key, NULL, &again, err, sizeof err), ==, 0);
	g_assert_cmpstr(vg_tls_ctx_fingerprint(again), ==, fp);
	vg_tls_ctx_free(again);

	/* Another directory, another key. */
	vg_tls_ctx *other = server_in("other");
	g_assert_cmpstr(vg_tls_ctx_fingerprint(other), !=, fp);
	vg_tls_ctx_free(other);
	vg_tls_ctx_free(c);
}

static void test_bad_files(void)
{
	char err[256] = "";
	vg_tls_ctx *c = NULL;
	g_autofree char *cert = path_in("state/deeper", VG_TLS_CERT_FILE);
	g_autofree char *key = path_in("state/deeper", VG_TLS_KEY_FILE);
	g_autofree char *okey = path_in("other", VG_TLS_KEY_FILE);

	g_assert_cmpint(vg_tls_server_new(cert, NULL, tmpdir, &c, err, sizeof err), ==, VG_EINVAL);
	g_assert_cmpint(vg_tls_server_new(cert, okey, NULL, &c, err, sizeof err), ==, VG_EFORMAT);
	g_assert_nonnull(strstr(err, "does not belong"));
	g_autofree char *missing = path_in("nowhere", "x.pem");
	g_assert_cmpint(vg_tls_server_new(missing, key, NULL, &c, err, sizeof err), ==, VG_EIO);
	g_assert_nonnull(strstr(err, missing));
	g_assert_cmpint(vg_tls_server_new(key, key, NULL, &c, err, sizeof err), ==, VG_EFORMAT);

	/* A damaged generated certificate is an error, never replaced. */
	g_autofree char *dir = g_build_filename(tmpdir, "damaged", NULL);
	vg_tls_ctx_free(server_in("damaged"));
	g_autofree char *dcert = path_in("damaged", VG_TLS_CERT_FILE);
	g_assert_true(g_file_set_contents(dcert, "not a certificate\n", -1, NULL));
	g_assert_cmpint(vg_tls_server_new(NULL, NULL, dir, &c, err, sizeof err), ==, VG_EFORMAT);
	g_assert_nonnull(strstr(err, dcert));
	g_autofree char *text = NULL;
	g_assert_true(g_file_get_contents(dcert, &text, NULL, NULL));
	g_assert_cmpstr(text, ==, "not a certificate\n");
	g_assert_null(c);

	g_assert_cmpint(vg_tls_client_new(missing, &c, err, sizeof err), ==, VG_EIO);
	g_assert_cmpint(vg_tls_client_new(dcert, &c, err, sizeof err), ==, VG_EFORMAT);
}

static void test_fingerprint_text(void)
{
	uint8_t fp[VG_TLS_FP_LEN], back[VG_TLS_FP_LEN];
	for (int i = 0; i < VG_TLS_FP_LEN; i++)
		fp[i] = (uint8_t)(i * 37 + 5);
	char text[VG_TLS_FP_TEXT];
	vg_tls_fingerprint_format(fp, text);
	g_assert_cmpstr(text, ==, "05:2A:4F:74:99:BE:E3:08:2D:52:77:9C:C1:E6:0B:30:"
				  "55:7A:9F:C4:E9:0E:33:58:7D:A2:C7:EC:11:36:5B:80");
	g_assert_cmpint(vg_tls_fingerprint_parse(text, back), ==, 0);
	g_assert_cmpmem(back, sizeof back, fp, sizeof fp);
	g_autofree char *lower = g_ascii_strdown(text, -1);
	g_auto(GStrv) pairs = g_strsplit(lower, ":", -1);
	g_autofree char *bare = g_strjoinv("", pairs);
	g_autofree char *pref = g_strconcat("SHA256:", bare, NULL);
	memset(back, 0, sizeof back);
	g_assert_cmpint(vg_tls_fingerprint_parse(pref, back), ==, 0);
	g_assert_cmpmem(back, sizeof back, fp, sizeof fp);
	g_assert_cmpint(vg_tls_fingerprint_parse(bare + 2, back), ==, VG_EINVAL);
	g_autofree char *longer = g_strconcat(bare, "00", NULL);
	g_assert_cmpint(vg_tls_fingerprint_parse(longer, back), ==, VG_EINVAL);
	g_assert_cmpint(vg_tls_fingerprint_parse("zz", back), ==, VG_EINVAL);
	g_assert_cmpint(vg_tls_fingerprint_parse(NULL, back), ==, VG_EINVAL);
}

/* --- handshakes --- */

typedef struct {
	vg_tls_ctx *ctx;
	int fd;
	int timeout_ms;
	vg_tls *t;
	int rc;
	char err[256];
} side;

static gpointer server_thread(gpointer p)
{
	side *s = p;
	s->rc = vg_tls_handshake(s->ctx, s->fd, NULL, s->timeout_ms, &s->t, s->err, sizeof s->err);
	return NULL;
}

/* Both ends of a handshake over a fresh socketpair. */
static void pair(vg_tls_ctx *sctx, vg_tls_ctx *cctx, const char *host, side *srv, side *cli)
{
	int sp[2];
	g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), ==, 0);
	*srv = (side){.ctx = sctx, .fd = sp[0], .timeout_ms = 5000};
	*cli = (side){.ctx = cctx, .fd = sp[1], .timeout_ms = 5000};
	GThread *th = g_thread_new("srv", server_thread, srv);
	cli->rc = vg_tls_handshake(cctx, cli->fd, host, cli->timeout_ms, &cli->t, cli->err, sizeof cli->err);
	if (cli->rc < 0)
		shutdown(cli->fd, SHUT_RDWR); /* the server gives up at once */
	g_thread_join(th);
}

static void unpair(side *srv, side *cli)
{
	vg_tls_free(srv->t);
	vg_tls_free(cli->t);
	close(srv->fd);
	close(cli->fd);
}

static void test_handshake(void)
{
	vg_tls_ctx *sctx = server_in("state/deeper");
	vg_tls_ctx *other = server_in("other");
	g_autofree char *cert = path_in("state/deeper", VG_TLS_CERT_FILE);
	g_autofree char *ocert = path_in("other", VG_TLS_CERT_FILE);
	char err[256];
	vg_tls_ctx *verifying = NULL, *trusting = NULL, *wrong = NULL;
	g_assert_cmpint(vg_tls_client_new(cert, &verifying, err, sizeof err), ==, 0);
	g_assert_cmpint(vg_tls_client_new(NULL, &trusting, err, sizeof err), ==, 0);
	g_assert_cmpint(vg_tls_client_new(ocert, &wrong, err, sizeof err), ==, 0);
	g_assert_cmpstr(vg_tls_ctx_fingerprint(trusting), ==, "");
	side srv, cli;

	/* Verified against its own certificate, by address and by name. */
	const char *hosts[] = {"127.0.0.1", "localhost", NULL};
	for (size_t i = 0; i < G_N_ELEMENTS(hosts); i++) {
		pair(sctx, verifying, hosts[i], &srv, &cli);
		g_assert_cmpint(cli.rc, ==, 0);
		g_assert_cmpint(srv.rc, ==, 0);
		uint8_t fp[VG_TLS_FP_LEN];
		char text[VG_TLS_FP_TEXT];
		g_assert_cmpint(vg_tls_peer_fingerprint(cli.t, fp), ==, 0);
		vg_tls_fingerprint_format(fp, text);
		g_assert_cmpstr(text, ==, vg_tls_ctx_fingerprint(sctx));
		g_assert_cmpint(vg_tls_peer_fingerprint(srv.t, fp), ==, VG_ENOENT);
		g_assert_cmpstr(vg_tls_protocol(cli.t), ==, "TLSv1.3");
		g_assert_nonnull(strstr(vg_tls_cipher(cli.t), "TLS_"));
		unpair(&srv, &cli);
	}

	/* Not verified: the fingerprint is the caller's to check. */
	pair(sctx, trusting, "example.org", &srv, &cli);
	g_assert_cmpint(cli.rc, ==, 0);
	uint8_t fp[VG_TLS_FP_LEN];
	g_assert_cmpint(vg_tls_peer_fingerprint(cli.t, fp), ==, 0);
	unpair(&srv, &cli);

	/* Another CA, or another name, fails verification. */
	pair(sctx, wrong, "127.0.0.1", &srv, &cli);
	g_assert_cmpint(cli.rc, ==, VG_EAUTH);
	g_assert_nonnull(strstr(cli.err, "verification"));
	g_assert_cmpint(srv.rc, <, 0);
	g_assert_null(cli.t);
	unpair(&srv, &cli);
	pair(sctx, verifying, "example.org", &srv, &cli);
	g_assert_cmpint(cli.rc, ==, VG_EAUTH);
	unpair(&srv, &cli);

	vg_tls_ctx_free(verifying);
	vg_tls_ctx_free(trusting);
	vg_tls_ctx_free(wrong);
	vg_tls_ctx_free(other);
	vg_tls_ctx_free(sctx);
}

/* Old or weak peers: TLS 1.1, and TLS 1.2 without forward secrecy. */
static void test_weak_peer(void)
{
	vg_tls_ctx *sctx = server_in("state/deeper");
	const struct {
		int max_version;
		const char *ciphers;
	} peers[] = {
		{TLS1_1_VERSION, "ALL:@SECLEVEL=0"},
		{TLS1_2_VERSION, "AES128-GCM-SHA256"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(peers); i++) {
		int sp[2];
		g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), ==, 0);
		side srv = {.ctx = sctx, .fd = sp[0], .timeout_ms = 5000};
		GThread *th = g_thread_new("srv", server_thread, &srv);
		SSL_CTX *c = SSL_CTX_new(TLS_client_method());
		SSL_CTX_set_min_proto_version(c, 0);
		SSL_CTX_set_max_proto_version(c, peers[i].max_version);
		SSL_CTX_set_cipher_list(c, peers[i].ciphers);
		SSL *s = SSL_new(c);
		SSL_set_fd(s, sp[1]);
		g_assert_cmpint(SSL_connect(s), !=, 1);
		shutdown(sp[1], SHUT_RDWR);
		g_thread_join(th);
		g_assert_cmpint(srv.rc, <, 0);
		g_assert_null(srv.t);
		SSL_free(s);
		SSL_CTX_free(c);
		close(sp[0]);
		close(sp[1]);
	}
	vg_tls_ctx_free(sctx);
}

/* A silent peer costs the deadline; garbage and a closed peer end it at
 * once, with the right code. */
static void test_handshake_deadline(void)
{
	vg_tls_ctx *sctx = server_in("state/deeper");
	const struct {
		const char *send;
		bool close_after;
		int rc;
	} cases[] = {
		{NULL, false, VG_ETIMEDOUT},
		{"\x16\x03", false, VG_ETIMEDOUT},
		{"GET / HTTP/1.1\r\nHost: x\r\n\r\n", false, VG_EPROTO},
		{"RFB 003.008\n", false, VG_EPROTO},
		{NULL, true, VG_EIO},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		int sp[2];
		g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), ==, 0);
		if (cases[i].send)
			g_assert_cmpint(write(sp[1], cases[i].send, strlen(cases[i].send)), ==, (ssize_t)strlen(cases[i].send));
		if (cases[i].close_after)
			shutdown(sp[1], SHUT_WR);
		uint64_t t0 = vg_time_ns();
		vg_tls *t = NULL;
		char err[256] = "";
		int rc = vg_tls_handshake(sctx, sp[0], NULL, 300, &t, err, sizeof err);
		double ms = (double)(vg_time_ns() - t0) / 1e6;
		g_assert_cmpint(rc, ==, cases[i].rc);
		g_assert_null(t);
		g_assert_cmpstr(err, !=, "");
		if (rc == VG_ETIMEDOUT)
			g_assert_cmpfloat(ms, >=, 290);
		g_assert_cmpfloat(ms, <, 2000);
		close(sp[0]);
		close(sp[1]);
	}
	vg_tls_ctx_free(sctx);
}

/* --- the bridge --- */

typedef struct {
	int fd;
	const uint8_t *data;
	size_t len;
} writer_job;

static gpointer writer_thread(gpointer p)
{
	writer_job *j = p;
	size_t at = 0;
	while (at < j->len) {
		ssize_t w = write(j->fd, j->data + at, MIN(j->len - at, 7000));
		g_assert_cmpint(w, >, 0);
		at += (size_t)w;
	}
	shutdown(j->fd, SHUT_WR);
	return NULL;
}

/* Reads fd to its end. */
static GByteArray *read_all(int fd)
{
	GByteArray *a = g_byte_array_new();
	uint8_t buf[9000];
	for (;;) {
		ssize_t r = read(fd, buf, sizeof buf);
		g_assert_cmpint(r, >=, 0);
		if (r == 0)
			return a;
		g_byte_array_append(a, buf, (guint)r);
	}
}

typedef struct {
	GMutex m;
	GCond c;
	bool done;
	vg_tls_bridge_stats st;
} done_box;

static void on_done(void *user, const vg_tls_bridge_stats *st)
{
	done_box *d = user;
	g_mutex_lock(&d->m);
	d->done = true;
	d->st = *st;
	g_cond_signal(&d->c);
	g_mutex_unlock(&d->m);
}

/* A client context that verifies nothing, and a handshake over a fresh
 * socketpair with the generated certificate. */
static vg_tls_ctx *unverified_pair(vg_tls_ctx *sctx, side *srv, side *cli)
{
	vg_tls_ctx *cctx = NULL;
	char err[256];
	g_assert_cmpint(vg_tls_client_new(NULL, &cctx, err, sizeof err), ==, 0);
	pair(sctx, cctx, NULL, srv, cli);
	g_assert_cmpint(cli->rc, ==, 0);
	g_assert_cmpint(srv->rc, ==, 0);
	return cctx;
}

/* Detaches b and waits (5 s at most) for its end; d gets its counters
 * (clear d's mutex and cond after). */
static void detach_and_wait(vg_tls_bridge *b, done_box *d)
{
	*d = (done_box){0};
	g_mutex_init(&d->m);
	g_cond_init(&d->c);
	vg_tls_bridge_detach(b, on_done, d);
	g_mutex_lock(&d->m);
	gint64 until = g_get_monotonic_time() + 5 * G_TIME_SPAN_SECOND;
	while (!d->done)
		g_assert_true(g_cond_wait_until(&d->c, &d->m, until));
	g_mutex_unlock(&d->m);
}

static void test_bridge(void)
{
	vg_tls_ctx *sctx = server_in("state/deeper");
	side srv, cli;
	vg_tls_ctx *cctx = unverified_pair(sctx, &srv, &cli);

	vg_tls_bridge *bs = NULL, *bc = NULL;
	int ps = -1, pc = -1;
	g_assert_cmpint(vg_tls_bridge_new(srv.t, srv.fd, &ps, &bs), ==, 0);
	g_assert_cmpint(vg_tls_bridge_new(cli.t, cli.fd, &pc, &bc), ==, 0);

	/* A megabyte and a bit each way at once. */
	size_t n_sc = 1 << 20, n_cs = 300001;
	uint8_t *sc = g_malloc(n_sc), *cs = g_malloc(n_cs);
	for (size_t i = 0; i < n_sc; i++)
		sc[i] = (uint8_t)(i * 2654435761u >> 13);
	for (size_t i = 0; i < n_cs; i++)
		cs[i] = (uint8_t)(i * 40503u >> 7);
	writer_job js = {ps, sc, n_sc}, jc = {pc, cs, n_cs};
	GThread *ws = g_thread_new("ws", writer_thread, &js);
	GThread *wc = g_thread_new("wc", writer_thread, &jc);
	GByteArray *got_c = read_all(pc); /* ends: the server's plain end shut its writing */
	GByteArray *got_s = read_all(ps);
	g_thread_join(ws);
	g_thread_join(wc);
	g_assert_cmpmem(got_c->data, got_c->len, sc, n_sc);
	g_assert_cmpmem(got_s->data, got_s->len, cs, n_cs);

	/* Once a side's plain end shuts down, that bridge sends close_notify
	 * and ends, and the other's plain end saw the end of file above. */
	done_box d;
	detach_and_wait(bs, &d);
	g_assert_cmpuint(d.st.plain_in, ==, n_sc);
	g_assert_cmpuint(d.st.plain_out, ==, n_cs);
	/* Records cost a little, never less than the payload. */
	g_assert_cmpuint(d.st.net_out, >, n_sc);
	g_assert_cmpuint(d.st.net_out, <, n_sc + n_sc / 50 + 4096);
	g_assert_cmpuint(d.st.net_in, >, n_cs);

	vg_tls_bridge_stats st;
	vg_tls_bridge_stats_get(bc, &st);
	g_assert_cmpuint(st.plain_in, ==, n_cs);
	g_assert_cmpuint(st.plain_out, ==, n_sc);
	vg_tls_bridge_free(bc);

	g_byte_array_unref(got_c);
	g_byte_array_unref(got_s);
	g_free(sc);
	g_free(cs);
	close(ps);
	close(pc);
	g_mutex_clear(&d.m);
	g_cond_clear(&d.c);
	vg_tls_ctx_free(cctx);
	vg_tls_ctx_free(sctx);
}

/* The peer going away reaches the plain end as end of file; a bridge
 * freed while both ends are idle stops at once. */
static void test_bridge_ends(void)
{
	vg_tls_ctx *sctx = server_in("state/deeper");
	side srv, cli;
	vg_tls_ctx *cctx = unverified_pair(sctx, &srv, &cli);
	vg_tls_bridge *bs = NULL;
	int ps = -1;
	g_assert_cmpint(vg_tls_bridge_new(srv.t, srv.fd, &ps, &bs), ==, 0);
	/* The client's socket closes without close_notify. */
	vg_tls_free(cli.t);
	close(cli.fd);
	GByteArray *got = read_all(ps);
	g_assert_cmpuint(got->len, ==, 0);
	g_byte_array_unref(got);
	/* The server side still sends what its plain end writes, to nobody:
	 * the bridge ends on the write error or the plain end's close. */
	close(ps);
	uint64_t t0 = vg_time_ns();
	vg_tls_bridge_free(bs);
	g_assert_cmpfloat((double)(vg_time_ns() - t0) / 1e6, <, 2000);

	/* Idle on both sides, freed. */
	pair(sctx, cctx, NULL, &srv, &cli);
	g_assert_cmpint(srv.rc, ==, 0);
	g_assert_cmpint(vg_tls_bridge_new(srv.t, srv.fd, &ps, &bs), ==, 0);
	t0 = vg_time_ns();
	vg_tls_bridge_free(bs);
	g_assert_cmpfloat((double)(vg_time_ns() - t0) / 1e6, <, 2000);
	/* The plain end then reads the end. */
	char b;
	g_assert_cmpint(read(ps, &b, 1), ==, 0);
	close(ps);
	vg_tls_free(cli.t);
	close(cli.fd);

	vg_tls_ctx_free(cctx);
	vg_tls_ctx_free(sctx);
}

/* Without TLS the bridge passes bytes as they are, over a plain end the
 * caller made, and counts them on both sides. */
static void test_bridge_plain(void)
{
	int net[2], plain[2];
	g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM, 0, net), ==, 0);
	g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM, 0, plain), ==, 0);
	/* Spoken before the bridge starts: it stays queued for the peer. */
	g_assert_cmpint(write(plain[1], "RFB ", 4), ==, 4);
	vg_tls_bridge *b = NULL;
	g_assert_cmpint(vg_tls_bridge_start(NULL, net[0], plain[0], &b), ==, 0);
	g_assert_cmpint(write(plain[1], "003.008\n", 8), ==, 8);
	g_assert_cmpint(write(net[1], "hello", 5), ==, 5);
	shutdown(net[1], SHUT_WR);
	GByteArray *got = read_all(plain[1]);
	g_assert_cmpmem(got->data, got->len, "hello", 5);
	g_byte_array_unref(got);
	shutdown(plain[1], SHUT_WR);
	got = read_all(net[1]);
	g_assert_cmpmem(got->data, got->len, "RFB 003.008\n", 12);
	g_byte_array_unref(got);
	done_box d;
	detach_and_wait(b, &d);
	g_assert_cmpuint(d.st.net_in, ==, 5);
	g_assert_cmpuint(d.st.plain_out, ==, 5);
	g_assert_cmpuint(d.st.plain_in, ==, 12);
	g_assert_cmpuint(d.st.net_out, ==, 12);
	g_mutex_clear(&d.m);
	g_cond_clear(&d.c);
	close(net[1]);
	close(plain[1]);
}

/* A bridge that drops what a library answers in a negotiation the
 * program already spoke: the dropped bytes never reach the peer, across
 * reads of any size, and what follows passes whole. */
static void test_bridge_dropping(void)
{
	int net[2], plain[2];
	g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM, 0, net), ==, 0);
	g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM, 0, plain), ==, 0);
	g_assert_cmpint(write(plain[1], "RFB 0", 5), ==, 5);
	vg_tls_bridge *b = NULL;
	g_assert_cmpint(vg_tls_bridge_start_dropping(NULL, net[0], plain[0], 13, &b), ==, 0);
	g_usleep(20000);
	g_assert_cmpint(write(plain[1], "03.008\n", 7), ==, 7);
	g_usleep(20000);
	g_assert_cmpint(write(plain[1], "\x01ok", 3), ==, 3);
	shutdown(plain[1], SHUT_WR);
	GByteArray *got = read_all(net[1]);
	g_assert_cmpmem(got->data, got->len, "ok", 2);
	g_byte_array_unref(got);
	vg_tls_bridge_stats st;
	vg_tls_bridge_stats_get(b, &st);
	g_assert_cmpuint(st.plain_in, ==, 2);
	vg_tls_bridge_free(b);
	close(net[1]);
	close(plain[1]);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	signal(SIGPIPE, SIG_IGN);
	GError *e = NULL;
	tmpdir = g_dir_make_tmp("test_tls-XXXXXX", &e);
	g_assert_no_error(e);
	g_test_add_func("/tls/generated", test_generated);
	g_test_add_func("/tls/bad_files", test_bad_files);
	g_test_add_func("/tls/fingerprint_text", test_fingerprint_text);
	g_test_add_func("/tls/handshake", test_handshake);
	g_test_add_func("/tls/weak_peer", test_weak_peer);
	g_test_add_func("/tls/handshake_deadline", test_handshake_deadline);
	g_test_add_func("/tls/bridge", test_bridge);
	g_test_add_func("/tls/bridge_ends", test_bridge_ends);
	g_test_add_func("/tls/bridge_plain", test_bridge_plain);
	g_test_add_func("/tls/bridge_dropping", test_bridge_dropping);
	int rc = g_test_run();
	g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		rc = rc ? rc : 1;
	g_free(tmpdir);
	return rc;
}
