/* The browser viewer's C side: the Varg receiver compiled to WebAssembly
 * (`make web` builds varg-wasm.js and varg-wasm.wasm from it).
 *
 * This file owns, one of each per page: the receiver, the framebuffer it
 * draws into (vg_pixbuf, 0x00RRGGBB pixels), the input buffer the page
 * copies a Varg body into, the reply bytes for the server (already framed
 * as RFB client messages) and an RGBA copy of the rectangle the page asks
 * to blit. It holds no protocol logic of its own: everything a body means,
 * the server's identity and the cache's name included, is the receiver's
 * business. The page owns the socket, the RFB framing around the bodies
 * and the file system: with a persistent cache it mounts IDBFS at
 * /varg-cache before vgw_open and syncs it after vgw_close (or whenever it
 * likes); this file mounts nothing.
 *
 * All functions return at once; none blocks or calls back into the page.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#else
#define EMSCRIPTEN_KEEPALIVE
#endif

#include "common/vg_error.h"
#include "common/vg_pixbuf.h"
#include "common/vg_writer.h"
#include "fingerprint/proto/vg_receiver.h"
#include "viewer/web/vg_webviewer.h"

/* Where a persistent cache lives in the page's file system. */
#define VGW_CACHE_DIR "/varg-cache"

static struct {
	vg_receiver *receiver;
	vg_pixbuf *fb;
	uint8_t *in;        /* the body the page wrote */
	size_t in_cap;
	vg_writer reply;    /* bytes for the server, until vgw_reply_clear */
	uint8_t *rgba;      /* the last rectangle asked for, R, G, B, 255 */
	size_t rgba_cap;
	const char *glue_error; /* a failure of this file's own, else NULL */
	char glue_text[160];
} vgw;

/* Grows *buf to at least n bytes; false (the old buffer kept) when
 * memory runs out. */
static bool grow(uint8_t **buf, size_t *cap, size_t n)
{
	uint8_t *p;

	if (n <= *cap && *buf)
		return true;
	p = realloc(*buf, n ? n : 1);
	if (!p)
		return false;
	*buf = p;
	*cap = n;
	return true;
}

static int glue_fail(int err, const char *what)
{
	vgw.glue_error = what;
	return err;
}

EMSCRIPTEN_KEEPALIVE void vgw_close(void)
{
	vg_receiver_free(vgw.receiver);
	vg_pixbuf_free(vgw.fb);
	vg_writer_clear(&vgw.reply);
	free(vgw.in);
	free(vgw.rgba);
	memset(&vgw, 0, sizeof vgw);
}

EMSCRIPTEN_KEEPALIVE int vgw_open(int width, int height, int persistent, double cache_mb)
{
	vg_receiver_config cfg;
	int err;

	vgw_close();
	if (width < 1 || height < 1 || width > VG_MAX_DIM || height > VG_MAX_DIM)
		return glue_fail(VG_EINVAL, "vgw_open: framebuffer size out of range");
	if (!(cache_mb >= 0) || cache_mb > 1048576.0)
		return glue_fail(VG_EINVAL, "vgw_open: cache size out of range");
	vg_receiver_config_init(&cfg);
	cfg.cache_dir = persistent ? VGW_CACHE_DIR : NULL;
	cfg.cache_capacity = (uint64_t)(cache_mb * 1048576.0);
	err = vg_receiver_new(&cfg, &vgw.receiver);
	if (err) {
		vgw.receiver = NULL;
		snprintf(vgw.glue_text, sizeof vgw.glue_text, "vgw_open: the receiver could not start: %s",
			 vg_strerror(err));
		return glue_fail(err, vgw.glue_text);
	}
	vgw.fb = vg_pixbuf_new(width, height);
	if (!vgw.fb) {
		vgw_close();
		return glue_fail(VG_EINVAL, "vgw_open: no framebuffer");
	}
	vg_writer_init(&vgw.reply);
	return VG_OK;
}

EMSCRIPTEN_KEEPALIVE uint8_t *vgw_buffer(size_t n)
{
	if (!grow(&vgw.in, &vgw.in_cap, n))
		return NULL;
	return vgw.in;
}

/* Copies rect of the framebuffer into vgw.rgba as w x h RGBA pixels, row
 * by row; pixels outside the framebuffer are opaque black. */
static int to_rgba(int x, int y, int w, int h)
{
	size_t n = (size_t)w * (size_t)h * 4;
	vg_rect clip = vg_rect_intersect(vg_rect_make(x, y, w, h), vg_pixbuf_rect(vgw.fb));
	int32_t row, col;

	if (!grow(&vgw.rgba, &vgw.rgba_cap, n))
		return glue_fail(VG_ENOSPC, "vgw_handle: no memory for the RGBA rectangle");
	if (vg_rect_area(clip) < (int64_t)w * h) {
		memset(vgw.rgba, 0, n);
		for (size_t i = 3; i < n; i += 4)
			vgw.rgba[i] = 255;
	}
	for (row = clip.y; row < clip.y + clip.h; row++) {
		const uint32_t *src = vg_pixbuf_row(vgw.fb, row);
		uint8_t *dst = vgw.rgba + ((size_t)(row - y) * (size_t)w + (size_t)(clip.x - x)) * 4;

		for (col = clip.x; col < clip.x + clip.w; col++, dst += 4) {
			uint32_t p = src[col];

			dst[0] = (uint8_t)(p >> 16);
			dst[1] = (uint8_t)(p >> 8);
			dst[2] = (uint8_t)p;
			dst[3] = 255;
		}
	}
	return VG_OK;
}

