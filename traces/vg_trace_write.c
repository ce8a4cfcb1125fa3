/* Writing .vtr traces: one record at a time, straight to the file. */
#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "common/vg_crc32.h"
#include "common/vg_error.h"
#include "common/vg_time.h"
#include "common/vg_writer.h"
#include "traces/vg_trace.h"
#include "traces/vg_trace_format.h"

struct vg_trace_writer {
	FILE *f;
	int32_t width, height;
	int level;
	int err;              /* first failure; sticky */
	uint64_t records;     /* records written, not counting the end */
	uint64_t last_t;
	vg_writer rec;        /* the record being built, reused */
	z_stream z;
	bool z_ready;
};

/* Starts a record in w->rec; finish_record() fills in length and CRC. */
static void begin_record(vg_trace_writer *w, vg_trace_kind kind, uint64_t t_ns)
{
	vg_writer_reset(&w->rec);
	vg_writer_u32le(&w->rec, 0);
	vg_writer_u8(&w->rec, (uint8_t)kind);
	vg_writer_u8(&w->rec, 0);
	vg_writer_u16le(&w->rec, 0);
	vg_writer_u64le(&w->rec, t_ns);
}

static int finish_record(vg_trace_writer *w, uint64_t t_ns)
{
	size_t body = w->rec.len - VG__TRACE_RECORD_HEAD;

	if (body > vg__trace_max_body(w->width, w->height))
		return VG_ERANGE;
	vg_writer_patch_u32le(&w->rec, 0, (uint32_t)body);
	vg_writer_u32le(&w->rec, vg_crc32(0, w->rec.data, w->rec.len));
	if (fwrite(w->rec.data, 1, w->rec.len, w->f) != w->rec.len) {
		w->err = VG_EIO;
		return w->err;
	}
	w->records++;
	w->last_t = t_ns;
	return VG_OK;
}

int vg_trace_writer_open(const char *path, int32_t width, int32_t height, vg_trace_writer **out)
{
	vg_trace_writer *w;
	vg_writer hdr;

	*out = NULL;
	if (width < 1 || height < 1 || width > VG_MAX_DIM || height > VG_MAX_DIM)
		return VG_ERANGE;
	w = g_new0(vg_trace_writer, 1);
	w->width = width;
	w->height = height;
	w->level = Z_DEFAULT_COMPRESSION;
	vg_writer_init(&w->rec);
	w->f = fopen(path, "wb");
	if (!w->f) {
		int err = errno == ENOENT ? VG_ENOENT : VG_EIO;
		g_free(w);
		return err;
	}

	vg_writer_init(&hdr);
	vg_writer_bytes(&hdr, VG__TRACE_MAGIC, VG__TRACE_MAGIC_LEN);
	vg_writer_u16le(&hdr, VG_TRACE_VERSION);
	vg_writer_u16le(&hdr, VG__TRACE_HEADER_LEN);
	vg_writer_u32le(&hdr, (uint32_t)width);
	vg_writer_u32le(&hdr, (uint32_t)height);
	vg_writer_u32le(&hdr, VG__TRACE_PIXFMT_XRGB32);
	vg_writer_u64le(&hdr, vg_time_wall_ns());
	vg_writer_u32le(&hdr, vg_crc32(0, hdr.data, hdr.len));
	if (fwrite(hdr.data, 1, hdr.len, w->f) != hdr.len)
		w->err = VG_EIO;
	vg_writer_clear(&hdr);
	if (w->err) {
		vg_trace_writer_abandon(w);
		return VG_EIO;
	}
	*out = w;
	return VG_OK;
}

int vg_trace_writer_set_level(vg_trace_writer *w, int level)
{
	if (level < 0 || level > 9)
		return VG_EINVAL;
	/* The next frame starts a new stream at this level. */
	if (w->z_ready)
		deflateEnd(&w->z);
	w->z_ready = false;
	w->level = level;
	return VG_OK;
}

