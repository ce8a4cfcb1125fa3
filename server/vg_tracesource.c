#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "server/vg_tracesource.h"
#include "traces/vg_trace.h"

struct vg_tracesource {
	vg_trace_reader *reader;
	vg_pixbuf *next;      /* the trace's frame, ahead of the server's */
	uint64_t frames;
	int copy_delay_ms;    /* testing aid: a pause in the middle of each copy */
};

void vg_tracesource_options_init(vg_tracesource_options *o)
{
	o->speed = 1.0;
	o->loop = false;
	o->pace_timeout_ms = 2000;
	o->wait_clients = 0;
	o->progress = false;
	o->frame_log = NULL;
}

int vg_tracesource_open(const char *path, vg_tracesource **out)
{
	vg_tracesource *t = g_new0(vg_tracesource, 1);
	int err = vg_trace_reader_open(path, &t->reader);

	if (err) {
		g_free(t);
		return err;
	}
	/* Widens the window in which a reader of the framebuffer would see
	 * half a frame; tests/e2e/test_record_vnc.sh uses it. */
	if (g_getenv("VARG_TEST_COPY_DELAY_MS"))
		t->copy_delay_ms = atoi(g_getenv("VARG_TEST_COPY_DELAY_MS"));
	t->next = vg_pixbuf_new(vg_trace_reader_width(t->reader), vg_trace_reader_height(t->reader));
	if (!t->next) {
		vg_tracesource_free(t);
		return VG_ERANGE;
	}
	*out = t;
	return VG_OK;
}

int32_t vg_tracesource_width(const vg_tracesource *t)
{
	return t->next->width;
}

int32_t vg_tracesource_height(const vg_tracesource *t)
{
	return t->next->height;
}

const char *vg_tracesource_error_text(const vg_tracesource *t)
{
	return vg_trace_reader_error_text(t->reader);
}

uint64_t vg_tracesource_frames(const vg_tracesource *t)
{
	return t->frames;
}

void vg_tracesource_free(vg_tracesource *t)
{
	if (!t)
		return;
	vg_trace_reader_free(t->reader);
	vg_pixbuf_free(t->next);
	g_free(t);
}

/* Sleeps until the monotonic time `until` (ns) or a stop request. */
static void sleep_until(uint64_t until, const volatile sig_atomic_t *stop)
{
	uint64_t now;

	while (!*stop && (now = vg_time_ns()) < until) {
		uint64_t left = until - now;
		g_usleep((gulong)MIN(left / 1000, 50000));
	}
}

/* Puts the next frame into the server's framebuffer, whole: marked as
 * changed first, then copied, all under the frame's write lock. */
static void show_frame(vg_tracesource *t, vg_server *srv, const vg_trace_record *rec)
{
	vg_pixbuf *fb = vg_server_frame_lock(srv);
	size_t i;

	vg_server_frame_mark(srv, rec->rects, rec->n_rects);
	for (i = 0; i < rec->n_rects; i++) {
		vg_rect r = rec->rects[i], top = r;

		if (t->copy_delay_ms && r.h > 1) {
			top.h = r.h / 2;
			vg_pixbuf_copy_rect(fb, t->next, top);
			g_usleep((gulong)t->copy_delay_ms * 1000);
			r.y += top.h;
			r.h -= top.h;
		}
		vg_pixbuf_copy_rect(fb, t->next, r);
	}
	vg_server_frame_unlock(srv, NULL, 0);
	t->frames++;
}

/* A cursor record becomes the pointer's image for every client that takes
 * cursor shapes, as a live X display's cursor does (vg_xsource). */
static void show_cursor(vg_server *srv, const vg_trace_record *rec)
{
	vg_server_cursor sc;

	sc.width = rec->cursor.width;
	sc.height = rec->cursor.height;
	sc.hot_x = rec->cursor.hot_x;
	sc.hot_y = rec->cursor.hot_y;
	sc.pixels = rec->cursor.pixels;
	if (vg_server_set_cursor(srv, &sc))
		vg_debug("record %" G_GUINT64_FORMAT ": cursor of %dx%d not sent", rec->index,
			 sc.width, sc.height);
}

int vg_tracesource_play(vg_tracesource *t, vg_server *srv, const vg_tracesource_options *o,
			const volatile sig_atomic_t *stop)
{
	uint64_t start, due_ns, last_report = 0;
	vg_trace_record rec;
	int n;

	/* The first frame is up before clients are waited for, so that a
	 * client's first update is that frame, never the blank screen, and
	 * (at --speed 0) the next frame waits until every client has it. */
	while ((n = vg_trace_reader_next(t->reader, &rec, t->next)) > 0 && rec.kind != VG_TRACE_FRAME)
		if (rec.kind == VG_TRACE_CURSOR)
			show_cursor(srv, &rec);
	if (n < 0)
		return n;
	if (n > 0)
		show_frame(t, srv, &rec);
	while (!*stop && vg_server_client_count(srv) < o->wait_clients)
		g_usleep(10000);
	if (n > 0 && o->speed <= 0 && !vg_server_wait_caught_up(srv, o->pace_timeout_ms))
		vg_debug("frame %" G_GUINT64_FORMAT ": a client is behind; going on", rec.index);
	start = vg_time_ns();
	/* The first frame counts from when play starts: no client could
	 * have seen it before (scripts/wan-bench waits for every frame). */
	if (n > 0 && o->frame_log)
		fprintf(o->frame_log, "%" PRIu64 " %" PRIu64 " %016" PRIx64 "\n", start,
			t->frames - 1, rec.frame_hash);
	while (!*stop) {
		n = vg_trace_reader_next(t->reader, &rec, t->next);
		if (n < 0)
			return n;
		if (n == 0) {
			if (!o->loop)
				break;
			if ((n = vg_trace_reader_rewind(t->reader)) < 0)
				return n;
			start = vg_time_ns();
			continue;
		}
		if (rec.kind != VG_TRACE_FRAME && rec.kind != VG_TRACE_CURSOR)
			continue;
		if (o->speed > 0)
			sleep_until(start + (uint64_t)((double)rec.t_ns / o->speed), stop);
		if (rec.kind == VG_TRACE_CURSOR) {
			show_cursor(srv, &rec);
			/* At --speed 0 a shape is a step of play like a frame:
			 * the last record of a trace may be one. */
			if (o->speed <= 0 && !vg_server_wait_caught_up(srv, o->pace_timeout_ms))
				vg_debug("record %" G_GUINT64_FORMAT ": a client is behind; going on",
					 rec.index);
			continue;
		}
		/* The frame is due now: a stock client still reading the
		 * framebuffer delays its copy, not its clock. */
		due_ns = vg_time_ns();
		show_frame(t, srv, &rec);
		/* Buffered, flushed by the caller: a write per frame would delay play. */
		if (o->frame_log)
			fprintf(o->frame_log, "%" PRIu64 " %" PRIu64 " %016" PRIx64 "\n", due_ns,
				t->frames - 1, rec.frame_hash);
		if (o->speed <= 0 && !vg_server_wait_caught_up(srv, o->pace_timeout_ms))
			vg_debug("frame %" G_GUINT64_FORMAT ": a client is behind; going on", rec.index);
		if (o->progress && vg_time_ns() - last_report > 1000000000u) {
			last_report = vg_time_ns();
			vg_info("played %" G_GUINT64_FORMAT " frames", t->frames);
		}
	}
	return VG_OK;
}
