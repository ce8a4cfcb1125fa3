#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/vg_array.h"
#include "common/vg_error.h"
#include "common/vg_file.h"
#include "common/vg_id.h"
#include "common/vg_log.h"
#include "common/vg_mem.h"
#include "common/vg_minmax.h"
#include "common/vg_reader.h"
#include "common/vg_rect.h"
#include "common/vg_segdesc.h"
#include "common/vg_seghash.h"
#include "fingerprint/codec/vg_approx.h"
#include "fingerprint/cache/vg_cacheid.h"
#include "fingerprint/codec/vg_literal.h"
#include "fingerprint/codec/vg_pixmodel.h"
#include "fingerprint/proto/vg_cursorlist.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/proto/vg_receiver.h"
#include "fingerprint/proto/vg_history.h"
#include "fingerprint/cache/vg_segcache.h"
#include "fingerprint/codec/vg_sha1.h"
#include "fingerprint/codec/vg_zstream.h"

/* A fingerprinted segment awaiting its group's SHA-1. */
typedef struct {
	vg_rect rect;
	uint64_t key;
	size_t item;          /* its item in cur, unsure until the check passes */
} pending;

/* One segment of an update as both ends remember it, so that the next
 * update may REPEAT it (doc/protocol.md). */
typedef vg_repeat_item list_item;

/* An item's keyed value while its fingerprint awaits the group's check
 * (which sets it to 1, or to 0 if it fails): a REPEAT within the update
 * must not name it yet. */
#define UNCHECKED 2

struct vg_receiver {
	vg_receiver_config cfg;
	char *cache_dir;
	vg_zin *zs;           /* mirrors the server's structure stream, from the HELLO on */
	vg_zin *zpix;         /* ... and its pixel stream */
	bool hello;
	bool caps_sent;       /* capabilities were announced ahead of the HELLO */
	vg_pixmodel *pm;      /* the pixel model, from the first update coded by it */
	bool by_model;        /* this update's pixel chunk is the model's */
	bool pong_pending;    /* a PONG arrived and was not taken yet */
	uint32_t pong_token;
	vg_cursorlist *cursors; /* the shapes the server named lately */
	bool cursor_pending;  /* a CURSOR arrived and was not taken yet */
	vg_cursor_shape cursor; /* ... its shape, the list's first */
	uint8_t server_id[16];
	unsigned fp_bits;
	unsigned group_size;
	bool persistent;
	char *ns_dir;         /* the namespace directory, if persistent */
	uint8_t cache_id[VG_CACHEID_BYTES]; /* announced in the VIEWER HELLO */
	bool ephemeral;       /* cache_id names this connection only */
	uint8_t next_id[VG_CACHEID_BYTES]; /* renewed after a clear, for the next connection */
	uint64_t capacity;    /* what the cache keeps for sure, announced to the server */
	vg_segcache *cache;
	vg_segcache *spare_cache; /* an earlier connection's in memory, emptied at the next HELLO */
	unsigned spare_bits;  /* its key width */
	vg_sha1 *sha1;
	vg_array *group;      /* pending */
	vg_array *repairs;    /* vg_rect */
	vg_region *owed;      /* asked for again and not yet received */
	vg_region *approx;    /* drawn from an APPROX, exact pixels to come */
	vg_approx *ax;        /* reads APPROX messages */
	vg_history *win;      /* the window: earlier updates' segments */
	vg_history *hist;     /* keyed literals from this server, across sessions */
	vg_array *cur_hist;   /* list_item: the update's keyed literals */
	vg_history *saved;    /* the history saved by the last session */
	uint64_t saved_digest; /* its digest, sent in the VIEWER HELLO; 0: none */
	bool updated;         /* an UPDATE arrived: the saved history is out */
	bool broken;          /* a message failed: the history is not the server's */
	vg_array *cur;        /* list_item: the segments of the update being read */
	uint64_t expect;      /* where the update's previous REPEAT ended */
	uint8_t *seg;         /* one segment's pixels, VG_MAX_CACHED_SEGMENT */
	uint8_t *plain;       /* an update's inflated structure, reused */
	size_t plain_cap;
	uint8_t *pix;         /* its inflated literal pixels, reused */
	size_t pix_cap;
	vg_lit_table table;   /* the colours INDEXED blocks refer to */
	vg_array *moves;      /* vg_move: the update's MOVE runs, not yet applied */
	uint32_t *moved;      /* their source pixels, gathered before drawing */
	size_t moved_cap;     /* pixels */
	char error[160];
	vg_receiver_stats stats;
};

void vg_receiver_config_init(vg_receiver_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->zstd_window_log = VG_ZSTD_WINDOW_LOG_DEFAULT;
}

int vg_receiver_new(const vg_receiver_config *cfg, vg_receiver **out)
{
	vg_receiver *r = VG_NEW0(vg_receiver, 1);
	int err;

	r->cfg = *cfg;
	r->cache_dir = vg_mem_strdup(cfg->cache_dir);
	r->cfg.cache_dir = r->cache_dir;
	if (cfg->zstd_window_log < VG_ZSTD_WINDOW_LOG_MIN ||
	    cfg->zstd_window_log > VG_ZSTD_WINDOW_LOG_MAX) {
		vg_receiver_free(r);
		return VG_EINVAL;
	}
	if ((err = vg_sha1_new(&r->sha1)) || (err = vg_cursorlist_new(&r->cursors))) {
		vg_receiver_free(r);
		return err;
	}
	r->group = vg_array_new(sizeof(pending));
	r->repairs = vg_array_new(sizeof(vg_rect));
	r->moves = vg_array_new(sizeof(vg_move));
	vg_lit_table_init(&r->table);
	r->owed = vg_region_new();
	r->approx = vg_region_new();
	vg_approx_new(&r->ax);
	r->win = vg_history_new(VG_REPEAT_WINDOW, false);
	r->hist = vg_history_new(VG_HISTORY_MAX, false);
	r->cur_hist = vg_array_new(sizeof(list_item));
	r->saved = vg_history_new(VG_HISTORY_MAX, false);
	r->cur = vg_array_new(sizeof(list_item));
	r->seg = vg_mem_alloc(VG_MAX_CACHED_SEGMENT);
	*out = r;
	return VG_OK;
}

/* Ends the connection's use of the cache: the history as the server last
 * saw it whole is saved for the next session (after an error it may
 * differ from the server's: keep nothing), and the cache is closed. */
