/* XTest input injection. */
#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "server/vg_xinject.h"

struct vg_xinject {
	Display *dpy;
	int32_t width, height;
	uint8_t buttons;          /* buttons held down */
	bool keys[256];           /* keycodes held down */
};

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

int vg_xinject_key(vg_xinject *j, uint32_t keysym, bool down)
{
	KeyCode kc = XKeysymToKeycode(j->dpy, (KeySym)keysym);

	if (kc == 0)
		return VG_ENOENT;
	/* A release of a key not held would be harmless to X but is not
	 * what was recorded: skip it. */
	if (!down && !j->keys[kc])
		return VG_OK;
	XTestFakeKeyEvent(j->dpy, kc, down ? True : False, CurrentTime);
	j->keys[kc] = down;
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
	g_free(j);
}
