#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/vg_array.h"
#include "common/vg_error.h"
#include "common/vg_file.h"
#include "common/vg_id.h"
#include "common/vg_log.h"
#include "common/vg_mem.h"
#include "common/vg_minmax.h"
#include "common/vg_sha256.h"
#include "common/vg_time.h"
#include "common/vg_writer.h"
#include "fingerprint/cache/vg_bloom.h"
#include "fingerprint/cache/vg_container.h"
#include "fingerprint/cache/vg_segcache.h"

#define DEFAULT_CAPACITY (UINT64_C(20) * 1000 * 1000 * 1000)
#define DEFAULT_BUDGET (UINT64_C(512) << 20)
#define MIN_BUDGET (UINT64_C(8) << 20)
#define DEFAULT_KEY_BITS 40
#define DEFAULT_MAX_SEGMENT (1u << 20)
#define DEFAULT_CONTAINER (64u << 20)
#define CONTAINERS 32 /* a bound's containers, unless more than 64 MiB each */
#define DEFAULT_AVG_SEGMENT 1024u
#define CHUNK_BYTES (1u << 20)
#define BLOOM_BITS 8
#define BLOOM_HASHES 6
#define HINT_BLOCKS 1024 /* the hints' dirty blocks (struct vg_segcache) */

/* Compact in-memory table entry (8.4.4's 64-bit entry): 20 tag bits taken
 * from the key's hash, the record offset in 16-byte units (26 bits) and the
 * record span in 16-byte units (18 bits). 0 marks an empty slot; tags are
 * never 0. A tag match is confirmed against the key in the record (or in
 * the keys[] array of a container still being written). */
#define E_TAG(e) ((uint32_t)((e) >> 44))
#define E_OFF(e) ((uint64_t)(((e) >> 18) & ((UINT64_C(1) << 26) - 1)) * VG_CONTAINER_ALIGN)
#define E_SPAN(e) ((uint32_t)((e) & ((1u << 18) - 1)) * VG_CONTAINER_ALIGN)

typedef struct lru_node {
	struct lru_node *prev, *next;
	uint64_t gen;          /* c->gen when last moved to the front */
	bool is_chunk;
} lru_node;

typedef struct ctr ctr;

typedef struct {
	lru_node lru; /* first member: a node is also the chunk */
	ctr *owner;
	uint32_t index;
	uint32_t size;  /* CHUNK_BYTES, less at the end of a small area */
	uint8_t *data;
} chunk;

/* One container. Its metadata always stays in memory; the table and the
 * chunks come and go. */
struct ctr {
	lru_node lru;          /* first member: the table's LRU node */
	uint64_t seq;
	uint32_t area;         /* end of the record area, from the header */
	uint32_t slots;        /* table size, a power of two */
	int fd;                /* -1 while closed */
	bool sealed;           /* has a trailer on disk */
	uint64_t records_end;
	uint64_t flushed_end;  /* bytes handed to the kernel */
	uint64_t file_bytes;
	uint32_t n_entries;
	uint64_t *table;       /* NULL while not in memory */
	uint64_t *keys;        /* full key per slot, while being written and in
	                        * memory-only mode */
	uint64_t *verified;    /* one bit per slot: record CRC checked */
	chunk **chunks;
	uint32_t n_chunks;
	uint64_t table_gen;    /* c->tables_made when this table was loaded */
	/* Which 64ths of the table (and of keys[] and verified[]) were
	 * written since it was allocated or cleared: a spare table is
	 * cleared where it was used, not whole. */
	uint64_t dirty;
};

/* Where the latest record of a key was last seen, so that a warm hit goes
 * straight to its record. (seq, off) names one record for good: records
 * never move and sequence numbers are never reused. slot is its entry in
 * the table loaded as number table_gen; while that table stays in memory
 * the entry holds key's latest record of the container, so its verified
 * bit is the record's. One hint is 32 bytes, half a cache line. */
typedef struct {
	uint64_t key;
	uint64_t seq;       /* container that holds the latest record of key; 0: none */
	uint64_t table_gen;
	uint32_t off;       /* the record's offset in that container */
	uint32_t slot;
} hint;

struct vg_segcache {
	char *dir;
	int lock_fd;
	bool persistent;
	uint64_t capacity;
	uint64_t budget;
	unsigned key_bits;
	uint32_t max_seg;
	uint32_t area;         /* header + record area of new containers */
	vg_array *ctrs;        /* ctr *: oldest first */
	ctr *cur;              /* the container being written, or NULL */
	/* One freed chunk's memory (CHUNK_BYTES), for the next chunk: a
	 * cleared cache, or one whose containers come and go, does not give
	 * a megabyte back only to ask for it again. Outside the budget. */
	uint8_t *spare_chunk;
	/* So too one freed container's tables, with keys, of spare_slots. */
	uint64_t *spare_table, *spare_keys, *spare_verified;
	uint32_t spare_slots;
	uint64_t spare_dirty;  /* its dirty 64ths, as ctr.dirty */
	uint64_t next_seq;
	vg_bloom *bloom;
	uint64_t bloom_entries;
	uint64_t bloom_stale;  /* keys of dropped containers still in the filter */
	hint *hints;
	unsigned hint_shift;
	size_t n_hints;
	/* Which of HINT_BLOCKS equal blocks of hints were set since the
	 * last clear: a clear after a short connection, or before each of
	 * a fuzzer's inputs, empties a few blocks, not all the hints. */
	uint64_t hints_dirty[HINT_BLOCKS / 64];
	unsigned hint_block_shift;
	lru_node lru;          /* sentinel: next is the most recent */
	uint64_t gen;          /* bumped whenever a table or chunk is loaded */
	uint64_t tables_made;  /* tables loaded or started, ever */
	uint64_t mem_used;
	uint64_t stored;       /* record bytes over all containers */
	vg_segcache_stats st;
	ctr *busy;             /* container whose table an operation is using */
	uint8_t *scratch;      /* max_seg bytes, for views of records that
	                        * straddle two chunks; allocated on first use */
};

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* ASCII letters and digits, whatever the locale. */
static bool is_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline uint64_t mix(uint64_t k)
{
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ull;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebull;
	k ^= k >> 31;
	return k;
}

static inline uint64_t bloom_hash(uint64_t key)
{
	return mix(key ^ 0x6a09e667f3bcc909ull);
}

static inline uint32_t tag_of(uint64_t h)
{
	uint32_t t = (uint32_t)(h >> 44);
	return t ? t : 1;
}

static inline uint64_t pack(uint32_t tag, uint64_t off, uint64_t span)
{
	return (uint64_t)tag << 44 | (off / VG_CONTAINER_ALIGN) << 18 | span / VG_CONTAINER_ALIGN;
}

static uint32_t slots_for_area(uint32_t area)
{
	uint32_t s = 64;

	while (s < area / 1024 && s < (1u << 20))
		s <<= 1;
	return s;
}

static bool key_fits(const vg_segcache *c, uint64_t key)
{
	return c->key_bits >= 64 || (key >> c->key_bits) == 0;
}

/* ---- LRU and memory ---------------------------------------------------- */

static void lru_unlink(lru_node *n)
{
	if (n->prev) {
		n->prev->next = n->next;
		n->next->prev = n->prev;
		n->prev = n->next = NULL;
	}
}

