/* varg-trace record: a live X display or VNC server becomes a trace.
 *
 * X (--display): the screen is grabbed whenever XDamage reports a change
 * (or, without XDamage, at every tick); pointer and key events seen through
 * XInput 2 become INPUT records. VNC (--vnc): a LibVNCClient mirror is
 * grabbed after each completed framebuffer update; the server does not
 * tell what its users do, so there is no input, but the cursor shapes it
 * sends (it is asked for them) become CURSOR records. Either way grabs
 * happen at most --fps times a second and store the tiles that changed as
 * a FRAME record. SIGINT and SIGTERM end the recording like --duration
 * does: a last grab, then the END record, so everything seen until then
 * is kept. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "capture/vg_mirror.h"
#include "capture/vg_xcapture.h"
#include "traces/trace_cmd.h"
#include "traces/vg_trace.h"

typedef struct {
	const char *display;   /* X display, or NULL */
	const char *vnc;       /* HOST:PORT of a VNC server, or NULL */
	const char *encodings; /* VNC encodings to ask for */
	const char *out;       /* trace to write */
	double duration;       /* seconds; 0: until a signal */
	double fps;            /* most frame records a second */
	int tile;              /* differencing tile size */
	int level;             /* zlib level */
	bool poll;             /* X: compare every tick, without XDamage */
	bool input;            /* record input events */
	bool quiet;            /* no summary */
	bool progress;         /* a progress line on the terminal */
} rec_options;

typedef struct {
	uint64_t frames;       /* frame records written */
	uint64_t inputs;       /* input records written */
	uint64_t cursors;      /* cursor records written */
} rec_stats;

/* What the loop records from: an X capture or a VNC mirror. */
typedef struct {
	vg_xcapture *x;
	vg_mirror *vnc;
} source;


static void progress(const rec_stats *s, uint64_t now_ns, bool final)
{
	fprintf(stderr, "\rrecording: %6.1f s, %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT
		" input events%s", (double)now_ns / 1e9, s->frames, s->inputs, final ? "\n" : "   ");
}

/* Splits "HOST:PORT" (or "HOST::PORT"); false when it is not that. */
static bool parse_host_port(const char *s, char **host, int *port)
{
	const char *colon = strrchr(s, ':');
	const char *end = colon;
	char *rest;
	long p;

	if (!colon || colon == s)
		return false;
	if (end > s && end[-1] == ':')
		end--;
	p = strtol(colon + 1, &rest, 10);
	if (*rest || colon[1] == '\0' || p < 1 || p > 65535 || end == s)
		return false;
	*host = g_strndup(s, (gsize)(end - s));
	*port = (int)p;
	return true;
}

/* Opens the source the options name; prints why not and returns false. */
static bool source_open(const rec_options *o, source *src)
{
	int err;

	memset(src, 0, sizeof *src);
	if (o->vnc) {
		g_autofree char *host = NULL;
		int port;

		if (!parse_host_port(o->vnc, &host, &port)) {
			vg_error("--vnc '%s': expected HOST:PORT, e.g. localhost:5901 (try --help)", o->vnc);
			return false;
		}
		if ((err = vg_mirror_open(host, port, o->encodings, o->tile, &src->vnc))) {
			vg_error("cannot record the VNC server at %s: %s", o->vnc,
				 err == VG_EIO ? "connection or handshake failed" : vg_strerror(err));
			return false;
		}
		return true;
	}
	{
		vg_xcapture_options xo;
		const char *name = o->display ? o->display : g_getenv("DISPLAY");

		vg_xcapture_options_init(&xo);
		xo.tile = o->tile;
		xo.use_damage = !o->poll;
		xo.watch_input = o->input;
		if ((err = vg_xcapture_open(o->display, &xo, &src->x))) {
			if (err == VG_EIO)
				vg_error("cannot open display '%s'", name ? name : "");
			else if (err == VG_ENOTSUP)
				vg_error("display '%s': needs a 24-bit TrueColor screen%s", name,
					 o->input ? " and XInput 2 (or use --no-input)" : "");
			else
				vg_error("display '%s': %s", name, vg_strerror(err));
			return false;
		}
	}
	return true;
}

