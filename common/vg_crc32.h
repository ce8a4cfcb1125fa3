/* CRC-32 as zlib's crc32() computes it (the polynomial of gzip, PNG and
 * Ethernet), at the speed of memory on large buffers: where the processor
 * multiplies without carries (PCLMULQDQ, every x86-64 since 2010), the
 * bytes are folded sixteen at a time, four lanes at once, and the rest
 * goes to zlib; elsewhere (the browser build) zlib alone. zlib's own
 * table-driven CRC runs at a third of a memcpy here, and the segment
 * cache checks every byte it keeps. No state, no globals of ours. */
#ifndef VG_CRC32_H
#define VG_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* crc carried on over the n bytes at p: vg_crc32(0, p, n) is zlib's
 * crc32(0, p, n), and vg_crc32(vg_crc32(0, a, n), b, m) the CRC of a
 * then b. */
uint32_t vg_crc32(uint32_t crc, const void *p, size_t n);

#endif
