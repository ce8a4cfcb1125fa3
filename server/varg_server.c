/* varg-server: shares a framebuffer with Varg viewers and any VNC client. */
#include <glib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "server/vg_server.h"
#include "server/vg_tracesource.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A client that vanishes mid-write must not kill the server. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

typedef struct {
	char *trace;
	double speed;
	gboolean loop;
	int port;
	char *listen;
	int zlib_level;
	int fp_bits;
	int group_size;
	gboolean no_persist;
	char *beliefs_dir;
	int beliefs_viewers;
	int beliefs_file_mb;
	int wait_clients;
	int pace_timeout_ms;
	gboolean exit_at_end;
	char *frame_log;
	gboolean verbose;
	gboolean quiet;
} options;

static int parse_options(int argc, char **argv, options *o)
{
	GOptionEntry entries[] = {
		{ "trace", 't', 0, G_OPTION_ARG_FILENAME, &o->trace, "Play a recorded session (.vtr)", "FILE" },
		{ "speed", 's', 0, G_OPTION_ARG_DOUBLE, &o->speed, "Playback speed; 0 = as fast as the viewers take it (default 1)", "X" },
		{ "loop", 0, 0, G_OPTION_ARG_NONE, &o->loop, "Start the trace again at its end", NULL },
		{ "port", 'p', 0, G_OPTION_ARG_INT, &o->port, "TCP port (default 5900; 0 = first free from 5900)", "N" },
		{ "listen", 0, 0, G_OPTION_ARG_STRING, &o->listen, "IPv4 address to listen on (default 127.0.0.1)", "ADDR" },
		{ "zlib-level", 0, 0, G_OPTION_ARG_INT, &o->zlib_level, "zlib level of Varg updates, 0-9 (default 6)", "N" },
		{ "fp-bits", 0, 0, G_OPTION_ARG_INT, &o->fp_bits, "Optimistic fingerprint width in bits, 8-64 (default 40)", "N" },
		{ "group-size", 0, 0, G_OPTION_ARG_INT, &o->group_size, "Fingerprinted segments per SHA-1 check, 1-255 (default 20)", "N" },
		{ "no-persistent-cache", 0, 0, G_OPTION_ARG_NONE, &o->no_persist, "Ask viewers not to keep this server's segments on disk, and keep no beliefs about their caches", NULL },
		{ "beliefs-dir", 0, 0, G_OPTION_ARG_FILENAME, &o->beliefs_dir, "Keep what viewers' caches hold under DIR (default $XDG_STATE_HOME/varg/beliefs)", "DIR" },
		{ "beliefs-viewers", 0, 0, G_OPTION_ARG_INT, &o->beliefs_viewers, "Viewer caches remembered, least recently seen dropped first (default 64)", "N" },
		{ "beliefs-file-mb", 0, 0, G_OPTION_ARG_INT, &o->beliefs_file_mb, "Largest belief file of one viewer cache, in MiB (default 16)", "N" },
		{ "wait-clients", 0, 0, G_OPTION_ARG_INT, &o->wait_clients, "Start playing once N clients are connected", "N" },
		{ "pace-timeout", 0, 0, G_OPTION_ARG_INT, &o->pace_timeout_ms, "With --speed 0: longest wait for a slow client per frame (ms, default 2000)", "MS" },
		{ "exit-at-end", 0, 0, G_OPTION_ARG_NONE, &o->exit_at_end, "Exit when the trace has played and no client is connected", NULL },
		{ "frame-log", 0, 0, G_OPTION_ARG_FILENAME, &o->frame_log, "Log the time and hash of every frame played to FILE", "FILE" },
		{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &o->verbose, "Log more, including LibVNCServer's messages", NULL },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet, "Log errors only", NULL },
		{ NULL }
	};
	g_autoptr(GOptionContext) ctx = g_option_context_new("--trace FILE");
	g_autoptr(GError) error = NULL;

	g_option_context_set_summary(ctx,
		"Shares a framebuffer over RFB (VNC). Varg viewers get Varg updates;\n"
		"every other VNC client gets LibVNCServer's standard encodings.");
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
		vg_error("%s (try --help)", error->message);
		return VG_EINVAL;
	}
	if (argc > 1) {
		vg_error("unexpected argument '%s' (try --help)", argv[1]);
		return VG_EINVAL;
	}
	if (!o->trace) {
		vg_error("no source given: use --trace FILE.vtr (try --help)");
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
	if (o->zlib_level < 0 || o->zlib_level > 9) {
		vg_error("--zlib-level must be between 0 and 9");
		return VG_EINVAL;
	}
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

int main(int argc, char **argv)
{
	options o = { .speed = 1.0, .port = 5900, .zlib_level = 6, .fp_bits = 40,
		      .group_size = 20, .pace_timeout_ms = 2000, .beliefs_viewers = 64,
		      .beliefs_file_mb = 16 };
	vg_server_config cfg;
	vg_tracesource_options play;
	vg_tracesource *src = NULL;
	vg_server *srv = NULL;
	FILE *frame_log = NULL;
	vg_server_stats st;
	bool trace_failed = false;
	int err, status = 1;

	vg_log_set_prefix("varg-server");
	if (parse_options(argc, argv, &o))
		return 2;
	vg_log_set_level(o.quiet ? VG_LOG_ERROR : o.verbose ? VG_LOG_DEBUG : VG_LOG_INFO);
	install_signals();

	if ((err = vg_tracesource_open(o.trace, &src))) {
		vg_error("%s: %s", o.trace, vg_strerror(err));
		goto out;
	}
	if (o.frame_log && !(frame_log = fopen(o.frame_log, "w"))) {
		vg_error("--frame-log: cannot create '%s'", o.frame_log);
		goto out;
	}
	vg_server_config_init(&cfg);
	cfg.port = o.port;
	if (o.listen)
		cfg.listen = o.listen;
	cfg.zlib_level = o.zlib_level;
	cfg.fp_bits = (unsigned)o.fp_bits;
	cfg.group_size = (unsigned)o.group_size;
	cfg.no_persist = o.no_persist;
	cfg.beliefs_dir = o.beliefs_dir;
	cfg.beliefs_viewers = (unsigned)o.beliefs_viewers;
	cfg.beliefs_file_bytes = (size_t)o.beliefs_file_mb << 20;
	cfg.verbose = o.verbose;
	if ((err = vg_server_new(&cfg, vg_tracesource_width(src), vg_tracesource_height(src), &srv))) {
		if (err == VG_EINVAL)
			vg_error("bad listen address '%s'", cfg.listen);
		else
			vg_error("cannot listen on %s port %d", cfg.listen, o.port);
		goto out;
	}
	printf("varg-server: listening on %s:%d (%dx%d)\n", cfg.listen, vg_server_port(srv),
	       vg_tracesource_width(src), vg_tracesource_height(src));
	fflush(stdout);

	vg_tracesource_options_init(&play);
	play.speed = o.speed;
	play.loop = o.loop;
	play.pace_timeout_ms = o.pace_timeout_ms;
	play.wait_clients = o.wait_clients;
	play.progress = o.verbose;
	play.frame_log = frame_log;
	if ((err = vg_tracesource_play(src, srv, &play, &stop_requested))) {
		vg_error("%s: %s; serving the last good frame", o.trace,
			 vg_tracesource_error_text(src));
		trace_failed = true;
	}
	if (frame_log && (fflush(frame_log) != 0 || ferror(frame_log)))
		vg_error("%s: write failed", o.frame_log);
	if (!err && !stop_requested) {
		vg_info("trace played: %" G_GUINT64_FORMAT " frames; serving the last one",
			vg_tracesource_frames(src));
	}
	while (!stop_requested) {
		if (o.exit_at_end && vg_server_client_count(srv) == 0)
			break;
		g_usleep(50000);
	}
	vg_server_get_stats(srv, &st);
	vg_info("%" G_GUINT64_FORMAT " clients (%" G_GUINT64_FORMAT " Varg), %" G_GUINT64_FORMAT
		" Varg updates, %" G_GUINT64_FORMAT " Varg bytes; segments: %" G_GUINT64_FORMAT
		" as fingerprints, %" G_GUINT64_FORMAT " as pixels, %" G_GUINT64_FORMAT " repaired; %"
		G_GUINT64_FORMAT " viewers started warm",
		st.clients_total, st.varg_clients, st.varg_updates, st.varg_bytes,
		st.fingerprints, st.literals, st.repairs, st.warm_viewers);
	status = trace_failed ? 1 : 0;
out:
	if (frame_log && fclose(frame_log) != 0) {
		vg_error("%s: write failed", o.frame_log);
		status = 1;
	}
	vg_server_free(srv);
	vg_tracesource_free(src);
	g_free(o.trace);
	g_free(o.listen);
	g_free(o.beliefs_dir);
	g_free(o.frame_log);
	return status;
}