static void source_free(source *src)
{
	vg_xcapture_free(src->x);
	vg_mirror_free(src->vnc);
}

static int32_t source_width(const source *src)
{
	return src->x ? vg_xcapture_width(src->x) : vg_mirror_width(src->vnc);
}

static int32_t source_height(const source *src)
{
	return src->x ? vg_xcapture_height(src->x) : vg_mirror_height(src->vnc);
}

static size_t source_max_rects(const source *src)
{
	return src->x ? vg_xcapture_max_rects(src->x) : vg_mirror_max_rects(src->vnc);
}

static bool source_is_dirty(const source *src)
{
	return src->x ? vg_xcapture_is_dirty(src->x) : vg_mirror_is_dirty(src->vnc);
}

/* Waits up to timeout_ms for something from the source and takes in all
 * that has arrived. VG_EIO when a VNC server went away. */
static int source_wait(source *src, int timeout_ms)
{
	int got;

	if (src->x) {
		struct pollfd pfd = { .fd = vg_xcapture_fd(src->x), .events = POLLIN };

		if (poll(&pfd, 1, vg_xcapture_has_queued(src->x) ? 0 : timeout_ms) < 0 && errno != EINTR)
			return VG_EIO;
		return vg_xcapture_process(src->x);
	}
	for (got = vg_mirror_poll(src->vnc, timeout_ms); got == 1; got = vg_mirror_poll(src->vnc, 0))
		;
	return got < 0 ? got : VG_OK;
}

/* Writes the input events the X capture queued, stamped t_ns. */
static int write_inputs(source *src, vg_trace_writer *w, uint64_t t_ns, rec_stats *s)
{
	vg_xinput_event ev;
	int err;

	while (src->x && vg_xcapture_next_input(src->x, &ev) == 1) {
		if (ev.type == VG_XINPUT_POINTER)
			err = vg_trace_writer_pointer(w, t_ns, ev.x, ev.y, ev.buttons);
		else
			err = vg_trace_writer_key(w, t_ns, ev.keysym, ev.down);
		if (err)
			return err;
		s->inputs++;
	}
	return VG_OK;
}

/* Writes a cursor record when the pointer's image changed: the X
 * cursor's (XFixes) or the shape a VNC server sent. An image larger than
 * a cursor record holds is left out. */
static int write_cursor(source *src, vg_trace_writer *w, uint64_t t_ns, bool last, rec_stats *s)
{
	vg_trace_cursor tc;
	vg_xcursor xc;
	vg_mirror_cursor mc;
	int err;

	if (src->x) {
		/* At most VG_XCAPTURE_CURSOR_GAP_NS apart, but the last
		 * change is always written. */
		if (!vg_xcapture_cursor_changed(src->x) ||
		    (!last && vg_xcapture_cursor_due_in(src->x, vg_time_ns()) > 0) ||
		    vg_xcapture_cursor(src->x, &xc))
			return VG_OK;
		tc.width = xc.width;
		tc.height = xc.height;
		tc.hot_x = xc.hot_x;
		tc.hot_y = xc.hot_y;
		tc.pixels = xc.pixels;
	} else {
		if (vg_mirror_take_cursor(src->vnc, &mc) <= 0)
			return VG_OK;
		tc.width = mc.width;
		tc.height = mc.height;
		tc.hot_x = mc.hot_x;
		tc.hot_y = mc.hot_y;
		tc.pixels = mc.pixels;
	}
	if (tc.width < 1 || tc.height < 1 || tc.width > VG_TRACE_MAX_CURSOR ||
	    tc.height > VG_TRACE_MAX_CURSOR) {
		vg_debug("cursor of %dx%d not recorded", tc.width, tc.height);
		return VG_OK;
	}
	/* X allows a hot spot outside the image; a record does not. */
	tc.hot_x = CLAMP(tc.hot_x, 0, tc.width - 1);
	tc.hot_y = CLAMP(tc.hot_y, 0, tc.height - 1);
	if ((err = vg_trace_writer_cursor(w, t_ns, &tc)))
		return err;
	s->cursors++;
	return VG_OK;
}

