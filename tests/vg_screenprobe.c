/* Bench helper: logs every change of the picture in a rectangle of an X
 * screen, for scripts/live-bench.
 *   vg_screenprobe [--window ID|auto] [--size WxH]
 * watches the root window of $DISPLAY; with --window, the WxH rectangle
 * (default: the window's size) at the window's top left corner; "auto"
 * takes the largest mapped top-level window, and fails when it is smaller
 * than --size. Prints, line-buffered:
 *   origin X Y W H WINDOW
 * then one line per new picture, the first at once:
 *   T_NS HASH X Y W H
 * T_NS is CLOCK_MONOTONIC in nanoseconds when the pixels were read, HASH a
 * 64-bit checksum of the whole rectangle (hex, the low 24 bits of each
 * pixel), X Y W H the bounding box of the damage that led to the read
 * (relative to the rectangle). A read whose checksum equals the last one
 * is not logged. Runs until SIGTERM or SIGINT.
 * Only damaged rows are read and hashed again (XDamage, MIT-SHM): an idle
 * screen costs nothing. */
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XShm.h>
#include <X11/extensions/Xdamage.h>
#include <X11/extensions/Xfixes.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>

#include "common/vg_time.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t hash_row(const uint32_t *p, int n)
{
	uint64_t h = 0x9e3779b97f4a7c15u;
	int i;

	for (i = 0; i < n; i++) {
		h ^= p[i] & 0xffffffu;
		h *= 0x100000001b3u;
		h ^= h >> 29;
	}
	return h;
}

static uint64_t hash_rows(const uint64_t *rows, int n)
{
	uint64_t h = 0xcbf29ce484222325u;
	int i;

	for (i = 0; i < n; i++) {
		h ^= rows[i];
		h *= 0x100000001b3u;
		h ^= h >> 31;
	}
	return h;
}

/* The largest viewable child of the root, or None. */
static Window largest_window(Display *dpy, Window root)
{
	Window r, parent, *kids = NULL, best = None;
	unsigned n, i;
	long best_area = 0;

	if (!XQueryTree(dpy, root, &r, &parent, &kids, &n))
		return None;
	for (i = 0; i < n; i++) {
		XWindowAttributes a;

		if (!XGetWindowAttributes(dpy, kids[i], &a) || a.map_state != IsViewable || a.class != InputOutput)
			continue;
		if ((long)a.width * a.height > best_area) {
			best_area = (long)a.width * a.height;
			best = kids[i];
		}
	}
	XFree(kids);
	return best;
}

static int parse_size(const char *s, int *w, int *h)
{
	char *end;
	long a, b;

	a = strtol(s, &end, 10);
	if (end == s || *end != 'x')
		return -1;
	s = end + 1;
	b = strtol(s, &end, 10);
	if (end == s || *end || a < 1 || b < 1 || a > 16384 || b > 16384)
		return -1;
	*w = (int)a;
	*h = (int)b;
	return 0;
}

