#include <SDL.h>
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "viewer/vg_keymap.h"
#include "capture/vg_latin1.h"
#include "viewer/vg_overlay.h"
#include "viewer/vg_window.h"

/* Above this many rectangles one upload of their bounding box is cheaper
 * than many small ones. */
#define MAX_UPLOAD_RECTS 64
#define STATS_EVERY_MS 500

/* How the frame reaches the screen. Shown 1:1 (the window has the frame's
 * size) and without the overlay, the window's own surface holds the frame:
 * only the changed rectangles are copied into it and pushed to the display
 * (SDL_UpdateWindowSurfaceRects), so showing an update costs what changed.
 * Scaled, or with the overlay, a renderer draws a texture of the whole
 * frame and presents the whole window. A window may have a renderer or a
 * surface, not both, so one is destroyed before the other is made. */

struct vg_window {
	vg_window_config cfg;
	char *title;
	char *font;
	Uint32 event_type;        /* our SDL user event: session news */
	SDL_Window *win;
	SDL_Renderer *renderer;   /* NULL unless drawing through a renderer */
	SDL_Texture *tex;
	SDL_Surface *surface;     /* the window's surface (SDL owns it) when
	                           * the frame is shown 1:1 through it, else NULL */
	bool no_surface;          /* the surface failed once: renderer only */
	bool stale;               /* the surface or texture lacks the frame */
	bool exposed;             /* the whole window must be pushed again */
	SDL_Rect changed[MAX_UPLOAD_RECTS]; /* copied to the surface, not pushed */
	int n_changed;
	int fb_w, fb_h;
	SDL_Rect dst;             /* where the frame is drawn, in output pixels */
	SDL_Cursor *cursor;
	vg_overlay *overlay;
	bool show_stats;
	bool command;             /* F8 pressed: the next key is a command */
	bool swallow_text;        /* the text of a command key is not typed */
	int buttons;              /* RFB button mask held */
	uint32_t down[SDL_NUM_SCANCODES]; /* keysym sent down per key, 0 if none */
	char *clip;               /* last clipboard text exchanged (UTF-8) */
	uint64_t rate_t;          /* bandwidth sample: time and bytes */
	uint64_t rate_bytes;
	double rate_bps;
};

static bool is_invisible_driver(const char *name)
{
	return !name || strcmp(name, "offscreen") == 0 || strcmp(name, "dummy") == 0 ||
	       strcmp(name, "evdev") == 0;
}

int vg_window_new(const vg_window_config *cfg, vg_window **out, char *why, size_t why_cap)
{
	vg_window *w;

	if (!g_getenv("SDL_VIDEODRIVER") && !g_getenv("DISPLAY") && !g_getenv("WAYLAND_DISPLAY")) {
		snprintf(why, why_cap, "no display to open a window on (DISPLAY is not set)");
		return VG_ENOTSUP;
	}
	/* The window's surface as SDL's own buffer pushed rectangle by
	 * rectangle (XShmPutImage on X11), not a texture that SDL 2.26 would
	 * otherwise put behind it and present whole. SDL_FRAMEBUFFER_ACCELERATION
	 * in the environment still decides. */
	SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0");
	if (SDL_Init(SDL_INIT_VIDEO) != 0) {
		snprintf(why, why_cap, "cannot open the display: %s", SDL_GetError());
		return VG_ENOTSUP;
	}
	/* Without a display SDL falls back to drivers that show nothing;
	 * a window nobody sees is a mistake unless asked for by name. */
	if (!g_getenv("SDL_VIDEODRIVER") && is_invisible_driver(SDL_GetCurrentVideoDriver())) {
		SDL_Quit();
		snprintf(why, why_cap, "no display to open a window on (DISPLAY is not set)");
		return VG_ENOTSUP;
	}
	w = g_new0(vg_window, 1);
	w->cfg = *cfg;
	w->title = g_strdup(cfg->title ? cfg->title : "varg-viewer");
	w->font = g_strdup(cfg->font);
	w->cfg.title = w->title;
	w->cfg.font = w->font;
	w->show_stats = cfg->stats;
	w->event_type = SDL_RegisterEvents(1);
	*out = w;
	return VG_OK;
}

