#include <string.h>

#include "common/vg_crc32.h"
#include "common/vg_error.h"
#include "common/vg_reader.h"
#include "fingerprint/cache/vg_container.h"

static const uint8_t header_magic[8] = { 'V', 'A', 'R', 'G', 'S', 'E', 'G', 'C' };
#define RECORD_MAGIC 0x52534756u  /* "VGSR" */
#define FOOTER_MAGIC 0x54434756u  /* "VGCT" */
#define FOOTER_END   0x444e4556u  /* "VEND" */

static inline void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static bool key_fits(uint64_t key, uint32_t key_bits)
{
	return key_bits >= 64 || (key >> key_bits) == 0;
}

void vg_container_header_encode(const vg_container_header *h,
				uint8_t out[VG_CONTAINER_HEADER_BYTES])
{
	memset(out, 0, VG_CONTAINER_HEADER_BYTES);
	memcpy(out, header_magic, sizeof header_magic);
	put32(out + 8, VG_CONTAINER_VERSION);
	put32(out + 12, h->key_bits);
	put64(out + 16, h->seq);
	put64(out + 24, h->created_ns);
	put32(out + 32, h->area_bytes);
	put32(out + 60, vg_crc32(0, out, 60));
}

int vg_container_header_decode(const void *buf, size_t len, vg_container_header *h)
{
	const uint8_t *magic;
	uint32_t version, stored;
	vg_reader r;

	vg_reader_init(&r, buf, len);
	if (vg_reader_remaining(&r) < VG_CONTAINER_HEADER_BYTES)
		return VG_ETRUNC;
	(void)vg_reader_ptr(&r, sizeof header_magic, &magic);
	if (memcmp(magic, header_magic, sizeof header_magic) != 0)
		return VG_EFORMAT;
	(void)vg_reader_u32le(&r, &version);
	(void)vg_reader_u32le(&r, &h->key_bits);
	(void)vg_reader_u64le(&r, &h->seq);
	(void)vg_reader_u64le(&r, &h->created_ns);
	(void)vg_reader_u32le(&r, &h->area_bytes);
	(void)vg_reader_skip(&r, 60 - 36);
	(void)vg_reader_u32le(&r, &stored);
	if (stored != vg_crc32(0, buf, 60))
		return VG_ECORRUPT;
	if (version != VG_CONTAINER_VERSION)
		return VG_ENOTSUP;
	if (h->key_bits < 1 || h->key_bits > 64)
		return VG_ECORRUPT;
	if (h->area_bytes < VG_CONTAINER_HEADER_BYTES + VG_CONTAINER_RECORD_BYTES ||
	    h->area_bytes > VG_CONTAINER_MAX_AREA + VG_CONTAINER_HEADER_BYTES ||
	    h->area_bytes % VG_CONTAINER_ALIGN != 0)
		return VG_ECORRUPT;
	return 0;
}