/* Grabs and, when something changed, writes a frame record. */
static int grab_frame(source *src, vg_trace_writer *w, vg_pixbuf *fb, vg_rect *rects, size_t cap,
		      uint64_t t_ns, rec_stats *s)
{
	size_t n;
	int err;

	if (src->x)
		err = vg_xcapture_grab(src->x, fb, rects, cap, &n);
	else
		err = vg_mirror_grab(src->vnc, fb, rects, cap, &n);
	if (err)
		return err;
	if (n == 0)
		return VG_OK;
	n = vg_trace_fit_rects(rects, n);
	if ((err = vg_trace_writer_frame(w, t_ns, fb, rects, n)))
		return err;
	s->frames++;
	return VG_OK;
}

static int record(const rec_options *o)
{
	source src;
	vg_trace_writer *w = NULL;
	vg_pixbuf *fb = NULL;
	vg_rect *rects = NULL;
	rec_stats stats = { 0 };
	uint64_t start, now = 0, next_grab = 0, next_progress = 0;
	uint64_t min_gap = (uint64_t)(1e9 / o->fps), end_ns = (uint64_t)(o->duration * 1e9);
	bool ended = false;
	size_t cap;
	int err, status = VG__EXIT_FAIL;

	if (!source_open(o, &src))
		return VG__EXIT_FAIL;
	if ((err = vg_trace_writer_open(o->out, source_width(&src), source_height(&src), &w))) {
		vg_error("%s: %s", o->out, vg_strerror(err));
		goto out;
	}
	vg_trace_writer_set_level(w, o->level);
	fb = vg_pixbuf_new(source_width(&src), source_height(&src));
	cap = source_max_rects(&src);
	rects = g_new(vg_rect, cap);
	if (!o->quiet) {
		if (src.x)
			vg_info("recording %dx%d from display '%s' (%s) to %s", fb->width, fb->height,
				o->display, vg_xcapture_has_damage(src.x) ? "XDamage" : "polling", o->out);
		else
			vg_info("recording %dx%d from VNC server %s to %s", fb->width, fb->height, o->vnc,
				o->out);
	}

	start = vg_time_ns();
	for (;;) {
		/* X input is watched by polling the pointer's position. */
		int timeout_ms = src.x && o->input ? 20 : 100;
		uint64_t cursor_in;
		bool last;

		now = vg_time_ns() - start;
		last = ended || vg__trace_stopped() || (end_ns > 0 && now >= end_ns);
		if ((err = write_inputs(&src, w, now, &stats)) ||
		    (err = write_cursor(&src, w, now, last, &stats)))
			goto write_failed;
		/* The last grab is unconditional: a change that arrived after
		 * the final wait is not lost. */
		if (last || (source_is_dirty(&src) && now >= next_grab)) {
			if ((err = grab_frame(&src, w, fb, rects, cap, now, &stats)))
				goto write_failed;
			next_grab = now + min_gap;
		}
		if (o->progress && (now >= next_progress || last)) {
			progress(&stats, now, last);
			next_progress = now + 250000000u;
		}
		if (last)
			break;
		if (source_is_dirty(&src))
			timeout_ms = MIN(timeout_ms, (int)((next_grab > now ? next_grab - now : 0) / 1000000u));
		if (end_ns > 0)
			timeout_ms = MIN(timeout_ms, (int)((end_ns > now ? end_ns - now : 0) / 1000000u));
		if (src.x && (cursor_in = vg_xcapture_cursor_due_in(src.x, vg_time_ns())) != UINT64_MAX)
			timeout_ms = MIN(timeout_ms, (int)(cursor_in / 1000000u) + 1);
		if ((err = source_wait(&src, timeout_ms))) {
			if (!src.vnc)
				goto write_failed;
			/* The server went away: the recording ends with what
			 * it showed until then. */
			vg_warn("%s: %s; the recording ends here", o->vnc, vg_mirror_error_text(src.vnc));
			ended = true;
		}
	}
	err = vg_trace_writer_close(w);
	w = NULL;
	if (err)
		goto write_failed;
	if (!o->quiet) {
		GStatBuf st;

		if (g_stat(o->out, &st) == 0)
			printf("%s: %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT " input events, %"
			       G_GUINT64_FORMAT " cursor shapes, %.1f s, %lld bytes\n", o->out, stats.frames,
			       stats.inputs, stats.cursors, (double)now / 1e9, (long long)st.st_size);
	}
	status = VG__EXIT_OK;
	goto out;
write_failed:
	if (o->progress)
		fputc('\n', stderr);
	vg_error("%s: %s", o->out, vg_strerror(err));
out:
	/* A failed recording keeps what it wrote: a trace cut short is still
	 * readable up to its last record. */
	vg_trace_writer_abandon(w);
	source_free(&src);
	vg_pixbuf_free(fb);
	g_free(rects);
	return status;
}

