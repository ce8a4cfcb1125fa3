/* Decoding a recorded RFB server-to-client stream. One function per
 * encoding; every read goes through a vg_reader, every rectangle is
 * checked against the frame before a pixel is written. */
#include <glib.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "common/vg_error.h"
#include "common/vg_reader.h"
#include "traces/vg_rfbstream.h"

/* Encoding numbers (RFC 6143 and the RFB community registry). */
enum {
	ENC_RAW = 0,
	ENC_COPYRECT = 1,
	ENC_RRE = 2,
	ENC_HEXTILE = 5,
	ENC_ZLIB = 6,
	ENC_TIGHT = 7,
	ENC_ZRLE = 16,
	ENC_DESKTOP_SIZE = -223,
	ENC_LAST_RECT = -224,
	ENC_POINTER_POS = -232,
	ENC_RICH_CURSOR = -239,
	ENC_X_CURSOR = -240,
	ENC_QEMU_EXT_KEY = -258,
	ENC_LED_STATE = -261,
	ENC_DESKTOP_NAME = -307,
	ENC_EXT_DESKTOP_SIZE = -308,
	ENC_XVP = -309,
	ENC_FENCE = -312,
	ENC_CONTINUOUS_UPDATES = -313,
	/* LibVNCServer's answers to what a client asked it about; the
	 * rectangle's width is the length of the data. */
	ENC_LIBVNC_LED_STATE = -131072,      /* 0xFFFE0000, state in x */
	ENC_SUPPORTED_MESSAGES = -131071,    /* 0xFFFE0001 */
	ENC_SUPPORTED_ENCODINGS = -131070,   /* 0xFFFE0002 */
	ENC_SERVER_IDENTITY = -131069,       /* 0xFFFE0003 */
};

#define NZSTREAMS 6            /* Zlib, ZRLE and Tight's four */
#define ZS_ZLIB 0
#define ZS_ZRLE 1
#define ZS_TIGHT 2

typedef struct {
	uint8_t bpp, depth;
	bool big_endian, true_colour;
	uint16_t max[3];           /* red, green, blue */
	uint8_t shift[3];
} pixfmt;

struct vg_rfbstream {
	uint64_t max_pixels;
	vg_pixbuf *fb;
	pixfmt pf;
	int bypp;                  /* bytes a pixel */
	int cbypp;                 /* bytes a ZRLE CPIXEL */
	int cpixel_pad;            /* where the CPIXEL's missing byte goes: 0 front, 3 back */
	bool tpixel24;             /* Tight sends pixels as R, G, B */
	z_stream z[NZSTREAMS];
	bool z_ready[NZSTREAMS];
	uint8_t *buf;              /* inflated data, reused */
	size_t buf_cap;
	char err[256];
};

static int fail(vg_rfbstream *s, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(vg_rfbstream *s, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	g_vsnprintf(s->err, sizeof s->err, fmt, ap);
	va_end(ap);
	return code;
}

vg_rfbstream *vg_rfbstream_new(uint64_t max_pixels)
{
	vg_rfbstream *s = g_new0(vg_rfbstream, 1);

	s->max_pixels = max_pixels;
	return s;
}

void vg_rfbstream_free(vg_rfbstream *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < NZSTREAMS; i++)
		if (s->z_ready[i])
			inflateEnd(&s->z[i]);
	vg_pixbuf_free(s->fb);
	g_free(s->buf);
	g_free(s);
}

const vg_pixbuf *vg_rfbstream_frame(const vg_rfbstream *s)
{
	return s->fb;
}

const char *vg_rfbstream_error_text(const vg_rfbstream *s)
{
	return s->err;
}

/* --- Pixels -------------------------------------------------------------- */

static uint32_t scale8(uint32_t v, uint32_t max)
{
	return max == 255 ? v : (v * 255 + max / 2) / max;
}

/* One pixel of the stream's format at p (bypp bytes) as 0x00RRGGBB. */
static uint32_t pixel_at(const vg_rfbstream *s, const uint8_t *p)
{
	const pixfmt *f = &s->pf;
	uint32_t v;

	switch (s->bypp) {
	case 1:
		v = p[0];
		break;
	case 2:
		v = f->big_endian ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
		break;
	default:
		v = f->big_endian ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
				  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
		break;
	}
	return scale8((v >> f->shift[0]) & f->max[0], f->max[0]) << 16 |
	       scale8((v >> f->shift[1]) & f->max[1], f->max[1]) << 8 |
	       scale8((v >> f->shift[2]) & f->max[2], f->max[2]);
}