static void drop_renderer(vg_window *w)
{
	vg_overlay_free(w->overlay);
	w->overlay = NULL;
	if (w->tex)
		SDL_DestroyTexture(w->tex);
	w->tex = NULL;
	if (w->renderer)
		SDL_DestroyRenderer(w->renderer);
	w->renderer = NULL;
}

void vg_window_free(vg_window *w)
{
	if (!w)
		return;
	drop_renderer(w);
	if (w->cursor)
		SDL_FreeCursor(w->cursor);
	if (w->win)
		SDL_DestroyWindow(w->win);
	/* No SDL_Quit: it unloads the X libraries SDL opened, orphaning what
	 * they keep for the process's life (LeakSanitizer then reports it
	 * under unknown modules, beyond any suppression). Everything we
	 * created is freed above; SDL's process state ends with the process,
	 * which follows at once. */
	g_free(w->clip);
	g_free(w->title);
	g_free(w->font);
	g_free(w);
}

void vg_window_notify(void *user, vg_session_news news)
{
	vg_window *w = user;
	SDL_Event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = w->event_type;
	ev.user.code = (Sint32)news;
	SDL_PushEvent(&ev);
}

/* The size of what is drawn on, in pixels (SDL2's window surface has
 * the window's size in its own units). */
static void output_size(vg_window *w, int *ow, int *oh)
{
	if (w->renderer)
		SDL_GetRendererOutputSize(w->renderer, ow, oh);
	else
		SDL_GetWindowSize(w->win, ow, oh);
}

/* Scales the frame to fit the window, keeping its shape, centred; 1:1
 * when the window has the frame's size. */
static void layout(vg_window *w)
{
	int ow, oh;
	double sx, sy, s;

	output_size(w, &ow, &oh);
	if (w->fb_w <= 0 || w->fb_h <= 0 || ow <= 0 || oh <= 0) {
		w->dst = (SDL_Rect){ 0, 0, 0, 0 };
		return;
	}
	sx = (double)ow / w->fb_w;
	sy = (double)oh / w->fb_h;
	s = sx < sy ? sx : sy;
	w->dst.w = (int)(w->fb_w * s + 0.5);
	w->dst.h = (int)(w->fb_h * s + 0.5);
	w->dst.x = (ow - w->dst.w) / 2;
	w->dst.y = (oh - w->dst.h) / 2;
}

/* Window coordinates (SDL's logical units) to framebuffer pixels. */
static void to_frame(vg_window *w, int x, int y, int *fx, int *fy)
{
	int ww, wh, ow, oh;

	SDL_GetWindowSize(w->win, &ww, &wh);
	output_size(w, &ow, &oh);
	if (ww > 0 && wh > 0) {
		x = (int)((int64_t)x * ow / ww);
		y = (int)((int64_t)y * oh / wh);
	}
	if (w->dst.w <= 0 || w->dst.h <= 0) {
		*fx = *fy = 0;
		return;
	}
	*fx = (int)((int64_t)(x - w->dst.x) * w->fb_w / w->dst.w);
	*fy = (int)((int64_t)(y - w->dst.y) * w->fb_h / w->dst.h);
	*fx = CLAMP(*fx, 0, w->fb_w - 1);
	*fy = CLAMP(*fy, 0, w->fb_h - 1);
}

static void set_scale_mode(vg_window *w)
{
	if (w->tex)
		SDL_SetTextureScaleMode(w->tex, w->cfg.nearest ? SDL_ScaleModeNearest : SDL_ScaleModeLinear);
}

/* Fits the window to a new desktop size, within the screen, and shows it
 * (it opens hidden, until the first frame says how large it should be). */
