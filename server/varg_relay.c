/* varg-relay: one Varg connection across the WAN, shared by a site's
 * viewers. Upstream it is a Varg viewer with its own persistent cache;
 * downstream it is a server like varg-server (Varg for Varg viewers from
 * its own segmentation and beliefs, standard encodings for the rest). */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture/vg_address.h"
#include "capture/vg_passwd.h"
#include "capture/vg_via.h"
#include "common/vg_cmdline.h"
#include "common/vg_error.h"
#include "common/vg_log.h"
#include "fingerprint/cache/vg_segcache.h"
#include "fingerprint/codec/vg_zstream.h"
#include "server/vg_auth.h"
#include "server/vg_relaysource.h"
#include "server/vg_report.h"
#include "server/vg_server.h"
#include "server/vg_webdir.h"

enum { EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_AUTH = 3, EXIT_TLS = 4 };

static gint stop_requested;

static void on_signal(int sig)
{
	g_atomic_int_set(&stop_requested, sig);
}

typedef struct {
	/* The site's side, as varg-server's options. */
	char *listen;
	int port;
	char *http;
	int http_port;
	char *password_file;
	char *view_password_file;
	gboolean view_only;
	gboolean allow_no_password;
	gboolean tls;
	gboolean no_tls;
	char *tls_cert;
	char *tls_key;
	gboolean no_clipboard;
	char *beliefs_dir;
	char *pixel_model;
	vg_server_pixmodel pixmodel; /* from --pixel-model */
	int zstd_level;
	int refine_ms;
	char *stats_json;
	int stats_interval;
	/* The upstream, as varg-viewer's. */
	char *via;
	char *passwd;
	gboolean upstream_tls;
	char *upstream_tls_ca;
	char *upstream_tls_fingerprint;
	char *cache_dir;
	char *cache_size;
	gboolean no_persistent_cache;
	char *zstd_window;
	double timeout;
	gboolean no_reconnect;
	gboolean verbose;
	gboolean quiet;
	char **rest;
} options;