void vg_container_record_encode(uint64_t key, uint64_t content_hash, uint32_t flags,
				const void *data, uint32_t len,
				uint8_t out[VG_CONTAINER_RECORD_BYTES])
{
	put32(out, RECORD_MAGIC);
	put32(out + 4, len);
	put64(out + 8, key);
	put64(out + 16, content_hash);
	put32(out + 24, flags);
	put32(out + 28, vg_container_crc_data(vg_container_crc_head(out), data, len));
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* Plain loads rather than a vg_reader: this runs on every cache hit. */
int vg_container_record_decode(const void *buf, size_t len, uint32_t max_data,
			       vg_container_record *rec)
{
	const uint8_t *p = buf;

	if (len < VG_CONTAINER_RECORD_BYTES)
		return VG_ETRUNC;
	rec->data_len = get32(p + 4);
	rec->key = get64(p + 8);
	rec->content_hash = get64(p + 16);
	rec->flags = get32(p + 24);
	rec->crc = get32(p + 28);
	if (get32(p) != RECORD_MAGIC)
		return VG_ECORRUPT;
	if (rec->flags & ~VG_CONTAINER_FLAG_TOMBSTONE)
		return VG_ECORRUPT;
	if ((rec->flags & VG_CONTAINER_FLAG_TOMBSTONE) && rec->data_len != 0)
		return VG_ECORRUPT;
	if (rec->data_len > max_data || rec->data_len > VG_CONTAINER_MAX_DATA)
		return VG_ECORRUPT;
	return 0;
}

uint32_t vg_container_crc_head(const uint8_t hdr[VG_CONTAINER_RECORD_BYTES])
{
	return vg_crc32(0, hdr, 28);
}

uint32_t vg_container_crc_data(uint32_t c, const void *data, size_t len)
{
	return len ? vg_crc32(c, data, len) : c;
}

void vg_container_trailer_encode(vg_writer *w, const vg_container_header *h,
				 const vg_container_entry *e, size_t n,
				 uint64_t records_end)
{
	size_t start = w->len, i;
	uint8_t *p;

	for (i = 0; i < n; i++) {
		vg_writer_u64le(w, e[i].key);
		vg_writer_u32le(w, (uint32_t)(e[i].offset / VG_CONTAINER_ALIGN));
		vg_writer_u32le(w, e[i].span);
	}
	vg_writer_u32le(w, FOOTER_MAGIC);
	vg_writer_u32le(w, (uint32_t)n);
	vg_writer_u64le(w, records_end);
	vg_writer_u64le(w, h->seq);
	p = w->data + start;
	vg_writer_u32le(w, vg_crc32(0, p, w->len - start));
	vg_writer_u32le(w, FOOTER_END);
}

int vg_container_footer_decode(const void *tail, size_t tail_len, uint64_t file_len,
			       const vg_container_header *h,
			       uint64_t *records_end, uint64_t *n_entries)
{
	uint32_t magic, n, stored, end;
	uint64_t rend, seq, table_bytes;
	vg_reader r;

	if (tail_len < VG_CONTAINER_FOOTER_BYTES || tail_len > file_len)
		return VG_ENOENT;
	vg_reader_init(&r, (const uint8_t *)tail + tail_len - VG_CONTAINER_FOOTER_BYTES,
		       VG_CONTAINER_FOOTER_BYTES);
	(void)vg_reader_u32le(&r, &magic);
	(void)vg_reader_u32le(&r, &n);
	(void)vg_reader_u64le(&r, &rend);
	(void)vg_reader_u64le(&r, &seq);
	(void)vg_reader_u32le(&r, &stored);
	(void)vg_reader_u32le(&r, &end);
	if (magic != FOOTER_MAGIC || end != FOOTER_END)
		return VG_ENOENT;
	table_bytes = (uint64_t)n * VG_CONTAINER_ENTRY_BYTES;
	if (seq != h->seq || rend < VG_CONTAINER_HEADER_BYTES ||
	    rend % VG_CONTAINER_ALIGN != 0 || rend > h->area_bytes ||
	    rend + table_bytes + VG_CONTAINER_FOOTER_BYTES != file_len ||
	    n > (rend - VG_CONTAINER_HEADER_BYTES) / VG_CONTAINER_RECORD_BYTES)
		return VG_ECORRUPT;
	*records_end = rend;
	*n_entries = n;
	if (tail_len < table_bytes + VG_CONTAINER_FOOTER_BYTES)
		return VG_ETRUNC;
	return 0;
}

static int table_walk(vg_reader *r, uint64_t n, const vg_container_header *h,
		      uint64_t records_end, uint32_t max_data,
		      vg_container_entry_cb cb, void *ud)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		vg_container_entry e = { 0 };
		uint32_t off16;
		int err;

		(void)vg_reader_u64le(r, &e.key);
		(void)vg_reader_u32le(r, &off16);
		(void)vg_reader_u32le(r, &e.span);
		e.offset = (uint64_t)off16 * VG_CONTAINER_ALIGN;
		if (!key_fits(e.key, h->key_bits) ||
		    e.offset < VG_CONTAINER_HEADER_BYTES ||
		    e.span < VG_CONTAINER_RECORD_BYTES || e.span % VG_CONTAINER_ALIGN != 0 ||
		    e.span > vg_container_record_span(max_data) ||
		    e.span > vg_container_record_span(VG_CONTAINER_MAX_DATA) ||
		    e.offset + e.span > records_end)
			return VG_ECORRUPT;
		if (cb && (err = cb(ud, &e)) != 0)
			return err;
	}
	return 0;
}