static void end_session(vg_receiver *r)
{
	if (r->hello && r->ns_dir && !r->ephemeral) {
		int err = r->broken ? VG_EIO : vg_history_save(r->ns_dir, r->fp_bits, r->hist);

		if (err) {
			VG_AUTOFREE char *path = vg_file_path(r->ns_dir, VG_HISTORY_FILE, NULL);

			unlink(path);
		}
	}
	vg_segcache_close(r->cache);
	r->cache = NULL;
	free(r->ns_dir);
	r->ns_dir = NULL;
}

void vg_receiver_free(vg_receiver *r)
{
	if (!r)
		return;
	end_session(r);
	vg_history_free(r->hist);
	vg_history_free(r->saved);
	vg_array_free(r->cur_hist);
	vg_zin_free(r->zs);
	vg_zin_free(r->zpix);
	vg_pixmodel_free(r->pm);
	vg_segcache_close(r->spare_cache);
	vg_sha1_free(r->sha1);
	vg_cursorlist_free(r->cursors);
	vg_array_free(r->group);
	vg_array_free(r->repairs);
	vg_array_free(r->moves);
	free(r->moved);
	vg_region_free(r->owed);
	vg_region_free(r->approx);
	vg_approx_free(r->ax);
	vg_history_free(r->win);
	vg_array_free(r->cur);
	free(r->seg);
	free(r->plain);
	free(r->pix);
	free(r->cache_dir);
	free(r);
}

int vg_receiver_reset(vg_receiver *r)
{
	int err = VG_OK;

	/* The streams keep their windows for the next HELLO, which
	 * starts them again. */
	if ((r->zs && (err = vg_zin_reset(r->zs))) || (r->zpix && (err = vg_zin_reset(r->zpix))))
		return err;
	/* A cache in memory holds nothing a next connection may use, but
	 * its memory serves it, emptied. */
	if (r->cache && !r->persistent) {
		vg_segcache_close(r->spare_cache);
		r->spare_cache = r->cache;
		r->spare_bits = r->fp_bits;
		r->cache = NULL;
	}
	end_session(r);
	/* The pixel model keeps its tables, cleared: as a new one. */
	if (r->pm)
		vg_pixmodel_reset(r->pm);
	r->hello = r->caps_sent = r->by_model = false;
	r->pong_pending = false;
	r->pong_token = 0;
	vg_cursorlist_clear(r->cursors);
	r->cursor_pending = false;
	memset(r->server_id, 0, sizeof r->server_id);
	r->fp_bits = r->group_size = 0;
	r->persistent = r->ephemeral = false;
	memset(r->cache_id, 0, sizeof r->cache_id);
	memset(r->next_id, 0, sizeof r->next_id);
	r->capacity = 0;
	vg_array_set_len(r->group, 0);
	vg_array_set_len(r->repairs, 0);
	vg_region_clear(r->owed);
	vg_region_clear(r->approx);
	vg_history_clear(r->win);
	vg_history_clear(r->hist);
	vg_array_set_len(r->cur_hist, 0);
	vg_history_clear(r->saved);
	r->saved_digest = 0;
	r->updated = r->broken = false;
	vg_array_set_len(r->cur, 0);
	r->expect = 0;
	vg_lit_table_init(&r->table);
	vg_array_set_len(r->moves, 0);
	r->error[0] = '\0';
	memset(&r->stats, 0, sizeof r->stats);
	return VG_OK;
}

const char *vg_receiver_error_text(const vg_receiver *r)
{
	return r->error[0] ? r->error : "no error";
}

void vg_receiver_get_stats(const vg_receiver *r, vg_receiver_stats *st)
{
	*st = r->stats;
	st->owed_pixels = (uint64_t)vg_region_area(r->owed);
	st->approx_pixels = (uint64_t)vg_region_area(r->approx);
	st->persistent = r->persistent;
	if (r->cache) {
		vg_segcache_stats cs;

		vg_segcache_stats_get(r->cache, &cs);
		st->cache_entries = cs.entries;
		st->cache_bytes_on_disk = cs.bytes_on_disk;
		st->cache_memory = cs.memory_used;
	}
}

static void load_history(vg_receiver *r);

static int fail(vg_receiver *r, int err, const char *what)
{
	snprintf(r->error, sizeof r->error, "%s: %s", what, vg_strerror(err));
	return err;
}

/* Frames a viewer message for the server: RFB type, u16 length, body. */
static void put_viewer_msg(vg_writer *reply, const uint8_t *body, size_t len)
{
	assert(len <= VG_MAX_VMSG);
	vg_writer_u8(reply, VG_CLIENT_MSG);
	vg_writer_u16be(reply, (uint16_t)len);
	vg_writer_bytes(reply, body, len);
}

/* Names the cache to the server. A persistent cache keeps its identity in
 * its namespace directory, renewed when the cache was emptied or found
 * damaged (the server's beliefs about the old one would be wrong); any
 * other cache gets a fresh identity for this connection alone. No cache
 * at all announces the all-zero identity. */
static void choose_identity(vg_receiver *r)
{
	vg_segcache_stats cs;
	bool renew;

	memset(r->cache_id, 0, sizeof r->cache_id);
	r->ephemeral = true;
	if (!r->cache)
		return;
	if (r->persistent) {
		vg_segcache_stats_get(r->cache, &cs);
		renew = r->cfg.clear_cache || cs.containers_damaged > 0;
		if (vg_cacheid_load(r->ns_dir, renew, r->cache_id, NULL) == 0) {
			r->ephemeral = false;
			return;
		}
		vg_warn("segment cache %s: cannot keep a cache identity; the server will not "
			"remember this cache", r->ns_dir);
	}
	if (vg_cacheid_random(r->cache_id))
		memset(r->cache_id, 0, sizeof r->cache_id);
}

static uint64_t memory_budget(const vg_receiver *r)
{
	return r->cfg.memory_budget ? r->cfg.memory_budget : (256u << 20);
}

/* What a cache on disk, or in memory, may hold. */
static uint64_t capacity_of(const vg_receiver *r, bool on_disk)
{
	if (on_disk)
		return r->cfg.cache_capacity ? r->cfg.cache_capacity : UINT64_C(2) << 30;
	return r->cfg.cache_capacity ? VG_MIN(r->cfg.cache_capacity, memory_budget(r)) : memory_budget(r);
}

