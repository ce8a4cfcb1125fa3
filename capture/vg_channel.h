/* vg_channel: the viewer's way through an RFB server's security
 * handshake, TLS included, to a plain stream for LibVNCClient.
 *
 * On a connected socket, the channel reads the server's version and
 * security types itself. When the server offers VeNCrypt (type 19) it
 * negotiates X509None or X509Vnc (common/vg_vencrypt), runs TLS
 * (capture/vg_tls) and checks the server's certificate: against a CA
 * file, a pinned fingerprint, or the known hosts (capture/vg_knownhosts,
 * trust on first use). It then gives the caller the plain end of a
 * socketpair on which LibVNCClient finds a plain server: the version, then
 * one security type, None for X509None and VNC authentication for
 * X509Vnc, after which every byte is the server's, decrypted (the
 * SecurityResult, the VNC challenge, the session). A thread moves bytes
 * between the two ends. A server that does not offer VeNCrypt gets the
 * same treatment without TLS (the plain end then shows its own list of
 * types), unless TLS is required.
 *
 * Deadlines and cancellation: every wait ends by deadline_ns; a caller who
 * wants to stop it early shuts the network socket down (vg_dial_watch).
 */
#ifndef VG_CHANNEL_H
#define VG_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/vg_knownhosts.h"

typedef struct vg_channel vg_channel;

typedef struct {
	bool tls_required;        /* refuse a server without VeNCrypt */
	const char *ca_file;      /* PEM CA certificates; NULL: none */
	/* The certificate's fingerprint, pinned; NULL: none. */
	const uint8_t *fingerprint;
	/* Known hosts (vg_knownhosts), used when neither ca_file nor
	 * fingerprint is set, and updated when fingerprint matched. */
	const char *trust_dir;
	const char *host;         /* the server's name, for the certificate and known hosts */
	int port;
	const char *via;          /* the SSH gateway host is named on, or NULL */
	uint64_t deadline_ns;     /* vg_time_ns clock */
} vg_channel_config;

typedef struct {
	bool encrypted;
	char version[16];         /* "TLSv1.3"; "" when not encrypted */
	char cipher[64];
	char fingerprint[VG_TLS_FP_TEXT]; /* the server certificate's */
	/* "ca", "pinned", "known", "first use"; NULL when not encrypted.
	 * A static string. */
	const char *trust;
} vg_channel_info;

/* Runs the security handshake on net_fd (connected; the channel owns it
 * from here, also on failure, and closes it at vg_channel_free). On
 * success *out is the channel and *plain_fd the plain end for
 * LibVNCClient, which owns that one (closes it). Errors, with one line in
 * why: VG_EIO (the connection failed or closed, or the server refused
 * us before authentication, saying why), VG_ETIMEDOUT (the deadline
 * passed), VG_EPROTO (the server broke RFB or VeNCrypt, or offers no
 * security type the viewer speaks), VG_ECRYPTO (TLS failed, the certificate is not trusted, or TLS is
 * required and not offered). */
int vg_channel_open(int net_fd, const vg_channel_config *cfg, vg_channel **out, int *plain_fd,
		    char *why, size_t why_cap);

/* What protects the channel; valid any time until vg_channel_free. */
void vg_channel_get_info(const vg_channel *ch, vg_channel_info *info);

/* The network socket, for its kernel counters. */
int vg_channel_net_fd(const vg_channel *ch);

/* Stops the thread, closes the network socket and frees ch; accepts
 * NULL. */
void vg_channel_free(vg_channel *ch);

#endif
