/* varg-viewer: a VNC viewer that speaks Varg to varg-server. */
#include <errno.h>
#include <glib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/vg_cmdline.h"
#include "common/vg_error.h"
#include "common/vg_imgfile.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "fingerprint/cache/vg_segcache.h"
#include "fingerprint/codec/vg_zstream.h"
#include "capture/vg_address.h"
#include "capture/vg_connection.h"
#include "capture/vg_tls.h"
#include "viewer/vg_framelog.h"
#include "capture/vg_passwd.h"
#include "viewer/vg_recorder.h"
#include "viewer/vg_session.h"
#include "capture/vg_via.h"
#include "viewer/vg_window.h"

/* Exit codes (doc/varg-viewer.1). */
enum { EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_AUTH = 3, EXIT_UNTRUSTED = 4 };

#ifndef VG_OVERLAY_FONT
#define VG_OVERLAY_FONT "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
#endif

/* The signal that asked the viewer to stop, or 0. Every wait looks at it:
 * the connect and handshake (vg_dial), the -via tunnel, the window's and
 * the headless loop. */
static gint stop_requested;

/* GLib's atomics are lock-free, so safe in a handler, and the threads
 * that look at the flag see the write. */
static void on_signal(int sig)
{
	int saved = errno;

	g_atomic_int_set(&stop_requested, sig);
	errno = saved;
}

typedef struct {
	gboolean headless;
	char *snapshot;
	double exit_when_idle;
	gboolean no_varg;
	char *encodings;
	char *stats_json;
	char *frame_log;
	char *record;
	char *cache_dir;
	char *cache_size;
	char *zstd_window;
	gboolean lossless_only;
	gboolean lean;
	gboolean no_persistent_cache;
	gboolean clear_cache;
	int requests;
	gboolean verbose;
	gboolean quiet;
	char *via;
	char *passwd;
	gboolean tls;
	char *tls_ca;
	char *tls_fingerprint;
	gboolean viewonly;
	gboolean fullscreen;
	char *scaling;
	gboolean stats;
	gboolean no_reconnect;
	double timeout;
	char **rest;
} options;