/* The configuration of a cache in dir (NULL: in memory). */
static vg_segcache_config cache_config(const vg_receiver *r, const char *dir)
{
	vg_segcache_config cc;

	memset(&cc, 0, sizeof cc);
	cc.dir = dir;
	cc.key_bits = r->fp_bits;
	cc.max_segment_bytes = VG_MAX_CACHED_SEGMENT;
	cc.memory_budget = memory_budget(r);
	cc.capacity_bytes = capacity_of(r, dir != NULL);
	return cc;
}

/* Opens this server's cache namespace; falls back to memory when the
 * directory is unusable or the server asked us not to persist. */
static void open_cache(vg_receiver *r, bool no_persist)
{
	vg_segcache_config cc = cache_config(r, NULL);
	char hex[VG_ID_HEX_LEN + 1];
	VG_AUTOFREE char *dir = NULL;
	bool on_disk = r->cfg.cache_dir && !no_persist;
	int err = VG_EINVAL;

	if (on_disk)
		vg_id_to_hex(r->server_id, hex);
	if (on_disk && vg_segcache_namespace_dir(r->cfg.cache_dir, hex, &dir) == 0) {
		cc = cache_config(r, dir);
		err = vg_segcache_open(&cc, &r->cache);
		if (err)
			vg_warn("segment cache %s: %s; keeping segments in memory only", dir,
				vg_strerror(err));
		else if (r->cfg.clear_cache)
			vg_segcache_clear(r->cache);
	}
	if (err && r->spare_cache && r->spare_bits == r->fp_bits &&
	    vg_segcache_clear(r->spare_cache) == 0) {
		cc = cache_config(r, NULL);
		r->cache = r->spare_cache;
		r->spare_cache = NULL;
	} else if (err) {
		cc = cache_config(r, NULL);
		if (vg_segcache_open(&cc, &r->cache))
			r->cache = NULL;
	}
	r->persistent = r->cache && cc.dir;
	/* What the server may believe: not the capacity, which the cache
	 * passes before it drops a container whole. */
	r->capacity = r->cache ? vg_segcache_kept_bytes(&cc) : 0;
	if (r->persistent)
		r->ns_dir = vg_mem_strdup(dir);
	choose_identity(r);
	load_history(r);
}

/* The history the last session left, offered to the server by digest. A
 * missing, damaged or other-width file offers nothing. */
static void load_history(vg_receiver *r)
{
	unsigned bits = 0;

	r->saved_digest = 0;
	if (!r->persistent || r->ephemeral || !r->ns_dir ||
	    vg_history_load(r->ns_dir, &bits, r->saved) != 0 || bits != r->fp_bits) {
		vg_history_clear(r->saved);
		return;
	}
	r->saved_digest = vg_history_digest(r->saved, bits);
}

_Static_assert(VG_PIXMODEL_REVISION >= 1 &&
		       VG_PIXMODEL_REVISION <= VG_VHELLO_MODEL_MASK >> VG_VHELLO_MODEL_SHIFT,
	       "the pixel model's revision fits the VIEWER HELLO's flags");

/* The VIEWER HELLO's flags that the capabilities announce too. */
static uint8_t own_flags(const vg_receiver *r)
{
	return (uint8_t)((r->cfg.lean ? VG_VHELLO_LEAN : VG_PIXMODEL_REVISION << VG_VHELLO_MODEL_SHIFT) |
			 (r->cfg.exact ? VG_VHELLO_EXACT : 0));
}

void vg_receiver_capabilities(vg_receiver *r, int32_t caps[VG_CAPS_COUNT])
{
	/* What open_cache will announce, unless the cache cannot open (the
	 * VIEWER HELLO then corrects the server's budget). */
	vg_segcache_config cc = cache_config(r, r->cfg.cache_dir);
	uint64_t capacity = vg_segcache_kept_bytes(&cc);
	unsigned log = 0;

	while (log < 63 && capacity >> (log + 1))
		log++;
	caps[0] = VG_CAPS_FLAGS | own_flags(r);
	caps[1] = VG_CAPS_WINDOW | (int32_t)r->cfg.zstd_window_log;
	caps[2] = VG_CAPS_CAPACITY | (int32_t)(capacity ? log : 0);
	r->caps_sent = true;
}

static int handle_hello(vg_receiver *r, vg_reader *rd, vg_writer *reply)
{
	uint8_t version, fp_bits, group, flags;
	vg_writer body;
	int err;

	if (r->hello)
		return fail(r, VG_EPROTO, "hello: second hello");
	if (vg_reader_u8(rd, &version))
		return fail(r, VG_ETRUNC, "hello");
	/* Another version's fields may differ: refuse before reading them. */
	if (version != VG_PROTO_VERSION) {
		snprintf(r->error, sizeof r->error,
			 "hello: server speaks protocol version %u.%u, this viewer %u.%u",
			 VG_PROTO_MAJOR(version), VG_PROTO_MINOR(version),
			 VG_PROTO_MAJOR(VG_PROTO_VERSION), VG_PROTO_MINOR(VG_PROTO_VERSION));
		return VG_ENOTSUP;
	}
	if (vg_reader_bytes(rd, r->server_id, 16) || vg_reader_u8(rd, &fp_bits) ||
	    vg_reader_u8(rd, &group) || vg_reader_u8(rd, &flags))
		return fail(r, VG_ETRUNC, "hello");
	if (vg_reader_remaining(rd))
		return fail(r, VG_ECORRUPT, "hello: bytes left over");
	if (fp_bits < VG_FP_BITS_MIN || fp_bits > VG_FP_BITS_MAX || group < 1)
		return fail(r, VG_ERANGE, "hello: fingerprint width or group size");
	if (flags & ~VG_HELLO_FLAGS)
		return fail(r, VG_ECORRUPT, "hello: unknown flags");
	/* Coded ahead: the server took our announced capabilities, which
	 * the VIEWER HELLO below repeats. */
	if ((flags & VG_HELLO_AHEAD) && !r->caps_sent)
		return fail(r, VG_EPROTO, "hello: coded ahead of capabilities never announced");
	/* After vg_receiver_reset, the last connection's streams, reset. */
	if ((!r->zs && (err = vg_zin_new(VG_CODER_ZSTD, VG_ZSTD_WINDOW_LOG_MIN, &r->zs))) ||
	    (!r->zpix && (err = vg_zin_new(VG_CODER_ZSTD, r->cfg.zstd_window_log, &r->zpix))))
		return fail(r, err, "hello: cannot start zstd");
	r->stats.zstd_window_log = r->cfg.zstd_window_log;
	r->stats.coded_ahead = (flags & VG_HELLO_AHEAD) != 0;
	r->hello = true;
	vg_history_clear(r->win);
	vg_history_clear(r->hist);
	r->fp_bits = fp_bits;
	r->group_size = group;
	open_cache(r, flags & VG_HELLO_NO_PERSIST);

	vg_writer_init(&body);
	vg_writer_u8(&body, VG_VMSG_HELLO);
	vg_writer_u8(&body, VG_PROTO_VERSION);
	vg_writer_bytes(&body, r->cache_id, sizeof r->cache_id);
	vg_writer_u64be(&body, r->capacity);
	vg_writer_u8(&body, (r->ephemeral ? VG_VHELLO_EPHEMERAL : 0) | own_flags(r));
	vg_writer_u64be(&body, r->saved_digest);
	vg_writer_u8(&body, (uint8_t)r->cfg.zstd_window_log);
	put_viewer_msg(reply, body.data, body.len);
	vg_writer_clear(&body);
	return VG_OK;
}

