/* libFuzzer target for FBS import: the FBS container and the RFB stream
 * decoder behind it (every encoding). Any input must give frames or a
 * clean error with a reason, never a crash, a leak or an access out of
 * bounds. Framebuffers are capped small so that memory stays bounded. */
#include <assert.h>
#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_error.h"
#include "traces/vg_fbs.h"
#include "traces/vg_rfbstream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	GByteArray *stream = g_byte_array_new();
	GArray *marks = g_array_new(FALSE, FALSE, sizeof(vg_fbs_mark));
	vg_rfbstream *dec = vg_rfbstream_new(1 << 18);
	size_t bad, pos = 0, used;
	guint hint = 0;
	uint32_t last = 0;
	int err;

	err = vg_fbs_parse(data, size, stream, marks, &bad);
	if (err != VG_OK && err != VG_ETRUNC)
		goto out;
	if (vg_rfbstream_handshake(dec, stream->data, stream->len, &used)) {
		assert(vg_rfbstream_error_text(dec)[0] != '\0');
		goto out;
	}
	pos = used;
	while (pos < stream->len) {
		err = vg_rfbstream_message(dec, stream->data + pos, stream->len - pos, &used);
		if (err < 0) {
			assert(vg_rfbstream_error_text(dec)[0] != '\0');
			break;
		}
		assert(used > 0 && used <= stream->len - pos);
		pos += used;
		/* Times never go backwards. */
		{
			uint32_t t = vg_fbs_time_at(marks, pos, &hint);

			assert(t >= last);
			last = t;
		}
	}
out:
	vg_rfbstream_free(dec);
	g_byte_array_free(stream, TRUE);
	g_array_free(marks, TRUE);
	return 0;
}