static int read_pixel(vg_rfbstream *s, vg_reader *r, uint32_t *px)
{
	const uint8_t *p;
	int err;

	if ((err = vg_reader_ptr(r, (size_t)s->bypp, &p)))
		return err;
	*px = pixel_at(s, p);
	return VG_OK;
}

/* ZRLE's compact pixel: three bytes when the colour fits in them. */
static uint32_t cpixel_at(const vg_rfbstream *s, const uint8_t *p)
{
	uint8_t b[4] = { 0, 0, 0, 0 };

	if (s->cbypp == s->bypp)
		return pixel_at(s, p);
	memcpy(b + (s->cpixel_pad == 0 ? 1 : 0), p, 3);
	return pixel_at(s, b);
}

static int read_cpixel(vg_rfbstream *s, vg_reader *r, uint32_t *px)
{
	const uint8_t *p;
	int err;

	if ((err = vg_reader_ptr(r, (size_t)s->cbypp, &p)))
		return err;
	*px = cpixel_at(s, p);
	return VG_OK;
}

/* Tight's pixel: R, G, B bytes for 24-bit colour, else a whole pixel. */
static int tpixel_len(const vg_rfbstream *s)
{
	return s->tpixel24 ? 3 : s->bypp;
}

static uint32_t tpixel_at(const vg_rfbstream *s, const uint8_t *p)
{
	if (s->tpixel24)
		return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
	return pixel_at(s, p);
}

static void fill(vg_rfbstream *s, int32_t x, int32_t y, int32_t w, int32_t h, uint32_t px)
{
	vg_pixbuf_fill(s->fb, vg_rect_make(x, y, w, h), px);
}

/* --- Zlib ---------------------------------------------------------------- */

static uint8_t *scratch(vg_rfbstream *s, size_t n)
{
	if (n > s->buf_cap) {
		s->buf = g_realloc(s->buf, n);
		s->buf_cap = n;
	}
	return s->buf;
}

/* Inflates all of in through stream i into s->buf from *out_len on; the
 * result may not exceed cap bytes (one byte more of room shows it if it
 * does). */
static int inflate_into(vg_rfbstream *s, int i, const uint8_t *in, size_t in_len, size_t cap,
			size_t *out_len)
{
	z_stream *z = &s->z[i];
	int zerr;

	if (!s->z_ready[i]) {
		memset(z, 0, sizeof *z);
		if (inflateInit(z) != Z_OK)
			return fail(s, VG_EZLIB, "zlib cannot start");
		s->z_ready[i] = true;
	}
	scratch(s, cap + 1);
	z->next_in = (Bytef *)(uintptr_t)in;
	z->avail_in = (uInt)in_len;
	while (z->avail_in > 0 && *out_len <= cap) {
		uInt before_in = z->avail_in;
		size_t before_out = *out_len;

		z->next_out = s->buf + *out_len;
		z->avail_out = (uInt)MIN(cap + 1 - *out_len, (size_t)1 << 30);
		zerr = inflate(z, Z_SYNC_FLUSH);
		*out_len = (size_t)(z->next_out - s->buf);
		if (zerr == Z_STREAM_END && z->avail_in > 0)
			return fail(s, VG_ECORRUPT, "compressed data goes on after its stream's end");
		if (zerr != Z_OK && zerr != Z_BUF_ERROR && zerr != Z_STREAM_END)
			return fail(s, VG_ECORRUPT, "bad compressed data (%s)", z->msg ? z->msg : "zlib");
		if (z->avail_in == before_in && *out_len == before_out)
			return fail(s, VG_ECORRUPT, "compressed data makes no progress");
		if (zerr == Z_STREAM_END)
			break;
	}
	if (*out_len > cap)
		return fail(s, VG_ECORRUPT, "compressed data inflates to more than its rectangle holds");
	return VG_OK;
}

static void reset_stream(vg_rfbstream *s, int i)
{
	if (s->z_ready[i])
		inflateReset(&s->z[i]);
}

/* --- Encodings ----------------------------------------------------------- */

static int dec_raw(vg_rfbstream *s, vg_reader *r, int32_t x, int32_t y, int32_t w, int32_t h)
{
	const uint8_t *p;
	int32_t i, j;
	int err;

	if ((err = vg_reader_ptr(r, (size_t)w * (size_t)h * (size_t)s->bypp, &p)))
		return err;
	for (j = 0; j < h; j++) {
		uint32_t *row = vg_pixbuf_row(s->fb, y + j) + x;

		for (i = 0; i < w; i++, p += s->bypp)
			row[i] = pixel_at(s, p);
	}
	return VG_OK;
}

