#include <glib.h>
#include <string.h>
#include <zlib.h>

#include "common/vg_error.h"
#include "common/vg_reader.h"
#include "fingerprint/proto/vg_beliefs.h"
#include "fingerprint/proto/vg_proto.h"

#define MAGIC "VARGBELF"
#define VERSION 2 /* 2: the history follows the entries */

/* One belief; link.data points back to it, the FIFO runs oldest first. */
typedef struct {
	uint64_t key;
	uint64_t hash;
	uint32_t bytes;
	GList link;
} belief;

struct vg_beliefs {
	GHashTable *by_key;   /* key -> belief, owns the beliefs */
	GQueue fifo;
	uint64_t budget;
	uint64_t bytes;
};

vg_beliefs *vg_beliefs_new(void)
{
	vg_beliefs *b = g_new0(vg_beliefs, 1);

	b->by_key = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
	g_queue_init(&b->fifo);
	return b;
}

void vg_beliefs_free(vg_beliefs *b)
{
	if (!b)
		return;
	g_hash_table_destroy(b->by_key);
	g_free(b);
}

static void forget(vg_beliefs *b, belief *e)
{
	g_queue_unlink(&b->fifo, &e->link);
	b->bytes -= e->bytes;
	g_hash_table_remove(b->by_key, &e->key);
}

static void trim(vg_beliefs *b)
{
	while (b->bytes > b->budget)
		forget(b, g_queue_peek_head(&b->fifo));
}

void vg_beliefs_set_budget(vg_beliefs *b, uint64_t bytes)
{
	b->budget = bytes;
	trim(b);
}

void vg_beliefs_put(vg_beliefs *b, uint64_t key, uint64_t hash, uint32_t bytes)
{
	belief *e = g_hash_table_lookup(b->by_key, &key);

	/* The viewer's cache now returns this content under key, whatever it
	 * held there before. */
	if (e)
		forget(b, e);
	if (bytes > b->budget)
		return;
	e = g_new0(belief, 1);
	e->key = key;
	e->hash = hash;
	e->bytes = bytes;
	e->link.data = e;
	g_queue_push_tail_link(&b->fifo, &e->link);
	g_hash_table_insert(b->by_key, &e->key, e);
	b->bytes += bytes;
	trim(b);
}

bool vg_beliefs_holds(const vg_beliefs *b, uint64_t key, uint64_t hash)
{
	const belief *e = g_hash_table_lookup(b->by_key, &key);

	return e && e->hash == hash;
}

void vg_beliefs_clear(vg_beliefs *b)
{
	g_queue_init(&b->fifo);
	g_hash_table_remove_all(b->by_key);
	b->bytes = 0;
}

size_t vg_beliefs_count(const vg_beliefs *b)
{
	return g_hash_table_size(b->by_key);
}

uint64_t vg_beliefs_bytes(const vg_beliefs *b)
{
	return b->bytes;
}

void vg_beliefs_save(const vg_beliefs *b, const vg_beliefs_tag *tag, size_t max_bytes,
		     const vg_history *hist, vg_writer *out)
{
	size_t start = out->len, room, n = b->fifo.length, n_hist = vg_history_len(hist);
	size_t fixed = VG_BELIEFS_HEADER_BYTES + VG_BELIEFS_TRAILER_BYTES + 4;
	const GList *l;
	uint32_t crc;

	/* The history goes whole or not at all: a part would never match. */
	if (max_bytes < fixed + n_hist * VG_HISTORY_ITEM_BYTES)
		n_hist = 0;
	fixed += n_hist * VG_HISTORY_ITEM_BYTES;
	room = max_bytes > fixed ? (max_bytes - fixed) / VG_BELIEFS_ENTRY_BYTES : 0;
	if (n > room)
		n = room;
	vg_writer_bytes(out, MAGIC, 8);
	vg_writer_u32le(out, VERSION);
	vg_writer_u8(out, (uint8_t)tag->fp_bits);
	vg_writer_bytes(out, "\0\0\0", 3);
	vg_writer_bytes(out, tag->server_id, 16);
	vg_writer_bytes(out, tag->cache_id, 16);
	vg_writer_u64le(out, n);
	/* The newest n, oldest first, so that a load rebuilds the same FIFO. */
	l = n ? b->fifo.tail : NULL;
	for (size_t k = n; l && k > 1; k--)
		l = l->prev;
	for (; l; l = l->next) {
		const belief *e = l->data;

		vg_writer_u64le(out, e->hash);
		vg_writer_u32le(out, e->bytes);
	}
	if (n_hist)
		vg_history_write(hist, out);
	else
		vg_writer_u32le(out, 0);
	crc = (uint32_t)crc32(0L, out->data + start, (uInt)(out->len - start));
	vg_writer_u32le(out, crc);
}

