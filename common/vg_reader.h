/* Bounds-checked reading of outside bytes.
 *
 * Every parse of bytes that come from a file or the network goes through a
 * vg_reader. A read that would pass the end returns VG_ETRUNC and consumes
 * nothing, so a caller can stop, wait for more bytes and retry. The reader
 * never owns its bytes.
 */
#ifndef VG_READER_H
#define VG_READER_H

#include <stddef.h>
#include <stdint.h>

#include "common/vg_rect.h"

typedef struct {
	const uint8_t *data;
	size_t len;
	size_t pos;
} vg_reader;

static inline void vg_reader_init(vg_reader *r, const void *data, size_t len)
{
	r->data = (const uint8_t *)data;
	r->len = data ? len : 0;
	r->pos = 0;
}

static inline size_t vg_reader_remaining(const vg_reader *r)
{
	return r->len - r->pos;
}

/* Each returns 0, or VG_ETRUNC without consuming anything. */
int vg_reader_u8(vg_reader *r, uint8_t *v);
int vg_reader_u16be(vg_reader *r, uint16_t *v);
int vg_reader_u32be(vg_reader *r, uint32_t *v);
int vg_reader_u64be(vg_reader *r, uint64_t *v);
int vg_reader_u16le(vg_reader *r, uint16_t *v);
int vg_reader_u32le(vg_reader *r, uint32_t *v);
int vg_reader_u64le(vg_reader *r, uint64_t *v);

/* An unsigned big-endian integer of nbytes (1..8) bytes; VG_EINVAL for
 * other widths. */
int vg_reader_uint_be(vg_reader *r, unsigned nbytes, uint64_t *v);

/* An unsigned LEB128 varint of at most 10 bytes. VG_ETRUNC if it is cut
 * short, VG_ERANGE if it does not fit 64 bits. */
int vg_reader_uleb(vg_reader *r, uint64_t *v);

/* A width, height or coordinate: a uleb of at most VG_MAX_DIM
 * (common/vg_pixbuf.h); VG_ERANGE above. */
int vg_reader_dim(vg_reader *r, int32_t *v);

/* A rectangle as vg_writer_rect() writes it: x, y, width, height, each
 * as vg_reader_dim() reads it. Whether it is empty or fits is the
 * caller's to check. */
int vg_reader_rect(vg_reader *r, vg_rect *rect);

/* Copies n bytes to dst. */
int vg_reader_bytes(vg_reader *r, void *dst, size_t n);

/* Points *p at the next n bytes without copying (valid as long as the
 * reader's bytes are). */
int vg_reader_ptr(vg_reader *r, size_t n, const uint8_t **p);

int vg_reader_skip(vg_reader *r, size_t n);

#endif
