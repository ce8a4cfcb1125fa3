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

uint64_t vg_cursor_rich_bytes(int32_t w, int32_t h)
{
	return 12 + (uint64_t)w * (uint64_t)h * 4 + ((uint64_t)w + 7) / 8 * (uint64_t)h;
}
