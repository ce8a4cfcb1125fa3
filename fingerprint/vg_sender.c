#include <glib.h>
#include <string.h>
#include <zlib.h>

#include "common/vg_error.h"
#include "common/vg_reader.h"
#include "fingerprint/vg_proto.h"
#include "fingerprint/vg_sender.h"

struct vg_sender {
	vg_sender_config cfg;
	z_stream zs;          /* one deflate stream for the connection's life */
	vg_writer plain;      /* an update before compression, reused */
	bool viewer_hello;
	uint8_t viewer_version;
	uint8_t cache_id[16];
	vg_sender_stats stats;
};

void vg_sender_config_init(vg_sender_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->zlib_level = 6;
}

int vg_sender_new(const vg_sender_config *cfg, vg_sender **out)
{
	vg_sender *s;

	if (cfg->zlib_level < -1 || cfg->zlib_level > 9)
		return VG_EINVAL;
	s = g_new0(vg_sender, 1);
	s->cfg = *cfg;
	if (deflateInit(&s->zs, cfg->zlib_level) != Z_OK) {
		g_free(s);
		return VG_EZLIB;
	}
	vg_writer_init(&s->plain);
	*out = s;
	return VG_OK;
}

void vg_sender_free(vg_sender *s)
{
	if (!s)
		return;
	deflateEnd(&s->zs);
	vg_writer_clear(&s->plain);
	g_free(s);
}

void vg_sender_hello(vg_sender *s, vg_writer *out)
{
	size_t start = out->len;

	vg_writer_u8(out, VG_MSG_HELLO);
	vg_writer_u8(out, VG_PROTO_VERSION);
	vg_writer_bytes(out, s->cfg.server_id, sizeof s->cfg.server_id);
	s->stats.body_bytes += out->len - start;
}

/* Appends the rows of r from frame as B, G, R bytes. */
static void put_pixels(vg_writer *w, const vg_pixbuf *frame, vg_rect r)
{
	uint8_t *p = vg_writer_reserve(w, (size_t)r.w * (size_t)r.h * 3);
	int32_t x, y;

	for (y = r.y; y < r.y + r.h; y++) {
		const uint32_t *row = vg_pixbuf_row(frame, y) + r.x;
		for (x = 0; x < r.w; x++) {
			uint32_t v = row[x];
			p[0] = (uint8_t)v;
			p[1] = (uint8_t)(v >> 8);
			p[2] = (uint8_t)(v >> 16);
			p += 3;
		}
	}
}

/* True when b continues the run that a ends. */
static bool continues(const vg_segdesc *a, const vg_segdesc *b)
{
	if (a->orient != b->orient)
		return false;
	if (a->orient == VG_ORIENT_ROWS)
		return a->rect.x == b->rect.x && a->rect.w == b->rect.w &&
		       b->rect.y == a->rect.y + a->rect.h;
	return a->rect.y == b->rect.y && a->rect.h == b->rect.h &&
	       b->rect.x == a->rect.x + a->rect.w;
}

static int deflate_into(vg_sender *s, const uint8_t *in, size_t len, vg_writer *out)
{
	int ret;

	s->zs.next_in = (Bytef *)in;
	s->zs.avail_in = (uInt)len;
	do {
		size_t room = deflateBound(&s->zs, s->zs.avail_in) + 64;
		uint8_t *dst = vg_writer_reserve(out, room);

		s->zs.next_out = dst;
		s->zs.avail_out = (uInt)room;
		ret = deflate(&s->zs, Z_SYNC_FLUSH);
		out->len -= s->zs.avail_out;
		if (ret != Z_OK && ret != Z_BUF_ERROR)
			return VG_EZLIB;
	} while (s->zs.avail_in > 0 || s->zs.avail_out == 0);
	return VG_OK;
}

int vg_sender_update(vg_sender *s, const vg_pixbuf *frame,
		     const vg_segdesc *segs, size_t n, vg_writer *out)
{
	vg_writer *w = &s->plain;
	size_t i, runs = 0, start = out->len;
	int err;

	for (i = 0; i < n; i++) {
		if (vg_rect_is_empty(segs[i].rect) ||
		    !vg_rect_contains(vg_pixbuf_rect(frame), segs[i].rect) ||
		    segs[i].orient > VG_ORIENT_COLS)
			return VG_ERANGE;
		if (i == 0 || !continues(&segs[i - 1], &segs[i]))
			runs++;
	}

	vg_writer_reset(w);
	vg_writer_uleb(w, runs);
	for (i = 0; i < n;) {
		size_t j = i + 1, k;
		vg_rect run = segs[i].rect;

		while (j < n && continues(&segs[j - 1], &segs[j]))
			run = vg_rect_bounds(run, segs[j++].rect);
		vg_writer_uleb(w, (uint64_t)run.x);
		vg_writer_uleb(w, (uint64_t)run.y);
		vg_writer_uleb(w, (uint64_t)run.w);
		vg_writer_uleb(w, (uint64_t)run.h);
		vg_writer_u8(w, segs[i].orient);
		vg_writer_uleb(w, j - i);
		for (k = i; k < j; k++) {
			vg_rect r = segs[k].rect;
			vg_writer_uleb(w, (uint64_t)(segs[k].orient == VG_ORIENT_ROWS ? r.h : r.w));
			vg_writer_u8(w, VG_OP_LITERAL);
			put_pixels(w, frame, r);
			s->stats.literal_bytes += (uint64_t)r.w * (uint64_t)r.h * 3;
		}
		i = j;
	}

	vg_writer_u8(out, VG_MSG_UPDATE);
	err = deflate_into(s, w->data, w->len, out);
	if (err) {
		out->len = start;
		return err;
	}
	s->stats.updates++;
	s->stats.segments += n;
	s->stats.body_bytes += out->len - start;
	return VG_OK;
}

int vg_sender_handle(vg_sender *s, const uint8_t *body, size_t len)
{
	vg_reader r;
	uint8_t kind;

	vg_reader_init(&r, body, len);
	if (vg_reader_u8(&r, &kind))
		return VG_EPROTO;
	switch (kind) {
	case VG_VMSG_HELLO:
		if (vg_reader_u8(&r, &s->viewer_version) ||
		    vg_reader_bytes(&r, s->cache_id, sizeof s->cache_id))
			return VG_EPROTO;
		if (s->viewer_version < 1)
			return VG_EPROTO;
		s->viewer_hello = true;
		return VG_OK;
	default:
		return VG_EPROTO;
	}
}

bool vg_sender_has_viewer_hello(const vg_sender *s)
{
	return s->viewer_hello;
}

void vg_sender_get_stats(const vg_sender *s, vg_sender_stats *st)
{
	*st = s->stats;
}