static void fit_window(vg_window *w)
{
	SDL_Rect usable;
	int ww = w->fb_w, wh = w->fb_h, x, y;

	if (!(SDL_GetWindowFlags(w->win) & SDL_WINDOW_FULLSCREEN)) {
		if (SDL_GetDisplayUsableBounds(SDL_GetWindowDisplayIndex(w->win), &usable) == 0) {
			ww = MIN(ww, usable.w);
			wh = MIN(wh, usable.h);
		}
		SDL_SetWindowSize(w->win, ww, wh);
		/* Keep all of it on the screen: centre it if it would not fit
		 * where it is. */
		SDL_GetWindowPosition(w->win, &x, &y);
		if (SDL_GetDisplayUsableBounds(SDL_GetWindowDisplayIndex(w->win), &usable) == 0 &&
		    (x < usable.x || y < usable.y || x + ww > usable.x + usable.w ||
		     y + wh > usable.y + usable.h))
			SDL_SetWindowPosition(w->win, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED);
	}
	SDL_ShowWindow(w->win);
}

/* Copies rectangle r of the frame into the window's surface, converting
 * when the surface's pixels are not the frame's xRGB. */
static void copy_to_surface(vg_window *w, const vg_pixbuf *fb, vg_rect r)
{
	SDL_Surface *sf = w->surface;
	const uint32_t *src = vg_pixbuf_row(fb, r.y) + r.x;
	uint8_t *dst = (uint8_t *)sf->pixels + (size_t)r.y * (size_t)sf->pitch +
		       (size_t)r.x * sf->format->BytesPerPixel;
	int32_t y;

	if (sf->format->format != SDL_PIXELFORMAT_RGB888) {
		SDL_ConvertPixels(r.w, r.h, SDL_PIXELFORMAT_RGB888, src, (int)fb->stride * 4,
				  sf->format->format, dst, sf->pitch);
		return;
	}
	for (y = 0; y < r.h; y++)
		memcpy(dst + (size_t)y * (size_t)sf->pitch, src + (intptr_t)y * fb->stride,
		       (size_t)r.w * 4);
}

/* Notes r for the next push of the surface. Updates that come before a
 * push add up; past MAX_UPLOAD_RECTS the last one grows to hold the rest. */
static void note_changed(vg_window *w, vg_rect r)
{
	SDL_Rect *last = &w->changed[MAX_UPLOAD_RECTS - 1];
	vg_rect grown;

	if (w->n_changed < MAX_UPLOAD_RECTS) {
		w->changed[w->n_changed++] = (SDL_Rect){ r.x, r.y, r.w, r.h };
		return;
	}
	grown = vg_rect_bounds(vg_rect_make(last->x, last->y, last->w, last->h), r);
	*last = (SDL_Rect){ grown.x, grown.y, grown.w, grown.h };
}

/* Takes the rectangles changed since the last call from the session into
 * the texture or the surface; all of the frame when all is true or its
 * size changed. With neither to copy into (before the first frame is
 * shown, or while the surface has another size) the window is left stale
 * for show() to choose again. */
