/* Traces: recorded screen sessions in the .vtr format (doc/trace-format.md).
 *
 * A trace is a header (geometry, pixel format, creation time) and a stream
 * of time-stamped records: frame updates (changed rectangles with their
 * pixels, zlib-compressed, and a hash of the whole frame after the update),
 * input events and text markers. Records are written and read strictly in
 * order, without seeking; each carries its length and a CRC-32, so a damaged
 * or cut record is reported by number and file offset while every record
 * before it stays readable. Records of kinds this version does not know are
 * skipped.
 *
 * The frame before the first frame record is black (every pixel 0).
 */
#ifndef VG_TRACE_H
#define VG_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"

/* The format version this library writes and the newest it reads. */
#define VG_TRACE_VERSION 1

/* Most rectangles one frame record may carry. */
#define VG_TRACE_MAX_RECTS 65536

/* Longest marker text, in bytes. */
#define VG_TRACE_MAX_TEXT 4096

/* Widest and tallest cursor image a cursor record may hold, in pixels. */
#define VG_TRACE_MAX_CURSOR 256

typedef struct vg_trace_reader vg_trace_reader;
typedef struct vg_trace_writer vg_trace_writer;

/* Record kinds; the numbers are the ones stored in files. */
typedef enum {
	VG_TRACE_FRAME = 1,   /* changed rectangles and their pixels */
	VG_TRACE_INPUT = 2,   /* a pointer or key event */
	VG_TRACE_MARKER = 3,  /* a text annotation */
	VG_TRACE_END = 4,     /* the last record of a complete trace */
	VG_TRACE_CURSOR = 5,  /* the pointer's image (optional: older readers skip it) */
} vg_trace_kind;

typedef enum {
	VG_TRACE_POINTER = 1, /* x, y, buttons (RFB PointerEvent) */
	VG_TRACE_KEY = 2,     /* keysym, down (RFB KeyEvent) */
} vg_trace_input_type;

/* A cursor image: width x height 0xAARRGGBB words, rows top to bottom,
 * with premultiplied alpha (as XFixes gives them), and the hot spot, the
 * pixel that is the pointer's position, inside the image. */
typedef struct {
	int32_t width, height;    /* 1..VG_TRACE_MAX_CURSOR each */
	int32_t hot_x, hot_y;     /* 0..width-1, 0..height-1 */
	const uint32_t *pixels;
} vg_trace_cursor;

/* One record as vg_trace_reader_next() returns it. Pointers stay valid until
 * the next call on the same reader. */
typedef struct {
	vg_trace_kind kind;
	uint64_t t_ns;            /* time since the trace started */
	uint64_t index;           /* record number in the file, from 0 */
	uint64_t offset;          /* file offset of the record's first byte */

	/* VG_TRACE_FRAME */
	uint64_t frame_hash;      /* vg_frame_hash() of the frame after it */
	const vg_rect *rects;     /* the changed rectangles, in stored order */
	size_t n_rects;

	/* VG_TRACE_INPUT */
	vg_trace_input_type input;
	int32_t x, y;             /* pointer position */
	uint8_t buttons;          /* pointer button mask, bit 0 = button 1 */
	uint32_t keysym;          /* X11 keysym */
	bool down;                /* key pressed (true) or released */

	/* VG_TRACE_MARKER: UTF-8, NUL-terminated, text_len bytes before it */
	const char *text;
	size_t text_len;

	/* VG_TRACE_CURSOR: the new cursor image */
	vg_trace_cursor cursor;
} vg_trace_record;

/* The documented whole-frame hash (doc/trace-format.md, "Frame hash"):
 * 64-bit FNV-1a over the width, the height and every pixel as a 32-bit
 * word, rows top to bottom, then a final mix. The top byte of each pixel
 * is ignored. */
uint64_t vg_frame_hash(const vg_pixbuf *frame);

/* --- Reading ------------------------------------------------------------ */

/* Opens path and checks its header. On success *out owns a new reader (free
 * with vg_trace_reader_free). Errors: VG_ENOENT / VG_EIO for the file,
 * VG_EFORMAT when it is not a trace, VG_ENOTSUP for a newer version,
 * VG_ECORRUPT / VG_ERANGE / VG_ETRUNC for a damaged header. *out is NULL
 * on failure. */
int vg_trace_reader_open(const char *path, vg_trace_reader **out);

/* The same over len bytes at data, which are not copied and must outlive
 * the reader. Nothing is allocated in proportion to lengths read from the
 * bytes, so this is the entry point for fuzzing. Errors as above. */
int vg_trace_reader_open_memory(const void *data, size_t len, vg_trace_reader **out);

int32_t vg_trace_reader_width(const vg_trace_reader *r);
int32_t vg_trace_reader_height(const vg_trace_reader *r);

