#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "common/vg_error.h"
#include "common/vg_reader.h"
#include "common/vg_segdesc.h"
#include "fingerprint/vg_proto.h"
#include "fingerprint/vg_receiver.h"

struct vg_receiver {
	z_stream zs;          /* mirrors the server's deflate stream */
	bool zs_ok;
	bool hello;
	uint8_t server_id[16];
	uint8_t *plain;       /* an inflated update, reused */
	size_t plain_cap;
	char error[160];
	vg_receiver_stats stats;
};

int vg_receiver_new(vg_receiver **out)
{
	vg_receiver *r = g_new0(vg_receiver, 1);

	if (inflateInit(&r->zs) != Z_OK) {
		g_free(r);
		return VG_EZLIB;
	}
	r->zs_ok = true;
	*out = r;
	return VG_OK;
}

void vg_receiver_free(vg_receiver *r)
{
	if (!r)
		return;
	if (r->zs_ok)
		inflateEnd(&r->zs);
	g_free(r->plain);
	g_free(r);
}

const char *vg_receiver_error_text(const vg_receiver *r)
{
	return r->error[0] ? r->error : "no error";
}

void vg_receiver_get_stats(const vg_receiver *r, vg_receiver_stats *st)
{
	*st = r->stats;
}

static int fail(vg_receiver *r, int err, const char *what)
{
	snprintf(r->error, sizeof r->error, "%s: %s", what, vg_strerror(err));
	return err;
}

/* Frames a viewer message for the server: RFB type, u16 length, body. */
static void put_viewer_msg(vg_writer *reply, const uint8_t *body, size_t len)
{
	vg_writer_u8(reply, VG_CLIENT_MSG);
	vg_writer_u16be(reply, (uint16_t)len);
	vg_writer_bytes(reply, body, len);
}

static int handle_hello(vg_receiver *r, vg_reader *rd, vg_writer *reply)
{
	uint8_t version, body[18];

	if (vg_reader_u8(rd, &version) || vg_reader_bytes(rd, r->server_id, 16))
		return fail(r, VG_ETRUNC, "hello");
	if (version != VG_PROTO_VERSION)
		return fail(r, VG_ENOTSUP, "hello: protocol version");
	r->hello = true;
	body[0] = VG_VMSG_HELLO;
	body[1] = VG_PROTO_VERSION;
	memset(body + 2, 0, 16); /* cache identity: none until the cache exists */
	put_viewer_msg(reply, body, sizeof body);
	return VG_OK;
}

/* Inflates the rest of the body into r->plain, at most cap bytes. */
static int inflate_body(vg_receiver *r, const uint8_t *in, size_t len, size_t cap, size_t *out_len)
{
	size_t have = 0;
	int ret;

	r->zs.next_in = (Bytef *)in;
	r->zs.avail_in = (uInt)len;
	for (;;) {
		if (have == r->plain_cap) {
			if (r->plain_cap >= cap)
				return fail(r, VG_ERANGE, "update inflates past the frame's size");
			r->plain_cap = r->plain_cap ? r->plain_cap * 2 : 65536;
			if (r->plain_cap > cap)
				r->plain_cap = cap;
			r->plain = g_realloc(r->plain, r->plain_cap);
		}
		r->zs.next_out = r->plain + have;
		r->zs.avail_out = (uInt)(r->plain_cap - have);
		ret = inflate(&r->zs, Z_SYNC_FLUSH);
		have = r->plain_cap - r->zs.avail_out;
		if (ret == Z_STREAM_END || ret == Z_NEED_DICT || ret == Z_DATA_ERROR ||
		    ret == Z_MEM_ERROR || ret == Z_STREAM_ERROR)
			return fail(r, VG_EZLIB, "update: compressed data");
		if (r->zs.avail_in == 0 && r->zs.avail_out > 0)
			break;
	}
	*out_len = have;
	return VG_OK;
}

static int read_dim(vg_reader *rd, int32_t *v)
{
	uint64_t u;
	int err = vg_reader_uleb(rd, &u);

	if (err)
		return err;
	if (u > VG_MAX_DIM)
		return VG_ERANGE;
	*v = (int32_t)u;
	return VG_OK;
}