static int parse_options(int argc, char **argv, options *o)
{
	GOptionEntry entries[] = {
		{ "via", 0, 0, G_OPTION_ARG_STRING, &o->via, "Reach the server through an SSH tunnel to GATEWAY", "GATEWAY" },
		{ "passwd", 0, 0, G_OPTION_ARG_FILENAME, &o->passwd, "VNC password file (as vncpasswd writes)", "FILE" },
		{ "tls", 0, 0, G_OPTION_ARG_NONE, &o->tls, "Refuse a server that does not offer TLS (VeNCrypt); without it TLS is used whenever offered", NULL },
		{ "tls-ca", 0, 0, G_OPTION_ARG_FILENAME, &o->tls_ca, "Trust the server's certificate only if one of these CA certificates (PEM) signed it", "FILE" },
		{ "tls-fingerprint", 0, 0, G_OPTION_ARG_STRING, &o->tls_fingerprint, "Trust only the certificate with this SHA-256 fingerprint (as openssl x509 -fingerprint -sha256 prints it)", "SHA256" },
		{ "viewonly", 0, 0, G_OPTION_ARG_NONE, &o->viewonly, "Send no keys, pointer or clipboard", NULL },
		{ "fullscreen", 0, 0, G_OPTION_ARG_NONE, &o->fullscreen, "Start full screen (F8 then f toggles)", NULL },
		{ "scaling", 0, 0, G_OPTION_ARG_STRING, &o->scaling, "Scale to fit the window: smooth (default) or nearest", "MODE" },
		{ "stats", 0, 0, G_OPTION_ARG_NONE, &o->stats, "Show the statistics overlay (F8 then s toggles)", NULL },
		{ "no-reconnect", 0, 0, G_OPTION_ARG_NONE, &o->no_reconnect, "Exit when the connection drops", NULL },
		{ "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o->timeout, "Give up a connection the server has not completed within SECONDS (default 20; a password prompt does not count)", "SECONDS" },
		{ "headless", 0, 0, G_OPTION_ARG_NONE, &o->headless, "Decode without opening a window", NULL },
		{ "snapshot", 0, 0, G_OPTION_ARG_FILENAME, &o->snapshot, "At exit, save the framebuffer as PNG", "FILE" },
		{ "exit-when-idle", 0, 0, G_OPTION_ARG_DOUBLE, &o->exit_when_idle, "Exit after SECONDS without a message from the server", "SECONDS" },
		{ "no-varg", 0, 0, G_OPTION_ARG_NONE, &o->no_varg, "Do not advertise Varg: a plain VNC viewer", NULL },
		{ "encodings", 0, 0, G_OPTION_ARG_STRING, &o->encodings, "Standard encodings to ask for, in order (e.g. \"hextile zlib\")", "LIST" },
		{ "stats-json", 0, 0, G_OPTION_ARG_FILENAME, &o->stats_json, "At exit, write statistics as JSON", "FILE" },
		{ "frame-log", 0, 0, G_OPTION_ARG_FILENAME, &o->frame_log, "Log the time and framebuffer hash of every update to FILE (--headless)", "FILE" },
		{ "record", 0, 0, G_OPTION_ARG_FILENAME, &o->record, "Record what the viewer shows, the input sent and the cursor shapes as a trace (varg-trace info FILE)", "FILE.vtr" },
		{ "cache-dir", 0, 0, G_OPTION_ARG_FILENAME, &o->cache_dir, "Keep segment caches under DIR (default $XDG_CACHE_HOME/varg)", "DIR" },
		{ "zstd-window", 0, 0, G_OPTION_ARG_STRING, &o->zstd_window, "Memory for the server's zstd window, a power of two from 1M to 128M (default 16M)", "SIZE" },
		{ "lossless-only", 0, 0, G_OPTION_ARG_NONE, &o->lossless_only, "Never show a region approximately while its exact pixels are on the way (the server does so on slow links)", NULL },
		{ "lean", 0, 0, G_OPTION_ARG_NONE, &o->lean, "Keep no pixel model (about 8 MB): the server codes new pixels by the literal methods only", NULL },
		{ "cache-size", 0, 0, G_OPTION_ARG_STRING, &o->cache_size, "Largest size of one server's cache, e.g. 500M or 20G (default 2G)", "SIZE" },
		{ "no-persistent-cache", 0, 0, G_OPTION_ARG_NONE, &o->no_persistent_cache, "Keep segments in memory only", NULL },
		{ "clear-cache", 0, 0, G_OPTION_ARG_NONE, &o->clear_cache, "Empty this server's segment cache before connecting", NULL },
		{ "requests", 0, 0, G_OPTION_ARG_INT, &o->requests, "Update requests kept in flight, 1 to 8 (default 3): the server may send that many updates without waiting for the next request", "N" },
		{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &o->verbose, "Log more, including LibVNCClient's messages", NULL },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet, "Log errors only", NULL },
		{ G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->rest, NULL, "HOST:DISPLAY|HOST::PORT" },
		{ NULL }
	};
	g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
	g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	uint8_t fp[VG_TLS_FP_LEN];

	g_option_context_set_summary(ctx,
		"Connects to a VNC server. Against varg-server it receives Varg updates;\n"
		"against any other server it uses the standard encodings. In the window,\n"
		"F8 then f: full screen, s: statistics, z: scaling, F8: send F8.\n"
		"Options also take one dash (-via, -passwd, -viewonly) as in vncviewer.\n"
		"TLS is used whenever the server offers it; without --tls-ca or\n"
		"--tls-fingerprint the first certificate a server shows is remembered\n"
		"and a different one later stops the connection.\n"
		"Exit: 0 stopped, 1 connection failed, 2 bad options, 3 password refused,\n"
		"4 TLS failed or server not trusted (certificate, or no TLS with --tls),\n"
		"128+N stopped by signal N before a connection stood.");
	g_option_context_add_main_entries(ctx, entries, NULL);
	vg_cmdline_double_dashes(argc, argv, entries, owned);
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
	if (o->requests == 0)
		o->requests = 3;
	if (o->requests < 1 || o->requests > 8) {
		vg_error("--requests must be from 1 to 8");
		return VG_EINVAL;
	}
	if (o->timeout == 0)
		o->timeout = 20;
	if (o->timeout < 0.1 || o->timeout > 3600) {
		vg_error("--timeout must be from 0.1 to 3600 seconds");
		return VG_EINVAL;
	}
	if (o->exit_when_idle < 0) {
		vg_error("--exit-when-idle must not be negative");
		return VG_EINVAL;
	}
	if (o->tls_fingerprint && vg_tls_fingerprint_parse(o->tls_fingerprint, fp)) {
		vg_error("--tls-fingerprint: '%s' is not a SHA-256 fingerprint (64 hex digits, colons allowed)",
			 o->tls_fingerprint);
		return VG_EINVAL;
	}
	if (o->tls_ca && !g_file_test(o->tls_ca, G_FILE_TEST_IS_REGULAR)) {
		vg_error("--tls-ca: '%s' is not a file", o->tls_ca);
		return VG_EINVAL;
	}
	if (o->scaling && strcmp(o->scaling, "smooth") != 0 && strcmp(o->scaling, "nearest") != 0) {
		vg_error("--scaling must be smooth or nearest, not '%s'", o->scaling);
		return VG_EINVAL;
	}
	return VG_OK;
}

