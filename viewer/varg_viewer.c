/* varg-viewer: a VNC viewer that speaks Varg to varg-server. */
#include <glib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_imgfile.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "fingerprint/vg_segcache.h"
#include "viewer/vg_address.h"
#include "viewer/vg_connection.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

typedef struct {
	gboolean headless;
	char *snapshot;
	double exit_when_idle;
	gboolean no_varg;
	char *encodings;
	char *stats_json;
	char *cache_dir;
	char *cache_size;
	gboolean no_persistent_cache;
	gboolean clear_cache;
	gboolean verbose;
	gboolean quiet;
	char **rest;
} options;

static int parse_options(int argc, char **argv, options *o)
{
	GOptionEntry entries[] = {
		{ "headless", 0, 0, G_OPTION_ARG_NONE, &o->headless, "Decode without opening a window", NULL },
		{ "snapshot", 0, 0, G_OPTION_ARG_FILENAME, &o->snapshot, "At exit, save the framebuffer as PNG", "FILE" },
		{ "exit-when-idle", 0, 0, G_OPTION_ARG_DOUBLE, &o->exit_when_idle, "Exit after SECONDS without a message from the server", "SECONDS" },
		{ "no-varg", 0, 0, G_OPTION_ARG_NONE, &o->no_varg, "Do not advertise Varg: a plain VNC viewer", NULL },
		{ "encodings", 0, 0, G_OPTION_ARG_STRING, &o->encodings, "Standard encodings to ask for, in order (e.g. \"hextile zlib\")", "LIST" },
		{ "stats-json", 0, 0, G_OPTION_ARG_FILENAME, &o->stats_json, "At exit, write statistics as JSON", "FILE" },
		{ "cache-dir", 0, 0, G_OPTION_ARG_FILENAME, &o->cache_dir, "Keep segment caches under DIR (default $XDG_CACHE_HOME/varg)", "DIR" },
		{ "cache-size", 0, 0, G_OPTION_ARG_STRING, &o->cache_size, "Largest size of one server's cache, e.g. 500M or 20G (default 2G)", "SIZE" },
		{ "no-persistent-cache", 0, 0, G_OPTION_ARG_NONE, &o->no_persistent_cache, "Keep segments in memory only", NULL },
		{ "clear-cache", 0, 0, G_OPTION_ARG_NONE, &o->clear_cache, "Empty this server's segment cache before connecting", NULL },
		{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &o->verbose, "Log more, including LibVNCClient's messages", NULL },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet, "Log errors only", NULL },
		{ G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->rest, NULL, "HOST:DISPLAY|HOST::PORT" },
		{ NULL }
	};
	g_autoptr(GOptionContext) ctx = g_option_context_new("HOST:DISPLAY | HOST::PORT");
	g_autoptr(GError) error = NULL;

	g_option_context_set_summary(ctx,
		"Connects to a VNC server. Against varg-server it receives Varg updates;\n"
		"against any other server it uses the standard encodings.");
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
		vg_error("%s (try --help)", error->message);
		return VG_EINVAL;
	}
	if (!o->rest || !o->rest[0]) {
		vg_error("no server given, e.g. localhost:1 or localhost::5901 (try --help)");
		return VG_EINVAL;
	}
	if (o->rest[1]) {
		vg_error("unexpected argument '%s' (try --help)", o->rest[1]);
		return VG_EINVAL;
	}
	if (o->exit_when_idle < 0) {
		vg_error("--exit-when-idle must not be negative");
		return VG_EINVAL;
	}
	if (!o->headless) {
		vg_error("this build has no window yet: use --headless");
		return VG_EINVAL;
	}
	return VG_OK;
}

/* Parses a size such as 512, 500K, 300M or 20G (powers of 1024). */
static int parse_size(const char *text, uint64_t *out)
{
	char *end;
	guint64 v, mult = 1;

	if (!text || !g_ascii_isdigit(*text))
		return VG_EINVAL;
	v = g_ascii_strtoull(text, &end, 10);
	switch (g_ascii_toupper(*end)) {
	case 'K': mult = 1u << 10; end++; break;
	case 'M': mult = 1u << 20; end++; break;
	case 'G': mult = 1u << 30; end++; break;
	case 'T': mult = (guint64)1 << 40; end++; break;
	case '\0': break;
	default: return VG_EINVAL;
	}
	if (g_ascii_toupper(*end) == 'B')
		end++;
	if (*end || v == 0 || v > G_MAXUINT64 / mult)
		return VG_EINVAL;
	*out = v * mult;
	return VG_OK;
}

/* Segments repaired per fingerprint received: how often the server's
 * beliefs about our cache were wrong (or its fingerprints collided). */
static double miss_rate(const vg_connection_stats *st)
{
	uint64_t fingerprints = st->cache_hits + st->cache_misses;

	return fingerprints ? (double)st->corrections / (double)fingerprints : 0.0;
}