int vg_container_table_parse(const void *buf, size_t len, const vg_container_header *h,
			     uint64_t records_end, uint32_t max_data,
			     vg_container_entry_cb cb, void *ud)
{
	uint64_t rend, n;
	uint32_t stored;
	vg_reader r;
	int err;

	err = vg_container_footer_decode(buf, len, len + records_end, h, &rend, &n);
	if (err)
		return err == VG_ETRUNC || err == VG_ENOENT ? VG_ECORRUPT : err;
	if (rend != records_end || len != n * VG_CONTAINER_ENTRY_BYTES + VG_CONTAINER_FOOTER_BYTES)
		return VG_ECORRUPT;
	vg_reader_init(&r, (const uint8_t *)buf + len - 8, 4);
	(void)vg_reader_u32le(&r, &stored);
	if (stored != vg_crc32(0, buf, len - 8))
		return VG_ECORRUPT;
	/* Check every entry before reporting any, so that a caller never
	 * sees half of a damaged table. */
	vg_reader_init(&r, buf, len);
	err = table_walk(&r, n, h, records_end, max_data, NULL, NULL);
	if (err || !cb)
		return err;
	vg_reader_init(&r, buf, len);
	return table_walk(&r, n, h, records_end, max_data, cb, ud);
}

int vg_container_scan(const void *img, size_t len, const vg_container_header *h,
		      uint32_t max_data, vg_container_entry_cb cb, void *ud,
		      uint64_t *valid_end)
{
	uint64_t pos = VG_CONTAINER_HEADER_BYTES;
	uint64_t limit = len < h->area_bytes ? len : h->area_bytes;
	vg_reader r;
	int err;

	vg_reader_init(&r, img, (size_t)limit);
	*valid_end = pos;
	while (pos + VG_CONTAINER_RECORD_BYTES <= limit) {
		vg_container_record rec;
		vg_container_entry e;
		const uint8_t *hdr, *data;

		r.pos = (size_t)pos;
		if (vg_reader_ptr(&r, VG_CONTAINER_RECORD_BYTES, &hdr) != 0 ||
		    vg_container_record_decode(hdr, VG_CONTAINER_RECORD_BYTES, max_data, &rec) != 0 ||
		    !key_fits(rec.key, h->key_bits) ||
		    vg_reader_ptr(&r, rec.data_len, &data) != 0 ||
		    vg_container_crc_data(vg_container_crc_head(hdr), data, rec.data_len) != rec.crc)
			break;
		if (pos + vg_container_record_span(rec.data_len) > h->area_bytes)
			break;
		e.key = rec.key;
		e.offset = pos;
		e.span = (uint32_t)vg_container_record_span(rec.data_len);
		e.flags = rec.flags;
		pos += vg_container_record_span(rec.data_len);
		*valid_end = pos;
		if (cb && (err = cb(ud, &e)) != 0)
			return err;
	}
	return 0;
}

int vg_container_parse(const void *img, size_t len, uint32_t max_data,
		       vg_container_entry_cb cb, void *ud, vg_container_info *info)
{
	uint64_t rend, n;
	int err;

	memset(info, 0, sizeof *info);
	err = vg_container_header_decode(img, len, &info->header);
	if (err)
		return err;
	if (vg_container_footer_decode(img, len, len, &info->header, &rend, &n) == 0 &&
	    vg_container_table_parse((const uint8_t *)img + rend, len - rend, &info->header,
				     rend, max_data, NULL, NULL) == 0) {
		info->sealed = true;
		info->records_end = rend;
		info->n_entries = n;
		return vg_container_table_parse((const uint8_t *)img + rend, len - rend,
						&info->header, rend, max_data, cb, ud);
	}
	return vg_container_scan(img, len, &info->header, max_data, cb, ud, &info->records_end);
}
