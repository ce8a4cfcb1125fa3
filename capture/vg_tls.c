/* vg_tls: OpenSSL contexts, handshakes with a deadline, and the bridge
 * between a TLS session and a plain socketpair (see vg_tls.h). */
#include "capture/vg_tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "common/vg_error.h"
#include "common/vg_time.h"

struct vg_tls_ctx {
	SSL_CTX *ssl;
	bool server;
	bool verify;
	char fingerprint[VG_TLS_FP_TEXT];
	char *cert_path;
};

struct vg_tls {
	SSL *ssl;
	int fd;
};

/* TLS 1.2's suites: ECDHE key exchange and AEAD only. TLS 1.3's are all
 * AEAD with forward secrecy, and OpenSSL's default list is kept. */
#define TLS12_CIPHERS "ECDHE+AESGCM:ECDHE+CHACHA20:!aNULL:!eNULL"

__attribute__((format(printf, 3, 4)))
static void set_err(char *err, size_t cap, const char *fmt, ...)
{
	if (!err || cap == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, cap, fmt, ap);
	va_end(ap);
}

/* OpenSSL's most recent error as text, and the queue emptied. */
static const char *ossl_reason(char *buf, size_t cap)
{
	unsigned long e = ERR_peek_last_error();
	if (e == 0)
		snprintf(buf, cap, "no detail from OpenSSL");
	else
		ERR_error_string_n(e, buf, cap);
	ERR_clear_error();
	return buf;
}

void vg_tls_fingerprint_format(const uint8_t fp[VG_TLS_FP_LEN], char out[VG_TLS_FP_TEXT])
{
	static const char hex[] = "0123456789ABCDEF";
	size_t at = 0;
	for (int i = 0; i < VG_TLS_FP_LEN; i++) {
		if (i)
			out[at++] = ':';
		out[at++] = hex[fp[i] >> 4];
		out[at++] = hex[fp[i] & 15];
	}
	out[at] = 0;
}

int vg_tls_fingerprint_parse(const char *text, uint8_t fp[VG_TLS_FP_LEN])
{
	if (!text)
		return VG_EINVAL;
	if (g_ascii_strncasecmp(text, "SHA256:", 7) == 0)
		text += 7;
	size_t n = 0;
	const char *p = text;
	while (n < VG_TLS_FP_LEN) {
		int hi = g_ascii_xdigit_value(p[0]);
		int lo = hi < 0 ? -1 : g_ascii_xdigit_value(p[1]);
		if (hi < 0 || lo < 0)
			return VG_EINVAL;
		fp[n++] = (uint8_t)(hi << 4 | lo);
		p += 2;
		if (*p == ':' && n < VG_TLS_FP_LEN)
			p++;
	}
	return *p == 0 ? 0 : VG_EINVAL;
}

static int cert_fingerprint(X509 *x, uint8_t fp[VG_TLS_FP_LEN])
{
	unsigned int len = 0;
	if (!X509_digest(x, EVP_sha256(), fp, &len) || len != VG_TLS_FP_LEN)
		return VG_ECRYPTO;
	return 0;
}

static int ctx_common(SSL_CTX *s)
{
	if (!SSL_CTX_set_min_proto_version(s, TLS1_2_VERSION))
		return VG_ECRYPTO;
	if (!SSL_CTX_set_cipher_list(s, TLS12_CIPHERS))
		return VG_ECRYPTO;
	SSL_CTX_set_options(s, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
			       SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_TICKET);
	/* The bridge writes whatever the plain end gave, in pieces, and
	 * retries from where its buffer now starts. */
	SSL_CTX_set_mode(s, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	return 0;
}

/* --- the generated certificate --- */

static int add_ext(X509 *x, int nid, const char *value)
{
	X509V3_CTX v3;
	X509V3_set_ctx_nodb(&v3);
	X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
	X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, &v3, nid, value);
	if (!e)
		return VG_ECRYPTO;
	int ok = X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
	return ok ? 0 : VG_ECRYPTO;
}

