/* Test helper for capture/vg_xcapture on a live display ($DISPLAY), run by
 * test_record.sh after it moved the pointer to X Y:
 *   vg_xcapture_check X Y
 * checks that a first grab reports the whole screen, a second one with
 * nothing drawn in between reports nothing, both with XDamage and by
 * polling, that the XFixes cursor is an image at (X, Y), and that with
 * XDamage a small window drawn afterwards is read alone (only its tiles)
 * into the same frame a whole-screen read gives. Prints one line
 * per failed check; exit status 1 if any failed. */
#include <X11/Xlib.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "capture/vg_xcapture.h"

static int failed;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("# failed: %s\n", what);
		failed = 1;
	}
}

/* Maps a 40 x 30 window of one colour at (x, y) on a connection of its
 * own; returns that connection (close it to take the window away). */
static Display *draw_window(int x, int y, unsigned long colour)
{
	Display *d = XOpenDisplay(NULL);
	XSetWindowAttributes a = { .override_redirect = True, .background_pixel = colour };
	Window w;

	if (!d)
		return NULL;
	w = XCreateWindow(d, DefaultRootWindow(d), x, y, 40, 30, 0, CopyFromParent, InputOutput,
			  CopyFromParent, CWOverrideRedirect | CWBackPixel, &a);
	XMapRaised(d, w);
	XSync(d, False);
	return d;
}

/* Waits up to 3 s for damage to be reported. */
static int wait_dirty(vg_xcapture *c)
{
	for (int i = 0; i < 300 && !vg_xcapture_is_dirty(c); i++) {
		struct pollfd p = { .fd = vg_xcapture_fd(c), .events = POLLIN };

		poll(&p, 1, vg_xcapture_has_queued(c) ? 0 : 10);
		if (vg_xcapture_process(c))
			return 0;
	}
	return vg_xcapture_is_dirty(c);
}

/* With XDamage: a window drawn after the first grab is read alone, and
 * the frame equals a whole-screen read by a second capture. */
static void check_partial(vg_xcapture *c, vg_pixbuf *fb, vg_rect *rects, size_t cap)
{
	vg_xcapture_options o;
	vg_xcapture_stats before, after;
	vg_xcapture *whole;
	vg_pixbuf *ref;
	Display *d;
	size_t n, i;
	int32_t y;
	int ok = 1;

	vg_xcapture_stats_get(c, &before);
	d = draw_window(101, 203, 0x123456);
	check(d != NULL, "a window to draw");
	if (!d)
		return;
	check(wait_dirty(c), "damage reported for the window");
	check(vg_xcapture_grab(c, fb, rects, cap, &n) == VG_OK && n >= 1, "the window's tiles reported");
	for (i = 0; i < n; i++)
		ok &= rects[i].y <= 203 + 30 && rects[i].y + rects[i].h >= 203 &&
		      rects[i].x <= 101 + 40 && rects[i].x + rects[i].w >= 101;
	check(ok, "only tiles at the window");
	check(vg_pixbuf_row(fb, 210)[110] == 0x123456, "the window's colour in the frame");
	vg_xcapture_stats_get(c, &after);
	if (after.partial_grabs > before.partial_grabs) {
		/* 40 x 30 at (101, 203) lies in 2 x 2 tiles of 32; the bound
		 * leaves room for a tile's slack each way. */
		check(after.pixels_read - before.pixels_read <= 128 * 128, "only the window's tiles read");
	} else {
		check(0, "a grab of the damaged tiles only");
	}
	vg_xcapture_options_init(&o);
	o.use_damage = 0;
	ref = vg_pixbuf_new(fb->width, fb->height);
	if (vg_xcapture_open(NULL, &o, &whole) == VG_OK) {
		check(vg_xcapture_grab(whole, ref, rects, cap, &n) == VG_OK, "a whole-screen read");
		for (y = 0, ok = 1; y < fb->height; y++)
			ok &= memcmp(vg_pixbuf_row(fb, y), vg_pixbuf_row(ref, y),
				     (size_t)fb->width * sizeof(uint32_t)) == 0;
		check(ok, "the frame from damaged rows equals a whole-screen read");
		vg_xcapture_free(whole);
	} else {
		check(0, "a second capture");
	}
	vg_pixbuf_free(ref);
	XCloseDisplay(d);
}

int main(int argc, char **argv)
{
	int pass;

	if (argc != 3) {
		fprintf(stderr, "usage: vg_xcapture_check X Y\n");
		return 2;
	}
	for (pass = 0; pass < 2; pass++) {
		vg_xcapture_options o;
		vg_xcapture *c;
		vg_pixbuf *fb;
		vg_rect *rects;
		vg_xcursor cur;
		size_t n, cap;
		int err;

		vg_xcapture_options_init(&o);
		o.use_damage = pass == 0;
		if ((err = vg_xcapture_open(NULL, &o, &c))) {
			printf("# failed: open: %s\n", vg_strerror(err));
			return 1;
		}
		check(vg_xcapture_has_damage(c) == (pass == 0), "XDamage in use as asked");
		fb = vg_pixbuf_new(vg_xcapture_width(c), vg_xcapture_height(c));
		cap = vg_xcapture_max_rects(c);
		rects = calloc(cap, sizeof *rects);
		check(vg_xcapture_is_dirty(c), "dirty before the first grab");
		check(vg_xcapture_grab(c, fb, rects, cap, &n) == VG_OK && n == 1 &&
		      rects[0].w == fb->width && rects[0].h == fb->height, "first grab is the whole screen");
		check(vg_xcapture_process(c) == VG_OK, "process");
		check(vg_xcapture_grab(c, fb, rects, cap, &n) == VG_OK && n == 0, "nothing changed, nothing reported");
		check(vg_xcapture_grab(c, fb, rects, cap - 1, &n) == VG_ENOSPC, "short rect array refused");
		if (pass == 0)
			check_partial(c, fb, rects, cap);
		check(vg_xcapture_cursor(c, &cur) == VG_OK, "cursor through XFixes");
		check(cur.x == atoi(argv[1]) && cur.y == atoi(argv[2]), "cursor position");
		check(cur.width > 0 && cur.height > 0 && cur.pixels != NULL, "cursor image");
		check(cur.hot_x < cur.width && cur.hot_y < cur.height, "hotspot inside the image");
		free(rects);
		vg_pixbuf_free(fb);
		vg_xcapture_free(c);
	}
	return failed;
}
