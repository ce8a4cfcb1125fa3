/* Test helper: prints the X pointer's current cursor image as XFixes
 * reports it, cropped to its visible pixels (VNC servers trim transparent
 * borders before sending a shape): "WxH hot X,Y fnv HASH", FNV-1a over
 * the 0xAARRGGBB pixels. --opaque lists the opaque pixels instead. */
#include <X11/Xlib.h>
#include <X11/extensions/Xfixes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	Display *d = XOpenDisplay(NULL);
	XFixesCursorImage *img;
	uint64_t h = 0xcbf29ce484222325u;
	int ev, err, x, y, b, x0, y0, x1, y1;


	if (!d || !XFixesQueryExtension(d, &ev, &err)) {
		fprintf(stderr, "vg_xcursor: no display or no XFixes\n");
		return 1;
	}
	img = XFixesGetCursorImage(d);
	if (!img) {
		fprintf(stderr, "vg_xcursor: no cursor image\n");
		return 1;
	}
	/* XFixes hands 32-bit pixels in unsigned longs. */
	x0 = img->width, y0 = img->height, x1 = -1, y1 = -1;
	for (y = 0; y < img->height; y++)
		for (x = 0; x < img->width; x++)
			if ((uint32_t)img->pixels[y * img->width + x] >> 24) {
				x0 = x < x0 ? x : x0;
				y0 = y < y0 ? y : y0;
				x1 = x > x1 ? x : x1;
				y1 = y > y1 ? y : y1;
			}
	for (y = y0; y <= y1; y++)
		for (x = x0; x <= x1; x++) {
			uint32_t px = (uint32_t)img->pixels[y * img->width + x];

			for (b = 0; b < 4; b++) {
				h ^= (px >> (8 * b)) & 0xff;
				h *= 0x100000001b3u;
			}
		}
	/* --opaque: one line per opaque pixel, "DX DY ARGB" from the hot
	 * spot; RFB's rich cursor has a 1-bit mask, so only these survive
	 * exactly (servers dither translucent shadows). */
	if (argc > 1 && strcmp(argv[1], "--opaque") == 0) {
		for (y = 0; y < img->height; y++)
			for (x = 0; x < img->width; x++) {
				uint32_t px = (uint32_t)img->pixels[y * img->width + x];

				if (px >> 24 == 255)
					printf("%d %d %08x\n", x - img->xhot, y - img->yhot, px);
			}
		goto out;
	}
	/* With another argument, a picture too: '#' opaque dark, 'o'
	 * opaque light, '+' translucent, '.' transparent. */
	for (y = y0; argc > 1 && y <= y1; y++) {
		for (x = x0; x <= x1; x++) {
			uint32_t px = (uint32_t)img->pixels[y * img->width + x];

			putchar(px >> 24 == 0 ? '.' : px >> 24 < 255 ? '+' : (px & 0xff) < 128 ? '#' : 'o');
		}
		putchar('\n');
	}
	printf("%dx%d hot %d,%d fnv %016llx\n", x1 - x0 + 1, y1 - y0 + 1, img->xhot - x0,
	       img->yhot - y0, (unsigned long long)h);
out:
	XFree(img);
	XCloseDisplay(d);
	return 0;
}