/* Decompresses one of the update's streams into *buf. */
static int inflate_chunk(vg_receiver *r, vg_zin *z, const uint8_t *in, size_t len,
			 uint8_t **buf, size_t *buf_cap, size_t cap, size_t *out_len)
{
	int err = vg_zin_get(z, in, len, buf, buf_cap, cap, out_len);

	if (err == VG_ERANGE)
		return fail(r, err, "update inflates past the frame's size");
	if (err)
		return fail(r, err, "update: compressed data");
	return VG_OK;
}

/* Copies rect of fb into r->seg, rows packed. */
static size_t pack(vg_receiver *r, const vg_pixbuf *fb, vg_rect s)
{
	size_t row = (size_t)s.w * 4;
	int32_t y;

	for (y = 0; y < s.h; y++)
		memcpy(r->seg + row * (size_t)y, vg_pixbuf_row(fb, s.y + y) + s.x, row);
	return row * (size_t)s.h;
}

/* A literal segment enters the cache under the key of its content hash.
 * Returns false, leaving *key alone, when it is not cached. */
static bool remember(vg_receiver *r, const vg_pixbuf *fb, vg_rect s, uint8_t orient,
		     uint64_t *key, uint64_t *content_hash)
{
	vg_pixbuf view;
	uint64_t hash;
	size_t n;

	if (!r->cache || (uint64_t)s.w * (uint64_t)s.h * 4 > VG_MAX_CACHED_SEGMENT)
		return false;
	view = vg_pixbuf_view(fb, s);
	hash = vg_seghash(&view, (vg_orient)orient);
	n = pack(r, fb, s);
	*key = vg_fp_key(hash, r->fp_bits);
	*content_hash = hash;
	/* A failed write leaves a miss, which the protocol repairs. */
	vg_segcache_put(r->cache, *key, hash, r->seg, n);
	return true;
}

/* Draws the segment cached under key from the cache, if it is there
 * with s's size and, unless want is 0, that content hash: straight from
 * the cache's memory into the framebuffer, one copy. True and the content
 * hash drawn in *drawn, or false for a miss (the pixels stay as they were). */
static bool recall(vg_receiver *r, vg_pixbuf *fb, vg_rect s, uint64_t key, uint64_t want_hash,
		   uint64_t *drawn)
{
	size_t want = (size_t)s.w * (size_t)s.h * 4, row = (size_t)s.w * 4;
	vg_segcache_view v;
	int32_t y;

	if (r->cache && want <= VG_MAX_CACHED_SEGMENT &&
	    vg_segcache_lookup(r->cache, key, &v) == 0 && v.len == want &&
	    (want_hash == 0 || v.content_hash == want_hash)) {
		for (y = 0; y < s.h; y++)
			memcpy(vg_pixbuf_row(fb, s.y + y) + s.x, v.data + row * (size_t)y, row);
		r->stats.cache_hits++;
		*drawn = v.content_hash;
		return true;
	}
	r->stats.cache_misses++;
	return false;
}

/* Compares the group just ended with the server's SHA-1. */
static int check_group(vg_receiver *r, const vg_pixbuf *fb, const uint8_t *expect)
{
	uint8_t digest[VG_SHA1_LEN];
	unsigned i;
	int err;

	for (i = 0; i < r->group->len; i++) {
		const pending *p = &VG_ARRAY_AT(r->group, pending, i);
		if ((err = vg_sha1_update_rect(r->sha1, fb, p->rect)))
			return err;
	}
	if ((err = vg_sha1_final(r->sha1, digest)))
		return err;
	r->stats.checks++;
	if (memcmp(digest, expect, VG_SHA1_LEN) == 0) {
		/* Verified: from now on a REPEAT may name them. */
		for (i = 0; i < r->group->len; i++) {
			list_item *it = &VG_ARRAY_AT(r->cur, list_item,
						       VG_ARRAY_AT(r->group, pending, i).item);

			if (it->keyed == UNCHECKED)
				it->keyed = 1;
		}
	} else {
		r->stats.check_failures++;
		for (i = 0; i < r->group->len; i++) {
			const pending *p = &VG_ARRAY_AT(r->group, pending, i);
			if (r->cache)
				vg_segcache_drop(r->cache, p->key);
			/* Not what the server meant: never repeated as such. */
			VG_ARRAY_AT(r->cur, list_item, p->item).keyed = 0;
			vg_array_append(r->repairs, &p->rect, 1);
			r->stats.corrections++;
		}
	}
	vg_array_set_len(r->group, 0);
	return VG_OK;
}

/* The three parts of an inflated update: structure, literal pixels and
 * the SHA-1 digests of the groups, each read in order. */
typedef struct {
	vg_reader s, pix, checks;
} parts;

/* Takes the next digest and verifies the open group against it. */
static int read_check(vg_receiver *r, parts *in, const vg_pixbuf *fb)
{
	const uint8_t *digest;
	int err = vg_reader_ptr(&in->checks, VG_SHA1_LEN, &digest);

	return err ? VG_ECORRUPT : check_group(r, fb, digest);
}