/* Segments repaired per fingerprint received: how often the server's
 * beliefs about our cache were wrong (or its fingerprints collided). */
static double miss_rate(const vg_connection_stats *st)
{
	uint64_t fingerprints = st->cache_hits + st->cache_misses;

	return fingerprints ? (double)st->corrections / (double)fingerprints : 0.0;
}

static int write_stats(const char *path, const vg_connection_stats *stp, const char *encoding,
		       int width, int height)
{
	vg_connection_stats st = *stp;
	g_autofree char *json = NULL, *tls = NULL;
	g_autoptr(GError) error = NULL;

	if (st.encrypted)
		tls = g_strdup_printf("{ \"version\": \"%s\", \"cipher\": \"%s\", \"fingerprint\": \"%s\", "
				      "\"trust\": \"%s\" }",
				      st.tls_version, st.tls_cipher, st.tls_fingerprint, st.tls_trust);
	json = g_strdup_printf(
		"{\n"
		"  \"bytes_received\": %" G_GUINT64_FORMAT ",\n"
		"  \"encrypted\": %s,\n"
		"  \"tls\": %s,\n"
		"  \"updates\": %" G_GUINT64_FORMAT ",\n"
		"  \"encoding\": \"%s\",\n"
		"  \"rects\": { \"varg\": %" G_GUINT64_FORMAT ", \"other\": %" G_GUINT64_FORMAT " },\n"
		"  \"varg_bytes\": %" G_GUINT64_FORMAT ",\n"
		"  \"cursors\": { \"varg\": %" G_GUINT64_FORMAT ", \"rich\": %" G_GUINT64_FORMAT " },\n"
		"  \"segments\": %" G_GUINT64_FORMAT ",\n"
		"  \"repeats\": %" G_GUINT64_FORMAT ",\n"
		"  \"moves\": %" G_GUINT64_FORMAT ",\n"
		"  \"moved_pixels\": %" G_GUINT64_FORMAT ",\n"
		"  \"history_restored\": %" G_GUINT64_FORMAT ",\n"
		"  \"cache_hits\": %" G_GUINT64_FORMAT ",\n"
		"  \"cache_misses\": %" G_GUINT64_FORMAT ",\n"
		"  \"corrections\": %" G_GUINT64_FORMAT ",\n"
		"  \"miss_rate\": %.6f,\n"
		"  \"checks\": %" G_GUINT64_FORMAT ",\n"
		"  \"repairs_sent\": %" G_GUINT64_FORMAT ",\n"
		"  \"owed_pixels\": %" G_GUINT64_FORMAT ",\n"
		"  \"approx\": { \"messages\": %" G_GUINT64_FORMAT ", \"pixels_now\": %" G_GUINT64_FORMAT
		", \"periods\": %" G_GUINT64_FORMAT ", \"max_ms\": %.1f, \"total_ms\": %.1f },\n"
		"  \"zstd_window_log\": %u,\n"
		"  \"coded_ahead\": %s,\n"
		"  \"model_updates\": %" G_GUINT64_FORMAT ",\n"
		"  \"cache_persistent\": %s,\n"
		"  \"cache_entries\": %" G_GUINT64_FORMAT ",\n"
		"  \"cache_bytes_on_disk\": %" G_GUINT64_FORMAT ",\n"
		"  \"width\": %d,\n"
		"  \"height\": %d,\n"
		"  \"first_update_s\": %.3f,\n"
		"  \"last_update_s\": %.3f,\n"
		"  \"raw_bytes\": %" G_GUINT64_FORMAT ",\n"
		"  \"rtt_ms\": %.3f\n"
		"}\n",
		st.bytes_received, st.encrypted ? "true" : "false", tls ? tls : "null", st.updates, encoding,
		st.varg_rects,
		st.other_rects, st.varg_bytes, st.cursors, st.rich_cursors, st.segments, st.repeats, st.moves, st.moved_pixels, st.history_restored, st.cache_hits, st.cache_misses,
		st.corrections, miss_rate(&st), st.checks, st.repairs_sent, st.owed_pixels,
		st.approx_messages, st.approx_pixels, st.approx_periods, st.approx_max_ms, st.approx_total_ms,
		st.zstd_window_log, st.coded_ahead ? "true" : "false", st.model_updates,
		st.cache_persistent ? "true" : "false",
		st.cache_entries, st.cache_bytes_on_disk, width, height, st.first_update_s, st.last_update_s,
		st.raw_bytes, st.rtt_ms);
	if (!g_file_set_contents(path, json, -1, &error)) {
		vg_error("%s", error->message);
		return VG_EIO;
	}
	return VG_OK;
}

