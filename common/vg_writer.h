/* A growable byte buffer for building messages and records.
 *
 * Writes cannot fail: memory comes from vg_mem, which aborts on exhaustion.
 * The writer owns its bytes until vg_writer_steal() hands them over.
 */
#ifndef VG_WRITER_H
#define VG_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "common/vg_rect.h"

typedef struct {
	uint8_t *data;
	size_t len;
	size_t cap;
} vg_writer;

/* Starts empty; no allocation until the first write. */
void vg_writer_init(vg_writer *w);

/* Frees the bytes; the writer is empty and usable again. */
void vg_writer_clear(vg_writer *w);

/* Forgets the contents but keeps the allocation for reuse. */
static inline void vg_writer_reset(vg_writer *w)
{
	w->len = 0;
}

/* Appends n uninitialised bytes and returns a pointer to them, valid until
 * the next write. */
uint8_t *vg_writer_reserve(vg_writer *w, size_t n);

/* Makes sure n more bytes fit without reallocating. */
void vg_writer_ensure(vg_writer *w, size_t n);

void vg_writer_bytes(vg_writer *w, const void *src, size_t n);
void vg_writer_u8(vg_writer *w, uint8_t v);
void vg_writer_u16be(vg_writer *w, uint16_t v);
void vg_writer_u32be(vg_writer *w, uint32_t v);
void vg_writer_u64be(vg_writer *w, uint64_t v);
void vg_writer_u16le(vg_writer *w, uint16_t v);
void vg_writer_u32le(vg_writer *w, uint32_t v);
void vg_writer_u64le(vg_writer *w, uint64_t v);

/* The low nbytes (1..8) bytes of v, big-endian. */
void vg_writer_uint_be(vg_writer *w, unsigned nbytes, uint64_t v);

/* An unsigned LEB128 varint (1 to 10 bytes). */
void vg_writer_uleb(vg_writer *w, uint64_t v);

/* How many bytes vg_writer_uleb() writes for v. */
size_t vg_writer_uleb_size(uint64_t v);

/* x, y, width and height of rect (none negative), each as a uleb. */
void vg_writer_rect(vg_writer *w, vg_rect rect);

/* Overwrites 4 bytes at offset (which must lie within the written bytes):
 * for lengths known only after the body is written. */
void vg_writer_patch_u32be(vg_writer *w, size_t offset, uint32_t v);
void vg_writer_patch_u32le(vg_writer *w, size_t offset, uint32_t v);

/* Hands the bytes to the caller (free with free()); *len receives their
 * count. The writer is left empty. */
uint8_t *vg_writer_steal(vg_writer *w, size_t *len);

#endif
