#include "fingerprint/proto/vg_history.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "common/vg_array.h"
#include "common/vg_error.h"
#include "common/vg_file.h"
#include "common/vg_mem.h"
#include "common/vg_seghash.h"
#include "fingerprint/proto/vg_proto.h"

#define MAGIC "VGHISTRY"
#define VERSION 1

/* Items live in one array from `base` on: dropping the oldest only moves
 * base, and the array is compacted when half of it is dropped, so an
 * append costs O(1) amortised. The map (open addressing, physical index +
 * 1) finds the newest item of a key; entries below base are stale. */
struct vg_history {
	vg_array *items; /* vg_repeat_item */
	size_t base;     /* the oldest live item */
	uint32_t *map;
	size_t map_cap;  /* a power of two, at least twice the items */
	size_t max;      /* live items kept */
	bool indexed;    /* keeps the map */
};

vg_history *vg_history_new(size_t max, bool indexed)
{
	vg_history *h = VG_NEW0(vg_history, 1);

	h->max = max;
	h->indexed = indexed;
	h->items = vg_array_new(sizeof(vg_repeat_item));
	return h;
}

void vg_history_free(vg_history *h)
{
	if (!h)
		return;
	vg_array_free(h->items);
	free(h->map);
	free(h);
}

size_t vg_history_len(const vg_history *h)
{
	return h->items->len - h->base;
}

const vg_repeat_item *vg_history_at(const vg_history *h, size_t i)
{
	return &VG_ARRAY_AT(h->items, vg_repeat_item, h->base + i);
}

