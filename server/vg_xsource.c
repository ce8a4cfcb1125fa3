#include <X11/Xlib.h>
#include <errno.h>
#include <glib-unix.h>
#include <glib.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "server/vg_xcapture.h"
#include "server/vg_xinject.h"
#include "server/vg_xselection.h"
#include "server/vg_xsource.h"

/* One client event on its way from a client's thread to the source's. */
typedef enum { EV_POINTER, EV_KEY, EV_CUT } ev_kind;

typedef struct {
	ev_kind kind;
	int32_t x, y;
	uint8_t buttons;
	uint32_t keysym;
	bool down;
	char *text;
	size_t len;
} client_event;

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
	GAsyncQueue *events;      /* client_event *, from clients' threads */
	int wake[2];              /* written when an event is queued */
	uint64_t frames;
	char error[160];
};

void vg_xsource_options_init(vg_xsource_options *o)
{
	memset(o, 0, sizeof *o);
	o->use_damage = true;
	o->use_shm = true;
	o->fps = 30;
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

static void event_free(gpointer p)
{
	client_event *e = p;

	g_free(e->text);
	g_free(e);
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
	x->wake[0] = x->wake[1] = -1;
	x->opt = *o;
	x->display = g_strdup(display);
	x->events = g_async_queue_new_full(event_free);
	if (o->fps < 1 || o->fps > 240) {
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
	if (!g_unix_open_pipe(x->wake, FD_CLOEXEC, NULL) || !g_unix_set_fd_nonblocking(x->wake[0], TRUE, NULL) ||
	    !g_unix_set_fd_nonblocking(x->wake[1], TRUE, NULL)) {
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

static void queue_event(vg_xsource *x, client_event *e)
{
	char one = 1;

	g_async_queue_push(x->events, e);
	/* A full pipe already wakes the loop. */
	if (write(x->wake[1], &one, 1) < 0 && errno != EAGAIN)
		vg_debug("wake pipe: %s", g_strerror(errno));
}

static void on_pointer(void *user, int32_t px, int32_t py, uint8_t buttons)
{
	client_event *e = g_new0(client_event, 1);

	e->kind = EV_POINTER;
	e->x = px;
	e->y = py;
	e->buttons = buttons;
	queue_event(user, e);
}

static void on_key(void *user, uint32_t keysym, bool down)
{
	client_event *e = g_new0(client_event, 1);

	e->kind = EV_KEY;
	e->keysym = keysym;
	e->down = down;
	queue_event(user, e);
}

static void on_cut_text(void *user, const char *utf8, size_t len)
{
	vg_xsource *x = user;
	client_event *e;

	if (!x->sel)
		return;
	e = g_new0(client_event, 1);
	e->kind = EV_CUT;
	e->text = g_strndup(utf8, len);
	e->len = len;
	queue_event(x, e);
}

void vg_xsource_input(vg_xsource *x, vg_server_input *in)
{
	in->pointer = on_pointer;
	in->key = on_key;
	in->cut_text = on_cut_text;
	in->user = x;
}

/* Injects what clients sent since the last turn. */
static void inject_events(vg_xsource *x)
{
	client_event *e;
	char buf[64];
	int err;

	while (read(x->wake[0], buf, sizeof buf) > 0)
		;
	while ((e = g_async_queue_try_pop(x->events))) {
		switch (e->kind) {
		case EV_POINTER:
			vg_xinject_pointer(x->inject, CLAMP(e->x, 0, x->width - 1),
					   CLAMP(e->y, 0, x->height - 1), e->buttons);
			break;
		case EV_KEY:
			if ((err = vg_xinject_key(x->inject, e->keysym, e->down)))
				vg_debug("keysym 0x%x: no key makes it", e->keysym);
			break;
		case EV_CUT:
			if (vg_xselection_set(x->sel, e->text, e->len))
				vg_debug("clipboard text of %zu bytes is too large", e->len);
			break;
		}
		event_free(e);
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

/* Reads the screen and hands what changed to the server. */
static int grab(vg_xsource *x, vg_server *srv)
{
	vg_pixbuf *frame;
	size_t n = 0, i;
	int err;

	if ((err = vg_xcapture_grab(x->cap, x->fb, x->rects, x->rects_cap, &n)))
		return err;
	if (n == 0)
		return VG_OK;
	/* The server's frame is locked only for the copy, not the read. */
	frame = vg_server_frame_lock(srv);
	for (i = 0; i < n; i++)
		vg_pixbuf_copy_rect(frame, x->fb, x->rects[i]);
	vg_server_frame_unlock(srv, x->rects, n);
	x->frames++;
	return VG_OK;
}

int vg_xsource_run(vg_xsource *x, vg_server *srv, const volatile sig_atomic_t *stop)
{
	uint64_t interval = 1000000000u / (uint64_t)x->opt.fps, next_grab = 0;
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

		fds[nfds++] = (struct pollfd){ .fd = vg_xcapture_fd(x->cap), .events = POLLIN };
		fds[nfds++] = (struct pollfd){ .fd = ConnectionNumber(x->watch), .events = POLLIN };
		fds[nfds++] = (struct pollfd){ .fd = x->wake[0], .events = POLLIN };
		if (x->sel)
			fds[nfds++] = (struct pollfd){ .fd = vg_xselection_fd(x->sel), .events = POLLIN };
		now = vg_time_ns();
		if (vg_xcapture_is_dirty(x->cap))
			timeout = next_grab > now ? (int)((next_grab - now) / 1000000u) + 1 : 0;
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
		if (vg_xcapture_cursor_changed(x->cap))
			send_cursor(x, srv);
		now = vg_time_ns();
		if (!vg_xcapture_is_dirty(x->cap) || now < next_grab)
			continue;
		next_grab = now + interval;
		if ((err = grab(x, srv))) {
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
	if (x->wake[0] >= 0)
		close(x->wake[0]);
	if (x->wake[1] >= 0)
		close(x->wake[1]);
	g_async_queue_unref(x->events);
	g_free(x->display);
	g_free(x);
}
