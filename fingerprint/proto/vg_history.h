/* A history of segments both ends remember, oldest first, so that a
 * REPEAT can name a segment by its place in it (doc/protocol.md): the
 * window (the last VG_REPEAT_WINDOW segments of a connection's updates)
 * and the history proper (the last VG_HISTORY_MAX keyed LITERAL segments
 * one server has sent one viewer cache, across sessions). Also the
 * history's digest, its on-disk block, and the viewer's file. No socket
 * I/O. */
#ifndef VG_HISTORY_H
#define VG_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_reader.h"
#include "common/vg_writer.h"

/* One segment as both ends remember it (window and history items). */
typedef struct {
	uint64_t key;    /* its optimistic fingerprint */
	uint64_t hash;   /* its full 64-bit content hash */
	uint32_t len;    /* its height (rows) or width (columns) */
	uint32_t keyed;  /* 0: no key, or content not known for sure; never matched */
} vg_repeat_item;

/* Bytes of one item in a saved block, and the viewer's file name. */
#define VG_HISTORY_ITEM_BYTES 21
#define VG_HISTORY_FILE "history"

typedef struct vg_history vg_history;

/* An empty history keeping the newest max items (1 .. 2^31); indexed
 * ones keep the map vg_history_find needs (the server's; the viewer only
 * reads items by place). */
vg_history *vg_history_new(size_t max, bool indexed);
void vg_history_free(vg_history *h);

size_t vg_history_len(const vg_history *h);

/* Item i, 0 the oldest; i must be below the length. */
const vg_repeat_item *vg_history_at(const vg_history *h, size_t i);

/* Appends items, then drops the oldest beyond the history's max.
 * Amortised O(1) an item; items with no key are kept but never found. */
void vg_history_append(vg_history *h, const vg_repeat_item *items, size_t n);

/* The index of the newest item with key: true and *index, or false
 * (always false for a history that is not indexed). */
bool vg_history_find(const vg_history *h, uint64_t key, size_t *index);

void vg_history_clear(vg_history *h);

/* Moves b's items to a and a's to b; both must be indexed alike. */
void vg_history_swap(vg_history *a, vg_history *b);

/* The 64-bit digest of the list under fingerprint width fp_bits; 0 for
 * an empty list and never 0 otherwise. */
uint64_t vg_history_digest(const vg_history *h, unsigned fp_bits);

/* Appends the block of a history of keyed items: u32le n, then
 * n × (u64le key, u64le content hash, u32le len, u8 1). */
void vg_history_write(const vg_history *h, vg_writer *out);

/* Reads a block into h (replacing its items). VG_ETRUNC if it ends
 * early, VG_ECORRUPT for more than h's max items or a bad item; h
 * is empty after an error. */
int vg_history_read(vg_reader *r, vg_history *h);

/* Writes the viewer's history file in dir atomically (temporary file,
 * fsync, rename), mode 0600. VG_EIO on failure. */
int vg_history_save(const char *dir, unsigned fp_bits, const vg_history *h);

/* Reads the viewer's history file in dir into h and *fp_bits. VG_ENOENT
 * if there is none, VG_EIO if it cannot be read, VG_EFORMAT / VG_ENOTSUP
 * / VG_ETRUNC / VG_ECORRUPT for a damaged one (h is then empty). */
int vg_history_load(const char *dir, unsigned *fp_bits, vg_history *h);

#endif
