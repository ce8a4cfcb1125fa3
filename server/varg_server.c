/* varg-server: shares a framebuffer with Varg viewers and any VNC client. */
#include <glib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "pipeline/vg_workers.h"
#include "server/vg_auth.h"
#include "server/vg_report.h"
#include "server/vg_server.h"
#include "server/vg_tracesource.h"
#include "server/vg_vncsource.h"
#include "server/vg_webdir.h"
#include "server/vg_xsource.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

typedef struct {
	char *trace;
	char *display;
	char *vnc;
	char *vnc_password_file;
	char *password_file;
	char *view_password_file;
	gboolean view_only;
	gboolean allow_no_password;
	gboolean tls;
	gboolean no_tls;
	char *tls_cert;
	char *tls_key;
	int fps;
	gboolean no_damage;
	gboolean no_shm;
	gboolean no_clipboard;
	char *stats_json;
	int stats_interval;
	double speed;
	gboolean loop;
	int port;
	char *listen;
	char *http;
	int http_port;
	int zstd_level;
	int refine_ms;
	int band_ms;
	int first_paint_ms;
	gboolean no_moves;
	int threads;
	char *pixel_model;
	int fp_bits;
	int group_size;
	gboolean no_persist;
	char *beliefs_dir;
	int beliefs_viewers;
	int beliefs_file_mb;
	int beliefs_save_s;
	int wait_clients;
	int pace_timeout_ms;
	gboolean exit_at_end;
	char *frame_log;
	char *update_log;
	vg_server_pixmodel pixmodel; /* from --pixel-model */
	gboolean verbose;
	gboolean quiet;
} options;

