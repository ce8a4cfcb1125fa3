/* The on-disk format of one segment-cache container (doc/cache-format.md).
 *
 * A container file is a 64-byte header, an append-only area of records
 * (one per stored segment or dropped key, each with its own CRC-32), and,
 * once the container is sealed, a trailer: a table of its live entries and
 * a 32-byte footer. This module encodes and checks those pieces in memory
 * and never touches a file, so the cache and the fuzzer share one parser.
 * Every read of container bytes goes through a vg_reader.
 *
 * All integers are little-endian. Nothing here allocates except where a
 * vg_writer is passed in. Thread-safe (no state).
 */
#ifndef VG_CONTAINER_H
#define VG_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_writer.h"

#define VG_CONTAINER_VERSION 1
#define VG_CONTAINER_HEADER_BYTES 64
#define VG_CONTAINER_RECORD_BYTES 32   /* record header before the data */
#define VG_CONTAINER_ENTRY_BYTES 16    /* one trailer table entry */
#define VG_CONTAINER_FOOTER_BYTES 32
#define VG_CONTAINER_ALIGN 16          /* records start on 16-byte offsets */
#define VG_CONTAINER_FLAG_TOMBSTONE 1u /* the key was dropped; no data */
/* Largest data length a record may carry (the in-memory table stores the
 * record length in 16-byte units in 18 bits). */
#define VG_CONTAINER_MAX_DATA (4u * 1024 * 1024 - 64)
/* Largest record area (the in-memory table stores offsets in 16-byte units
 * in 26 bits). */
#define VG_CONTAINER_MAX_AREA (512u * 1024 * 1024)

typedef struct {
	uint32_t key_bits;   /* 1..64: width of every key in the file */
	uint64_t seq;        /* container number, also in the file name */
	uint64_t created_ns; /* wall clock at creation, informative */
	uint32_t area_bytes; /* records never end past this file offset */
} vg_container_header;

typedef struct {
	uint64_t key;
	uint64_t content_hash;
	uint32_t data_len;
	uint32_t flags;
	uint32_t crc;        /* as stored: header bytes 0..27 then the data */
} vg_container_record;

/* One live key of a container: where its latest record lies. */
typedef struct {
	uint64_t key;
	uint64_t offset;     /* file offset of the record, 16-aligned */
	uint32_t span;       /* record bytes with padding (16-byte multiple) */
	uint32_t flags;      /* record flags when known (scan), else 0 */
} vg_container_entry;

typedef struct {
	vg_container_header header;
	bool sealed;          /* a valid trailer was found */
	uint64_t records_end; /* end of the valid record area */
	uint64_t n_entries;   /* entries reported to the callback */
} vg_container_info;

/* Called once per entry. For a sealed image, once per trailer entry; for an
 * unsealed one, once per valid record in file order (a later record of the
 * same key supersedes an earlier one). A non-zero return stops the parse
 * and is returned. */
typedef int (*vg_container_entry_cb)(void *ud, const vg_container_entry *e);

/* Bytes a record of data_len bytes occupies, padding included. */
static inline uint64_t vg_container_record_span(uint32_t data_len)
{
	return ((uint64_t)VG_CONTAINER_RECORD_BYTES + data_len + VG_CONTAINER_ALIGN - 1) &
	       ~(uint64_t)(VG_CONTAINER_ALIGN - 1);
}

/* Writes the 64-byte header. */
void vg_container_header_encode(const vg_container_header *h,
				uint8_t out[VG_CONTAINER_HEADER_BYTES]);

/* Decodes and checks a header from the first len bytes of buf.
 * VG_ETRUNC if len is short, VG_EFORMAT if the magic is wrong, VG_ENOTSUP
 * for another version, VG_ECORRUPT if the CRC or a field is bad. */
int vg_container_header_decode(const void *buf, size_t len, vg_container_header *h);

/* Writes a record header for data (len bytes) with its CRC. A tombstone
 * has flags VG_CONTAINER_FLAG_TOMBSTONE and len 0. */
void vg_container_record_encode(uint64_t key, uint64_t content_hash, uint32_t flags,
				const void *data, uint32_t len,
				uint8_t out[VG_CONTAINER_RECORD_BYTES]);

/* Decodes a record header (not its data) and checks its fields:
 * VG_ETRUNC, VG_ECORRUPT (bad magic, flags, or data_len > max_data). */
int vg_container_record_decode(const void *buf, size_t len, uint32_t max_data,
			       vg_container_record *r);

/* The CRC of a record is crc_data(crc_head(header), data). */
uint32_t vg_container_crc_head(const uint8_t hdr[VG_CONTAINER_RECORD_BYTES]);
uint32_t vg_container_crc_data(uint32_t crc, const void *data, size_t len);

/* Appends a trailer (table of n entries, then footer) for a container whose
 * record area ends at records_end (16-aligned). */
void vg_container_trailer_encode(vg_writer *w, const vg_container_header *h,
				 const vg_container_entry *e, size_t n,
				 uint64_t records_end);

/* Checks the trailer at the end of a file of file_len bytes, given its last
 * bytes tail (tail_len >= VG_CONTAINER_FOOTER_BYTES; tail ends at the end of
 * the file). On success *records_end and *n_entries describe it, and the
 * table occupies the n_entries * VG_CONTAINER_ENTRY_BYTES bytes before the
 * footer. VG_ENOENT if there is no footer (an unsealed container),
 * VG_ECORRUPT if there is one that does not fit the file, VG_ETRUNC if tail
 * is too short to hold the whole table (call again with more). The table's
 * CRC is checked by vg_container_table_parse(). */
int vg_container_footer_decode(const void *tail, size_t tail_len, uint64_t file_len,
			       const vg_container_header *h,
			       uint64_t *records_end, uint64_t *n_entries);

/* Checks and walks the table + footer bytes (exactly n_entries entries and
 * the footer) of a sealed container, calling cb per entry. VG_ECORRUPT on a
 * CRC mismatch or an entry that points outside the record area, has a key
 * wider than h->key_bits or a length above max_data. */
int vg_container_table_parse(const void *buf, size_t len, const vg_container_header *h,
			     uint64_t records_end, uint32_t max_data,
			     vg_container_entry_cb cb, void *ud);

/* Walks the records of img (a whole file image, or its first len bytes)
 * from the end of the header, checking each record's CRC, and calls cb per
 * record. Stops at the first record that is cut short or fails its check
 * (a torn tail) and at h->area_bytes; *valid_end receives the end of the
 * last good record. Returns 0, or a non-zero value returned by cb. */
int vg_container_scan(const void *img, size_t len, const vg_container_header *h,
		      uint32_t max_data, vg_container_entry_cb cb, void *ud,
		      uint64_t *valid_end);

/* Parses a whole container image from memory: the header, then the trailer
 * if there is a valid one, else a scan of the records. cb (may be NULL)
 * gets each entry. Returns 0 with *info filled, or the header's error. A
 * damaged trailer is not an error: the records are scanned instead. */
int vg_container_parse(const void *img, size_t len, uint32_t max_data,
		       vg_container_entry_cb cb, void *ud, vg_container_info *info);

#endif