static int take_frame(vg_window *w, vg_session *s, bool all)
{
	const vg_pixbuf *fb;
	const vg_rect *rs;
	vg_rect one;
	size_t i, n;
	bool resized;
	int err = VG_OK;

	fb = vg_session_lock_frame(s, &rs, &n, &resized);
	if (!fb)
		goto out;
	if (resized || fb->width != w->fb_w || fb->height != w->fb_h) {
		if (w->tex)
			SDL_DestroyTexture(w->tex);
		w->tex = NULL;
		w->fb_w = fb->width;
		w->fb_h = fb->height;
		resized = true;
		all = true;
	}
	if (w->renderer && !w->tex) {
		w->tex = SDL_CreateTexture(w->renderer, SDL_PIXELFORMAT_RGB888,
					   SDL_TEXTUREACCESS_STREAMING, fb->width, fb->height);
		if (!w->tex) {
			vg_error("cannot create a %dx%d texture: %s", fb->width, fb->height, SDL_GetError());
			err = VG_ENOTSUP;
			goto out;
		}
		set_scale_mode(w);
		all = true;
	}
	if (!w->renderer && (!w->surface || w->surface->w != fb->width || w->surface->h != fb->height)) {
		w->stale = true;
		goto out;
	}
	if (all) {
		one = vg_pixbuf_rect(fb);
		rs = &one;
		n = 1;
		w->stale = false;
		w->exposed = true;
	} else if (n > MAX_UPLOAD_RECTS) {
		one = vg_rect_make(0, 0, 0, 0);
		for (i = 0; i < n; i++)
			one = vg_rect_bounds(one, rs[i]);
		rs = &one;
		n = 1;
	}
	for (i = 0; i < n; i++) {
		SDL_Rect r = { rs[i].x, rs[i].y, rs[i].w, rs[i].h };

		if (w->renderer) {
			SDL_UpdateTexture(w->tex, &r, vg_pixbuf_row(fb, rs[i].y) + rs[i].x,
					  (int)fb->stride * 4);
		} else {
			copy_to_surface(w, fb, rs[i]);
			note_changed(w, rs[i]);
		}
	}
out:
	vg_session_unlock_frame(s);
	if (!err && resized)
		fit_window(w);
	return err;
}

static void update_stats_text(vg_window *w, vg_session *s)
{
	vg_connection_stats st;
	unsigned reconnects;
	char state[256], rtt[32], security[128];
	uint64_t now = vg_time_ns();
	g_autofree char *text = NULL;
	double ratio;

	vg_session_get_stats(s, &st, &reconnects);
	if (w->rate_t && now > w->rate_t && st.bytes_received >= w->rate_bytes)
		w->rate_bps = (double)(st.bytes_received - w->rate_bytes) * 8e9 / (double)(now - w->rate_t);
	w->rate_t = now;
	w->rate_bytes = st.bytes_received;
	vg_session_state(s, state, sizeof state, NULL);
	if (st.rtt_ms >= 0)
		snprintf(rtt, sizeof rtt, "%.1f ms", st.rtt_ms);
	else
		snprintf(rtt, sizeof rtt, "-");
	if (st.encrypted)
		snprintf(security, sizeof security, "%s %s (%s)", st.tls_version, st.tls_cipher, st.tls_trust);
	else
		snprintf(security, sizeof security, "not encrypted");
	ratio = st.bytes_received ? (double)st.raw_bytes / (double)st.bytes_received : 0;
	text = g_strdup_printf(
		"%s\n"
		"security     %s\n"
		"received     %.2f MB   now %.2f Mbit/s\n"
		"raw pixels   %.2f MB   ratio %.1f : 1\n"
		"cache        %" G_GUINT64_FORMAT " hits   %" G_GUINT64_FORMAT " misses\n"
		"corrections  %" G_GUINT64_FORMAT "\n"
		"round trip   %s\n"
		"updates      %" G_GUINT64_FORMAT "   reconnects %u",
		state, security, st.bytes_received / 1e6, w->rate_bps / 1e6, st.raw_bytes / 1e6, ratio,
		st.cache_hits, st.cache_misses, st.corrections,
		rtt,
		st.updates, reconnects);
	vg_overlay_set_text(w->overlay, text);
}

static void render(vg_window *w)
{
	SDL_SetRenderDrawColor(w->renderer, 0, 0, 0, 255);
	SDL_RenderClear(w->renderer);
	if (w->tex)
		SDL_RenderCopy(w->renderer, w->tex, NULL, &w->dst);
	if (w->show_stats && w->overlay)
		vg_overlay_draw(w->overlay);
	SDL_RenderPresent(w->renderer);
}

/* Pushes what changed on the surface since the last push, or all of it
 * after an exposure. */
