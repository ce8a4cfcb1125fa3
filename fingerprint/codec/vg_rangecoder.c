#include "fingerprint/codec/vg_rangecoder.h"

/* A byte leaves when the top byte of low is settled; when the range has
 * shrunk below BOT without settling, it is cut to what is left below the
 * next multiple of BOT (the carry-less trick: a little range is lost). */
#define TOP (1u << 24)
#define BOT (1u << 16)

/* Whether low's top byte is settled and can leave (the range cut first
 * if it has shrunk too far without settling), at both ends alike. */
static inline bool settled(uint32_t low, uint32_t *range)
{
	if ((low ^ (low + *range)) >= TOP) {
		if (*range >= BOT)
			return false;
		*range = -low & (BOT - 1);
	}
	return true;
}

void vg_rc_encoder_init(vg_rc_encoder *e, vg_writer *out)
{
	e->low = 0;
	e->range = UINT32_MAX;
	e->out = out;
}

void vg_rc_encode(vg_rc_encoder *e, uint32_t cum, uint32_t freq, uint32_t total)
{
	e->range /= total;
	e->low += cum * e->range;
	e->range *= freq;
	while (settled(e->low, &e->range)) {
		vg_writer_u8(e->out, (uint8_t)(e->low >> 24));
		e->low <<= 8;
		e->range <<= 8;
	}
}

void vg_rc_encoder_finish(vg_rc_encoder *e)
{
	int i;

	for (i = 0; i < 4; i++) {
		vg_writer_u8(e->out, (uint8_t)(e->low >> 24));
		e->low <<= 8;
	}
}

static uint8_t next_byte(vg_rc_decoder *d)
{
	if (d->in < d->end)
		return *d->in++;
	d->overrun = true;
	return 0;
}

void vg_rc_decoder_init(vg_rc_decoder *d, const uint8_t *in, size_t len)
{
	int i;

	d->in = in;
	d->end = in + len;
	d->overrun = false;
	d->low = 0;
	d->range = UINT32_MAX;
	d->code = 0;
	for (i = 0; i < 4; i++)
		d->code = d->code << 8 | next_byte(d);
}

uint32_t vg_rc_decode_freq(vg_rc_decoder *d, uint32_t total)
{
	d->range /= total;
	return (d->code - d->low) / d->range;
}

void vg_rc_decode(vg_rc_decoder *d, uint32_t cum, uint32_t freq)
{
	d->low += cum * d->range;
	d->range *= freq;
	while (settled(d->low, &d->range)) {
		d->code = d->code << 8 | next_byte(d);
		d->low <<= 8;
		d->range <<= 8;
	}
}