static int draw_literal(vg_reader *rd, vg_pixbuf *fb, vg_rect s)
{
	const uint8_t *p;
	int32_t x, y;

	if (vg_reader_ptr(rd, (size_t)s.w * (size_t)s.h * 3, &p))
		return VG_ETRUNC;
	for (y = s.y; y < s.y + s.h; y++) {
		uint32_t *row = vg_pixbuf_row(fb, y) + s.x;
		for (x = 0; x < s.w; x++, p += 3)
			row[x] = VG_RGB(p[2], p[1], p[0]);
	}
	return VG_OK;
}

static int parse_update(vg_receiver *r, vg_reader *rd, vg_pixbuf *fb)
{
	uint64_t nruns, run, nseg, k;
	char what[96];
	int err;

	if ((err = vg_reader_uleb(rd, &nruns)))
		return fail(r, err, "update: run count");
	for (run = 0; run < nruns; run++) {
		vg_rect rr;
		uint8_t orient;
		int32_t pos, end;

		snprintf(what, sizeof what, "update: run %" G_GUINT64_FORMAT, run);
		if ((err = read_dim(rd, &rr.x)) || (err = read_dim(rd, &rr.y)) ||
		    (err = read_dim(rd, &rr.w)) || (err = read_dim(rd, &rr.h)) ||
		    (err = vg_reader_u8(rd, &orient)) || (err = vg_reader_uleb(rd, &nseg)))
			return fail(r, err, what);
		if (vg_rect_is_empty(rr) || !vg_rect_contains(vg_pixbuf_rect(fb), rr) ||
		    orient > VG_ORIENT_COLS)
			return fail(r, VG_ERANGE, what);
		pos = orient == VG_ORIENT_ROWS ? rr.y : rr.x;
		end = orient == VG_ORIENT_ROWS ? rr.y + rr.h : rr.x + rr.w;
		if (nseg == 0 || nseg > (uint64_t)(end - pos))
			return fail(r, VG_ECORRUPT, what);
		for (k = 0; k < nseg; k++) {
			int32_t len;
			uint8_t op;
			vg_rect s;

			if ((err = read_dim(rd, &len)) || (err = vg_reader_u8(rd, &op)))
				return fail(r, err, what);
			if (len < 1 || len > end - pos)
				return fail(r, VG_ERANGE, what);
			s = orient == VG_ORIENT_ROWS ? vg_rect_make(rr.x, pos, rr.w, len)
						     : vg_rect_make(pos, rr.y, len, rr.h);
			pos += len;
			switch (op) {
			case VG_OP_LITERAL:
				if ((err = draw_literal(rd, fb, s)))
					return fail(r, err, what);
				r->stats.literal_segments++;
				break;
			default:
				return fail(r, VG_ECORRUPT, "update: unknown segment operation");
			}
			r->stats.segments++;
		}
		if (pos != end)
			return fail(r, VG_ECORRUPT, what);
	}
	if (vg_reader_remaining(rd))
		return fail(r, VG_ECORRUPT, "update: bytes after the last run");
	r->stats.updates++;
	return VG_OK;
}

int vg_receiver_handle(vg_receiver *r, const uint8_t *body, size_t len,
		       vg_pixbuf *fb, vg_writer *reply)
{
	vg_reader rd, plain;
	uint8_t kind;
	size_t n, cap;
	int err;

	vg_reader_init(&rd, body, len);
	if (vg_reader_u8(&rd, &kind))
		return fail(r, VG_ETRUNC, "empty message");
	switch (kind) {
	case VG_MSG_HELLO:
		return handle_hello(r, &rd, reply);
	case VG_MSG_UPDATE:
		if (!r->hello)
			return fail(r, VG_EPROTO, "update before hello");
		/* Literal pixels of the whole frame plus a generous allowance
		 * for segment headers bound any honest update. */
		cap = (size_t)fb->width * (size_t)fb->height * 4 + 65536;
		if ((err = inflate_body(r, body + rd.pos, vg_reader_remaining(&rd), cap, &n)))
			return err;
		r->stats.inflated_bytes += n;
		vg_reader_init(&plain, r->plain, n);
		return parse_update(r, &plain, fb);
	default:
		return fail(r, VG_ECORRUPT, "unknown message kind");
	}
}
