#include <X11/Xlib.h>
#include <errno.h>
#include <inttypes.h>
#include <glib.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_minmax.h"
#include "common/vg_time.h"
#include "server/vg_inputqueue.h"
#include "capture/vg_xcapture.h"
#include "capture/vg_xinject.h"
#include "capture/vg_xselection.h"
#include "server/vg_xsource.h"

struct vg_xsource {
	char *display;
	vg_xsource_options opt;
	vg_xcapture *cap;
	vg_xinject *inject;
	vg_xselection *sel;       /* NULL without clipboard */
	Display *watch;           /* root size changes (RandR) */
	int32_t width, height;
	vg_pixbuf *fb;            /* the last grab */
	vg_rect *rects;
	size_t rects_cap;
	vg_inputqueue *input;     /* clients' events, from their threads */
	uint64_t frames;
	uint64_t grabs, grab_ns;  /* grabs, and the time in them, over every capture */
	uint64_t late_logged_ns;  /* when "cannot keep up" was last said */
	int64_t credit_ns;        /* grab time that may be spent at once */
	uint64_t credit_at_ns;    /* when credit_ns was last brought up to date */
	char error[160];
};

void vg_xsource_options_init(vg_xsource_options *o)
{
	memset(o, 0, sizeof *o);
	o->use_damage = true;
	o->use_shm = true;
	o->fps = 0;
	o->clipboard = true;
}

/* Xlib's default error handler exits the process. A request can fail
 * without a fault of ours -- reading a screen RandR just made smaller --
 * so errors are logged and the failing call returns its error instead. */
static int log_x_error(Display *dpy, XErrorEvent *ev)
{
	char text[80];

	XGetErrorText(dpy, ev->error_code, text, sizeof text);
	vg_debug("X error: %s (request %u.%u)", text, ev->request_code, ev->minor_code);
	return 0;
}

/* Opens the capture at the display's current size and a frame for it. */
static int open_capture(vg_xsource *x)
{
	vg_xcapture_options co;
	int err;

	vg_xcapture_options_init(&co);
	co.use_damage = x->opt.use_damage;
	co.use_shm = x->opt.use_shm;
	if ((err = vg_xcapture_open(x->display, &co, &x->cap))) {
		snprintf(x->error, sizeof x->error, "%s: %s", x->display ? x->display : "$DISPLAY",
			 err == VG_ENOTSUP ? "not a 24-bit TrueColor screen" : "cannot open the display");
		return err;
	}
	x->width = vg_xcapture_width(x->cap);
	x->height = vg_xcapture_height(x->cap);
	x->fb = vg_pixbuf_new(x->width, x->height);
	x->rects_cap = vg_xcapture_max_rects(x->cap);
	x->rects = g_new(vg_rect, x->rects_cap);
	return VG_OK;
}

static void close_capture(vg_xsource *x)
{
	vg_xcapture_free(x->cap);
	x->cap = NULL;
	vg_pixbuf_free(x->fb);
	x->fb = NULL;
	g_free(x->rects);
	x->rects = NULL;
}

int vg_xsource_open(const char *display, const vg_xsource_options *o, vg_xsource **out)
{
	vg_xsource *x = g_new0(vg_xsource, 1);
	int err;

	*out = NULL;
	x->opt = *o;
	x->display = g_strdup(display);
	/* With XDamage a read follows the application's drawing: a redraw
	 * in several requests a few ms apart is read as it lands rather than
	 * a 60 Hz tick later. Polling reads the whole screen each time. */
	if (x->opt.fps == 0)
		x->opt.fps = o->use_damage ? 240 : 60;
	if (x->opt.fps < 1 || x->opt.fps > 240) {
		snprintf(x->error, sizeof x->error, "the frame rate must be between 1 and 240");
		err = VG_EINVAL;
		goto fail;
	}
	XSetErrorHandler(log_x_error);
	if ((err = open_capture(x)))
		goto fail;
	if ((err = vg_xinject_open(display, &x->inject))) {
		snprintf(x->error, sizeof x->error, "%s has no XTest extension: no input",
			 display ? display : "$DISPLAY");
		goto fail;
	}
	vg_xinject_set_characters(x->inject, true);
	if (o->clipboard && (err = vg_xselection_open(display, &x->sel))) {
		snprintf(x->error, sizeof x->error, "%s has no XFixes extension: no clipboard",
			 display ? display : "$DISPLAY");
		goto fail;
	}
	x->watch = XOpenDisplay(display);
	if (!x->watch) {
		snprintf(x->error, sizeof x->error, "cannot open the display");
		err = VG_EIO;
		goto fail;
	}
	XSelectInput(x->watch, DefaultRootWindow(x->watch), StructureNotifyMask);
	XFlush(x->watch);
	if ((err = vg_inputqueue_new(x->sel != NULL, &x->input))) {
		snprintf(x->error, sizeof x->error, "cannot make a pipe");
		err = VG_EIO;
		goto fail;
	}
	*out = x;
	return VG_OK;
fail:
	vg_error("%s", x->error);
	vg_xsource_free(x);
	return err;
}

