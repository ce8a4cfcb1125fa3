/* Test helper: a LibVNCClient client that sends input and clipboard text
 * and waits for clipboard text, as a VNC viewer would.
 *   vg_vncinput [-p PASSWORD] HOST:PORT STEP...
 * Steps, run in order:
 *   move X Y         pointer to (X, Y), no button
 *   click B          button B (1..8) down and up where the pointer is
 *   key KEYSYM       key down and up (KEYSYM in hex, 0x..., or decimal)
 *   type TEXT        each ASCII character of TEXT as its keysym
 *   cut TEXT         sends TEXT as client cut text
 *   wait-cut TEXT    waits up to 10 s for server cut text equal to TEXT
 *   sleep MS
 * Exits 0 when every step worked, 1 when one failed, 3 when the server
 * refused the connection (authentication included). */
#include <rfb/rfbclient.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *password;
static char *cut_text;
static int pointer_x, pointer_y;

static char *get_password(rfbClient *client)
{
	(void)client;
	return strdup(password ? password : "");
}

static void got_cut_text(rfbClient *client, const char *text, int len)
{
	(void)client;
	free(cut_text);
	cut_text = strndup(text, (size_t)len);
}

static void quiet(const char *fmt, ...)
{
	(void)fmt;
}

/* Handles server messages for ms milliseconds. */
static int pump(rfbClient *cl, long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >= ms)
			return 0;
		n = WaitForMessage(cl, 20000);
		if (n < 0 || (n > 0 && !HandleRFBServerMessage(cl)))
			return -1;
	}
}

static int step(rfbClient *cl, char **argv, int *i, int argc)
{
	const char *s = argv[*i];

	if (!strcmp(s, "move") && *i + 2 < argc) {
		pointer_x = atoi(argv[*i + 1]);
		pointer_y = atoi(argv[*i + 2]);
		*i += 3;
		return SendPointerEvent(cl, pointer_x, pointer_y, 0) ? 0 : -1;
	}
	if (!strcmp(s, "click") && *i + 1 < argc) {
		int b = atoi(argv[*i + 1]);

		*i += 2;
		if (b < 1 || b > 8)
			return -1;
		if (!SendPointerEvent(cl, pointer_x, pointer_y, 1 << (b - 1)) || pump(cl, 50))
			return -1;
		return SendPointerEvent(cl, pointer_x, pointer_y, 0) ? 0 : -1;
	}
	if (!strcmp(s, "key") && *i + 1 < argc) {
		uint32_t k = (uint32_t)strtoul(argv[*i + 1], NULL, 0);

		*i += 2;
		if (!SendKeyEvent(cl, k, TRUE) || pump(cl, 20))
			return -1;
		return SendKeyEvent(cl, k, FALSE) ? 0 : -1;
	}
	if (!strcmp(s, "type") && *i + 1 < argc) {
		const char *p;

		for (p = argv[*i + 1]; *p; p++) {
			if (!SendKeyEvent(cl, (uint32_t)(unsigned char)*p, TRUE) ||
			    !SendKeyEvent(cl, (uint32_t)(unsigned char)*p, FALSE) || pump(cl, 20))
				return -1;
		}
		*i += 2;
		return 0;
	}
	if (!strcmp(s, "cut") && *i + 1 < argc) {
		*i += 2;
		return SendClientCutText(cl, argv[*i - 1], (int)strlen(argv[*i - 1])) ? 0 : -1;
	}
	if (!strcmp(s, "wait-cut") && *i + 1 < argc) {
		int t;

		for (t = 0; t < 500; t++) {
			if (cut_text && !strcmp(cut_text, argv[*i + 1])) {
				*i += 2;
				return 0;
			}
			if (pump(cl, 20))
				return -1;
		}
		fprintf(stderr, "vg_vncinput: no cut text '%s' (last: '%s')\n", argv[*i + 1],
			cut_text ? cut_text : "");
		return -1;
	}
	if (!strcmp(s, "sleep") && *i + 1 < argc) {
		*i += 2;
		return pump(cl, atol(argv[*i - 1]));
	}
	fprintf(stderr, "vg_vncinput: bad step '%s'\n", s);
	return -1;
}

int main(int argc, char **argv)
{
	rfbClient *cl;
	int i = 1, one = 1;
	char *host, *colon;

	if (argc > 2 && !strcmp(argv[1], "-p")) {
		password = argv[2];
		i = 3;
	}
	if (i >= argc || !(colon = strrchr(argv[i], ':'))) {
		fprintf(stderr, "usage: vg_vncinput [-p PASSWORD] HOST:PORT STEP...\n");
		return 2;
	}
	rfbClientLog = rfbClientErr = quiet;
	cl = rfbGetClient(8, 3, 4);
	host = strndup(argv[i], (size_t)(colon - argv[i]));
	free(cl->serverHost);
	cl->serverHost = host;
	cl->serverPort = atoi(colon + 1);
	cl->GetPassword = get_password;
	cl->GotXCutText = got_cut_text;
	if (!rfbInitClient(cl, &one, NULL))
		return 3;
	for (i++; i < argc;)
		if (step(cl, argv, &i, argc)) {
			free(cl->frameBuffer);
			rfbClientCleanup(cl);
			free(cut_text);
			return 1;
		}
	/* Let the server take the last events before the connection ends. */
	pump(cl, 200);
	/* LibVNCClient leaves its framebuffer to the caller. */
	free(cl->frameBuffer);
	rfbClientCleanup(cl);
	free(cut_text);
	return 0;
}
