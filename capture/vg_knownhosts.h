/* The TLS certificates the viewer has seen, by server address: trust on
 * first use, as SSH's known_hosts. A small GLib key file, `known-hosts`,
 * beside the book of servers (vg_serverbook) in the viewer's cache
 * directory. The first certificate a server shows at an address is
 * remembered by its SHA-256 fingerprint; a later connection to that
 * address that meets another certificate is stopped by the caller, which
 * names both. Keyed by the address the user gave (HOST::PORT), not the
 * one dialled: through an SSH tunnel the local port changes every time.
 *
 * Fingerprints are VG_TLS_FP_LEN bytes, written in the file as
 * vg_tls_fingerprint_format does (as OpenSSL prints them).
 */
#ifndef VG_KNOWNHOSTS_H
#define VG_KNOWNHOSTS_H

#include <stdint.h>

#include "capture/vg_tls.h"

/* The store's file under dir; g_free the result. */
char *vg_knownhosts_path(const char *dir);

/* The fingerprint remembered for host and port, in fp. VG_ENOENT when
 * none is (no file, dir not a directory, or no entry), VG_EFORMAT when the file or the entry
 * is damaged (the caller must not take that as "unknown": a damaged store
 * would otherwise accept any certificate), VG_EINVAL for a NULL dir or
 * host. */
int vg_knownhosts_lookup(const char *dir, const char *host, int port,
			 uint8_t fp[VG_TLS_FP_LEN]);

/* Remembers fp for host and port, replacing what was there, and keeps
 * every other entry. Makes dir (0700) if needed; the file is replaced
 * whole, so a viewer that dies midway leaves the old one. VG_EINVAL for a
 * NULL dir or an empty host, VG_EFORMAT when the existing file is damaged
 * (it is left alone), VG_EIO when it cannot be written. */
int vg_knownhosts_remember(const char *dir, const char *host, int port,
			   const uint8_t fp[VG_TLS_FP_LEN]);

#endif
