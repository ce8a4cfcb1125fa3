/* Test helper: an X client that covers the screen with a test pattern and
 * logs the keys and buttons it receives, one line each, on stdout:
 *   ready
 *   key press KEYSYM          (the keysym after modifiers, as XLookupString gives it)
 *   key release KEYSYM
 *   button press N X Y        (root coordinates)
 *   button release N X Y
 * With --hand its window has the hand2 cursor. Runs until killed. Used to check what
 * varg-viewer delivers to the far side of a real VNC server. */
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/cursorfont.h>
#include <stdio.h>
#include <string.h>

/* Coloured bands, a grid and some text: something every pixel of which a
 * wrong scale, offset or channel order would change. */
static void draw(Display *d, Window w, GC gc, int width, int height)
{
	static const unsigned long colours[] = { 0xc02020, 0x20a040, 0x2040d0, 0xe0c020, 0x808080, 0x00c0c0 };
	const char *text = "varg-viewer test pattern 0123456789";
	int i, x, y;

	for (i = 0; i < 6; i++) {
		XSetForeground(d, gc, colours[i]);
		XFillRectangle(d, w, gc, i * width / 6, 0, (unsigned)(width / 6 + 1), (unsigned)height);
	}
	XSetForeground(d, gc, 0xffffff);
	for (x = 0; x < width; x += 37)
		XDrawLine(d, w, gc, x, 0, x + height / 3, height);
	XSetForeground(d, gc, 0x000000);
	for (y = 20; y < height; y += 53)
		XDrawString(d, w, gc, 10 + y % 97, y, text, (int)strlen(text));
}

int main(int argc, char **argv)
{
	Display *d = XOpenDisplay(NULL);
	int hand = argc > 1 && strcmp(argv[1], "--hand") == 0;
	Window root, w;
	XSetWindowAttributes attr;
	GC gc;
	XEvent ev;
	int screen, width, height;

	if (!d) {
		fprintf(stderr, "vg_xevlog: cannot open display\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	screen = DefaultScreen(d);
	root = RootWindow(d, screen);
	width = DisplayWidth(d, screen);
	height = DisplayHeight(d, screen);
	attr.override_redirect = True;
	attr.background_pixel = 0;
	attr.event_mask = ExposureMask | KeyPressMask | KeyReleaseMask | ButtonPressMask |
			  ButtonReleaseMask | StructureNotifyMask;
	/* With --hand, a cursor unlike the root window's for the viewer to
	 * show; else the root's, which Xvnc does not draw into the picture. */
	attr.cursor = hand ? XCreateFontCursor(d, XC_hand2) : None;
	w = XCreateWindow(d, root, 0, 0, (unsigned)width, (unsigned)height, 0, CopyFromParent,
			  InputOutput, CopyFromParent,
			  CWOverrideRedirect | CWBackPixel | CWEventMask | CWCursor, &attr);
	gc = XCreateGC(d, w, 0, NULL);
	XMapRaised(d, w);
	for (;;) {
		XNextEvent(d, &ev);
		switch (ev.type) {
		case MapNotify:
			XSetInputFocus(d, w, RevertToPointerRoot, CurrentTime);
			draw(d, w, gc, width, height);
			XSync(d, False);
			printf("ready\n");
			break;
		case MappingNotify:
			/* Xvnc maps keysyms it lacks onto spare keycodes. */
			XRefreshKeyboardMapping(&ev.xmapping);
			break;
		case Expose:
			if (ev.xexpose.count == 0)
				draw(d, w, gc, width, height);
			break;
		case KeyPress:
		case KeyRelease: {
			char buf[16];
			KeySym ks = NoSymbol;
			const char *name;
			XEvent m;

			/* Xvnc remaps a spare keycode just before it sends a key it
			 * lacked: take that MappingNotify first, even when it is
			 * queued behind this event. */
			XSync(d, False);
			while (XCheckTypedEvent(d, MappingNotify, &m))
				XRefreshKeyboardMapping(&m.xmapping);
			XLookupString(&ev.xkey, buf, sizeof buf, &ks, NULL);
			name = XKeysymToString(ks);
			printf("key %s %s\n", ev.type == KeyPress ? "press" : "release",
			       name ? name : "NoSymbol");
			break;
		}
		case ButtonPress:
		case ButtonRelease:
			printf("button %s %u %d %d\n", ev.type == ButtonPress ? "press" : "release",
			       ev.xbutton.button, ev.xbutton.x_root, ev.xbutton.y_root);
			break;
		default:
			break;
		}
	}
}
