#include "common/vg_cursor.h"

#include <string.h>

void vg_cursor_from_rfb(const uint8_t *source, const uint8_t *mask, size_t n, uint32_t *argb)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t px;

		memcpy(&px, source + i * 4, 4);
		argb[i] = mask[i] ? 0xff000000u | (px & 0xffffffu) : 0;
	}
}