int vg_beliefs_load(vg_beliefs *b, const vg_beliefs_tag *tag, const uint8_t *data, size_t len,
		    vg_history *hist)
{
	vg_reader r, wr;
	GQueue held;
	GHashTable *held_by_key;
	const GList *l;
	uint8_t magic[8], bits, pad[3], server_id[16], cache_id[16];
	uint32_t version, crc;
	uint64_t count, i;
	int err;

	vg_history_clear(hist);
	vg_reader_init(&r, data, len);
	if (vg_reader_bytes(&r, magic, 8) || memcmp(magic, MAGIC, 8) != 0)
		return VG_EFORMAT;
	if (vg_reader_u32le(&r, &version))
		return VG_ETRUNC;
	if (version != VERSION)
		return VG_ENOTSUP;
	if (vg_reader_u8(&r, &bits) || vg_reader_bytes(&r, pad, 3) ||
	    vg_reader_bytes(&r, server_id, 16) || vg_reader_bytes(&r, cache_id, 16) ||
	    vg_reader_u64le(&r, &count))
		return VG_ETRUNC;
	if (count > vg_reader_remaining(&r) / VG_BELIEFS_ENTRY_BYTES)
		return VG_ETRUNC;
	if (vg_reader_remaining(&r) < count * VG_BELIEFS_ENTRY_BYTES + 4 + VG_BELIEFS_TRAILER_BYTES)
		return VG_ETRUNC;
	crc = (uint32_t)data[len - 4] | (uint32_t)data[len - 3] << 8 |
	      (uint32_t)data[len - 2] << 16 | (uint32_t)data[len - 1] << 24;
	if (crc != (uint32_t)crc32(0L, data, (uInt)(len - 4)))
		return VG_ECORRUPT;
	if (pad[0] || pad[1] || pad[2] || bits < VG_FP_BITS_MIN || bits > VG_FP_BITS_MAX)
		return VG_ECORRUPT;
	/* Every entry is checked before the table is touched. */
	for (i = 0; i < count; i++) {
		const uint8_t *p = data + r.pos + i * VG_BELIEFS_ENTRY_BYTES + 8;
		uint32_t bytes = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				 (uint32_t)p[3] << 24;

		if (bytes == 0 || bytes > VG_MAX_CACHED_SEGMENT)
			return VG_ECORRUPT;
	}
	if (bits != tag->fp_bits || memcmp(server_id, tag->server_id, 16) != 0 ||
	    memcmp(cache_id, tag->cache_id, 16) != 0)
		return VG_ENOENT;
	/* The history block sits between the entries and the trailer. */
	vg_reader_init(&wr, data + r.pos + count * VG_BELIEFS_ENTRY_BYTES,
		       len - r.pos - count * VG_BELIEFS_ENTRY_BYTES - VG_BELIEFS_TRAILER_BYTES);
	if ((err = vg_history_read(&wr, hist)))
		return err;
	if (vg_reader_remaining(&wr) != 0) {
		vg_history_clear(hist);
		return VG_ECORRUPT;
	}
	/* What b holds already is newer than anything saved: it goes back
	 * on top, in its order. */
	held = b->fifo;
	held_by_key = b->by_key;
	b->by_key = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
	g_queue_init(&b->fifo);
	b->bytes = 0;
	for (i = 0; i < count; i++) {
		uint64_t hash;
		uint32_t bytes;

		/* Cannot fail: the length was checked above. */
		vg_reader_u64le(&r, &hash);
		vg_reader_u32le(&r, &bytes);
		vg_beliefs_put(b, vg_fp_key(hash, bits), hash, bytes);
	}
	for (l = held.head; l; l = l->next) {
		const belief *e = l->data;

		vg_beliefs_put(b, e->key, e->hash, e->bytes);
	}
	g_hash_table_destroy(held_by_key);
	return VG_OK;
}
