/* Reading .vtr traces, from a file or from memory.
 *
 * Every byte from the input passes through a length check before use: the
 * record length is bounded by the trace's geometry before anything is read
 * for it, a file's record buffer grows only as bytes actually arrive, and
 * frame pixels are inflated straight into rows of the caller's buffer
 * after each rectangle has been checked against the frame. */
#include <errno.h>
#include <glib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "common/vg_crc32.h"
#include "common/vg_error.h"
#include "common/vg_reader.h"
#include "traces/vg_trace.h"
#include "traces/vg_trace_format.h"

struct vg_trace_reader {
	FILE *f;                  /* NULL for a memory reader */
	const uint8_t *mem;       /* memory reader: the whole trace */
	size_t mem_len;
	uint8_t *buf;             /* file reader: the current record */
	size_t buf_len, buf_cap;

	int32_t width, height;
	uint32_t version;
	uint64_t created_ns;
	size_t header_len;

	uint64_t offset;          /* where the next record starts */
	uint64_t index;           /* its number */
	uint64_t last_t;
	uint64_t frames;          /* frame records decoded */
	uint64_t skipped;
	bool ended;
	bool verify;
	int err;                  /* sticky failure */
	char errtext[256];

	vg_rect *rects;
	size_t rects_cap;
	uint8_t *scratch;         /* one row of pixels, when fb is NULL */
	char text[VG_TRACE_MAX_TEXT + 1];
	uint32_t *cursor;         /* the last cursor record's pixels */
	size_t cursor_cap;
	z_stream z;
	bool z_ready;
};

