/* Bench helper: plays a script of input on $DISPLAY through XTest, as a
 * person's hand would, for scripts/live-bench.
 *   vg_inputplay [--origin X,Y] SCRIPT
 * Coordinates in SCRIPT are relative to X,Y (default 0,0). One command a
 * line; # starts a comment:
 *   pause MS           wait (not an action)
 *   move X Y           put the pointer at X Y (not an action)
 *   key NAME           press and release a key (an X keysym name: Next, b)
 *   wheel up|down      one notch of the wheel where the pointer is
 *   click X Y          press and release button 1 at X Y
 *   drag X0 Y0 X1 Y1   press at X0 Y0, move in 6 steps 40 ms apart, release
 * Prints, line-buffered, one line per action when its first event is sent:
 *   T_NS N COMMAND...
 * (CLOCK_MONOTONIC nanoseconds, N from 1), then "done". Exit 1 on a bad
 * script line or a key the keyboard map lacks. */
#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/vg_time.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

static void move(Display *dpy, int x, int y)
{
	XTestFakeMotionEvent(dpy, -1, x, y, CurrentTime);
	XSync(dpy, False);
}

static void button(Display *dpy, unsigned b, Bool down)
{
	XTestFakeButtonEvent(dpy, b, down, CurrentTime);
	XSync(dpy, False);
}

int main(int argc, char **argv)
{
	int ox = 0, oy = 0, n = 0, lineno = 0;
	const char *path = NULL;
	char line[256];
	Display *dpy;
	FILE *f;
	int i, ev, err, major, minor;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--origin") && i + 1 < argc) {
			if (sscanf(argv[++i], "%d,%d", &ox, &oy) != 2) {
				fprintf(stderr, "vg_inputplay: --origin must be X,Y\n");
				return 2;
			}
		} else if (!path && argv[i][0] != '-') {
			path = argv[i];
		} else {
			path = NULL;
			break;
		}
	}
	if (!path) {
		fprintf(stderr, "usage: vg_inputplay [--origin X,Y] SCRIPT\n");
		return 2;
	}
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		return 1;
	}
	dpy = XOpenDisplay(NULL);
	if (!dpy) {
		fprintf(stderr, "vg_inputplay: cannot open display '%s'\n", XDisplayName(NULL));
		return 1;
	}
	if (!XTestQueryExtension(dpy, &ev, &err, &major, &minor)) {
		fprintf(stderr, "vg_inputplay: the display lacks XTest\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof line, f)) {
		char cmd[32], arg[64];
		int a, b, c, d, k;
		uint64_t t;

		lineno++;
		line[strcspn(line, "#\n")] = '\0';
		if (sscanf(line, "%31s", cmd) != 1)
			continue;
		if (!strcmp(cmd, "pause") && sscanf(line, "%*s %d", &a) == 1) {
			sleep_ms(a);
			continue;
		}
		if (!strcmp(cmd, "move") && sscanf(line, "%*s %d %d", &a, &b) == 2) {
			move(dpy, ox + a, oy + b);
			continue;
		}
		t = vg_time_ns();
		if (!strcmp(cmd, "key") && sscanf(line, "%*s %63s", arg) == 1) {
			KeySym sym = XStringToKeysym(arg);
			KeyCode code = sym == NoSymbol ? 0 : XKeysymToKeycode(dpy, sym);

			if (!code) {
				fprintf(stderr, "vg_inputplay: %s:%d: no key '%s' on this keyboard\n", path, lineno, arg);
				return 1;
			}
			t = vg_time_ns();
			XTestFakeKeyEvent(dpy, code, True, CurrentTime);
			XSync(dpy, False);
			sleep_ms(30);
			XTestFakeKeyEvent(dpy, code, False, CurrentTime);
			XSync(dpy, False);
		} else if (!strcmp(cmd, "wheel") && sscanf(line, "%*s %63s", arg) == 1 &&
			   (!strcmp(arg, "up") || !strcmp(arg, "down"))) {
			unsigned btn = !strcmp(arg, "up") ? 4 : 5;

			button(dpy, btn, True);
			button(dpy, btn, False);
		} else if (!strcmp(cmd, "click") && sscanf(line, "%*s %d %d", &a, &b) == 2) {
			move(dpy, ox + a, oy + b);
			t = vg_time_ns();
			button(dpy, 1, True);
			sleep_ms(40);
			button(dpy, 1, False);
		} else if (!strcmp(cmd, "drag") && sscanf(line, "%*s %d %d %d %d", &a, &b, &c, &d) == 4) {
			move(dpy, ox + a, oy + b);
			sleep_ms(40);
			t = vg_time_ns();
			button(dpy, 1, True);
			for (k = 1; k <= 6; k++) {
				sleep_ms(40);
				move(dpy, ox + a + (c - a) * k / 6, oy + b + (d - b) * k / 6);
			}
			button(dpy, 1, False);
		} else {
			fprintf(stderr, "vg_inputplay: %s:%d: cannot read '%s'\n", path, lineno, line);
			return 1;
		}
		printf("%" PRIu64 " %d %s\n", t, ++n, line);
	}
	printf("done\n");
	fclose(f);
	XCloseDisplay(dpy);
	return 0;
}