static int parse_options(int argc, char **argv, options *o)
{
	GOptionEntry entries[] = {
		{ "display", 'd', 0, G_OPTION_ARG_STRING, &o->display, "Share the X display :N (its screen, input, cursor, clipboard)", ":N" },
		{ "vnc", 0, 0, G_OPTION_ARG_STRING, &o->vnc, "Share what the VNC server at HOST:PORT shows (proxy)", "HOST:PORT" },
		{ "trace", 't', 0, G_OPTION_ARG_FILENAME, &o->trace, "Play a recorded session (.vtr)", "FILE" },
		{ "password-file", 0, 0, G_OPTION_ARG_FILENAME, &o->password_file, "Ask clients for the VNC password in FILE (vncpasswd format)", "FILE" },
		{ "viewonly-password-file", 0, 0, G_OPTION_ARG_FILENAME, &o->view_password_file, "A second password, in FILE, for view-only access", "FILE" },
		{ "view-only", 0, 0, G_OPTION_ARG_NONE, &o->view_only, "Ignore every client's input and clipboard", NULL },
		{ "allow-no-password", 0, 0, G_OPTION_ARG_NONE, &o->allow_no_password, "Serve a --listen address other than loopback without --password-file", NULL },
		{ "tls", 0, 0, G_OPTION_ARG_NONE, &o->tls, "Require TLS (VeNCrypt X.509): offer no unencrypted security type, refuse viewers without it", NULL },
		{ "no-tls", 0, 0, G_OPTION_ARG_NONE, &o->no_tls, "Offer no TLS, only the unencrypted security type", NULL },
		{ "tls-cert", 0, 0, G_OPTION_ARG_FILENAME, &o->tls_cert, "TLS certificate (PEM; default: one made once in the state directory)", "FILE" },
		{ "tls-key", 0, 0, G_OPTION_ARG_FILENAME, &o->tls_key, "The private key of --tls-cert (PEM)", "FILE" },
		{ "vnc-password-file", 0, 0, G_OPTION_ARG_FILENAME, &o->vnc_password_file, "With --vnc: the upstream server's password (vncpasswd format)", "FILE" },
		{ "fps", 0, 0, G_OPTION_ARG_INT, &o->fps, "With --display: most screen reads a second, 1-240 (default 240 with XDamage, 60 with --no-damage)", "N" },
		{ "no-damage", 0, 0, G_OPTION_ARG_NONE, &o->no_damage, "With --display: poll the whole screen instead of using XDamage", NULL },
		{ "no-shm", 0, 0, G_OPTION_ARG_NONE, &o->no_shm, "With --display: read the screen without MIT-SHM", NULL },
		{ "no-clipboard", 0, 0, G_OPTION_ARG_NONE, &o->no_clipboard, "Do not pass the clipboard either way", NULL },
		{ "stats-json", 0, 0, G_OPTION_ARG_FILENAME, &o->stats_json, "Write the server's counts to FILE at exit", "FILE" },
		{ "stats-interval", 0, 0, G_OPTION_ARG_INT, &o->stats_interval, "Print a status line on stderr every S seconds (default with -v: 10)", "S" },
		{ "speed", 's', 0, G_OPTION_ARG_DOUBLE, &o->speed, "Playback speed; 0 = as fast as the viewers take it (default 1)", "X" },
		{ "loop", 0, 0, G_OPTION_ARG_NONE, &o->loop, "Start the trace again at its end", NULL },
		{ "port", 'p', 0, G_OPTION_ARG_INT, &o->port, "TCP port (default 5900; 0 = first free from 5900)", "N" },
		{ "listen", 0, 0, G_OPTION_ARG_STRING, &o->listen, "IPv4 address to listen on (default 127.0.0.1)", "ADDR" },
		{ "http", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, (void *)vg_webdir_option, "Serve noVNC to browsers (from DIR; default " VG_WEBDIR_NOVNC "); they connect over WebSocket, on the RFB port unless --http-port", "DIR" },
		{ "http-port", 0, 0, G_OPTION_ARG_INT, &o->http_port, "With --http: serve browsers on port N, one of their own, and greet VNC viewers on the RFB port at once", "N" },
		{ "refine-ms", 0, 0, G_OPTION_ARG_INT, &o->refine_ms, "Progressive refinement for slow links: show a missed region approximately first when its exact pixels would take longer than MS on the link (100 suits a link of 0.2 MB/s and 120 ms), to viewers that take it; 0 (the default): exact pixels only", "MS" },
		{ "band-ms", 0, 0, G_OPTION_ARG_INT, &o->band_ms, "Bands for slow links: when an update's missed pixels would take longer than MS on the link (and miss --first-paint-ms), send the first MS worth at once and the rest in the next updates, so the viewer draws part of a large change early (default 60; 0: always whole updates)", "MS" },
		{ "first-paint-ms", 0, 0, G_OPTION_ARG_INT, &o->first_paint_ms, "Band only the updates that, sent whole, would reach the viewer later than MS after the screen changed, by the link's measured rate and round trip and the coding's measured time (default 200; 0: every update longer than --band-ms)", "MS" },
		{ "zstd-level", 0, 0, G_OPTION_ARG_INT, &o->zstd_level, "zstd level of Varg updates, 1-19 (default by the viewer's round trip: 3 under 1 ms, 9 under 5 ms, 11 beyond)", "N" },
		{ "fp-bits", 0, 0, G_OPTION_ARG_INT, &o->fp_bits, "Optimistic fingerprint width in bits, 8-64 (default 40)", "N" },
		{ "group-size", 0, 0, G_OPTION_ARG_INT, &o->group_size, "Fingerprinted segments per SHA-1 check, 1-255 (default 20)", "N" },
		{ "pixel-model", 0, 0, G_OPTION_ARG_STRING, &o->pixel_model, "Code literal pixels by the pixel model (a third or more fewer bytes, a few times the CPU at both ends): auto (the default: per update, where the link's rate makes it sooner), on or off", "WHEN" },
		{ "threads", 0, 0, G_OPTION_ARG_INT, &o->threads, "Threads beside each viewer's own that share the differencing and segmentation of its big updates (default: the processors less one; 0: none)", "N" },
		{ "no-moves", 0, 0, G_OPTION_ARG_NONE, &o->no_moves, "Send moved content (a scroll) as segments, never as a copy the viewer makes from its own picture", NULL },
		{ "no-persistent-cache", 0, 0, G_OPTION_ARG_NONE, &o->no_persist, "Ask viewers not to keep this server's segments on disk, and keep no beliefs about their caches", NULL },
		{ "beliefs-dir", 0, 0, G_OPTION_ARG_FILENAME, &o->beliefs_dir, "Keep what viewers' caches hold under DIR (default $XDG_STATE_HOME/varg/beliefs)", "DIR" },
		{ "beliefs-viewers", 0, 0, G_OPTION_ARG_INT, &o->beliefs_viewers, "Viewer caches remembered, least recently seen dropped first (default 64)", "N" },
		{ "beliefs-file-mb", 0, 0, G_OPTION_ARG_INT, &o->beliefs_file_mb, "Largest belief file of one viewer cache, in MiB (default 16)", "N" },
		{ "beliefs-save", 0, 0, G_OPTION_ARG_INT, &o->beliefs_save_s, "Save beliefs about a connected viewer's cache every SECONDS (default 60)", "SECONDS" },
		{ "wait-clients", 0, 0, G_OPTION_ARG_INT, &o->wait_clients, "Start playing once N clients are connected", "N" },
		{ "pace-timeout", 0, 0, G_OPTION_ARG_INT, &o->pace_timeout_ms, "With --speed 0: longest wait for a slow client per frame (ms, default 2000)", "MS" },
		{ "exit-at-end", 0, 0, G_OPTION_ARG_NONE, &o->exit_at_end, "Exit when the trace has played and no client is connected", NULL },
		{ "frame-log", 0, 0, G_OPTION_ARG_FILENAME, &o->frame_log, "Log the time and hash of every frame played to FILE", "FILE" },
		{ "update-log", 0, 0, G_OPTION_ARG_FILENAME, &o->update_log, "Log every Varg update written: when, its number, the time of the frame it shows, the pixels it approximates (scripts/wan-bench)", "FILE" },
		{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &o->verbose, "Log more, including LibVNCServer's messages", NULL },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet, "Log errors only", NULL },
		{ NULL }
	};
	g_autoptr(GOptionContext) ctx = g_option_context_new("--display :N | --vnc HOST:PORT | --trace FILE");
	g_autoptr(GError) error = NULL;

	g_option_context_set_summary(ctx,
		"Shares an X display, another VNC server's screen or a recorded trace over\n"
		"RFB (VNC). Varg viewers get Varg updates; every other VNC client gets\n"
		"LibVNCServer's standard encodings. Listens on 127.0.0.1 unless --listen\n"
		"says otherwise. TLS (VeNCrypt) is offered beside unencrypted RFB, and\n"
		"required with --tls; without --tls-cert a certificate is made once.");
	/* The only callback, --http's, stores into o->http. */
	GOptionGroup *main_group = g_option_group_new(NULL, NULL, NULL, &o->http, NULL);

	g_option_group_add_entries(main_group, entries);
	g_option_context_set_main_group(ctx, main_group);
	if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
		vg_error("%s (try --help)", error->message);
		return VG_EINVAL;
	}
	if (argc > 1) {
		vg_error("unexpected argument '%s' (try --help)", argv[1]);
		return VG_EINVAL;
	}
	if (!o->trace && !o->display && !o->vnc) {
		vg_error("no source given: share an X display with --display :N, a VNC server with "
			 "--vnc HOST:PORT, or play a recording with --trace FILE.vtr (try --help)");
		return VG_EINVAL;
	}
	if (!!o->trace + !!o->display + !!o->vnc > 1) {
		vg_error("give one source: --display, --vnc or --trace");
		return VG_EINVAL;
	}
	if (o->fps < 0 || o->fps > 240) {
		vg_error("--fps must be between 1 and 240 (0: the default)");
		return VG_EINVAL;
	}
	if (o->stats_interval < -1) {
		vg_error("--stats-interval must not be negative");
		return VG_EINVAL;
	}
	if (vg_auth_check_access(o->listen, o->password_file, o->view_password_file,
				   o->allow_no_password) ||
	    (o->http && vg_webdir_check(o->http)) || vg_webdir_check_port(o->http, o->http_port, o->port))
		return VG_EINVAL;
	if (o->vnc_password_file && !o->vnc) {
		vg_error("--vnc-password-file goes with --vnc");
		return VG_EINVAL;
	}
	if (o->speed < 0) {
		vg_error("--speed must be 0 or more");
		return VG_EINVAL;
	}
	if (o->port < 0 || o->port > 65535) {
		vg_error("--port must be between 0 and 65535");
		return VG_EINVAL;
	}
	if (o->refine_ms < 0 || o->refine_ms > 60000) {
		vg_error("--refine-ms must be between 0 and 60000");
		return VG_EINVAL;
	}
	if (o->band_ms < 0 || o->band_ms > 60000) {
		vg_error("--band-ms must be between 0 and 60000");
		return VG_EINVAL;
	}
	if (o->first_paint_ms < 0 || o->first_paint_ms > 60000) {
		vg_error("--first-paint-ms must be between 0 and 60000");
		return VG_EINVAL;
	}
	if (o->threads < 0 || o->threads >= VG_WORKERS_MAX) {
		vg_error("--threads must be between 0 and %d", VG_WORKERS_MAX - 1);
		return VG_EINVAL;
	}
	if (o->zstd_level != VG_SERVER_ZSTD_AUTO && (o->zstd_level < 1 || o->zstd_level > 19)) {
		vg_error("--zstd-level must be between 1 and 19");
		return VG_EINVAL;
	}
	if (o->pixel_model && vg_server_pixmodel_option(o->pixel_model, &o->pixmodel))
		return VG_EINVAL;
	if (o->fp_bits < 8 || o->fp_bits > 64) {
		vg_error("--fp-bits must be between 8 and 64");
		return VG_EINVAL;
	}
	if (o->group_size < 1 || o->group_size > 255) {
		vg_error("--group-size must be between 1 and 255");
		return VG_EINVAL;
	}
	if (o->beliefs_viewers < 1 || o->beliefs_viewers > 100000) {
		vg_error("--beliefs-viewers must be between 1 and 100000");
		return VG_EINVAL;
	}
	if (o->beliefs_save_s < 1 || o->beliefs_save_s > 86400) {
		vg_error("--beliefs-save must be between 1 and 86400 seconds");
		return VG_EINVAL;
	}
	if (o->beliefs_file_mb < 1 || o->beliefs_file_mb > 4096) {
		vg_error("--beliefs-file-mb must be between 1 and 4096");
		return VG_EINVAL;
	}
	if (o->no_persist && o->beliefs_dir) {
		vg_error("--beliefs-dir and --no-persistent-cache exclude each other");
		return VG_EINVAL;
	}
	if (o->wait_clients < 0 || o->pace_timeout_ms < 0) {
		vg_error("--wait-clients and --pace-timeout must not be negative");
		return VG_EINVAL;
	}
	return VG_OK;
}