static int dec_copyrect(vg_rfbstream *s, vg_reader *r, int32_t x, int32_t y, int32_t w, int32_t h)
{
	uint16_t sx, sy;
	int32_t j;
	int err;

	if ((err = vg_reader_u16be(r, &sx)) || (err = vg_reader_u16be(r, &sy)))
		return err;
	if ((int32_t)sx + w > s->fb->width || (int32_t)sy + h > s->fb->height)
		return fail(s, VG_ECORRUPT, "CopyRect source outside the frame");
	/* Source and destination may overlap: copy rows in the safe order. */
	if (sy < y) {
		for (j = h - 1; j >= 0; j--)
			memmove(vg_pixbuf_row(s->fb, y + j) + x, vg_pixbuf_row(s->fb, sy + j) + sx, (size_t)w * 4);
	} else {
		for (j = 0; j < h; j++)
			memmove(vg_pixbuf_row(s->fb, y + j) + x, vg_pixbuf_row(s->fb, sy + j) + sx, (size_t)w * 4);
	}
	return VG_OK;
}

static int dec_rre(vg_rfbstream *s, vg_reader *r, int32_t x, int32_t y, int32_t w, int32_t h)
{
	uint32_t n, i, bg, px;
	uint16_t sx, sy, sw, sh;
	int err;

	if ((err = vg_reader_u32be(r, &n)) || (err = read_pixel(s, r, &bg)))
		return err;
	/* Check the count against the bytes present before drawing. */
	if ((uint64_t)n * (uint64_t)(s->bypp + 8) > vg_reader_remaining(r))
		return VG_ETRUNC;
	fill(s, x, y, w, h, bg);
	for (i = 0; i < n; i++) {
		if ((err = read_pixel(s, r, &px)) || (err = vg_reader_u16be(r, &sx)) ||
		    (err = vg_reader_u16be(r, &sy)) || (err = vg_reader_u16be(r, &sw)) ||
		    (err = vg_reader_u16be(r, &sh)))
			return err;
		if ((int32_t)sx + sw > w || (int32_t)sy + sh > h)
			return fail(s, VG_ECORRUPT, "RRE subrectangle outside its rectangle");
		fill(s, x + sx, y + sy, sw, sh, px);
	}
	return VG_OK;
}

enum {
	HT_RAW = 1,
	HT_BACKGROUND = 2,
	HT_FOREGROUND = 4,
	HT_ANY_SUBRECTS = 8,
	HT_COLOURED = 16,
};

static int dec_hextile(vg_rfbstream *s, vg_reader *r, int32_t x, int32_t y, int32_t w, int32_t h)
{
	uint32_t bg = 0, fg = 0;
	int32_t tx, ty;
	int err;

	for (ty = y; ty < y + h; ty += 16) {
		for (tx = x; tx < x + w; tx += 16) {
			int32_t tw = MIN(16, x + w - tx), th = MIN(16, y + h - ty);
			uint8_t sub, n = 0, xy, wh;
			unsigned i;

			if ((err = vg_reader_u8(r, &sub)))
				return err;
			if (sub & HT_RAW) {
				if ((err = dec_raw(s, r, tx, ty, tw, th)))
					return err;
				continue;
			}
			if ((sub & HT_BACKGROUND) && (err = read_pixel(s, r, &bg)))
				return err;
			if ((sub & HT_FOREGROUND) && (err = read_pixel(s, r, &fg)))
				return err;
			if ((sub & HT_ANY_SUBRECTS) && (err = vg_reader_u8(r, &n)))
				return err;
			fill(s, tx, ty, tw, th, bg);
			for (i = 0; i < n; i++) {
				uint32_t px = fg;
				int32_t sx, sy, sw, sh;

				if ((sub & HT_COLOURED) && (err = read_pixel(s, r, &px)))
					return err;
				if ((err = vg_reader_u8(r, &xy)) || (err = vg_reader_u8(r, &wh)))
					return err;
				sx = xy >> 4;
				sy = xy & 15;
				sw = (wh >> 4) + 1;
				sh = (wh & 15) + 1;
				if (sx + sw > tw || sy + sh > th)
					return fail(s, VG_ECORRUPT, "Hextile subrectangle outside its tile");
				fill(s, tx + sx, ty + sy, sw, sh, px);
			}
		}
	}
	return VG_OK;
}

