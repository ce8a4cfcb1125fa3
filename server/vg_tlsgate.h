/* vg_tlsgate: VeNCrypt on the server's accept path, in front of
 * LibVNCServer (which speaks only plain RFB).
 *
 * It is vg_listener's gate. On the screening thread of each connection it
 * speaks the RFB version and security-type list itself, runs VeNCrypt
 * (common/vg_vencrypt.h) and the TLS handshake (capture/vg_tls.h) under
 * one deadline, so that a peer that stalls or sends garbage holds only its
 * own thread. It then hands LibVNCServer the plain end of a socketpair
 * instead of the socket, with the client's RFB version already written
 * on it (LibVNCServer's WebSocket peek finds "RFB " at once), and after
 * the handover answers LibVNCServer's own security list on that plain end:
 * X509None becomes LibVNCServer's None, X509Vnc its VNC authentication,
 * whose challenge, response and SecurityResult then pass through the
 * bridge encrypted. A bridge thread (vg_tls_bridge) carries the session.
 *
 * Offered types: REQUIRE offers VeNCrypt alone (a client that cannot
 * speak it is refused with a reason: RFB 3.3 gets it in place of a type,
 * 3.8 after choosing any other); OFFER lists the plain type first and
 * VeNCrypt second. TigerVNC and LibVNCClient take the first type of the
 * server's list they know, so viewers that were not asked for TLS keep
 * working unchanged; a viewer that prefers TLS (varg-viewer, vncviewer
 * -SecurityTypes X509Vnc) chooses VeNCrypt. A plain client then passes
 * through a bridge without TLS. Only the subtype that matches
 * LibVNCServer's authentication is offered: X509Vnc with a password,
 * X509None without.
 *
 * WebSocket upgrades ("GET ") go to LibVNCServer as before; REQUIRE
 * refuses them (they would be unencrypted).
 */
#ifndef VG_TLSGATE_H
#define VG_TLSGATE_H

#include <stdbool.h>

typedef struct vg_tlsgate vg_tlsgate;

typedef enum {
	VG_TLSGATE_OFFER,   /* plain type first, VeNCrypt beside it */
	VG_TLSGATE_REQUIRE, /* VeNCrypt only */
} vg_tlsgate_mode;

typedef struct {
	vg_tlsgate_mode mode;
	const char *cert_file;   /* PEM certificate and key, both or neither */
	const char *key_file;
	const char *state_dir;   /* without them: where the generated pair lives */
	bool vnc_auth;           /* LibVNCServer asks for a password */
	int handshake_ms;        /* negotiation and TLS handshake; 0: 10000 */
	/* Whether the address peer is refused outright (blocked after failed
	 * passwords): it is closed before a byte is spoken, as LibVNCServer
	 * would. NULL: none is. Called on screening threads, many at once. */
	bool (*refuse_cb)(void *user, const char *peer);
	void *user;
} vg_tlsgate_config;

/* Loads or makes the certificate (capture/vg_tls.h). Errors, logged with
 * the file at fault: those of vg_tls_server_new. Free with
 * vg_tlsgate_free. */
int vg_tlsgate_new(const vg_tlsgate_config *cfg, vg_tlsgate **out);

/* The certificate's SHA-256 fingerprint as text, and its file; valid
 * while g lives. */
const char *vg_tlsgate_fingerprint(const vg_tlsgate *g);
const char *vg_tlsgate_cert_path(const vg_tlsgate *g);

/* What vg_listener's gate_cb and gate_done_cb do (server/vg_listener.h):
 * open speaks with the peer at fd (peer: its address, for the log) and
 * returns the plain end to hand to LibVNCServer, or -1 (fd closed);
 * done answers LibVNCServer on the other end and starts the bridge, or
 * frees state when the handover did not take place. state may be NULL
 * (a connection passed on as it was). */
int vg_tlsgate_open(vg_tlsgate *g, int fd, const char *peer, void **state);
void vg_tlsgate_done(vg_tlsgate *g, void *state, int handed);

typedef struct {
	unsigned long long tls;      /* sessions that went through TLS */
	unsigned long long plain;    /* clients that chose a plain type (OFFER) */
	unsigned long long refused;  /* negotiations refused or malformed */
	unsigned long long failed;   /* TLS handshakes that failed or timed out */
} vg_tlsgate_stats;

void vg_tlsgate_stats_get(vg_tlsgate *g, vg_tlsgate_stats *out);

/* After the listener and every client are gone: waits (a few seconds at
 * most) for bridges still ending, then frees g. NULL is fine. */
void vg_tlsgate_free(vg_tlsgate *g);

#endif
