/* vg_tls: TLS through OpenSSL for VeNCrypt sessions, server and client.
 *
 * A context holds what every session of one end shares: TLS 1.2 or
 * later with forward-secret AEAD ciphers only, and for a server its
 * certificate and key, for a client the CA to verify against (or none).
 * A session is one handshake on a connected socket, with a deadline. A
 * bridge then carries the session's bytes, decrypted, to the plain end of
 * a socketpair on a thread of its own, so that LibVNCServer or
 * LibVNCClient read and write an ordinary stream.
 *
 * A server with no certificate of its own gets a self-signed one, made on
 * first start in its state directory (tls-cert.pem and tls-key.pem, both
 * mode 0600, like an SSH host key); viewers recognise it by its SHA-256
 * fingerprint. Fingerprints are written as 32 upper-case hex pairs joined
 * by ':' (as `openssl x509 -fingerprint -sha256` prints them).
 */
#ifndef VG_TLS_H
#define VG_TLS_H

#include <stddef.h>
#include <stdint.h>

typedef struct vg_tls_ctx vg_tls_ctx;
typedef struct vg_tls vg_tls;
typedef struct vg_tls_bridge vg_tls_bridge;

#define VG_TLS_FP_LEN 32
/* Room for a fingerprint's text, its terminating NUL included. */
#define VG_TLS_FP_TEXT 96

/* The names of the generated files in a state directory. */
#define VG_TLS_CERT_FILE "tls-cert.pem"
#define VG_TLS_KEY_FILE "tls-key.pem"

/* A server context. With cert_file and key_file (both or neither), those
 * PEM files; without, state_dir's tls-cert.pem and tls-key.pem, made
 * there (a P-256 key and a self-signed certificate for this host's name,
 * localhost, 127.0.0.1 and ::1, valid ten years) when missing. Files that
 * exist but do not load, or a key that does not match its certificate,
 * are an error, never replaced. err (err_cap bytes, may be NULL) gets a
 * sentence naming the file. Errors: VG_EINVAL, VG_EIO (a file cannot be
 * read or written), VG_EFORMAT (not a certificate or key, or they do not
 * match), VG_ECRYPTO. Free with vg_tls_ctx_free. */
int vg_tls_server_new(const char *cert_file, const char *key_file, const char *state_dir,
		      vg_tls_ctx **out, char *err, size_t err_cap);

/* A client context verifying the server's certificate chain against the
 * PEM file ca_file, or, with NULL, not verifying it at all (the caller
 * then checks vg_tls_peer_fingerprint). Errors: VG_EIO, VG_EFORMAT,
 * VG_ECRYPTO, with err as above. Free with vg_tls_ctx_free. */
int vg_tls_client_new(const char *ca_file, vg_tls_ctx **out, char *err, size_t err_cap);

void vg_tls_ctx_free(vg_tls_ctx *c);

/* A server context's certificate: its SHA-256 fingerprint as text
 * (valid while c lives; "" for a client context), and the file it came
 * from (NULL for a client context). */
const char *vg_tls_ctx_fingerprint(const vg_tls_ctx *c);
const char *vg_tls_ctx_cert_path(const vg_tls_ctx *c);

/* Writes fp as text into out (VG_TLS_FP_TEXT bytes). */
void vg_tls_fingerprint_format(const uint8_t fp[VG_TLS_FP_LEN], char out[VG_TLS_FP_TEXT]);

/* Reads a fingerprint written as 64 hex digits, upper or lower case, with
 * or without ':' between pairs, optionally after "SHA256:" or "sha256:".
 * VG_EINVAL for anything else. */
int vg_tls_fingerprint_parse(const char *text, uint8_t fp[VG_TLS_FP_LEN]);