/* Asked by the connection when the server wants a password. */
static char *ask_password(void *user)
{
	const char *where = user;
	g_autofree char *q = g_strdup_printf("Password for %s: ", where);
	char *p = NULL;
	int err = vg_passwd_prompt(q, &p);

	if (err == VG_ENOENT)
		vg_error("%s asks for a password and there is no terminal to ask on: use -passwd FILE", where);
	else if (err)
		vg_error("cannot read the password: %s", vg_strerror(err));
	return err ? NULL : p;
}

static int exit_code(int err)
{
	if (err && g_atomic_int_get(&stop_requested))
		return 128 + g_atomic_int_get(&stop_requested);
	if (err == VG_ECRYPTO)
		return EXIT_UNTRUSTED;
	return err == VG_EAUTH ? EXIT_AUTH : EXIT_FAILED;
}

/* What the headless connection's callbacks need. */
typedef struct {
	const char *password;     /* from -passwd, or NULL: ask */
	const char *where;        /* the server, for the prompt */
	vg_recorder *rec;         /* --record, or NULL */
} headless_user;

static char *headless_password(void *user)
{
	headless_user *hu = user;

	return hu->password ? g_strdup(hu->password) : ask_password((void *)hu->where);
}

/* Headless recording: the connection's callbacks, on this one thread. */
static void record_frame(void *user, const vg_pixbuf *fb, const vg_region *dirty)
{
	vg_recorder_frame(((headless_user *)user)->rec, fb, dirty);
}

static void record_cursor(void *user, const uint32_t *argb, int w, int h, int hot_x, int hot_y)
{
	vg_recorder_cursor(((headless_user *)user)->rec, argb, w, h, hot_x, hot_y);
}

