/* Workers on a GLib thread pool (vg_workers.h). */
#include <glib.h>

#include "common/vg_error.h"
#include "pipeline/vg_workers.h"

struct vg_workers {
	GThreadPool *pool;
	int n_threads;
};

/* One job: the parts still running, and what the caller waits on. */
typedef struct {
	vg_workers_fn fn;
	void *arg;
	int left;
	GMutex lock;
	GCond done;
} job;

typedef struct {
	job *j;
	int part;
} piece;

static void run_piece(gpointer data, gpointer user_data)
{
	piece *pc = data;
	job *j = pc->j;

	(void)user_data;
	j->fn(j->arg, pc->part);
	g_mutex_lock(&j->lock);
	if (--j->left == 0)
		g_cond_signal(&j->done);
	g_mutex_unlock(&j->lock);
}

int vg_workers_new(int n_threads, vg_workers **out)
{
	GError *gerr = NULL;
	vg_workers *w;

	*out = NULL;
	if (n_threads < 0 || n_threads >= VG_WORKERS_MAX)
		return VG_EINVAL;
	w = g_new0(vg_workers, 1);
	w->n_threads = n_threads;
	if (n_threads > 0) {
		/* Exclusive: the threads start now and serve only this set,
		 * so a job never waits for one to be made. */
		w->pool = g_thread_pool_new(run_piece, NULL, n_threads, TRUE, &gerr);
		if (!w->pool) {
			g_clear_error(&gerr);
			g_free(w);
			return VG_ENOSPC;
		}
	}
	*out = w;
	return VG_OK;
}

int vg_workers_default_threads(void)
{
	int n = (int)g_get_num_processors() - 1;

	return CLAMP(n, 0, VG_WORKERS_MAX - 1);
}

void vg_workers_free(vg_workers *w)
{
	if (!w)
		return;
	if (w->pool)
		g_thread_pool_free(w->pool, FALSE, TRUE);
	g_free(w);
}

int vg_workers_parts(const vg_workers *w)
{
	return w ? w->n_threads + 1 : 1;
}

void vg_workers_run(vg_workers *w, vg_workers_fn fn, void *arg, int n_parts)
{
	piece pieces[VG_WORKERS_MAX];
	job j = { fn, arg, 0, { 0 }, { 0 } };
	int i;

	n_parts = CLAMP(n_parts, 1, VG_WORKERS_MAX);
	if (!w || !w->pool || n_parts == 1) {
		for (i = 0; i < n_parts; i++)
			fn(arg, i);
		return;
	}
	j.left = n_parts - 1;
	g_mutex_init(&j.lock);
	g_cond_init(&j.done);
	for (i = 1; i < n_parts; i++) {
		pieces[i] = (piece){ &j, i };
		g_thread_pool_push(w->pool, &pieces[i], NULL);
	}
	fn(arg, 0);
	g_mutex_lock(&j.lock);
	while (j.left > 0)
		g_cond_wait(&j.done, &j.lock);
	g_mutex_unlock(&j.lock);
	g_mutex_clear(&j.lock);
	g_cond_clear(&j.done);
}
