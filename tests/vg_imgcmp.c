/* Test helper: compares two image files (PNG or PPM) pixel by pixel.
 *   vg_imgcmp A B [MAX_MEAN_DIFF]
 * Exit 0 when both have the same size and the mean absolute channel
 * difference is at most MAX_MEAN_DIFF (default 0: identical). */
#include <stdio.h>
#include <stdlib.h>

#include "common/vg_error.h"
#include "common/vg_imgfile.h"

int main(int argc, char **argv)
{
	vg_pixbuf *a = NULL, *b = NULL;
	double limit = argc > 3 ? atof(argv[3]) : 0, sum = 0, mean;
	uint64_t differing = 0;
	int32_t x, y;
	int err, status = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: vg_imgcmp A B [MAX_MEAN_DIFF]\n");
		return 2;
	}
	if ((err = vg_image_read(argv[1], &a)) || (err = vg_image_read(argv[2], &b))) {
		fprintf(stderr, "vg_imgcmp: %s\n", vg_strerror(err));
		goto out;
	}
	if (a->width != b->width || a->height != b->height) {
		fprintf(stderr, "vg_imgcmp: sizes differ: %dx%d vs %dx%d\n", a->width, a->height,
			b->width, b->height);
		goto out;
	}
	for (y = 0; y < a->height; y++)
		for (x = 0; x < a->width; x++) {
			uint32_t p = vg_pixbuf_row(a, y)[x], q = vg_pixbuf_row(b, y)[x];
			int i, d = 0;
			for (i = 0; i < 24; i += 8)
				d += abs((int)((p >> i) & 0xff) - (int)((q >> i) & 0xff));
			sum += d;
			differing += d != 0;
		}
	mean = sum / 3 / ((double)a->width * a->height);
	printf("%llu pixels differ, mean channel difference %.4f\n", (unsigned long long)differing, mean);
	status = mean <= limit ? 0 : 1;
out:
	vg_pixbuf_free(a);
	vg_pixbuf_free(b);
	return status;
}
