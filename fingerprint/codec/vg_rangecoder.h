/* A range coder: symbols coded by their share of a frequency total, as the
 * pixel model (vg_pixmodel.h) predicts them, in about -log2(share) bits
 * each. Carry-less (after Subbotin): 32-bit low and range, one byte out
 * at a time; totals must stay below VG_RC_MAX_TOTAL. No allocation but
 * the output writer's; no socket I/O. */
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

/* Codes the symbol occupying [cum, cum + freq) of total (freq >= 1,
 * cum + freq <= total < VG_RC_MAX_TOTAL). */
void vg_rc_encode(vg_rc_encoder *e, uint32_t cum, uint32_t freq, uint32_t total);

/* Writes the last bytes; the encoder is done. */
void vg_rc_encoder_finish(vg_rc_encoder *e);

void vg_rc_decoder_init(vg_rc_decoder *d, const uint8_t *in, size_t len);

/* The cumulative frequency the next symbol falls on, in [0, total); a
 * value at or past total means the input is damaged. Follow with
 * vg_rc_decode of the symbol found. */
uint32_t vg_rc_decode_freq(vg_rc_decoder *d, uint32_t total);

void vg_rc_decode(vg_rc_decoder *d, uint32_t cum, uint32_t freq);

#endif
