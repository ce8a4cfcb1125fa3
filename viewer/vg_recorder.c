#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <sys/stat.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "traces/vg_trace.h"
#include "viewer/vg_recorder.h"

struct vg_recorder {
	GMutex lock;              /* everything below */
	char *path;
	bool created;             /* vg_recorder_new made the file */
	vg_trace_writer *w;       /* NULL before the first frame and after the end */
	int32_t width, height;    /* the trace's size, once known */
	bool ended;               /* the desktop changed size */
	int err;                  /* first failure; sticky */
	uint64_t start;           /* vg_time_ns() of the first frame */
	uint64_t last_t;
	uint32_t *pending;        /* a cursor shape that came before the first frame */
	vg_trace_cursor pending_cur;
	vg_rect *rects;           /* the update's rectangles, reused */
	size_t rects_cap;
	vg_recorder_stats stats;
};

int vg_recorder_new(const char *path, vg_recorder **out)
{
	struct stat st;
	bool existed = stat(path, &st) == 0;
	FILE *f;

	*out = NULL;
	/* Opened for appending, which changes nothing in a file that exists:
	 * the writer truncates it at the first frame. */
	f = fopen(path, "ab");
	if (!f)
		return errno == ENOENT ? VG_ENOENT : VG_EIO;
	if (fclose(f) != 0)
		return VG_EIO;
	*out = g_new0(vg_recorder, 1);
	g_mutex_init(&(*out)->lock);
	(*out)->path = g_strdup(path);
	(*out)->created = !existed;
	return VG_OK;
}

/* Nanoseconds since the first frame; never less than the last record's,
 * which the writer requires. */
static uint64_t now_ns(vg_recorder *r)
{
	uint64_t t = vg_time_ns() - r->start;

	if (t < r->last_t)
		t = r->last_t;
	r->last_t = t;
	return t;
}

/* Keeps a write failure. Invalid arguments (a pointer off the frame, a
 * cursor too large) lose that one record and nothing else. */
static int note(vg_recorder *r, int err)
{
	if (err && err != VG_EINVAL && !r->err)
		r->err = err;
	return err == VG_EINVAL ? VG_OK : err;
}

/* The desktop changed size: the trace ends with the last frame of the old
 * size, and the viewer goes on without recording. */
static void end_recording(vg_recorder *r, int32_t w, int32_t h)
{
	int err = vg_trace_writer_close(r->w);

	r->w = NULL;
	r->ended = true;
	if (err)
		note(r, err);
	else
		vg_warn("%s: the desktop changed size from %dx%d to %dx%d; the recording ends here",
			r->path, r->width, r->height, w, h);
}

int vg_recorder_frame(vg_recorder *r, const vg_pixbuf *fb, const vg_region *dirty)
{
	vg_rect whole = vg_pixbuf_rect(fb);
	const vg_rect *rs;
	size_t i, n, kept = 0;
	int err = VG_OK;

	g_mutex_lock(&r->lock);
	err = r->err;
	if (r->err || r->ended)
		goto out;
	if (!r->w) {
		if ((err = vg_trace_writer_open(r->path, fb->width, fb->height, &r->w))) {
			note(r, err);
			err = r->err;
			goto out;
		}
		r->width = fb->width;
		r->height = fb->height;
		r->start = vg_time_ns();
		if (r->pending) {
			r->pending_cur.pixels = r->pending;
			if ((err = note(r, vg_trace_writer_cursor(r->w, now_ns(r), &r->pending_cur))))
				goto out;
			r->stats.cursors++;
			g_clear_pointer(&r->pending, g_free);
		}
	} else if (fb->width != r->width || fb->height != r->height) {
		end_recording(r, fb->width, fb->height);
		err = r->err;
		goto out;
	}
	/* The first frame is stored whole: the trace starts from black. */
	if (r->stats.frames == 0) {
		rs = &whole;
		n = 1;
	} else {
		rs = vg_region_rects(dirty, &n);
	}
	if (n > r->rects_cap) {
		r->rects_cap = MAX(n, r->rects_cap * 2);
		r->rects = g_renew(vg_rect, r->rects, r->rects_cap);
	}
	for (i = 0; i < n; i++) {
		vg_rect c = vg_rect_intersect(rs[i], whole);

		if (!vg_rect_is_empty(c))
			r->rects[kept++] = c;
	}
	kept = vg_trace_fit_rects(r->rects, kept);
	err = note(r, vg_trace_writer_frame(r->w, now_ns(r), fb, r->rects, kept));
	if (!err)
		r->stats.frames++;
out:
	g_mutex_unlock(&r->lock);
	return err;
}

