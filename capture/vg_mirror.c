/* A VNC server's screen mirrored through LibVNCClient. */
#include <glib.h>
#include <limits.h>
#include <rfb/rfbclient.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_cursor.h"
#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "capture/vg_channel.h"
#include "capture/vg_dial.h"
#include "capture/vg_firstpicture.h"
#include "capture/vg_mirror.h"
#include "fingerprint/cache/vg_segcache.h"
#include "segment2d/vg_tilediff.h"

/* Connect and security handshake, before LibVNCClient's part. */
#define CONNECT_MS 20000

struct vg_mirror {
	rfbClient *client;
	vg_channel *channel;   /* the socket, TLS when offered; LibVNCClient has its plain end */
	int32_t width, height;
	int32_t tile;
	vg_pixbuf *cur;        /* the client's framebuffer, top bytes cleared */
	bool dirty;            /* an update completed since the last grab */
	vg_firstpicture first;
	bool grabbed;
	bool resized;
	char *password;        /* for VNC authentication, or NULL */
	char *cut;             /* clipboard text the server sent, not yet taken */
	size_t cut_len;
	bool cut_new;
	uint32_t *cursor;      /* the newest cursor shape, premultiplied ARGB */
	vg_mirror_cursor cursor_shape;
	bool cursor_new;
	char error[128];
};

static int client_tag;

static vg_mirror *mirror_of(rfbClient *client)
{
	return rfbClientGetClientData(client, &client_tag);
}

static void got_pixels(rfbClient *client, int x, int y, int w, int h)
{
	vg_mirror *m = mirror_of(client);

	(void)x, (void)y, (void)w, (void)h;
	if (m)
		m->first.seen = true;
}

static void finished_update(rfbClient *client)
{
	vg_mirror *m = mirror_of(client);

	if (m)
		m->dirty = true;
}

/* LibVNCClient allocates the framebuffer here, at the handshake and when
 * the server resizes; a mirror has one size for its life. */
static rfbBool alloc_framebuffer(rfbClient *client)
{
	vg_mirror *m = mirror_of(client);
	size_t bytes = (size_t)client->width * (size_t)client->height * 4;

	if (m && m->width && (client->width != m->width || client->height != m->height)) {
		m->resized = true;
		return FALSE;
	}
	if (client->width < 1 || client->height < 1 || client->width > VG_MAX_DIM || client->height > VG_MAX_DIM)
		return FALSE;
	free(client->frameBuffer);
	client->frameBuffer = calloc(1, bytes);
	return client->frameBuffer != NULL;
}

/* Plain RFB cut text is Latin-1. */
static void got_cut_text(rfbClient *client, const char *text, int len)
{
	vg_mirror *m = mirror_of(client);
	gsize n = 0;
	char *utf8;

	if (!m || len < 0)
		return;
	utf8 = g_convert(text, len, "UTF-8", "ISO-8859-1", NULL, &n, NULL);
	if (!utf8)
		return;
	g_free(m->cut);
	m->cut = utf8;
	m->cut_len = n;
	m->cut_new = true;
}

/* rcSource holds the shape in the mirror's pixel format (0x00RRGGBB),
 * rcMask one byte a pixel, non-zero where the cursor is opaque; both
 * width x height. */
static void got_cursor(rfbClient *client, int xhot, int yhot, int w, int h, int bpp)
{
	vg_mirror *m = mirror_of(client);
	size_t n;

	if (!m || bpp != 4 || w < 1 || h < 1 || w > VG_MAX_DIM || h > VG_MAX_DIM || !client->rcSource ||
	    !client->rcMask)
		goto out;
	n = (size_t)w * (size_t)h;
	g_free(m->cursor);
	m->cursor = g_new(uint32_t, n);
	vg_cursor_from_rfb(client->rcSource, client->rcMask, n, m->cursor);
	m->cursor_shape.width = w;
	m->cursor_shape.height = h;
	/* RFB does not forbid a hot spot outside the image; users do. */
	m->cursor_shape.hot_x = CLAMP(xhot, 0, w - 1);
	m->cursor_shape.hot_y = CLAMP(yhot, 0, h - 1);
	m->cursor_shape.pixels = m->cursor;
	m->cursor_new = true;
out:
	/* LibVNCClient 0.9.14 frees the previous rcSource before the next
	 * shape but not the previous rcMask: the mask is done with here. */
	free(client->rcMask);
	client->rcMask = NULL;
}

