/* SHA-1, the conservative fingerprint, through OpenSSL's EVP interface. */
#ifndef VG_SHA1_H
#define VG_SHA1_H

#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"

#define VG_SHA1_LEN 20

typedef struct vg_sha1 vg_sha1;

/* Creates a context ready for data; VG_ECRYPTO if OpenSSL cannot. */
int vg_sha1_new(vg_sha1 **out);

/* Frees h; accepts NULL. */
void vg_sha1_free(vg_sha1 *h);

/* Starts a new digest, forgetting any data given so far. */
int vg_sha1_reset(vg_sha1 *h);

int vg_sha1_update(vg_sha1 *h, const void *data, size_t len);

/* Adds the pixels of rect of pb (which must contain it), row by row, 4
 * little-endian bytes a pixel: what both ends of a Varg connection hash. */
int vg_sha1_update_rect(vg_sha1 *h, const vg_pixbuf *pb, vg_rect rect);

/* Writes the digest to out and starts a new one. */
int vg_sha1_final(vg_sha1 *h, uint8_t out[VG_SHA1_LEN]);

/* One-shot digest of len bytes. */
int vg_sha1_digest(const void *data, size_t len, uint8_t out[VG_SHA1_LEN]);

#endif
