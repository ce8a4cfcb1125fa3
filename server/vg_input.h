/* The desktop around the picture: input and clipboard from clients to
 * the source (the settings' vg_server_input), the cursor's shape and the
 * clipboard from the source to clients.
 */
#ifndef VG_INPUT_H
#define VG_INPUT_H

#include <rfb/rfb.h>
#include <stddef.h>
#include <stdint.h>

#include "server/vg_serverconfig.h"

/* Installs the input and clipboard hooks on a new screen, as cfg says
 * (cfg->no_clipboard: no cut text from clients), and keeps the cursor off
 * the frame. The hooks find the settings through each client's vg_client
 * (server/vg_screen.h). */
void vg_input_setup(rfbScreenInfoPtr screen, const vg_server_config *cfg);

/* Sends the cursor's image (width x height 0xAARRGGBB words with
 * premultiplied alpha, hot spot inside, as vg_server_set_cursor) to every
 * client that takes cursor shapes. VG_EINVAL for a bad size. */
int vg_input_set_cursor(rfbScreenInfoPtr screen, const uint32_t *pixels, int32_t width,
			int32_t height, int32_t hot_x, int32_t hot_y);

/* Sends clipboard text (UTF-8, len bytes) to every client: as UTF-8 to
 * those that take the extended clipboard, as Latin-1 to the others
 * (characters outside it become '?'). */
void vg_input_cut_text(rfbScreenInfoPtr screen, const char *utf8, size_t len);

#endif
