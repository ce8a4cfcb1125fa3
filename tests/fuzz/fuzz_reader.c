/* libFuzzer target for the byte reader: the input's first bytes choose a
 * sequence of reads over the rest. No read may pass the end, and a failed
 * read must consume nothing. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_error.h"
#include "common/vg_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	vg_reader ops, r;
	uint8_t op, buf[64];
	size_t nops;

	if (size < 1)
		return 0;
	nops = data[0] % 32;
	if (nops + 1 > size)
		return 0;
	vg_reader_init(&ops, data + 1, nops);
	vg_reader_init(&r, data + 1 + nops, size - 1 - nops);
	while (vg_reader_u8(&ops, &op) == 0) {
		size_t before = r.pos;
		uint64_t v64;
		uint32_t v32;
		uint16_t v16;
		const uint8_t *p;
		int err;

		switch (op % 10) {
		case 0: err = vg_reader_u8(&r, buf); break;
		case 1: err = vg_reader_u16be(&r, &v16); break;
		case 2: err = vg_reader_u32le(&r, &v32); break;
		case 3: err = vg_reader_u64be(&r, &v64); break;
		case 4: err = vg_reader_uleb(&r, &v64); break;
		case 5: err = vg_reader_uint_be(&r, op / 10 % 9, &v64); break;
		case 6: err = vg_reader_bytes(&r, buf, op % sizeof buf); break;
		case 7: err = vg_reader_skip(&r, op); break;
		case 8: err = vg_reader_ptr(&r, op / 3, &p); if (!err && op / 3) v32 = p[op / 3 - 1]; break;
		default: err = vg_reader_u64le(&r, &v64); break;
		}
		assert(r.pos <= r.len);
		if (err)
			assert(r.pos == before);
	}
	return 0;
}
