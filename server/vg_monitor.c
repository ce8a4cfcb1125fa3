/* Per-stage records of updates, summarised on demand (see vg_monitor.h). */
#include <glib.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "server/vg_monitor.h"

struct vg_monitor {
	pthread_mutex_t lock;
	vg_monitor_update *ring;
	size_t cap;
	uint64_t next;            /* records so far; ring[next % cap] is the oldest */
	uint64_t raw_bytes, sent_bytes;
};

int vg_monitor_new(size_t ring, vg_monitor **out)
{
	vg_monitor *m;

	*out = NULL;
	if (ring < 16 || ring > 1048576)
		return VG_EINVAL;
	m = g_new0(vg_monitor, 1);
	pthread_mutex_init(&m->lock, NULL);
	m->ring = g_new0(vg_monitor_update, ring);
	m->cap = ring;
	*out = m;
	return VG_OK;
}

void vg_monitor_free(vg_monitor *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	g_free(m->ring);
	g_free(m);
}

void vg_monitor_record(vg_monitor *m, const vg_monitor_update *u)
{
	pthread_mutex_lock(&m->lock);
	m->ring[m->next % m->cap] = *u;
	m->next++;
	if (!u->stock) {
		m->raw_bytes += u->raw_bytes;
		m->sent_bytes += u->sent_bytes;
	}
	pthread_mutex_unlock(&m->lock);
}

static int u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return (a > b) - (a < b);
}

/* Summarises stage of the records of one kind in recs[0..n). */
static void summarize_stage(const vg_monitor_update *recs, size_t n, bool stock, vg_stage stage,
			    uint64_t *scratch, vg_stage_summary *out)
{
	size_t i, k = 0;
	double sum = 0;

	memset(out, 0, sizeof *out);
	for (i = 0; i < n; i++)
		if (recs[i].stock == stock) {
			scratch[k++] = recs[i].ns[stage];
			sum += (double)recs[i].ns[stage];
		}
	if (k == 0)
		return;
	qsort(scratch, k, sizeof *scratch, u64_cmp);
	out->n = k;
	out->mean_ns = sum / (double)k;
	out->p50_ns = scratch[(k - 1) / 2];
	out->p99_ns = scratch[(k - 1) * 99 / 100];
	out->max_ns = scratch[k - 1];
}

void vg_monitor_summarize(vg_monitor *m, vg_monitor_summary *out)
{
	vg_monitor_update *recs;
	uint64_t *scratch;
	size_t n, i;
	int s;

	memset(out, 0, sizeof *out);
	/* Copied out, so recording waits only for the copy. */
	pthread_mutex_lock(&m->lock);
	n = m->next < m->cap ? (size_t)m->next : m->cap;
	recs = g_new(vg_monitor_update, n ? n : 1);
	memcpy(recs, m->ring, n * sizeof *recs);
	out->updates = m->next;
	out->raw_bytes = m->raw_bytes;
	out->sent_bytes = m->sent_bytes;
	pthread_mutex_unlock(&m->lock);

	out->window = n;
	for (i = 0; i < n; i++)
		if (!recs[i].stock) {
			out->window_shared += recs[i].shared;
			out->window_raw += recs[i].raw_bytes;
			out->window_sent += recs[i].sent_bytes;
		}
	scratch = g_new(uint64_t, n ? n : 1);
	for (s = 0; s < VG_STAGE_COUNT; s++) {
		summarize_stage(recs, n, false, (vg_stage)s, scratch, &out->varg[s]);
		if (s == VG_STAGE_WRITE || s == VG_STAGE_LATENCY)
			summarize_stage(recs, n, true, (vg_stage)s, scratch, &out->stock[s]);
	}
	g_free(scratch);
	g_free(recs);
}

const char *vg_stage_name(vg_stage stage)
{
	static const char *const names[VG_STAGE_COUNT] = {
		"snapshot", "differ", "motion", "segmenter", "sender", "write", "latency",
	};

	return stage < VG_STAGE_COUNT ? names[stage] : "unknown";
}