static int parse_options(int argc, char **argv, options *o)
{
	GOptionEntry entries[] = {
		{ "listen", 0, 0, G_OPTION_ARG_STRING, &o->listen, "IPv4 address to serve the site on (default 127.0.0.1)", "ADDR" },
		{ "http", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, (void *)vg_webdir_option, "Serve noVNC to the site's browsers (from DIR; default " VG_WEBDIR_NOVNC "); they connect over WebSocket, on the RFB port unless --http-port", "DIR" },
		{ "http-port", 0, 0, G_OPTION_ARG_INT, &o->http_port, "With --http: serve the site's browsers on port N, one of their own, and greet VNC viewers on the RFB port at once", "N" },
		{ "port", 'p', 0, G_OPTION_ARG_INT, &o->port, "TCP port for the site's viewers (default 5900; 0 = first free from 5900)", "N" },
		{ "password-file", 0, 0, G_OPTION_ARG_FILENAME, &o->password_file, "Ask the site's viewers for the VNC password in FILE (vncpasswd format)", "FILE" },
		{ "viewonly-password-file", 0, 0, G_OPTION_ARG_FILENAME, &o->view_password_file, "A second password, in FILE, for view-only access", "FILE" },
		{ "view-only", 0, 0, G_OPTION_ARG_NONE, &o->view_only, "Pass no viewer's input or clipboard upstream", NULL },
		{ "allow-no-password", 0, 0, G_OPTION_ARG_NONE, &o->allow_no_password, "Serve a --listen address other than loopback without --password-file", NULL },
		{ "tls", 0, 0, G_OPTION_ARG_NONE, &o->tls, "Require TLS (VeNCrypt X.509): offer no unencrypted security type, refuse viewers without it", NULL },
		{ "no-tls", 0, 0, G_OPTION_ARG_NONE, &o->no_tls, "Offer no TLS, only the unencrypted security type", NULL },
		{ "tls-cert", 0, 0, G_OPTION_ARG_FILENAME, &o->tls_cert, "TLS certificate (PEM; default: one made once in the state directory)", "FILE" },
		{ "tls-key", 0, 0, G_OPTION_ARG_FILENAME, &o->tls_key, "The private key of --tls-cert (PEM)", "FILE" },
		{ "no-clipboard", 0, 0, G_OPTION_ARG_NONE, &o->no_clipboard, "Do not pass the clipboard either way", NULL },
		{ "beliefs-dir", 0, 0, G_OPTION_ARG_FILENAME, &o->beliefs_dir, "Keep what the site's viewers' caches hold under DIR (default $XDG_STATE_HOME/varg/beliefs)", "DIR" },
		{ "zstd-level", 0, 0, G_OPTION_ARG_INT, &o->zstd_level, "zstd level of Varg updates to the site's viewers, 1-19 (default by the viewer's round trip: 3 under 1 ms, 9 under 5 ms, 11 beyond)", "N" },
		{ "refine-ms", 0, 0, G_OPTION_ARG_INT, &o->refine_ms, "Progressive refinement towards the site's viewers (as varg-server's; default 0: off)", "MS" },
		{ "pixel-model", 0, 0, G_OPTION_ARG_STRING, &o->pixel_model, "The pixel model towards the site's viewers (as varg-server's): auto (the default: per update, where the link's rate makes it sooner), on or off", "WHEN" },
		{ "stats-json", 0, 0, G_OPTION_ARG_FILENAME, &o->stats_json, "At exit, write the upstream's and every viewer's counts to FILE", "FILE" },
		{ "stats-interval", 0, 0, G_OPTION_ARG_INT, &o->stats_interval, "Print a status line on stderr every S seconds (default with -v: 10)", "S" },
		{ "via", 0, 0, G_OPTION_ARG_STRING, &o->via, "Reach the upstream through an SSH tunnel to GATEWAY", "GATEWAY" },
		{ "passwd", 0, 0, G_OPTION_ARG_FILENAME, &o->passwd, "The upstream's VNC password file (as vncpasswd writes)", "FILE" },
		{ "upstream-tls", 0, 0, G_OPTION_ARG_NONE, &o->upstream_tls, "Refuse an upstream that does not offer TLS (VeNCrypt); it is used whenever offered", NULL },
		{ "upstream-tls-ca", 0, 0, G_OPTION_ARG_FILENAME, &o->upstream_tls_ca, "Trust the upstream's certificate only if signed by a CA in FILE (PEM)", "FILE" },
		{ "upstream-tls-fingerprint", 0, 0, G_OPTION_ARG_STRING, &o->upstream_tls_fingerprint, "Trust only the upstream certificate with this SHA-256 fingerprint (default: the one seen first)", "SHA256" },
		{ "cache-dir", 0, 0, G_OPTION_ARG_FILENAME, &o->cache_dir, "Keep the relay's segment caches under DIR (default $XDG_CACHE_HOME/varg/relay)", "DIR" },
		{ "cache-size", 0, 0, G_OPTION_ARG_STRING, &o->cache_size, "Largest size of the upstream's cache, e.g. 500M or 20G (default 2G)", "SIZE" },
		{ "no-persistent-cache", 0, 0, G_OPTION_ARG_NONE, &o->no_persistent_cache, "Keep the upstream's segments in memory only", NULL },
		{ "zstd-window", 0, 0, G_OPTION_ARG_STRING, &o->zstd_window, "Memory for the upstream's zstd window, a power of two from 1M to 128M (default 16M)", "SIZE" },
		{ "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o->timeout, "Give up a connection the upstream has not completed within SECONDS (default 20)", "SECONDS" },
		{ "no-reconnect", 0, 0, G_OPTION_ARG_NONE, &o->no_reconnect, "Exit (status 1) when the upstream connection drops, instead of connecting again", NULL },
		{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &o->verbose, "Log more, including LibVNCServer's and LibVNCClient's messages", NULL },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet, "Log errors only", NULL },
		{ G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->rest, NULL, "UPSTREAM" },
		{ NULL }
	};
	g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
	g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;

	g_option_context_set_summary(ctx,
		"Relays a varg-server (UPSTREAM: HOST:DISPLAY or HOST::PORT, as varg-viewer\n"
		"takes it) to a site's viewers: one connection and one segment cache across\n"
		"the WAN, however many viewers. Varg viewers get Varg, other VNC clients the\n"
		"standard encodings. Listens on 127.0.0.1 unless --listen says otherwise;\n"
		"offers TLS (VeNCrypt) to the site's viewers, requires it with --tls.\n"
		"Options also take one dash (-via, -passwd) as in vncviewer.\n"
		"Exit: 0 stopped, 1 failed, 2 bad options, 3 upstream refused the password,\n"
		"4 upstream's TLS certificate not trusted (or no TLS with --upstream-tls).");
	/* The only callback, --http's, stores into o->http. */
	GOptionGroup *main_group = g_option_group_new(NULL, NULL, NULL, &o->http, NULL);

	g_option_group_add_entries(main_group, entries);
	g_option_context_set_main_group(ctx, main_group);
	vg_cmdline_double_dashes(argc, argv, entries, owned);
	if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
		vg_error("%s (try --help)", error->message);
		return VG_EINVAL;
	}
	if (!o->rest || !o->rest[0]) {
		vg_error("no upstream given, e.g. datacentre:1 or datacentre::5901 (try --help)");
		return VG_EINVAL;
	}
	if (o->rest[1]) {
		vg_error("unexpected argument '%s' (try --help)", o->rest[1]);
		return VG_EINVAL;
	}
	if (o->port < 0 || o->port > 65535) {
		vg_error("--port must be between 0 and 65535");
		return VG_EINVAL;
	}
	if (vg_auth_check_access(o->listen, o->password_file, o->view_password_file,
				   o->allow_no_password) ||
	    (o->http && vg_webdir_check(o->http)) || vg_webdir_check_port(o->http, o->http_port, o->port))
		return VG_EINVAL;
	if (o->zstd_level != VG_SERVER_ZSTD_AUTO && (o->zstd_level < 1 || o->zstd_level > 19)) {
		vg_error("--zstd-level must be between 1 and 19");
		return VG_EINVAL;
	}
	if (o->pixel_model && vg_server_pixmodel_option(o->pixel_model, &o->pixmodel))
		return VG_EINVAL;
	if (o->refine_ms < 0 || o->refine_ms > 60000) {
		vg_error("--refine-ms must be between 0 and 60000");
		return VG_EINVAL;
	}
	if (o->stats_interval < -1) {
		vg_error("--stats-interval must not be negative");
		return VG_EINVAL;
	}
	if (o->no_persistent_cache && o->cache_dir) {
		vg_error("--cache-dir and --no-persistent-cache exclude each other");
		return VG_EINVAL;
	}
	if (o->timeout < 0) {
		vg_error("--timeout must not be negative");
		return VG_EINVAL;
	}
	return VG_OK;
}