static int check_time(const vg_trace_writer *w, uint64_t t_ns)
{
	if (w->err)
		return w->err;
	return t_ns < w->last_t ? VG_EINVAL : VG_OK;
}

/* Deflates the rects' pixels, row by row, onto the end of w->rec as one
 * zlib stream. */
static int deflate_rects(vg_trace_writer *w, const vg_pixbuf *frame, const vg_rect *rects,
			 size_t n_rects, uint64_t raw)
{
	size_t start = w->rec.len, i;
	uLong bound;
	int zerr;

	if (!w->z_ready) {
		memset(&w->z, 0, sizeof w->z);
		if (deflateInit(&w->z, w->level) != Z_OK)
			return VG_EZLIB;
		w->z_ready = true;
	} else if (deflateReset(&w->z) != Z_OK) {
		return VG_EZLIB;
	}
	bound = deflateBound(&w->z, (uLong)raw);
	vg_writer_ensure(&w->rec, bound);
	w->z.next_out = w->rec.data + start;
	w->z.avail_out = (uInt)bound;
	for (i = 0; i < n_rects; i++) {
		int32_t y;

		for (y = rects[i].y; y < rects[i].y + rects[i].h; y++) {
			w->z.next_in = (Bytef *)(vg_pixbuf_row(frame, y) + rects[i].x);
			w->z.avail_in = (uInt)rects[i].w * 4;
			zerr = deflate(&w->z, Z_NO_FLUSH);
			if (zerr != Z_OK || w->z.avail_in != 0)
				return VG_EZLIB;
		}
	}
	w->z.avail_in = 0;
	zerr = deflate(&w->z, Z_FINISH);
	if (zerr != Z_STREAM_END)
		return VG_EZLIB;
	w->rec.len = start + (bound - w->z.avail_out);
	return VG_OK;
}

int vg_trace_writer_frame(vg_trace_writer *w, uint64_t t_ns, const vg_pixbuf *frame,
			  const vg_rect *rects, size_t n_rects)
{
	vg_rect whole = vg_rect_make(0, 0, w->width, w->height);
	uint64_t raw = 0;
	size_t i;
	int err;

	if ((err = check_time(w, t_ns)))
		return err;
	if (frame->width != w->width || frame->height != w->height || n_rects > VG_TRACE_MAX_RECTS)
		return VG_EINVAL;
	for (i = 0; i < n_rects; i++) {
		if (vg_rect_is_empty(rects[i]) || !vg_rect_contains(whole, rects[i]))
			return VG_EINVAL;
		raw += (uint64_t)vg_rect_area(rects[i]);
	}
	if (raw > (uint64_t)w->width * (uint64_t)w->height)
		return VG_EINVAL;

	begin_record(w, VG_TRACE_FRAME, t_ns);
	vg_writer_u32le(&w->rec, (uint32_t)n_rects);
	vg_writer_u64le(&w->rec, vg_frame_hash(frame));
	for (i = 0; i < n_rects; i++) {
		vg_writer_u16le(&w->rec, (uint16_t)rects[i].x);
		vg_writer_u16le(&w->rec, (uint16_t)rects[i].y);
		vg_writer_u16le(&w->rec, (uint16_t)rects[i].w);
		vg_writer_u16le(&w->rec, (uint16_t)rects[i].h);
	}
	if ((err = deflate_rects(w, frame, rects, n_rects, raw * 4)))
		return err;
	return finish_record(w, t_ns);
}

size_t vg_trace_fit_rects(vg_rect *rects, size_t n)
{
	size_t i;

	if (n <= VG_TRACE_MAX_RECTS)
		return n;
	/* Too many small changes for one record: store their bounds. */
	for (i = 1; i < n; i++)
		rects[0] = vg_rect_bounds(rects[0], rects[i]);
	return 1;
}

