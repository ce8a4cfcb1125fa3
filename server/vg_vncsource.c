#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "server/vg_inputqueue.h"
#include "capture/vg_mirror.h"
#include "server/vg_vncsource.h"

/* Tiles compared to find what really changed. */
#define TILE 32
/* Lossless encodings only: what is proxied must be exact. */
#define ENCODINGS "tight zrle zlib hextile raw"

struct vg_vncsource {
	char *host;
	int port;
	char *password;
	vg_mirror *mirror;
	vg_pixbuf *fb;
	vg_rect *rects;
	size_t rects_cap;
	vg_inputqueue *input;     /* clients' events, from their threads */
	char error[160];
};

static int open_mirror(vg_vncsource *v)
{
	int err = vg_mirror_open_auth(v->host, v->port, ENCODINGS, TILE, v->password, &v->mirror);

	if (err) {
		snprintf(v->error, sizeof v->error, "cannot connect to the VNC server at %s:%d", v->host,
			 v->port);
		return err;
	}
	v->fb = vg_pixbuf_new(vg_mirror_width(v->mirror), vg_mirror_height(v->mirror));
	v->rects_cap = vg_mirror_max_rects(v->mirror);
	v->rects = g_new(vg_rect, v->rects_cap);
	return VG_OK;
}

static void close_mirror(vg_vncsource *v)
{
	vg_mirror_free(v->mirror);
	v->mirror = NULL;
	vg_pixbuf_free(v->fb);
	v->fb = NULL;
	g_free(v->rects);
	v->rects = NULL;
}

/* HOST:PORT, HOST:N (display N: port 5900 + N), HOST::PORT (always a
 * port, as vncviewer writes it) or [V6ADDR]:PORT. */
static bool parse_addr(const char *addr, char **host, int *port)
{
	const char *colon = strrchr(addr, ':'), *host_end = colon;
	char *end;
	long p;

	if (!colon || colon == addr || !colon[1])
		return false;
	p = strtol(colon + 1, &end, 10);
	if (*end || p < 0 || p > 65535)
		return false;
	if (colon[-1] == ':' && addr[0] != '[')
		host_end--;
	else if (p < 100)
		p += 5900;
	if (host_end == addr)
		return false;
	if (addr[0] == '[' && host_end[-1] == ']')
		*host = g_strndup(addr + 1, (gsize)(host_end - addr - 2));
	else
		*host = g_strndup(addr, (gsize)(host_end - addr));
	*port = (int)p;
	return true;
}

int vg_vncsource_open(const char *addr, const char *password, vg_vncsource **out)
{
	vg_vncsource *v;
	int err;

	*out = NULL;
	v = g_new0(vg_vncsource, 1);
	v->password = g_strdup(password);
	if ((err = vg_inputqueue_new(true, &v->input))) {
		vg_error("cannot make a pipe");
		vg_vncsource_free(v);
		return err;
	}
	if (!parse_addr(addr, &v->host, &v->port)) {
		vg_error("--vnc '%s': expected HOST:PORT (or HOST:N for display N)", addr);
		vg_vncsource_free(v);
		return VG_EINVAL;
	}
	if ((err = open_mirror(v))) {
		vg_error("%s", v->error);
		vg_vncsource_free(v);
		return err;
	}
	*out = v;
	return VG_OK;
}

int32_t vg_vncsource_width(const vg_vncsource *v)
{
	return vg_mirror_width(v->mirror);
}

int32_t vg_vncsource_height(const vg_vncsource *v)
{
	return vg_mirror_height(v->mirror);
}

const char *vg_vncsource_error_text(const vg_vncsource *v)
{
	return v->error;
}

void vg_vncsource_input(vg_vncsource *v, vg_server_input *in)
{
	vg_inputqueue_attach(v->input, in);
}

/* Passes what clients sent since the last turn to the server. The
 * mirror is used from this thread only, so events wait in the queue. */
static int forward_events(vg_vncsource *v)
{
	vg_input_event *e;
	int err = VG_OK;

	while (!err && (e = vg_inputqueue_pop(v->input))) {
		switch (e->kind) {
		case VG_INPUT_POINTER:
			err = vg_mirror_pointer(v->mirror, e->x, e->y, e->buttons);
			break;
		case VG_INPUT_KEY:
			err = vg_mirror_key(v->mirror, e->keysym, e->down);
			break;
		case VG_INPUT_CUT_TEXT:
			err = vg_mirror_cut_text(v->mirror, e->text, e->len);
			if (err == VG_EINVAL)
				err = VG_OK;
			break;
		}
		vg_input_event_free(e);
	}
	return err;
}

/* The server's cursor shape for every client that takes cursor shapes:
 * the mirror asked for shapes, so the server no longer paints the pointer
 * into the picture. */
static void send_cursor(vg_vncsource *v, vg_server *srv)
{
	vg_mirror_cursor mc;
	vg_server_cursor sc;

	if (vg_mirror_take_cursor(v->mirror, &mc) <= 0)
		return;
	sc.width = mc.width;
	sc.height = mc.height;
	sc.hot_x = mc.hot_x;
	sc.hot_y = mc.hot_y;
	sc.pixels = mc.pixels;
	if (vg_server_set_cursor(srv, &sc))
		vg_debug("cursor of %dx%d not sent", mc.width, mc.height);
}

static void grab(vg_vncsource *v, vg_server *srv)
{
	size_t n = 0;

	if (vg_mirror_grab(v->mirror, v->fb, v->rects, v->rects_cap, &n) || n == 0)
		return;
	vg_server_frame_copy(srv, v->fb, v->rects, n);
}

int vg_vncsource_run(vg_vncsource *v, vg_server *srv, const volatile sig_atomic_t *stop)
{
	const char *text;
	size_t len;
	int n, err;

	while (!*stop) {
		/* Short waits: clients' input is forwarded between them. */
		n = vg_mirror_poll(v->mirror, 10);
		if (n == VG_ENOTSUP) {
			/* The server changed its size: connect again to learn
			 * the new one, and the clients follow. */
			close_mirror(v);
			if ((err = open_mirror(v)))
				return err;
			vg_info("the VNC server's screen is now %dx%d", vg_mirror_width(v->mirror),
				vg_mirror_height(v->mirror));
			if ((err = vg_server_resize(srv, vg_mirror_width(v->mirror),
						    vg_mirror_height(v->mirror))))
				return err;
			continue;
		}
		if (n < 0) {
			snprintf(v->error, sizeof v->error, "%s:%d: %s", v->host, v->port,
				 vg_mirror_error_text(v->mirror));
			return VG_EIO;
		}
		if ((err = forward_events(v))) {
			snprintf(v->error, sizeof v->error, "%s:%d: cannot send input", v->host, v->port);
			return err;
		}
		if (vg_mirror_take_cut_text(v->mirror, &text, &len) > 0)
			vg_server_cut_text(srv, text, len);
		send_cursor(v, srv);
		if (vg_mirror_is_dirty(v->mirror))
			grab(v, srv);
	}
	return VG_OK;
}

void vg_vncsource_free(vg_vncsource *v)
{
	if (!v)
		return;
	close_mirror(v);
	vg_inputqueue_free(v->input);
	g_free(v->host);
	g_free(v->password);
	g_free(v);
}
