#include <errno.h>
#include <glib.h>
#include <png.h>
#include <stdio.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_imgfile.h"

/* libpng's default handlers print to stderr; errors reach the caller as
 * codes instead, so a tool says one line about a bad file. */
static void png_error_quiet(png_structp png, png_const_charp msg)
{
	(void)msg;
	png_longjmp(png, 1);
}

static void png_warning_quiet(png_structp png, png_const_charp msg)
{
	(void)png, (void)msg;
}

/* libpng reports errors by longjmp; this carries no state across it but
 * what is declared volatile in the callers. */
static int read_png(FILE *f, vg_pixbuf **out)
{
	png_structp png = NULL;
	png_infop info = NULL;
	vg_pixbuf *volatile pb = NULL;
	png_uint_32 w, h, y, x;
	int depth, ctype, pass, passes;

	png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, png_error_quiet, png_warning_quiet);
	if (!png)
		return VG_EIO;
	info = png_create_info_struct(png);
	if (!info || setjmp(png_jmpbuf(png))) {
		png_destroy_read_struct(&png, &info, NULL);
		vg_pixbuf_free(pb);
		return VG_ECORRUPT;
	}
	png_init_io(png, f);
	png_read_info(png, info);
	png_get_IHDR(png, info, &w, &h, &depth, &ctype, NULL, NULL, NULL);
	if (w < 1 || h < 1 || w > VG_MAX_DIM || h > VG_MAX_DIM) {
		png_destroy_read_struct(&png, &info, NULL);
		return VG_ERANGE;
	}
	/* Normalise every PNG flavour to 8-bit RGBA, decoded straight into the
	 * buffer's rows (4 bytes a pixel, like the buffer), then packed. */
	png_set_expand(png);
	png_set_strip_16(png);
	png_set_gray_to_rgb(png);
	png_set_filler(png, 0xff, PNG_FILLER_AFTER);
	passes = png_set_interlace_handling(png);
	png_read_update_info(png, info);
	if (png_get_rowbytes(png, info) != (size_t)w * 4) {
		png_destroy_read_struct(&png, &info, NULL);
		return VG_ECORRUPT;
	}
	pb = vg_pixbuf_new((int32_t)w, (int32_t)h);
	for (pass = 0; pass < passes; pass++)
		for (y = 0; y < h; y++)
			png_read_row(png, (png_bytep)vg_pixbuf_row(pb, (int32_t)y), NULL);
	png_read_end(png, NULL);
	png_destroy_read_struct(&png, &info, NULL);
	for (y = 0; y < h; y++) {
		uint32_t *p = vg_pixbuf_row(pb, (int32_t)y);
		const uint8_t *b = (const uint8_t *)p;
		for (x = 0; x < w; x++)
			p[x] = VG_RGB(b[4 * x], b[4 * x + 1], b[4 * x + 2]);
	}
	*out = pb;
	return VG_OK;
}

/* Reads a decimal PPM header field, skipping whitespace and comments. */
static int ppm_field(FILE *f, unsigned long *v)
{
	int c;
	unsigned long n = 0;
	int digits = 0;

	for (;;) {
		c = getc(f);
		if (c == '#') {
			while (c != '\n' && c != EOF)
				c = getc(f);
		} else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			break;
		}
	}
	while (c >= '0' && c <= '9') {
		if (++digits > 9)
			return VG_ERANGE;
		n = n * 10 + (unsigned long)(c - '0');
		c = getc(f);
	}
	if (!digits)
		return VG_ECORRUPT;
	/* Exactly one whitespace byte ends the field (it precedes the raster
	 * after maxval). */
	if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
		return VG_ECORRUPT;
	*v = n;
	return VG_OK;
}

