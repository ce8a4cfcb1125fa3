/* varg-trace play: shows a trace's frames on a live X display, each at its
 * recorded time (scaled by --speed), in a borderless window at the top
 * left. Any X server then serves the session as it was recorded: how
 * scripts/compare-peers has TigerVNC's Xvnc encode the same session that
 * varg-server plays from the trace. */
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "traces/trace_cmd.h"
#include "traces/vg_trace.h"

/* A window the size of the trace at 0,0, with no window manager's frame,
 * and an XImage over fb's pixels (0x00RRGGBB words, as a 24-bit TrueColor
 * visual takes them). */
typedef struct {
	Display *dpy;
	Window win;
	GC gc;
	XImage *img;
} screen;

static int screen_open(screen *s, const char *name, vg_pixbuf *fb)
{
	XSetWindowAttributes wa = { .override_redirect = True, .background_pixel = 0 };
	XVisualInfo vi;
	XEvent ev;
	int scr;

	memset(s, 0, sizeof *s);
	s->dpy = XOpenDisplay(name);
	if (!s->dpy)
		return VG_EIO;
	scr = DefaultScreen(s->dpy);
	if (!XMatchVisualInfo(s->dpy, scr, 24, TrueColor, &vi) || vi.red_mask != 0xff0000 ||
	    vi.green_mask != 0x00ff00 || vi.blue_mask != 0x0000ff)
		return VG_ENOTSUP;
	/* The visual may not be the root's: then X wants a colormap and a
	 * border pixel of its own. */
	wa.colormap = XCreateColormap(s->dpy, RootWindow(s->dpy, scr), vi.visual, AllocNone);
	wa.border_pixel = 0;
	s->win = XCreateWindow(s->dpy, RootWindow(s->dpy, scr), 0, 0, (unsigned)fb->width,
			       (unsigned)fb->height, 0, 24, InputOutput, vi.visual,
			       CWOverrideRedirect | CWBackPixel | CWColormap | CWBorderPixel, &wa);
	XSelectInput(s->dpy, s->win, StructureNotifyMask);
	XMapRaised(s->dpy, s->win);
	do
		XNextEvent(s->dpy, &ev);
	while (ev.type != MapNotify);
	s->gc = XCreateGC(s->dpy, s->win, 0, NULL);
	s->img = XCreateImage(s->dpy, vi.visual, 24, ZPixmap, 0, (char *)fb->pixels,
			      (unsigned)fb->width, (unsigned)fb->height, 32, fb->stride * 4);
	if (s->img)
		s->img->byte_order = LSBFirst;
	return s->img ? VG_OK : VG_ENOTSUP;
}

static void screen_close(screen *s)
{
	if (s->img) {
		s->img->data = NULL; /* fb's pixels: not Xlib's to free */
		XDestroyImage(s->img);
	}
	if (s->gc)
		XFreeGC(s->dpy, s->gc);
	if (s->dpy)
		XCloseDisplay(s->dpy);
}

int vg__trace_play(int argc, char **argv)
{
	g_autofree char *display = NULL;
	double speed = 1.0;
	gboolean quiet = FALSE;
	GOptionEntry entries[] = {
		{ "display", 'd', 0, G_OPTION_ARG_STRING, &display, "X display to show the frames on (required)", ":N" },
		{ "speed", 's', 0, G_OPTION_ARG_DOUBLE, &speed, "Pace: 1 as recorded (default), 2 twice as fast", "X" },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No summary", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionContext *ctx = g_option_context_new("FILE.vtr - show a trace's frames on an X display");
	vg_trace_reader *r = NULL;
	vg_pixbuf *fb = NULL;
	vg_trace_record rec;
	screen s = { 0 };
	uint64_t start, frames = 0, late = 0;
	size_t i;
	int err, status = VG__EXIT_FAIL;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx,
		"Draws each frame record's rectangles into a borderless window at the top left\n"
		"of the display, at the record's time divided by --speed, then keeps the last\n"
		"frame up until SIGINT or SIGTERM. The display needs a 24-bit TrueColor visual.");
	if (!vg__trace_parse_options(ctx, &argc, &argv))
		return VG__EXIT_USAGE;
	if (argc != 2)
		return vg__trace_usage_error(argc < 2 ? "a trace FILE.vtr is required" : "unexpected argument '%s'",
					     argv[argc < 2 ? 0 : 2]);
	if (!display)
		return vg__trace_usage_error("--display :N is required");
	if (!(speed >= 0.01 && speed <= 1000))
		return vg__trace_usage_error("--speed must be 0.01..1000");

	if ((err = vg_trace_reader_open(argv[1], &r))) {
		vg_error("%s: %s", argv[1], vg_strerror(err));
		goto out;
	}
	fb = vg_pixbuf_new(vg_trace_reader_width(r), vg_trace_reader_height(r));
	if ((err = screen_open(&s, display, fb))) {
		vg_error(err == VG_EIO ? "cannot open display '%s'" : "display '%s' has no 24-bit TrueColor visual",
			 display);
		goto out;
	}
	vg__trace_catch_stop();

	start = vg_time_ns();
	while (!vg__trace_stopped() && (err = vg_trace_reader_next(r, &rec, fb)) == 1) {
		if (rec.kind != VG_TRACE_FRAME)
			continue;
		if (vg_time_ns() > start + (uint64_t)((double)rec.t_ns / speed) + 100000000u)
			late++;
		vg__trace_sleep_until(start + (uint64_t)((double)rec.t_ns / speed));
		for (i = 0; i < rec.n_rects; i++)
			XPutImage(s.dpy, s.win, s.gc, s.img, rec.rects[i].x, rec.rects[i].y, rec.rects[i].x,
				  rec.rects[i].y, (unsigned)rec.rects[i].w, (unsigned)rec.rects[i].h);
		XSync(s.dpy, False);
		frames++;
	}
	if (err < 0) {
		vg_error("%s", vg_trace_reader_error_text(r));
		goto out;
	}
	if (!quiet) {
		printf("%s: %" G_GUINT64_FORMAT " frames shown", argv[1], frames);
		if (late)
			printf(", %" G_GUINT64_FORMAT " more than 100 ms late", late);
		printf("\n");
		fflush(stdout);
	}
	/* The last frame stays up for whoever watches the display. */
	while (!vg__trace_stopped())
		vg__trace_sleep_until(vg_time_ns() + 1000000000u);
	status = VG__EXIT_OK;
out:
	screen_close(&s);
	vg_pixbuf_free(fb);
	vg_trace_reader_free(r);
	return status;
}
