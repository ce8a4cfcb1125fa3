/* Internal: the byte layout of .vtr files, shared by the reader and the
 * writer. doc/trace-format.md is the specification; keep the two in step. */
#ifndef VG_TRACE_FORMAT_H
#define VG_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* "\x89VTR\r\n\x1a\n": a non-ASCII first byte, then line endings and an
 * end-of-file byte that text-mode transfers would mangle (as PNG does). */
#define VG__TRACE_MAGIC "\x89VTR\r\n\x1a\n"
#define VG__TRACE_MAGIC_LEN 8

/* magic 8, version 2, header length 2, width 4, height 4, pixel format 4,
 * creation time 8, CRC-32 4. */
#define VG__TRACE_HEADER_LEN 36
/* Later versions may lengthen the header; longer than this is corrupt. */
#define VG__TRACE_HEADER_MAX 4096

/* Pixel format 1: 32 bits a pixel, little-endian 0x00RRGGBB words. */
#define VG__TRACE_PIXFMT_XRGB32 1

/* body length 4, kind 1, flags 1, reserved 2, time 8. */
#define VG__TRACE_RECORD_HEAD 16
#define VG__TRACE_RECORD_CRC 4

/* Record flag: a reader that does not know the kind must stop rather than
 * skip it. */
#define VG__TRACE_FLAG_REQUIRED 0x01

/* Frame body before the rectangles: rect count 4, frame hash 8. */
#define VG__TRACE_FRAME_FIXED 12
#define VG__TRACE_RECT_LEN 8

/* Input bodies: type 1, then pointer: buttons 1, x 2, y 2;
 * key: down 1, keysym 4. */
#define VG__TRACE_POINTER_LEN 6
#define VG__TRACE_KEY_LEN 6

/* Cursor body: width 2, height 2, hot spot x 2, y 2, then 4 bytes a
 * pixel (no fixed length: vg_trace_read.c checks it against the size). */

/* End body: number of records before it 8. */
#define VG__TRACE_END_LEN 8

/* The longest body a record of a width x height trace may have: the
 * longest frame record, whose zlib data is at most zlib's bound for the
 * whole frame's raw bytes. Every kind shares this bound. */
static inline uint64_t vg__trace_max_body(int32_t width, int32_t height)
{
	uint64_t raw = (uint64_t)width * (uint64_t)height * 4;

	/* zlib's compressBound: raw + raw/4096 + raw/16384 + raw/33554432 + 13 */
	return VG__TRACE_FRAME_FIXED + (uint64_t)65536 * VG__TRACE_RECT_LEN +
	       raw + (raw >> 12) + (raw >> 14) + (raw >> 25) + 64;
}

#endif