static int dec_zlib(vg_rfbstream *s, vg_reader *r, int32_t x, int32_t y, int32_t w, int32_t h)
{
	size_t want = (size_t)w * (size_t)h * (size_t)s->bypp, got = 0;
	const uint8_t *in;
	uint32_t len;
	vg_reader raw;
	int err;

	if ((err = vg_reader_u32be(r, &len)) || (err = vg_reader_ptr(r, len, &in)))
		return err;
	if ((err = inflate_into(s, ZS_ZLIB, in, len, want, &got)))
		return err;
	if (got != want)
		return fail(s, VG_ECORRUPT, "Zlib rectangle inflates to %zu bytes, not %zu", got, want);
	vg_reader_init(&raw, s->buf, got);
	return dec_raw(s, &raw, x, y, w, h);
}

/* ZRLE: the inflated bytes are 64x64 tiles, each a subencoding byte and
 * raw, solid, packed-palette or run-length data. */
static int zrle_tile(vg_rfbstream *s, vg_reader *r, int32_t x, int32_t y, int32_t w, int32_t h)
{
	uint32_t palette[128];
	uint8_t sub, b;
	int32_t i, j, n = w * h, pos;
	int err, k;

	if ((err = vg_reader_u8(r, &sub)))
		return err;
	if (sub == 0) {
		const uint8_t *p;

		if ((err = vg_reader_ptr(r, (size_t)n * (size_t)s->cbypp, &p)))
			return err;
		for (j = 0; j < h; j++) {
			uint32_t *row = vg_pixbuf_row(s->fb, y + j) + x;

			for (i = 0; i < w; i++, p += s->cbypp)
				row[i] = cpixel_at(s, p);
		}
		return VG_OK;
	}
	if (sub == 1) {
		uint32_t px;

		if ((err = read_cpixel(s, r, &px)))
			return err;
		fill(s, x, y, w, h, px);
		return VG_OK;
	}
	if ((sub > 16 && sub < 128) || sub == 129)
		return fail(s, VG_ECORRUPT, "ZRLE subencoding %u is not defined", sub);
	for (k = 0; k < (sub & 127); k++)
		if ((err = read_cpixel(s, r, &palette[k])))
			return err;
	if (sub <= 16) {
		/* Packed palette: 1, 2 or 4 bits an index, rows padded to a byte. */
		int bits = sub == 2 ? 1 : sub <= 4 ? 2 : 4;
		size_t row_bytes = ((size_t)w * (size_t)bits + 7) / 8;

		for (j = 0; j < h; j++) {
			const uint8_t *p;
			uint32_t *row = vg_pixbuf_row(s->fb, y + j) + x;

			if ((err = vg_reader_ptr(r, row_bytes, &p)))
				return err;
			for (i = 0; i < w; i++) {
				int bit = i * bits;
				unsigned idx = (unsigned)(p[bit / 8] >> (8 - bits - bit % 8)) & ((1u << bits) - 1);

				if (idx >= sub)
					return fail(s, VG_ECORRUPT, "ZRLE palette index %u of %u", idx, sub);
				row[i] = palette[idx];
			}
		}
		return VG_OK;
	}
	/* Run-length: plain (128) or with a palette (130..255). A run's
	 * length minus one is the sum of its bytes, each 255 but the last. */
	for (pos = 0; pos < n;) {
		uint32_t px;
		int32_t run = 1;
		bool has_run = true;

		if (sub == 128) {
			if ((err = read_cpixel(s, r, &px)))
				return err;
		} else {
			if ((err = vg_reader_u8(r, &b)))
				return err;
			if ((b & 127) >= sub - 128)
				return fail(s, VG_ECORRUPT, "ZRLE palette index %u of %u", b & 127, sub - 128);
			px = palette[b & 127];
			has_run = (b & 128) != 0;
		}
		if (has_run) {
			do {
				if ((err = vg_reader_u8(r, &b)))
					return err;
				run += b;
				if (run > n - pos)
					return fail(s, VG_ECORRUPT, "ZRLE run passes the end of its tile");
			} while (b == 255);
		}
		for (k = 0; k < run; k++, pos++)
			vg_pixbuf_row(s->fb, y + pos / w)[x + pos % w] = px;
	}
	return VG_OK;
}

