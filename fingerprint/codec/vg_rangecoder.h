/* A range coder: symbols coded by their share of a frequency total, as the
 * pixel model (vg_pixmodel.h) predicts them, in about -log2(share) bits
 * each. Carry-less (after Subbotin): 32-bit low and range, one byte out
 * at a time; totals must stay below VG_RC_MAX_TOTAL. No allocation but
 * the output writer's; no socket I/O. The coding steps are inline: the
 * pixel model takes several a pixel, and a yes or no of a power-of-two
 * total needs no division at either end. */
#ifndef VG_RANGECODER_H
#define VG_RANGECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_writer.h"

/* Frequency totals are below this (the coder keeps 16 bits of range). */
#define VG_RC_MAX_TOTAL (1u << 16)

typedef struct {
	uint32_t low, range;
	vg_writer *out;
} vg_rc_encoder;

typedef struct {
	uint32_t low, range, code;
	const uint8_t *in, *end;
	bool overrun;  /* read past the input: the chunk was damaged */
} vg_rc_decoder;

void vg_rc_encoder_init(vg_rc_encoder *e, vg_writer *out);

/* A byte leaves when the top byte of low is settled; when the range has
 * shrunk below VG_RC_BOT without settling, it is cut to what is left below
 * the next multiple of VG_RC_BOT (the carry-less trick: a little range is
 * lost). */
#define VG_RC_TOP (1u << 24)
#define VG_RC_BOT (1u << 16)

/* Writes the last bytes; the encoder is done. */
void vg_rc_encoder_finish(vg_rc_encoder *e);

void vg_rc_decoder_init(vg_rc_decoder *d, const uint8_t *in, size_t len);

/* Whether low's top byte is settled and can leave (the range cut first
 * if it has shrunk too far without settling), at both ends alike. */
static inline bool vg_rc_settled(uint32_t low, uint32_t *range)
{
	if ((low ^ (low + *range)) >= VG_RC_TOP) {
		if (*range >= VG_RC_BOT)
			return false;
		*range = -low & (VG_RC_BOT - 1);
	}
	return true;
}

static inline void vg_rc_encoder_shift(vg_rc_encoder *e)
{
	while (vg_rc_settled(e->low, &e->range)) {
		vg_writer_u8(e->out, (uint8_t)(e->low >> 24));
		e->low <<= 8;
		e->range <<= 8;
	}
}

/* Codes the symbol occupying [cum, cum + freq) of total (freq >= 1,
 * cum + freq <= total < VG_RC_MAX_TOTAL). */
static inline void vg_rc_encode(vg_rc_encoder *e, uint32_t cum, uint32_t freq, uint32_t total)
{
	e->range /= total;
	e->low += cum * e->range;
	e->range *= freq;
	vg_rc_encoder_shift(e);
}

/* Narrows low and range to a yes ([0, p) of 2^bits, r the range a unit)
 * or a no ([p, 2^bits)), at both ends alike. */
static inline void vg_rc_split(uint32_t *low, uint32_t *range, uint32_t r, uint32_t p, unsigned bits, bool yes)
{
	if (yes) {
		*range = r * p;
	} else {
		*low += r * p;
		*range = r * ((1u << bits) - p);
	}
}

/* Codes a yes or no, yes of probability p / 2^bits (0 < p < 2^bits,
 * bits <= 16): the very bytes of vg_rc_encode with [0, p) for yes and
 * [p, 2^bits) for no, without its division. */
static inline void vg_rc_encode_bit(vg_rc_encoder *e, uint32_t p, unsigned bits, bool yes)
{
	vg_rc_split(&e->low, &e->range, e->range >> bits, p, bits, yes);
	vg_rc_encoder_shift(e);
}

static inline uint8_t vg_rc_next_byte(vg_rc_decoder *d)
{
	if (d->in < d->end)
		return *d->in++;
	d->overrun = true;
	return 0;
}

/* The cumulative frequency the next symbol falls on, in [0, total); a
 * value at or past total means the input is damaged. Follow with
 * vg_rc_decode of the symbol found. */
static inline uint32_t vg_rc_decode_freq(vg_rc_decoder *d, uint32_t total)
{
	d->range /= total;
	return (d->code - d->low) / d->range;
}

static inline void vg_rc_decoder_shift(vg_rc_decoder *d)
{
	while (vg_rc_settled(d->low, &d->range)) {
		d->code = d->code << 8 | vg_rc_next_byte(d);
		d->low <<= 8;
		d->range <<= 8;
	}
}

static inline void vg_rc_decode(vg_rc_decoder *d, uint32_t cum, uint32_t freq)
{
	d->low += cum * d->range;
	d->range *= freq;
	vg_rc_decoder_shift(d);
}

/* Decodes what vg_rc_encode_bit coded: 1 for yes, 0 for no, -1 where the
 * input is damaged (the value lies past the whole range). */
static inline int vg_rc_decode_bit(vg_rc_decoder *d, uint32_t p, unsigned bits)
{
	uint32_t r = d->range >> bits, v = d->code - d->low;
	bool yes = v < r * p;

	if (v >= r << bits)
		return -1;
	vg_rc_split(&d->low, &d->range, r, p, bits, yes);
	vg_rc_decoder_shift(d);
	return yes;
}

#endif
