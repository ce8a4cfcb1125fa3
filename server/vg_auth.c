/* Passwords behind the guard against guessing. LibVNCServer checks a
 * response against the NULL-ended list in screen->authPasswdData; that
 * list is the first member of vg_auth, so the check finds the guard
 * from the screen alone.
 */
#include <arpa/inet.h>
#include <glib.h>
#include <rfb/rfb.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "server/vg_auth.h"
#include "server/vg_authguard.h"

struct vg_auth {
	char *passwords[3];       /* first: authPasswdData; NULL-ended, full access first */
	int first_view_only;      /* index of the first view-only password */
	pthread_mutex_t lock;
	vg_authguard *guard;      /* failed passwords per address (under lock) */
};

vg_auth *vg_auth_new(const char *password, const char *view_password)
{
	vg_auth *a = g_new0(vg_auth, 1);
	int n = 0;

	if (password)
		a->passwords[n++] = g_strdup(password);
	a->first_view_only = n;
	if (view_password)
		a->passwords[n++] = g_strdup(view_password);
	pthread_mutex_init(&a->lock, NULL);
	a->guard = vg_authguard_new();
	return a;
}

void vg_auth_free(vg_auth *a)
{
	if (!a)
		return;
	g_free(a->passwords[0]);
	g_free(a->passwords[1]);
	vg_authguard_free(a->guard);
	pthread_mutex_destroy(&a->lock);
	g_free(a);
}

unsigned vg_auth_blocked(vg_auth *a, const char *host)
{
	unsigned secs;

	if (!a->passwords[0])
		return 0;
	pthread_mutex_lock(&a->lock);
	secs = vg_authguard_blocked_s(a->guard, host, vg_time_ns());
	pthread_mutex_unlock(&a->lock);
	return secs;
}

/* LibVNCServer's password check, behind the guard: an address that is
 * blocked fails even with the right password (connections opened before
 * the block must not go on guessing), and each result is recorded. */
static rfbBool check_password(rfbClientPtr cl, const char *response, int len)
{
	vg_auth *a = (vg_auth *)cl->screen->authPasswdData;
	unsigned secs = vg_auth_blocked(a, cl->host);
	rfbBool ok;

	if (secs) {
		vg_warn("client %s: password refused unchecked: blocked for %u s more after failed passwords",
			cl->host, secs);
		return FALSE;
	}
	ok = rfbCheckPasswordByList(cl, response, len);
	pthread_mutex_lock(&a->lock);
	if (ok)
		vg_authguard_succeeded(a->guard, cl->host);
	else
		secs = vg_authguard_failed(a->guard, cl->host, vg_time_ns());
	pthread_mutex_unlock(&a->lock);
	if (!ok && secs)
		vg_warn("client %s: wrong password; this address is refused for %u s", cl->host, secs);
	else if (!ok)
		vg_warn("client %s: wrong password", cl->host);
	return ok;
}

void vg_auth_install(vg_auth *a, rfbScreenInfoPtr screen)
{
	if (!a->passwords[0])
		return;
	/* The list is a's first member: check_password reads a back. */
	screen->authPasswdData = a->passwords;
	screen->passwordCheck = check_password;
	screen->authPasswdFirstViewOnly = a->first_view_only;
}

char *vg_auth_read_password(const char *path, const char *option)
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

bool vg_auth_address_is_loopback(const char *addr)
{
	struct in_addr a;

	return inet_pton(AF_INET, addr, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

/* A well-formed address other machines may reach (a malformed one is
 * reported when the server tries to listen on it). */
static bool address_is_reachable(const char *addr)
{
	struct in_addr a;

	return inet_pton(AF_INET, addr, &a) == 1 && !vg_auth_address_is_loopback(addr);
}

int vg_auth_check_access(const char *listen, const char *password_file,
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
