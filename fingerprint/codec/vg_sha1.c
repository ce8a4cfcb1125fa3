#include <openssl/evp.h>
#include <stdlib.h>

#include "common/vg_error.h"
#include "common/vg_mem.h"
#include "fingerprint/codec/vg_sha1.h"

struct vg_sha1 {
	EVP_MD_CTX *ctx;
};

int vg_sha1_new(vg_sha1 **out)
{
	vg_sha1 *h = VG_NEW0(vg_sha1, 1);

	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx || vg_sha1_reset(h)) {
		vg_sha1_free(h);
		return VG_ECRYPTO;
	}
	*out = h;
	return VG_OK;
}

void vg_sha1_free(vg_sha1 *h)
{
	if (!h)
		return;
	EVP_MD_CTX_free(h->ctx);
	free(h);
}

int vg_sha1_reset(vg_sha1 *h)
{
	return EVP_DigestInit_ex(h->ctx, EVP_sha1(), NULL) == 1 ? VG_OK : VG_ECRYPTO;
}

int vg_sha1_update(vg_sha1 *h, const void *data, size_t len)
{
	return EVP_DigestUpdate(h->ctx, data, len) == 1 ? VG_OK : VG_ECRYPTO;
}

int vg_sha1_final(vg_sha1 *h, uint8_t out[VG_SHA1_LEN])
{
	unsigned int n = 0;

	if (EVP_DigestFinal_ex(h->ctx, out, &n) != 1 || n != VG_SHA1_LEN)
		return VG_ECRYPTO;
	return vg_sha1_reset(h);
}

int vg_sha1_digest(const void *data, size_t len, uint8_t out[VG_SHA1_LEN])
{
	unsigned int n = 0;

	if (EVP_Digest(data, len, out, &n, EVP_sha1(), NULL) != 1 || n != VG_SHA1_LEN)
		return VG_ECRYPTO;
	return VG_OK;
}