static EVP_PKEY *make_key(void)
{
	EVP_PKEY *k = NULL;
	EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, NULL);
	if (pc && EVP_PKEY_keygen_init(pc) > 0 &&
	    EVP_PKEY_CTX_set_ec_paramgen_curve_nid(pc, NID_X9_62_prime256v1) > 0)
		EVP_PKEY_keygen(pc, &k);
	EVP_PKEY_CTX_free(pc);
	return k;
}

static X509 *make_cert(EVP_PKEY *key)
{
	X509 *x = X509_new();
	BIGNUM *bn = BN_new();
	ASN1_INTEGER *serial = NULL;
	char *san = NULL;
	char host[256] = "varg-server";
	bool ok = false;
	if (!x || !bn)
		goto out;
	if (gethostname(host, sizeof host - 1) != 0 || !host[0])
		snprintf(host, sizeof host, "varg-server");
	host[sizeof host - 1] = 0;
	/* A random positive serial of 127 bits. */
	if (!BN_rand(bn, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) ||
	    !(serial = BN_to_ASN1_INTEGER(bn, NULL)) || !X509_set_serialNumber(x, serial))
		goto out;
	if (!X509_set_version(x, 2) || !X509_gmtime_adj(X509_getm_notBefore(x), -3600) ||
	    !X509_time_adj_ex(X509_getm_notAfter(x), 3650, 0, NULL) || !X509_set_pubkey(x, key))
		goto out;
	X509_NAME *name = X509_get_subject_name(x);
	if (!X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, (const unsigned char *)"Varg", -1, -1, 0) ||
	    !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)host, -1, -1, 0) ||
	    !X509_set_issuer_name(x, name))
		goto out;
	/* Its own CA, so that a viewer can be given this very file to
	 * verify against (vncviewer -X509CA, varg-viewer --tls-ca). */
	san = g_strdup_printf("DNS:%s,DNS:localhost,IP:127.0.0.1,IP:::1", host);
	if (add_ext(x, NID_basic_constraints, "critical,CA:TRUE") < 0 ||
	    add_ext(x, NID_key_usage, "critical,digitalSignature,keyCertSign") < 0 ||
	    add_ext(x, NID_ext_key_usage, "serverAuth") < 0 ||
	    add_ext(x, NID_subject_key_identifier, "hash") < 0 ||
	    add_ext(x, NID_subject_alt_name, san) < 0)
		goto out;
	if (!X509_sign(x, key, EVP_sha256()))
		goto out;
	ok = true;
out:
	g_free(san);
	ASN1_INTEGER_free(serial);
	BN_free(bn);
	if (!ok) {
		X509_free(x);
		return NULL;
	}
	return x;
}

/* Writes the BIO's bytes to path through a 0600 temporary file renamed
 * into place, so that a reader never sees half a file. */
static int write_private(const char *path, BIO *b)
{
	char *data = NULL;
	long n = BIO_get_mem_data(b, &data);
	g_autofree char *tmp = g_strdup_printf("%s.tmp", path);
	unlink(tmp);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return VG_EIO;
	bool ok = n > 0 && write(fd, data, (size_t)n) == n && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, path) != 0) {
		unlink(tmp);
		return VG_EIO;
	}
	return 0;
}

static int generate(const char *cert_path, const char *key_path, char *err, size_t err_cap)
{
	char why[256];
	int rc = VG_ECRYPTO;
	EVP_PKEY *key = make_key();
	X509 *x = key ? make_cert(key) : NULL;
	BIO *kb = BIO_new(BIO_s_mem()), *cb = BIO_new(BIO_s_mem());
	if (!x || !kb || !cb || !PEM_write_bio_PrivateKey(kb, key, NULL, NULL, 0, NULL, NULL) ||
	    !PEM_write_bio_X509(cb, x)) {
		set_err(err, err_cap, "cannot make a TLS certificate: %s", ossl_reason(why, sizeof why));
		goto out;
	}
	/* The key first: a certificate without its key is never left. */
	const char *failed = key_path;
	rc = write_private(key_path, kb);
	if (rc == 0) {
		failed = cert_path;
		rc = write_private(cert_path, cb);
	}
	if (rc < 0)
		set_err(err, err_cap, "cannot write %s: %s", failed, g_strerror(errno));
out:
	BIO_free(kb);
	BIO_free(cb);
	X509_free(x);
	EVP_PKEY_free(key);
	return rc;
}