static int run_headless(const options *o, vg_connection_config *cfg, vg_recorder *rec)
{
	vg_connection *conn = NULL;
	vg_framelog *framelog = NULL;
	uint64_t last_msg;
	char why[640];
	int n, err, status = EXIT_FAILED;

	if (o->frame_log && vg_framelog_open(o->frame_log, &framelog)) {
		vg_error("--frame-log: cannot create '%s'", o->frame_log);
		return EXIT_FAILED;
	}
	if ((err = vg_connection_open_reason(cfg, &conn, why, sizeof why))) {
		vg_framelog_close(framelog);
		vg_error("cannot connect to %s port %d: %s", cfg->host, cfg->port, why);
		return exit_code(err);
	}
	last_msg = vg_time_ns();
	while (!g_atomic_int_get(&stop_requested)) {
		n = vg_connection_poll(conn, 100);
		if (n < 0 && g_atomic_int_get(&stop_requested))
			break;  /* the signal interrupted the wait */
		if (n < 0) {
			vg_error("%s", vg_connection_error_text(conn));
			goto out;
		}
		if (n > 0 && framelog && vg_framelog_poll(framelog, conn, vg_time_ns())) {
			vg_error("%s: write failed", o->frame_log);
			goto out;
		}
		/* The recorder reports its failure itself, at close. */
		if (rec && vg_recorder_error(rec))
			goto out;
		if (n > 0) {
			last_msg = vg_time_ns();
		} else if (o->exit_when_idle > 0 &&
			   vg_time_ms_since(last_msg, vg_time_ns()) > o->exit_when_idle * 1000) {
			/* Idle is done only once every pixel asked for again
			 * has come: otherwise the picture is not the server's. */
			vg_connection_stats st;

			vg_connection_get_stats(conn, &st);
			if (st.owed_pixels == 0 && st.approx_pixels == 0)
				break;
			if (vg_time_ms_since(last_msg, vg_time_ns()) >
			    (o->exit_when_idle + o->timeout) * 1000) {
				vg_error("the server did not send the %" G_GUINT64_FORMAT
					 " pixels asked for again or shown approximately within %g s; the picture is not exact",
					 st.owed_pixels + st.approx_pixels, o->timeout);
				goto out;
			}
		}
	}
	status = 0;
out:
	{
		vg_pixbuf fb = vg_connection_frame(conn);
		vg_connection_stats st;

		if (o->snapshot && (err = vg_png_write(o->snapshot, &fb))) {
			vg_error("%s: %s", o->snapshot, vg_strerror(err));
			status = EXIT_FAILED;
		}
		vg_connection_get_stats(conn, &st);
		if (o->stats_json && write_stats(o->stats_json, &st, vg_connection_encoding(conn),
						 fb.width, fb.height))
			status = EXIT_FAILED;
	}
	if (vg_framelog_close(framelog)) {
		vg_error("%s: write failed", o->frame_log);
		status = EXIT_FAILED;
	}
	vg_connection_close(conn);
	return status;
}

/* At exit: the window's last frame and the statistics, as headless does. */
static int save_results(const options *o, vg_session *s)
{
	const vg_rect *rs;
	const vg_pixbuf *fb;
	vg_connection_stats st;
	size_t n;
	bool resized;
	int err, status = 0, w = 0, h = 0;

	fb = vg_session_lock_frame(s, &rs, &n, &resized);
	if (fb) {
		w = fb->width;
		h = fb->height;
	}
	if (o->snapshot && fb && (err = vg_png_write(o->snapshot, fb))) {
		vg_error("%s: %s", o->snapshot, vg_strerror(err));
		status = EXIT_FAILED;
	}
	vg_session_unlock_frame(s);
	vg_session_get_stats(s, &st, NULL);
	if (o->stats_json &&
	    write_stats(o->stats_json, &st, st.varg_rects ? "varg" : o->encodings ? o->encodings : "default", w, h))
		status = EXIT_FAILED;
	return status;
}