static int write_stats(const char *path, vg_connection *c)
{
	vg_connection_stats st;
	vg_pixbuf fb = vg_connection_frame(c);
	g_autofree char *json = NULL;
	g_autoptr(GError) error = NULL;

	vg_connection_get_stats(c, &st);
	json = g_strdup_printf(
		"{\n"
		"  \"bytes_received\": %" G_GUINT64_FORMAT ",\n"
		"  \"updates\": %" G_GUINT64_FORMAT ",\n"
		"  \"encoding\": \"%s\",\n"
		"  \"rects\": { \"varg\": %" G_GUINT64_FORMAT ", \"other\": %" G_GUINT64_FORMAT " },\n"
		"  \"varg_bytes\": %" G_GUINT64_FORMAT ",\n"
		"  \"segments\": %" G_GUINT64_FORMAT ",\n"
		"  \"cache_hits\": %" G_GUINT64_FORMAT ",\n"
		"  \"cache_misses\": %" G_GUINT64_FORMAT ",\n"
		"  \"corrections\": %" G_GUINT64_FORMAT ",\n"
		"  \"miss_rate\": %.6f,\n"
		"  \"checks\": %" G_GUINT64_FORMAT ",\n"
		"  \"repairs_sent\": %" G_GUINT64_FORMAT ",\n"
		"  \"cache_persistent\": %s,\n"
		"  \"cache_entries\": %" G_GUINT64_FORMAT ",\n"
		"  \"cache_bytes_on_disk\": %" G_GUINT64_FORMAT ",\n"
		"  \"width\": %d,\n"
		"  \"height\": %d,\n"
		"  \"first_update_s\": %.3f,\n"
		"  \"last_update_s\": %.3f\n"
		"}\n",
		st.bytes_received, st.updates, vg_connection_encoding(c), st.varg_rects,
		st.other_rects, st.varg_bytes, st.segments, st.cache_hits, st.cache_misses,
		st.corrections, miss_rate(&st), st.checks, st.repairs_sent, st.cache_persistent ? "true" : "false",
		st.cache_entries, st.cache_bytes_on_disk, fb.width, fb.height, st.first_update_s, st.last_update_s);
	if (!g_file_set_contents(path, json, -1, &error)) {
		vg_error("%s", error->message);
		return VG_EIO;
	}
	return VG_OK;
}

int main(int argc, char **argv)
{
	options o = { 0 };
	vg_connection_config cfg = { 0 };
	vg_connection *conn = NULL;
	g_autofree char *host = NULL;
	g_autofree char *default_cache = NULL;
	uint64_t last_msg, cache_size = 0;
	struct sigaction sa;
	int port, n, err, status = 1;

	vg_log_set_prefix("varg-viewer");
	if (parse_options(argc, argv, &o))
		return 2;
	vg_log_set_level(o.quiet ? VG_LOG_ERROR : o.verbose ? VG_LOG_DEBUG : VG_LOG_WARN);
	if (vg_address_parse(o.rest[0], &host, &port)) {
		vg_error("'%s' is not a server address (HOST:DISPLAY or HOST::PORT)", o.rest[0]);
		return 2;
	}
	if (o.cache_size && parse_size(o.cache_size, &cache_size)) {
		vg_error("--cache-size: '%s' is not a size such as 500M or 20G", o.cache_size);
		return 2;
	}
	if (o.no_persistent_cache && o.cache_dir) {
		vg_error("--cache-dir and --no-persistent-cache exclude each other");
		return 2;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);

	cfg.host = host;
	cfg.port = port;
	cfg.varg = !o.no_varg;
	cfg.encodings = o.encodings;
	cfg.verbose = o.verbose;
	cfg.cache_size = cache_size;
	cfg.clear_cache = o.clear_cache;
	if (!o.no_persistent_cache)
		cfg.cache_dir = o.cache_dir ? o.cache_dir : (default_cache = vg_segcache_default_base_dir());
	if ((err = vg_connection_open(&cfg, &conn))) {
		vg_error("cannot connect to %s port %d", host, port);
		goto out;
	}
	last_msg = vg_time_ns();
	while (!stop_requested) {
		n = vg_connection_poll(conn, 100);
		if (n < 0 && stop_requested)
			break;  /* the signal interrupted the wait */
		if (n < 0) {
			vg_error("%s", vg_connection_error_text(conn));
			goto out;
		}
		if (n > 0)
			last_msg = vg_time_ns();
		else if (o.exit_when_idle > 0 &&
			 vg_time_ms_since(last_msg, vg_time_ns()) > o.exit_when_idle * 1000)
			break;
	}
	status = 0;
out:
	if (conn) {
		vg_pixbuf fb = vg_connection_frame(conn);
		if (o.snapshot && (err = vg_png_write(o.snapshot, &fb))) {
			vg_error("%s: %s", o.snapshot, vg_strerror(err));
			status = 1;
		}
		if (o.stats_json && write_stats(o.stats_json, conn))
			status = 1;
	}
	vg_connection_close(conn);
	g_free(o.snapshot);
	g_free(o.encodings);
	g_free(o.stats_json);
	g_free(o.cache_dir);
	g_free(o.cache_size);
	g_strfreev(o.rest);
	return status;
}
