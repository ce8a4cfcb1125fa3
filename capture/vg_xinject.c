/* XTest input injection. */
#include <X11/XKBlib.h>
#include <X11/Xlib.h>
#include <X11/keysym.h>
#include <X11/extensions/XTest.h>
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "capture/vg_xinject.h"

struct vg_xinject {
	Display *dpy;
	int32_t width, height;
	uint8_t buttons;          /* buttons held down */
	bool keys[256];           /* keycodes held down */
	uint32_t pressed[256];    /* keysym each held keycode was pressed for */
	KeySym *map;              /* the keyboard map, per_code keysyms a keycode */
	int min_code, max_code, per_code;
	KeyCode shift_code;       /* the key that makes Shift_L, 0 if none */
	KeyCode spare[8];         /* keycodes without keysyms, for keysyms no key makes */
	int n_spare, next_spare;
	uint32_t spare_sym[8];    /* what each spare keycode makes now */
	bool characters;          /* keysyms are characters, not unshifted keys */
};

/* (Re)reads the keyboard map and picks the spare keycodes: those with no
 * keysym at all, which no keyboard can produce, so remapping them changes
 * nothing a user has. */
static void load_keymap(vg_xinject *j)
{
	int code, k;

	if (j->map)
		XFree(j->map);
	XDisplayKeycodes(j->dpy, &j->min_code, &j->max_code);
	j->map = XGetKeyboardMapping(j->dpy, (KeyCode)j->min_code, j->max_code - j->min_code + 1,
				     &j->per_code);
	j->shift_code = XKeysymToKeycode(j->dpy, XK_Shift_L);
	j->n_spare = 0;
	for (code = j->max_code; code >= j->min_code && j->map && j->n_spare < 8; code--) {
		const KeySym *syms = j->map + (size_t)(code - j->min_code) * (size_t)j->per_code;
		bool empty = true;

		for (k = 0; k < j->per_code; k++)
			empty = empty && syms[k] == NoSymbol;
		if (empty && code < 256)
			j->spare[j->n_spare++] = (KeyCode)code;
	}
}

int vg_xinject_open(const char *display, vg_xinject **out)
{
	vg_xinject *j;
	int ev, er, major, minor;

	*out = NULL;
	j = g_new0(vg_xinject, 1);
	j->dpy = XOpenDisplay(display);
	if (!j->dpy) {
		g_free(j);
		return VG_EIO;
	}
	if (!XTestQueryExtension(j->dpy, &ev, &er, &major, &minor)) {
		vg_xinject_free(j);
		return VG_ENOTSUP;
	}
	load_keymap(j);
	j->width = DisplayWidth(j->dpy, DefaultScreen(j->dpy));
	j->height = DisplayHeight(j->dpy, DefaultScreen(j->dpy));
	*out = j;
	return VG_OK;
}

int32_t vg_xinject_width(const vg_xinject *j)
{
	return j->width;
}

int32_t vg_xinject_height(const vg_xinject *j)
{
	return j->height;
}

int vg_xinject_pointer(vg_xinject *j, int32_t x, int32_t y, uint8_t buttons)
{
	unsigned b;

	XTestFakeMotionEvent(j->dpy, DefaultScreen(j->dpy), x, y, CurrentTime);
	for (b = 0; b < 8; b++) {
		uint8_t bit = (uint8_t)(1u << b);

		if ((buttons ^ j->buttons) & bit)
			XTestFakeButtonEvent(j->dpy, b + 1, (buttons & bit) ? True : False, CurrentTime);
	}
	j->buttons = buttons;
	XFlush(j->dpy);
	return VG_OK;
}

/* Finds a keycode and its column (0: plain, 1: with Shift) that make
 * keysym in the first group. Returns false when no key does. */
static bool find_key(const vg_xinject *j, uint32_t keysym, KeyCode *kc, int *col)
{
	int code, k, cols = MIN(j->per_code, 2);

	for (k = 0; k < cols; k++)
		for (code = j->min_code; code <= j->max_code && code < 256; code++)
			if (j->map[(size_t)(code - j->min_code) * (size_t)j->per_code + (size_t)k] == keysym) {
				*kc = (KeyCode)code;
				*col = k;
				return true;
			}
	return false;
}

/* Makes a spare keycode produce keysym (both columns, so Shift does not
 * matter), reusing the least recently assigned one, as x11vnc does for
 * keysyms the keyboard map lacks (non-Latin letters on a US map). */
