/* X selections through XFixes selection events and ICCCM conversions. */
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/extensions/Xfixes.h>
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "capture/vg_xselection.h"

/* Larger text is not fetched: a clipboard is not a file transfer. */
#define MAX_TEXT (1 << 20)

struct vg_xselection {
	Display *dpy;
	Window win;
	int fixes_event;
	Atom clipboard, utf8, targets, text_atom, prop;
	char *mine;              /* text we hold the selections with, or NULL */
	size_t mine_len;
	char *got;               /* the last text other clients had */
	size_t got_len;
};

int vg_xselection_open(const char *display, vg_xselection **out)
{
	vg_xselection *x = g_new0(vg_xselection, 1);
	int err_base;

	*out = NULL;
	x->dpy = XOpenDisplay(display);
	if (!x->dpy) {
		g_free(x);
		return VG_EIO;
	}
	if (!XFixesQueryExtension(x->dpy, &x->fixes_event, &err_base)) {
		vg_xselection_free(x);
		return VG_ENOTSUP;
	}
	x->win = XCreateSimpleWindow(x->dpy, DefaultRootWindow(x->dpy), 0, 0, 1, 1, 0, 0, 0);
	x->clipboard = XInternAtom(x->dpy, "CLIPBOARD", False);
	x->utf8 = XInternAtom(x->dpy, "UTF8_STRING", False);
	x->targets = XInternAtom(x->dpy, "TARGETS", False);
	x->text_atom = XInternAtom(x->dpy, "TEXT", False);
	x->prop = XInternAtom(x->dpy, "VARG_SELECTION", False);
	XFixesSelectSelectionInput(x->dpy, x->win, x->clipboard, XFixesSetSelectionOwnerNotifyMask);
	XFixesSelectSelectionInput(x->dpy, x->win, XA_PRIMARY, XFixesSetSelectionOwnerNotifyMask);
	XFlush(x->dpy);
	*out = x;
	return VG_OK;
}

int vg_xselection_fd(const vg_xselection *x)
{
	return ConnectionNumber(x->dpy);
}

/* Answers another client's request for our text. */
static void answer(vg_xselection *x, const XSelectionRequestEvent *req)
{
	XEvent reply;
	Atom prop = req->property != None ? req->property : req->target;

	memset(&reply, 0, sizeof reply);
	reply.xselection.type = SelectionNotify;
	reply.xselection.display = req->display;
	reply.xselection.requestor = req->requestor;
	reply.xselection.selection = req->selection;
	reply.xselection.target = req->target;
	reply.xselection.time = req->time;
	reply.xselection.property = None;
	if (x->mine && req->target == x->targets) {
		Atom list[] = { x->targets, x->utf8, XA_STRING, x->text_atom };

		XChangeProperty(x->dpy, req->requestor, prop, XA_ATOM, 32, PropModeReplace,
				(const unsigned char *)list, (int)G_N_ELEMENTS(list));
		reply.xselection.property = prop;
	} else if (x->mine && (req->target == x->utf8 || req->target == x->text_atom)) {
		XChangeProperty(x->dpy, req->requestor, prop, x->utf8, 8, PropModeReplace,
				(const unsigned char *)x->mine, (int)x->mine_len);
		reply.xselection.property = prop;
	} else if (x->mine && req->target == XA_STRING) {
		gsize n = 0;
		g_autofree char *latin1 = g_convert_with_fallback(x->mine, (gssize)x->mine_len, "ISO-8859-1",
								  "UTF-8", "?", NULL, &n, NULL);

		if (latin1) {
			XChangeProperty(x->dpy, req->requestor, prop, XA_STRING, 8, PropModeReplace,
					(const unsigned char *)latin1, (int)n);
			reply.xselection.property = prop;
		}
	}
	XSendEvent(x->dpy, req->requestor, False, 0, &reply);
	XFlush(x->dpy);
}

/* Reads the text a conversion left on our window. Returns 1 when it is
 * new, 0 otherwise. */
static int receive(vg_xselection *x, const XSelectionEvent *ev)
{
	Atom type = None;
	int format = 0;
	unsigned long n = 0, left = 0;
	unsigned char *data = NULL;
	char *text = NULL;
	gsize len = 0;
	int fresh = 0;

	if (ev->property == None) {
		/* No UTF-8 from this owner: ask for Latin-1. */
		if (ev->target == x->utf8)
			XConvertSelection(x->dpy, ev->selection, XA_STRING, x->prop, x->win, ev->time);
		return 0;
	}
	if (XGetWindowProperty(x->dpy, x->win, x->prop, 0, MAX_TEXT / 4, True, AnyPropertyType, &type,
			       &format, &n, &left, &data) != Success)
		return 0;
	if (format == 8 && type == x->utf8 && g_utf8_validate((const char *)data, (gssize)n, NULL)) {
		text = g_strndup((const char *)data, n);
		len = n;
	} else if (format == 8 && type == XA_STRING) {
		text = g_convert((const char *)data, (gssize)n, "UTF-8", "ISO-8859-1", NULL, &len, NULL);
	}
	if (data)
		XFree(data);
	if (text && (!x->got || len != x->got_len || memcmp(text, x->got, len) != 0)) {
		g_free(x->got);
		x->got = text;
		x->got_len = len;
		fresh = 1;
	} else {
		g_free(text);
	}
	return fresh;
}

int vg_xselection_process(vg_xselection *x, const char **text, size_t *len)
{
	int fresh = 0;
	XEvent ev;

	while (XPending(x->dpy) > 0) {
		XNextEvent(x->dpy, &ev);
		if (ev.type == x->fixes_event + XFixesSelectionNotify) {
			const XFixesSelectionNotifyEvent *sn = (const XFixesSelectionNotifyEvent *)&ev;

			if (sn->owner != None && sn->owner != x->win)
				XConvertSelection(x->dpy, sn->selection, x->utf8, x->prop, x->win,
						  sn->selection_timestamp);
		} else if (ev.type == SelectionNotify) {
			fresh |= receive(x, &ev.xselection);
		} else if (ev.type == SelectionRequest) {
			answer(x, &ev.xselectionrequest);
		}
		/* SelectionClear needs nothing: the new owner's text arrives
		 * through the owner change. */
	}
	XFlush(x->dpy);
	if (fresh) {
		*text = x->got;
		*len = x->got_len;
	}
	return fresh;
}

int vg_xselection_set(vg_xselection *x, const char *text, size_t len)
{
	if (len > MAX_TEXT)
		return VG_ERANGE;
	g_free(x->mine);
	x->mine = g_strndup(text, len);
	x->mine_len = len;
	/* What we hold is not news to pass back to the clients. */
	g_free(x->got);
	x->got = g_strndup(text, len);
	x->got_len = len;
	XSetSelectionOwner(x->dpy, x->clipboard, x->win, CurrentTime);
	XSetSelectionOwner(x->dpy, XA_PRIMARY, x->win, CurrentTime);
	XFlush(x->dpy);
	return VG_OK;
}

void vg_xselection_free(vg_xselection *x)
{
	if (!x)
		return;
	if (x->dpy)
		XCloseDisplay(x->dpy);
	g_free(x->mine);
	g_free(x->got);
	g_free(x);
}
