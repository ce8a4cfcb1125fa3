/* The viewer's segment cache: every segment it has seen, keyed by the
 * segment's optimistic fingerprint.
 *
 * Lookups return the segment stored LAST under a key, with the 64-bit
 * content hash the caller stored beside it, or VG_ENOENT. Short
 * fingerprints make several segments under one key normal; only the latest
 * is ever returned, never an older one or other bytes. A cache may forget
 * (capacity, memory mode, a damaged file), so callers must handle a miss.
 *
 * Layout (doc/cache-format.md): segments are appended to the current
 * container, a file with an append-only record area (each record with its
 * CRC-32) and a small hash table; full containers are sealed and a new one
 * is started. Recently used tables and 1 MiB segment chunks stay in memory
 * within the memory budget, least recently used first out. A Bloom filter
 * over all keys answers most misses without touching a table or the disk.
 * When the files pass the capacity, the oldest containers are deleted whole.
 *
 * Persistence: vg_segcache_flush() (and close) hand every buffered record
 * to the kernel, so they survive a crash of the process (not a power cut
 * unless the kernel wrote them; torn records are dropped either way). After
 * a kill at any moment a reopen serves only records whose CRC checks.
 *
 * Thread-safety: none. One cache is used by one thread at a time (the
 * viewer calls it from its decoding thread); distinct caches are
 * independent. One directory is open in at most one cache at a time,
 * across processes (an flock on dir/lock).
 */
#ifndef VG_SEGCACHE_H
#define VG_SEGCACHE_H

#include <stddef.h>
#include <stdint.h>

typedef struct vg_segcache vg_segcache;

typedef struct {
	/* Directory of the cache files (created mode 0700 with its parents),
	 * or NULL for a cache that lives in memory only and is lost on close
	 * (--no-persistent-cache). Borrowed during vg_segcache_open(). */
	const char *dir;
	/* Bound on the bytes of container files (persistent) or of stored
	 * records (memory-only, which is also bound by memory_budget).
	 * 0: 20 GB. */
	uint64_t capacity_bytes;
	/* Bound on the tables and segment chunks held in memory. 0: 512 MiB.
	 * At least 8 MiB. The Bloom filter is sized from the capacity and
	 * counted apart (vg_segcache_stats.bloom_bytes). */
	uint64_t memory_budget;
	/* Width of the keys, 1..64. A directory written with another width is
	 * cleared at open. 0: 40. */
	unsigned key_bits;
	/* Largest segment, in bytes. 0: 1 MiB. At most 4 MiB - 64. */
	uint32_t max_segment_bytes;
	/* Size of one container's record area. 0: a 32nd of the bound
	 * (capacity; in memory, the smaller of capacity and budget), at most
	 * 64 MiB. Raised to at least four times the largest record; at most
	 * 512 MiB. Tests use small containers to get many. */
	uint32_t container_bytes;
	/* Average segment size assumed to size the Bloom filter from the
	 * capacity (capacity / this entries, 8 bits each). 0: 1024. */
	uint32_t avg_segment_bytes;
} vg_segcache_config;

typedef struct {
	uint64_t hits;            /* gets that returned a segment */
	uint64_t misses;          /* gets that returned VG_ENOENT */
	uint64_t bloom_misses;    /* ... of which the Bloom filter answered */
	uint64_t bloom_false_positives; /* Bloom said maybe, no entry found */
	uint64_t puts;
	uint64_t drops;           /* vg_segcache_drop() calls that hid an entry */
	uint64_t disk_reads;      /* table and chunk reads from files */
	uint64_t bytes_on_disk;   /* size of all container files */
	uint64_t memory_used;     /* tables, chunks and lookup hints in memory */
	uint64_t memory_budget;
	uint64_t bloom_bytes;     /* the Bloom filter, outside memory_used */
	uint64_t bloom_rebuilds;
	uint64_t entries;         /* live table entries over all containers */
	uint64_t containers;
	uint64_t containers_evicted; /* dropped for capacity or memory */
	uint64_t containers_damaged; /* dropped because they failed a check */
} vg_segcache_stats;