static void push_surface(vg_window *w)
{
	int rc = 0;

	if (w->exposed)
		rc = SDL_UpdateWindowSurface(w->win);
	else if (w->n_changed > 0)
		rc = SDL_UpdateWindowSurfaceRects(w->win, w->changed, w->n_changed);
	/* A surface the window's resize has replaced: the resize's event
	 * makes the next show() copy the frame into the new one. */
	if (rc)
		vg_debug("cannot update the window: %s", SDL_GetError());
	w->exposed = false;
	w->n_changed = 0;
}

/* The frame is shown 1:1: the window has its size. */
static bool is_unscaled(vg_window *w)
{
	int ww, wh;

	SDL_GetWindowSize(w->win, &ww, &wh);
	return w->fb_w > 0 && ww == w->fb_w && wh == w->fb_h;
}

static int use_renderer(vg_window *w, vg_session *s, char *why, size_t why_cap)
{
	w->surface = NULL;
	w->n_changed = 0;
	w->renderer = SDL_CreateRenderer(w->win, -1, SDL_RENDERER_PRESENTVSYNC);
	if (!w->renderer)
		w->renderer = SDL_CreateRenderer(w->win, -1, SDL_RENDERER_SOFTWARE);
	if (!w->renderer) {
		snprintf(why, why_cap, "cannot draw in the window: %s", SDL_GetError());
		return VG_ENOTSUP;
	}
	if (w->cfg.font && vg_overlay_new(w->renderer, w->cfg.font, 14, &w->overlay)) {
		vg_warn("cannot open the font %s: no statistics overlay", w->cfg.font);
		w->cfg.font = NULL; /* said once; and the surface serves with stats on */
	}
	if (w->show_stats && w->overlay)
		update_stats_text(w, s);
	w->stale = true;
	vg_debug("the window draws the frame through a renderer");
	return VG_OK;
}

/* Gives up the renderer for the window's surface. The first time only,
 * failing that, the renderer stays for good. */
static void use_surface(vg_window *w)
{
	drop_renderer(w);
	w->surface = SDL_GetWindowSurface(w->win);
	if (!w->surface || w->surface->w != w->fb_w || w->surface->h != w->fb_h) {
		/* e.g. SDL 2.26 on Wayland has none of its own: the
		 * renderer, as before, is no fault. */
		vg_debug("the window has no surface of the frame's size (%s): drawing through a renderer",
			 w->surface ? "another size" : SDL_GetError());
		w->surface = NULL;
		w->no_surface = true;
		return;
	}
	w->stale = true;
	w->n_changed = 0;
	vg_debug("the window shows the frame 1:1 through its surface (%s)",
		 SDL_GetPixelFormatName(w->surface->format->format));
}

/* Shows what changed since the last call, choosing first between the
 * surface and a renderer for the window's size and the overlay. */
static int show(vg_window *w, vg_session *s, char *why, size_t why_cap)
{
	bool want_surface;
	int err;

	/* The window stays hidden until the first frame. */
	if (w->fb_w <= 0)
		return VG_OK;
	want_surface = !w->no_surface && is_unscaled(w) && !(w->show_stats && w->cfg.font);
	if (want_surface && !w->surface)
		use_surface(w);
	else if (want_surface)
		/* The same surface, unless a resize replaced it (and its
		 * event then set stale). */
		w->surface = SDL_GetWindowSurface(w->win);
	else
		w->surface = NULL;
	if (!w->surface && !w->renderer && (err = use_renderer(w, s, why, why_cap)))
		return err;
	if (w->stale && (err = take_frame(w, s, true))) {
		snprintf(why, why_cap, "cannot show the frame");
		return err;
	}
	layout(w);
	if (w->surface)
		push_surface(w);
	else
		render(w);
	return VG_OK;
}

/* After a window event: what must be shown again. */
static void window_event(vg_window *w, Uint8 event)
{
	switch (event) {
	case SDL_WINDOWEVENT_ENTER:
	case SDL_WINDOWEVENT_LEAVE:
	case SDL_WINDOWEVENT_FOCUS_GAINED:
	case SDL_WINDOWEVENT_FOCUS_LOST:
	case SDL_WINDOWEVENT_MOVED:
	case SDL_WINDOWEVENT_TAKE_FOCUS:
		break;
	case SDL_WINDOWEVENT_RESIZED:
	case SDL_WINDOWEVENT_SIZE_CHANGED:
		/* SDL replaces the surface of a resized window. */
		if (w->surface)
			w->stale = true;
		w->exposed = true;
		break;
	default:
		w->exposed = true;
		break;
	}
}

