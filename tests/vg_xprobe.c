/* Test helper: a tiny X client.
 *   vg_xprobe draw STEPS INTERVAL_MS
 *       maps a 320x240 window at (16, 16) and draws STEPS frames of a
 *       scrolling pattern INTERVAL_MS apart, prints "done" and then
 *       stays until killed, drawing nothing more.
 *   vg_xprobe log
 *       maps a window over the whole screen, prints "ready", then one
 *       line per event until killed: "motion X Y", "button N DOWN X Y",
 *       "key KEYSYM DOWN" (DOWN is 1 or 0; KEYSYM the unshifted one) and,
 *       after each key press, "char KEYSYM" (in hex: the keysym the
 *       press makes with the modifiers held).
 *   vg_xprobe cursors N
 *       maps a window over the whole screen and, as R's X11 device does
 *       around each rectangle it draws, sets its cursor to a watch and
 *       back to an arrow N times, a millisecond apart, then to a cross;
 *       prints "done" and stays until killed.
 * Output is flushed line by line. */
#include <X11/cursorfont.h>
#include <X11/XKBlib.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static Window make_window(Display *dpy, int x, int y, unsigned w, unsigned h, long events)
{
	XSetWindowAttributes a;
	Window win;
	XEvent ev;

	memset(&a, 0, sizeof a);
	a.background_pixel = WhitePixel(dpy, DefaultScreen(dpy));
	a.override_redirect = True;
	a.event_mask = events | StructureNotifyMask | ExposureMask;
	win = XCreateWindow(dpy, DefaultRootWindow(dpy), x, y, w, h, 0, CopyFromParent, InputOutput,
			    CopyFromParent, CWBackPixel | CWOverrideRedirect | CWEventMask, &a);
	XMapRaised(dpy, win);
	do
		XNextEvent(dpy, &ev);
	while (ev.type != Expose);
	return win;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Strip number k of the list, 8 rows high at y, with some text-like
 * marks so that rows differ. */
static void band(Display *dpy, Window win, GC gc, int k, int y)
{
	int m;

	XSetForeground(dpy, gc, (unsigned long)((k * 37) % 256) << 16 | (unsigned long)((k * 91) % 256) << 8 |
					(unsigned long)((k * 53) % 256));
	XFillRectangle(dpy, win, gc, 0, y, 320, 8);
	XSetForeground(dpy, gc, 0xffffff);
	for (m = 0; m < 12; m++)
		if ((k * 7 + m * 3) % 5 < 3)
			XFillRectangle(dpy, win, gc, 10 + m * 24, y + 2, 6 + (k + m) % 14, 4);
}

/* A smooth 96x64 colour ramp that shifts with step s: photo-like pixels,
 * which encoders treat differently from flat colours. */
static void gradient(Display *dpy, Window win, GC gc, int s)
{
	static uint32_t px[96 * 64];
	XImage *img;
	int x, y;

	for (y = 0; y < 64; y++)
		for (x = 0; x < 96; x++)
			px[y * 96 + x] = (uint32_t)((x * 2 + s * 5) & 255) << 16 | (uint32_t)((y * 3 + s) & 255) << 8 |
					 (uint32_t)((x + y + s * 3) & 255);
	img = XCreateImage(dpy, DefaultVisual(dpy, DefaultScreen(dpy)), 24, ZPixmap, 0, (char *)px, 96, 64, 32,
			   96 * 4);
	XPutImage(dpy, win, gc, img, 0, 0, 200, 150, 96, 64);
	img->data = NULL;
	XDestroyImage(img);
}

static int draw(Display *dpy, int steps, long interval_ms)
{
	Window win = make_window(dpy, 16, 16, 320, 240, 0);
	GC gc = XCreateGC(dpy, win, 0, NULL);
	int s, i;

	/* A list scrolled like a terminal does: the window's content moves
	 * up 8 pixels (XCopyArea, which VNC servers send as CopyRect) and a
	 * new strip is drawn at the bottom; a small box changes colour. */
	for (i = 0; i < 240 / 8; i++)
		band(dpy, win, gc, i, i * 8);
	for (s = 0; s < steps; s++) {
		XCopyArea(dpy, win, win, gc, 0, 8, 320, 232, 0, 0);
		band(dpy, win, gc, 30 + s, 232);
		XSetForeground(dpy, gc, (unsigned long)(s * 40503u) & 0xffffff);
		XFillRectangle(dpy, win, gc, 8 + (s % 10) * 30, 8, 24, 24);
		gradient(dpy, win, gc, s);
		XSync(dpy, False);
		sleep_ms(interval_ms);
	}
	printf("done\n");
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}

static int log_events(Display *dpy)
{
	int scr = DefaultScreen(dpy);
	Window win = make_window(dpy, 0, 0, (unsigned)DisplayWidth(dpy, scr), (unsigned)DisplayHeight(dpy, scr),
				 KeyPressMask | KeyReleaseMask | ButtonPressMask | ButtonReleaseMask |
				 PointerMotionMask);
	XEvent ev;

	XSetInputFocus(dpy, win, RevertToPointerRoot, CurrentTime);
	XSync(dpy, False);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		XNextEvent(dpy, &ev);
		switch (ev.type) {
		case MotionNotify:
			printf("motion %d %d\n", ev.xmotion.x_root, ev.xmotion.y_root);
			break;
		case ButtonPress:
		case ButtonRelease:
			printf("button %u %d %d %d\n", ev.xbutton.button, ev.type == ButtonPress,
			       ev.xbutton.x_root, ev.xbutton.y_root);
			break;
		case KeyPress:
		case KeyRelease:
			printf("key %lu %d\n", (unsigned long)XkbKeycodeToKeysym(dpy, (KeyCode)ev.xkey.keycode, 0, 0),
			       ev.type == KeyPress);
			if (ev.type == KeyPress) {
				KeySym sym = NoSymbol;
				char buf[8];

				XLookupString(&ev.xkey, buf, sizeof buf, &sym, NULL);
				printf("char %#lx\n", (unsigned long)sym);
			}
			break;
		case MappingNotify:
			XRefreshKeyboardMapping(&ev.xmapping);
			continue;
		default:
			continue;
		}
		fflush(stdout);
	}
	return 0;
}