int vg__trace_record(int argc, char **argv)
{
	g_autofree char *display = NULL, *vnc = NULL, *encodings = NULL, *out = NULL;
	double duration = 0, fps = 25;
	int tile = 32, level = 6;
	gboolean poll_screen = FALSE, no_input = FALSE, quiet = FALSE;
	GOptionEntry entries[] = {
		{ "display", 'd', 0, G_OPTION_ARG_STRING, &display, "X display to record, e.g. :1", ":N" },
		{ "vnc", 0, 0, G_OPTION_ARG_STRING, &vnc, "VNC server to record (no password)", "HOST:PORT" },
		{ "encodings", 0, 0, G_OPTION_ARG_STRING, &encodings,
		  "With --vnc: encodings to ask for (default \"tight zrle hextile\")", "LIST" },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Trace to write (required)", "FILE.vtr" },
		{ "duration", 't', 0, G_OPTION_ARG_DOUBLE, &duration,
		  "Stop after S seconds (default: at SIGINT or SIGTERM)", "S" },
		{ "fps", 0, 0, G_OPTION_ARG_DOUBLE, &fps, "Most frames a second (default 25)", "N" },
		{ "tile", 0, 0, G_OPTION_ARG_INT, &tile, "Tile size for differencing (default 32)", "N" },
		{ "level", 'l', 0, G_OPTION_ARG_INT, &level, "zlib level 0-9 (default 6)", "N" },
		{ "poll", 0, 0, G_OPTION_ARG_NONE, &poll_screen,
		  "Compare the whole screen at every tick instead of using XDamage", NULL },
		{ "no-input", 0, 0, G_OPTION_ARG_NONE, &no_input, "Do not record pointer and key events", NULL },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No progress or summary", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionContext *ctx = g_option_context_new("- record a live session");
	rec_options o;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx,
		"Records an X display (--display) or a VNC server (--vnc) until --duration\n"
		"has passed or the process gets SIGINT or SIGTERM; either way the trace\n"
		"is complete. Each frame record holds the tiles that changed; pointer\n"
		"and key events seen on an X display become input records.");
	if (!vg__trace_parse_options(ctx, &argc, &argv))
		return VG__EXIT_USAGE;
	if (argc > 1)
		return vg__trace_usage_error("unexpected argument '%s'", argv[1]);
	if (!out)
		return vg__trace_usage_error("-o FILE.vtr is required");
	if (!display == !vnc)
		return vg__trace_usage_error("give one of --display :N and --vnc HOST:PORT");
	if (duration < 0 || duration > 1e7)
		return vg__trace_usage_error("--duration must be 0..10000000 seconds");
	if (!(fps >= 0.1 && fps <= 1000))
		return vg__trace_usage_error("--fps must be 0.1..1000");
	if (tile < 1 || tile > VG_MAX_DIM)
		return vg__trace_usage_error("--tile must be 1..%d", VG_MAX_DIM);
	if (level < 0 || level > 9)
		return vg__trace_usage_error("--level must be 0..9");

	memset(&o, 0, sizeof o);
	o.display = display;
	o.vnc = vnc;
	o.encodings = encodings ? encodings : "tight zrle hextile";
	o.out = out;
	o.duration = duration;
	o.fps = fps;
	o.tile = tile;
	o.level = level;
	o.poll = poll_screen;
	o.input = !no_input;
	o.quiet = quiet;
	o.progress = !quiet && isatty(STDERR_FILENO);
	vg__trace_catch_stop();
	return record(&o);
}