/* Opens (creating if needed) the cache described by cfg. On success *out
 * owns the cache; close it with vg_segcache_close(). Errors: VG_EINVAL for
 * a bad configuration, VG_EBUSY when another cache (in this process or
 * another) has the directory open, VG_EIO when the directory or its files
 * cannot be created or read. Damaged container files are dropped with a
 * warning, not reported as errors. */
int vg_segcache_open(const vg_segcache_config *cfg, vg_segcache **out);

/* The bytes of the newest records that a cache opened with cfg holds at
 * every moment, whatever it is given next (it drops its oldest container
 * whole): what a server may believe it holds. 0 for a configuration that
 * vg_segcache_open() refuses. */
uint64_t vg_segcache_kept_bytes(const vg_segcache_config *cfg);

/* Flushes, releases the lock and frees everything; accepts NULL. Errors
 * of the last flush are logged with vg_warn. */
void vg_segcache_close(vg_segcache *c);

/* Stores len bytes of data under key (which must fit key_bits) with the
 * caller's content hash; the bytes are copied. A later get of key returns
 * this segment until another put or a drop of key. len may be 0.
 * VG_EINVAL: key too wide; VG_ERANGE: len above max_segment_bytes;
 * VG_EIO: a file write failed (the cache is still usable). */
int vg_segcache_put(vg_segcache *c, uint64_t key, uint64_t content_hash,
		    const void *data, size_t len);

/* A cached segment, borrowed from the cache. */
typedef struct {
	const uint8_t *data;   /* len bytes; never NULL on a hit */
	size_t len;
	uint64_t content_hash; /* the hash stored with the segment */
} vg_segcache_view;

/* Looks key up without copying. On a hit fills *out and returns 0; the
 * bytes belong to the cache and stay valid and unchanged only until the
 * next call on c (any vg_segcache_* function but vg_segcache_stats_get),
 * so draw them before asking again. VG_ENOENT on a miss (as for get),
 * VG_EINVAL for a key too wide. Allocates nothing once the cache has
 * served one segment that straddles two 1 MiB chunks (that one is copied
 * to a buffer of max_segment_bytes kept for the purpose). */
int vg_segcache_lookup(vg_segcache *c, uint64_t key, vg_segcache_view *out);

/* Looks key up. On a hit copies the segment into dst (dst_cap bytes),
 * sets *len to its size and *content_hash (which may be NULL) to the hash
 * stored with it, and returns 0. VG_ENOENT on a miss (including a key the
 * cache forgot or found damaged), VG_ENOSPC if dst_cap < the size (*len
 * then holds the size, nothing is copied), VG_EINVAL for a key too wide.
 * vg_segcache_lookup() followed by a copy; hits and misses count alike. */
int vg_segcache_get(vg_segcache *c, uint64_t key, uint64_t *content_hash,
		    void *dst, size_t dst_cap, size_t *len);

/* Makes key miss from now on, also after a restart or a crash that
 * follows the return (the tombstone is written through to the file). 0
 * also when key was not cached. */
int vg_segcache_drop(vg_segcache *c, uint64_t key);

/* Hands every buffered record to the files. VG_EIO on a write error. */
int vg_segcache_flush(vg_segcache *c);

/* Forgets every segment and deletes every container file. A memory
 * cache keeps its hints and a table, emptied only where they were
 * written: clearing one that held little costs little. */
int vg_segcache_clear(vg_segcache *c);

/* Fills *st with the counters (a snapshot). */
void vg_segcache_stats_get(const vg_segcache *c, vg_segcache_stats *st);

/* The default base directory of persistent caches,
 * vg_file_user_cache_dir()/varg ($XDG_CACHE_HOME/varg). Free with free(). */
char *vg_segcache_default_base_dir(void);

/* Maps a server identity (any non-empty string, e.g. the hex id the
 * server sends) to a cache directory base/<name>, where <name> is safe as
 * one path component whatever the identity holds: "id-" and the identity
 * itself if it is 1..64 characters of [0-9A-Za-z_-], else "h-" and 32 hex
 * digits of its SHA-256. *out (free with free()) receives the path.
 * VG_EINVAL for a NULL or empty identity or a NULL base. */
int vg_segcache_namespace_dir(const char *base, const char *server_id, char **out);

#endif
