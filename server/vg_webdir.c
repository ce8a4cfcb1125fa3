/* The directories --http serves, and the option that names them. */
#include <glib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "server/vg_http.h"
#include "server/vg_serverconfig.h"
#include "server/vg_webdir.h"

int vg_webdir_option(const char *name, const char *value, void *data, void *error)
{
	char **dir = data;

	(void)name;
	(void)error;
	g_free(*dir);
	*dir = g_strdup(value ? value : VG_WEBDIR_NOVNC);
	return TRUE;
}

int vg_webdir_check(const char *dir)
{
	g_autofree char *page = g_build_filename(dir, "vnc.html", NULL);
	g_autofree char *index = g_build_filename(dir, "index.html", NULL);

	if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
		if (strcmp(dir, VG_WEBDIR_NOVNC) == 0)
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

int vg_webdir_check_port(const char *dir, int http_port, int port)
{
	if (!http_port)
		return VG_OK;
	if (!dir) {
		vg_error("--http-port goes with --http");
		return VG_EINVAL;
	}
	if (http_port < 1 || http_port > 65535) {
		vg_error("--http-port must be between 1 and 65535");
		return VG_EINVAL;
	}
	if (http_port == port) {
		vg_error("--http-port must differ from --port (without --http-port browsers share --port)");
		return VG_EINVAL;
	}
	return VG_OK;
}

/* Whether this program is one the build tree holds (not installed): then
 * its page is the source tree's and its WebAssembly the build tree's. */
static bool running_from_build_tree(void)
{
	g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
	size_t n = strlen(VG_WEB_BUILDTOP);

	return exe && strncmp(exe, VG_WEB_BUILDTOP, n) == 0 && exe[n] == '/';
}

int vg_webdir_varg(char *dirs[2])
{
	const char *env = g_getenv("VARG_WEB_DIR");

	if (env && *env) {
		dirs[0] = g_strdup(env);
		return 1;
	}
	if (running_from_build_tree()) {
		dirs[0] = g_strdup(VG_WEB_SRCDIR);
		dirs[1] = g_strdup(VG_WEB_BUILDDIR);
		return 2;
	}
	dirs[0] = g_strdup(VG_WEB_DIR);
	return 1;
}

void vg_webdir_print(const char *listen, int port, const char *dir, vg_server_tls tls)
{
	/* Any address: the browser needs a name for this machine. */
	const char *host = strcmp(listen, "0.0.0.0") == 0 ? g_get_host_name() : listen;
	const char *prog = g_get_prgname();

	printf("%s: browsers open %s://%s:%d/ (files from %s)\n", prog,
	       tls == VG_SERVER_TLS_REQUIRE ? "https" : "http", host, port, dir);
	if (tls == VG_SERVER_TLS_OFFER)
		printf("%s: browsers open https://%s:%d/ too (TLS, the certificate above)\n", prog, host, port);
}