/* Moves n to the front of the list, but only once per generation: items
 * enter memory (and others are evicted) only at a generation change, so
 * the items used since then are all ahead of those that were not, which
 * is all eviction needs. A hit on a warm cache thus writes one word
 * instead of relinking three nodes spread over memory. */
static void lru_touch(vg_segcache *c, lru_node *n)
{
	if (n->gen == c->gen && n->prev)
		return;
	n->gen = c->gen;
	if (c->lru.next == n)
		return;
	lru_unlink(n);
	n->next = c->lru.next;
	n->prev = &c->lru;
	c->lru.next->prev = n;
	c->lru.next = n;
}

/* Notes that slot i of t's table, keys or verified bits was written. */
static inline void table_dirty(ctr *t, uint32_t i)
{
	t->dirty |= UINT64_C(1) << (i / (t->slots / 64));
}

/* Zeroes what was written of a table of slots entries, dirty as
 * ctr.dirty says (keys may be NULL). */
static void table_clear(uint64_t *table, uint64_t *keys, uint64_t *verified, uint32_t slots,
			uint64_t dirty)
{
	uint32_t block = slots / 64, b;

	for (; dirty; dirty &= dirty - 1) {
		b = (uint32_t)__builtin_ctzll(dirty);
		memset(table + (size_t)b * block, 0, block * sizeof *table);
		if (keys)
			memset(keys + (size_t)b * block, 0, block * sizeof *keys);
		/* Whole words of bits: a neighbour block's share of a word
		 * is either dirty too or zero already. */
		memset(verified + (size_t)b * block / 64, 0,
		       ((block + 63) / 64) * sizeof *verified);
	}
}

static size_t table_mem(const ctr *t)
{
	return (size_t)t->slots * 8 + t->slots / 8 + (t->keys ? (size_t)t->slots * 8 : 0);
}

static void chunk_free(vg_segcache *c, chunk *k)
{
	ctr *t = k->owner;

	lru_unlink(&k->lru);
	t->chunks[k->index] = NULL;
	c->mem_used -= k->size;
	if (k->size == CHUNK_BYTES && !c->spare_chunk)
		c->spare_chunk = k->data;
	else
		free(k->data);
	free(k);
	/* Bytes read back from the file later must be checked again. */
	if (t->verified)
		memset(t->verified, 0, t->slots / 8);
}

static void table_free(vg_segcache *c, ctr *t)
{
	if (!t->table)
		return;
	c->mem_used -= table_mem(t);
	lru_unlink(&t->lru);
	if (t->keys && !c->spare_table) {
		c->spare_table = t->table;
		c->spare_keys = t->keys;
		c->spare_verified = t->verified;
		c->spare_slots = t->slots;
		c->spare_dirty = t->dirty;
		t->table = t->keys = t->verified = NULL;
	}
	free(t->table);
	t->table = NULL;
	free(t->keys);
	t->keys = NULL;
	free(t->verified);
	t->verified = NULL;
	if (t != c->cur && t->fd >= 0) {
		close(t->fd);
		t->fd = -1;
	}
}

/* Items that must stay: the table of the container being written and any
 * chunk holding bytes not yet handed to the file. */
static bool is_pinned(const vg_segcache *c, const lru_node *n)
{
	if (n->is_chunk) {
		const chunk *k = (const chunk *)n;
		return k->owner == c->cur &&
		       (uint64_t)(k->index + 1) * CHUNK_BYTES > k->owner->flushed_end;
	}
	return (const ctr *)n == c->cur || (const ctr *)n == c->busy;
}

/* Evicts least recently used tables and chunks until need more bytes fit
 * the budget. A memory-only cache cannot evict single items (their bytes
 * exist nowhere else); it drops whole containers after the put instead. */
static void make_room(vg_segcache *c, uint64_t need)
{
	lru_node *n = c->lru.prev;

	if (!c->persistent)
		return;
	while (c->mem_used + need > c->budget && n != &c->lru) {
		lru_node *prev = n->prev;

		if (!is_pinned(c, n)) {
			if (n->is_chunk)
				chunk_free(c, (chunk *)n);
			else
				table_free(c, (ctr *)n);
		}
		n = prev;
	}
}

static chunk *chunk_new(vg_segcache *c, ctr *t, uint32_t index)
{
	uint64_t start = (uint64_t)index * CHUNK_BYTES;
	chunk *k;

	k = VG_NEW0(chunk, 1);
	k->lru.is_chunk = true;
	c->gen++;
	k->owner = t;
	k->index = index;
	k->size = t->area - start < CHUNK_BYTES ? (uint32_t)(t->area - start) : CHUNK_BYTES;
	make_room(c, k->size);
	if (k->size == CHUNK_BYTES && c->spare_chunk) {
		k->data = c->spare_chunk;
		c->spare_chunk = NULL;
	} else {
		k->data = vg_mem_alloc_filled(k->size);
	}
	t->chunks[index] = k;
	c->mem_used += k->size;
	lru_touch(c, &k->lru);
	return k;
}

/* ---- files --------------------------------------------------------------- */

static char *ctr_path(const vg_segcache *c, uint64_t seq)
{
	return vg_mem_printf("%s/%016" PRIx64 ".vgc", c->dir, seq);
}

static int ctr_fd(vg_segcache *c, ctr *t)
{
	char *path;

	if (t->fd >= 0)
		return 0;
	path = ctr_path(c, t->seq);
	t->fd = open(path, O_RDWR | O_CLOEXEC);
	free(path);
	return t->fd >= 0 ? 0 : VG_EIO;
}

