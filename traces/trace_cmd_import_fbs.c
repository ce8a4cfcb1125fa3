/* varg-trace import --fbs: an FBS capture of an RFB session becomes a
 * trace. The server's stream is decoded message by message; after each
 * framebuffer update the tiles that changed are stored as a frame record,
 * stamped with the time of the FBS block that completed the update. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "traces/trace_cmd.h"
#include "traces/vg_fbs.h"
#include "traces/vg_rfbstream.h"
#include "segment2d/vg_tilediff.h"
#include "traces/vg_trace.h"

/* Largest framebuffer imported: VG_MAX_DIM squared. */
#define MAX_PIXELS ((uint64_t)VG_MAX_DIM * VG_MAX_DIM)

/* Stores the update that just ended, as the tiles that differ from prev
 * (all of the frame the first time); updates that change nothing are
 * left out. Copies the frame to prev. */
static int store_update(vg_trace_writer *w, const vg_pixbuf *cur, vg_pixbuf *prev, bool first,
			vg_rect *rects, size_t cap, int tile, uint64_t t_ns, uint64_t *frames)
{
	size_t n, i;
	int err;

	if (first) {
		rects[0] = vg_pixbuf_rect(cur);
		n = 1;
	} else if ((err = vg_tilediff(prev, cur, tile, rects, cap, &n))) {
		return err;
	}
	if (n == 0)
		return VG_OK;
	n = vg_trace_fit_rects(rects, n);
	if ((err = vg_trace_writer_frame(w, t_ns, cur, rects, n)))
		return err;
	for (i = 0; i < n; i++)
		vg_pixbuf_copy_rect(prev, cur, rects[i]);
	(*frames)++;
	return VG_OK;
}

int vg__trace_import_fbs(const char *path, const char *out, int tile, int level, bool quiet)
{
	g_autofree char *file = NULL;
	GByteArray *stream = g_byte_array_new();
	GArray *marks = g_array_new(FALSE, FALSE, sizeof(vg_fbs_mark));
	vg_rfbstream *dec = vg_rfbstream_new(MAX_PIXELS);
	vg_trace_writer *w = NULL;
	vg_pixbuf *prev = NULL;
	vg_rect *rects = NULL;
	GError *error = NULL;
	size_t len, bad, pos = 0, used, cap = 0;
	uint64_t frames = 0, messages = 0;
	guint hint = 0;
	bool cut = false;
	int err, status = VG__EXIT_FAIL;

	if (!g_file_get_contents(path, &file, &len, &error)) {
		vg_error("%s", error->message);
		g_error_free(error);
		goto out;
	}
	err = vg_fbs_parse((const uint8_t *)file, len, stream, marks, &bad);
	if (err == VG_EFORMAT) {
		vg_error("%s: not an FBS file (no \"FBS 001.\" header)", path);
		goto out;
	} else if (err == VG_ENOTSUP) {
		vg_error("%s: FBS version %.11s is not supported (only 001.000)", path, file);
		goto out;
	} else if (err == VG_ETRUNC) {
		vg_warn("%s: the file ends inside the block at offset %zu; importing what comes before", path, bad);
		cut = true;
	}
	if ((err = vg_rfbstream_handshake(dec, stream->data, stream->len, &used))) {
		vg_error("%s: %s", path, vg_rfbstream_error_text(dec));
		goto out;
	}
	pos = used;
	prev = vg_pixbuf_new(vg_rfbstream_frame(dec)->width, vg_rfbstream_frame(dec)->height);
	cap = vg_tilediff_max_rects(prev->width, prev->height, tile);
	rects = g_new(vg_rect, cap);
	if ((err = vg_trace_writer_open(out, prev->width, prev->height, &w))) {
		vg_error("%s: %s", out, vg_strerror(err));
		goto out;
	}
	vg_trace_writer_set_level(w, level);
	while (pos < stream->len) {
		err = vg_rfbstream_message(dec, stream->data + pos, stream->len - pos, &used);
		if (err == VG_ETRUNC) {
			/* A recording stopped in the middle of a message: what
			 * came before it is a complete session. */
			vg_warn("%s: %s (at stream offset %zu); importing what comes before", path,
				vg_rfbstream_error_text(dec), pos);
			cut = true;
			break;
		}
		if (err < 0) {
			vg_error("%s: stream offset %zu: %s", path, pos, vg_rfbstream_error_text(dec));
			goto out;
		}
		pos += used;
		messages++;
		if (err == 1) {
			uint64_t t_ns = (uint64_t)vg_fbs_time_at(marks, pos, &hint) * 1000000u;

			if ((err = store_update(w, vg_rfbstream_frame(dec), prev, frames == 0, rects, cap, tile,
						t_ns, &frames))) {
				vg_error("%s: %s", out, vg_strerror(err));
				goto out;
			}
		}
	}
	if (frames == 0) {
		vg_error("%s: no framebuffer update in the recording", path);
		goto out;
	}
	err = vg_trace_writer_close(w);
	w = NULL;
	if (err) {
		vg_error("%s: %s", out, vg_strerror(err));
		goto out;
	}
	if (!quiet) {
		GStatBuf st;

		if (g_stat(out, &st) == 0)
			printf("%s: %" G_GUINT64_FORMAT " frames from %" G_GUINT64_FORMAT " messages%s, %lld bytes\n",
			       out, frames, messages, cut ? " (recording cut short)" : "", (long long)st.st_size);
	}
	status = VG__EXIT_OK;
out:
	if (w) {
		vg_trace_writer_abandon(w);
		g_unlink(out);
	}
	vg_rfbstream_free(dec);
	vg_pixbuf_free(prev);
	g_free(rects);
	g_byte_array_free(stream, TRUE);
	g_array_free(marks, TRUE);
	return status;
}
