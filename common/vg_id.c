#include "common/vg_id.h"

void vg_id_to_hex(const uint8_t id[VG_ID_BYTES], char out[VG_ID_HEX_LEN + 1])
{
	static const char digit[] = "0123456789abcdef";

	for (int i = 0; i < VG_ID_BYTES; i++) {
		out[2 * i] = digit[id[i] >> 4];
		out[2 * i + 1] = digit[id[i] & 15];
	}
	out[VG_ID_HEX_LEN] = '\0';
}

/* A hex digit's value, or -1 (also for the NUL that ends a short string). */
static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

bool vg_id_from_hex(const char *text, uint8_t id[VG_ID_BYTES])
{
	uint8_t v[VG_ID_BYTES];

	for (int i = 0; i < VG_ID_BYTES; i++) {
		int hi = digit_value(text[2 * i]), lo;

		/* Stops at the first non-digit: a short string is not read past its NUL. */
		if (hi < 0 || (lo = digit_value(text[2 * i + 1])) < 0)
			return false;
		v[i] = (uint8_t)(hi << 4 | lo);
	}
	for (int i = 0; i < VG_ID_BYTES; i++)
		id[i] = v[i];
	return true;
}
