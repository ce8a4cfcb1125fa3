#include <glib.h>
#include <inttypes.h>
#include <stdio.h>

#include "common/vg_error.h"
#include "traces/vg_trace.h"
#include "viewer/vg_framelog.h"

struct vg_framelog {
	FILE *f;
	uint64_t lines;
	uint64_t updates_seen;  /* the connection's update count at the last poll */
	bool failed;
};

int vg_framelog_open(const char *path, vg_framelog **out)
{
	FILE *f = fopen(path, "w");

	*out = NULL;
	if (!f)
		return VG_EIO;
	*out = g_new0(vg_framelog, 1);
	(*out)->f = f;
	return VG_OK;
}

int vg_framelog_update(vg_framelog *fl, uint64_t t_ns, const vg_pixbuf *fb,
		       uint64_t varg_updates, uint64_t approx_pixels)
{
	uint64_t hash = vg_frame_hash(fb);

	if (fl->failed)
		return VG_EIO;
	/* Flushed per line, so a benchmark can watch the viewer progress: one
	 * short write per update, microseconds against milliseconds measured. */
	if (fprintf(fl->f, "%" PRIu64 " %" PRIu64 " %016" PRIx64 " %" PRIu64 " %" PRIu64 "\n", t_ns,
		    fl->lines, hash, varg_updates, approx_pixels) < 0 ||
	    fflush(fl->f) != 0) {
		fl->failed = true;
		return VG_EIO;
	}
	fl->lines++;
	return VG_OK;
}

int vg_framelog_poll(vg_framelog *fl, const vg_connection *c, uint64_t t_ns)
{
	vg_connection_stats st;
	vg_pixbuf fb;

	vg_connection_get_stats(c, &st);
	if (st.updates == fl->updates_seen)
		return VG_OK;
	fl->updates_seen = st.updates;
	fb = vg_connection_frame(c);
	return vg_framelog_update(fl, t_ns, &fb, st.varg_updates, st.approx_pixels);
}

uint64_t vg_framelog_lines(const vg_framelog *fl)
{
	return fl->lines;
}

int vg_framelog_close(vg_framelog *fl)
{
	bool failed;

	if (!fl)
		return VG_OK;
	failed = fl->failed;
	if (fclose(fl->f) != 0)
		failed = true;
	g_free(fl);
	return failed ? VG_EIO : VG_OK;
}