static int pread_full(int fd, void *buf, size_t n, uint64_t off, size_t *got)
{
	uint8_t *p = buf;
	size_t done = 0;

	while (done < n) {
		ssize_t r = pread(fd, p + done, n - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return VG_EIO;
		if (r == 0)
			break;
		done += (size_t)r;
	}
	if (got)
		*got = done;
	else if (done != n)
		return VG_ETRUNC;
	return 0;
}

static int pwrite_full(int fd, const void *buf, size_t n, uint64_t off)
{
	const uint8_t *p = buf;

	while (n > 0) {
		ssize_t r = pwrite(fd, p, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return VG_EIO;
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/* Hands the bytes of t between flushed_end and records_end to the file. */
static int ctr_flush(vg_segcache *c, ctr *t)
{
	while (c->persistent && t->flushed_end < t->records_end) {
		uint32_t ci = (uint32_t)(t->flushed_end / CHUNK_BYTES);
		uint64_t start = t->flushed_end, end = (uint64_t)(ci + 1) * CHUNK_BYTES;
		int err;

		if (end > t->records_end)
			end = t->records_end;
		assert(t->chunks[ci]);
		err = ctr_fd(c, t);
		if (!err)
			err = pwrite_full(t->fd, t->chunks[ci]->data + (start - (uint64_t)ci * CHUNK_BYTES),
					  (size_t)(end - start), start);
		if (err)
			return err;
		t->flushed_end = end;
		if (t->file_bytes < end) {
			c->st.bytes_on_disk += end - t->file_bytes;
			t->file_bytes = end;
		}
	}
	return 0;
}

/* ---- container lifetime ---------------------------------------------------- */

static ctr *ctr_alloc(uint64_t seq, uint32_t area)
{
	ctr *t = VG_NEW0(ctr, 1);

	t->seq = seq;
	t->area = area;
	t->slots = slots_for_area(area);
	t->fd = -1;
	t->n_chunks = (area + CHUNK_BYTES - 1) / CHUNK_BYTES;
	t->chunks = VG_NEW0(chunk *, t->n_chunks);
	return t;
}

static void table_alloc(vg_segcache *c, ctr *t, bool with_keys)
{
	make_room(c, (uint64_t)t->slots * (with_keys ? 16 : 8) + t->slots / 8);
	if (with_keys && c->spare_table && c->spare_slots == t->slots) {
		t->table = c->spare_table;
		t->keys = c->spare_keys;
		t->verified = c->spare_verified;
		c->spare_table = c->spare_keys = c->spare_verified = NULL;
		table_clear(t->table, t->keys, t->verified, t->slots, c->spare_dirty);
	} else {
		t->table = VG_NEW0(uint64_t, t->slots);
		t->verified = VG_NEW0(uint64_t, t->slots / 64);
		if (with_keys)
			t->keys = VG_NEW0(uint64_t, t->slots);
	}
	t->dirty = 0;
	c->mem_used += table_mem(t);
	c->gen++;
	t->table_gen = ++c->tables_made;
	lru_touch(c, &t->lru);
}

static void ctr_free(vg_segcache *c, ctr *t)
{
	uint32_t i;

	for (i = 0; i < t->n_chunks; i++)
		if (t->chunks[i])
			chunk_free(c, t->chunks[i]);
	table_free(c, t);
	if (t->fd >= 0)
		close(t->fd);
	free(t->chunks);
	free(t);
}

/* Removes container i from the cache and deletes its file. */
static void ctr_drop(vg_segcache *c, unsigned i, bool damaged)
{
	ctr *t = VG_ARRAY_AT(c->ctrs, ctr *, i);

	if (damaged)
		c->st.containers_damaged++;
	else
		c->st.containers_evicted++;
	if (c->persistent) {
		char *path = ctr_path(c, t->seq);
		if (unlink(path) != 0 && errno != ENOENT)
			vg_warn("segment cache: cannot delete %s: %s", path, strerror(errno));
		free(path);
	}
	c->st.bytes_on_disk -= t->file_bytes;
	c->st.entries -= t->n_entries;
	c->bloom_stale += t->n_entries;
	c->stored -= t->records_end - VG_CONTAINER_HEADER_BYTES;
	if (t == c->cur)
		c->cur = NULL;
	if (t == c->busy)
		c->busy = NULL;
	vg_array_remove(c->ctrs, i, 1);
	ctr_free(c, t);
}

static unsigned ctr_index(const vg_segcache *c, const ctr *t)
{
	unsigned i;

	for (i = c->ctrs->len; i-- > 0;)
		if (VG_ARRAY_AT(c->ctrs, ctr *, i) == t)
			return i;
	abort(); /* t is always one of c->ctrs */
}

static void ctr_damaged(vg_segcache *c, ctr *t, const char *what)
{
	vg_warn("segment cache: container %016" PRIx64 " is damaged (%s); dropped", t->seq, what);
	ctr_drop(c, ctr_index(c, t), true);
}

/* Inserts or updates key in a table whose keys[] are known; returns the
 * slot. */
static uint32_t table_put_keyed(ctr *t, uint64_t key, uint64_t off, uint64_t span, bool verified)
{
	uint64_t h = mix(key);
	uint32_t mask = t->slots - 1, i = (uint32_t)h & mask, tag = tag_of(h);

	for (;; i = (i + 1) & mask) {
		if (t->table[i] == 0) {
			t->n_entries++;
			break;
		}
		if (E_TAG(t->table[i]) == tag && t->keys[i] == key)
			break;
	}
	t->table[i] = pack(tag, off, span);
	t->keys[i] = key;
	table_dirty(t, i);
	if (verified)
		t->verified[i / 64] |= UINT64_C(1) << (i % 64);
	else
		t->verified[i / 64] &= ~(UINT64_C(1) << (i % 64));
	return i;
}

/* Inserts an entry of a sealed trailer (keys are unique there). */
static int table_put_sealed(void *ud, const vg_container_entry *e)
{
	ctr *t = ud;
	uint64_t h = mix(e->key);
	uint32_t mask = t->slots - 1, i = (uint32_t)h & mask, n;

	for (n = 0; t->table[i] != 0; n++, i = (i + 1) & mask)
		if (n >= t->slots)
			return VG_ECORRUPT;
	t->table[i] = pack(tag_of(h), e->offset, e->span);
	table_dirty(t, i);
	return 0;
}

static int bloom_add_entry(void *ud, const vg_container_entry *e)
{
	vg_bloom_add(ud, bloom_hash(e->key));
	return 0;
}

static int read_trailer(vg_segcache *c, ctr *t, vg_container_entry_cb cb, void *ud)
{
	vg_container_header h = { .key_bits = c->key_bits, .seq = t->seq, .area_bytes = t->area };
	size_t n = (size_t)t->n_entries * VG_CONTAINER_ENTRY_BYTES + VG_CONTAINER_FOOTER_BYTES;
	uint8_t *buf = vg_mem_alloc(n);
	int err;

	err = ctr_fd(c, t);
	if (!err)
		err = pread_full(t->fd, buf, n, t->records_end, NULL);
	if (!err)
		err = vg_container_table_parse(buf, n, &h, t->records_end, VG_CONTAINER_MAX_DATA, cb, ud);
	c->st.disk_reads++;
	free(buf);
	return err;
}

/* Makes t's table resident. On failure t has been dropped. */
static int ctr_table(vg_segcache *c, ctr *t)
{
	int err;

	if (t->table) {
		lru_touch(c, &t->lru);
		return 0;
	}
	table_alloc(c, t, false);
	err = read_trailer(c, t, table_put_sealed, t);
	if (err) {
		ctr_damaged(c, t, vg_strerror(err));
		return VG_ECORRUPT;
	}
	return 0;
}

/* Copies n bytes at file offset off of t to dst, loading chunks as needed;
 * if crc is not NULL, folds the bytes into it. */
static int ctr_read(vg_segcache *c, ctr *t, uint64_t off, void *dst, size_t n, uint32_t *crc)
{
	uint8_t *out = dst;

	while (n > 0) {
		uint32_t ci = (uint32_t)(off / CHUNK_BYTES), in = (uint32_t)(off % CHUNK_BYTES);
		size_t piece = CHUNK_BYTES - in < n ? CHUNK_BYTES - in : n;
		chunk *k = ci < t->n_chunks ? t->chunks[ci] : NULL;

		if (ci >= t->n_chunks || off + n > t->area)
			return VG_ECORRUPT;
		if (!k) {
			size_t got;
			int err;

			if (!c->persistent || ctr_fd(c, t) != 0)
				return VG_EIO;
			k = chunk_new(c, t, ci);
			err = pread_full(t->fd, k->data, k->size, (uint64_t)ci * CHUNK_BYTES, &got);
			c->st.disk_reads++;
			if (err)
				return err;
			memset(k->data + got, 0, k->size - got);
		} else {
			lru_touch(c, &k->lru);
		}
		if (out)
			memcpy(out, k->data + in, piece);
		if (crc)
			*crc = vg_container_crc_data(*crc, k->data + in, piece);
		if (out)
			out += piece;
		off += piece;
		n -= piece;
	}
	return 0;
}

/* Points *out at n bytes at file offset off of t: inside the chunk that
 * holds them, or, when they straddle two chunks, in c->scratch after a
 * copy. If crc is not NULL, folds the bytes into it. The pointer stays
 * valid until the next call that may load or evict a chunk. */
static int ctr_borrow(vg_segcache *c, ctr *t, uint64_t off, size_t n, uint32_t *crc,
		      const uint8_t **out)
{
	static const uint8_t empty[1];
	uint32_t ci = (uint32_t)(off / CHUNK_BYTES), in = (uint32_t)(off % CHUNK_BYTES);
	int err;

	if (n == 0) {
		*out = empty;
		return 0;
	}
	if ((uint64_t)in + n <= CHUNK_BYTES) {
		/* Loads (or touches) the one chunk and checks the bounds. */
		err = ctr_read(c, t, off, NULL, n, crc);
		if (err)
			return err;
		*out = t->chunks[ci]->data + in;
		return 0;
	}
	if (!c->scratch) {
		c->scratch = vg_mem_alloc(c->max_seg);
		c->mem_used += c->max_seg;
	}
	if (n > c->max_seg)
		return VG_ECORRUPT;
	err = ctr_read(c, t, off, c->scratch, n, crc);
	*out = c->scratch;
	return err;
}

/* Appends n bytes (zeros if src is NULL) at t's end, flushing every chunk
 * that fills. */
static int ctr_append(vg_segcache *c, ctr *t, const void *src, size_t n)
{
	const uint8_t *in = src;
	int err = 0;

	while (n > 0) {
		uint32_t ci = (uint32_t)(t->records_end / CHUNK_BYTES), at = (uint32_t)(t->records_end % CHUNK_BYTES);
		size_t piece = CHUNK_BYTES - at < n ? CHUNK_BYTES - at : n;
		chunk *k = t->chunks[ci];

		if (!k)
			k = chunk_new(c, t, ci);
		if (in) {
			memcpy(k->data + at, in, piece);
			in += piece;
		} else {
			memset(k->data + at, 0, piece);
		}
		t->records_end += piece;
		n -= piece;
		if (t->records_end % CHUNK_BYTES == 0 && !err)
			err = ctr_flush(c, t);
	}
	return err;
}

/* Writes t's trailer and releases what only writing needed. */
static int ctr_seal(vg_segcache *c, ctr *t)
{
	vg_container_header h = { .key_bits = c->key_bits, .seq = t->seq, .area_bytes = t->area };
	vg_container_entry *e;
	vg_writer w;
	uint32_t i, n = 0;
	int err;

	if (!c->persistent || t->sealed)
		return 0;
	err = ctr_flush(c, t);
	if (err)
		return err;
	e = VG_NEW(vg_container_entry, t->n_entries ? t->n_entries : 1);
	for (i = 0; i < t->slots; i++) {
		if (!t->table[i])
			continue;
		e[n].key = t->keys[i];
		e[n].offset = E_OFF(t->table[i]);
		e[n].span = E_SPAN(t->table[i]);
		e[n].flags = 0;
		n++;
	}
	vg_writer_init(&w);
	vg_container_trailer_encode(&w, &h, e, n, t->records_end);
	err = ctr_fd(c, t);
	if (!err)
		err = pwrite_full(t->fd, w.data, w.len, t->records_end);
	if (!err) {
		t->sealed = true;
		c->st.bytes_on_disk += t->records_end + w.len - t->file_bytes;
		t->file_bytes = t->records_end + w.len;
		c->mem_used -= (uint64_t)t->slots * 8;
		free(t->keys);
	t->keys = NULL;
	}
	vg_writer_clear(&w);
	free(e);
	return err;
}

/* Drops the oldest containers (never the current one) while the files, the
 * memory or the stored bytes pass their bounds; room is the size of a
 * container about to be started. */
static void enforce_bounds(vg_segcache *c, uint64_t room)
{
	while (c->ctrs->len > 0 && VG_ARRAY_AT(c->ctrs, ctr *, 0) != c->cur) {
		bool over;

		if (c->persistent)
			over = c->st.bytes_on_disk + room > c->capacity;
		else
			over = c->mem_used + room > c->budget || c->stored + room > c->capacity;
		if (!over)
			break;
		ctr_drop(c, 0, false);
	}
}

static void bloom_rebuild(vg_segcache *c);

static int ctr_start(vg_segcache *c)
{
	vg_container_header h = { .key_bits = c->key_bits, .seq = c->next_seq,
				  .created_ns = vg_time_wall_ns(), .area_bytes = c->area };
	uint8_t hdr[VG_CONTAINER_HEADER_BYTES];
	ctr *t;
	int err = 0;

	if (c->cur) {
		err = ctr_seal(c, c->cur);
		c->cur = NULL;
	}
	enforce_bounds(c, c->area + (uint64_t)slots_for_area(c->area) * 17);
	if (c->bloom_stale > c->bloom_entries / 4)
		bloom_rebuild(c);
	t = ctr_alloc(c->next_seq++, c->area);
	if (c->persistent) {
		char *path = ctr_path(c, t->seq);
		t->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		free(path);
		if (t->fd < 0) {
			ctr_free(c, t);
			return VG_EIO;
		}
	}
	vg_array_append(c->ctrs, &t, 1);
	c->cur = t;
	table_alloc(c, t, true);
	vg_container_header_encode(&h, hdr);
	if (ctr_append(c, t, hdr, sizeof hdr) != 0)
		err = VG_EIO;
	/* The header goes out at once so that a crash leaves a file that
	 * names itself. */
	if (!err)
		err = ctr_flush(c, t);
	return err;
}

/* ---- Bloom filter ------------------------------------------------------------ */

/* The filter cannot forget the keys of dropped containers; once they pass a
 * quarter of its design size it is rebuilt from the surviving containers'
 * keys (their trailers on disk, or keys[] in memory). */
static void bloom_rebuild(vg_segcache *c)
{
	unsigned i;

	vg_bloom_clear(c->bloom);
	for (i = c->ctrs->len; i-- > 0;) {
		ctr *t = VG_ARRAY_AT(c->ctrs, ctr *, i);
		uint32_t s;

		if (t->keys) {
			for (s = 0; s < t->slots; s++)
				if (t->table[s])
					vg_bloom_add(c->bloom, bloom_hash(t->keys[s]));
		} else if (read_trailer(c, t, bloom_add_entry, c->bloom) != 0) {
			vg_warn("segment cache: container %016" PRIx64 " is damaged; dropped", t->seq);
			ctr_drop(c, i, true);
		}
	}
	c->bloom_stale = 0;
	c->st.bloom_rebuilds++;
}

/* ---- lookup ------------------------------------------------------------------ */

typedef struct {
	uint32_t slot;
	uint64_t off;
	uint8_t hdr[VG_CONTAINER_RECORD_BYTES];
	vg_container_record rec;
} found;

/* Finds the latest record of key in t. 0: *f describes it. VG_ENOENT: not
 * in t. VG_ECORRUPT: t was damaged and has been dropped. */
static int ctr_find(vg_segcache *c, ctr *t, uint64_t key, uint64_t h, found *f)
{
	uint32_t mask, i, tag = tag_of(h), n;
	const uint8_t *hp;
	const char *what;
	int err;

	c->busy = t;
	err = ctr_table(c, t);
	if (err)
		return err;
	mask = t->slots - 1;
	for (n = 0, i = (uint32_t)h & mask; n < t->slots; n++, i = (i + 1) & mask) {
		uint64_t e = t->table[i];
		bool verified;

		if (!e)
			return VG_ENOENT;
		if (E_TAG(e) != tag || (t->keys && t->keys[i] != key))
			continue;
		f->slot = i;
		f->off = E_OFF(e);
		what = "entry outside the records";
		if (f->off + E_SPAN(e) > t->records_end)
			goto damaged;
		what = "bad record header";
		err = ctr_borrow(c, t, f->off, sizeof f->hdr, NULL, &hp);
		if (!err)
			memcpy(f->hdr, hp, sizeof f->hdr);
		if (err || vg_container_record_decode(f->hdr, sizeof f->hdr, VG_CONTAINER_MAX_DATA, &f->rec) != 0 ||
		    vg_container_record_span(f->rec.data_len) != E_SPAN(e))
			goto damaged;
		if (f->rec.key == key)
			return 0;
		/* Another key with the same tag, or a damaged key field: tell
		 * them apart by the record's CRC, or a flipped bit in the key
		 * would let an older record of key show through. */
		verified = t->verified[i / 64] >> (i % 64) & 1;
		if (!verified) {
			uint32_t crc = vg_container_crc_head(f->hdr);
			if (ctr_read(c, t, f->off + VG_CONTAINER_RECORD_BYTES, NULL, f->rec.data_len, &crc) != 0 ||
			    crc != f->rec.crc) {
				what = "bad record CRC";
				goto damaged;
			}
			t->verified[i / 64] |= UINT64_C(1) << (i % 64);
			table_dirty(t, i);
		}
	}
	return VG_ENOENT;
damaged:
	ctr_damaged(c, t, what);
	return VG_ECORRUPT;
}

static ctr *ctr_by_seq(const vg_segcache *c, uint64_t seq)
{
	unsigned lo = 0, hi = c->ctrs->len;

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		ctr *t = VG_ARRAY_AT(c->ctrs, ctr *, mid);

		if (t->seq == seq)
			return t;
		if (t->seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Points ht, one of c's hints, at the record of key at off, entry slot
 * of t's table. */
static void hint_set(vg_segcache *c, hint *ht, uint64_t key, const ctr *t, uint32_t slot,
		     uint64_t off)
{
	size_t b = (size_t)(ht - c->hints) >> c->hint_block_shift;

	c->hints_dirty[b / 64] |= UINT64_C(1) << (b % 64);
	ht->key = key;
	ht->seq = t->seq;
	ht->table_gen = t->table_gen;
	ht->slot = slot;
	ht->off = (uint32_t)off;
}

/* The record a hint points to, if the table the hint was made with is
 * still in memory and the record is key's: 0 with *f filled. VG_ENOENT
 * for anything else; the caller then searches the table, which also tells
 * damage apart. Touches the hint, the container and the record, not the
 * table: a warm hit costs two memory misses, not three. */
static int hint_find(vg_segcache *c, ctr *t, uint64_t key, const hint *ht, found *f)
{
	const uint8_t *hp;

	if (!t->table || t->table_gen != ht->table_gen || ht->slot >= t->slots ||
	    ht->off + (uint64_t)VG_CONTAINER_RECORD_BYTES > t->records_end)
		return VG_ENOENT;
	c->busy = t;
	lru_touch(c, &t->lru);
	if (ctr_borrow(c, t, ht->off, sizeof f->hdr, NULL, &hp) != 0)
		return VG_ENOENT;
	memcpy(f->hdr, hp, sizeof f->hdr);
	if (vg_container_record_decode(f->hdr, sizeof f->hdr, VG_CONTAINER_MAX_DATA, &f->rec) != 0 ||
	    f->rec.key != key ||
	    ht->off + vg_container_record_span(f->rec.data_len) > t->records_end)
		return VG_ENOENT;
	f->slot = ht->slot;
	f->off = ht->off;
	return 0;
}

/* Finds the container holding the latest record of key: first where the
 * hint says, else newest to oldest. 0 with *where set, VG_ENOENT, or
 * VG_ECORRUPT (a damaged container was dropped on the way: report a miss
 * rather than risk an older record of the key). h is mix(key). */
static int locate(vg_segcache *c, uint64_t key, uint64_t h, found *f, ctr **where)
{
	hint *ht = &c->hints[h >> c->hint_shift];
	unsigned i;
	int err;

	if (ht->seq && ht->key == key) {
		ctr *t = ctr_by_seq(c, ht->seq);

		if (t) {
			err = hint_find(c, t, key, ht, f);
			if (err == VG_ENOENT)
				err = ctr_find(c, t, key, h, f);
			if (err != VG_ENOENT) {
				if (err == 0)
					hint_set(c, ht, key, t, f->slot, f->off);
				*where = t;
				return err;
			}
		}
	}
	for (i = c->ctrs->len; i-- > 0;) {
		ctr *t = VG_ARRAY_AT(c->ctrs, ctr *, i);

		err = ctr_find(c, t, key, h, f);
		if (err == VG_ENOENT)
			continue;
		if (err == 0) {
			hint_set(c, ht, key, t, f->slot, f->off);
			*where = t;
		}
		return err;
	}
	return VG_ENOENT;
}

int vg_segcache_lookup(vg_segcache *c, uint64_t key, vg_segcache_view *out)
{
	uint32_t crc = 0;
	uint64_t h;
	bool verified;
	found f;
	ctr *t;
	int err;

	if (!key_fits(c, key))
		return VG_EINVAL;
	/* A hit needs the hint's line next: start fetching it while the
	 * Bloom filter is read. */
	h = mix(key);
	__builtin_prefetch(&c->hints[h >> c->hint_shift]);
	if (!vg_bloom_has(c->bloom, bloom_hash(key))) {
		c->st.misses++;
		c->st.bloom_misses++;
		return VG_ENOENT;
	}
	err = locate(c, key, h, &f, &t);
	if (err == VG_ENOENT)
		c->st.bloom_false_positives++;
	if (err == 0 && (f.rec.flags & VG_CONTAINER_FLAG_TOMBSTONE))
		err = VG_ENOENT;
	if (err) {
		c->st.misses++;
		return VG_ENOENT;
	}
	verified = t->verified[f.slot / 64] >> (f.slot % 64) & 1;
	if (!verified)
		crc = vg_container_crc_head(f.hdr);
	err = ctr_borrow(c, t, f.off + VG_CONTAINER_RECORD_BYTES, f.rec.data_len,
			 verified ? NULL : &crc, &out->data);
	if (!err && !verified && crc != f.rec.crc)
		err = VG_ECORRUPT;
	if (err) {
		ctr_damaged(c, t, "bad record CRC");
		c->st.misses++;
		return VG_ENOENT;
	}
	t->verified[f.slot / 64] |= UINT64_C(1) << (f.slot % 64);
	table_dirty(t, f.slot);
	out->len = f.rec.data_len;
	out->content_hash = f.rec.content_hash;
	c->st.hits++;
	return 0;
}

int vg_segcache_get(vg_segcache *c, uint64_t key, uint64_t *content_hash,
		    void *dst, size_t dst_cap, size_t *len)
{
	vg_segcache_view v;
	int err = vg_segcache_lookup(c, key, &v);

	if (err)
		return err;
	*len = v.len;
	if (dst_cap < v.len)
		return VG_ENOSPC;
	if (v.len > 0) /* dst may be NULL for an empty segment */
		memcpy(dst, v.data, v.len);
	if (content_hash)
		*content_hash = v.content_hash;
	return 0;
}

/* ---- writes -------------------------------------------------------------- */

static int append_entry(vg_segcache *c, uint64_t key, uint64_t content_hash, uint32_t flags,
			const void *data, uint32_t len)
{
	uint8_t hdr[VG_CONTAINER_RECORD_BYTES];
	uint64_t span = vg_container_record_span(len), off;
	uint32_t slot;
	hint *ht;
	ctr *t;
	int err = 0, err2;

	t = c->cur;
	if (!t || t->records_end + span > t->area || t->n_entries >= t->slots / 4 * 3) {
		err = ctr_start(c);
		t = c->cur;
		if (!t)
			return err ? err : VG_EIO;
	}
	vg_container_record_encode(key, content_hash, flags, data, len, hdr);
	off = t->records_end;
	err2 = ctr_append(c, t, hdr, sizeof hdr);
	if (!err2)
		err2 = ctr_append(c, t, data, len);
	if (!err2)
		err2 = ctr_append(c, t, NULL, span - VG_CONTAINER_RECORD_BYTES - len);
	/* The bytes are in memory whatever the file said: index them so
	 * that this process serves them; the file will be rescanned after a
	 * restart. */
	{
		uint32_t before = t->n_entries;

		slot = table_put_keyed(t, key, off, span, true);
		c->st.entries += t->n_entries - before;
	}
	c->stored += span;
	vg_bloom_add(c->bloom, bloom_hash(key));
	ht = &c->hints[mix(key) >> c->hint_shift];
	hint_set(c, ht, key, t, slot, off);
	if (!c->persistent)
		enforce_bounds(c, 0);
	return err ? err : err2;
}

int vg_segcache_put(vg_segcache *c, uint64_t key, uint64_t content_hash,
		    const void *data, size_t len)
{
	if (!key_fits(c, key))
		return VG_EINVAL;
	if (len > c->max_seg)
		return VG_ERANGE;
	c->st.puts++;
	return append_entry(c, key, content_hash, 0, data, (uint32_t)len);
}

int vg_segcache_drop(vg_segcache *c, uint64_t key)
{
	found f;
	ctr *t;
	int err;

	if (!key_fits(c, key))
		return VG_EINVAL;
	if (!vg_bloom_has(c->bloom, bloom_hash(key)))
		return 0;
	err = locate(c, key, mix(key), &f, &t);
	if (err == VG_ENOENT || (err == 0 && (f.rec.flags & VG_CONTAINER_FLAG_TOMBSTONE)))
		return 0;
	/* A damaged container was dropped on the way: older records of key
	 * may remain, so hide them too. */
	err = append_entry(c, key, 0, VG_CONTAINER_FLAG_TOMBSTONE, NULL, 0);
	c->st.drops++;
	if (!err && c->cur)
		err = ctr_flush(c, c->cur);
	return err;
}

int vg_segcache_flush(vg_segcache *c)
{
	return c->cur ? ctr_flush(c, c->cur) : 0;
}

/* ---- open, close, clear ---------------------------------------------------- */

/* Empties the hints set since the last clear. */
static void hints_clear(vg_segcache *c)
{
	size_t block = c->n_hints / HINT_BLOCKS, w, b;

	for (w = 0; w < HINT_BLOCKS / 64; w++)
		for (; c->hints_dirty[w]; c->hints_dirty[w] &= c->hints_dirty[w] - 1) {
			b = w * 64 + (size_t)__builtin_ctzll(c->hints_dirty[w]);
			memset(c->hints + b * block, 0, block * sizeof(hint));
		}
}

static int clear_all(vg_segcache *c)
{
	while (c->ctrs->len > 0)
		ctr_drop(c, c->ctrs->len - 1, false);
	vg_bloom_clear(c->bloom);
	c->bloom_stale = 0;
	hints_clear(c);
	return ctr_start(c);
}

/* Whether an in-memory cache holds nothing put since it was last cleared
 * or opened: one container with its header alone, no table slot, hint or
 * filter bit written. */
static bool is_clear(const vg_segcache *c)
{
	const ctr *t = c->cur;
	size_t w;

	if (c->persistent || c->ctrs->len != 1 || !t || VG_ARRAY_AT(c->ctrs, ctr *, 0) != t ||
	    t->n_entries || t->dirty || t->records_end != VG_CONTAINER_HEADER_BYTES || c->bloom_stale)
		return false;
	for (w = 0; w < HINT_BLOCKS / 64; w++)
		if (c->hints_dirty[w])
			return false;
	return true;
}

int vg_segcache_clear(vg_segcache *c)
{
	uint64_t evicted = c->st.containers_evicted;
	int err;

	/* A viewer that reconnects having stored nothing (and a fuzzer's
	 * every input) finds its cache clear already. */
	if (is_clear(c))
		return 0;
	err = clear_all(c);

	c->st.containers_evicted = evicted;
	return err;
}

typedef struct {
	vg_segcache *c;
	ctr *t;
} scan_ctx;

static int scan_entry(void *ud, const vg_container_entry *e)
{
	scan_ctx *s = ud;

	table_put_keyed(s->t, e->key, e->offset, e->span, false);
	vg_bloom_add(s->c->bloom, bloom_hash(e->key));
	return 0;
}

/* Rebuilds the table of a container left unsealed (by a crash) from its
 * records, drops a torn tail, and seals it. */
static int recover_unsealed(vg_segcache *c, ctr *t, const vg_container_header *h, uint64_t size,
			    bool quiet)
{
	scan_ctx s = { c, t };
	uint64_t want = size < t->area ? size : t->area, end;
	uint8_t *img = vg_mem_alloc(want ? want : 1);
	int err;

	err = pread_full(t->fd, img, (size_t)want, 0, NULL);
	c->st.disk_reads++;
	if (!err) {
		table_alloc(c, t, true);
		err = vg_container_scan(img, (size_t)want, h, VG_CONTAINER_MAX_DATA, scan_entry, &s, &end);
	}
	free(img);
	if (err)
		return err;
	if (end != size) {
		if (end + VG_CONTAINER_RECORD_BYTES < size && !quiet)
			vg_warn("segment cache: container %016" PRIx64 ": dropped %" PRIu64
				" bytes after the last whole record", t->seq, size - end);
		if (ftruncate(t->fd, (off_t)end) != 0)
			return VG_EIO;
	}
	t->records_end = t->flushed_end = t->file_bytes = end;
	return ctr_seal(c, t);
}

/* Opens one existing container file. 0: added to the cache. Otherwise the
 * file is deleted (damaged: with a warning). */
static int load_ctr(vg_segcache *c, uint64_t seq, bool *key_bits_differ)
{
	uint8_t hdrbuf[VG_CONTAINER_HEADER_BYTES], tail[VG_CONTAINER_FOOTER_BYTES];
	vg_container_header h;
	uint64_t rend = 0, n = 0;
	bool quiet = false;
	struct stat sb;
	ctr *t;
	int err;

	t = ctr_alloc(seq, VG_CONTAINER_HEADER_BYTES + VG_CONTAINER_RECORD_BYTES);
	if ((err = ctr_fd(c, t)) != 0 || fstat(t->fd, &sb) != 0) {
		err = VG_EIO;
		goto out;
	}
	if ((uint64_t)sb.st_size < sizeof hdrbuf) {
		/* A crash right after the file was created: nothing lost. */
		char *path = ctr_path(c, seq);
		unlink(path);
		free(path);
		ctr_free(c, t);
		return VG_ENOENT;
	}
	err = pread_full(t->fd, hdrbuf, sizeof hdrbuf, 0, NULL);
	if (!err)
		err = vg_container_header_decode(hdrbuf, sizeof hdrbuf, &h);
	if (!err && h.seq != seq)
		err = VG_ECORRUPT;
	if (!err && h.key_bits != c->key_bits) {
		*key_bits_differ = true;
		err = VG_EINVAL;
		goto out;
	}
	if (err)
		goto out;
	/* The table depends on the area size the file was made with. */
	free(t->chunks);
	t->area = h.area_bytes;
	t->slots = slots_for_area(t->area);
	t->n_chunks = (t->area + CHUNK_BYTES - 1) / CHUNK_BYTES;
	t->chunks = VG_NEW0(chunk *, t->n_chunks);
	err = VG_ENOENT;
	if ((uint64_t)sb.st_size >= VG_CONTAINER_HEADER_BYTES + VG_CONTAINER_FOOTER_BYTES &&
	    pread_full(t->fd, tail, sizeof tail, (uint64_t)sb.st_size - sizeof tail, NULL) == 0)
		err = vg_container_footer_decode(tail, sizeof tail, (uint64_t)sb.st_size, &h, &rend, &n);
	quiet = err == VG_ETRUNC || err == 0;
	if (quiet) {
		t->records_end = t->flushed_end = rend;
		t->n_entries = (uint32_t)n;
		t->file_bytes = (uint64_t)sb.st_size;
		t->sealed = true;
		err = n > t->slots ? VG_ECORRUPT : read_trailer(c, t, bloom_add_entry, c->bloom);
		if (err) {
			vg_warn("segment cache: container %016" PRIx64 ": bad table (%s); rescanning",
				seq, vg_strerror(err));
			t->sealed = false;
			t->n_entries = 0;
			err = VG_ENOENT;
		}
	} else if (err != VG_ENOENT) {
		vg_warn("segment cache: container %016" PRIx64 ": bad footer; rescanning", seq);
		err = VG_ENOENT;
	}
	if (err == VG_ENOENT) {
		err = recover_unsealed(c, t, &h, (uint64_t)sb.st_size, quiet);
		if (t->table) {
			/* keys[] are gone after sealing; the table stays. */
			table_free(c, t);
		}
	}
out:
	if (err) {
		if (!*key_bits_differ || err != VG_EINVAL) {
			char *path = ctr_path(c, seq);
			vg_warn("segment cache: container %016" PRIx64 " is damaged (%s); dropped",
				seq, vg_strerror(err));
			unlink(path);
			free(path);
			c->st.containers_damaged++;
		}
		ctr_free(c, t);
		return err;
	}
	c->st.bytes_on_disk += t->file_bytes;
	c->st.entries += t->n_entries;
	c->stored += t->records_end - VG_CONTAINER_HEADER_BYTES;
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	vg_array_append(c->ctrs, &t, 1);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int load_dir(vg_segcache *c)
{
	vg_array *seqs = vg_array_new(sizeof(uint64_t));
	bool differ = false;
	struct dirent *de;
	DIR *d;
	unsigned i;

	d = opendir(c->dir);
	if (!d) {
		vg_array_free(seqs);
		return VG_EIO;
	}
	while ((de = readdir(d)) != NULL) {
		uint64_t seq;
		char tail[8];

		/* A save killed between its temporary file and the rename
		 * leaves name.tmp-XXXXXX; whoever holds the lock owns them. */
		if (strstr(de->d_name, ".tmp-")) {
			char *path = vg_file_path(c->dir, de->d_name, NULL);
			unlink(path);
			free(path);
			continue;
		}
		if (strlen(de->d_name) == 20 &&
		    sscanf(de->d_name, "%16" SCNx64 "%7s", &seq, tail) == 2 &&
		    strcmp(tail, ".vgc") == 0 && seq > 0)
			vg_array_append(seqs, &seq, 1);
	}
	closedir(d);
	vg_array_sort(seqs, cmp_u64);
	for (i = 0; i < seqs->len; i++) {
		uint64_t seq = VG_ARRAY_AT(seqs, uint64_t, i);

		if (seq >= c->next_seq)
			c->next_seq = seq + 1;
		(void)load_ctr(c, seq, &differ);
	}
	vg_array_free(seqs);
	if (differ) {
		/* Keys of another width would never match: start afresh. */
		vg_info("segment cache: %s was written with another key width; cleared", c->dir);
		for (i = 0; i < c->ctrs->len; i++) {
			ctr *t = VG_ARRAY_AT(c->ctrs, ctr *, i);
			char *path = ctr_path(c, t->seq);
			unlink(path);
			free(path);
		}
		d = opendir(c->dir);
		while (d && (de = readdir(d)) != NULL) {
			if (has_suffix(de->d_name, ".vgc")) {
				char *path = vg_file_path(c->dir, de->d_name, NULL);
				unlink(path);
				free(path);
			}
		}
		if (d)
			closedir(d);
		while (c->ctrs->len > 0) {
			ctr *t;

			vg_array_pop(c->ctrs, &t);
			ctr_free(c, t);
		}
		c->st.bytes_on_disk = c->st.entries = c->stored = 0;
		vg_bloom_clear(c->bloom);
	}
	return 0;
}

static int lock_dir(vg_segcache *c)
{
	char *path;

	if (vg_file_mkdirs(c->dir, 0700) != 0)
		return VG_EIO;
	path = vg_file_path(c->dir, "lock", NULL);
	c->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	free(path);
	if (c->lock_fd < 0)
		return VG_EIO;
	if (flock(c->lock_fd, LOCK_EX | LOCK_NB) != 0)
		return errno == EWOULDBLOCK ? VG_EBUSY : VG_EIO;
	return 0;
}

/* The sizes a cache opened with cfg takes. */
typedef struct {
	uint64_t capacity, budget;
	uint32_t area;          /* a container's, its header included */
	uint64_t hints;
	unsigned key_bits;
	uint32_t max_seg;
} plan;

/* The cache's sizes from cfg, or VG_EINVAL for a configuration it refuses. */
static int plan_for(const vg_segcache_config *cfg, plan *p)
{
	bool persistent = cfg->dir != NULL;
	uint64_t record_max, container, bound;

	p->capacity = cfg->capacity_bytes ? cfg->capacity_bytes : DEFAULT_CAPACITY;
	p->budget = cfg->memory_budget ? cfg->memory_budget : DEFAULT_BUDGET;
	p->key_bits = cfg->key_bits ? cfg->key_bits : DEFAULT_KEY_BITS;
	p->max_seg = cfg->max_segment_bytes ? cfg->max_segment_bytes : DEFAULT_MAX_SEGMENT;
	/* The oldest container goes whole when a new one starts, so the
	 * cache may hold its bound less two containers: a 32nd of the bound
	 * each keeps most of it (see vg_segcache_kept_bytes). */
	bound = persistent ? p->capacity : VG_MIN(p->capacity, p->budget);
	container = cfg->container_bytes ? cfg->container_bytes : VG_MIN(bound / CONTAINERS, DEFAULT_CONTAINER);
	if (p->key_bits > 64 || p->max_seg > VG_CONTAINER_MAX_DATA || p->budget < MIN_BUDGET ||
	    container > VG_CONTAINER_MAX_AREA)
		return VG_EINVAL;
	record_max = vg_container_record_span(p->max_seg);
	if (!persistent && container > p->budget / 4)
		container = p->budget / 4;
	if (container < 4 * record_max)
		container = 4 * record_max;
	if (container > VG_CONTAINER_MAX_AREA || 2 * (container + VG_CONTAINER_HEADER_BYTES) > p->capacity)
		return VG_EINVAL;
	p->area = (uint32_t)((container + VG_CONTAINER_HEADER_BYTES + 15) & ~UINT64_C(15));
	/* One hint per KiB of budget, as many as the smallest (1 KiB)
	 * segments the budget holds: a key put within the last budget's
	 * worth of segments mostly still has its hint, and a scroll back
	 * to it skips the walk over the tables. 1/32 of the budget. */
	p->hints = 1024;
	while (p->hints < (1u << 22) && p->hints * 2 <= p->budget / 1024)
		p->hints *= 2;
	return VG_OK;
}

uint64_t vg_segcache_kept_bytes(const vg_segcache_config *cfg)
{
	uint64_t bound, room;
	plan p;

	if (plan_for(cfg, &p))
		return 0;
	/* What enforce_bounds leaves before a new container, less the
	 * container it may just have dropped. On disk the files' trailers
	 * (16 bytes for each of up to 3/4 of the slots, 2/1024 slots a byte
	 * of area) share the capacity; in memory the hints and the tables
	 * (8 bytes a slot) share the budget. */
	room = p.area + (uint64_t)slots_for_area(p.area) * 17;
	bound = cfg->dir ? p.capacity - p.capacity / 1024 * 24
			 : VG_MIN(p.capacity, p.budget - p.hints * sizeof(hint) - p.budget / 64);
	return bound > 2 * room ? bound - 2 * room : 0;
}

int vg_segcache_open(const vg_segcache_config *cfg, vg_segcache **out)
{
	vg_segcache *c;
	uint32_t avg;
	plan p;
	int err;

	*out = NULL;
	c = VG_NEW0(vg_segcache, 1);
	c->lock_fd = -1;
	c->lru.next = c->lru.prev = &c->lru;
	c->gen = 1;
	c->ctrs = vg_array_new(sizeof(ctr *));
	c->next_seq = 1;
	c->persistent = cfg->dir != NULL;
	c->dir = vg_mem_strdup(cfg->dir);
	avg = cfg->avg_segment_bytes ? cfg->avg_segment_bytes : DEFAULT_AVG_SEGMENT;
	if ((err = plan_for(cfg, &p)))
		goto out;
	c->capacity = p.capacity;
	c->budget = p.budget;
	c->key_bits = p.key_bits;
	c->max_seg = p.max_seg;
	c->area = p.area;
	c->st.memory_budget = c->budget;
	c->n_hints = (size_t)p.hints;
	c->hint_shift = 64 - (unsigned)__builtin_ctzll(p.hints);
	assert(p.hints >= HINT_BLOCKS);
	c->hint_block_shift = (unsigned)__builtin_ctzll(p.hints / HINT_BLOCKS);
	c->hints = VG_NEW0(hint, c->n_hints);
	c->mem_used = p.hints * sizeof(hint);

	c->bloom_entries = (c->persistent ? c->capacity : VG_MIN(c->capacity, c->budget)) / avg;
	if (c->bloom_entries < 1024)
		c->bloom_entries = 1024;
	err = vg_bloom_new(c->bloom_entries, BLOOM_BITS, BLOOM_HASHES, VG_BLOOM_BLOCKED, &c->bloom);
	if (err)
		goto out;
	c->st.bloom_bytes = vg_bloom_bytes(c->bloom);

	if (c->persistent) {
		err = lock_dir(c);
		if (!err)
			err = load_dir(c);
		if (err)
			goto out;
	}
	err = ctr_start(c);
out:
	if (err) {
		vg_segcache_close(c);
		return err;
	}
	*out = c;
	return 0;
}

void vg_segcache_close(vg_segcache *c)
{
	int err;

	if (!c)
		return;
	if (c->cur && c->cur->records_end == VG_CONTAINER_HEADER_BYTES && c->persistent) {
		/* Nothing was written since the open: leave no empty file. */
		char *path = ctr_path(c, c->cur->seq);
		unlink(path);
		free(path);
	} else if (c->cur) {
		err = ctr_seal(c, c->cur);
		if (err)
			vg_warn("segment cache: cannot write %s: %s", c->dir, vg_strerror(err));
	}
	while (c->ctrs->len > 0) {
		ctr *t;

		vg_array_pop(c->ctrs, &t);
		ctr_free(c, t);
	}
	vg_array_free(c->ctrs);
	vg_bloom_free(c->bloom);
	free(c->hints);
	free(c->spare_chunk);
	free(c->spare_table);
	free(c->spare_keys);
	free(c->spare_verified);
	free(c->scratch);
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	free(c->dir);
	free(c);
}

void vg_segcache_stats_get(const vg_segcache *c, vg_segcache_stats *st)
{
	*st = c->st;
	st->memory_used = c->mem_used;
	st->containers = c->ctrs->len;
}

/* ---- directories ------------------------------------------------------------ */

char *vg_segcache_default_base_dir(void)
{
	VG_AUTOFREE char *cache = vg_file_user_cache_dir();

	return vg_file_path(cache, "varg", NULL);
}

int vg_segcache_namespace_dir(const char *base, const char *server_id, char **out)
{
	size_t n, i;
	bool plain = true;

	*out = NULL;
	if (!base || !server_id || !*server_id)
		return VG_EINVAL;
	n = strlen(server_id);
	for (i = 0; i < n; i++)
		if (!is_alnum(server_id[i]) && server_id[i] != '-' && server_id[i] != '_')
			plain = false;
	if (plain && n <= 64) {
		char *name = vg_mem_printf("id-%s", server_id);
		*out = vg_file_path(base, name, NULL);
		free(name);
	} else {
		/* The first half of the digest's hex, as a 16-byte id's. */
		uint8_t sum[VG_SHA256_LEN];
		char hex[VG_ID_HEX_LEN + 1];
		char *name;

		vg_sha256(server_id, n, sum);
		vg_id_to_hex(sum, hex);
		name = vg_mem_printf("h-%s", hex);
		*out = vg_file_path(base, name, NULL);
		free(name);
	}
	return 0;
}
