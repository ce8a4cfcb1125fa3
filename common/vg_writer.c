#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_mem.h"
#include "common/vg_writer.h"

void vg_writer_init(vg_writer *w)
{
	w->data = NULL;
	w->len = 0;
	w->cap = 0;
}

void vg_writer_clear(vg_writer *w)
{
	free(w->data);
	vg_writer_init(w);
}

void vg_writer_ensure(vg_writer *w, size_t n)
{
	size_t need = w->len + n;

	if (need < w->len)
		vg_mem_die("vg_writer: size overflow");
	if (need <= w->cap)
		return;
	w->cap = w->cap ? w->cap : 64;
	while (w->cap < need)
		w->cap *= 2;
	w->data = vg_mem_realloc_n(w->data, w->cap, 1);
}

uint8_t *vg_writer_reserve(vg_writer *w, size_t n)
{
	uint8_t *p;

	vg_writer_ensure(w, n);
	p = w->data + w->len;
	w->len += n;
	return p;
}

void vg_writer_bytes(vg_writer *w, const void *src, size_t n)
{
	if (n)
		memcpy(vg_writer_reserve(w, n), src, n);
}

static void store_be(uint8_t *p, unsigned n, uint64_t v)
{
	while (n-- > 0) {
		p[n] = (uint8_t)v;
		v >>= 8;
	}
}

static void store_le(uint8_t *p, unsigned n, uint64_t v)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

void vg_writer_u8(vg_writer *w, uint8_t v) { *vg_writer_reserve(w, 1) = v; }
void vg_writer_u16be(vg_writer *w, uint16_t v) { store_be(vg_writer_reserve(w, 2), 2, v); }
void vg_writer_u32be(vg_writer *w, uint32_t v) { store_be(vg_writer_reserve(w, 4), 4, v); }
void vg_writer_u64be(vg_writer *w, uint64_t v) { store_be(vg_writer_reserve(w, 8), 8, v); }
void vg_writer_u16le(vg_writer *w, uint16_t v) { store_le(vg_writer_reserve(w, 2), 2, v); }
void vg_writer_u32le(vg_writer *w, uint32_t v) { store_le(vg_writer_reserve(w, 4), 4, v); }
void vg_writer_u64le(vg_writer *w, uint64_t v) { store_le(vg_writer_reserve(w, 8), 8, v); }

void vg_writer_uint_be(vg_writer *w, unsigned nbytes, uint64_t v)
{
	assert(nbytes >= 1 && nbytes <= 8);
	store_be(vg_writer_reserve(w, nbytes), nbytes, v);
}

void vg_writer_uleb(vg_writer *w, uint64_t v)
{
	do {
		uint8_t b = v & 0x7f;
		v >>= 7;
		vg_writer_u8(w, (uint8_t)(b | (v ? 0x80 : 0)));
	} while (v);
}

size_t vg_writer_uleb_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void vg_writer_patch_u32be(vg_writer *w, size_t offset, uint32_t v)
{
	assert(offset + 4 <= w->len);
	store_be(w->data + offset, 4, v);
}

void vg_writer_patch_u32le(vg_writer *w, size_t offset, uint32_t v)
{
	assert(offset + 4 <= w->len);
	store_le(w->data + offset, 4, v);
}

uint8_t *vg_writer_steal(vg_writer *w, size_t *len)
{
	uint8_t *p = w->data;

	*len = w->len;
	vg_writer_init(w);
	return p;
}

void vg_writer_rect(vg_writer *w, vg_rect rect)
{
	vg_writer_uleb(w, (uint64_t)rect.x);
	vg_writer_uleb(w, (uint64_t)rect.y);
	vg_writer_uleb(w, (uint64_t)rect.w);
	vg_writer_uleb(w, (uint64_t)rect.h);
}