/* Plays the trace as before: then serves its last frame. */
static int run_trace(vg_tracesource *src, vg_server *srv, const options *o, FILE *frame_log)
{
	vg_tracesource_options play;
	int err;

	vg_tracesource_options_init(&play);
	play.speed = o->speed;
	play.loop = o->loop;
	play.pace_timeout_ms = o->pace_timeout_ms;
	play.wait_clients = o->wait_clients;
	play.progress = o->verbose;
	play.frame_log = frame_log;
	if ((err = vg_tracesource_play(src, srv, &play, &stop_requested)))
		vg_error("%s: %s; serving the last good frame", o->trace,
			 vg_tracesource_error_text(src));
	if (frame_log && (fflush(frame_log) != 0 || ferror(frame_log)))
		vg_error("%s: write failed", o->frame_log);
	if (!err && !stop_requested) {
		vg_info("trace played: %" G_GUINT64_FORMAT " frames; serving the last one",
			vg_tracesource_frames(src));
	}
	while (!stop_requested) {
		if (o->exit_at_end && vg_server_client_count(srv) == 0)
			break;
		g_usleep(50000);
	}
	/* A trace damaged part way was served up to its last good frame; the
	 * exit status still says it failed. */
	return err;
}

int main(int argc, char **argv)
{
	options o = { .beliefs_viewers = 64, .beliefs_file_mb = 16, .beliefs_save_s = 60, .stats_interval = -1 };
	vg_server_config cfg;
	vg_xsource_options xo;
	vg_tracesource_options play;
	vg_tracesource *src = NULL;
	vg_xsource *xsrc = NULL;
	vg_vncsource *vsrc = NULL;
	vg_server *srv = NULL;
	FILE *frame_log = NULL, *update_log = NULL;
	char *password = NULL, *view_password = NULL, *vnc_password = NULL;
	vg_report *report = NULL;
	vg_server_stats st;
	int32_t width, height;
	uint64_t frames = 0;
	int err, status = 1;

	vg_log_set_prefix("varg-server");
	/* Options not given keep the defaults of the parts they set. */
	vg_server_config_init(&cfg);
	vg_xsource_options_init(&xo);
	vg_tracesource_options_init(&play);
	o.port = cfg.port;
	o.zstd_level = cfg.zstd_level;
	o.pixmodel = cfg.pixmodel;
	o.refine_ms = (int)cfg.refine_ms;
	o.band_ms = (int)cfg.band_ms;
	o.first_paint_ms = (int)cfg.first_paint_ms;
	o.threads = cfg.threads;
	o.fp_bits = (int)cfg.fp_bits;
	o.group_size = (int)cfg.group_size;
	o.fps = xo.fps;
	o.speed = play.speed;
	o.pace_timeout_ms = play.pace_timeout_ms;
	if (parse_options(argc, argv, &o) ||
	    vg_server_tls_options(o.tls, o.no_tls, o.tls_cert, o.tls_key, &cfg)) {
		status = 2;
		goto out;
	}
	vg_log_set_level(o.quiet ? VG_LOG_ERROR : o.verbose ? VG_LOG_DEBUG : VG_LOG_INFO);
	if (o.stats_interval < 0)
		o.stats_interval = o.verbose ? 10 : 0;
	vg_report_catch_signals(on_signal);

	if (o.password_file && !(password = vg_auth_read_password(o.password_file, "--password-file")))
		goto out;
	if (o.view_password_file &&
	    !(view_password = vg_auth_read_password(o.view_password_file, "--viewonly-password-file")))
		goto out;
	if (o.vnc_password_file && !(vnc_password = vg_auth_read_password(o.vnc_password_file, "--vnc-password-file")))
		goto out;
	if (o.trace) {
		if ((err = vg_tracesource_open(o.trace, &src))) {
			vg_error("%s: %s", o.trace, vg_strerror(err));
			goto out;
		}
		width = vg_tracesource_width(src);
		height = vg_tracesource_height(src);
	} else if (o.display) {
		xo.fps = o.fps;
		xo.use_damage = !o.no_damage;
		xo.use_shm = !o.no_shm;
		xo.clipboard = !o.no_clipboard;
		if (vg_xsource_open(o.display, &xo, &xsrc))
			goto out;
		width = vg_xsource_width(xsrc);
		height = vg_xsource_height(xsrc);
		vg_xsource_input(xsrc, &cfg.input);
	} else {
		if (vg_vncsource_open(o.vnc, vnc_password, &vsrc))
			goto out;
		width = vg_vncsource_width(vsrc);
		height = vg_vncsource_height(vsrc);
		vg_vncsource_input(vsrc, &cfg.input);
	}
	cfg.no_clipboard = o.no_clipboard;
	/* A screen read or an upstream update arrives whole, paced by --fps
	 * or by the upstream: LibVNCServer's wait for more changes would
	 * only delay it. A trace keeps the wait its published figures had. */
	if (!o.trace)
		cfg.defer_ms = 0;
	if (o.frame_log && !(frame_log = fopen(o.frame_log, "w"))) {
		vg_error("--frame-log: cannot create '%s'", o.frame_log);
		goto out;
	}
	if (o.update_log && !(update_log = fopen(o.update_log, "w"))) {
		vg_error("--update-log: cannot create '%s'", o.update_log);
		goto out;
	}
	cfg.update_log = update_log;
	cfg.port = o.port;
	if (o.listen)
		cfg.listen = o.listen;
	cfg.zstd_level = o.zstd_level;
	cfg.refine_ms = (unsigned)o.refine_ms;
	cfg.band_ms = (unsigned)o.band_ms;
	cfg.first_paint_ms = (unsigned)o.first_paint_ms;
	cfg.no_moves = o.no_moves;
	cfg.threads = o.threads;
	cfg.pixmodel = o.pixmodel;
	cfg.fp_bits = (unsigned)o.fp_bits;
	cfg.group_size = (unsigned)o.group_size;
	cfg.no_persist = o.no_persist;
	cfg.beliefs_dir = o.beliefs_dir;
	cfg.beliefs_viewers = (unsigned)o.beliefs_viewers;
	cfg.beliefs_file_bytes = (size_t)o.beliefs_file_mb << 20;
	cfg.beliefs_save_s = (unsigned)o.beliefs_save_s;
	cfg.verbose = o.verbose;
	cfg.view_only = o.view_only;
	cfg.password = password;
	cfg.view_password = view_password;
	cfg.http_root = o.http;
	cfg.http_port = o.http_port;
	if (vg_server_new(&cfg, width, height, &srv))
		goto out;
	printf("varg-server: listening on %s:%d (%dx%d)\n", cfg.listen, vg_server_port(srv), width, height);
	vg_server_print_tls(srv, "varg-server");
	if (o.http)
		vg_webdir_print(cfg.listen, vg_server_http_port(srv), o.http, cfg.tls);
	fflush(stdout);
	report = vg_report_start(srv, "varg-server", o.stats_interval);

	status = 0;
	if (src) {
		if (run_trace(src, srv, &o, frame_log))
			status = 1;
		frames = vg_tracesource_frames(src);
	} else if (xsrc) {
		if ((err = vg_xsource_run(xsrc, srv, &stop_requested))) {
			vg_error("%s: %s", o.display, vg_xsource_error_text(xsrc));
			status = 1;
		}
		frames = vg_xsource_frames(xsrc);
	} else if ((err = vg_vncsource_run(vsrc, srv, &stop_requested))) {
		vg_error("%s", vg_vncsource_error_text(vsrc));
		status = 1;
	}
	vg_report_stop(report);
	report = NULL;
	vg_server_get_stats(srv, &st);
	vg_info("%" G_GUINT64_FORMAT " clients (%" G_GUINT64_FORMAT " Varg), %" G_GUINT64_FORMAT
		" Varg updates, %" G_GUINT64_FORMAT " Varg bytes; segments: %" G_GUINT64_FORMAT
		" as fingerprints, %" G_GUINT64_FORMAT " as pixels, %" G_GUINT64_FORMAT " repaired; %"
		G_GUINT64_FORMAT " viewers started warm",
		st.clients_total, st.varg_clients, st.varg_updates, st.varg_bytes,
		st.fingerprints, st.literals, st.repairs, st.warm_viewers);
	if (o.stats_json && vg_report_write_json(o.stats_json, srv, frames, NULL)) {
		vg_error("--stats-json: cannot write '%s'", o.stats_json);
		status = 1;
	}
out:
	vg_report_stop(report);
	if (frame_log && fclose(frame_log) != 0) {
		vg_error("%s: write failed", o.frame_log);
		status = 1;
	}
	vg_server_free(srv);
	if (update_log && fclose(update_log) != 0) {
		vg_error("%s: write failed", o.update_log);
		status = 1;
	}
	vg_tracesource_free(src);
	vg_xsource_free(xsrc);
	vg_vncsource_free(vsrc);
	free(password);
	free(view_password);
	free(vnc_password);
	g_free(o.trace);
	g_free(o.pixel_model);
	g_free(o.display);
	g_free(o.vnc);
	g_free(o.vnc_password_file);
	g_free(o.password_file);
	g_free(o.tls_cert);
	g_free(o.tls_key);
	g_free(o.view_password_file);
	g_free(o.stats_json);
	g_free(o.listen);
	g_free(o.http);
	g_free(o.beliefs_dir);
	g_free(o.frame_log);
	g_free(o.update_log);
	return status;
}
