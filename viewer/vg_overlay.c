#include <SDL_ttf.h>
#include <glib.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "viewer/vg_overlay.h"

struct vg_overlay {
	SDL_Renderer *renderer;
	TTF_Font *font;
	SDL_Texture *text;
	int w, h;
};

int vg_overlay_new(SDL_Renderer *r, const char *font_path, int size, vg_overlay **out)
{
	vg_overlay *o;

	if (!TTF_WasInit() && TTF_Init() != 0)
		return VG_ENOTSUP;
	o = g_new0(vg_overlay, 1);
	o->renderer = r;
	o->font = TTF_OpenFont(font_path, size);
	if (!o->font) {
		vg_overlay_free(o);
		return VG_ENOENT;
	}
	*out = o;
	return VG_OK;
}

void vg_overlay_free(vg_overlay *o)
{
	if (!o)
		return;
	if (o->text)
		SDL_DestroyTexture(o->text);
	if (o->font)
		TTF_CloseFont(o->font);
	g_free(o);
	if (TTF_WasInit())
		TTF_Quit();
}

void vg_overlay_set_text(vg_overlay *o, const char *text)
{
	SDL_Color white = { 255, 255, 255, 255 };
	SDL_Surface *surf;

	if (o->text)
		SDL_DestroyTexture(o->text);
	o->text = NULL;
	surf = TTF_RenderUTF8_Blended_Wrapped(o->font, text, white, 0);
	if (!surf) {
		vg_debug("overlay: %s", TTF_GetError());
		return;
	}
	o->text = SDL_CreateTextureFromSurface(o->renderer, surf);
	o->w = surf->w;
	o->h = surf->h;
	SDL_FreeSurface(surf);
}

void vg_overlay_draw(vg_overlay *o)
{
	SDL_Rect back, dst;

	if (!o->text)
		return;
	back = (SDL_Rect){ 4, 4, o->w + 12, o->h + 8 };
	dst = (SDL_Rect){ 10, 8, o->w, o->h };
	SDL_SetRenderDrawBlendMode(o->renderer, SDL_BLENDMODE_BLEND);
	SDL_SetRenderDrawColor(o->renderer, 0, 0, 0, 190);
	SDL_RenderFillRect(o->renderer, &back);
	SDL_RenderCopy(o->renderer, o->text, NULL, &dst);
}