/* LibVNCClient frees the answer. */
static char *get_password(rfbClient *client)
{
	vg_mirror *m = mirror_of(client);

	return strdup(m && m->password ? m->password : "");
}

static void log_quiet(const char *fmt, ...)
{
	(void)fmt;
}

int vg_mirror_open(const char *host, int port, const char *encodings, int32_t tile, vg_mirror **out)
{
	return vg_mirror_open_auth(host, port, encodings, tile, NULL, out);
}

/* Dials host:port and runs the security handshake: TLS when the server
 * offers it, its certificate trusted on first use in the user's cache
 * directory, as varg-viewer does. */
static int open_channel(vg_mirror *m, const char *host, int port, int *plain_fd)
{
	g_autofree char *trust_dir = vg_segcache_default_base_dir();
	vg_channel_config cfg = { .trust_dir = trust_dir, .host = host, .port = port };
	char why[640];
	int fd, err;

	cfg.deadline_ns = vg_time_ns() + CONNECT_MS * 1000000ull;
	if ((err = vg_dial(host, port, cfg.deadline_ns, NULL, &fd, why, sizeof why)))
		return err;
	err = vg_channel_open(fd, &cfg, &m->channel, plain_fd, why, sizeof why);
	/* The reason a certificate is refused is the user's to know. */
	if (err == VG_ECRYPTO)
		vg_warn("VNC server %s::%d: %s", host, port, why);
	return err;
}

int vg_mirror_open_auth(const char *host, int port, const char *encodings, int32_t tile,
			const char *password, vg_mirror **out)
{
	vg_mirror *m;
	rfbClient *client;
	int argc = 0, plain_fd = -1;

	*out = NULL;
	if (!host || port < 1 || port > 65535 || tile < 1 || tile > VG_MAX_DIM)
		return VG_EINVAL;
	/* LibVNCClient's log hooks are process-wide; it talks on stderr
	 * otherwise. */
	rfbClientLog = rfbClientErr = log_quiet;
	m = g_new0(vg_mirror, 1);
	m->tile = tile;
	m->password = g_strdup(password);
	if (open_channel(m, host, port, &plain_fd)) {
		vg_mirror_free(m);
		return VG_EIO;
	}
	client = rfbGetClient(8, 3, 4);
	client->format.redShift = 16;
	client->format.greenShift = 8;
	client->format.blueShift = 0;
	free(client->serverHost);
	client->serverHost = strdup(host);
	client->serverPort = port;
	client->appData.encodingsString = encodings;
	/* A recording must be exact: no JPEG. */
	client->appData.enableJPEG = FALSE;
	/* Cursor shapes, not a cursor painted into the picture: frames
	 * stay the application's, the pointer comes apart. */
	client->appData.useRemoteCursor = TRUE;
	client->GotCursorShape = got_cursor;
	client->FinishedFrameBufferUpdate = finished_update;
	client->GotFrameBufferUpdate = got_pixels;
	client->MallocFrameBuffer = alloc_framebuffer;
	client->GotXCutText = got_cut_text;
	client->GetPassword = get_password;
	rfbClientSetClientData(client, &client_tag, m);
	/* LibVNCClient takes the channel's plain end as a socket it accepted
	 * in listen mode, and shakes hands through it. */
	client->sock = plain_fd;
	client->listenSpecified = TRUE;
	/* rfbInitClient frees the client itself (closing the plain end) when
	 * it fails. */
	if (!rfbInitClient(client, &argc, NULL)) {
		vg_mirror_free(m);
		return VG_EIO;
	}
	m->client = client;
	m->width = client->width;
	m->height = client->height;
	m->cur = vg_pixbuf_new(m->width, m->height);
	vg_firstpicture_heard(&m->first, vg_time_ns());
	*out = m;
	return VG_OK;
}

int32_t vg_mirror_width(const vg_mirror *m)
{
	return m->width;
}

int32_t vg_mirror_height(const vg_mirror *m)
{
	return m->height;
}

/* A full request while the server's first picture is overdue. */
static int ask_again(vg_mirror *m)
{
	if (!vg_firstpicture_ask_due(&m->first, vg_time_ns()))
		return 0;
	vg_debug("no picture from the VNC server yet: asking again");
	if (!SendFramebufferUpdateRequest(m->client, 0, 0, m->width, m->height, FALSE)) {
		snprintf(m->error, sizeof m->error, "connection lost");
		return VG_EIO;
	}
	return 0;
}