static void set_cursor(vg_window *w, vg_session *s)
{
	int hx, hy;
	vg_pixbuf *pb = vg_session_take_cursor(s, &hx, &hy);
	SDL_Surface *surf;
	SDL_Cursor *cur;

	if (!pb)
		return;
	surf = SDL_CreateRGBSurfaceWithFormatFrom(pb->pixels, pb->width, pb->height, 32,
						  (int)pb->stride * 4, SDL_PIXELFORMAT_ARGB8888);
	if (surf) {
		cur = SDL_CreateColorCursor(surf, CLAMP(hx, 0, pb->width - 1), CLAMP(hy, 0, pb->height - 1));
		if (cur) {
			SDL_SetCursor(cur);
			if (w->cursor)
				SDL_FreeCursor(w->cursor);
			w->cursor = cur;
		}
		SDL_FreeSurface(surf);
	}
	vg_pixbuf_free(pb);
}

/* Server clipboard to ours, unless it is what we hold already. */
static void server_clipboard(vg_window *w, vg_session *s)
{
	char *text = vg_session_take_cut_text(s);

	if (!text)
		return;
	if (!w->clip || strcmp(text, w->clip) != 0) {
		SDL_SetClipboardText(text);
		g_free(w->clip);
		w->clip = text;
	} else {
		g_free(text);
	}
}

/* Our clipboard to the server, when it changed and is not what the
 * server just gave us. */
static void local_clipboard(vg_window *w, vg_session *s)
{
	char *text, *latin1;
	size_t len;

	if (w->cfg.view_only || !SDL_HasClipboardText())
		return;
	text = SDL_GetClipboardText();
	if (!text)
		return;
	if (!w->clip || strcmp(text, w->clip) != 0) {
		g_free(w->clip);
		w->clip = g_strdup(text);
		latin1 = vg_latin1_from_utf8(text, &len);
		vg_session_cut_text(s, latin1, len);
		g_free(latin1);
	}
	SDL_free(text);
}

static void key_to_server(vg_window *w, vg_session *s, uint32_t keysym, bool down)
{
	if (!w->cfg.view_only && keysym)
		vg_session_key(s, keysym, down);
}

/* Lets go of every key and button sent down: after focus moves away the
 * releases would go elsewhere, and the server would keep them held. */
static void release_all(vg_window *w, vg_session *s)
{
	size_t i;

	for (i = 0; i < SDL_NUM_SCANCODES; i++) {
		if (w->down[i])
			key_to_server(w, s, w->down[i], false);
		w->down[i] = 0;
	}
}

static void toggle_fullscreen(vg_window *w)
{
	bool full = SDL_GetWindowFlags(w->win) & SDL_WINDOW_FULLSCREEN_DESKTOP;

	SDL_SetWindowFullscreen(w->win, full ? 0 : SDL_WINDOW_FULLSCREEN_DESKTOP);
}

/* The key after F8; the picture is then redrawn. */
static void command_key(vg_window *w, vg_session *s, SDL_Keycode sym)
{
	w->command = false;
	w->swallow_text = true;
	switch (sym) {
	case SDLK_f:
		toggle_fullscreen(w);
		break;
	case SDLK_s:
		w->show_stats = !w->show_stats;
		vg_session_set_ping(s, w->show_stats);
		if (w->show_stats && w->overlay)
			update_stats_text(w, s);
		break;
	case SDLK_z:
		w->cfg.nearest = !w->cfg.nearest;
		set_scale_mode(w);
		break;
	case SDLK_F8:
		key_to_server(w, s, 0xffc5, true);
		key_to_server(w, s, 0xffc5, false);
		break;
	default:
		break;
	}
	SDL_SetWindowTitle(w->win, w->title);
}

