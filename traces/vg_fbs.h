/* FBS files: recorded RFB sessions as rfbproxy and the TurboVNC/TigerVNC
 * benchmark tools write them (doc/trace-format.md, "FBS captures").
 *
 * An FBS file is the 12 bytes "FBS 001.000\n", then blocks of what the
 * server sent: a u32 big-endian length, that many bytes padded with zeros
 * to a multiple of 4, and a u32 big-endian time in milliseconds since the
 * recording started. vg_fbs_parse() joins the blocks into one byte stream
 * (vg_rfbstream decodes it) and keeps where each block ends and when.
 */
#ifndef VG_FBS_H
#define VG_FBS_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

/* One block: the stream offset just after its last byte, and its time. */
typedef struct {
	uint64_t end;
	uint32_t ms;
} vg_fbs_mark;

/* Parses len bytes at data. Appends the blocks' bytes to stream (a
 * GByteArray the caller owns) and one vg_fbs_mark per block to marks (a
 * GArray of vg_fbs_mark the caller owns); times that go backwards are
 * raised to the previous block's. Returns 0, VG_EFORMAT when data is not an
 * FBS file, VG_ENOTSUP for another FBS version, or VG_ETRUNC when the file
 * ends inside a block -- the complete blocks before it are appended all the
 * same, and *bad_offset is the file offset of the cut block. */
int vg_fbs_parse(const uint8_t *data, size_t len, GByteArray *stream, GArray *marks, size_t *bad_offset);

/* The time of the block that holds stream byte pos - 1, i.e. when the
 * bytes up to pos had all arrived; *hint (start at 0) makes a forward scan
 * cheap. The last block's time for pos past the end. */
uint32_t vg_fbs_time_at(const GArray *marks, uint64_t pos, guint *hint);

#endif
