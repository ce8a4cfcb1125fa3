/* The directories --http serves (vg_http answers the requests): the
 * option of the server programs, its check, and where Varg's own browser
 * files are.
 */
#ifndef VG_WEBDIR_H
#define VG_WEBDIR_H

#include "server/vg_serverconfig.h"

/* The directory --http serves when given none: Debian's noVNC. */
#define VG_WEBDIR_NOVNC "/usr/share/novnc"

/* The --http[=DIR] option of a server program: VG_EINVAL, logged, when
 * dir is not a directory; a warning when it has neither noVNC's vnc.html
 * nor an index.html for "/". */
int vg_webdir_check(const char *dir);

/* The GOptionArgFunc of --http[=DIR] (G_OPTION_FLAG_OPTIONAL_ARG): stores
 * DIR, or VG_WEBDIR_NOVNC without one, in the char ** that is its
 * group's user data (freeing what was there). Always TRUE. */
int vg_webdir_option(const char *name, const char *value, void *data, void *error);

/* The --http-port option beside --http (dir, NULL without it) and
 * --port: VG_EINVAL, logged, for a port without --http, out of 1..65535
 * or the RFB port itself. 0 (not given) is fine. */
int vg_webdir_check_port(const char *dir, int http_port, int port);

/* Where Varg's own browser files are (viewer/web/): $VARG_WEB_DIR if
 * set; else, for a program run from the build tree it was made in, the
 * source tree's page and the build tree's WebAssembly; else the installed
 * ones (VG_WEB_DIR, under $(pkgdatadir)), so that an installed program
 * never reads the source or build tree. Fills 1 or 2 entries of dirs
 * (free each with g_free) and returns how many. */
int vg_webdir_varg(char *dirs[2]);

/* Prints, on stdout, the addresses a browser opens for a server
 * listening on listen:port with --http=dir and TLS as tls says: http://
 * without TLS, https:// when required, both when offered. */
void vg_webdir_print(const char *listen, int port, const char *dir, vg_server_tls tls);

#endif