static int run_window(const options *o, vg_connection_config *cfg, const char *password,
		      vg_recorder *rec)
{
	vg_window_config wcfg = { 0 };
	vg_session_config scfg = { 0 };
	vg_window *win = NULL;
	vg_session *s = NULL;
	g_autofree char *title = g_strdup_printf("varg-viewer: %s", o->rest[0]);
	char why[640];
	int err, status = EXIT_FAILED;

	wcfg.title = title;
	wcfg.fullscreen = o->fullscreen;
	wcfg.nearest = o->scaling && strcmp(o->scaling, "nearest") == 0;
	wcfg.view_only = o->viewonly;
	wcfg.stats = o->stats;
	wcfg.font = VG_OVERLAY_FONT;
	wcfg.stop = &stop_requested;
	if ((err = vg_window_new(&wcfg, &win, why, sizeof why))) {
		vg_error("%s (or use --headless)", why);
		return EXIT_FAILED;
	}
	cfg->remote_cursor = true;
	scfg.conn = *cfg;
	scfg.password = password;
	scfg.password_cb = ask_password;
	scfg.password_user = o->rest[0];
	scfg.reconnect = !o->no_reconnect;
	scfg.recorder = rec;
	scfg.notify_cb = vg_window_notify;
	scfg.user = win;
	if ((err = vg_session_start(&scfg, &s, why, sizeof why))) {
		vg_error("cannot connect to %s: %s", o->rest[0], why);
		status = exit_code(err);
		goto out;
	}
	err = vg_window_run(win, s, why, sizeof why);
	if (err && rec && vg_recorder_error(rec)) {
		/* A failed recording ends the session; main() says why. */
		status = EXIT_FAILED;
	} else if (err) {
		vg_error("%s", why);
		status = exit_code(err);
	} else {
		status = 0;
	}
	if (save_results(o, s))
		status = EXIT_FAILED;
out:
	vg_session_stop(s);
	vg_window_free(win);
	return status;
}

/* Finishes the recording: a line on what it holds, or why it failed. */
static int finish_recording(const options *o, vg_recorder *rec)
{
	vg_recorder_stats st;
	int err;

	if (!rec)
		return 0;
	vg_recorder_get_stats(rec, &st);
	err = vg_recorder_close(rec);
	if (err) {
		vg_error("--record %s: %s; the trace is cut after its last whole record", o->record,
			 vg_strerror(err));
		return EXIT_FAILED;
	}
	if (st.frames == 0)
		vg_warn("--record %s: no frame arrived; nothing recorded", o->record);
	else
		vg_info("recorded %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT
			" input events, %" G_GUINT64_FORMAT " cursor shapes to %s",
			st.frames, st.inputs, st.cursors, o->record);
	return 0;
}