static int dec_zrle(vg_rfbstream *s, vg_reader *r, int32_t x, int32_t y, int32_t w, int32_t h)
{
	size_t tiles = (size_t)((w + 63) / 64) * (size_t)((h + 63) / 64), got = 0, cap;
	const uint8_t *in;
	uint32_t len;
	vg_reader t;
	int32_t tx, ty;
	int err;

	if ((err = vg_reader_u32be(r, &len)) || (err = vg_reader_ptr(r, len, &in)))
		return err;
	/* The longest a tile can be: its subencoding, a 127-colour palette
	 * and a run for every pixel of up to 4 + 2 bytes. */
	cap = tiles * (1 + 127 * 4) + (size_t)w * (size_t)h * 6 + 64;
	if ((err = inflate_into(s, ZS_ZRLE, in, len, cap, &got)))
		return err;
	vg_reader_init(&t, s->buf, got);
	for (ty = y; ty < y + h; ty += 64)
		for (tx = x; tx < x + w; tx += 64)
			if ((err = zrle_tile(s, &t, tx, ty, MIN(64, x + w - tx), MIN(64, y + h - ty)))) {
				if (err == VG_ETRUNC)
					return fail(s, VG_ECORRUPT, "ZRLE data ends inside a tile");
				return err;
			}
	if (vg_reader_remaining(&t))
		return fail(s, VG_ECORRUPT, "ZRLE data goes on after the last tile");
	return VG_OK;
}

/* Tight's compact length: 1 to 3 bytes of 7, 7 and 8 bits. */
static int tight_length(vg_reader *r, uint32_t *len)
{
	uint8_t b;
	int err;

	if ((err = vg_reader_u8(r, &b)))
		return err;
	*len = b & 0x7f;
	if (!(b & 0x80))
		return VG_OK;
	if ((err = vg_reader_u8(r, &b)))
		return err;
	*len |= (uint32_t)(b & 0x7f) << 7;
	if (!(b & 0x80))
		return VG_OK;
	if ((err = vg_reader_u8(r, &b)))
		return err;
	*len |= (uint32_t)b << 14;
	return VG_OK;
}

/* Tight's gradient filter for R, G, B pixels: each component is the
 * stored value plus the prediction left + above - above-left, clamped. */
static void tight_gradient(vg_rfbstream *s, const uint8_t *d, int32_t x, int32_t y, int32_t w, int32_t h)
{
	int32_t i, j, c;

	for (j = 0; j < h; j++) {
		uint32_t *row = vg_pixbuf_row(s->fb, y + j) + x;
		const uint32_t *up = j > 0 ? vg_pixbuf_row(s->fb, y + j - 1) + x : NULL;

		for (i = 0; i < w; i++, d += 3) {
			uint32_t px = 0;

			for (c = 0; c < 3; c++) {
				int sh = 16 - 8 * c;
				int left = i > 0 ? (int)(row[i - 1] >> sh & 255) : 0;
				int above = up ? (int)(up[i] >> sh & 255) : 0;
				int corner = up && i > 0 ? (int)(up[i - 1] >> sh & 255) : 0;
				int pred = CLAMP(left + above - corner, 0, 255);

				px |= (uint32_t)((pred + d[c]) & 255) << sh;
			}
			row[i] = px;
		}
	}
}

