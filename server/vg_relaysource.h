/* A Varg server upstream as the server's source (varg-relay): its screen
 * through the same connection varg-viewer uses (capture/vg_connection:
 * the receiver, a persistent segment cache of its own, the server's
 * beliefs about it), so that a site's viewers share one cache and one
 * stream across the WAN. Clients' input and clipboard go upstream, the
 * upstream's clipboard and cursor shapes come back, its size changes are
 * passed on as a resize. When the connection drops, the relay goes on
 * serving the last picture and connects again with backoff.
 *
 * The upstream connection reads at the WAN's pace whatever its clients
 * do: they are served from the server's frame by their own threads.
 */
#ifndef VG_RELAYSOURCE_H
#define VG_RELAYSOURCE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "server/vg_report.h"
#include "server/vg_server.h"

typedef struct vg_relaysource vg_relaysource;

typedef struct {
	const char *host;         /* the upstream (after -via: the tunnel's end) */
	int port;
	const char *password;     /* its VNC password; NULL: it must not ask */
	const char *cache_dir;    /* base of persistent segment caches; NULL: memory only */
	uint64_t cache_size;      /* bytes; 0: the cache's default */
	unsigned zstd_window_log; /* zstd window offered, log2 bytes; 0: zlib only */
	bool verbose;             /* pass LibVNCClient's log through */
	int timeout_ms;           /* connect + handshake; 0: 20 s */
	const gint *cancel;       /* non-zero stops a connect; may be NULL */
	bool no_reconnect;        /* a dropped connection ends the run */
	/* TLS towards the upstream, as vg_connection_config's: taken when
	 * offered; the certificate trusted by tls_ca, tls_fingerprint or on
	 * first use (known hosts in cache_dir, else the user's cache). */
	bool tls_required;        /* refuse an upstream without TLS */
	const char *tls_ca;       /* PEM file of CA certificates; NULL: none */
	const char *tls_fingerprint; /* the certificate's SHA-256; NULL: any */
	const char *tls_host;     /* the upstream as the user named it (before
				     -via); NULL: host, port */
	int tls_port;
	const char *tls_via;      /* the SSH gateway, or NULL */
} vg_relaysource_config;

/* Connects upstream (cfg is copied; its strings must outlive the
 * source). Errors as vg_connection_open_reason, the reason in why. */
int vg_relaysource_open(const vg_relaysource_config *cfg, vg_relaysource **out, char *why,
			size_t why_cap);

int32_t vg_relaysource_width(const vg_relaysource *v);
int32_t vg_relaysource_height(const vg_relaysource *v);

/* Fills in where clients' input goes (for vg_server_config.input). */
void vg_relaysource_input(vg_relaysource *v, vg_server_input *in);

/* Mirrors the upstream into srv until *stop becomes non-zero, connecting
 * again when the connection drops. Returns 0, or VG_EAUTH when the
 * upstream refused the password on a reconnection, VG_ECRYPTO when its
 * TLS certificate is not trusted (or it offers no TLS and tls_required
 * is set), VG_EIO when srv cannot follow a size change or, with
 * no_reconnect, when the connection dropped (vg_relaysource_error_text()). */
int vg_relaysource_run(vg_relaysource *v, vg_server *srv, const gint *stop);

/* The upstream's counts over every connection made; once run returned
 * (the connection's counts are the run thread's). */
void vg_relaysource_get_stats(vg_relaysource *v, vg_report_upstream *st);

const char *vg_relaysource_error_text(const vg_relaysource *v);

void vg_relaysource_free(vg_relaysource *v);

#endif
