#include <glib.h>
#include <rfb/rfbclient.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "common/vg_writer.h"
#include "fingerprint/vg_proto.h"
#include "fingerprint/vg_receiver.h"
#include "viewer/vg_connection.h"
#include "viewer/vg_sockstat.h"

struct vg_connection {
	rfbClient *client;
	vg_receiver *receiver;
	vg_writer reply;
	uint8_t *body;           /* a Varg rectangle body, reused */
	size_t body_cap;
	bool varg_rect;          /* the rectangle just decoded was Varg */
	bool proto_error;        /* the server sent something we refused */
	char *encoding;
	char error[256];
	uint64_t t0;
	vg_connection_stats stats;
};

/* The tag under which LibVNCClient keeps our pointer. */
static char client_tag;

static int varg_encodings[] = { VG_ENCODING, 0 };

static vg_connection *conn_of(rfbClient *client)
{
	return rfbClientGetClientData(client, &client_tag);
}

static rfbBool handle_varg_rect(rfbClient *client, rfbFramebufferUpdateRectHeader *rect)
{
	vg_connection *c = conn_of(client);
	uint8_t lenb[4];
	uint32_t len;
	size_t cap;
	vg_pixbuf fb;
	int err;

	if (!c || rect->encoding != (uint32_t)VG_ENCODING)
		return FALSE;
	if (!ReadFromRFBServer(client, (char *)lenb, 4))
		return FALSE;
	len = (uint32_t)lenb[0] << 24 | (uint32_t)lenb[1] << 16 | (uint32_t)lenb[2] << 8 | lenb[3];
	/* A body never needs more than the frame's pixels plus headers. */
	cap = (size_t)client->width * (size_t)client->height * 8 + 65536;
	if (len > VG_MAX_BODY || len > cap) {
		snprintf(c->error, sizeof c->error, "Varg rectangle of %u bytes is larger than possible", len);
		c->proto_error = true;
		return FALSE;
	}
	if (len > c->body_cap) {
		c->body = g_realloc(c->body, len);
		c->body_cap = len;
	}
	if (len && !ReadFromRFBServer(client, (char *)c->body, len))
		return FALSE;
	fb = vg_pixbuf_wrap((uint32_t *)client->frameBuffer, client->width, client->height, client->width);
	vg_writer_reset(&c->reply);
	err = vg_receiver_handle(c->receiver, c->body, len, &fb, &c->reply);
	if (err) {
		snprintf(c->error, sizeof c->error, "bad Varg update: %s", vg_receiver_error_text(c->receiver));
		c->proto_error = true;
		return FALSE;
	}
	if (c->reply.len && !WriteToRFBServer(client, (const char *)c->reply.data, (unsigned)c->reply.len))
		return FALSE;
	c->varg_rect = true;
	c->stats.varg_bytes += len + 4;
	return TRUE;
}

static rfbClientProtocolExtension varg_extension = {
	.encodings = varg_encodings,
	.handleEncoding = handle_varg_rect,
};

/* Called after every rectangle that carried pixels, of any encoding. */
static void got_rect(rfbClient *client, int x, int y, int w, int h)
{
	vg_connection *c = conn_of(client);

	(void)x, (void)y, (void)w, (void)h;
	if (!c)
		return;
	if (c->varg_rect)
		c->stats.varg_rects++;
	else
		c->stats.other_rects++;
	c->varg_rect = false;
}

static void finished_update(rfbClient *client)
{
	vg_connection *c = conn_of(client);
	double t;

	if (!c)
		return;
	t = vg_time_ms_since(c->t0, vg_time_ns()) / 1000.0;
	if (c->stats.updates++ == 0)
		c->stats.first_update_s = t;
	c->stats.last_update_s = t;
}

static void log_quiet(const char *fmt, ...)
{
	(void)fmt;
}

