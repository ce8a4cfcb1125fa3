/* SHA-1 (FIPS 180-1) in plain C, with the interface of
 * fingerprint/codec/vg_sha1.h: what the WebAssembly build links instead of
 * fingerprint/codec/vg_sha1.c, which goes through OpenSSL. Both hash the same
 * bytes (tests/unit/test_sha1_portable.c compares them). */
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_mem.h"
#include "common/vg_minmax.h"
#include "fingerprint/codec/vg_sha1.h"

struct vg_sha1 {
	uint32_t h[5];
	uint64_t bytes;     /* message length so far */
	uint8_t block[64];  /* a partial block */
	size_t fill;        /* bytes in block */
};

static uint32_t rol32(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

static void sha1_block(vg_sha1 *c, const uint8_t *p)
{
	uint32_t w[80], a, b, cc, d, e;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 80; i++)
		w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	a = c->h[0], b = c->h[1], cc = c->h[2], d = c->h[3], e = c->h[4];
	for (i = 0; i < 80; i++) {
		uint32_t f, k, t;

		if (i < 20)
			f = (b & cc) | (~b & d), k = 0x5a827999;
		else if (i < 40)
			f = b ^ cc ^ d, k = 0x6ed9eba1;
		else if (i < 60)
			f = (b & cc) | (b & d) | (cc & d), k = 0x8f1bbcdc;
		else
			f = b ^ cc ^ d, k = 0xca62c1d6;
		t = rol32(a, 5) + f + e + k + w[i];
		e = d, d = cc, cc = rol32(b, 30), b = a, a = t;
	}
	c->h[0] += a, c->h[1] += b, c->h[2] += cc, c->h[3] += d, c->h[4] += e;
}

int vg_sha1_new(vg_sha1 **out)
{
	vg_sha1 *h = VG_NEW0(vg_sha1, 1);

	vg_sha1_reset(h);
	*out = h;
	return VG_OK;
}

void vg_sha1_free(vg_sha1 *h)
{
	free(h);
}

int vg_sha1_reset(vg_sha1 *h)
{
	h->h[0] = 0x67452301;
	h->h[1] = 0xefcdab89;
	h->h[2] = 0x98badcfe;
	h->h[3] = 0x10325476;
	h->h[4] = 0xc3d2e1f0;
	h->bytes = 0;
	h->fill = 0;
	return VG_OK;
}

int vg_sha1_update(vg_sha1 *h, const void *data, size_t len)
{
	const uint8_t *p = data;

	if (len == 0)
		return VG_OK;
	h->bytes += len;
	if (h->fill > 0) {
		size_t k = VG_MIN(len, sizeof h->block - h->fill);

		memcpy(h->block + h->fill, p, k);
		h->fill += k, p += k, len -= k;
		if (h->fill < sizeof h->block)
			return VG_OK;
		sha1_block(h, h->block);
		h->fill = 0;
	}
	for (; len >= sizeof h->block; p += sizeof h->block, len -= sizeof h->block)
		sha1_block(h, p);
	memcpy(h->block, p, len);
	h->fill = len;
	return VG_OK;
}

int vg_sha1_final(vg_sha1 *h, uint8_t out[VG_SHA1_LEN])
{
	uint64_t bits = h->bytes * 8;
	uint8_t pad[72] = { 0x80 };
	size_t padn = (h->fill < 56 ? 56 : 120) - h->fill;
	int i;

	for (i = 0; i < 8; i++)
		pad[padn + i] = (uint8_t)(bits >> (56 - 8 * i));
	vg_sha1_update(h, pad, padn + 8);
	for (i = 0; i < VG_SHA1_LEN; i++)
		out[i] = (uint8_t)(h->h[i / 4] >> (24 - 8 * (i % 4)));
	return vg_sha1_reset(h);
}

int vg_sha1_digest(const void *data, size_t len, uint8_t out[VG_SHA1_LEN])
{
	vg_sha1 h;

	vg_sha1_reset(&h);
	vg_sha1_update(&h, data, len);
	return vg_sha1_final(&h, out);
}
