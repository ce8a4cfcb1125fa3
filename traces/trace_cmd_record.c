/* varg-trace record: a live X display becomes a trace.
 *
 * The screen is grabbed whenever XDamage reports a change (or, without
 * XDamage, at every tick), at most --fps times a second; each grab stores
 * the tiles that changed as a FRAME record. Pointer and key events seen
 * through XInput 2 become INPUT records. SIGINT and SIGTERM end the
 * recording like --duration does: a last grab, then the END record, so
 * everything seen until then is kept. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "server/vg_xcapture.h"
#include "traces/trace_cmd.h"
#include "traces/trace_cmd_rec.h"
#include "traces/vg_trace.h"

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	stop_requested = sig;
}

void vg__trace_rec_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: poll() returns at once with EINTR. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool vg__trace_rec_stopped(void)
{
	return stop_requested != 0;
}

void vg__trace_rec_progress(const vg__trace_rec_stats *s, uint64_t now_ns, bool final)
{
	fprintf(stderr, "\rrecording: %6.1f s, %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT
		" input events%s", (double)now_ns / 1e9, s->frames, s->inputs, final ? "\n" : "   ");
}

/* Writes the events the capture queued, stamped t_ns. */
static int write_inputs(vg_xcapture *c, vg_trace_writer *w, uint64_t t_ns, vg__trace_rec_stats *s)
{
	vg_xinput_event ev;
	int err;

	while (vg_xcapture_next_input(c, &ev) == 1) {
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

/* Grabs and, when something changed (or force: the first frame), writes
 * a frame record. */
static int grab_frame(vg_xcapture *c, vg_trace_writer *w, vg_pixbuf *fb, vg_rect *rects,
		      size_t cap, uint64_t t_ns, vg__trace_rec_stats *s)
{
	size_t n;
	int err;

	if ((err = vg_xcapture_grab(c, fb, rects, cap, &n)))
		return err;
	if (n == 0)
		return VG_OK;
	if (n > VG_TRACE_MAX_RECTS) {
		vg_rect b = rects[0];
		size_t i;

		for (i = 1; i < n; i++)
			b = vg_rect_bounds(b, rects[i]);
		rects[0] = b;
		n = 1;
	}
	if ((err = vg_trace_writer_frame(w, t_ns, fb, rects, n)))
		return err;
	s->frames++;
	return VG_OK;
}

static int record_display(const vg__trace_rec_options *o)
{
	vg_xcapture_options xo;
	vg_xcapture *c = NULL;
	vg_trace_writer *w = NULL;
	vg_pixbuf *fb = NULL;
	vg_rect *rects = NULL;
	vg__trace_rec_stats stats = { 0 };
	uint64_t start, now, next_grab = 0, next_progress = 0;
	uint64_t min_gap = (uint64_t)(1e9 / o->fps);
	size_t cap;
	int err, status = VG__EXIT_FAIL;

	vg_xcapture_options_init(&xo);
	xo.tile = o->tile;
	xo.use_damage = !o->poll;
	xo.watch_input = o->input;
	if ((err = vg_xcapture_open(o->display, &xo, &c))) {
		if (err == VG_EIO)
			vg_error("cannot open display '%s'", o->display ? o->display : g_getenv("DISPLAY"));
		else if (err == VG_ENOTSUP)
			vg_error("display '%s': needs a 24-bit TrueColor screen%s", o->display,
				 o->input ? " and XInput 2 (or use --no-input)" : "");
		else
			vg_error("display '%s': %s", o->display, vg_strerror(err));
		goto out;
	}
	if ((err = vg_trace_writer_open(o->out, vg_xcapture_width(c), vg_xcapture_height(c), &w))) {
		vg_error("%s: %s", o->out, vg_strerror(err));
		goto out;
	}
	vg_trace_writer_set_level(w, o->level);
	fb = vg_pixbuf_new(vg_xcapture_width(c), vg_xcapture_height(c));
	cap = vg_xcapture_max_rects(c);
	rects = g_new(vg_rect, cap);
	if (!o->quiet)
		vg_info("recording %dx%d from display '%s' (%s) to %s", fb->width, fb->height,
			o->display ? o->display : g_getenv("DISPLAY"),
			vg_xcapture_has_damage(c) ? "XDamage" : "polling", o->out);

	start = vg_time_ns();
	for (;;) {
		struct pollfd pfd = { .fd = vg_xcapture_fd(c), .events = POLLIN };
		/* Input is watched by polling the pointer's position. */
		int timeout_ms = o->input ? 20 : 100;
		bool last;

		now = vg_time_ns() - start;
		last = vg__trace_rec_stopped() || (o->duration > 0 && now >= (uint64_t)(o->duration * 1e9));
		if ((err = vg_xcapture_process(c)) || (err = write_inputs(c, w, now, &stats)))
			goto write_failed;
		/* The last grab is unconditional: damage that arrived after
		 * the final poll is not lost. */
		if (last || (vg_xcapture_is_dirty(c) && now >= next_grab)) {
			if ((err = grab_frame(c, w, fb, rects, cap, now, &stats)))
				goto write_failed;
			next_grab = now + min_gap;
		}
		if (o->progress && (now >= next_progress || last)) {
			vg__trace_rec_progress(&stats, now, last);
			next_progress = now + 250000000u;
		}
		if (last)
			break;
		if (vg_xcapture_is_dirty(c))
			timeout_ms = MIN(timeout_ms, (int)((next_grab > now ? next_grab - now : 0) / 1000000u));
		if (o->duration > 0) {
			uint64_t end = (uint64_t)(o->duration * 1e9);
			int left = end > now ? (int)((end - now) / 1000000u) : 0;

			timeout_ms = MIN(timeout_ms, left);
		}
		if (poll(&pfd, 1, timeout_ms) < 0 && errno != EINTR) {
			err = VG_EIO;
			goto write_failed;
		}
	}
	err = vg_trace_writer_close(w);
	w = NULL;
	if (err)
		goto write_failed;
	if (!o->quiet) {
		GStatBuf st;

		if (g_stat(o->out, &st) == 0)
			printf("%s: %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT " input events, %.1f s, %lld bytes\n",
			       o->out, stats.frames, stats.inputs, (double)now / 1e9, (long long)st.st_size);
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
	vg_xcapture_free(c);
	vg_pixbuf_free(fb);
	g_free(rects);
	return status;
}

int vg__trace_record(int argc, char **argv)
{
	g_autofree char *display = NULL, *out = NULL;
	double duration = 0, fps = 25;
	int tile = 32, level = 6;
	gboolean poll_screen = FALSE, no_input = FALSE, quiet = FALSE;
	GOptionEntry entries[] = {
		{ "display", 'd', 0, G_OPTION_ARG_STRING, &display, "X display to record, e.g. :1", ":N" },
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
	vg__trace_rec_options o;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx,
		"Records an X display (--display) or a VNC server (--vnc) until --duration\n"
		"has passed or the process gets SIGINT or SIGTERM; either way the trace\n"
		"is complete. Each frame record holds the tiles that changed; pointer\n"
		"and key events become input records.");
	if (!vg__trace_parse_options(ctx, &argc, &argv))
		return VG__EXIT_USAGE;
	if (argc > 1)
		return vg__trace_usage_error("unexpected argument '%s'", argv[1]);
	if (!out)
		return vg__trace_usage_error("-o FILE.vtr is required");
	if (!display)
		return vg__trace_usage_error("--display :N is required");
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
	o.out = out;
	o.duration = duration;
	o.fps = fps;
	o.tile = tile;
	o.level = level;
	o.poll = poll_screen;
	o.input = !no_input;
	o.quiet = quiet;
	o.progress = !quiet && isatty(STDERR_FILENO);
	vg__trace_rec_catch_signals();
	return record_display(&o);
}