int vg_mirror_poll(vg_mirror *m, int timeout_ms)
{
	int n;

	if (m->error[0])
		return m->resized ? VG_ENOTSUP : VG_EIO;
	n = WaitForMessage(m->client, (unsigned)timeout_ms * 1000u);
	if (n < 0) {
		snprintf(m->error, sizeof m->error, "connection lost");
		return VG_EIO;
	}
	if (n == 0)
		return ask_again(m);
	vg_firstpicture_heard(&m->first, vg_time_ns());
	if (!HandleRFBServerMessage(m->client)) {
		if (m->resized) {
			snprintf(m->error, sizeof m->error, "the server changed its screen size");
			return VG_ENOTSUP;
		}
		snprintf(m->error, sizeof m->error, "the server closed the connection");
		return VG_EIO;
	}
	return 1;
}

bool vg_mirror_is_dirty(const vg_mirror *m)
{
	return m->dirty || !m->grabbed;
}

size_t vg_mirror_max_rects(const vg_mirror *m)
{
	return vg_tilediff_max_rects(m->width, m->height, m->tile);
}

int vg_mirror_grab(vg_mirror *m, vg_pixbuf *fb, vg_rect *dst, size_t dst_cap, size_t *n)
{
	const uint32_t *src = (const uint32_t *)(const void *)m->client->frameBuffer;
	size_t i, count = (size_t)m->width * (size_t)m->height;
	int err;

	*n = 0;
	if (fb->width != m->width || fb->height != m->height)
		return VG_EINVAL;
	if (dst_cap < vg_mirror_max_rects(m))
		return VG_ENOSPC;
	m->dirty = false;
	/* The pixel's top byte is padding; Varg's pixels keep it zero. */
	for (i = 0; i < count; i++)
		m->cur->pixels[i] = src[i] & VG_PIXEL_MASK;
	if (!m->grabbed) {
		dst[0] = vg_pixbuf_rect(fb);
		*n = 1;
		m->grabbed = true;
	} else if ((err = vg_tilediff(fb, m->cur, m->tile, dst, dst_cap, n))) {
		return err;
	}
	for (i = 0; i < *n; i++)
		vg_pixbuf_copy_rect(fb, m->cur, dst[i]);
	return VG_OK;
}

int vg_mirror_pointer(vg_mirror *m, int32_t x, int32_t y, uint8_t buttons)
{
	return SendPointerEvent(m->client, x, y, buttons) ? VG_OK : VG_EIO;
}

int vg_mirror_key(vg_mirror *m, uint32_t keysym, bool down)
{
	return SendKeyEvent(m->client, keysym, down ? TRUE : FALSE) ? VG_OK : VG_EIO;
}

int vg_mirror_cut_text(vg_mirror *m, const char *utf8, size_t len)
{
	gsize n = 0;
	g_autofree char *latin1 = g_convert_with_fallback(utf8, (gssize)len, "ISO-8859-1", "UTF-8", "?",
							  NULL, &n, NULL);

	if (!latin1 || n > INT_MAX)
		return VG_EINVAL;
	return SendClientCutText(m->client, latin1, (int)n) ? VG_OK : VG_EIO;
}

int vg_mirror_take_cut_text(vg_mirror *m, const char **text, size_t *len)
{
	if (!m->cut_new)
		return 0;
	m->cut_new = false;
	*text = m->cut;
	*len = m->cut_len;
	return 1;
}

int vg_mirror_take_cursor(vg_mirror *m, vg_mirror_cursor *cur)
{
	if (!m->cursor_new)
		return 0;
	m->cursor_new = false;
	*cur = m->cursor_shape;
	return 1;
}

const char *vg_mirror_error_text(const vg_mirror *m)
{
	return m->error;
}

void vg_mirror_free(vg_mirror *m)
{
	if (!m)
		return;
	if (m->client) {
		free(m->client->frameBuffer);
		m->client->frameBuffer = NULL;
		/* The last cursor shape: rfbClientCleanup leaves it behind. */
		free(m->client->rcSource);
		free(m->client->rcMask);
		m->client->rcSource = NULL;
		m->client->rcMask = NULL;
		rfbClientCleanup(m->client);
	}
	vg_channel_free(m->channel);
	vg_pixbuf_free(m->cur);
	g_free(m->password);
	g_free(m->cut);
	g_free(m->cursor);
	g_free(m);
}