static void send_repairs(vg_receiver *r, vg_writer *reply)
{
	unsigned i = 0;

	/* A viewer message holds at most 64 KB: split long lists. */
	while (i < r->repairs->len) {
		vg_writer body;
		unsigned n = VG_MIN(r->repairs->len - i, 2048u), k;

		vg_writer_init(&body);
		vg_writer_u8(&body, VG_VMSG_REPAIR);
		vg_writer_uleb(&body, n);
		for (k = i; k < i + n; k++) {
			vg_writer_rect(&body, VG_ARRAY_AT(r->repairs, vg_rect, k));
		}
		put_viewer_msg(reply, body.data, body.len);
		vg_writer_clear(&body);
		for (k = i; k < i + n; k++)
			vg_region_add(r->owed, VG_ARRAY_AT(r->repairs, vg_rect, k));
		r->stats.repairs_sent += n;
		i += n;
	}
	vg_array_set_len(r->repairs, 0);
}

/* An item of cur: keyed only for content this viewer holds for sure
 * (hashed itself, or drawn from the cache and not refuted). */
static void add_item(vg_receiver *r, uint64_t key, uint64_t hash, int32_t len, bool keyed)
{
	list_item it = { .key = keyed ? key : 0, .hash = keyed ? hash : 0, .len = (uint32_t)len,
			 .keyed = keyed };

	vg_array_append(r->cur, &it, 1);
}

/* A FINGERPRINT: drawn from the cache if there, and in the group either
 * way; a miss makes the group's check fail. */
static void fingerprinted(vg_receiver *r, vg_pixbuf *fb, vg_rect s, uint64_t key, int32_t len)
{
	pending p = { .rect = s, .key = key, .item = r->cur->len };
	uint64_t hash = 0;
	bool hit = recall(r, fb, s, key, 0, &hash);

	add_item(r, key, hash, len, hit);
	/* Not to be repeated before its group's check. */
	if (hit)
		VG_ARRAY_AT(r->cur, list_item, r->cur->len - 1).keyed = UNCHECKED;
	vg_array_append(r->group, &p, 1);
}

/* A repeated segment: the very content of an earlier item, which the
 * viewer drew and verified, so it is drawn only if the cache still holds
 * that content (same content hash) and needs no SHA-1; otherwise it is a
 * miss, repaired at once. */
static void repeated(vg_receiver *r, vg_pixbuf *fb, vg_rect s, const list_item *it)
{
	uint64_t hash;
	bool hit = it->keyed == 1 && recall(r, fb, s, it->key, it->hash, &hash);

	if (it->keyed != 1)
		r->stats.cache_misses++;
	if (!hit) {
		vg_array_append(r->repairs, &s, 1);
		r->stats.corrections++;
	}
	add_item(r, it->key, it->hash, (int32_t)it->len, hit);
}

static int parse_segment(vg_receiver *r, parts *in, vg_pixbuf *fb, vg_rect s,
			 uint8_t orient, unsigned op, int32_t len)
{
	vg_reader *rd = &in->s;
	uint64_t key = 0, hash = 0;
	bool keyed;
	int err;

	switch (op) {
	case VG_OP_LITERAL:
		if (r->by_model)
			err = vg_pixmodel_decode_rect(r->pm, fb, s);
		else
			err = vg_literal_decode(&in->pix, fb, s, &r->table);
		if (err)
			return err;
		keyed = remember(r, fb, s, orient, &key, &hash);
		add_item(r, key, hash, len, keyed);
		if (keyed)
			vg_array_append(r->cur_hist, &VG_ARRAY_AT(r->cur, list_item, r->cur->len - 1), 1);
		r->stats.literal_segments++;
		return VG_OK;
	case VG_OP_FINGERPRINT:
		if ((err = vg_reader_uint_be(rd, (r->fp_bits + 7) / 8, &key)))
			return err;
		if (key != vg_fp_key(key, r->fp_bits))
			return VG_ERANGE;
		if (r->group->len >= r->group_size)
			return VG_ECORRUPT;
		fingerprinted(r, fb, s, key, len);
		return VG_OK;
	default:
		return VG_ECORRUPT;
	}
}

/* A REPEAT of count items of earlier lists or of this one so far, inside
 * the run from *pos
 * to end (orientation orient, across it rr), at most left segments. */
static int parse_repeat(vg_receiver *r, vg_reader *rd, vg_pixbuf *fb, vg_rect rr,
			uint8_t orient, int32_t *pos, int32_t end, uint64_t count, uint64_t left)
{
	uint64_t v, m, w = vg_history_len(r->win), h = vg_history_len(r->hist), wh = w + h;
	uint64_t n_cur = r->cur->len, n = wh + n_cur, from;
	size_t offset;
	int err;

	if ((err = vg_reader_uleb(rd, &v)))
		return err;
	if (count < 1 || count > left)
		return VG_ECORRUPT;
	if (!vg_recent_decode(v, r->expect, w, h, n_cur, &from) || from > n || count > n - from)
		return VG_ERANGE;
	offset = (size_t)from;
	for (m = 0; m < count; m++) {
		size_t at = offset + m;
		list_item it = at < w	 ? *vg_history_at(r->win, at)
			       : at < wh ? *vg_history_at(r->hist, at - w)
					 : VG_ARRAY_AT(r->cur, list_item, at - wh);
		vg_rect s;

		if (it.len > (uint64_t)(end - *pos))
			return VG_ERANGE;
		s = orient == VG_ORIENT_ROWS ? vg_rect_make(rr.x, *pos, rr.w, (int32_t)it.len)
					     : vg_rect_make(*pos, rr.y, (int32_t)it.len, rr.h);
		*pos += (int32_t)it.len;
		repeated(r, fb, s, &it);
	}
	r->expect = offset + count;
	r->stats.repeats++;
	return VG_OK;
}

/* Fails naming the run, formatted only when something went wrong. */
static int fail_run(vg_receiver *r, int err, uint64_t run, const char *part)
{
	char what[96];

	snprintf(what, sizeof what, "update: run %" PRIu64 "%s", run, part);
	return fail(r, err, what);
}

