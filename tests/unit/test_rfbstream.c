/* The RFB stream decoder on streams built here, for what the live tests
 * against Xvnc and x11vnc do not reach: Tight's gradient filter, 16-bit
 * pixels, big-endian formats, RFB 3.3 and 3.8 handshakes, and damaged
 * messages that must fail cleanly. */
#include <glib.h>
#include <string.h>
#include <zlib.h>

#include "common/vg_error.h"
#include "common/vg_writer.h"
#include "traces/vg_rfbstream.h"

/* A 3.8 handshake offering None, then ServerInit for w x h in 32-bit
 * little-endian (or big-endian) 0x00RRGGBB. */
static void handshake(vg_writer *wr, int w, int h, int bpp, bool big_endian)
{
	vg_writer_bytes(wr, "RFB 003.008\n", 12);
	vg_writer_u8(wr, 2);
	vg_writer_u8(wr, 2);
	vg_writer_u8(wr, 1);
	vg_writer_u32be(wr, 0);
	vg_writer_u16be(wr, (uint16_t)w);
	vg_writer_u16be(wr, (uint16_t)h);
	vg_writer_u8(wr, (uint8_t)bpp);
	vg_writer_u8(wr, bpp == 32 ? 24 : 16);
	vg_writer_u8(wr, big_endian);
	vg_writer_u8(wr, 1);
	if (bpp == 32) {
		vg_writer_u16be(wr, 255); vg_writer_u16be(wr, 255); vg_writer_u16be(wr, 255);
		vg_writer_u8(wr, 16); vg_writer_u8(wr, 8); vg_writer_u8(wr, 0);
	} else {
		/* RGB565 */
		vg_writer_u16be(wr, 31); vg_writer_u16be(wr, 63); vg_writer_u16be(wr, 31);
		vg_writer_u8(wr, 11); vg_writer_u8(wr, 5); vg_writer_u8(wr, 0);
	}
	vg_writer_u8(wr, 0); vg_writer_u8(wr, 0); vg_writer_u8(wr, 0);
	vg_writer_u32be(wr, 4);
	vg_writer_bytes(wr, "test", 4);
}

static void rect_header(vg_writer *wr, int x, int y, int w, int h, int32_t enc)
{
	vg_writer_u16be(wr, (uint16_t)x);
	vg_writer_u16be(wr, (uint16_t)y);
	vg_writer_u16be(wr, (uint16_t)w);
	vg_writer_u16be(wr, (uint16_t)h);
	vg_writer_u32be(wr, (uint32_t)enc);
}

static uint32_t smooth(int x, int y)
{
	return VG_RGB(x * 9 + y, 200 - y * 7, (x * y * 3) & 255);
}

/* Decodes handshake + one message; returns the message's result. */
static int decode(const vg_writer *wr, vg_rfbstream **out)
{
	vg_rfbstream *s = vg_rfbstream_new(1 << 20);
	size_t used, total;
	int err;

	g_assert_cmpint(vg_rfbstream_handshake(s, wr->data, wr->len, &used), ==, VG_OK);
	total = used;
	err = vg_rfbstream_message(s, wr->data + total, wr->len - total, &used);
	if (err >= 0)
		g_assert_cmpuint(total + used, ==, wr->len);
	*out = s;
	return err;
}

/* Tight, basic compression, gradient filter: the test encodes the
 * prediction residuals of a smooth image the way the filter is specified,
 * and the decoder must give the image back. */
static void test_tight_gradient(void)
{
	enum { W = 20, H = 9 };
	uint8_t raw[W * H * 3], packed[W * H * 3 + 64];
	uLongf packed_len = sizeof packed;
	vg_rfbstream *s;
	vg_writer wr;
	int x, y, c;
	z_stream z;

	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++)
			for (c = 0; c < 3; c++) {
				int sh = 16 - 8 * c;
				int v = (int)(smooth(x, y) >> sh & 255);
				int left = x ? (int)(smooth(x - 1, y) >> sh & 255) : 0;
				int up = y ? (int)(smooth(x, y - 1) >> sh & 255) : 0;
				int corner = x && y ? (int)(smooth(x - 1, y - 1) >> sh & 255) : 0;
				int pred = CLAMP(left + up - corner, 0, 255);

				raw[(y * W + x) * 3 + c] = (uint8_t)((v - pred) & 255);
			}
	memset(&z, 0, sizeof z);
	g_assert_cmpint(deflateInit(&z, 6), ==, Z_OK);
	z.next_in = raw;
	z.avail_in = sizeof raw;
	z.next_out = packed;
	z.avail_out = sizeof packed;
	g_assert_cmpint(deflate(&z, Z_SYNC_FLUSH), ==, Z_OK);
	packed_len = sizeof packed - z.avail_out;
	deflateEnd(&z);

	vg_writer_init(&wr);
	handshake(&wr, 32, 16, 32, false);
	vg_writer_u8(&wr, 0);
	vg_writer_u8(&wr, 0);
	vg_writer_u16be(&wr, 1);
	rect_header(&wr, 5, 3, W, H, 7);
	vg_writer_u8(&wr, 0x40 | 0x10);          /* basic, stream 1, filter follows */
	vg_writer_u8(&wr, 2);                    /* gradient */
	g_assert_cmpuint(packed_len, <, 128 * 128);
	vg_writer_u8(&wr, (uint8_t)(0x80 | (packed_len & 0x7f)));
	vg_writer_u8(&wr, (uint8_t)(packed_len >> 7));
	vg_writer_bytes(&wr, packed, packed_len);
	g_assert_cmpint(decode(&wr, &s), ==, 1);
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++)
			g_assert_cmphex(vg_pixbuf_row(vg_rfbstream_frame(s), 3 + y)[5 + x], ==, smooth(x, y));
	g_assert_cmphex(vg_pixbuf_row(vg_rfbstream_frame(s), 0)[0], ==, 0);
	vg_rfbstream_free(s);
	vg_writer_clear(&wr);
}

