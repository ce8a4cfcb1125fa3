/* Workers: GLib threads that wait on a queue of jobs (vg_workers.h).
 *
 * A job lives on the heap and counts its holders: a thread may take its
 * piece after the caller has returned (every part claimed by others),
 * so the last holder frees it. Parts are claimed from an atomic counter,
 * so whichever thread is free runs the next one. All hand-over is
 * pthread's locks and C11 atomics, which ThreadSanitizer follows (GLib's
 * own thread pool passes work through a lock it cannot see, and reuses
 * threads across pools). */
#include <glib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "common/vg_error.h"
#include "pipeline/vg_workers.h"

typedef struct {
	vg_workers_fn fn;
	void *arg;
	int n_parts;
	atomic_int next;          /* the next part to claim */
	atomic_int left;          /* parts not yet done */
	atomic_int refs;          /* the caller and the pieces not yet run */
	pthread_mutex_t lock;     /* the caller sleeps on done while parts run */
	pthread_cond_t done;
} job;

struct vg_workers {
	pthread_mutex_t lock;     /* guards queue and stop */
	pthread_cond_t wake;      /* a piece was queued, or stop was set */
	GQueue queue;             /* job *, one entry a piece */
	bool stop;
	GThread *threads[VG_WORKERS_MAX];
	int n_threads;
};

static void job_unref(job *j)
{
	if (atomic_fetch_sub_explicit(&j->refs, 1, memory_order_acq_rel) == 1) {
		pthread_mutex_destroy(&j->lock);
		pthread_cond_destroy(&j->done);
		g_free(j);
	}
}

/* Runs parts until none is left to claim. */
static void run_parts(job *j)
{
	int part;

	while ((part = atomic_fetch_add_explicit(&j->next, 1, memory_order_acq_rel)) < j->n_parts) {
		j->fn(j->arg, part);
		if (atomic_fetch_sub_explicit(&j->left, 1, memory_order_acq_rel) == 1) {
			pthread_mutex_lock(&j->lock);
			pthread_cond_signal(&j->done);
			pthread_mutex_unlock(&j->lock);
		}
	}
}

static gpointer worker_main(gpointer data)
{
	vg_workers *w = data;

	for (;;) {
		job *j;

		pthread_mutex_lock(&w->lock);
		while (!w->stop && g_queue_is_empty(&w->queue))
			pthread_cond_wait(&w->wake, &w->lock);
		j = g_queue_pop_head(&w->queue);
		pthread_mutex_unlock(&w->lock);
		if (!j)
			return NULL;  /* stopped, the queue empty */
		run_parts(j);
		job_unref(j);
	}
}

int vg_workers_new(int n_threads, vg_workers **out)
{
	vg_workers *w;
	int i;

	*out = NULL;
	if (n_threads < 0 || n_threads >= VG_WORKERS_MAX)
		return VG_EINVAL;
	w = g_new0(vg_workers, 1);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	g_queue_init(&w->queue);
	for (i = 0; i < n_threads; i++) {
		GError *gerr = NULL;

		w->threads[i] = g_thread_try_new("varg-worker", worker_main, w, &gerr);
		if (!w->threads[i]) {
			g_clear_error(&gerr);
			vg_workers_free(w);
			return VG_ENOSPC;
		}
		w->n_threads++;
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
	int i;

	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->wake);
	pthread_mutex_unlock(&w->lock);
	for (i = 0; i < w->n_threads; i++)
		g_thread_join(w->threads[i]);
	g_queue_clear(&w->queue);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->wake);
	g_free(w);
}

int vg_workers_parts(const vg_workers *w)
{
	return w ? w->n_threads + 1 : 1;
}

void vg_workers_run(vg_workers *w, vg_workers_fn fn, void *arg, int n_parts)
{
	job *j;
	int i, pushed;

	n_parts = CLAMP(n_parts, 1, VG_WORKERS_MAX);
	if (!w || w->n_threads == 0 || n_parts == 1) {
		for (i = 0; i < n_parts; i++)
			fn(arg, i);
		return;
	}
	pushed = MIN(n_parts - 1, w->n_threads);
	j = g_new(job, 1);
	j->fn = fn;
	j->arg = arg;
	j->n_parts = n_parts;
	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->done, NULL);
	atomic_init(&j->left, n_parts);
	atomic_init(&j->refs, pushed + 1);
	atomic_init(&j->next, 1); /* part 0 is the caller's */
	pthread_mutex_lock(&w->lock);
	for (i = 0; i < pushed; i++)
		g_queue_push_tail(&w->queue, j);
	pthread_cond_broadcast(&w->wake);
	pthread_mutex_unlock(&w->lock);
	fn(arg, 0);
	atomic_fetch_sub_explicit(&j->left, 1, memory_order_acq_rel);
	run_parts(j);
	pthread_mutex_lock(&j->lock);
	while (atomic_load_explicit(&j->left, memory_order_acquire) > 0)
		pthread_cond_wait(&j->done, &j->lock);
	pthread_mutex_unlock(&j->lock);
	job_unref(j);
}