/* One number of a run's rectangle: a difference from the previous run's. */
static int read_delta(vg_reader *rd, int64_t base, int32_t *v)
{
	uint64_t u;
	int64_t x;
	int err = vg_reader_uleb(rd, &u);

	if (err)
		return err;
	/* Both in range before adding, so nothing overflows. */
	if (u > 4 * (uint64_t)VG_MAX_DIM + 2)
		return VG_ERANGE;
	x = base + vg_zigzag_decode(u);
	if (x < 0 || x > VG_MAX_DIM)
		return VG_ERANGE;
	*v = (int32_t)x;
	return VG_OK;
}

/* A run's rectangle, relative to *prev (x to its right edge). */
static int read_run(vg_reader *rd, vg_rect *rr, vg_rect *prev)
{
	int err;

	if ((err = read_delta(rd, (int64_t)prev->x + prev->w, &rr->x)) ||
	    (err = read_delta(rd, prev->y, &rr->y)) || (err = read_delta(rd, prev->w, &rr->w)) ||
	    (err = read_delta(rd, prev->h, &rr->h)))
		return err;
	*prev = *rr;
	return VG_OK;
}

/* A MOVE run's offset; its source must lie in the frame. The run waits in
 * r->moves until the update's moves are applied together. */
static int read_move(vg_receiver *r, vg_reader *rd, const vg_pixbuf *fb, vg_rect rr)
{
	vg_move m = { rr, 0, 0 };
	uint64_t ux, uy;
	int err;

	if ((err = vg_reader_uleb(rd, &ux)) || (err = vg_reader_uleb(rd, &uy)))
		return err;
	if (ux > 4 * (uint64_t)VG_MAX_DIM || uy > 4 * (uint64_t)VG_MAX_DIM)
		return VG_ERANGE;
	m.dx = (int32_t)vg_zigzag_decode(ux);
	m.dy = (int32_t)vg_zigzag_decode(uy);
	if (!vg_rect_contains(vg_pixbuf_rect(fb), vg_move_source(&m)))
		return VG_ERANGE;
	vg_array_append(r->moves, &m, 1);
	return VG_OK;
}

/* Copies rect's rows between the picture and buf, one after the other. */
static uint32_t *gather(const vg_pixbuf *fb, vg_rect rect, uint32_t *buf)
{
	for (int32_t y = rect.y; y < rect.y + rect.h; y++, buf += rect.w)
		memcpy(buf, vg_pixbuf_row(fb, y) + rect.x, (size_t)rect.w * 4);
	return buf;
}

static const uint32_t *scatter(vg_pixbuf *fb, vg_rect rect, const uint32_t *buf)
{
	for (int32_t y = rect.y; y < rect.y + rect.h; y++, buf += rect.w)
		memcpy(vg_pixbuf_row(fb, y) + rect.x, buf, (size_t)rect.w * 4);
	return buf;
}

/* Where the moves' sources meet region rgn, moved along: appended to out. */
static void moved_parts(const vg_receiver *r, const vg_region *rgn, vg_array *out)
{
	const vg_rect *rs;
	size_t n, i, k;

	if (vg_region_is_empty(rgn))
		return;
	rs = vg_region_rects(rgn, &n);
	for (i = 0; i < r->moves->len; i++) {
		const vg_move *m = &VG_ARRAY_AT(r->moves, vg_move, i);

		for (k = 0; k < n; k++) {
			vg_rect p = vg_rect_intersect(rs[k], vg_move_source(m));

			if (vg_rect_is_empty(p))
				continue;
			p.x += m->dx;
			p.y += m->dy;
			vg_array_append(out, &p, 1);
		}
	}
}

/* Applies the update's MOVE runs, all reading the picture as it was
 * before them. Pixels moved from where the picture is owed or approximate
 * stay so where they land (and owed ones are asked for again). */
static int apply_moves(vg_receiver *r, vg_pixbuf *fb)
{
	const vg_move *ms = (const vg_move *)(const void *)r->moves->data;
	uint64_t total = 0;
	uint32_t *p;
	const uint32_t *q;
	unsigned i;

	if (r->moves->len == 0)
		return VG_OK;
	for (i = 0; i < r->moves->len; i++)
		total += (uint64_t)ms[i].rect.w * (uint64_t)ms[i].rect.h;
	/* Moves that land apart never copy more than the picture. */
	if (total > (uint64_t)fb->width * (uint64_t)fb->height)
		return VG_ECORRUPT;
	if (total > r->moved_cap) {
		free(r->moved);
		r->moved = VG_NEW(uint32_t, (size_t)total);
		r->moved_cap = (size_t)total;
	}
	for (i = 0, p = r->moved; i < r->moves->len; i++)
		p = gather(fb, vg_move_source(&ms[i]), p);
	for (i = 0, q = r->moved; i < r->moves->len; i++)
		q = scatter(fb, ms[i].rect, q);
	moved_parts(r, r->owed, r->repairs);
	for (i = 0; i < r->moves->len; i++)
		vg_region_subtract(r->owed, ms[i].rect);
	vg_region_carry(r->approx, ms, r->moves->len);
	r->stats.moves += r->moves->len;
	r->stats.moved_pixels += total;
	vg_array_set_len(r->moves, 0);
	return VG_OK;
}