/* Returns true when the window must be redrawn (a command ran). */
static bool key_event(vg_window *w, vg_session *s, const SDL_KeyboardEvent *k)
{
	SDL_Scancode sc = k->keysym.scancode;
	uint32_t keysym;

	if ((unsigned)sc >= SDL_NUM_SCANCODES)
		return false;
	if (k->type == SDL_KEYUP) {
		if (w->down[sc])
			key_to_server(w, s, w->down[sc], false);
		w->down[sc] = 0;
		return false;
	}
	w->swallow_text = false;
	if (w->command) {
		command_key(w, s, k->keysym.sym);
		return true;
	}
	if (k->keysym.sym == SDLK_F8 && !k->repeat) {
		w->command = true;
		g_autofree char *t = g_strdup_printf("%s  [F8: f fullscreen, s statistics, z scaling, F8 send F8]", w->title);
		SDL_SetWindowTitle(w->win, t);
		return false;
	}
	keysym = vg_keymap_special(k->keysym.sym);
	/* With Control, Alt or a logo key held SDL types no text: the key
	 * goes as its unshifted character, as an X keyboard would send it. */
	if (!keysym && (k->keysym.mod & (KMOD_CTRL | KMOD_LALT | KMOD_GUI)))
		keysym = vg_keymap_chord(k->keysym.sym);
	if (!keysym)
		return false;
	/* Autorepeat arrives as repeated presses, as X sends it. */
	w->down[sc] = keysym;
	key_to_server(w, s, keysym, true);
	return false;
}

static void text_event(vg_window *w, vg_session *s, const char *text)
{
	const char *p;
	SDL_Keymod mod = SDL_GetModState();

	if (w->swallow_text) {
		w->swallow_text = false;
		return;
	}
	/* Chords were sent from the key event. */
	if (mod & (KMOD_CTRL | KMOD_LALT | KMOD_GUI))
		return;
	for (p = text; *p; p = g_utf8_next_char(p)) {
		uint32_t keysym = vg_keymap_unicode(g_utf8_get_char(p));

		key_to_server(w, s, keysym, true);
		key_to_server(w, s, keysym, false);
	}
}

static void pointer_event(vg_window *w, vg_session *s, int x, int y)
{
	int fx, fy;

	if (w->cfg.view_only)
		return;
	to_frame(w, x, y, &fx, &fy);
	vg_session_pointer(s, fx, fy, w->buttons);
}

/* RFB has no wheel: each notch is a press and release of button 4/5
 * (vertical) or 6/7 (horizontal). */
static void wheel_clicks(vg_window *w, vg_session *s, int x, int y, int n, int up_bit, int down_bit)
{
	int bit = n > 0 ? up_bit : down_bit, i;

	for (i = 0; i < abs(n); i++) {
		w->buttons |= bit;
		pointer_event(w, s, x, y);
		w->buttons &= ~bit;
		pointer_event(w, s, x, y);
	}
}

static void wheel_event(vg_window *w, vg_session *s, const SDL_MouseWheelEvent *e)
{
	int flip = e->direction == SDL_MOUSEWHEEL_FLIPPED ? -1 : 1, x, y;

	if (w->cfg.view_only)
		return;
	SDL_GetMouseState(&x, &y);
	wheel_clicks(w, s, x, y, flip * e->y, 8, 16);
	wheel_clicks(w, s, x, y, flip * e->x, 64, 32);
}

static void set_title_state(vg_window *w, vg_session *s)
{
	char msg[256];
	g_autofree char *t = NULL;

	if (vg_session_state(s, msg, sizeof msg, NULL) == VG_STATE_CONNECTED) {
		SDL_SetWindowTitle(w->win, w->title);
		return;
	}
	t = g_strdup_printf("%s  (%s)", w->title, msg);
	SDL_SetWindowTitle(w->win, t);
}