static size_t slot_of(uint64_t key, size_t cap)
{
	return (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (cap - 1);
}

static void map_put(vg_history *h, size_t phys)
{
	const vg_repeat_item *it = &VG_ARRAY_AT(h->items, vg_repeat_item, phys);
	uint64_t key = it->key;
	size_t s;

	if (!it->keyed)
		return;
	for (s = slot_of(key, h->map_cap); h->map[s]; s = (s + 1) & (h->map_cap - 1))
		if (VG_ARRAY_AT(h->items, vg_repeat_item, h->map[s] - 1).key == key)
			break;
	h->map[s] = (uint32_t)phys + 1;
}

static void map_rebuild(vg_history *h)
{
	size_t cap = 64, i;

	if (!h->indexed)
		return;
	while (cap < 2 * (size_t)h->items->len)
		cap *= 2;
	if (cap != h->map_cap) {
		free(h->map);
		h->map = VG_NEW(uint32_t, cap);
		h->map_cap = cap;
	}
	memset(h->map, 0, cap * sizeof *h->map);
	for (i = h->base; i < h->items->len; i++)
		map_put(h, i);
}

void vg_history_append(vg_history *h, const vg_repeat_item *items, size_t n)
{
	size_t i, first = h->items->len;

	if (n == 0)
		return;
	vg_array_append(h->items, items, n);
	if (vg_history_len(h) > h->max)
		h->base = h->items->len - h->max;
	if (h->base > h->items->len / 2) {
		vg_array_remove(h->items, 0, h->base);
		h->base = 0;
		map_rebuild(h);
	} else if (!h->indexed) {
		return;
	} else if (h->map_cap < 2 * (size_t)h->items->len) {
		map_rebuild(h);
	} else {
		for (i = first; i < h->items->len; i++)
			map_put(h, i);
	}
}

bool vg_history_find(const vg_history *h, uint64_t key, size_t *index)
{
	size_t s;

	if (!h->map_cap)
		return false;
	for (s = slot_of(key, h->map_cap); h->map[s]; s = (s + 1) & (h->map_cap - 1)) {
		size_t phys = h->map[s] - 1;

		if (VG_ARRAY_AT(h->items, vg_repeat_item, phys).key != key)
			continue;
		if (phys < h->base)
			return false;
		*index = phys - h->base;
		return true;
	}
	return false;
}

void vg_history_clear(vg_history *h)
{
	vg_array_set_len(h->items, 0);
	h->base = 0;
	if (h->map)
		memset(h->map, 0, h->map_cap * sizeof *h->map);
}

void vg_history_swap(vg_history *a, vg_history *b)
{
	vg_history t = *a;

	*a = *b;
	*b = t;
}

uint64_t vg_history_digest(const vg_history *h, unsigned fp_bits)
{
	size_t n = vg_history_len(h);
	uint64_t d = vg_seghash_fmix(VG_SEGHASH_SEED ^ fp_bits ^ ((uint64_t)n << 8));

	if (n == 0)
		return 0;
	/* Chained so that the order of the items counts, not only the set. */
	for (size_t i = 0; i < n; i++) {
		const vg_repeat_item *it = vg_history_at(h, i);

		d = vg_seghash_fmix(d ^ it->key);
		d = vg_seghash_fmix(d ^ it->hash);
		d = vg_seghash_fmix(d ^ ((uint64_t)it->len << 1 | 1));
	}
	return d ? d : 1;
}

void vg_history_write(const vg_history *h, vg_writer *out)
{
	size_t n = vg_history_len(h);

	vg_writer_u32le(out, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		const vg_repeat_item *it = vg_history_at(h, i);

		vg_writer_u64le(out, it->key);
		vg_writer_u64le(out, it->hash);
		vg_writer_u32le(out, it->len);
		vg_writer_u8(out, 1);
	}
}

int vg_history_read(vg_reader *r, vg_history *h)
{
	uint32_t n, i;

	vg_history_clear(h);
	if (vg_reader_u32le(r, &n))
		return VG_ETRUNC;
	if (n > h->max)
		return VG_ECORRUPT;
	if (vg_reader_remaining(r) < (size_t)n * VG_HISTORY_ITEM_BYTES)
		return VG_ETRUNC;
	vg_array_set_len(h->items, n);
	for (i = 0; i < n; i++) {
		vg_repeat_item *it = &VG_ARRAY_AT(h->items, vg_repeat_item, i);
		uint8_t keyed;

		/* Cannot fail: the length was checked above. */
		vg_reader_u64le(r, &it->key);
		vg_reader_u64le(r, &it->hash);
		vg_reader_u32le(r, &it->len);
		vg_reader_u8(r, &keyed);
		if (it->len == 0 || keyed != 1) {
			vg_history_clear(h);
			return VG_ECORRUPT;
		}
		it->keyed = 1;
	}
	map_rebuild(h);
	return VG_OK;
}

int vg_history_save(const char *dir, unsigned fp_bits, const vg_history *h)
{
	VG_AUTOFREE char *path = vg_file_path(dir, VG_HISTORY_FILE, NULL);
	VG_AUTOFREE char *tmp = vg_mem_printf("%s.tmp-XXXXXX", path);
	vg_writer w;
	int fd, ok;

	vg_writer_init(&w);
	vg_writer_bytes(&w, MAGIC, 8);
	vg_writer_u32le(&w, VERSION);
	vg_writer_u8(&w, (uint8_t)fp_bits);
	vg_history_write(h, &w);
	vg_writer_u32le(&w, (uint32_t)crc32(0L, w.data, (uInt)w.len));
	fd = vg_file_temp(tmp);
	if (fd < 0) {
		vg_writer_clear(&w);
		return VG_EIO;
	}
	ok = write(fd, w.data, w.len) == (ssize_t)w.len && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	vg_writer_clear(&w);
	if (!ok || rename(tmp, path) != 0) {
		unlink(tmp);
		return VG_EIO;
	}
	return VG_OK;
}

int vg_history_load(const char *dir, unsigned *fp_bits, vg_history *h)
{
	VG_AUTOFREE char *path = vg_file_path(dir, VG_HISTORY_FILE, NULL);
	VG_AUTOFREE char *buf = NULL;
	size_t len = 0;
	const uint8_t *p;
	vg_reader r;
	uint32_t version, crc;
	uint8_t bits;
	int err;

	vg_history_clear(h);
	if (vg_file_read(path, &buf, &len) != 0)
		return vg_file_exists(path) ? VG_EIO : VG_ENOENT;
	p = (const uint8_t *)buf;
	if (len < 8 || memcmp(p, MAGIC, 8) != 0)
		return VG_EFORMAT;
	vg_reader_init(&r, p + 8, len - 8);
	if (vg_reader_u32le(&r, &version))
		return VG_ETRUNC;
	if (version != VERSION)
		return VG_ENOTSUP;
	if (len < 8 + 4 + 1 + 4 + 4)
		return VG_ETRUNC;
	crc = (uint32_t)p[len - 4] | (uint32_t)p[len - 3] << 8 | (uint32_t)p[len - 2] << 16 |
	      (uint32_t)p[len - 1] << 24;
	if (crc != (uint32_t)crc32(0L, p, (uInt)(len - 4)))
		return VG_ECORRUPT;
	vg_reader_init(&r, p + 12, len - 16);
	if (vg_reader_u8(&r, &bits))
		return VG_ETRUNC;
	if ((err = vg_history_read(&r, h)))
		return err;
	if (vg_reader_remaining(&r) != 0 || bits < VG_FP_BITS_MIN || bits > VG_FP_BITS_MAX) {
		vg_history_clear(h);
		return VG_ECORRUPT;
	}
	*fp_bits = bits;
	return VG_OK;
}