int vg_trace_writer_pointer(vg_trace_writer *w, uint64_t t_ns, int32_t x, int32_t y, uint8_t buttons)
{
	int err;

	if ((err = check_time(w, t_ns)))
		return err;
	if (x < 0 || y < 0 || x >= w->width || y >= w->height)
		return VG_EINVAL;
	begin_record(w, VG_TRACE_INPUT, t_ns);
	vg_writer_u8(&w->rec, VG_TRACE_POINTER);
	vg_writer_u8(&w->rec, buttons);
	vg_writer_u16le(&w->rec, (uint16_t)x);
	vg_writer_u16le(&w->rec, (uint16_t)y);
	return finish_record(w, t_ns);
}

int vg_trace_writer_key(vg_trace_writer *w, uint64_t t_ns, uint32_t keysym, bool down)
{
	int err;

	if ((err = check_time(w, t_ns)))
		return err;
	begin_record(w, VG_TRACE_INPUT, t_ns);
	vg_writer_u8(&w->rec, VG_TRACE_KEY);
	vg_writer_u8(&w->rec, down ? 1 : 0);
	vg_writer_u32le(&w->rec, keysym);
	return finish_record(w, t_ns);
}

int vg_trace_writer_cursor(vg_trace_writer *w, uint64_t t_ns, const vg_trace_cursor *cur)
{
	size_t i, n;
	int err;

	if ((err = check_time(w, t_ns)))
		return err;
	if (cur->width < 1 || cur->height < 1 || cur->width > VG_TRACE_MAX_CURSOR ||
	    cur->height > VG_TRACE_MAX_CURSOR || cur->hot_x < 0 || cur->hot_y < 0 ||
	    cur->hot_x >= cur->width || cur->hot_y >= cur->height)
		return VG_EINVAL;
	begin_record(w, VG_TRACE_CURSOR, t_ns);
	vg_writer_u16le(&w->rec, (uint16_t)cur->width);
	vg_writer_u16le(&w->rec, (uint16_t)cur->height);
	vg_writer_u16le(&w->rec, (uint16_t)cur->hot_x);
	vg_writer_u16le(&w->rec, (uint16_t)cur->hot_y);
	n = (size_t)cur->width * (size_t)cur->height;
	for (i = 0; i < n; i++)
		vg_writer_u32le(&w->rec, cur->pixels[i]);
	return finish_record(w, t_ns);
}

int vg_trace_writer_marker(vg_trace_writer *w, uint64_t t_ns, const char *text)
{
	size_t len = strlen(text);
	int err;

	if ((err = check_time(w, t_ns)))
		return err;
	if (len > VG_TRACE_MAX_TEXT || !g_utf8_validate(text, (gssize)len, NULL))
		return VG_EINVAL;
	begin_record(w, VG_TRACE_MARKER, t_ns);
	vg_writer_bytes(&w->rec, text, len);
	return finish_record(w, t_ns);
}

uint64_t vg_trace_writer_records(const vg_trace_writer *w)
{
	return w->records;
}

static void writer_free(vg_trace_writer *w)
{
	if (w->z_ready)
		deflateEnd(&w->z);
	vg_writer_clear(&w->rec);
	g_free(w);
}

int vg_trace_writer_close(vg_trace_writer *w)
{
	int err;

	if (!w)
		return VG_OK;
	err = w->err;
	if (!err) {
		uint64_t n = w->records;

		begin_record(w, VG_TRACE_END, w->last_t);
		vg_writer_u64le(&w->rec, n);
		err = finish_record(w, w->last_t);
	}
	if (fflush(w->f) != 0 && !err)
		err = VG_EIO;
	if (fsync(fileno(w->f)) != 0 && errno != EINVAL && !err)
		err = VG_EIO;
	if (fclose(w->f) != 0 && !err)
		err = VG_EIO;
	writer_free(w);
	return err;
}

void vg_trace_writer_abandon(vg_trace_writer *w)
{
	if (!w)
		return;
	fclose(w->f);
	writer_free(w);
}