int32_t vg_xsource_width(const vg_xsource *x)
{
	return x->width;
}

int32_t vg_xsource_height(const vg_xsource *x)
{
	return x->height;
}

const char *vg_xsource_error_text(const vg_xsource *x)
{
	return x->error;
}

uint64_t vg_xsource_frames(const vg_xsource *x)
{
	return x->frames;
}

void vg_xsource_input(vg_xsource *x, vg_server_input *in)
{
	vg_inputqueue_attach(x->input, in);
}

/* Injects what clients sent since the last turn. */
static void inject_events(vg_xsource *x)
{
	vg_input_event *e;
	int err;

	while ((e = vg_inputqueue_pop(x->input))) {
		switch (e->kind) {
		case VG_INPUT_POINTER:
			vg_xinject_pointer(x->inject, CLAMP(e->x, 0, x->width - 1),
					   CLAMP(e->y, 0, x->height - 1), e->buttons);
			break;
		case VG_INPUT_KEY:
			if ((err = vg_xinject_key(x->inject, e->keysym, e->down)))
				vg_debug("keysym 0x%x: no key makes it", e->keysym);
			break;
		case VG_INPUT_CUT_TEXT:
			if (vg_xselection_set(x->sel, e->text, e->len))
				vg_debug("clipboard text of %zu bytes is too large", e->len);
			break;
		}
		vg_input_event_free(e);
	}
}

static void send_cursor(vg_xsource *x, vg_server *srv)
{
	vg_server_cursor sc;
	vg_xcursor xc;

	if (vg_xcapture_cursor(x->cap, &xc))
		return;
	sc.width = xc.width;
	sc.height = xc.height;
	sc.hot_x = CLAMP(xc.hot_x, 0, xc.width - 1);
	sc.hot_y = CLAMP(xc.hot_y, 0, xc.height - 1);
	sc.pixels = xc.pixels;
	if (vg_server_set_cursor(srv, &sc))
		vg_debug("cursor of %dx%d not sent", xc.width, xc.height);
}

/* The root window's size as the X server says now, or false. */
static bool root_size(vg_xsource *x, int32_t *w, int32_t *h)
{
	bool changed = false;
	XEvent ev;

	while (XPending(x->watch) > 0) {
		XNextEvent(x->watch, &ev);
		if (ev.type == ConfigureNotify && ev.xconfigure.window == DefaultRootWindow(x->watch) &&
		    (ev.xconfigure.width != x->width || ev.xconfigure.height != x->height)) {
			*w = ev.xconfigure.width;
			*h = ev.xconfigure.height;
			changed = true;
		}
	}
	return changed;
}

/* The screen changed size: a new capture at the new size, and the server
 * follows. */
static int resize(vg_xsource *x, vg_server *srv, int32_t w, int32_t h)
{
	int err;

	vg_info("the display is now %dx%d (was %dx%d)", w, h, x->width, x->height);
	close_capture(x);
	if ((err = open_capture(x)))
		return err;
	if ((err = vg_server_resize(srv, x->width, x->height))) {
		snprintf(x->error, sizeof x->error, "cannot share a %dx%d screen", x->width, x->height);
		return err;
	}
	return VG_OK;
}

/* Reading the screen may take half of a core, over time: grab time is
 * earned at half the rate of the clock, up to GRAB_BURST_NS. An
 * application's redraw in a few pieces (a terminal's new page: a copy,
 * then the new line) is read piece by piece as it lands, each read a
 * frame interval after the last; a lasting animation that costs more is
 * read as often as the earned time allows. */
#define GRAB_BURST_NS 50000000

/* Spends the grab that started at start and took took, and returns the
 * time from its start to the next grab's. */
static uint64_t grab_spacing(vg_xsource *x, uint64_t start, uint64_t took)
{
	const uint64_t interval = 1000000000u / (uint64_t)x->opt.fps;
	const uint64_t now = start + took;

	if (x->credit_at_ns == 0)
		x->credit_ns = GRAB_BURST_NS;
	else
		x->credit_ns += (int64_t)((now - x->credit_at_ns) / 2);
	x->credit_ns = VG_MIN(x->credit_ns, (int64_t)GRAB_BURST_NS) - (int64_t)took;
	x->credit_at_ns = now;
	if (x->credit_ns >= 0)
		return VG_MAX(interval, took);
	/* In debt: wait until the clock has earned it back. */
	return VG_MAX(interval, took + 2 * (uint64_t)-x->credit_ns);
}

/* Says, at most every 10 s, that grabs are spaced (by grab_spacing)
 * wider than a 60 Hz screen's frames, or --fps's interval if longer,
 * because each costs so much: the capture, not the link, then holds the
 * picture back. */
