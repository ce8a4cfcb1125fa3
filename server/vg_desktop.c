/* The desktop around the picture: input and clipboard from clients to
 * the source, the cursor shape and clipboard from the source to clients,
 * and passwords behind the guard against guessing (vg_authguard).
 */
#include <arpa/inet.h>
#include <glib.h>
#include <limits.h>
#include <rfb/rfb.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "server/vg_authguard.h"
#include "server/vg_http.h"
#include "server/vg_serverpriv.h"

/* Seconds for which cl's address may not try a password (0: it may). */
unsigned vg__auth_blocked(vg_server *s, rfbClientPtr cl)
{
	unsigned secs;

	pthread_mutex_lock(&s->guard_lock);
	secs = vg_authguard_blocked_s(s->guard, cl->host, vg_time_ns());
	pthread_mutex_unlock(&s->guard_lock);
	return secs;
}

/* LibVNCServer's password check, behind the guard: an address that is
 * blocked fails even with the right password (connections opened before
 * the block must not go on guessing), and each result is recorded. */
static rfbBool check_password(rfbClientPtr cl, const char *response, int len)
{
	vg_server *s = cl->screen->screenData;
	unsigned secs = vg__auth_blocked(s, cl);
	rfbBool ok;

	if (secs) {
		vg_warn("client %s: password refused unchecked: blocked for %u s more after failed passwords",
			cl->host, secs);
		return FALSE;
	}
	ok = rfbCheckPasswordByList(cl, response, len);
	pthread_mutex_lock(&s->guard_lock);
	if (ok)
		vg_authguard_succeeded(s->guard, cl->host);
	else
		secs = vg_authguard_failed(s->guard, cl->host, vg_time_ns());
	pthread_mutex_unlock(&s->guard_lock);
	if (!ok && secs)
		vg_warn("client %s: wrong password; this address is refused for %u s", cl->host, secs);
	else if (!ok)
		vg_warn("client %s: wrong password", cl->host);
	return ok;
}

static void on_pointer(int mask, int x, int y, rfbClientPtr cl)
{
	vg_server *s = cl->screen->screenData;

	/* Not rfbDefaultPtrAddEvent: it would move screen->cursorX/Y, which
	 * are kept off the screen (see vg__desktop_setup). */
	if (s->cfg.input.pointer)
		s->cfg.input.pointer(s->cfg.input.user, x, y, (uint8_t)mask);
}

static void on_key(rfbBool down, rfbKeySym keysym, rfbClientPtr cl)
{
	vg_server *s = cl->screen->screenData;

	if (s->cfg.input.key)
		s->cfg.input.key(s->cfg.input.user, (uint32_t)keysym, down != FALSE);
}

/* Plain RFB cut text is Latin-1. */
static void on_cut_text(char *str, int len, rfbClientPtr cl)
{
	vg_server *s = cl->screen->screenData;
	g_autofree char *utf8 = NULL;
	gsize n = 0;

	if (!s->cfg.input.cut_text || len < 0)
		return;
	utf8 = g_convert(str, len, "UTF-8", "ISO-8859-1", NULL, &n, NULL);
	if (utf8)
		s->cfg.input.cut_text(s->cfg.input.user, utf8, n);
}

static void on_cut_text_utf8(char *str, int len, rfbClientPtr cl)
{
	vg_server *s = cl->screen->screenData;

	if (s->cfg.input.cut_text && len >= 0 && g_utf8_validate(str, len, NULL))
		s->cfg.input.cut_text(s->cfg.input.user, str, (size_t)len);
}