static bool remap_spare(vg_xinject *j, uint32_t keysym, KeyCode *kc)
{
	KeySym *syms;
	int i, k;

	for (i = 0; i < j->n_spare; i++)
		if (j->spare_sym[i] == keysym) {
			*kc = j->spare[i];
			return true;
		}
	if (j->n_spare == 0)
		return false;
	i = j->next_spare;
	j->next_spare = (j->next_spare + 1) % j->n_spare;
	if (j->keys[j->spare[i]])
		return false;
	syms = g_new0(KeySym, (size_t)j->per_code);
	for (k = 0; k < j->per_code && k < 2; k++)
		syms[k] = (KeySym)keysym;
	XChangeKeyboardMapping(j->dpy, j->spare[i], j->per_code, syms, 1);
	XSync(j->dpy, False);
	g_free(syms);
	j->map[(size_t)(j->spare[i] - j->min_code) * (size_t)j->per_code] = (KeySym)keysym;
	j->spare_sym[i] = keysym;
	*kc = j->spare[i];
	return true;
}

void vg_xinject_set_characters(vg_xinject *j, bool on)
{
	j->characters = on;
}

static bool shift_held(const vg_xinject *j)
{
	KeyCode l = XKeysymToKeycode(j->dpy, XK_Shift_L), r = XKeysymToKeycode(j->dpy, XK_Shift_R);

	return (l && j->keys[l]) || (r && j->keys[r]);
}

/* Presses or releases the Shift keys the client holds (to type a plain
 * character while it holds Shift), or presses Shift_L alone (to type a
 * shifted one without). */
static void fake_shift(vg_xinject *j, bool held, bool down)
{
	KeyCode l = XKeysymToKeycode(j->dpy, XK_Shift_L), r = XKeysymToKeycode(j->dpy, XK_Shift_R);

	if (!held) {
		if (j->shift_code)
			XTestFakeKeyEvent(j->dpy, j->shift_code, down, CurrentTime);
		return;
	}
	if (l && j->keys[l])
		XTestFakeKeyEvent(j->dpy, l, down, CurrentTime);
	if (r && j->keys[r])
		XTestFakeKeyEvent(j->dpy, r, down, CurrentTime);
}

int vg_xinject_key(vg_xinject *j, uint32_t keysym, bool down)
{
	KeyCode kc = 0;
	int col = 0, code;
	bool shift, plain_differs;

	if (!j->map)
		return VG_ENOENT;
	if (!down) {
		/* Release the key that was pressed for this keysym, even if
		 * Shift changed in between ('A' down, Shift up, 'a' up). */
		for (code = 0; code < 256; code++)
			if (j->keys[code] && j->pressed[code] == keysym)
				break;
		if (code == 256) {
			uint32_t lower = (uint32_t)XkbKeycodeToKeysym(j->dpy, XKeysymToKeycode(j->dpy, keysym), 0, 0);

			for (code = 0; code < 256; code++)
				if (j->keys[code] && lower && j->pressed[code] == lower)
					break;
		}
		/* A release of a key not held would be harmless to X but is
		 * not what was asked: skip it. */
		if (code == 256)
			return VG_OK;
		XTestFakeKeyEvent(j->dpy, (unsigned)code, False, CurrentTime);
		j->keys[code] = false;
		XFlush(j->dpy);
		return VG_OK;
	}
	if (!find_key(j, keysym, &kc, &col)) {
		if (!remap_spare(j, keysym, &kc))
			return VG_ENOENT;
		col = -1;
	}
	/* Clients send the keysym of the character they mean: add or
	 * take away Shift when the key needs another state than the held
	 * one. Keys whose two columns agree (Return, F1) are left alone. */
	shift = shift_held(j);
	plain_differs = j->characters && j->per_code > 1 &&
			j->map[(size_t)(kc - j->min_code) * (size_t)j->per_code + 1] != NoSymbol &&
			j->map[(size_t)(kc - j->min_code) * (size_t)j->per_code] !=
				j->map[(size_t)(kc - j->min_code) * (size_t)j->per_code + 1];
	if (col == 1 && !shift)
		fake_shift(j, false, true);
	else if (col == 0 && shift && plain_differs)
		fake_shift(j, true, false);
	XTestFakeKeyEvent(j->dpy, kc, True, CurrentTime);
	if (col == 1 && !shift)
		fake_shift(j, false, false);
	else if (col == 0 && shift && plain_differs)
		fake_shift(j, true, true);
	j->keys[kc] = true;
	j->pressed[kc] = keysym;
	XFlush(j->dpy);
	return VG_OK;
}

void vg_xinject_release_all(vg_xinject *j)
{
	unsigned b, k;

	for (b = 0; b < 8; b++)
		if (j->buttons & (1u << b))
			XTestFakeButtonEvent(j->dpy, b + 1, False, CurrentTime);
	j->buttons = 0;
	for (k = 0; k < G_N_ELEMENTS(j->keys); k++)
		if (j->keys[k]) {
			XTestFakeKeyEvent(j->dpy, k, False, CurrentTime);
			j->keys[k] = false;
		}
	XSync(j->dpy, False);
}

void vg_xinject_free(vg_xinject *j)
{
	if (!j)
		return;
	if (j->dpy) {
		vg_xinject_release_all(j);
		XCloseDisplay(j->dpy);
	}
	if (j->map)
		XFree(j->map);
	g_free(j);
}
