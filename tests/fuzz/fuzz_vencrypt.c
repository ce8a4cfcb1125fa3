/* libFuzzer target for the VeNCrypt negotiation (common/vg_vencrypt): the
 * first byte picks the end, its configuration and the size of the pieces
 * fed; the rest is what the peer sends. Whatever the bytes, the machine
 * must consume no more than it is given, want nothing once it has ended,
 * keep its output bounded, and name the reason of a failure. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_vencrypt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t types_a[] = {VG_RFB_SEC_VENCRYPT};
	static const uint8_t types_b[] = {VG_RFB_SEC_VENCRYPT, VG_RFB_SEC_VNC, VG_RFB_SEC_NONE};
	static const uint32_t subs[] = {VG_VENCRYPT_X509VNC, VG_VENCRYPT_X509NONE};
	static const int minors[] = {0, 3, 7, 8};

	if (size < 1)
		return 0;
	uint8_t sel = data[0];
	vg_vencrypt_config cfg = {
		.rfb_minor = minors[(sel >> 2) & 3],
		.types = (sel & 2) ? types_b : types_a,
		.n_types = (sel & 2) ? sizeof types_b : sizeof types_a,
		.subtypes = subs,
		.n_subtypes = (sel & 16) ? 1 : 2,
		.reason = (sel & 32) ? "fuzz" : NULL,
	};
	size_t chunk = 1 + (size_t)(sel >> 6) * 7;
	vg_vencrypt *v = NULL;
	int rc = vg_vencrypt_new((sel & 1) ? VG_VENCRYPT_CLIENT : VG_VENCRYPT_SERVER, &cfg, &v);
	assert(rc == 0);

	size_t pos = 1;
	while (pos < size) {
		size_t n = size - pos < chunk ? size - pos : chunk, used = 0;
		rc = vg_vencrypt_feed(v, data + pos, n, &used);
		assert(used <= n);
		size_t len;
		vg_vencrypt_output(v, &len);
		assert(len <= 16 + 4 * VG_VENCRYPT_MAX_SUBTYPES + VG_VENCRYPT_MAX_REASON);
		vg_vencrypt_output_drop(v, len / 2);
		vg_vencrypt_output_drop(v, len);
		vg_vencrypt_status st = vg_vencrypt_status_get(v);
		if (st == VG_VENCRYPT_RUNNING) {
			assert(rc == 0);
			assert(used == n);
			assert(vg_vencrypt_want(v) > 0);
		} else {
			assert(vg_vencrypt_want(v) == 0);
			if (st == VG_VENCRYPT_FAILED)
				assert(rc < 0 && strlen(vg_vencrypt_error(v)) > 0);
			else
				assert(rc == 0);
			break;
		}
		pos += used;
	}
	vg_vencrypt_result r;
	if (vg_vencrypt_result_get(v, &r) == 0) {
		assert(r.rfb_minor == 3 || r.rfb_minor == 7 || r.rfb_minor == 8);
		assert(r.type == VG_RFB_SEC_VENCRYPT ? (r.subtype == subs[0] || r.subtype == subs[1]) : r.subtype == 0);
	}
	vg_vencrypt_free(v);
	return 0;
}
