/* Workers: a few threads that run the parts of one job alongside the
 * caller, who runs part 0 and returns when every part is done. A program
 * makes one set for all its pipelines (varg-server one per screen,
 * varg-trace one per run); the pipeline splits a big update's differ and
 * segment step across them (vg_pipeline_config.workers).
 *
 * Callers on several threads may run jobs at once: their parts queue for
 * the same threads, and each caller runs part 0, then claims whatever
 * part no thread has taken yet, so no job waits for a thread that is busy
 * with another.
 */
#ifndef VG_WORKERS_H
#define VG_WORKERS_H

/* The most parts one job is split into. */
#define VG_WORKERS_MAX 16

typedef struct vg_workers vg_workers;

/* One part of a job: part is 0 .. n_parts - 1. */
typedef void (*vg_workers_fn)(void *arg, int part);

/* Makes a set of n_threads threads (0 .. VG_WORKERS_MAX - 1; 0 makes
 * every job run on the caller's thread alone). VG_EINVAL for a count out
 * of range, VG_ENOSPC when the system cannot start the threads (*out =
 * NULL). Free with vg_workers_free(). */
int vg_workers_new(int n_threads, vg_workers **out);

/* The threads' count for a machine: one fewer than its processors, at
 * most VG_WORKERS_MAX - 1. */
int vg_workers_default_threads(void);

/* Stops and joins the threads and frees w; accepts NULL. No job may be
 * running. */
void vg_workers_free(vg_workers *w);

/* How many parts a job should be cut into: the threads and the caller.
 * 1 for NULL. */
int vg_workers_parts(const vg_workers *w);

/* Runs fn(arg, part) for every part of n_parts (1 .. VG_WORKERS_MAX),
 * each once: part 0 on the caller's thread, the others on whichever of
 * w's threads or the caller's claims them first (all on the caller's
 * with w NULL), and returns when all have returned. */
void vg_workers_run(vg_workers *w, vg_workers_fn fn, void *arg, int n_parts);

#endif
