/* The REPEAT window kept across sessions: its items, the digest both ends
 * compare in the VIEWER HELLO, and its on-disk block (doc/cache-format.md).
 * No socket I/O; the viewer's file is read and written here. */
#ifndef VG_REPEATWIN_H
#define VG_REPEATWIN_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_reader.h"
#include "common/vg_writer.h"

/* One segment of an update as both ends remember it. */
typedef struct {
	uint64_t key;    /* its optimistic fingerprint */
	uint32_t len;    /* its height (rows) or width (columns) */
	uint32_t keyed;  /* 0: no key (not fingerprinted); never matched */
} vg_repeat_item;

/* Bytes of one item in a saved block, and the viewer's file name. */
#define VG_REPEATWIN_ITEM_BYTES 13
#define VG_REPEATWIN_FILE "window"

/* The 64-bit digest of a window of n items under fingerprint width
 * fp_bits; 0 for an empty window and never 0 otherwise. */
uint64_t vg_repeatwin_digest(unsigned fp_bits, const vg_repeat_item *items, size_t n);

/* Appends the block: u32le n, then n × (u64le key, u32le len, u8 keyed). */
void vg_repeatwin_write(const vg_repeat_item *items, size_t n, vg_writer *out);

/* Reads a block into out (replacing its items). VG_ETRUNC if it ends
 * early, VG_ECORRUPT for more than VG_REPEAT_WINDOW items or a bad item;
 * out is empty after an error. */
int vg_repeatwin_read(vg_reader *r, GArray *out);

/* Writes the viewer's window file in dir atomically (temporary file,
 * fsync, rename). VG_EIO on failure. */
int vg_repeatwin_save(const char *dir, unsigned fp_bits, const vg_repeat_item *items, size_t n);

/* Reads the viewer's window file in dir into out and *fp_bits. VG_ENOENT
 * if there is none, VG_EFORMAT / VG_ENOTSUP / VG_ETRUNC / VG_ECORRUPT for
 * a damaged one (out is then empty). */
int vg_repeatwin_load(const char *dir, unsigned *fp_bits, GArray *out);

#endif