int main(int argc, char **argv)
{
	const char *window_arg = NULL;
	int want_w = 0, want_h = 0, ox = 0, oy = 0, w, h, i;
	int damage_event, damage_error, shm_major, shm_minor;
	Bool shm_pixmaps;
	Display *dpy;
	Window root, win = None;
	XWindowAttributes ra;
	XShmSegmentInfo shm;
	Damage damage;
	XserverRegion region;
	uint32_t *frame;
	uint64_t *rows, last = 0;
	int dirty_x0, dirty_y0, dirty_x1, dirty_y1;
	int first = 1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--window") && i + 1 < argc) {
			window_arg = argv[++i];
		} else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			if (parse_size(argv[++i], &want_w, &want_h)) {
				fprintf(stderr, "vg_screenprobe: --size must be WxH, not '%s'\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: vg_screenprobe [--window ID|auto] [--size WxH]\n");
			return 2;
		}
	}
	dpy = XOpenDisplay(NULL);
	if (!dpy) {
		fprintf(stderr, "vg_screenprobe: cannot open display '%s'\n", XDisplayName(NULL));
		return 1;
	}
	root = DefaultRootWindow(dpy);
	XGetWindowAttributes(dpy, root, &ra);
	w = ra.width;
	h = ra.height;
	if (window_arg) {
		Window child;
		XWindowAttributes a;

		win = strcmp(window_arg, "auto") ? (Window)strtoul(window_arg, NULL, 0) : largest_window(dpy, root);
		if (win == None || !XGetWindowAttributes(dpy, win, &a)) {
			fprintf(stderr, "vg_screenprobe: no window '%s'\n", window_arg);
			return 1;
		}
		XTranslateCoordinates(dpy, win, root, 0, 0, &ox, &oy, &child);
		w = a.width;
		h = a.height;
		if (!strcmp(window_arg, "auto") && (w < want_w || h < want_h)) {
			fprintf(stderr, "vg_screenprobe: the largest window is %dx%d, less than %dx%d\n", w, h,
				want_w, want_h);
			return 1;
		}
	}
	if (want_w) {
		w = want_w;
		h = want_h;
	}
	if (ox < 0 || oy < 0 || ox + w > ra.width || oy + h > ra.height) {
		fprintf(stderr, "vg_screenprobe: %dx%d at %d,%d is not inside the %dx%d screen\n", w, h, ox, oy,
			ra.width, ra.height);
		return 1;
	}
	if (!XDamageQueryExtension(dpy, &damage_event, &damage_error) ||
	    !XShmQueryVersion(dpy, &shm_major, &shm_minor, &shm_pixmaps)) {
		fprintf(stderr, "vg_screenprobe: the display lacks XDamage or MIT-SHM\n");
		return 1;
	}
	shm.shmid = shmget(IPC_PRIVATE, (size_t)w * (size_t)h * 4, IPC_CREAT | 0600);
	if (shm.shmid < 0) {
		fprintf(stderr, "vg_screenprobe: shmget: %s\n", strerror(errno));
		return 1;
	}
	shm.shmaddr = shmat(shm.shmid, NULL, 0);
	shmctl(shm.shmid, IPC_RMID, NULL);
	if (shm.shmaddr == (char *)-1) {
		fprintf(stderr, "vg_screenprobe: shmat: %s\n", strerror(errno));
		return 1;
	}
	shm.readOnly = False;
	XShmAttach(dpy, &shm);
	frame = calloc((size_t)w * (size_t)h, 4);
	rows = calloc((size_t)h, sizeof *rows);
	if (!frame || !rows) {
		fprintf(stderr, "vg_screenprobe: out of memory\n");
		return 1;
	}
	damage = XDamageCreate(dpy, root, XDamageReportNonEmpty);
	region = XFixesCreateRegion(dpy, NULL, 0);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("origin %d %d %d %d 0x%lx\n", ox, oy, w, h, (unsigned long)(win == None ? root : win));

	/* The first read is the whole rectangle. */
	dirty_x0 = 0, dirty_y0 = 0, dirty_x1 = w, dirty_y1 = h;
	while (!stop) {
		if (dirty_x1 > dirty_x0 && dirty_y1 > dirty_y0) {
			int dw = dirty_x1 - dirty_x0, dh = dirty_y1 - dirty_y0, y;
			XImage *img;
			uint64_t t, sum;

			img = XShmCreateImage(dpy, ra.visual, (unsigned)ra.depth, ZPixmap, shm.shmaddr, &shm,
					      (unsigned)dw, (unsigned)dh);
			if (!img || img->bits_per_pixel != 32) {
				fprintf(stderr, "vg_screenprobe: needs a 32-bit-per-pixel screen\n");
				return 1;
			}
			t = vg_time_ns();
			if (!XShmGetImage(dpy, root, img, ox + dirty_x0, oy + dirty_y0, AllPlanes)) {
				fprintf(stderr, "vg_screenprobe: XShmGetImage failed\n");
				return 1;
			}
			for (y = 0; y < dh; y++) {
				uint32_t *dst = frame + (size_t)(dirty_y0 + y) * (size_t)w + dirty_x0;

				memcpy(dst, img->data + (size_t)y * (size_t)img->bytes_per_line, (size_t)dw * 4);
				rows[dirty_y0 + y] = hash_row(frame + (size_t)(dirty_y0 + y) * (size_t)w, w);
			}
			img->data = NULL;
			XDestroyImage(img);
			sum = hash_rows(rows, h);
			if (first || sum != last)
				printf("%" PRIu64 " %016" PRIx64 " %d %d %d %d\n", t, sum, dirty_x0, dirty_y0, dw, dh);
			first = 0;
			last = sum;
		}
		dirty_x0 = w, dirty_y0 = h, dirty_x1 = 0, dirty_y1 = 0;

		/* Wait for damage, then take all that is queued. */
		if (!XPending(dpy)) {
			struct pollfd pfd = { .fd = ConnectionNumber(dpy), .events = POLLIN };

			if (poll(&pfd, 1, 200) <= 0)
				continue;
		}
		while (XPending(dpy)) {
			XEvent ev;

			XNextEvent(dpy, &ev);
			if (ev.type == damage_event + XDamageNotify) {
				XRectangle *r;
				int n, k;

				XDamageSubtract(dpy, damage, None, region);
				r = XFixesFetchRegion(dpy, region, &n);
				for (k = 0; k < n; k++) {
					int x0 = r[k].x - ox, y0 = r[k].y - oy;
					int x1 = x0 + r[k].width, y1 = y0 + r[k].height;

					if (x0 < 0)
						x0 = 0;
					if (y0 < 0)
						y0 = 0;
					if (x1 > w)
						x1 = w;
					if (y1 > h)
						y1 = h;
					if (x1 <= x0 || y1 <= y0)
						continue;
					if (x0 < dirty_x0)
						dirty_x0 = x0;
					if (y0 < dirty_y0)
						dirty_y0 = y0;
					if (x1 > dirty_x1)
						dirty_x1 = x1;
					if (y1 > dirty_y1)
						dirty_y1 = y1;
				}
				if (r)
					XFree(r);
			}
		}
	}
	XDamageDestroy(dpy, damage);
	XShmDetach(dpy, &shm);
	XCloseDisplay(dpy);
	shmdt(shm.shmaddr);
	free(frame);
	free(rows);
	return 0;
}