static int parse_update(vg_receiver *r, parts *in, vg_pixbuf *fb)
{
	vg_rect prev;
	vg_reader *rd = &in->s;
	uint64_t nruns, run, nseg, k, item;
	bool segments_seen = false;
	int err;

	vg_array_set_len(r->moves, 0);
	if ((err = vg_reader_uleb(rd, &nruns)))
		return fail(r, err, "update: run count");
	prev = vg_rect_make(0, 0, 0, 0);
	for (run = 0; run < nruns; run++) {
		vg_rect rr;
		uint8_t orient;
		int32_t pos, end;

		if ((err = read_run(rd, &rr, &prev)) || (err = vg_reader_u8(rd, &orient)))
			return fail_run(r, err, run, "");
		if (!vg_pixbuf_holds(fb, rr))
			return fail_run(r, VG_ERANGE, run, "");
		if (orient == VG_RUN_MOVE) {
			/* Moves come before the segments, which draw over
			 * the picture they read. */
			if (segments_seen)
				return fail_run(r, VG_EPROTO, run, ": move");
			if ((err = read_move(r, rd, fb, rr)))
				return fail_run(r, err, run, ": move");
			continue;
		}
		segments_seen = true;
		if ((err = apply_moves(r, fb)))
			return fail(r, err, "update: moves");
		if ((err = vg_reader_uleb(rd, &nseg)))
			return fail_run(r, err, run, "");
		if (orient > VG_ORIENT_COLS)
			return fail_run(r, VG_ERANGE, run, "");
		pos = orient == VG_ORIENT_ROWS ? rr.y : rr.x;
		end = orient == VG_ORIENT_ROWS ? rr.y + rr.h : rr.x + rr.w;
		if (nseg == 0 || nseg > (uint64_t)(end - pos))
			return fail_run(r, VG_ECORRUPT, run, "");
		for (k = 0; k < nseg;) {
			uint64_t len;
			unsigned op;
			vg_rect s;

			if ((err = vg_reader_uleb(rd, &item)))
				return fail_run(r, err, run, "");
			op = (unsigned)(item & 3);
			len = item >> 2;
			if (op == VG_OP_CHECK) {
				if (len != 0 || r->group->len == 0)
					return fail(r, VG_ECORRUPT, "update: check without a group");
				if ((err = read_check(r, in, fb)))
					return fail_run(r, err, run, "");
				continue;
			}
			if (op == VG_OP_REPEAT) {
				/* The length field counts segments here. */
				if ((err = parse_repeat(r, rd, fb, rr, orient, &pos, end, len,
							nseg - k)))
					return fail_run(r, err, run, ": repeat");
				r->stats.segments += len;
				k += len;
				continue;
			}
			if (len < 1 || len > (uint64_t)(end - pos))
				return fail_run(r, VG_ERANGE, run, "");
			s = orient == VG_ORIENT_ROWS ? vg_rect_make(rr.x, pos, rr.w, (int32_t)len)
						     : vg_rect_make(pos, rr.y, (int32_t)len, rr.h);
			pos += (int32_t)len;
			if ((err = parse_segment(r, in, fb, s, orient, op, (int32_t)len)))
				return fail_run(r, err, run, "");
			r->stats.segments++;
			k++;
		}
		if (pos != end)
			return fail_run(r, VG_ECORRUPT, run, "");
		/* Every segment of a run is drawn exactly unless this update
		 * asks for it again (added after the update). */
		if (!vg_region_is_empty(r->owed))
			vg_region_subtract(r->owed, rr);
		if (!vg_region_is_empty(r->approx))
			vg_region_subtract(r->approx, rr);
	}
	if ((err = apply_moves(r, fb)))
		return fail(r, err, "update: moves");
	/* The last group's check may follow the last run's last segment. */
	while (vg_reader_remaining(rd)) {
		if ((err = vg_reader_uleb(rd, &item)))
			return fail(r, err, "update: end");
		if (item != VG_OP_CHECK || r->group->len == 0)
			return fail(r, VG_ECORRUPT, "update: bytes after the last run");
		if ((err = read_check(r, in, fb)))
			return fail(r, err, "update: last check");
	}
	if (r->group->len)
		return fail(r, VG_ECORRUPT, "update: group without its check");
	if (vg_reader_remaining(&in->pix) || vg_reader_remaining(&in->checks))
		return fail(r, VG_ECORRUPT, "update: pixels or digests left over");
	if (r->by_model && vg_pixmodel_decode_end(r->pm))
		return fail(r, VG_ECORRUPT, "update: pixel model chunk ends early");
	/* Later updates may repeat this one's segments: the window keeps
	 * the newest VG_REPEAT_WINDOW. */
	vg_history_append(r->win, (const list_item *)(const void *)r->cur->data, r->cur->len);
	vg_history_append(r->hist, (const list_item *)(const void *)r->cur_hist->data,
			  r->cur_hist->len);
	r->stats.updates++;
	return VG_OK;
}

static int handle_msg(vg_receiver *r, const uint8_t *body, size_t len, vg_pixbuf *fb,
		      vg_writer *reply);

/* APPROX: rectangles at a lower resolution, through the pixel stream. They
 * stay approximate until an UPDATE's run covers them. */
static int handle_approx(vg_receiver *r, vg_reader *rd, const uint8_t *body, vg_pixbuf *fb)
{
	const vg_rect *rects;
	vg_reader pix;
	size_t n, n_pix, i;
	int err;

	if ((err = vg_approx_read_head(r->ax, rd, fb)))
		return fail(r, err, "approx: head");
	if ((err = inflate_chunk(r, r->zpix, body + rd->pos, vg_reader_remaining(rd), &r->pix,
				 &r->pix_cap, vg_approx_pixel_bound(r->ax), &n_pix)))
		return err;
	r->stats.inflated_bytes += n_pix;
	vg_reader_init(&pix, r->pix, n_pix);
	if ((err = vg_approx_draw(r->ax, &pix, fb)))
		return fail(r, err, "approx: pixels");
	rects = vg_approx_rects(r->ax, &n);
	for (i = 0; i < n; i++)
		vg_region_add(r->approx, rects[i]);
	r->stats.approx_messages++;
	return VG_OK;
}

int vg_receiver_handle(vg_receiver *r, const uint8_t *body, size_t len,
		       vg_pixbuf *fb, vg_writer *reply)
{
	int err = handle_msg(r, body, len, fb, reply);

	if (err)
		r->broken = true;
	return err;
}

