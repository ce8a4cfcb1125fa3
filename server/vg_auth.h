/* Who may connect: a screen's VNC passwords, checked behind the guard
 * against guessing (vg_authguard), and the access options of the server
 * programs.
 */
#ifndef VG_AUTH_H
#define VG_AUTH_H

#include <stdbool.h>

struct _rfbScreenInfo;

typedef struct vg_auth vg_auth;

/* The passwords of one screen: password gives full access, view_password
 * view-only access (either NULL: none). Both are copied. Free with vg_auth_free. */
vg_auth *vg_auth_new(const char *password, const char *view_password);

/* Frees a; accepts NULL. Only after the screen it was installed on. */
void vg_auth_free(vg_auth *a);

/* Makes LibVNCServer ask the screen's clients for a password, checked
 * behind the guard: an address that failed too often fails even with the
 * right one until its block ends. Without passwords does nothing. */
void vg_auth_install(vg_auth *a, struct _rfbScreenInfo *screen);

/* Seconds for which host may not try a password (0: it may, or there
 * are no passwords). Any thread. */
unsigned vg_auth_blocked(vg_auth *a, const char *host);

/* A VNC password from a file written by vncpasswd (TigerVNC) or
 * x11vnc -storepasswd: its first 8 bytes, DES-obscured. NULL (logged,
 * naming option) when it cannot be read, or when others may read the
 * file. Free with free(). */
char *vg_auth_read_password(const char *path, const char *option);

/* Whether an IPv4 listen address is loopback. */
bool vg_auth_address_is_loopback(const char *addr);

/* The access options of a server program (--listen, --password-file,
 * --viewonly-password-file, --allow-no-password; NULL or false when not
 * given): VG_EINVAL, logged, for a reachable address without a password
 * unless allowed, and for a view-only password without a full one. */
int vg_auth_check_access(const char *listen, const char *password_file,
			 const char *view_password_file, bool allow_no_password);

#endif
