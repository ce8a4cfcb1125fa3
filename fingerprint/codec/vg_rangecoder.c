#include "fingerprint/codec/vg_rangecoder.h"

void vg_rc_encoder_init(vg_rc_encoder *e, vg_writer *out)
{
	e->low = 0;
	e->range = UINT32_MAX;
	e->out = out;
}

void vg_rc_encoder_finish(vg_rc_encoder *e)
{
	int i;

	for (i = 0; i < 4; i++) {
		vg_writer_u8(e->out, (uint8_t)(e->low >> 24));
		e->low <<= 8;
	}
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
		d->code = d->code << 8 | vg_rc_next_byte(d);
}
