/* A VNC server's screen mirrored through LibVNCClient. */
#include <glib.h>
#include <rfb/rfbclient.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "server/vg_mirror.h"
#include "traces/vg_tilediff.h"

struct vg_mirror {
	rfbClient *client;
	int32_t width, height;
	int32_t tile;
	vg_pixbuf *cur;        /* the client's framebuffer, top bytes cleared */
	bool dirty;            /* an update completed since the last grab */
	bool grabbed;
	bool resized;
	char error[128];
};

static int client_tag;

static vg_mirror *mirror_of(rfbClient *client)
{
	return rfbClientGetClientData(client, &client_tag);
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

static void log_quiet(const char *fmt, ...)
{
	(void)fmt;
}

int vg_mirror_open(const char *host, int port, const char *encodings, int32_t tile, vg_mirror **out)
{
	vg_mirror *m;
	rfbClient *client;
	int argc = 0;

	*out = NULL;
	if (!host || port < 1 || port > 65535 || tile < 1 || tile > VG_MAX_DIM)
		return VG_EINVAL;
	/* LibVNCClient's log hooks are process-wide; it talks on stderr
	 * otherwise. */
	rfbClientLog = rfbClientErr = log_quiet;
	m = g_new0(vg_mirror, 1);
	m->tile = tile;
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
	client->FinishedFrameBufferUpdate = finished_update;
	client->MallocFrameBuffer = alloc_framebuffer;
	rfbClientSetClientData(client, &client_tag, m);
	/* rfbInitClient frees the client itself when it fails. */
	if (!rfbInitClient(client, &argc, NULL)) {
		g_free(m);
		return VG_EIO;
	}
	m->client = client;
	m->width = client->width;
	m->height = client->height;
	m->cur = vg_pixbuf_new(m->width, m->height);
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
		return 0;
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
		rfbClientCleanup(m->client);
	}
	vg_pixbuf_free(m->cur);
	g_free(m);
}