int vg_connection_open(const vg_connection_config *cfg, vg_connection **out)
{
	static gsize ext_registered;
	vg_connection *c;
	rfbClient *client;
	vg_receiver_config rcfg;
	int argc = 0;
	int err;

	if (!cfg->verbose)
		rfbClientLog = rfbClientErr = log_quiet;
	/* LibVNCClient's extension list is global and cannot shrink: register
	 * Varg once, and only in a process that wants it. */
	if (cfg->varg && g_once_init_enter(&ext_registered)) {
		rfbClientRegisterExtension(&varg_extension);
		g_once_init_leave(&ext_registered, 1);
	}

	c = g_new0(vg_connection, 1);
	vg_writer_init(&c->reply);
	vg_receiver_config_init(&rcfg);
	rcfg.cache_dir = cfg->cache_dir;
	rcfg.cache_capacity = cfg->cache_size;
	rcfg.clear_cache = cfg->clear_cache;
	if ((err = vg_receiver_new(&rcfg, &c->receiver))) {
		vg_connection_close(c);
		return err;
	}
	c->encoding = g_strdup(cfg->encodings ? cfg->encodings : "default");
	if (strchr(c->encoding, ' '))
		*strchr(c->encoding, ' ') = '\0';

	client = rfbGetClient(8, 3, 4);
	client->format.redShift = 16;
	client->format.greenShift = 8;
	client->format.blueShift = 0;
	/* LibVNCClient owns serverHost and frees it with free(). */
	free(client->serverHost);
	client->serverHost = strdup(cfg->host);
	client->serverPort = cfg->port;
	client->appData.encodingsString = cfg->encodings;
	/* Lossless only: Tight must not switch to JPEG. */
	client->appData.enableJPEG = FALSE;
	client->GotFrameBufferUpdate = got_rect;
	client->FinishedFrameBufferUpdate = finished_update;
	rfbClientSetClientData(client, &client_tag, c);
	c->t0 = vg_time_ns();
	/* rfbInitClient frees the client itself when it fails. */
	if (!rfbInitClient(client, &argc, NULL)) {
		vg_connection_close(c);
		return VG_EIO;
	}
	c->client = client;
	/* More requests in flight (LibVNCClient sends one more after each
	 * update): varg-server counts each as a credit and sends the next
	 * change at once instead of waiting a round trip for our request. */
	for (int i = 1; i < (cfg->requests > 0 ? cfg->requests : 2); i++)
		SendIncrementalFramebufferUpdateRequest(client);
	*out = c;
	return VG_OK;
}

void vg_connection_close(vg_connection *c)
{
	if (!c)
		return;
	if (c->client) {
		free(c->client->frameBuffer);
		c->client->frameBuffer = NULL;
		rfbClientCleanup(c->client);
	}
	vg_receiver_free(c->receiver);
	vg_writer_clear(&c->reply);
	g_free(c->body);
	g_free(c->encoding);
	g_free(c);
}

int vg_connection_poll(vg_connection *c, int timeout_ms)
{
	uint64_t bytes;
	int n = WaitForMessage(c->client, (unsigned)timeout_ms * 1000u);

	if (vg_sockstat_bytes_received(c->client->sock, &bytes) == 0)
		c->stats.bytes_received = bytes;
	if (n < 0) {
		snprintf(c->error, sizeof c->error, "connection lost");
		return VG_EIO;
	}
	if (n == 0)
		return 0;
	if (!HandleRFBServerMessage(c->client)) {
		if (!c->error[0])
			snprintf(c->error, sizeof c->error, "server closed the connection");
		return c->proto_error ? VG_EPROTO : VG_EIO;
	}
	if (vg_sockstat_bytes_received(c->client->sock, &bytes) == 0)
		c->stats.bytes_received = bytes;
	return 1;
}

const char *vg_connection_error_text(const vg_connection *c)
{
	return c->error[0] ? c->error : "no error";
}

vg_pixbuf vg_connection_frame(const vg_connection *c)
{
	return vg_pixbuf_wrap((uint32_t *)c->client->frameBuffer, c->client->width,
			      c->client->height, c->client->width);
}

void vg_connection_get_stats(const vg_connection *c, vg_connection_stats *st)
{
	vg_receiver_stats rs;

	*st = c->stats;
	vg_receiver_get_stats(c->receiver, &rs);
	st->cache_hits = rs.cache_hits;
	st->cache_misses = rs.cache_misses;
	st->corrections = rs.corrections;
	st->checks = rs.checks;
	st->repairs_sent = rs.repairs_sent;
	st->segments = rs.segments;
	st->cache_persistent = rs.persistent;
	st->cache_entries = rs.cache_entries;
	st->cache_bytes_on_disk = rs.cache_bytes_on_disk;
}

const char *vg_connection_encoding(const vg_connection *c)
{
	return c->stats.varg_rects ? "varg" : c->encoding;
}