/* Format version of the file and its creation time (ns since the epoch). */
uint32_t vg_trace_reader_version(const vg_trace_reader *r);
uint64_t vg_trace_reader_created_ns(const vg_trace_reader *r);

/* Bytes consumed so far: header plus every record returned or skipped. */
uint64_t vg_trace_reader_offset(const vg_trace_reader *r);

/* Records of unknown kinds skipped so far. */
uint64_t vg_trace_reader_skipped(const vg_trace_reader *r);

/* Whether vg_trace_reader_next() compares the hash of fb after each frame
 * record with the stored one (default true). */
void vg_trace_reader_set_verify(vg_trace_reader *r, bool verify);

/* Reads the next record. A frame record's pixels are applied to fb, which
 * must be width x height and hold the frame before the record (the reader
 * clears it to black before the first frame record); fb may be NULL, then
 * the pixels are decoded and checked but not kept.
 *
 * Returns 1 with *rec filled, 0 after the end record, or a negative VG_E*
 * code: VG_ETRUNC (the file ends inside a record, or without an end
 * record), VG_ECORRUPT (checksum, framing or content), VG_ERANGE (a
 * length or rectangle outside the limits), VG_ENOTSUP (an unknown kind
 * marked as required), VG_EINVAL (fb of the wrong size), VG_EIO. After a
 * failure vg_trace_reader_error_text() names the record and its offset,
 * fb's content is unspecified, and every later call returns the same
 * code. */
int vg_trace_reader_next(vg_trace_reader *r, vg_trace_record *rec, vg_pixbuf *fb);

/* Starts again at the first record (clearing any error). VG_EIO when the
 * file cannot seek. */
int vg_trace_reader_rewind(vg_trace_reader *r);

/* A one-line description of the last failure (never NULL; "" if none).
 * Valid until the next call on r. */
const char *vg_trace_reader_error_text(const vg_trace_reader *r);

/* Closes the file and frees r; accepts NULL. */
void vg_trace_reader_free(vg_trace_reader *r);

/* --- Writing ------------------------------------------------------------ */

/* Creates (or truncates) path and writes the header for a width x height
 * trace (each in 1..VG_MAX_DIM, else VG_ERANGE) stamped with the current
 * time. On success *out owns a new writer: finish it with
 * vg_trace_writer_close(), which also frees it. VG_EIO if the file cannot
 * be created. */
int vg_trace_writer_open(const char *path, int32_t width, int32_t height, vg_trace_writer **out);

/* zlib level (0..9, default 6) for the following frame records. */
int vg_trace_writer_set_level(vg_trace_writer *w, int level);

/* Appends a frame record: the pixels of rects, taken from frame (the whole
 * new frame, width x height), and frame's hash. Rects must lie inside the
 * frame, be non-empty, number at most VG_TRACE_MAX_RECTS and cover at most
 * width*height pixels in total; t_ns must not be less than the previous
 * record's. Violations give VG_EINVAL and write nothing. n_rects may be 0
 * (a frame that repeats the previous one). */
int vg_trace_writer_frame(vg_trace_writer *w, uint64_t t_ns, const vg_pixbuf *frame,
			  const vg_rect *rects, size_t n_rects);

/* Makes a recorder's changed rectangles fit one frame record: more than
 * VG_TRACE_MAX_RECTS become their bounds, in rects[0]. Returns the count
 * to store (n itself when it fits). */
size_t vg_trace_fit_rects(vg_rect *rects, size_t n);

/* Appends a pointer event (x, y inside the frame, else VG_EINVAL). */
int vg_trace_writer_pointer(vg_trace_writer *w, uint64_t t_ns, int32_t x, int32_t y, uint8_t buttons);

/* Appends a key event. */
int vg_trace_writer_key(vg_trace_writer *w, uint64_t t_ns, uint32_t keysym, bool down);

/* Appends a cursor record: the pointer's image from now on. A size
 * outside 1..VG_TRACE_MAX_CURSOR or a hot spot outside the image gives
 * VG_EINVAL and writes nothing. */
int vg_trace_writer_cursor(vg_trace_writer *w, uint64_t t_ns, const vg_trace_cursor *cur);

/* Appends a marker; text is UTF-8 of at most VG_TRACE_MAX_TEXT bytes. */
int vg_trace_writer_marker(vg_trace_writer *w, uint64_t t_ns, const char *text);

/* Records written so far (not counting the end record). */
uint64_t vg_trace_writer_records(const vg_trace_writer *w);

/* Appends the end record, flushes, fsyncs, closes and frees w (accepts
 * NULL). Returns the first error of the writer's life: once a write has
 * failed, every later call returns that error and writes nothing. */
int vg_trace_writer_close(vg_trace_writer *w);

/* Frees w without writing the end record, removing nothing: the file is
 * left as a trace cut after its last record. For abandoning a recording
 * on an error path. Accepts NULL. */
void vg_trace_writer_abandon(vg_trace_writer *w);

#endif