static void note_late(vg_xsource *x, uint64_t took, uint64_t spacing, uint64_t now)
{
	uint64_t frame = VG_MAX(1000000000u / (uint64_t)x->opt.fps, 1000000000u / 60);

	/* The first grab reads the whole screen whatever it takes. */
	if (x->grabs < 2 || spacing <= frame || now - x->late_logged_ns < 10000000000u)
		return;
	x->late_logged_ns = now;
	vg_warn("screen capture cannot keep up: a grab took %.1f ms, so reads are %.1f ms apart, "
		"fewer than %d a second", (double)took / 1e6, (double)spacing / 1e6,
		(int)(1e9 / (double)frame));
}

/* Reads the screen and hands what changed to the server. */
static int grab(vg_xsource *x, vg_server *srv, uint64_t *next_grab)
{
	uint64_t start = vg_time_ns(), took, spacing;
	size_t n = 0;
	int err;

	err = vg_xcapture_grab(x->cap, x->fb, x->rects, x->rects_cap, &n);
	took = vg_time_ns() - start;
	x->grabs++;
	x->grab_ns += took;
	spacing = grab_spacing(x, start, took);
	note_late(x, took, spacing, start + took);
	*next_grab = start + spacing;
	if (err)
		return err;
	if (n == 0)
		return VG_OK;
	/* The server's frame is locked only for the copy, not the read. */
	vg_server_frame_copy(srv, x->fb, x->rects, n);
	x->frames++;
	return VG_OK;
}

/* What the capture cost over the run. */
static void log_capture(const vg_xsource *x)
{
	vg_xcapture_stats st;

	/* The counts are the current capture's (a resize makes a new one). */
	vg_xcapture_stats_get(x->cap, &st);
	if (x->grabs == 0)
		return;
	vg_info("capture: %" PRIu64 " grabs, %.2f ms a grab; at this size %" PRIu64 " of %" PRIu64
		" read only damaged tiles, %.1f screens read", x->grabs,
		(double)x->grab_ns / 1e6 / (double)x->grabs, st.partial_grabs, st.grabs,
		(double)st.pixels_read / ((double)x->width * (double)x->height));
}

int vg_xsource_run(vg_xsource *x, vg_server *srv, const volatile sig_atomic_t *stop)
{
	uint64_t next_grab = 0;
	int failures = 0, err;

	send_cursor(x, srv);
	while (!*stop) {
		struct pollfd fds[4];
		nfds_t nfds = 0;
		const char *text;
		uint64_t now;
		int32_t w, h;
		size_t len;
		int timeout = 200;
		uint64_t cursor_in;

		fds[nfds++] = (struct pollfd){ .fd = vg_xcapture_fd(x->cap), .events = POLLIN };
		fds[nfds++] = (struct pollfd){ .fd = ConnectionNumber(x->watch), .events = POLLIN };
		fds[nfds++] = (struct pollfd){ .fd = vg_inputqueue_fd(x->input), .events = POLLIN };
		if (x->sel)
			fds[nfds++] = (struct pollfd){ .fd = vg_xselection_fd(x->sel), .events = POLLIN };
		now = vg_time_ns();
		if (vg_xcapture_has_queued(x->cap))
			timeout = 0;
		else if (vg_xcapture_is_dirty(x->cap))
			timeout = next_grab > now ? (int)((next_grab - now) / 1000000u) + 1 : 0;
		cursor_in = vg_xcapture_cursor_due_in(x->cap, now);
		if (cursor_in != UINT64_MAX)
			timeout = MIN(timeout, (int)(cursor_in / 1000000u) + 1);
		if (poll(fds, nfds, timeout) < 0 && errno != EINTR) {
			snprintf(x->error, sizeof x->error, "poll: %s", g_strerror(errno));
			return VG_EIO;
		}
		inject_events(x);
		if (root_size(x, &w, &h) && (err = resize(x, srv, w, h)))
			return err;
		if ((err = vg_xcapture_process(x->cap))) {
			snprintf(x->error, sizeof x->error, "lost the display");
			return err;
		}
		if (x->sel && vg_xselection_process(x->sel, &text, &len) > 0)
			vg_server_cut_text(srv, text, len);
		if (vg_xcapture_cursor_due_in(x->cap, vg_time_ns()) == 0)
			send_cursor(x, srv);
		now = vg_time_ns();
		if (!vg_xcapture_is_dirty(x->cap) || now < next_grab)
			continue;
		if ((err = grab(x, srv, &next_grab))) {
			/* A read can fail while RandR changes the size: the
			 * size change comes next. Many in a row is a real fault. */
			if (++failures == 100) {
				snprintf(x->error, sizeof x->error, "cannot read the screen");
				return err;
			}
		} else {
			failures = 0;
		}
	}
	log_capture(x);
	return VG_OK;
}

void vg_xsource_free(vg_xsource *x)
{
	if (!x)
		return;
	close_capture(x);
	vg_xinject_free(x->inject);
	vg_xselection_free(x->sel);
	if (x->watch)
		XCloseDisplay(x->watch);
	vg_inputqueue_free(x->input);
	g_free(x->display);
	g_free(x);
}