/* Makes state_dir's certificate and key unless the certificate exists,
 * under a lock so that two servers starting at once make one pair. */
static int ensure_generated(const char *dir, const char *cert_path, const char *key_path,
			    char *err, size_t err_cap)
{
	if (g_mkdir_with_parents(dir, 0700) != 0) {
		set_err(err, err_cap, "cannot make the state directory %s: %s", dir, g_strerror(errno));
		return VG_EIO;
	}
	g_autofree char *lock = g_build_filename(dir, "tls.lock", NULL);
	int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lfd < 0 || flock(lfd, LOCK_EX) != 0) {
		set_err(err, err_cap, "cannot lock %s: %s", lock, g_strerror(errno));
		if (lfd >= 0)
			close(lfd);
		return VG_EIO;
	}
	int rc = 0;
	if (access(cert_path, F_OK) != 0)
		rc = generate(cert_path, key_path, err, err_cap);
	close(lfd);
	return rc;
}

static int ctx_fill_fingerprint(vg_tls_ctx *c)
{
	uint8_t fp[VG_TLS_FP_LEN];
	X509 *x = SSL_CTX_get0_certificate(c->ssl);
	if (!x || cert_fingerprint(x, fp) < 0)
		return VG_ECRYPTO;
	vg_tls_fingerprint_format(fp, c->fingerprint);
	return 0;
}

int vg_tls_server_new(const char *cert_file, const char *key_file, const char *state_dir,
		      vg_tls_ctx **out, char *err, size_t err_cap)
{
	char why[256];
	int rc;
	*out = NULL;
	if (!cert_file != !key_file || (!cert_file && !state_dir)) {
		set_err(err, err_cap, "a TLS certificate needs its key (and a key its certificate)");
		return VG_EINVAL;
	}
	g_autofree char *cert_path = cert_file ? g_strdup(cert_file) : g_build_filename(state_dir, VG_TLS_CERT_FILE, NULL);
	g_autofree char *key_path = key_file ? g_strdup(key_file) : g_build_filename(state_dir, VG_TLS_KEY_FILE, NULL);
	if (!cert_file) {
		rc = ensure_generated(state_dir, cert_path, key_path, err, err_cap);
		if (rc < 0)
			return rc;
	}
	vg_tls_ctx *c = g_new0(vg_tls_ctx, 1);
	c->server = true;
	c->ssl = SSL_CTX_new(TLS_server_method());
	if (!c->ssl || ctx_common(c->ssl) < 0) {
		set_err(err, err_cap, "cannot set up TLS: %s", ossl_reason(why, sizeof why));
		rc = VG_ECRYPTO;
		goto out;
	}
	SSL_CTX_set_num_tickets(c->ssl, 0);
	if (access(cert_path, R_OK) != 0 || access(key_path, R_OK) != 0) {
		const char *p = access(cert_path, R_OK) != 0 ? cert_path : key_path;
		set_err(err, err_cap, "cannot read %s: %s", p, g_strerror(errno));
		rc = VG_EIO;
		goto out;
	}
	if (SSL_CTX_use_certificate_chain_file(c->ssl, cert_path) != 1) {
		set_err(err, err_cap, "%s is not a PEM certificate: %s", cert_path, ossl_reason(why, sizeof why));
		rc = VG_EFORMAT;
		goto out;
	}
	if (SSL_CTX_use_PrivateKey_file(c->ssl, key_path, SSL_FILETYPE_PEM) != 1 &&
	    ERR_GET_REASON(ERR_peek_last_error()) != X509_R_KEY_VALUES_MISMATCH) {
		set_err(err, err_cap, "%s is not a PEM private key: %s", key_path, ossl_reason(why, sizeof why));
		rc = VG_EFORMAT;
		goto out;
	}
	if (SSL_CTX_check_private_key(c->ssl) != 1) {
		set_err(err, err_cap, "the key %s does not belong to the certificate %s", key_path, cert_path);
		ERR_clear_error();
		rc = VG_EFORMAT;
		goto out;
	}
	rc = ctx_fill_fingerprint(c);
	if (rc < 0) {
		set_err(err, err_cap, "cannot fingerprint %s: %s", cert_path, ossl_reason(why, sizeof why));
		goto out;
	}
	c->cert_path = g_steal_pointer(&cert_path);
	*out = c;
	return 0;
out:
	vg_tls_ctx_free(c);
	return rc;
}