EMSCRIPTEN_KEEPALIVE int vgw_handle(size_t len, int x, int y, int w, int h)
{
	int err;

	vgw.glue_error = NULL;
	if (!vgw.receiver)
		return glue_fail(VG_EPROTO, "vgw_handle: no receiver open");
	if (len > vgw.in_cap || (len > 0 && !vgw.in))
		return glue_fail(VG_EINVAL, "vgw_handle: body longer than its buffer");
	if (w < 0 || h < 0 || w > VG_MAX_DIM || h > VG_MAX_DIM)
		return glue_fail(VG_EINVAL, "vgw_handle: rectangle size out of range");
	err = vg_receiver_handle(vgw.receiver, vgw.in ? vgw.in : (const uint8_t *)"", len,
				 vgw.fb, &vgw.reply);
	if (err)
		return err;
	if (w > 0 && h > 0)
		return to_rgba(x, y, w, h);
	return VG_OK;
}

EMSCRIPTEN_KEEPALIVE uint8_t *vgw_rgba(void)
{
	return vgw.rgba;
}

EMSCRIPTEN_KEEPALIVE uint8_t *vgw_reply(void)
{
	return vgw.reply.data;
}

EMSCRIPTEN_KEEPALIVE int vgw_reply_len(void)
{
	return (int)vgw.reply.len;
}

EMSCRIPTEN_KEEPALIVE void vgw_reply_clear(void)
{
	vg_writer_reset(&vgw.reply);
}

EMSCRIPTEN_KEEPALIVE const char *vgw_error(void)
{
	if (vgw.glue_error)
		return vgw.glue_error;
	if (!vgw.receiver)
		return "no receiver open";
	return vg_receiver_error_text(vgw.receiver);
}

EMSCRIPTEN_KEEPALIVE int vgw_resize(int width, int height)
{
	vg_pixbuf *fb;
	vg_rect keep;

	vgw.glue_error = NULL;
	if (!vgw.receiver)
		return glue_fail(VG_EPROTO, "vgw_resize: no receiver open");
	if (width < 1 || height < 1 || width > VG_MAX_DIM || height > VG_MAX_DIM)
		return glue_fail(VG_EINVAL, "vgw_resize: framebuffer size out of range");
	fb = vg_pixbuf_new(width, height);
	if (!fb)
		return glue_fail(VG_EINVAL, "vgw_resize: no framebuffer");
	keep = vg_rect_intersect(vg_pixbuf_rect(fb), vg_pixbuf_rect(vgw.fb));
	if (!vg_rect_is_empty(keep))
		vg_pixbuf_copy_rect(fb, vgw.fb, keep);
	vg_pixbuf_free(vgw.fb);
	vgw.fb = fb;
	return VG_OK;
}

EMSCRIPTEN_KEEPALIVE double vgw_stat(const char *name)
{
	vg_receiver_stats st;

	if (!vgw.receiver || !name)
		return NAN;
	vg_receiver_get_stats(vgw.receiver, &st);
	{
		const struct {
			const char *name;
			double value;
		} fields[] = {
			{ "updates", (double)st.updates },
			{ "segments", (double)st.segments },
			{ "literal_segments", (double)st.literal_segments },
			{ "cache_hits", (double)st.cache_hits },
			{ "cache_misses", (double)st.cache_misses },
			{ "repeats", (double)st.repeats },
			{ "history_restored", (double)st.history_restored },
			{ "corrections", (double)st.corrections },
			{ "checks", (double)st.checks },
			{ "check_failures", (double)st.check_failures },
			{ "repairs_sent", (double)st.repairs_sent },
			{ "owed_pixels", (double)st.owed_pixels },
			{ "approx_messages", (double)st.approx_messages },
			{ "approx_pixels", (double)st.approx_pixels },
			{ "zstd_window_log", (double)st.zstd_window_log },
			{ "inflated_bytes", (double)st.inflated_bytes },
			{ "persistent", st.persistent ? 1.0 : 0.0 },
			{ "cache_entries", (double)st.cache_entries },
			{ "cache_bytes_on_disk", (double)st.cache_bytes_on_disk },
			{ "cache_memory", (double)st.cache_memory },
			{ "approximate", vg_receiver_approximate(vgw.receiver) ? 1.0 : 0.0 },
		};

		for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
			if (strcmp(name, fields[i].name) == 0)
				return fields[i].value;
	}
	return NAN;
}

EMSCRIPTEN_KEEPALIVE void vgw_clear_cache(void)
{
	if (vgw.receiver)
		vg_receiver_clear_cache(vgw.receiver);
}
