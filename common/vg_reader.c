#include <string.h>

#include "common/vg_error.h"
#include "common/vg_pixbuf.h"
#include "common/vg_reader.h"

int vg_reader_ptr(vg_reader *r, size_t n, const uint8_t **p)
{
	if (n > vg_reader_remaining(r))
		return VG_ETRUNC;
	*p = r->data + r->pos;
	r->pos += n;
	return VG_OK;
}

int vg_reader_bytes(vg_reader *r, void *dst, size_t n)
{
	const uint8_t *p;
	int err = vg_reader_ptr(r, n, &p);

	if (err == 0 && n)
		memcpy(dst, p, n);
	return err;
}

int vg_reader_skip(vg_reader *r, size_t n)
{
	const uint8_t *p;

	return vg_reader_ptr(r, n, &p);
}

int vg_reader_u8(vg_reader *r, uint8_t *v)
{
	const uint8_t *p;
	int err = vg_reader_ptr(r, 1, &p);

	if (err == 0)
		*v = p[0];
	return err;
}

static uint64_t load_be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static uint64_t load_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	for (i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

int vg_reader_uint_be(vg_reader *r, unsigned nbytes, uint64_t *v)
{
	const uint8_t *p;
	int err;

	if (nbytes < 1 || nbytes > 8)
		return VG_EINVAL;
	err = vg_reader_ptr(r, nbytes, &p);
	if (err == 0)
		*v = load_be(p, nbytes);
	return err;
}

#define READER_FIXED(name, type, n, load)                 \
	int name(vg_reader *r, type *v)                   \
	{                                                 \
		const uint8_t *p;                         \
		int err = vg_reader_ptr(r, n, &p);        \
		if (err == 0)                             \
			*v = (type)load(p, n);            \
		return err;                               \
	}

READER_FIXED(vg_reader_u16be, uint16_t, 2, load_be)
READER_FIXED(vg_reader_u32be, uint32_t, 4, load_be)
READER_FIXED(vg_reader_u64be, uint64_t, 8, load_be)
READER_FIXED(vg_reader_u16le, uint16_t, 2, load_le)
READER_FIXED(vg_reader_u32le, uint32_t, 4, load_le)
READER_FIXED(vg_reader_u64le, uint64_t, 8, load_le)

int vg_reader_uleb(vg_reader *r, uint64_t *v)
{
	uint64_t out = 0;
	size_t i, avail = vg_reader_remaining(r);

	for (i = 0; i < 10; i++) {
		uint8_t b;

		if (i >= avail)
			return VG_ETRUNC;
		b = r->data[r->pos + i];
		/* The tenth byte may carry only the 64th bit. */
		if (i == 9 && (b & 0x7e))
			return VG_ERANGE;
		out |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			r->pos += i + 1;
			*v = out;
			return VG_OK;
		}
	}
	return VG_ERANGE;
}

int vg_reader_dim(vg_reader *r, int32_t *v)
{
	uint64_t u;
	int err = vg_reader_uleb(r, &u);

	if (err)
		return err;
	if (u > VG_MAX_DIM)
		return VG_ERANGE;
	*v = (int32_t)u;
	return VG_OK;
}

int vg_reader_rect(vg_reader *r, vg_rect *rect)
{
	int err;

	if ((err = vg_reader_dim(r, &rect->x)) || (err = vg_reader_dim(r, &rect->y)) ||
	    (err = vg_reader_dim(r, &rect->w)) || (err = vg_reader_dim(r, &rect->h)))
		return err;
	return VG_OK;
}