/* Runs the TLS handshake on the connected socket fd, as c's end, for at
 * most timeout_ms (<= 0: 10000). A client sends host (may be NULL) as the
 * server name and, when its context verifies, checks the certificate is
 * for it (a name or an IP address). fd stays the caller's and keeps its
 * blocking mode; the session must not outlive it. err as above gets the
 * reason of a failure. Errors: VG_ETIMEDOUT, VG_EIO (the peer closed or
 * the socket failed), VG_EAUTH (the certificate failed verification),
 * VG_EPROTO (the peer's bytes are not TLS, or no version or cipher in
 * common). Free with vg_tls_free. */
int vg_tls_handshake(vg_tls_ctx *c, int fd, const char *host, int timeout_ms,
		     vg_tls **out, char *err, size_t err_cap);

/* The peer certificate's SHA-256 fingerprint; VG_ENOENT if the peer
 * presented none. */
int vg_tls_peer_fingerprint(const vg_tls *t, uint8_t fp[VG_TLS_FP_LEN]);

/* The protocol and cipher agreed ("TLSv1.3", "TLS_AES_256_GCM_SHA384");
 * static strings. */
const char *vg_tls_protocol(const vg_tls *t);
const char *vg_tls_cipher(const vg_tls *t);

/* Frees a session that no bridge took; does not close its socket. NULL
 * is fine. */
void vg_tls_free(vg_tls *t);

typedef struct {
	uint64_t net_in;     /* bytes read from the network socket (TLS records) */
	uint64_t net_out;    /* bytes written to it */
	uint64_t plain_in;   /* plain bytes read from the plain end (sent encrypted) */
	uint64_t plain_out;  /* plain bytes written to the plain end (received decrypted) */
} vg_tls_bridge_stats;

/* Called once on the bridge's thread when a detached bridge ends, with
 * its final counters; the bridge is freed right after. */
typedef void (*vg_tls_bridge_done_cb)(void *user, const vg_tls_bridge_stats *st);

/* Starts a bridge: takes t and its socket net_fd (both owned by the
 * bridge from then on, even on failure), makes a socketpair, and gives
 * its other end in *plain_fd to the caller, who owns and closes it.
 * Bytes read from the plain end go to the peer encrypted, the peer's go
 * to the plain end decrypted. When the peer closes (close_notify or end
 * of the socket), the plain end sees end of file. When the caller closes
 * the plain end (or shuts down its writing), what it wrote is sent,
 * then close_notify, and the bridge ends. Errors: VG_EIO (no socketpair
 * or thread). Free with vg_tls_bridge_free, or detach. */
int vg_tls_bridge_new(vg_tls *t, int net_fd, int *plain_fd, vg_tls_bridge **out);

/* The same over a plain end the caller already has: takes t (NULL: no
 * TLS, the bytes pass as they are), net_fd and plain_fd, all owned by
 * the bridge from then on, even on failure. For a program that must
 * speak on the plain end before the bridge starts. Errors: VG_EIO. */
int vg_tls_bridge_start(vg_tls *t, int net_fd, int plain_fd, vg_tls_bridge **out);

/* As vg_tls_bridge_start, but the first drop bytes read from the plain
 * end are dropped, not sent (nor counted in plain_in): for a program that
 * spoke a negotiation to the peer itself and replays it to a library on
 * the plain end, whose answers the peer has had already. */
int vg_tls_bridge_start_dropping(vg_tls *t, int net_fd, int plain_fd, size_t drop,
				 vg_tls_bridge **out);

/* The counters so far (safe from any thread while b lives). */
void vg_tls_bridge_stats_get(vg_tls_bridge *b, vg_tls_bridge_stats *out);

/* Lets the bridge run on and free itself when it ends, calling done_cb
 * (may be NULL) first. b must not be used afterwards. */
void vg_tls_bridge_detach(vg_tls_bridge *b, vg_tls_bridge_done_cb done_cb, void *user);

/* Stops the bridge if it still runs (without waiting for either end),
 * waits for its thread, closes the network socket and frees b. NULL is
 * fine. */
void vg_tls_bridge_free(vg_tls_bridge *b);

#endif
