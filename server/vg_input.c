/* The desktop around the picture: input and clipboard from clients to
 * the source, the cursor's shape and the clipboard from the source to
 * clients.
 */
#include <glib.h>
#include <limits.h>
#include <rfb/rfb.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "fingerprint/proto/vg_cursorlist.h"
#include "server/vg_input.h"
#include "server/vg_screen.h"

/* Where cl's input goes: the settings' callbacks; NULL once it is gone. */
static const vg_server_input *input_of(rfbClientPtr cl)
{
	vg_client *k = cl->clientData;

	return k ? &vg_screen_config(k->screen)->input : NULL;
}

static void on_pointer(int mask, int x, int y, rfbClientPtr cl)
{
	const vg_server_input *in = input_of(cl);

	/* Not rfbDefaultPtrAddEvent: it would move screen->cursorX/Y, which
	 * are kept off the screen (see vg_input_setup). */
	if (in && in->pointer)
		in->pointer(in->user, x, y, (uint8_t)mask);
}

static void on_key(rfbBool down, rfbKeySym keysym, rfbClientPtr cl)
{
	const vg_server_input *in = input_of(cl);

	if (in && in->key)
		in->key(in->user, (uint32_t)keysym, down != FALSE);
}

/* Plain RFB cut text is Latin-1. */
static void on_cut_text(char *str, int len, rfbClientPtr cl)
{
	const vg_server_input *in = input_of(cl);
	g_autofree char *utf8 = NULL;
	gsize n = 0;

	if (!in || !in->cut_text || len < 0)
		return;
	utf8 = g_convert(str, len, "UTF-8", "ISO-8859-1", NULL, &n, NULL);
	if (utf8)
		in->cut_text(in->user, utf8, n);
}

static void on_cut_text_utf8(char *str, int len, rfbClientPtr cl)
{
	const vg_server_input *in = input_of(cl);

	if (in && in->cut_text && len >= 0 && g_utf8_validate(str, len, NULL))
		in->cut_text(in->user, str, (size_t)len);
}

void vg_input_setup(rfbScreenInfoPtr screen, const vg_server_config *cfg)
{
	screen->ptrAddEvent = on_pointer;
	screen->kbdAddEvent = on_key;
	if (!cfg->no_clipboard) {
		screen->setXCutText = on_cut_text;
		screen->setXCutTextUTF8 = on_cut_text_utf8;
	}
	/* LibVNCServer paints the cursor into the shared framebuffer for
	 * clients that do not take cursor shapes (rfbShowCursor, at
	 * screen->cursorX/Y); with the position far off the screen it
	 * paints nothing. Clients that take shapes get them. */
	screen->cursorX = screen->cursorY = -0x4000;
}

int vg_input_set_cursor(rfbScreenInfoPtr screen, const uint32_t *pixels, int32_t width,
			int32_t height, int32_t hot_x, int32_t hot_y)
{
	rfbCursorPtr c;
	int32_t x, y, row_bytes;

	if (!vg_cursorlist_shape_valid(width, height, hot_x, hot_y))
		return VG_EINVAL;
	row_bytes = (width + 7) / 8;
	/* malloc, not g_malloc: LibVNCServer frees these (cleanup flags). */
	c = calloc(1, sizeof *c);
	c->width = (unsigned short)width;
	c->height = (unsigned short)height;
	c->xhot = (unsigned short)hot_x;
	c->yhot = (unsigned short)hot_y;
	c->richSource = calloc((size_t)width * (size_t)height, 4);
	c->mask = calloc((size_t)row_bytes * (size_t)height, 1);
	c->cleanup = c->cleanupMask = c->cleanupRichSource = TRUE;
	for (y = 0; y < height; y++)
		for (x = 0; x < width; x++) {
			uint32_t p = pixels[(size_t)y * (size_t)width + (size_t)x];
			uint32_t a = p >> 24, r = p >> 16 & 0xff, g = p >> 8 & 0xff, b = p & 0xff;

			/* RFB cursors have a 1-bit mask: opaque from half alpha,
			 * colours taken back out of premultiplication. */
			if (a < 0x80)
				continue;
			if (a < 0xff) {
				r = MIN(255u, r * 255 / a);
				g = MIN(255u, g * 255 / a);
				b = MIN(255u, b * 255 / a);
			}
			((uint32_t *)(void *)c->richSource)[(size_t)y * (size_t)width + (size_t)x] =
				r << 16 | g << 8 | b;
			c->mask[(size_t)y * (size_t)row_bytes + (size_t)x / 8] |= (uint8_t)(0x80u >> (x % 8));
		}
	/* For clients that only take two-colour X cursors. */
	rfbMakeXCursorFromRichCursor(screen, c);
	rfbSetCursor(screen, c);
	return VG_OK;
}

void vg_input_cut_text(rfbScreenInfoPtr screen, const char *utf8, size_t len)
{
	g_autofree char *latin1 = NULL;
	g_autofree char *copy = NULL;
	gsize n = 0;

	if (len > INT_MAX / 2)
		return;
	latin1 = g_convert_with_fallback(utf8, (gssize)len, "ISO-8859-1", "UTF-8", "?", NULL, &n, NULL);
	copy = g_malloc(len + 1);
	memcpy(copy, utf8, len);
	if (!latin1)
		latin1 = g_strdup("");
	rfbSendServerCutTextUTF8(screen, copy, (int)len, latin1, (int)n);
}