/* Raw in RGB565, little- and big-endian, scaled to 8 bits a channel. */
static void test_raw16(void)
{
	int be;

	for (be = 0; be < 2; be++) {
		vg_rfbstream *s;
		vg_writer wr;
		const uint32_t *row;
		uint16_t px[3] = { 0xf800, 0x07e0, 0x001f };
		int i;

		vg_writer_init(&wr);
		handshake(&wr, 4, 1, 16, be);
		vg_writer_u8(&wr, 0);
		vg_writer_u8(&wr, 0);
		vg_writer_u16be(&wr, 1);
		rect_header(&wr, 1, 0, 3, 1, 0);
		for (i = 0; i < 3; i++) {
			if (be)
				vg_writer_u16be(&wr, px[i]);
			else
				vg_writer_u16le(&wr, px[i]);
		}
		g_assert_cmpint(decode(&wr, &s), ==, 1);
		row = vg_pixbuf_row(vg_rfbstream_frame(s), 0);
		g_assert_cmphex(row[0], ==, 0);
		g_assert_cmphex(row[1], ==, 0xff0000);
		g_assert_cmphex(row[2], ==, 0x00ff00);
		g_assert_cmphex(row[3], ==, 0x0000ff);
		vg_rfbstream_free(s);
		vg_writer_clear(&wr);
	}
}

/* RFB 3.3: the server names the security type; None needs no result. */
static void test_handshake_33(void)
{
	vg_rfbstream *s = vg_rfbstream_new(1 << 20);
	vg_writer wr;
	size_t used;

	vg_writer_init(&wr);
	vg_writer_bytes(&wr, "RFB 003.003\n", 12);
	vg_writer_u32be(&wr, 1);
	vg_writer_u16be(&wr, 7);
	vg_writer_u16be(&wr, 5);
	vg_writer_bytes(&wr, "\x20\x18\0\1\0\xff\0\xff\0\xff\x10\x08\0\0\0\0", 16);
	vg_writer_u32be(&wr, 0);
	g_assert_cmpint(vg_rfbstream_handshake(s, wr.data, wr.len, &used), ==, VG_OK);
	g_assert_cmpuint(used, ==, wr.len);
	g_assert_cmpint(vg_rfbstream_frame(s)->width, ==, 7);
	/* Every shorter prefix is truncated, with a reason. */
	for (size_t n = 0; n < wr.len; n++) {
		vg_rfbstream *t = vg_rfbstream_new(1 << 20);

		g_assert_cmpint(vg_rfbstream_handshake(t, wr.data, n, &used), ==, VG_ETRUNC);
		g_assert_cmpstr(vg_rfbstream_error_text(t), !=, "");
		vg_rfbstream_free(t);
	}
	vg_rfbstream_free(s);
	vg_writer_clear(&wr);
}

/* Damaged messages fail with a reason and never write outside the frame. */
static void test_damaged(void)
{
	struct {
		int32_t enc;
		int x, y, w, h;
		const char *body;
		size_t body_len;
		int want;
	} cases[] = {
		{ 0, 30, 0, 4, 1, "", 0, VG_ECORRUPT },                     /* outside the frame */
		{ 1, 0, 0, 4, 4, "\0\x30\0\0", 4, VG_ECORRUPT },             /* CopyRect source outside */
		{ 2, 0, 0, 4, 4, "\0\0\0\1\0\0\0\0\0\0\0\0\0\3\0\0\0\2\0\1", 20, VG_ECORRUPT }, /* RRE subrect outside */
		{ 5, 0, 0, 4, 4, "\x08\1\x33\x11", 4, VG_ECORRUPT },        /* Hextile subrect outside a 4x4 tile */
		{ 6, 0, 0, 2, 2, "\0\0\0\4abcd", 8, VG_ECORRUPT },          /* not zlib */
		{ 7, 0, 0, 2, 2, "\x90", 1, VG_ENOTSUP },                   /* Tight JPEG */
		{ 7, 0, 0, 2, 2, "\x40\x07", 2, VG_ECORRUPT },              /* Tight filter 7 */
		{ 21, 0, 0, 2, 2, "", 0, VG_ENOTSUP },                      /* unknown encoding */
		{ -223, 0, 0, 64, 64, "", 0, VG_ENOTSUP },                  /* resize */
		{ 0, 0, 0, 4, 4, "abc", 3, VG_ETRUNC },                     /* cut */
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		vg_rfbstream *s;
		vg_writer wr;

		vg_writer_init(&wr);
		handshake(&wr, 32, 16, 32, false);
		vg_writer_u8(&wr, 0);
		vg_writer_u8(&wr, 0);
		vg_writer_u16be(&wr, 1);
		rect_header(&wr, cases[i].x, cases[i].y, cases[i].w, cases[i].h, cases[i].enc);
		vg_writer_bytes(&wr, cases[i].body, cases[i].body_len);
		g_assert_cmpint(decode(&wr, &s), ==, cases[i].want);
		g_assert_cmpstr(vg_rfbstream_error_text(s), !=, "");
		vg_rfbstream_free(s);
		vg_writer_clear(&wr);
	}
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/rfbstream/tight-gradient", test_tight_gradient);
	g_test_add_func("/rfbstream/raw16", test_raw16);
	g_test_add_func("/rfbstream/handshake-3.3", test_handshake_33);
	g_test_add_func("/rfbstream/damaged", test_damaged);
	return g_test_run();
}