int vg_recorder_cursor(vg_recorder *r, const uint32_t *argb, int w, int h, int hot_x, int hot_y)
{
	vg_trace_cursor c;
	int err = VG_OK;

	if (w < 1 || h < 1 || w > VG_TRACE_MAX_CURSOR || h > VG_TRACE_MAX_CURSOR) {
		vg_debug("cursor of %dx%d not recorded", w, h);
		return VG_OK;
	}
	c.width = w;
	c.height = h;
	c.hot_x = CLAMP(hot_x, 0, w - 1);
	c.hot_y = CLAMP(hot_y, 0, h - 1);
	c.pixels = argb;
	g_mutex_lock(&r->lock);
	/* A shape that arrives before the first frame (servers send it inside
	 * the first update) waits for that frame to open the trace. */
	if (r->err) {
		err = r->err;
	} else if (!r->w && !r->ended) {
		g_free(r->pending);
		r->pending = g_memdup2(argb, (gsize)w * (gsize)h * 4);
		r->pending_cur = c;
	} else if (r->w) {
		err = note(r, vg_trace_writer_cursor(r->w, now_ns(r), &c));
		if (!err)
			r->stats.cursors++;
	}
	g_mutex_unlock(&r->lock);
	return err;
}

int vg_recorder_pointer(vg_recorder *r, int x, int y, int buttons)
{
	int err = VG_OK;

	g_mutex_lock(&r->lock);
	if (r->err) {
		err = r->err;
	} else if (r->w) {
		x = CLAMP(x, 0, r->width - 1);
		y = CLAMP(y, 0, r->height - 1);
		err = note(r, vg_trace_writer_pointer(r->w, now_ns(r), x, y, (uint8_t)buttons));
		if (!err)
			r->stats.inputs++;
	}
	g_mutex_unlock(&r->lock);
	return err;
}

int vg_recorder_key(vg_recorder *r, uint32_t keysym, bool down)
{
	int err = VG_OK;

	g_mutex_lock(&r->lock);
	if (r->err) {
		err = r->err;
	} else if (r->w) {
		err = note(r, vg_trace_writer_key(r->w, now_ns(r), keysym, down));
		if (!err)
			r->stats.inputs++;
	}
	g_mutex_unlock(&r->lock);
	return err;
}

int vg_recorder_error(vg_recorder *r)
{
	int err;

	g_mutex_lock(&r->lock);
	err = r->err;
	g_mutex_unlock(&r->lock);
	return err;
}

bool vg_recorder_ended(vg_recorder *r)
{
	bool ended;

	g_mutex_lock(&r->lock);
	ended = r->ended;
	g_mutex_unlock(&r->lock);
	return ended;
}

void vg_recorder_get_stats(vg_recorder *r, vg_recorder_stats *st)
{
	g_mutex_lock(&r->lock);
	*st = r->stats;
	g_mutex_unlock(&r->lock);
}

int vg_recorder_close(vg_recorder *r)
{
	int err;

	if (!r)
		return VG_OK;
	err = r->err;
	if (r->w) {
		/* After a failure the trace is left cut after its last good
		 * record, still readable up to there. */
		if (err) {
			vg_trace_writer_abandon(r->w);
		} else {
			err = vg_trace_writer_close(r->w);
		}
	} else if (!r->ended && r->created) {
		g_remove(r->path);
	}
	g_free(r->pending);
	g_free(r->rects);
	g_free(r->path);
	g_mutex_clear(&r->lock);
	g_free(r);
	return err;
}
