/* SHA-256 (FIPS 180-4) in plain C, one shot: what names a segment cache's
 * directory when a server's identity is not a plain word
 * (vg_segcache_namespace_dir), in every build, the browser's included. */
#ifndef VG_SHA256_H
#define VG_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define VG_SHA256_LEN 32

/* Writes the digest of data[0..len) into out. */
void vg_sha256(const void *data, size_t len, uint8_t out[VG_SHA256_LEN]);

#endif