int vg_tls_client_new(const char *ca_file, vg_tls_ctx **out, char *err, size_t err_cap)
{
	char why[256];
	int rc = VG_ECRYPTO;
	*out = NULL;
	vg_tls_ctx *c = g_new0(vg_tls_ctx, 1);
	c->ssl = SSL_CTX_new(TLS_client_method());
	if (!c->ssl || ctx_common(c->ssl) < 0) {
		set_err(err, err_cap, "cannot set up TLS: %s", ossl_reason(why, sizeof why));
		goto out;
	}
	if (ca_file) {
		if (access(ca_file, R_OK) != 0) {
			set_err(err, err_cap, "cannot read %s: %s", ca_file, g_strerror(errno));
			rc = VG_EIO;
			goto out;
		}
		if (SSL_CTX_load_verify_locations(c->ssl, ca_file, NULL) != 1) {
			set_err(err, err_cap, "%s holds no PEM certificate: %s", ca_file, ossl_reason(why, sizeof why));
			rc = VG_EFORMAT;
			goto out;
		}
		/* A server's own certificate given as the CA is trusted as
		 * it is, chain or not. */
		X509_VERIFY_PARAM_set_flags(SSL_CTX_get0_param(c->ssl), X509_V_FLAG_PARTIAL_CHAIN);
		SSL_CTX_set_verify(c->ssl, SSL_VERIFY_PEER, NULL);
		c->verify = true;
	} else {
		SSL_CTX_set_verify(c->ssl, SSL_VERIFY_NONE, NULL);
	}
	*out = c;
	return 0;
out:
	vg_tls_ctx_free(c);
	return rc;
}

void vg_tls_ctx_free(vg_tls_ctx *c)
{
	if (!c)
		return;
	SSL_CTX_free(c->ssl);
	g_free(c->cert_path);
	g_free(c);
}

const char *vg_tls_ctx_fingerprint(const vg_tls_ctx *c)
{
	return c->fingerprint;
}

const char *vg_tls_ctx_cert_path(const vg_tls_ctx *c)
{
	return c->cert_path;
}

/* --- sessions --- */

static int64_t now_ms(void)
{
	return (int64_t)(vg_time_ns() / 1000000);
}

/* Whether OpenSSL's last error says the peer closed: OpenSSL 3 reports
 * a socket's end in the middle of TLS as an error of its own. */
