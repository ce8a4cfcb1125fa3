/* FBS files: blocks of a recorded RFB server stream with times. */
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_reader.h"
#include "traces/vg_fbs.h"

#define FBS_MAGIC "FBS 001."
#define FBS_VERSION "FBS 001.000\n"
#define FBS_HEADER_LEN 12

int vg_fbs_parse(const uint8_t *data, size_t len, GByteArray *stream, GArray *marks, size_t *bad_offset)
{
	vg_reader r;
	uint32_t last_ms = 0;

	*bad_offset = 0;
	if (len < FBS_HEADER_LEN || memcmp(data, FBS_MAGIC, strlen(FBS_MAGIC)) != 0)
		return VG_EFORMAT;
	if (memcmp(data, FBS_VERSION, FBS_HEADER_LEN) != 0)
		return VG_ENOTSUP;
	vg_reader_init(&r, data, len);
	vg_reader_skip(&r, FBS_HEADER_LEN);
	while (vg_reader_remaining(&r) > 0) {
		size_t start = r.pos;
		uint32_t n, ms;
		const uint8_t *p;
		vg_fbs_mark m;

		if (vg_reader_u32be(&r, &n) || vg_reader_ptr(&r, n, &p) ||
		    vg_reader_skip(&r, (4 - n % 4) % 4) || vg_reader_u32be(&r, &ms)) {
			*bad_offset = start;
			return VG_ETRUNC;
		}
		last_ms = MAX(last_ms, ms);
		g_byte_array_append(stream, p, n);
		m.end = stream->len;
		m.ms = last_ms;
		g_array_append_val(marks, m);
	}
	return VG_OK;
}

uint32_t vg_fbs_time_at(const GArray *marks, uint64_t pos, guint *hint)
{
	guint i = *hint;

	if (marks->len == 0)
		return 0;
	while (i + 1 < marks->len && g_array_index(marks, vg_fbs_mark, i).end < pos)
		i++;
	*hint = i;
	return g_array_index(marks, vg_fbs_mark, i).ms;
}
