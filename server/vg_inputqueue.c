#include <errno.h>
#include <glib-unix.h>
#include <glib.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "server/vg_inputqueue.h"

struct vg_inputqueue {
	GAsyncQueue *events;      /* vg_input_event *, from clients' threads */
	int wake[2];              /* a byte written per event queued */
	bool cut_text;
};

void vg_input_event_free(vg_input_event *e)
{
	if (!e)
		return;
	g_free(e->text);
	g_free(e);
}

static void event_free(gpointer p)
{
	vg_input_event_free(p);
}

int vg_inputqueue_new(bool cut_text, vg_inputqueue **out)
{
	vg_inputqueue *q = g_new0(vg_inputqueue, 1);

	*out = NULL;
	q->cut_text = cut_text;
	if (!g_unix_open_pipe(q->wake, FD_CLOEXEC, NULL)) {
		g_free(q);
		return VG_EIO;
	}
	if (!g_unix_set_fd_nonblocking(q->wake[0], TRUE, NULL) ||
	    !g_unix_set_fd_nonblocking(q->wake[1], TRUE, NULL)) {
		close(q->wake[0]);
		close(q->wake[1]);
		g_free(q);
		return VG_EIO;
	}
	q->events = g_async_queue_new_full(event_free);
	*out = q;
	return VG_OK;
}

void vg_inputqueue_free(vg_inputqueue *q)
{
	if (!q)
		return;
	close(q->wake[0]);
	close(q->wake[1]);
	g_async_queue_unref(q->events);
	g_free(q);
}

int vg_inputqueue_fd(const vg_inputqueue *q)
{
	return q->wake[0];
}

static void push(vg_inputqueue *q, vg_input_event *e)
{
	char one = 1;

	g_async_queue_push(q->events, e);
	/* After the push, so a reader that drained the pipe still finds the
	 * event; a full pipe already wakes the reader. */
	if (write(q->wake[1], &one, 1) < 0 && errno != EAGAIN)
		vg_debug("input wake pipe: %s", g_strerror(errno));
}

static void on_pointer(void *user, int32_t x, int32_t y, uint8_t buttons)
{
	vg_input_event *e = g_new0(vg_input_event, 1);

	e->kind = VG_INPUT_POINTER;
	e->x = x;
	e->y = y;
	e->buttons = buttons;
	push(user, e);
}

static void on_key(void *user, uint32_t keysym, bool down)
{
	vg_input_event *e = g_new0(vg_input_event, 1);

	e->kind = VG_INPUT_KEY;
	e->keysym = keysym;
	e->down = down;
	push(user, e);
}

static void on_cut_text(void *user, const char *utf8, size_t len)
{
	vg_inputqueue *q = user;
	vg_input_event *e;

	if (!q->cut_text)
		return;
	e = g_new0(vg_input_event, 1);
	e->kind = VG_INPUT_CUT_TEXT;
	e->text = g_strndup(utf8, len);
	e->len = len;
	push(q, e);
}

void vg_inputqueue_attach(vg_inputqueue *q, vg_server_input *in)
{
	in->pointer = on_pointer;
	in->key = on_key;
	in->cut_text = on_cut_text;
	in->user = q;
}

vg_input_event *vg_inputqueue_pop(vg_inputqueue *q)
{
	char buf[64];

	/* Drain first: an event pushed meanwhile leaves a byte behind, which
	 * costs one spurious wake-up, never a lost one. */
	while (read(q->wake[0], buf, sizeof buf) > 0)
		;
	return g_async_queue_try_pop(q->events);
}