#ifdef SSL_R_UNEXPECTED_EOF_WHILE_READING
static bool peer_closed(void)
{
	return ERR_GET_REASON(ERR_peek_last_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING;
}
#else
static bool peer_closed(void)
{
	return false;
}
#endif

static int wait_fd(int fd, short events, int64_t deadline_ms)
{
	for (;;) {
		int64_t left = deadline_ms - now_ms();
		if (left <= 0)
			return VG_ETIMEDOUT;
		struct pollfd p = {.fd = fd, .events = events};
		int r = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return VG_EIO;
	}
}

int vg_tls_handshake(vg_tls_ctx *c, int fd, const char *host, int timeout_ms,
		     vg_tls **out, char *err, size_t err_cap)
{
	char why[256];
	int rc = VG_ECRYPTO;
	*out = NULL;
	int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 10000);
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0) {
		set_err(err, err_cap, "bad socket: %s", g_strerror(errno));
		return VG_EINVAL;
	}
	vg_tls *t = g_new0(vg_tls, 1);
	t->fd = fd;
	t->ssl = SSL_new(c->ssl);
	if (!t->ssl || !SSL_set_fd(t->ssl, fd)) {
		set_err(err, err_cap, "cannot start TLS: %s", ossl_reason(why, sizeof why));
		goto out;
	}
	if (c->server) {
		SSL_set_accept_state(t->ssl);
	} else {
		struct in6_addr a6;
		bool is_ip = host && (inet_pton(AF_INET, host, &a6) == 1 || inet_pton(AF_INET6, host, &a6) == 1);
		if (host && !is_ip)
			SSL_set_tlsext_host_name(t->ssl, host);
		if (host && c->verify) {
			X509_VERIFY_PARAM *vp = SSL_get0_param(t->ssl);
			int ok = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(vp, host) : X509_VERIFY_PARAM_set1_host(vp, host, 0);
			if (!ok) {
				set_err(err, err_cap, "cannot check the certificate against %s", host);
				goto out;
			}
		}
		SSL_set_connect_state(t->ssl);
	}
	if (!(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	ERR_clear_error();
	for (;;) {
		int r = SSL_do_handshake(t->ssl);
		if (r == 1) {
			rc = 0;
			break;
		}
		int e = SSL_get_error(t->ssl, r);
		if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
			rc = wait_fd(fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline);
			if (rc == VG_ETIMEDOUT) {
				set_err(err, err_cap, "TLS handshake timed out");
				break;
			}
			if (rc < 0) {
				set_err(err, err_cap, "TLS handshake: %s", g_strerror(errno));
				break;
			}
			continue;
		}
		long vr = SSL_get_verify_result(t->ssl);
		if (c->verify && vr != X509_V_OK) {
			set_err(err, err_cap, "the server's certificate failed verification: %s",
				X509_verify_cert_error_string(vr));
			ERR_clear_error();
			rc = VG_EAUTH;
		} else if (e == SSL_ERROR_SYSCALL || e == SSL_ERROR_ZERO_RETURN || peer_closed()) {
			set_err(err, err_cap, "the peer closed during the TLS handshake");
			ERR_clear_error();
			rc = VG_EIO;
		} else {
			set_err(err, err_cap, "TLS handshake failed: %s", ossl_reason(why, sizeof why));
			rc = VG_EPROTO;
		}
		break;
	}
	if (!(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, flags);
out:
	if (rc < 0) {
		vg_tls_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

#if OPENSSL_VERSION_NUMBER >= 0x30000000L
static int peer_fingerprint(SSL *ssl, uint8_t fp[VG_TLS_FP_LEN])
{
	X509 *x = SSL_get0_peer_certificate(ssl);
	return x ? cert_fingerprint(x, fp) : VG_ENOENT;
}
#else
static int peer_fingerprint(SSL *ssl, uint8_t fp[VG_TLS_FP_LEN])
{
	X509 *x = SSL_get_peer_certificate(ssl);
	int rc = x ? cert_fingerprint(x, fp) : VG_ENOENT;
	X509_free(x);
	return rc;
}
#endif

int vg_tls_peer_fingerprint(const vg_tls *t, uint8_t fp[VG_TLS_FP_LEN])
{
	return peer_fingerprint(t->ssl, fp);
}

const char *vg_tls_protocol(const vg_tls *t)
{
	return SSL_get_version(t->ssl);
}

const char *vg_tls_cipher(const vg_tls *t)
{
	return SSL_get_cipher_name(t->ssl);
}

void vg_tls_free(vg_tls *t)
{
	if (!t)
		return;
	SSL_free(t->ssl);
	g_free(t);
}

/* --- the bridge --- */

#define BRIDGE_BUF 16384

struct vg_tls_bridge {
	vg_tls *t;               /* NULL: the bytes pass as they are */
	int net_fd;
	int plain_fd;            /* the bridge's end of the socketpair */
	int stop[2];             /* a pipe: a byte asks the thread to stop */
	pthread_t thread;
	pthread_mutex_t lock;    /* finished, detached, done_cb, user */
	bool finished;
	bool detached;
	vg_tls_bridge_done_cb done_cb;
	void *user;
	uint64_t net_in, net_out, plain_in, plain_out; /* __atomic */
	size_t drop;             /* plain bytes still to drop (pump thread) */
	uint8_t n2p[BRIDGE_BUF]; /* decrypted, waiting for the plain end */
	uint8_t p2n[BRIDGE_BUF]; /* plain, waiting to be encrypted */
};

static void count_net(vg_tls_bridge *b)
{
	if (!b->t)
		return; /* counted as the bytes pass */
	__atomic_store_n(&b->net_in, BIO_number_read(SSL_get_rbio(b->t->ssl)), __ATOMIC_RELAXED);
	__atomic_store_n(&b->net_out, BIO_number_written(SSL_get_wbio(b->t->ssl)), __ATOMIC_RELAXED);
}

/* What a read or write on the network side came to. */
enum { NET_DONE, NET_WANT_READ, NET_WANT_WRITE, NET_EOF, NET_ERROR };

static int net_read(vg_tls_bridge *b, uint8_t *buf, size_t cap, size_t *n)
{
	if (!b->t) {
		ssize_t r = recv(b->net_fd, buf, cap, 0);
		if (r > 0) {
			*n = (size_t)r;
			__atomic_add_fetch(&b->net_in, (uint64_t)r, __ATOMIC_RELAXED);
			return NET_DONE;
		}
		if (r == 0)
			return NET_EOF;
		return errno == EAGAIN || errno == EINTR ? NET_WANT_READ : NET_ERROR;
	}
	ERR_clear_error();
	int r = SSL_read(b->t->ssl, buf, (int)cap);
	if (r > 0) {
		*n = (size_t)r;
		return NET_DONE;
	}
	int e = SSL_get_error(b->t->ssl, r);
	if (e == SSL_ERROR_WANT_READ)
		return NET_WANT_READ;
	if (e == SSL_ERROR_WANT_WRITE)
		return NET_WANT_WRITE;
	/* close_notify, or the socket's end (a peer that closed without
	 * one). */
	if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) || peer_closed()) {
		ERR_clear_error();
		return NET_EOF;
	}
	return NET_ERROR;
}

static int net_write(vg_tls_bridge *b, const uint8_t *buf, size_t len, size_t *n)
{
	if (!b->t) {
		ssize_t w = send(b->net_fd, buf, len, MSG_NOSIGNAL);
		if (w > 0) {
			*n = (size_t)w;
			__atomic_add_fetch(&b->net_out, (uint64_t)w, __ATOMIC_RELAXED);
			return NET_DONE;
		}
		return w < 0 && (errno == EAGAIN || errno == EINTR) ? NET_WANT_WRITE : NET_ERROR;
	}
	ERR_clear_error();
	int w = SSL_write(b->t->ssl, buf, (int)len);
	if (w > 0) {
		*n = (size_t)w;
		return NET_DONE;
	}
	int e = SSL_get_error(b->t->ssl, w);
	return e == SSL_ERROR_WANT_WRITE ? NET_WANT_WRITE : e == SSL_ERROR_WANT_READ ? NET_WANT_READ : NET_ERROR;
}

/* The end of what the plain end sends: close_notify, or for a plain
 * bridge the socket's end of writing. */
static int net_close(vg_tls_bridge *b)
{
	if (!b->t)
		return shutdown(b->net_fd, SHUT_WR) == 0 || errno == ENOTCONN ? NET_DONE : NET_ERROR;
	ERR_clear_error();
	int r = SSL_shutdown(b->t->ssl);
	if (r >= 0)
		return NET_DONE;
	int e = SSL_get_error(b->t->ssl, r);
	return e == SSL_ERROR_WANT_WRITE ? NET_WANT_WRITE : e == SSL_ERROR_WANT_READ ? NET_WANT_READ : NET_ERROR;
}

/* The pump. Each direction ends on its own: the peer's close_notify (or
 * the socket's end) becomes end of file on the plain end, and the plain
 * end's end of file becomes close_notify after the last bytes. It stops
 * when both directions have ended, when the plain end is closed outright
 * (nobody is left to read) once its bytes are sent, on an error of
 * either socket, or when asked to. */
static void pump(vg_tls_bridge *b)
{
	size_t n2p_len = 0, n2p_off = 0, p2n_len = 0, p2n_off = 0;
	bool net_eof = false, plain_eof = false, shut_sent = false, plain_hup = false;
	short read_wants = POLLIN, write_wants = 0;

	for (;;) {
		bool progress;
		do {
			progress = false;
			if (!net_eof && n2p_off == n2p_len) {
				size_t n = 0;
				switch (net_read(b, b->n2p, sizeof b->n2p, &n)) {
				case NET_DONE:
					n2p_len = n;
					n2p_off = 0;
					read_wants = POLLIN;
					progress = true;
					break;
				case NET_WANT_READ: read_wants = POLLIN; break;
				case NET_WANT_WRITE: read_wants = POLLOUT; break;
				case NET_EOF:
					net_eof = true;
					shutdown(b->plain_fd, SHUT_WR);
					progress = true;
					break;
				default:
					return;
				}
			}
			if (n2p_off < n2p_len) {
				ssize_t w = send(b->plain_fd, b->n2p + n2p_off, n2p_len - n2p_off, MSG_NOSIGNAL);
				if (w > 0) {
					n2p_off += (size_t)w;
					__atomic_add_fetch(&b->plain_out, (uint64_t)w, __ATOMIC_RELAXED);
					progress = true;
				} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
					return; /* the plain end is gone */
				}
			}
			if (!plain_eof && p2n_off == p2n_len) {
				ssize_t r = recv(b->plain_fd, b->p2n, sizeof b->p2n, 0);
				if (r > 0) {
					size_t skip = MIN((size_t)r, b->drop);

					b->drop -= skip;
					p2n_len = (size_t)r;
					p2n_off = skip;
					__atomic_add_fetch(&b->plain_in, (uint64_t)r - skip, __ATOMIC_RELAXED);
					progress = true;
				} else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
					plain_eof = true;
					progress = true;
				}
			}
			int st = NET_DONE;
			if (p2n_off < p2n_len) {
				size_t n = 0;
				st = net_write(b, b->p2n + p2n_off, p2n_len - p2n_off, &n);
				if (st == NET_DONE) {
					p2n_off += n;
					write_wants = 0;
					progress = true;
				}
			} else if (plain_eof && !shut_sent) {
				/* Once; the peer's close is not awaited here but
				 * read like any record. */
				st = net_close(b);
				if (st == NET_DONE) {
					shut_sent = true;
					progress = true;
				}
			}
			if (st == NET_WANT_WRITE)
				write_wants = POLLOUT;
			else if (st == NET_WANT_READ)
				write_wants = POLLIN;
			else if (st != NET_DONE)
				return;
			count_net(b);
			if (shut_sent && ((net_eof && n2p_off == n2p_len) || plain_hup))
				return;
		} while (progress);

		struct pollfd p[3] = {
			{.fd = b->stop[0], .events = POLLIN},
			{.fd = b->net_fd, .events = 0},
			{.fd = b->plain_fd, .events = 0},
		};
		if (!net_eof && n2p_off == n2p_len)
			p[1].events |= read_wants;
		if (p2n_off < p2n_len || (plain_eof && !shut_sent))
			p[1].events |= write_wants ? write_wants : POLLOUT;
		/* A network socket we wait nothing from is left out: its
		 * hang-up would wake the poll again and again. The plain end's
		 * hang-up is wanted: it says nobody reads any more. */
		if (!p[1].events)
			p[1].fd = -1;
		if (!plain_eof && p2n_off == p2n_len)
			p[2].events |= POLLIN;
		if (n2p_off < n2p_len)
			p[2].events |= POLLOUT;
		if (!p[2].events && (!plain_eof || plain_hup))
			p[2].fd = -1;
		if (poll(p, 3, -1) < 0 && errno != EINTR)
			return;
		if (p[0].revents)
			return;
		if (plain_eof && (p[2].revents & (POLLHUP | POLLERR)))
			plain_hup = true;
		if (plain_hup && shut_sent)
			return;
		/* Otherwise an error or hang-up on a socket we wait on: the
		 * next reads and writes find out what it means. */
	}
}