/* Installs the input, clipboard and password hooks on a new screen. */
void vg__desktop_setup(vg_server *s, rfbScreenInfoPtr screen)
{
	int n = 0;

	screen->ptrAddEvent = on_pointer;
	screen->kbdAddEvent = on_key;
	if (!s->cfg.no_clipboard) {
		screen->setXCutText = on_cut_text;
		screen->setXCutTextUTF8 = on_cut_text_utf8;
	}
	/* LibVNCServer paints the cursor into the shared framebuffer for
	 * clients that do not take cursor shapes (rfbShowCursor, at
	 * screen->cursorX/Y); with the position far off the screen it
	 * paints nothing. Clients that take shapes get them. */
	screen->cursorX = screen->cursorY = -0x4000;
	if (s->cfg.password)
		s->passwords[n++] = g_strdup(s->cfg.password);
	if (s->cfg.view_password)
		s->passwords[n++] = g_strdup(s->cfg.view_password);
	if (n) {
		screen->authPasswdData = s->passwords;
		screen->passwordCheck = check_password;
		screen->authPasswdFirstViewOnly = s->cfg.password ? 1 : 0;
	}
}

/* Adds a leaving client's LibVNCServer counts to the totals. */
void vg__account_gone(rfbClientPtr cl)
{
	vg_server *s = cl->screen->screenData;

	pthread_mutex_lock(&s->stats_lock);
	s->gone_bytes += (uint64_t)rfbStatGetSentBytes(cl);
	s->gone_updates += (uint64_t)rfbStatGetMessageCountSent(cl, rfbFramebufferUpdate);
	pthread_mutex_unlock(&s->stats_lock);
}

int vg_server_set_cursor(vg_server *s, const vg_server_cursor *cur)
{
	rfbCursorPtr c;
	int32_t x, y, row_bytes;

	if (cur->width < 1 || cur->height < 1 || cur->width > 256 || cur->height > 256 ||
	    cur->hot_x < 0 || cur->hot_y < 0 || cur->hot_x >= cur->width || cur->hot_y >= cur->height)
		return VG_EINVAL;
	row_bytes = (cur->width + 7) / 8;
	/* malloc, not g_malloc: LibVNCServer frees these (cleanup flags). */
	c = calloc(1, sizeof *c);
	c->width = (unsigned short)cur->width;
	c->height = (unsigned short)cur->height;
	c->xhot = (unsigned short)cur->hot_x;
	c->yhot = (unsigned short)cur->hot_y;
	c->richSource = calloc((size_t)cur->width * (size_t)cur->height, 4);
	c->mask = calloc((size_t)row_bytes * (size_t)cur->height, 1);
	c->cleanup = c->cleanupMask = c->cleanupRichSource = TRUE;
	for (y = 0; y < cur->height; y++)
		for (x = 0; x < cur->width; x++) {
			uint32_t p = cur->pixels[(size_t)y * (size_t)cur->width + (size_t)x];
			uint32_t a = p >> 24, r = p >> 16 & 0xff, g = p >> 8 & 0xff, b = p & 0xff;

			/* RFB cursors have a 1-bit mask: opaque from half alpha,
			 * colours taken back out of premultiplication. */
			if (a < 0x80)
				continue;
			if (a < 0xff) {
				r = MIN(255u, r * 255 / a);
				g = MIN(255u, g * 255 / a);
				b = MIN(255u, b * 255 / a);
			}
			((uint32_t *)(void *)c->richSource)[(size_t)y * (size_t)cur->width + (size_t)x] =
				r << 16 | g << 8 | b;
			c->mask[(size_t)y * (size_t)row_bytes + (size_t)x / 8] |= (uint8_t)(0x80u >> (x % 8));
		}
	/* For clients that only take two-colour X cursors. */
	rfbMakeXCursorFromRichCursor(s->screen, c);
	rfbSetCursor(s->screen, c);
	return VG_OK;
}

void vg_server_cut_text(vg_server *s, const char *utf8, size_t len)
{
	g_autofree char *latin1 = NULL;
	g_autofree char *copy = NULL;
	gsize n = 0;

	if (s->cfg.no_clipboard || len > INT_MAX / 2)
		return;
	latin1 = g_convert_with_fallback(utf8, (gssize)len, "ISO-8859-1", "UTF-8", "?", NULL, &n, NULL);
	copy = g_malloc(len + 1);
	memcpy(copy, utf8, len);
	if (!latin1)
		latin1 = g_strdup("");
	rfbSendServerCutTextUTF8(s->screen, copy, (int)len, latin1, (int)n);
}