static int read_ppm(FILE *f, vg_pixbuf **out)
{
	unsigned long w, h, maxval;
	vg_pixbuf *pb;
	uint8_t *row;
	int err;
	long y, x;

	if (fseek(f, 2, SEEK_SET) != 0)
		return VG_EIO;
	if ((err = ppm_field(f, &w)) || (err = ppm_field(f, &h)) || (err = ppm_field(f, &maxval)))
		return err;
	if (maxval != 255)
		return VG_ENOTSUP;
	if (w < 1 || h < 1 || w > VG_MAX_DIM || h > VG_MAX_DIM)
		return VG_ERANGE;
	pb = vg_pixbuf_new((int32_t)w, (int32_t)h);
	row = g_malloc(w * 3);
	for (y = 0; y < (long)h; y++) {
		uint32_t *p = vg_pixbuf_row(pb, (int32_t)y);
		if (fread(row, 3, w, f) != w) {
			g_free(row);
			vg_pixbuf_free(pb);
			return VG_ETRUNC;
		}
		for (x = 0; x < (long)w; x++)
			p[x] = VG_RGB(row[3 * x], row[3 * x + 1], row[3 * x + 2]);
	}
	g_free(row);
	*out = pb;
	return VG_OK;
}

int vg_image_read(const char *path, vg_pixbuf **out)
{
	uint8_t magic[8];
	FILE *f;
	int err;

	f = fopen(path, "rb");
	if (!f)
		return errno == ENOENT ? VG_ENOENT : VG_EIO;
	if (fread(magic, 1, sizeof magic, f) < 2) {
		err = VG_EFORMAT;
	} else if (png_sig_cmp(magic, 0, sizeof magic) == 0) {
		rewind(f);
		err = read_png(f, out);
	} else if (magic[0] == 'P' && magic[1] == '6') {
		err = read_ppm(f, out);
	} else {
		err = VG_EFORMAT;
	}
	fclose(f);
	return err;
}

static int write_png(FILE *f, const vg_pixbuf *pb)
{
	png_structp png;
	png_infop info = NULL;
	uint8_t *volatile row = NULL;
	int32_t x, y;

	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, png_error_quiet, png_warning_quiet);
	if (!png)
		return VG_EIO;
	info = png_create_info_struct(png);
	if (!info || setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		g_free(row);
		return VG_EIO;
	}
	png_init_io(png, f);
	png_set_compression_level(png, 6);
	png_set_IHDR(png, info, (png_uint_32)pb->width, (png_uint_32)pb->height, 8,
		     PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	row = g_malloc((size_t)pb->width * 3);
	for (y = 0; y < pb->height; y++) {
		const uint32_t *p = vg_pixbuf_row(pb, y);
		for (x = 0; x < pb->width; x++) {
			row[3 * x] = (uint8_t)(p[x] >> 16);
			row[3 * x + 1] = (uint8_t)(p[x] >> 8);
			row[3 * x + 2] = (uint8_t)p[x];
		}
		png_write_row(png, row);
	}
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	g_free(row);
	return VG_OK;
}

int vg_png_write(const char *path, const vg_pixbuf *pb)
{
	FILE *f = fopen(path, "wb");
	int err;

	if (!f)
		return VG_EIO;
	err = write_png(f, pb);
	if (fclose(f) != 0 && err == 0)
		err = VG_EIO;
	if (err)
		remove(path);
	return err;
}

int vg_ppm_write(const char *path, const vg_pixbuf *pb)
{
	FILE *f = fopen(path, "wb");
	uint8_t *row;
	int32_t x, y;
	int err = VG_OK;

	if (!f)
		return VG_EIO;
	row = g_malloc((size_t)pb->width * 3);
	fprintf(f, "P6\n%d %d\n255\n", pb->width, pb->height);
	for (y = 0; y < pb->height && err == VG_OK; y++) {
		const uint32_t *p = vg_pixbuf_row(pb, y);
		for (x = 0; x < pb->width; x++) {
			row[3 * x] = (uint8_t)(p[x] >> 16);
			row[3 * x + 1] = (uint8_t)(p[x] >> 8);
			row[3 * x + 2] = (uint8_t)p[x];
		}
		if (fwrite(row, 3, (size_t)pb->width, f) != (size_t)pb->width)
			err = VG_EIO;
	}
	g_free(row);
	if (fclose(f) != 0)
		err = VG_EIO;
	if (err)
		remove(path);
	return err;
}