static void bridge_release(vg_tls_bridge *b)
{
	vg_tls_free(b->t);
	close(b->net_fd);
	close(b->plain_fd);
	if (b->stop[0] >= 0) {
		close(b->stop[0]);
		close(b->stop[1]);
	}
	pthread_mutex_destroy(&b->lock);
	g_free(b);
}

static void *bridge_main(void *arg)
{
	vg_tls_bridge *b = arg;
	/* A write to a socket the peer reset must not kill the program. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	pump(b);
	/* The plain end sees end of file at once; the network socket is
	 * closed with the bridge. */
	shutdown(b->plain_fd, SHUT_RDWR);
	shutdown(b->net_fd, SHUT_RDWR);

	pthread_mutex_lock(&b->lock);
	b->finished = true;
	bool detached = b->detached;
	pthread_mutex_unlock(&b->lock);
	if (detached) {
		vg_tls_bridge_stats st;
		vg_tls_bridge_stats_get(b, &st);
		if (b->done_cb)
			b->done_cb(b->user, &st);
		bridge_release(b);
	}
	ERR_clear_error();
	return NULL;
}

int vg_tls_bridge_start(vg_tls *t, int net_fd, int plain_fd, vg_tls_bridge **out)
{
	return vg_tls_bridge_start_dropping(t, net_fd, plain_fd, 0, out);
}