int main(int argc, char **argv)
{
	options o = { 0 };
	vg_connection_config cfg = { 0 };
	vg_connection_events events = { 0 };
	vg_via *via = NULL;
	vg_recorder *rec = NULL;
	headless_user hu = { 0 };
	g_autofree char *host = NULL;
	g_autofree char *default_cache = NULL;
	g_autofree char *password = NULL;
	g_autofree char *tls_host = NULL;
	int tls_port = 0;
	uint64_t cache_size = 0;
	unsigned zstd_window_log = VG_ZSTD_WINDOW_LOG_DEFAULT;
	struct sigaction sa;
	char why[640];
	int port, err, status = EXIT_FAILED;

	vg_log_set_prefix("varg-viewer");
	status = EXIT_USAGE;
	if (parse_options(argc, argv, &o))
		goto out;
	vg_log_set_level(o.quiet ? VG_LOG_ERROR : o.verbose ? VG_LOG_DEBUG : VG_LOG_WARN);
	if (vg_address_parse(o.rest[0], &host, &port)) {
		vg_error("'%s' is not a server address (HOST:DISPLAY or HOST::PORT)", o.rest[0]);
		goto out;
	}
	if (o.cache_size && vg_cmdline_parse_size(o.cache_size, &cache_size)) {
		vg_error("--cache-size: '%s' is not a size such as 500M or 20G", o.cache_size);
		goto out;
	}
	if (o.zstd_window && (vg_cmdline_parse_pow2(o.zstd_window, VG_ZSTD_WINDOW_LOG_MIN,
						       VG_ZSTD_WINDOW_LOG_MAX, &zstd_window_log) ||
	    zstd_window_log == 0)) {
		vg_error("--zstd-window: '%s' is not a power of two from 1M to 128M", o.zstd_window);
		goto out;
	}
	if (o.no_persistent_cache && o.cache_dir) {
		vg_error("--cache-dir and --no-persistent-cache exclude each other");
		goto out;
	}
	if (o.passwd && (err = vg_passwd_read_file(o.passwd, &password))) {
		vg_error("-passwd %s: %s", o.passwd,
			 err == VG_EFORMAT ? "not a VNC password file (vncpasswd writes them)" : "cannot read the file");
		goto out;
	}
	status = EXIT_FAILED;
	if (o.record && (err = vg_recorder_new(o.record, &rec))) {
		vg_error("--record: cannot create '%s': %s", o.record, vg_strerror(err));
		goto out;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	/* Also for the window: SDL leaves a handler set before SDL_Init
	 * alone, and the window loop looks at stop_requested. */
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (o.via) {
		int local;

		if ((err = vg_via_start(o.via, host, port, &stop_requested, &via, &local, why, sizeof why))) {
			vg_error("-via %s: %s", o.via, why);
			status = exit_code(err);
			goto out;
		}
		tls_host = g_strdup(host);
		tls_port = port;
		g_free(host);
		host = g_strdup("127.0.0.1");
		port = local;
	}

	cfg.host = host;
	cfg.port = port;
	cfg.varg = !o.no_varg;
	cfg.encodings = o.encodings;
	cfg.verbose = o.verbose;
	cfg.cache_size = cache_size;
	cfg.zstd_window_log = zstd_window_log;
	cfg.clear_cache = o.clear_cache;
	cfg.lossless_only = o.lossless_only;
	cfg.lean = o.lean;
	cfg.requests = o.requests;
	cfg.view_only = o.viewonly;
	cfg.timeout_ms = (int)(o.timeout * 1000);
	cfg.cancel = &stop_requested;
	cfg.tls_required = o.tls;
	cfg.tls_ca = o.tls_ca;
	cfg.tls_fingerprint = o.tls_fingerprint;
	/* Known hosts are kept also when segments are not (NULL: the
	 * default cache directory). */
	cfg.trust_dir = o.cache_dir;
	cfg.tls_host = tls_host;
	cfg.tls_port = tls_port;
	cfg.tls_via = o.via;
	if (!o.no_persistent_cache)
		cfg.cache_dir = o.cache_dir ? o.cache_dir : (default_cache = vg_segcache_default_base_dir());
	if (o.headless) {
		/* A password from a file answers through the same callback. */
		hu.password = password;
		hu.where = o.rest[0];
		hu.rec = rec;
		events.user = &hu;
		events.password_cb = headless_password;
		if (rec) {
			/* Cursor shapes, to record them; the window asks for
			 * them anyway. */
			cfg.remote_cursor = true;
			events.frame_cb = record_frame;
			events.cursor_cb = record_cursor;
		}
		cfg.events = &events;
		status = run_headless(&o, &cfg, rec);
	} else {
		status = run_window(&o, &cfg, password, rec);
	}
	if (finish_recording(&o, rec))
		status = EXIT_FAILED;
	rec = NULL;
out:
	vg_recorder_close(rec);
	vg_via_stop(via);
	g_free(o.snapshot);
	g_free(o.encodings);
	g_free(o.stats_json);
	g_free(o.frame_log);
	g_free(o.record);
	g_free(o.cache_dir);
	g_free(o.cache_size);
	g_free(o.zstd_window);
	g_free(o.via);
	g_free(o.passwd);
	g_free(o.tls_ca);
	g_free(o.tls_fingerprint);
	g_free(o.scaling);
	g_strfreev(o.rest);
	return status;
}
