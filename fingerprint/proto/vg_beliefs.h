/* What the server believes one viewer's segment cache holds.
 *
 * Per optimistic fingerprint key, the content hash last sent to the viewer
 * as pixels (the viewer's cache, too, returns the latest segment stored
 * under a key) and its size in the viewer's cache. Beliefs are forgotten
 * first in, first out once they add up to more than the budget (the
 * sender sets 80 % of the capacity the viewer announced).
 *
 * The table can be written to and read back from a byte image (the belief
 * file of doc/cache-format.md), so that a viewer that comes back with the
 * same cache identity starts warm. Sans-I/O: images are bytes in memory;
 * fingerprint/cache/vg_beliefstore.h keeps them in files.
 *
 * Not thread-safe; one table belongs to one connection.
 */
#ifndef VG_BELIEFS_H
#define VG_BELIEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_writer.h"
#include "fingerprint/proto/vg_history.h"

typedef struct vg_beliefs vg_beliefs;

/* Names whose beliefs an image holds: it is loaded only for the same
 * server, cache identity and fingerprint width. */
typedef struct {
	uint8_t server_id[16];
	uint8_t cache_id[16];
	unsigned fp_bits;        /* 8..64 */
} vg_beliefs_tag;

/* Bytes of an image's header and trailer, and of one entry. */
#define VG_BELIEFS_HEADER_BYTES 56
#define VG_BELIEFS_TRAILER_BYTES 4
#define VG_BELIEFS_ENTRY_BYTES 12

/* An empty table with a budget of 0 bytes (believes nothing until
 * vg_beliefs_set_budget()). Free with vg_beliefs_free(). */
vg_beliefs *vg_beliefs_new(void);

/* Frees b; accepts NULL. */
void vg_beliefs_free(vg_beliefs *b);

/* Sets the budget in bytes of the viewer's cache; the oldest beliefs are
 * forgotten until the rest fits. */
void vg_beliefs_set_budget(vg_beliefs *b, uint64_t bytes);

/* The viewer now holds content hash under key, bytes large: replaces any
 * belief under key (the latest put wins, as in the viewer's cache) and
 * becomes the newest. A segment larger than the budget is not believed. */
void vg_beliefs_put(vg_beliefs *b, uint64_t key, uint64_t hash, uint32_t bytes);

/* True if the viewer is believed to hold exactly hash under key. */
bool vg_beliefs_holds(const vg_beliefs *b, uint64_t key, uint64_t hash);

/* Forgets every belief. */
void vg_beliefs_clear(vg_beliefs *b);

/* Number of keys believed, and the bytes they add up to. */
size_t vg_beliefs_count(const vg_beliefs *b);
uint64_t vg_beliefs_bytes(const vg_beliefs *b);

/* Appends the image of b under tag: the history hist if it fits whole in
 * max_bytes, then the newest beliefs that fit (at least the header, an
 * empty history and the trailer are written), oldest first, with a CRC-32
 * over everything. */
void vg_beliefs_save(const vg_beliefs *b, const vg_beliefs_tag *tag, size_t max_bytes,
		     const vg_history *hist, vg_writer *out);

/* Adds the beliefs of the image data[0..len) under those b holds, which
 * stay the newest (a fresh b gets the image's), keeping the current
 * budget (the oldest entries are dropped if they do not fit).
 * The saved history goes to hist (empty on error).
 * On any error b is left unchanged. Errors: VG_EFORMAT (not a belief
 * image), VG_ENOTSUP (another version), VG_ETRUNC (shorter than its
 * count says), VG_ECORRUPT (checksum, trailing bytes, a bad entry),
 * VG_ENOENT (a sound image, but for another tag: the server, viewer or
 * fingerprint width changed). */
int vg_beliefs_load(vg_beliefs *b, const vg_beliefs_tag *tag, const uint8_t *data, size_t len,
		    vg_history *hist);

#endif