int vg_tls_bridge_start_dropping(vg_tls *t, int net_fd, int plain_fd, size_t drop,
				 vg_tls_bridge **out)
{
	*out = NULL;
	vg_tls_bridge *b = g_new0(vg_tls_bridge, 1);
	b->t = t;
	b->drop = drop;
	b->net_fd = net_fd;
	b->plain_fd = plain_fd;
	b->stop[0] = b->stop[1] = -1;
	pthread_mutex_init(&b->lock, NULL);
	if (pipe(b->stop) != 0) {
		bridge_release(b);
		return VG_EIO;
	}
	for (int i = 0; i < 2; i++)
		fcntl(b->stop[i], F_SETFD, FD_CLOEXEC);
	fcntl(plain_fd, F_SETFL, fcntl(plain_fd, F_GETFL) | O_NONBLOCK);
	fcntl(net_fd, F_SETFL, fcntl(net_fd, F_GETFL) | O_NONBLOCK);
	if (pthread_create(&b->thread, NULL, bridge_main, b) != 0) {
		bridge_release(b);
		return VG_EIO;
	}
	*out = b;
	return 0;
}

int vg_tls_bridge_new(vg_tls *t, int net_fd, int *plain_fd, vg_tls_bridge **out)
{
	int sp[2];
	*out = NULL;
	*plain_fd = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0) {
		vg_tls_free(t);
		close(net_fd);
		return VG_EIO;
	}
	int rc = vg_tls_bridge_start(t, net_fd, sp[0], out);
	if (rc < 0) {
		close(sp[1]);
		return rc;
	}
	*plain_fd = sp[1];
	return 0;
}