static int dec_tight(vg_rfbstream *s, vg_reader *r, int32_t x, int32_t y, int32_t w, int32_t h)
{
	uint8_t ctl, filter = 0, ncolours = 0;
	uint32_t palette[256];
	const uint8_t *p;
	int tlen = tpixel_len(s), stream, i, err;
	size_t row_bytes, want, got = 0;
	int32_t j, k;

	if ((err = vg_reader_u8(r, &ctl)))
		return err;
	for (i = 0; i < 4; i++)
		if (ctl & (1 << i))
			reset_stream(s, ZS_TIGHT + i);
	ctl >>= 4;
	if (ctl == 8) {
		if ((err = vg_reader_ptr(r, (size_t)tlen, &p)))
			return err;
		fill(s, x, y, w, h, tpixel_at(s, p));
		return VG_OK;
	}
	if (ctl == 9)
		return fail(s, VG_ENOTSUP, "Tight JPEG is lossy; record with a lossless Tight setting");
	if (ctl > 9)
		return fail(s, VG_ENOTSUP, "Tight compression type %u is not supported", ctl);
	if (w > 2048)
		return fail(s, VG_ECORRUPT, "Tight rectangle wider than 2048 pixels");
	stream = ZS_TIGHT + (ctl & 3);
	if ((ctl & 4) && (err = vg_reader_u8(r, &filter)))
		return err;
	switch (filter) {
	case 0: /* copy */
		row_bytes = (size_t)w * (size_t)tlen;
		break;
	case 1: /* palette */
		if ((err = vg_reader_u8(r, &ncolours)))
			return err;
		for (i = 0; i <= ncolours; i++) {
			if ((err = vg_reader_ptr(r, (size_t)tlen, &p)))
				return err;
			palette[i] = tpixel_at(s, p);
		}
		row_bytes = ncolours == 1 ? ((size_t)w + 7) / 8 : (size_t)w;
		break;
	case 2: /* gradient */
		if (!s->tpixel24)
			return fail(s, VG_ENOTSUP, "Tight gradient filter needs 24-bit colour");
		row_bytes = (size_t)w * 3;
		break;
	default:
		return fail(s, VG_ECORRUPT, "Tight filter %u is not defined", filter);
	}
	want = row_bytes * (size_t)h;
	if (want < 12) {
		/* Short data is sent as it is. */
		if ((err = vg_reader_ptr(r, want, &p)))
			return err;
	} else {
		uint32_t len;
		const uint8_t *in;

		if ((err = tight_length(r, &len)) || (err = vg_reader_ptr(r, len, &in)))
			return err;
		if ((err = inflate_into(s, stream, in, len, want, &got)))
			return err;
		if (got != want)
			return fail(s, VG_ECORRUPT, "Tight data inflates to %zu bytes, not %zu", got, want);
		p = s->buf;
	}
	switch (filter) {
	case 0:
		for (j = 0; j < h; j++) {
			uint32_t *row = vg_pixbuf_row(s->fb, y + j) + x;

			for (k = 0; k < w; k++, p += tlen)
				row[k] = tpixel_at(s, p);
		}
		break;
	case 1:
		for (j = 0; j < h; j++, p += row_bytes) {
			uint32_t *row = vg_pixbuf_row(s->fb, y + j) + x;

			for (k = 0; k < w; k++) {
				unsigned idx = ncolours == 1 ? (unsigned)(p[k / 8] >> (7 - k % 8)) & 1 : p[k];

				if (idx > ncolours)
					return fail(s, VG_ECORRUPT, "Tight palette index %u of %u", idx, ncolours + 1);
				row[k] = palette[idx];
			}
		}
		break;
	default:
		tight_gradient(s, p, x, y, w, h);
		break;
	}
	return VG_OK;
}

/* A desktop size announcement: a trace keeps one size. */
static int same_size(vg_rfbstream *s, int32_t w, int32_t h)
{
	if (w != s->fb->width || h != s->fb->height)
		return fail(s, VG_ENOTSUP, "the server resized its desktop to %dx%d (a trace has one size)", w, h);
	return VG_OK;
}

/* Pseudo-encodings: data to skip, or an end to the update. Returns 1 for
 * LastRect. */
static int pseudo(vg_rfbstream *s, vg_reader *r, int32_t enc, int32_t w, int32_t h)
{
	size_t mask = ((size_t)w + 7) / 8 * (size_t)h;
	uint32_t len;
	uint8_t n;
	int err;

	switch (enc) {
	case ENC_LAST_RECT:
		return 1;
	case ENC_POINTER_POS:
	case ENC_QEMU_EXT_KEY:
	case ENC_FENCE:
	case ENC_XVP:
	case ENC_CONTINUOUS_UPDATES:
	case ENC_LIBVNC_LED_STATE:
		return VG_OK;
	case ENC_RICH_CURSOR:
		return vg_reader_skip(r, (size_t)w * (size_t)h * (size_t)s->bypp + mask);
	case ENC_X_CURSOR:
		return w && h ? vg_reader_skip(r, 6 + 2 * mask) : VG_OK;
	case ENC_LED_STATE:
		return vg_reader_skip(r, 1);
	case ENC_SUPPORTED_MESSAGES:
	case ENC_SUPPORTED_ENCODINGS:
	case ENC_SERVER_IDENTITY:
		return vg_reader_skip(r, (size_t)w);
	case ENC_DESKTOP_NAME:
		if ((err = vg_reader_u32be(r, &len)))
			return err;
		return vg_reader_skip(r, len);
	case ENC_EXT_DESKTOP_SIZE:
		if ((err = vg_reader_u8(r, &n)) || (err = vg_reader_skip(r, 3 + (size_t)n * 16)))
			return err;
		return same_size(s, w, h);
	case ENC_DESKTOP_SIZE:
		return same_size(s, w, h);
	default:
		return fail(s, VG_ENOTSUP, "encoding %d is not supported", enc);
	}
}