static int flip_cursors(Display *dpy, long n)
{
	Screen *scr = DefaultScreenOfDisplay(dpy);
	Window win = make_window(dpy, 0, 0, (unsigned)WidthOfScreen(scr), (unsigned)HeightOfScreen(scr), 0);
	Cursor watch = XCreateFontCursor(dpy, XC_watch), arrow = XCreateFontCursor(dpy, XC_left_ptr);
	long i;

	for (i = 0; i < n; i++) {
		XDefineCursor(dpy, win, watch);
		XFlush(dpy);
		XDefineCursor(dpy, win, arrow);
		XFlush(dpy);
		sleep_ms(1);
	}
	XDefineCursor(dpy, win, XCreateFontCursor(dpy, XC_crosshair));
	XSync(dpy, False);
	printf("done\n");
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}

int main(int argc, char **argv)
{
	Display *dpy = XOpenDisplay(NULL);

	if (!dpy) {
		fprintf(stderr, "vg_xprobe: cannot open display\n");
		return 1;
	}
	if (argc == 4 && strcmp(argv[1], "draw") == 0)
		return draw(dpy, atoi(argv[2]), atol(argv[3]));
	if (argc == 2 && strcmp(argv[1], "log") == 0)
		return log_events(dpy);
	if (argc == 3 && strcmp(argv[1], "cursors") == 0)
		return flip_cursors(dpy, atol(argv[2]));
	fprintf(stderr, "usage: vg_xprobe draw STEPS INTERVAL_MS | vg_xprobe log | vg_xprobe cursors N\n");
	return 2;
}
