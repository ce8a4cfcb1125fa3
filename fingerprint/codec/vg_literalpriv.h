/* What the two halves of the literal coder share (vg_literal.c codes,
 * vg_literal_dec.c decodes): the pixel prediction and the width of
 * packed palette indices, which must agree bit for bit. Private to
 * fingerprint/codec/. */
#ifndef VG_LITERALPRIV_H
#define VG_LITERALPRIV_H

#include <stdint.h>

/* Bits a packed index takes in a palette of n colours. */
static inline unsigned index_bits(unsigned n)
{
	return n <= 2 ? 1 : n <= 4 ? 2 : n <= 16 ? 4 : 8;
}

/* The median edge detector of LOCO-I: left, above, or their gradient. */
static inline int med(int a, int b, int c)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	return c >= hi ? lo : c <= lo ? hi : a + b - c;
}

/* Predicts channel shift of pixel x of row from its neighbours inside the
 * block: the left one on the first row, the one above in the first
 * column, else the median edge detector. */
static inline int predict(const uint32_t *row, const uint32_t *up, int32_t x, unsigned shift)
{
	if (!up)
		return x ? (int)(row[x - 1] >> shift & 0xff) : 0;
	if (!x)
		return (int)(up[0] >> shift & 0xff);
	return med((int)(row[x - 1] >> shift & 0xff), (int)(up[x] >> shift & 0xff),
		   (int)(up[x - 1] >> shift & 0xff));
}

#endif