static int update(vg_rfbstream *s, vg_reader *r)
{
	uint16_t nrects, x, y, w, h;
	uint32_t enc_u, i;
	int err;

	if ((err = vg_reader_skip(r, 1)) || (err = vg_reader_u16be(r, &nrects)))
		return err;
	for (i = 0; i < nrects; i++) {
		int32_t enc;

		if ((err = vg_reader_u16be(r, &x)) || (err = vg_reader_u16be(r, &y)) ||
		    (err = vg_reader_u16be(r, &w)) || (err = vg_reader_u16be(r, &h)) ||
		    (err = vg_reader_u32be(r, &enc_u)))
			return err;
		enc = (int32_t)enc_u;
		if (enc < 0) {
			err = pseudo(s, r, enc, w, h);
			if (err == 1)
				return VG_OK;
			if (err)
				return err;
			continue;
		}
		if ((int32_t)x + w > s->fb->width || (int32_t)y + h > s->fb->height)
			return fail(s, VG_ECORRUPT, "rectangle %ux%u at (%u,%u) outside the %dx%d frame", w, h, x,
				    y, s->fb->width, s->fb->height);
		switch (enc) {
		case ENC_RAW: err = dec_raw(s, r, x, y, w, h); break;
		case ENC_COPYRECT: err = dec_copyrect(s, r, x, y, w, h); break;
		case ENC_RRE: err = dec_rre(s, r, x, y, w, h); break;
		case ENC_HEXTILE: err = dec_hextile(s, r, x, y, w, h); break;
		case ENC_ZLIB: err = dec_zlib(s, r, x, y, w, h); break;
		case ENC_ZRLE: err = dec_zrle(s, r, x, y, w, h); break;
		case ENC_TIGHT: err = dec_tight(s, r, x, y, w, h); break;
		default:
			return fail(s, VG_ENOTSUP, "encoding %d is not supported", enc);
		}
		if (err)
			return err;
	}
	return VG_OK;
}

int vg_rfbstream_message(vg_rfbstream *s, const uint8_t *data, size_t len, size_t *used)
{
	vg_reader r;
	uint8_t type, n;
	uint16_t count;
	uint32_t text;
	int err;

	*used = 0;
	s->err[0] = '\0';
	if (!s->fb)
		return fail(s, VG_EINVAL, "no handshake yet");
	vg_reader_init(&r, data, len);
	if ((err = vg_reader_u8(&r, &type)))
		goto out;
	switch (type) {
	case 0: /* FramebufferUpdate */
		err = update(s, &r);
		break;
	case 1: /* SetColourMapEntries: only true colour is decoded */
		if (!(err = vg_reader_skip(&r, 3)) && !(err = vg_reader_u16be(&r, &count)))
			err = vg_reader_skip(&r, (size_t)count * 6);
		break;
	case 2: /* Bell */
		break;
	case 3: /* ServerCutText; a negative length is the extended form */
		if (!(err = vg_reader_skip(&r, 3)) && !(err = vg_reader_u32be(&r, &text)))
			err = vg_reader_skip(&r, (int32_t)text < 0 ? (size_t)-(int64_t)(int32_t)text : text);
		break;
	case 150: /* EndOfContinuousUpdates */
		break;
	case 250: /* xvp: padding, version, code */
		err = vg_reader_skip(&r, 3);
		break;
	case 248: /* ServerFence */
		if (!(err = vg_reader_skip(&r, 7)) && !(err = vg_reader_u8(&r, &n)))
			err = vg_reader_skip(&r, n);
		break;
	default:
		return fail(s, VG_ENOTSUP, "server message type %u is not supported", type);
	}
out:
	if (err == VG_ETRUNC && !s->err[0])
		fail(s, VG_ETRUNC, "the stream ends inside a message");
	if (err)
		return err;
	*used = r.pos;
	return type == 0 ? 1 : 0;
}

/* --- Handshake ----------------------------------------------------------- */

static int security(vg_rfbstream *s, vg_reader *r, int minor)
{
	uint32_t type = 0, result, len;
	uint8_t n, t;
	bool none = false, vnc = false;
	int err, i;

	if (minor < 7) {
		if ((err = vg_reader_u32be(r, &type)))
			return err;
		if (type == 0)
			goto refused;
	} else {
		if ((err = vg_reader_u8(r, &n)))
			return err;
		if (n == 0)
			goto refused;
		for (i = 0; i < n; i++) {
			if ((err = vg_reader_u8(r, &t)))
				return err;
			none |= t == 1;
			vnc |= t == 2;
		}
		/* The client's choice is not in the stream: assume the one a
		 * recording client would make. */
		type = none ? 1 : vnc ? 2 : 0;
	}
	if (type == 2) {
		if ((err = vg_reader_skip(r, 16)))
			return err;
	} else if (type != 1) {
		return fail(s, VG_ENOTSUP, "the server offers no security type a recording can follow (None, VNC)");
	}
	if (type == 2 || minor >= 8) {
		if ((err = vg_reader_u32be(r, &result)))
			return err;
		if (result != 0) {
			if (minor >= 8 && vg_reader_u32be(r, &len) == VG_OK)
				vg_reader_skip(r, len);
			return fail(s, VG_EPROTO, "the server refused the recorded connection");
		}
	}
	return VG_OK;
refused:
	return fail(s, VG_EPROTO, "the server refused the recorded connection");
}

