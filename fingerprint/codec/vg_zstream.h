/* The compressed streams of a Varg connection: each update's structure and
 * its literal pixels go through a stream that lives as long as the
 * connection, flushed at the end of every update, so that the decoder can
 * finish the update with what it has while later updates still refer back
 * to earlier ones.
 *
 * Two coders. zlib (deflate, a 32 KB window) is what every Varg viewer
 * speaks. zstd, negotiated in the hellos (doc/protocol.md), keeps a window
 * of many updates (up to 2^window_log bytes, announced by the viewer) and
 * models the literal bytes better: measured in doc/results.md.
 *
 * Sans-I/O: bytes in, bytes out. The decoder bounds what one chunk may
 * produce, so a small chunk cannot inflate without end.
 */
#ifndef VG_ZSTREAM_H
#define VG_ZSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_writer.h"

typedef enum {
	VG_CODER_ZLIB = 0,
	VG_CODER_ZSTD = 1,
} vg_coder;

/* zstd windows the protocol allows: 1 MiB to 128 MiB. */
#define VG_ZSTD_WINDOW_LOG_MIN 20
#define VG_ZSTD_WINDOW_LOG_MAX 27
/* What a viewer accepts by default: 16 MiB, a few hundred updates of
 * literal pixels on a busy screen. */
#define VG_ZSTD_WINDOW_LOG_DEFAULT 24

/* Largest zstd match tables a compressor keeps from level 9 on, log2
 * entries: 2^min(this, window_log - 3) (lower levels keep their own). */
#define VG_ZSTD_TABLE_LOG_MAX 20

typedef struct vg_zout vg_zout;
typedef struct vg_zin vg_zin;

/* A compressing stream. level: zlib 0-9 (-1 default), zstd 1-19.
 * window_log: zstd only, VG_ZSTD_WINDOW_LOG_MIN..MAX; from level 9 it
 * also sizes the match tables (VG_ZSTD_TABLE_LOG_MAX). VG_EINVAL for a bad
 * level or window, VG_EZLIB if the library refuses. */
int vg_zout_new(vg_coder coder, int level, unsigned window_log, vg_zout **out);

/* Frees z; accepts NULL. */
void vg_zout_free(vg_zout *z);

/* Appends the compressed form of in[0..len), flushed so that the decoder
 * gets every byte of it from this chunk and those before. */
int vg_zout_put(vg_zout *z, const uint8_t *in, size_t len, vg_writer *out);

/* Starts z again as a new stream with the same coder, level and window,
 * keeping its memory; VG_EZLIB if the library refuses. */
int vg_zout_reset(vg_zout *z);

vg_coder vg_zout_coder(const vg_zout *z);

/* A decompressing stream; window_log as the viewer announced it (zstd). */
int vg_zin_new(vg_coder coder, unsigned window_log, vg_zin **out);

void vg_zin_free(vg_zin *z);

/* Starts z again as a new stream, as vg_zout_reset; a stream damaged
 * data had made unusable is usable again. */
int vg_zin_reset(vg_zin *z);

/* Decompresses one chunk into *buf (grown, *buf_cap its size) and sets
 * *out_len. VG_ERANGE if it would produce more than max bytes, VG_EZLIB
 * for damaged data (the stream is then unusable). An empty chunk gives
 * 0 bytes. */
int vg_zin_get(vg_zin *z, const uint8_t *in, size_t len, uint8_t **buf, size_t *buf_cap,
	       size_t max, size_t *out_len);

#endif