/* Opens the window, hidden until the first frame, with a renderer: making
 * the first one may make SDL create the window again (for OpenGL), which
 * is better done before it shows; later renderers then find it ready. */
static int open_window(vg_window *w, vg_session *s, char *why, size_t why_cap)
{
	Uint32 flags = SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI | SDL_WINDOW_HIDDEN;

	if (w->cfg.fullscreen)
		flags |= SDL_WINDOW_FULLSCREEN_DESKTOP;
	w->win = SDL_CreateWindow(w->title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, 640,
				  480, flags);
	if (!w->win) {
		snprintf(why, why_cap, "cannot open a window: %s", SDL_GetError());
		return VG_ENOTSUP;
	}
	return use_renderer(w, s, why, why_cap);
}

int vg_window_run(vg_window *w, vg_session *s, char *why, size_t why_cap)
{
	SDL_Event ev;
	uint64_t last_stats = 0;
	bool dirty = true, quit = false;
	char msg[720];
	int err;

	if ((err = open_window(w, s, why, why_cap)))
		return err;
	vg_session_set_ping(s, w->show_stats);
	SDL_StartTextInput();
	while (!quit) {
		if (dirty) {
			if ((err = show(w, s, why, why_cap)))
				return err;
			dirty = false;
		}
		if (!SDL_WaitEventTimeout(&ev, STATS_EVERY_MS))
			ev.type = 0;
		/* varg-viewer handles SIGINT/SIGTERM itself (SDL leaves a
		 * handler alone that is set before SDL_Init). */
		if (w->cfg.stop && g_atomic_int_get(w->cfg.stop))
			break;
		do {
			if (ev.type == w->event_type) {
				switch (ev.user.code) {
				case VG_SESSION_FRAME:
					if ((err = take_frame(w, s, false))) {
						snprintf(why, why_cap, "cannot show the frame");
						return err;
					}
					dirty = true;
					break;
				case VG_SESSION_CURSOR:
					set_cursor(w, s);
					break;
				case VG_SESSION_CUT_TEXT:
					server_clipboard(w, s);
					break;
				case VG_SESSION_STATE:
					if (vg_session_state(s, msg, sizeof msg, &err) == VG_STATE_FAILED) {
						snprintf(why, why_cap, "%s", msg);
						return err;
					}
					set_title_state(w, s);
					break;
				}
				continue;
			}
			switch (ev.type) {
			case SDL_QUIT:
				quit = true;
				break;
			case SDL_WINDOWEVENT:
				if (ev.window.event == SDL_WINDOWEVENT_FOCUS_LOST)
					release_all(w, s);
				window_event(w, ev.window.event);
				dirty = true;
				break;
			case SDL_KEYDOWN:
			case SDL_KEYUP:
				if (key_event(w, s, &ev.key))
					dirty = true;
				break;
			case SDL_TEXTINPUT:
				text_event(w, s, ev.text.text);
				break;
			case SDL_MOUSEMOTION:
				pointer_event(w, s, ev.motion.x, ev.motion.y);
				break;
			case SDL_MOUSEBUTTONDOWN:
			case SDL_MOUSEBUTTONUP:
				if (ev.type == SDL_MOUSEBUTTONDOWN)
					w->buttons |= vg_keymap_button(ev.button.button);
				else
					w->buttons &= ~vg_keymap_button(ev.button.button);
				pointer_event(w, s, ev.button.x, ev.button.y);
				break;
			case SDL_MOUSEWHEEL:
				wheel_event(w, s, &ev.wheel);
				break;
			case SDL_CLIPBOARDUPDATE:
				local_clipboard(w, s);
				break;
			default:
				break;
			}
		} while (!quit && SDL_PollEvent(&ev));
		if (w->show_stats && w->overlay &&
		    vg_time_ms_since(last_stats, vg_time_ns()) >= STATS_EVERY_MS) {
			update_stats_text(w, s);
			last_stats = vg_time_ns();
			dirty = true;
		}
	}
	release_all(w, s);
	return VG_OK;
}