static int handle_msg(vg_receiver *r, const uint8_t *body, size_t len, vg_pixbuf *fb,
		      vg_writer *reply)
{
	uint64_t digest;
	vg_reader rd;
	parts in;
	uint64_t head, n_checks, s_len;
	const uint8_t *digests, *chunk, *pixels;
	size_t n_pixels;
	uint8_t kind;
	size_t n, n_pix, cap;
	int err;

	vg_reader_init(&rd, body, len);
	if (vg_reader_u8(&rd, &kind))
		return fail(r, VG_ETRUNC, "empty message");
	switch (kind) {
	case VG_MSG_HELLO:
		return handle_hello(r, &rd, reply);
	case VG_MSG_UPDATE:
		if (!r->hello)
			return fail(r, VG_EPROTO, "update before hello");
		/* No WINDOW before the first UPDATE: both ends start empty. */
		if (!r->updated) {
			r->updated = true;
			vg_history_clear(r->saved);
		}
		/* Literal pixels of the whole frame plus a generous allowance
		 * for segment headers bound any honest update. */
		cap = (size_t)fb->width * (size_t)fb->height * 4 + 65536;
		if (vg_reader_uleb(&rd, &head))
			return fail(r, VG_ETRUNC, "update: head");
		n_checks = head >> 1;
		if (n_checks > vg_reader_remaining(&rd) / VG_SHA1_LEN ||
		    vg_reader_ptr(&rd, (size_t)n_checks * VG_SHA1_LEN, &digests) ||
		    vg_reader_uleb(&rd, &s_len) || s_len > vg_reader_remaining(&rd) ||
		    vg_reader_ptr(&rd, (size_t)s_len, &chunk))
			return fail(r, VG_ETRUNC, "update: digests or structure length");
		/* Coded by the pixel model, the pixel chunk is its own. */
		pixels = body + rd.pos;
		n_pixels = vg_reader_remaining(&rd);
		r->by_model = (head & VG_UPDATE_MODEL) && n_pixels;
		if (r->by_model && r->cfg.lean)
			return fail(r, VG_EPROTO, "update: pixel model to a lean viewer");
		if (r->by_model && !r->pm && vg_pixmodel_new(&r->pm))
			return fail(r, VG_ENOSPC, "update: cannot start the pixel model");
		n_pix = 0;
		if ((err = inflate_chunk(r, r->zs, chunk, (size_t)s_len, &r->plain, &r->plain_cap,
					 cap, &n)) ||
		    (!r->by_model && (err = inflate_chunk(r, r->zpix, pixels, n_pixels, &r->pix,
							   &r->pix_cap, cap, &n_pix))))
			return err;
		if (r->by_model) {
			vg_pixmodel_decode_begin(r->pm, pixels, n_pixels);
			r->stats.model_updates++;
		}
		r->stats.inflated_bytes += n + n_pix;
		vg_reader_init(&in.s, r->plain, n);
		vg_reader_init(&in.pix, r->pix, n_pix);
		vg_reader_init(&in.checks, digests, (size_t)n_checks * VG_SHA1_LEN);
		vg_array_set_len(r->group, 0);
		vg_array_set_len(r->repairs, 0);
		vg_array_set_len(r->cur, 0);
		vg_array_set_len(r->cur_hist, 0);
		r->expect = 0;
		if ((err = vg_sha1_reset(r->sha1)) || (err = parse_update(r, &in, fb)))
			return err;
		send_repairs(r, reply);
		return VG_OK;
	case VG_MSG_HISTORY:
		if (!r->hello || r->updated)
			return fail(r, VG_EPROTO, "history: not before the first update");
		if (vg_reader_u64be(&rd, &digest) || vg_reader_remaining(&rd))
			return fail(r, VG_ECORRUPT, "history");
		if (digest == 0 || digest != r->saved_digest)
			return fail(r, VG_EPROTO, "history: not the one this viewer saved");
		vg_history_swap(r->hist, r->saved);
		vg_history_clear(r->saved);
		r->saved_digest = 0;
		r->stats.history_restored = vg_history_len(r->hist);
		return VG_OK;
	case VG_MSG_APPROX:
		if (!r->hello || r->cfg.exact)
			return fail(r, VG_EPROTO, "approx: to a viewer of exact pixels only");
		return handle_approx(r, &rd, body, fb);
	case VG_MSG_PONG:
		if (!r->hello)
			return fail(r, VG_EPROTO, "pong before hello");
		if (vg_reader_u32be(&rd, &r->pong_token) || vg_reader_remaining(&rd))
			return fail(r, VG_ECORRUPT, "pong");
		r->pong_pending = true;
		return VG_OK;
	case VG_MSG_CURSOR:
		if (!r->hello || !r->cfg.cursors)
			return fail(r, VG_EPROTO, "cursor: not asked for");
		if ((err = vg_cursorlist_decode(r->cursors, body, len, &r->cursor)))
			return fail(r, err, "cursor");
		r->cursor_pending = true;
		r->stats.cursors++;
		return VG_OK;
	default:
		return fail(r, VG_ECORRUPT, "unknown message kind");
	}
}

int vg_receiver_ping(vg_receiver *r, uint32_t token, vg_writer *out)
{
	uint8_t body[VG_PING_LEN];

	if (!r->hello)
		return VG_EPROTO;
	body[0] = VG_VMSG_PING;
	body[1] = (uint8_t)(token >> 24);
	body[2] = (uint8_t)(token >> 16);
	body[3] = (uint8_t)(token >> 8);
	body[4] = (uint8_t)token;
	put_viewer_msg(out, body, sizeof body);
	return VG_OK;
}

bool vg_receiver_approximate(const vg_receiver *r)
{
	return !vg_region_is_empty(r->approx);
}

bool vg_receiver_take_pong(vg_receiver *r, uint32_t *token)
{
	if (!r->pong_pending)
		return false;
	r->pong_pending = false;
	*token = r->pong_token;
	return true;
}

bool vg_receiver_take_cursor(vg_receiver *r, vg_cursor_shape *shape)
{
	if (!r->cursor_pending)
		return false;
	r->cursor_pending = false;
	*shape = r->cursor;
	return true;
}

int vg_receiver_seed_cache(vg_receiver *r, uint64_t key, const vg_pixbuf *pixels)
{
	vg_rect all = vg_pixbuf_rect(pixels);

	if (!r->hello || !r->cache)
		return VG_EPROTO;
	if ((uint64_t)all.w * (uint64_t)all.h * 4 > VG_MAX_CACHED_SEGMENT)
		return VG_ERANGE;
	return vg_segcache_put(r->cache, key, 0, r->seg, pack(r, pixels, all));
}

void vg_receiver_clear_cache(vg_receiver *r)
{
	if (r->cache)
		vg_segcache_clear(r->cache);
	/* The next connection must not be believed to hold what is gone;
	 * this one's server learns it through repairs. */
	if (r->ns_dir && vg_cacheid_load(r->ns_dir, true, r->next_id, NULL) != 0)
		vg_warn("segment cache %s: cannot renew the cache identity", r->ns_dir);
}

bool vg_receiver_cache_id(const vg_receiver *r, uint8_t id[16])
{
	memcpy(id, r->cache_id, sizeof r->cache_id);
	return r->hello && !r->ephemeral;
}

bool vg_receiver_server_id(const vg_receiver *r, uint8_t id[16])
{
	if (!r->hello)
		return false;
	memcpy(id, r->server_id, sizeof r->server_id);
	return true;
}