static int server_init(vg_rfbstream *s, vg_reader *r)
{
	uint16_t w, h;
	uint8_t pad[3], b;
	uint32_t name;
	pixfmt *f = &s->pf;
	int err, c;
	bool fits_low, fits_high;

	if ((err = vg_reader_u16be(r, &w)) || (err = vg_reader_u16be(r, &h)) ||
	    (err = vg_reader_u8(r, &f->bpp)) || (err = vg_reader_u8(r, &f->depth)) ||
	    (err = vg_reader_u8(r, &b)))
		return err;
	f->big_endian = b != 0;
	if ((err = vg_reader_u8(r, &b)))
		return err;
	f->true_colour = b != 0;
	for (c = 0; c < 3; c++)
		if ((err = vg_reader_u16be(r, &f->max[c])))
			return err;
	for (c = 0; c < 3; c++)
		if ((err = vg_reader_u8(r, &f->shift[c])))
			return err;
	if ((err = vg_reader_bytes(r, pad, 3)) || (err = vg_reader_u32be(r, &name)) ||
	    (err = vg_reader_skip(r, name)))
		return err;
	if (w < 1 || h < 1 || w > VG_MAX_DIM || h > VG_MAX_DIM || (uint64_t)w * h > s->max_pixels)
		return fail(s, VG_ERANGE, "a %ux%u framebuffer is out of range", w, h);
	if (!f->true_colour)
		return fail(s, VG_ENOTSUP, "colour-mapped pixel formats are not supported");
	if (f->bpp != 8 && f->bpp != 16 && f->bpp != 32)
		return fail(s, VG_ENOTSUP, "%u bits a pixel are not supported", f->bpp);
	for (c = 0; c < 3; c++)
		if (f->max[c] == 0 || f->shift[c] >= f->bpp || ((uint32_t)f->max[c] & ((uint32_t)f->max[c] + 1)) ||
		    ((uint64_t)f->max[c] << f->shift[c]) >= ((uint64_t)1 << f->bpp))
			return fail(s, VG_ENOTSUP, "the pixel format's colour fields are not valid");
	s->bypp = f->bpp / 8;
	fits_low = fits_high = f->bpp == 32 && f->depth <= 24;
	for (c = 0; c < 3; c++) {
		uint64_t field = (uint64_t)f->max[c] << f->shift[c];

		fits_low &= field <= 0xffffff;
		fits_high &= (field & 0xff) == 0;
	}
	s->cbypp = fits_low || fits_high ? 3 : s->bypp;
	/* The byte left out is the most significant one when the colour sits
	 * in the low three bytes; in memory order that is the back for a
	 * little-endian format and the front for a big-endian one. */
	s->cpixel_pad = fits_low ? (f->big_endian ? 0 : 3) : (f->big_endian ? 3 : 0);
	s->tpixel24 = f->bpp == 32 && f->depth == 24 && f->max[0] == 255 && f->max[1] == 255 &&
		      f->max[2] == 255;
	s->fb = vg_pixbuf_new(w, h);
	return VG_OK;
}

int vg_rfbstream_handshake(vg_rfbstream *s, const uint8_t *data, size_t len, size_t *used)
{
	char version[13];
	vg_reader r;
	int major, minor, err;

	*used = 0;
	s->err[0] = '\0';
	vg_reader_init(&r, data, len);
	if ((err = vg_reader_bytes(&r, version, 12)))
		goto out;
	version[12] = '\0';
	if (sscanf(version, "RFB %03d.%03d\n", &major, &minor) != 2 || major != 3 || version[11] != '\n')
		return fail(s, VG_EPROTO, "the stream does not start with an RFB 3.x ProtocolVersion");
	if ((err = security(s, &r, minor)) || (err = server_init(s, &r)))
		goto out;
	*used = r.pos;
	return VG_OK;
out:
	if (err == VG_ETRUNC && !s->err[0])
		fail(s, VG_ETRUNC, "the stream ends inside the handshake");
	return err;
}