char *vg_server_read_password(const char *path, const char *option)
{
	struct stat sb;
	char *pw;

	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		vg_error("%s: cannot read '%s'", option, path);
		return NULL;
	}
	/* As ssh does for private keys: a VNC password file is only
	 * obscured, not encrypted, so others must not read it. */
	if (sb.st_mode & (S_IRWXG | S_IRWXO)) {
		vg_error("%s: '%s' is open to other users (mode %04o); make it private with chmod 600",
			 option, path, (unsigned)(sb.st_mode & 07777));
		return NULL;
	}
	pw = rfbDecryptPasswdFromFile((char *)path);
	if (!pw || !*pw) {
		vg_error("%s: '%s' holds no VNC password (make one with vncpasswd FILE)", option, path);
		free(pw);
		return NULL;
	}
	return pw;
}

bool vg_server_address_is_loopback(const char *addr)
{
	struct in_addr a;

	return inet_pton(AF_INET, addr, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

/* A well-formed address other machines may reach (a malformed one is
 * reported when the server tries to listen on it). */
static bool address_is_reachable(const char *addr)
{
	struct in_addr a;

	return inet_pton(AF_INET, addr, &a) == 1 && !vg_server_address_is_loopback(addr);
}

int vg_server_check_access(const char *listen, const char *password_file,
			   const char *view_password_file, bool allow_no_password)
{
	if (listen && !password_file && !allow_no_password && address_is_reachable(listen)) {
		vg_error("refusing to serve %s without a password: anyone who can reach it could see "
			 "and control this screen; use --password-file, or keep the default 127.0.0.1 "
			 "and connect through ssh -L (--allow-no-password to serve it anyway)", listen);
		return VG_EINVAL;
	}
	if (view_password_file && !password_file) {
		vg_error("--viewonly-password-file needs --password-file too");
		return VG_EINVAL;
	}
	return VG_OK;
}

int vg_server_http_option(const char *name, const char *value, void *data, void *error)
{
	char **dir = data;

	(void)name;
	(void)error;
	g_free(*dir);
	*dir = g_strdup(value ? value : VG_SERVER_HTTP_DIR);
	return TRUE;
}

int vg_server_check_http(const char *dir)
{
	g_autofree char *page = g_build_filename(dir, "vnc.html", NULL);
	g_autofree char *index = g_build_filename(dir, "index.html", NULL);

	if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
		if (strcmp(dir, VG_SERVER_HTTP_DIR) == 0)
			vg_error("--http: no noVNC in %s; install it (apt-get install novnc, or "
				 "scripts/setup) or give --http=DIR", dir);
		else
			vg_error("--http: %s is not a directory", dir);
		return VG_EINVAL;
	}
	if (!g_file_test(page, G_FILE_TEST_IS_REGULAR) && !g_file_test(index, G_FILE_TEST_IS_REGULAR))
		vg_warn("--http: %s has neither vnc.html (noVNC) nor index.html; / will not be found", dir);
	return VG_OK;
}

int vg_server_web_dirs(char *dirs[2])
{
	const char *env = g_getenv("VARG_WEB_DIR");
	g_autofree char *page = g_build_filename(VG_WEB_DIR, VG_HTTP_PAGE, NULL);

	if (env && *env) {
		dirs[0] = g_strdup(env);
		return 1;
	}
	if (g_file_test(page, G_FILE_TEST_IS_REGULAR)) {
		dirs[0] = g_strdup(VG_WEB_DIR);
		return 1;
	}
	/* Not installed: the page in the sources, the WebAssembly built. */
	dirs[0] = g_strdup(VG_WEB_SRCDIR);
	dirs[1] = g_strdup(VG_WEB_BUILDDIR);
	return 2;
}

void vg_server_print_http(const char *listen, int port, const char *dir)
{
	/* Any address: the browser needs a name for this machine. */
	const char *host = strcmp(listen, "0.0.0.0") == 0 ? g_get_host_name() : listen;

	printf("%s: browsers open http://%s:%d/ (files from %s)\n", g_get_prgname(), host, port, dir);
}
