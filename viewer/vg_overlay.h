/* Lines of text drawn over the picture (the statistics overlay), through
 * SDL2_ttf: scalable, and any glyph the font has. */
#ifndef VG_OVERLAY_H
#define VG_OVERLAY_H

#include <SDL.h>

typedef struct vg_overlay vg_overlay;

/* Opens font_path at size points for renderer r (which must outlive the
 * overlay). VG_ENOENT if the font cannot be opened, VG_ENOTSUP if SDL_ttf
 * cannot start. */
int vg_overlay_new(SDL_Renderer *r, const char *font_path, int size, vg_overlay **out);

/* Frees o; accepts NULL. */
void vg_overlay_free(vg_overlay *o);

/* Sets the text, lines separated by '\n'; rendered once here, not per
 * frame. */
void vg_overlay_set_text(vg_overlay *o, const char *text);

/* Draws the text on a dark backdrop in the top left corner. */
void vg_overlay_draw(vg_overlay *o);

#endif
