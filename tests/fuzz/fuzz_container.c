/* libFuzzer target for the container reader: any bytes parse without a
 * crash, and every entry reported lies inside the record area the parser
 * reported. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_error.h"
#include "fingerprint/cache/vg_container.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
	size_t size;
	uint64_t n;
} ctx;

static int check_entry(void *ud, const vg_container_entry *e)
{
	ctx *x = ud;

	assert(e->offset >= VG_CONTAINER_HEADER_BYTES);
	assert(e->offset % VG_CONTAINER_ALIGN == 0);
	assert(e->span >= VG_CONTAINER_RECORD_BYTES);
	assert(e->offset + e->span <= x->size + VG_CONTAINER_ALIGN);
	x->n++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	vg_container_info info;
	ctx x = { size, 0 };

	if (vg_container_parse(data, size, 64 * 1024, check_entry, &x, &info) != 0)
		return 0;
	assert(info.records_end >= VG_CONTAINER_HEADER_BYTES);
	assert(info.records_end <= info.header.area_bytes);
	if (info.sealed)
		assert(x.n == info.n_entries);
	return 0;
}