int main(int argc, char **argv)
{
	options o = { .stats_interval = -1 };
	vg_server_config cfg;
	vg_relaysource_config rc = { 0 };
	vg_relaysource *relay = NULL;
	vg_server *srv = NULL;
	vg_via *via = NULL;
	vg_report *report = NULL;
	vg_report_upstream up;
	g_autofree char *host = NULL, *upstream_host = NULL;
	int upstream_port = 0;
	g_autofree char *upstream_password = NULL;
	g_autofree char *cache_base = NULL;
	g_autofree char *cache_dir = NULL;
	char *password = NULL, *view_password = NULL;
	char why[640];
	int port, err, status = EXIT_USAGE;

	vg_log_set_prefix("varg-relay");
	vg_server_config_init(&cfg);
	o.port = cfg.port;
	o.zstd_level = cfg.zstd_level;
	o.pixmodel = cfg.pixmodel;
	o.refine_ms = (int)cfg.refine_ms;
	if (parse_options(argc, argv, &o) ||
	    vg_server_tls_options(o.tls, o.no_tls, o.tls_cert, o.tls_key, &cfg))
		goto out;
	vg_log_set_level(o.quiet ? VG_LOG_ERROR : o.verbose ? VG_LOG_DEBUG : VG_LOG_INFO);
	if (o.stats_interval < 0)
		o.stats_interval = o.verbose ? 10 : 0;
	if (vg_address_parse(o.rest[0], &host, &port)) {
		vg_error("'%s' is not a server address (HOST:DISPLAY or HOST::PORT)", o.rest[0]);
		goto out;
	}
	if (o.cache_size && vg_cmdline_parse_size(o.cache_size, &rc.cache_size)) {
		vg_error("--cache-size: '%s' is not a size such as 500M or 20G", o.cache_size);
		goto out;
	}
	rc.zstd_window_log = VG_ZSTD_WINDOW_LOG_DEFAULT;
	if (o.zstd_window && (vg_cmdline_parse_pow2(o.zstd_window, VG_ZSTD_WINDOW_LOG_MIN,
						   VG_ZSTD_WINDOW_LOG_MAX, &rc.zstd_window_log) ||
	    rc.zstd_window_log == 0)) {
		vg_error("--zstd-window: '%s' is not a power of two from 1M to 128M", o.zstd_window);
		goto out;
	}
	if (o.passwd && (err = vg_passwd_read_file(o.passwd, &upstream_password))) {
		vg_error("-passwd %s: %s", o.passwd,
			 err == VG_EFORMAT ? "not a VNC password file (vncpasswd writes them)" : "cannot read the file");
		goto out;
	}
	status = EXIT_FAILED;
	if (o.password_file && !(password = vg_auth_read_password(o.password_file, "--password-file")))
		goto out;
	if (o.view_password_file &&
	    !(view_password = vg_auth_read_password(o.view_password_file, "--viewonly-password-file")))
		goto out;
	vg_report_catch_signals(on_signal);
	if (o.via) {
		int local;

		if ((err = vg_via_start(o.via, host, port, &stop_requested, &via, &local, why, sizeof why))) {
			vg_error("-via %s: %s", o.via, why);
			goto out;
		}
		/* The upstream's certificate is known by the name the user
		 * gave, not by the tunnel's end. */
		upstream_host = host;
		upstream_port = port;
		host = g_strdup("127.0.0.1");
		port = local;
	}

	rc.host = host;
	rc.port = port;
	rc.tls_required = o.upstream_tls;
	rc.tls_ca = o.upstream_tls_ca;
	rc.tls_fingerprint = o.upstream_tls_fingerprint;
	if (o.via) {
		rc.tls_host = upstream_host;
		rc.tls_port = upstream_port;
		rc.tls_via = o.via;
	}
	rc.password = upstream_password;
	rc.verbose = o.verbose;
	rc.timeout_ms = (int)(o.timeout * 1000);
	rc.cancel = &stop_requested;
	rc.no_reconnect = o.no_reconnect;
	/* Its own cache, apart from a viewer's on the same account: both
	 * would hold the same server's segments. */
	if (!o.no_persistent_cache)
		rc.cache_dir = o.cache_dir ? o.cache_dir
			     : (cache_dir = g_build_filename(cache_base = vg_segcache_default_base_dir(),
							     "relay", NULL));
	if ((err = vg_relaysource_open(&rc, &relay, why, sizeof why))) {
		vg_error("%s: %s", o.rest[0], why);
		if (err == VG_EAUTH)
			status = EXIT_AUTH;
		else if (err == VG_ECRYPTO)
			status = EXIT_TLS;
		goto out;
	}
	vg_relaysource_input(relay, &cfg.input);
	if (o.listen)
		cfg.listen = o.listen;
	cfg.port = o.port;
	cfg.zstd_level = o.zstd_level;
	cfg.pixmodel = o.pixmodel;
	cfg.refine_ms = (unsigned)o.refine_ms;
	cfg.beliefs_dir = o.beliefs_dir;
	cfg.verbose = o.verbose;
	cfg.view_only = o.view_only;
	cfg.no_clipboard = o.no_clipboard;
	/* The upstream's updates arrive whole: nothing to wait for. */
	cfg.defer_ms = 0;
	cfg.password = password;
	cfg.view_password = view_password;
	cfg.http_root = o.http;
	cfg.http_port = o.http_port;
	if (vg_server_new(&cfg, vg_relaysource_width(relay), vg_relaysource_height(relay), &srv))
		goto out;
	printf("varg-relay: listening on %s:%d (%dx%d), relaying %s\n", cfg.listen, vg_server_port(srv),
	       vg_relaysource_width(relay), vg_relaysource_height(relay), o.rest[0]);
	vg_server_print_tls(srv, "varg-relay");
	if (o.http)
		vg_webdir_print(cfg.listen, vg_server_http_port(srv), o.http, cfg.tls);
	fflush(stdout);
	report = vg_report_start(srv, "varg-relay", o.stats_interval);

	status = 0;
	if ((err = vg_relaysource_run(relay, srv, &stop_requested))) {
		vg_error("%s", vg_relaysource_error_text(relay));
		status = err == VG_EAUTH ? EXIT_AUTH : err == VG_ECRYPTO ? EXIT_TLS : EXIT_FAILED;
	}
	vg_report_stop(report);
	vg_relaysource_get_stats(relay, &up);
	vg_info("upstream: %" G_GUINT64_FORMAT " bytes in %" G_GUINT64_FORMAT " updates over %"
		G_GUINT64_FORMAT " connection(s)", up.bytes_received, up.updates, up.connections);
	if (o.stats_json && vg_report_write_json(o.stats_json, srv, 0, &up)) {
		vg_error("--stats-json: cannot write '%s'", o.stats_json);
		status = EXIT_FAILED;
	}
out:
	/* The server first: its clients' threads post input to the relay. */
	vg_server_free(srv);
	vg_relaysource_free(relay);
	vg_via_stop(via);
	free(password);
	free(view_password);
	g_free(o.listen);
	g_free(o.pixel_model);
	g_free(o.http);
	g_free(o.password_file);
	g_free(o.tls_cert);
	g_free(o.tls_key);
	g_free(o.view_password_file);
	g_free(o.beliefs_dir);
	g_free(o.stats_json);
	g_free(o.via);
	g_free(o.passwd);
	g_free(o.upstream_tls_ca);
	g_free(o.upstream_tls_fingerprint);
	g_free(o.cache_dir);
	g_free(o.cache_size);
	g_free(o.zstd_window);
	g_strfreev(o.rest);
	return status;
}