static void set_error(vg_trace_reader *r, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_error(vg_trace_reader *r, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	g_vsnprintf(r->errtext, sizeof r->errtext, fmt, ap);
	va_end(ap);
	r->err = code;
}

/* Fails the current record: the message names it by number and offset. */
static int fail(vg_trace_reader *r, int code, const char *what)
{
	set_error(r, code, "record %" G_GUINT64_FORMAT " at offset %" G_GUINT64_FORMAT ": %s",
		  r->index, r->offset, what);
	return code;
}

/* Makes the first n bytes of the item starting at r->offset available at
 * *p. When the input ends first, returns VG_ETRUNC with *avail set to the
 * bytes there are. A file's buffer at most doubles per step and only after
 * it has filled with real bytes, so a lying length costs no memory. */
static int load(vg_trace_reader *r, size_t n, const uint8_t **p, size_t *avail)
{
	if (!r->f) {
		size_t left = r->mem_len - (size_t)r->offset;

		*avail = left;
		if (n > left)
			return VG_ETRUNC;
		*p = r->mem + r->offset;
		return VG_OK;
	}
	while (r->buf_len < n) {
		size_t chunk, got;

		if (r->buf_len == r->buf_cap) {
			size_t cap = MAX(r->buf_cap * 2, (size_t)65536);

			r->buf_cap = MIN(cap, n);
			r->buf = g_realloc(r->buf, r->buf_cap);
		}
		chunk = MIN(n, r->buf_cap) - r->buf_len;
		got = fread(r->buf + r->buf_len, 1, chunk, r->f);
		r->buf_len += got;
		if (got < chunk) {
			*avail = r->buf_len;
			return ferror(r->f) ? VG_EIO : VG_ETRUNC;
		}
	}
	*p = r->buf;
	*avail = r->buf_len;
	return VG_OK;
}

/* Moves past the item of n bytes that load() made available. */
static void consume(vg_trace_reader *r, size_t n)
{
	r->offset += n;
	r->buf_len = 0;
}

static uint32_t get_u32le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t crc_of(const uint8_t *p, size_t n)
{
	return vg_crc32(0, p, n);
}

static int read_header(vg_trace_reader *r)
{
	const uint8_t *p;
	size_t avail;
	vg_reader rd;
	uint16_t version, hlen;
	uint32_t w, h, pixfmt;
	int err;

	err = load(r, 12, &p, &avail);
	if (err == VG_EIO) {
		set_error(r, err, "header: read error");
		return err;
	}
	if (err)
		p = r->f ? r->buf : r->mem;
	if (avail == 0 || memcmp(p, VG__TRACE_MAGIC, MIN(avail, (size_t)VG__TRACE_MAGIC_LEN)) != 0) {
		set_error(r, VG_EFORMAT, "not a Varg trace (bad magic)");
		return VG_EFORMAT;
	}
	if (err) {
		set_error(r, VG_ETRUNC, "header: truncated (%zu bytes)", avail);
		return VG_ETRUNC;
	}
	vg_reader_init(&rd, p + VG__TRACE_MAGIC_LEN, 4);
	vg_reader_u16le(&rd, &version);
	vg_reader_u16le(&rd, &hlen);
	if (version == 0) {
		set_error(r, VG_ECORRUPT, "header: version 0");
		return VG_ECORRUPT;
	}
	if (version > VG_TRACE_VERSION) {
		set_error(r, VG_ENOTSUP, "header: format version %u (this build reads up to %u)",
			  version, VG_TRACE_VERSION);
		return VG_ENOTSUP;
	}
	if (hlen < VG__TRACE_HEADER_LEN || hlen > VG__TRACE_HEADER_MAX) {
		set_error(r, VG_ECORRUPT, "header: length %u out of range", hlen);
		return VG_ECORRUPT;
	}
	err = load(r, hlen, &p, &avail);
	if (err) {
		set_error(r, err, "header: truncated (%zu of %u bytes)", avail, hlen);
		return err;
	}
	if (crc_of(p, hlen - 4u) != get_u32le(p + hlen - 4)) {
		set_error(r, VG_ECORRUPT, "header: checksum mismatch");
		return VG_ECORRUPT;
	}
	vg_reader_init(&rd, p + 12, hlen - 12u);
	vg_reader_u32le(&rd, &w);
	vg_reader_u32le(&rd, &h);
	vg_reader_u32le(&rd, &pixfmt);
	vg_reader_u64le(&rd, &r->created_ns);
	if (w < 1 || h < 1 || w > VG_MAX_DIM || h > VG_MAX_DIM) {
		set_error(r, VG_ERANGE, "header: size %ux%u out of range", w, h);
		return VG_ERANGE;
	}
	if (pixfmt != VG__TRACE_PIXFMT_XRGB32) {
		set_error(r, VG_ENOTSUP, "header: unknown pixel format %u", pixfmt);
		return VG_ENOTSUP;
	}
	r->width = (int32_t)w;
	r->height = (int32_t)h;
	r->version = version;
	r->header_len = hlen;
	consume(r, hlen);
	return VG_OK;
}

static vg_trace_reader *reader_new(void)
{
	vg_trace_reader *r = g_new0(vg_trace_reader, 1);

	r->verify = true;
	return r;
}

/* Reads the header; on failure frees r, keeping the code. */
static int finish_open(vg_trace_reader *r, vg_trace_reader **out)
{
	int err = read_header(r);

	if (err) {
		vg_trace_reader_free(r);
		return err;
	}
	r->scratch = g_malloc((size_t)r->width * 4);
	*out = r;
	return VG_OK;
}

int vg_trace_reader_open(const char *path, vg_trace_reader **out)
{
	vg_trace_reader *r;
	struct stat st;

	*out = NULL;
	r = reader_new();
	r->f = fopen(path, "rb");
	if (!r->f) {
		int err = errno == ENOENT ? VG_ENOENT : VG_EIO;
		vg_trace_reader_free(r);
		return err;
	}
	/* fopen accepts a directory; reading it would fail as an I/O error. */
	if (fstat(fileno(r->f), &st) == 0 && !S_ISREG(st.st_mode)) {
		vg_trace_reader_free(r);
		return VG_EFORMAT;
	}
	return finish_open(r, out);
}

int vg_trace_reader_open_memory(const void *data, size_t len, vg_trace_reader **out)
{
	vg_trace_reader *r;

	*out = NULL;
	r = reader_new();
	r->mem = data;
	r->mem_len = data ? len : 0;
	return finish_open(r, out);
}

int32_t vg_trace_reader_width(const vg_trace_reader *r)
{
	return r->width;
}

int32_t vg_trace_reader_height(const vg_trace_reader *r)
{
	return r->height;
}

uint32_t vg_trace_reader_version(const vg_trace_reader *r)
{
	return r->version;
}

uint64_t vg_trace_reader_created_ns(const vg_trace_reader *r)
{
	return r->created_ns;
}

uint64_t vg_trace_reader_offset(const vg_trace_reader *r)
{
	return r->offset;
}

uint64_t vg_trace_reader_skipped(const vg_trace_reader *r)
{
	return r->skipped;
}

void vg_trace_reader_set_verify(vg_trace_reader *r, bool verify)
{
	r->verify = verify;
}

/* Inflates the zlib stream z (zlen bytes) into the rectangles' rows of fb,
 * or into a scratch row when fb is NULL. The stream must hold exactly the
 * rectangles' pixels. */
static int inflate_rects(vg_trace_reader *r, const uint8_t *z, size_t zlen, const vg_rect *rects,
			 size_t n_rects, vg_pixbuf *fb)
{
	bool ended = false;
	uint8_t extra[1];
	size_t i;
	int zerr;

	if (!r->z_ready) {
		memset(&r->z, 0, sizeof r->z);
		if (inflateInit(&r->z) != Z_OK)
			return fail(r, VG_EZLIB, "zlib cannot start");
		r->z_ready = true;
	} else if (inflateReset(&r->z) != Z_OK) {
		return fail(r, VG_EZLIB, "zlib cannot reset");
	}
	r->z.next_in = (Bytef *)z;
	r->z.avail_in = (uInt)zlen;
	for (i = 0; i < n_rects; i++) {
		const vg_rect *rc = &rects[i];
		int32_t y, x;

		for (y = rc->y; y < rc->y + rc->h; y++) {
			uint32_t *row = fb ? vg_pixbuf_row(fb, y) + rc->x : NULL;

			r->z.next_out = row ? (Bytef *)row : r->scratch;
			r->z.avail_out = (uInt)rc->w * 4;
			while (r->z.avail_out > 0) {
				if (ended)
					return fail(r, VG_ECORRUPT, "pixel data shorter than its rectangles");
				zerr = inflate(&r->z, Z_NO_FLUSH);
				if (zerr == Z_STREAM_END)
					ended = true;
				else if (zerr == Z_BUF_ERROR)
					return fail(r, VG_ECORRUPT, "pixel data cut short");
				else if (zerr != Z_OK)
					return fail(r, VG_ECORRUPT, "pixel data corrupt (zlib)");
			}
			/* Pixels are 0x00RRGGBB: the top byte is cleared, not trusted. */
			if (row)
				for (x = 0; x < rc->w; x++)
					row[x] &= VG_PIXEL_MASK;
		}
	}
	if (!ended) {
		r->z.next_out = extra;
		r->z.avail_out = sizeof extra;
		zerr = inflate(&r->z, Z_FINISH);
		if (zerr != Z_STREAM_END || r->z.avail_out != sizeof extra)
			return fail(r, VG_ECORRUPT, "pixel data longer than its rectangles or cut short");
	}
	if (r->z.avail_in != 0)
		return fail(r, VG_ECORRUPT, "bytes after the pixel data");
	return VG_OK;
}

static int parse_frame(vg_trace_reader *r, const uint8_t *body, size_t len, vg_trace_record *rec,
		       vg_pixbuf *fb)
{
	vg_rect whole = vg_rect_make(0, 0, r->width, r->height);
	uint64_t area = 0;
	uint32_t n, i;
	vg_reader rd;
	int err;

	vg_reader_init(&rd, body, len);
	if (vg_reader_u32le(&rd, &n) || vg_reader_u64le(&rd, &rec->frame_hash))
		return fail(r, VG_ECORRUPT, "frame record too short");
	if (n > VG_TRACE_MAX_RECTS)
		return fail(r, VG_ERANGE, "too many rectangles");
	if ((uint64_t)n * VG__TRACE_RECT_LEN > vg_reader_remaining(&rd))
		return fail(r, VG_ECORRUPT, "rectangle list longer than the record");
	if (n > r->rects_cap) {
		r->rects_cap = MAX((size_t)n, r->rects_cap * 2);
		r->rects = g_renew(vg_rect, r->rects, r->rects_cap);
	}
	for (i = 0; i < n; i++) {
		uint16_t v[4];

		vg_reader_u16le(&rd, &v[0]);
		vg_reader_u16le(&rd, &v[1]);
		vg_reader_u16le(&rd, &v[2]);
		vg_reader_u16le(&rd, &v[3]);
		r->rects[i] = vg_rect_make(v[0], v[1], v[2], v[3]);
		if (vg_rect_is_empty(r->rects[i]) || !vg_rect_contains(whole, r->rects[i]))
			return fail(r, VG_ERANGE, "rectangle outside the frame");
		area += (uint64_t)vg_rect_area(r->rects[i]);
	}
	if (area > (uint64_t)r->width * (uint64_t)r->height)
		return fail(r, VG_ERANGE, "rectangles cover more than the frame");
	if (fb && r->frames == 0)
		vg_pixbuf_fill(fb, whole, 0);
	err = inflate_rects(r, body + rd.pos, vg_reader_remaining(&rd), r->rects, n, fb);
	if (err)
		return err;
	r->frames++;
	if (fb && r->verify && vg_frame_hash(fb) != rec->frame_hash)
		return fail(r, VG_ECORRUPT, "frame hash mismatch");
	rec->rects = r->rects;
	rec->n_rects = n;
	return VG_OK;
}

static int parse_input(vg_trace_reader *r, const uint8_t *body, size_t len, vg_trace_record *rec)
{
	vg_reader rd;
	uint8_t type, b;
	uint16_t x, y;

	vg_reader_init(&rd, body, len);
	if (vg_reader_u8(&rd, &type))
		return fail(r, VG_ECORRUPT, "empty input record");
	if (type == VG_TRACE_POINTER && len == VG__TRACE_POINTER_LEN) {
		vg_reader_u8(&rd, &rec->buttons);
		vg_reader_u16le(&rd, &x);
		vg_reader_u16le(&rd, &y);
		if (x >= r->width || y >= r->height)
			return fail(r, VG_ERANGE, "pointer outside the frame");
		rec->x = x;
		rec->y = y;
	} else if (type == VG_TRACE_KEY && len == VG__TRACE_KEY_LEN) {
		vg_reader_u8(&rd, &b);
		vg_reader_u32le(&rd, &rec->keysym);
		if (b > 1)
			return fail(r, VG_ECORRUPT, "key state not 0 or 1");
		rec->down = b == 1;
	} else {
		return fail(r, VG_ECORRUPT, "unknown input type or wrong length");
	}
	rec->input = (vg_trace_input_type)type;
	return VG_OK;
}

static int parse_marker(vg_trace_reader *r, const uint8_t *body, size_t len, vg_trace_record *rec)
{
	if (len > VG_TRACE_MAX_TEXT)
		return fail(r, VG_ERANGE, "marker text too long");
	if (memchr(body, 0, len) || !g_utf8_validate((const char *)body, (gssize)len, NULL))
		return fail(r, VG_ECORRUPT, "marker text is not UTF-8");
	memcpy(r->text, body, len);
	r->text[len] = '\0';
	rec->text = r->text;
	rec->text_len = len;
	return VG_OK;
}

/* A cursor body is its fixed fields and exactly width x height pixels;
 * the pixel buffer is bounded by VG_TRACE_MAX_CURSOR, not by the file. */
static int parse_cursor(vg_trace_reader *r, const uint8_t *body, size_t len, vg_trace_record *rec)
{
	uint16_t w, h, hx, hy;
	vg_reader rd;
	size_t i, n;

	vg_reader_init(&rd, body, len);
	if (vg_reader_u16le(&rd, &w) || vg_reader_u16le(&rd, &h) || vg_reader_u16le(&rd, &hx) ||
	    vg_reader_u16le(&rd, &hy))
		return fail(r, VG_ECORRUPT, "cursor record too short");
	if (w < 1 || h < 1 || w > VG_TRACE_MAX_CURSOR || h > VG_TRACE_MAX_CURSOR)
		return fail(r, VG_ERANGE, "cursor size out of range");
	if (hx >= w || hy >= h)
		return fail(r, VG_ERANGE, "cursor hot spot outside the image");
	n = (size_t)w * h;
	if (vg_reader_remaining(&rd) != n * 4)
		return fail(r, VG_ECORRUPT, "cursor pixels do not match its size");
	if (n > r->cursor_cap) {
		r->cursor_cap = n;
		r->cursor = g_renew(uint32_t, r->cursor, n);
	}
	for (i = 0; i < n; i++)
		vg_reader_u32le(&rd, &r->cursor[i]);
	rec->cursor.width = w;
	rec->cursor.height = h;
	rec->cursor.hot_x = hx;
	rec->cursor.hot_y = hy;
	rec->cursor.pixels = r->cursor;
	return VG_OK;
}

/* The end record must count the records before it and be the last bytes. */
static int parse_end(vg_trace_reader *r, const uint8_t *body, size_t len, size_t total)
{
	vg_reader rd;
	uint64_t n;

	vg_reader_init(&rd, body, len);
	if (len != VG__TRACE_END_LEN || vg_reader_u64le(&rd, &n))
		return fail(r, VG_ECORRUPT, "end record of the wrong length");
	if (n != r->index)
		return fail(r, VG_ECORRUPT, "end record counts a different number of records");
	if (r->f ? getc(r->f) != EOF : r->offset + total != r->mem_len)
		return fail(r, VG_ECORRUPT, "bytes after the end record");
	return VG_OK;
}

int vg_trace_reader_next(vg_trace_reader *r, vg_trace_record *rec, vg_pixbuf *fb)
{
	if (r->err)
		return r->err;
	if (r->ended)
		return 0;
	if (fb && (fb->width != r->width || fb->height != r->height)) {
		g_snprintf(r->errtext, sizeof r->errtext, "frame buffer is %dx%d, the trace %dx%d",
			   fb->width, fb->height, r->width, r->height);
		return VG_EINVAL;
	}
	for (;;) {
		const uint8_t *p, *body;
		size_t avail, total;
		uint32_t len;
		uint8_t kind, flags;
		uint64_t t;
		int err;

		err = load(r, VG__TRACE_RECORD_HEAD, &p, &avail);
		if (err == VG_EIO)
			return fail(r, err, "read error");
		if (err && avail == 0)
			return fail(r, VG_ETRUNC, "missing: the trace ends without its end record");
		if (err)
			return fail(r, VG_ETRUNC, "truncated in the record header");
		len = get_u32le(p);
		kind = p[4];
		flags = p[5];
		t = (uint64_t)get_u32le(p + 8) | (uint64_t)get_u32le(p + 12) << 32;
		if (len > vg__trace_max_body(r->width, r->height))
			return fail(r, VG_ERANGE, "record length beyond the limit for this frame size");
		total = VG__TRACE_RECORD_HEAD + (size_t)len + VG__TRACE_RECORD_CRC;
		err = load(r, total, &p, &avail);
		if (err == VG_EIO)
			return fail(r, err, "read error");
		if (err)
			return fail(r, VG_ETRUNC, "truncated (the file ends inside the record)");
		if (crc_of(p, total - VG__TRACE_RECORD_CRC) != get_u32le(p + total - VG__TRACE_RECORD_CRC))
			return fail(r, VG_ECORRUPT, "checksum mismatch");
		if (t < r->last_t)
			return fail(r, VG_ECORRUPT, "time goes backwards");

		body = p + VG__TRACE_RECORD_HEAD;
		memset(rec, 0, sizeof *rec);
		rec->kind = (vg_trace_kind)kind;
		rec->t_ns = t;
		rec->index = r->index;
		rec->offset = r->offset;
		switch (kind) {
		case VG_TRACE_FRAME:
			err = parse_frame(r, body, len, rec, fb);
			break;
		case VG_TRACE_INPUT:
			err = parse_input(r, body, len, rec);
			break;
		case VG_TRACE_MARKER:
			err = parse_marker(r, body, len, rec);
			break;
		case VG_TRACE_CURSOR:
			err = parse_cursor(r, body, len, rec);
			break;
		case VG_TRACE_END:
			err = parse_end(r, body, len, total);
			if (err)
				return err;
			consume(r, total);
			r->ended = true;
			return 0;
		default:
			if (flags & VG__TRACE_FLAG_REQUIRED)
				return fail(r, VG_ENOTSUP, "unknown record kind marked as required");
			r->skipped++;
			r->index++;
			r->last_t = t;
			consume(r, total);
			continue;
		}
		if (err)
			return err;
		r->index++;
		r->last_t = t;
		consume(r, total);
		return 1;
	}
}

int vg_trace_reader_rewind(vg_trace_reader *r)
{
	if (r->f && fseeko(r->f, (off_t)r->header_len, SEEK_SET) != 0) {
		set_error(r, VG_EIO, "cannot seek back to the first record");
		return VG_EIO;
	}
	r->offset = r->header_len;
	r->buf_len = 0;
	r->index = 0;
	r->last_t = 0;
	r->frames = 0;
	r->skipped = 0;
	r->ended = false;
	r->err = 0;
	r->errtext[0] = '\0';
	return VG_OK;
}

const char *vg_trace_reader_error_text(const vg_trace_reader *r)
{
	return r->errtext;
}

void vg_trace_reader_free(vg_trace_reader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	if (r->z_ready)
		inflateEnd(&r->z);
	g_free(r->buf);
	g_free(r->rects);
	g_free(r->cursor);
	g_free(r->scratch);
	g_free(r);
}