void vg_tls_bridge_stats_get(vg_tls_bridge *b, vg_tls_bridge_stats *out)
{
	out->net_in = __atomic_load_n(&b->net_in, __ATOMIC_RELAXED);
	out->net_out = __atomic_load_n(&b->net_out, __ATOMIC_RELAXED);
	out->plain_in = __atomic_load_n(&b->plain_in, __ATOMIC_RELAXED);
	out->plain_out = __atomic_load_n(&b->plain_out, __ATOMIC_RELAXED);
}

void vg_tls_bridge_detach(vg_tls_bridge *b, vg_tls_bridge_done_cb done_cb, void *user)
{
	pthread_mutex_lock(&b->lock);
	if (b->finished) {
		pthread_mutex_unlock(&b->lock);
		pthread_join(b->thread, NULL);
		vg_tls_bridge_stats st;
		vg_tls_bridge_stats_get(b, &st);
		if (done_cb)
			done_cb(user, &st);
		bridge_release(b);
		return;
	}
	b->detached = true;
	b->done_cb = done_cb;
	b->user = user;
	pthread_detach(b->thread);
	pthread_mutex_unlock(&b->lock);
}

void vg_tls_bridge_free(vg_tls_bridge *b)
{
	if (!b)
		return;
	ssize_t w = write(b->stop[1], "x", 1);
	(void)w;
	pthread_join(b->thread, NULL);
	bridge_release(b);
}
