/* Test helper for capture/vg_xcapture on a live display ($DISPLAY), run by
 * test_record.sh after it moved the pointer to X Y:
 *   vg_xcapture_check X Y
 * checks that a first grab reports the whole screen, a second one with
 * nothing drawn in between reports nothing, both with XDamage and by
 * polling, and that the XFixes cursor is an image at (X, Y). Prints one
 * line per failed check; exit status 1 if any failed. */
#include <stdio.h>
#include <stdlib.h>

#include "common/vg_error.h"
#include "capture/vg_xcapture.h"

static int failed;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("# failed: %s\n", what);
		failed = 1;
	}
}

int main(int argc, char **argv)
{
	int pass;

	if (argc != 3) {
		fprintf(stderr, "usage: vg_xcapture_check X Y\n");
		return 2;
	}
	for (pass = 0; pass < 2; pass++) {
		vg_xcapture_options o;
		vg_xcapture *c;
		vg_pixbuf *fb;
		vg_rect *rects;
		vg_xcursor cur;
		size_t n, cap;
		int err;

		vg_xcapture_options_init(&o);
		o.use_damage = pass == 0;
		if ((err = vg_xcapture_open(NULL, &o, &c))) {
			printf("# failed: open: %s\n", vg_strerror(err));
			return 1;
		}
		check(vg_xcapture_has_damage(c) == (pass == 0), "XDamage in use as asked");
		fb = vg_pixbuf_new(vg_xcapture_width(c), vg_xcapture_height(c));
		cap = vg_xcapture_max_rects(c);
		rects = calloc(cap, sizeof *rects);
		check(vg_xcapture_is_dirty(c), "dirty before the first grab");
		check(vg_xcapture_grab(c, fb, rects, cap, &n) == VG_OK && n == 1 &&
		      rects[0].w == fb->width && rects[0].h == fb->height, "first grab is the whole screen");
		check(vg_xcapture_process(c) == VG_OK, "process");
		check(vg_xcapture_grab(c, fb, rects, cap, &n) == VG_OK && n == 0, "nothing changed, nothing reported");
		check(vg_xcapture_grab(c, fb, rects, cap - 1, &n) == VG_ENOSPC, "short rect array refused");
		check(vg_xcapture_cursor(c, &cur) == VG_OK, "cursor through XFixes");
		check(cur.x == atoi(argv[1]) && cur.y == atoi(argv[2]), "cursor position");
		check(cur.width > 0 && cur.height > 0 && cur.pixels != NULL, "cursor image");
		check(cur.hot_x < cur.width && cur.hot_y < cur.height, "hotspot inside the image");
		free(rects);
		vg_pixbuf_free(fb);
		vg_xcapture_free(c);
	}
	return failed;
}
