/* The screen's core state, shared by every client: the frame and the
 * lock between the source that writes it and the clients' output threads
 * that read it, the settings, the shared handles and the counters.
 *
 * The locks are pthread locks, not GLib's: GLib's futex-based locks are
 * invisible to ThreadSanitizer, which then reports every guarded access.
 */
#include <glib.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "server/vg_screen.h"
#include "server/vg_serverkey.h"

/* Results kept for viewers in step: two per update in flight is plenty
 * when viewers are in step; more only helps viewers that lag by several
 * frames, whose motion memories then rarely match anyway. */
#define SHARE_SLOTS 8

/* Updates whose stage times the monitor keeps (80 bytes each). */
#define MONITOR_RING 4096

struct vg_screen {
	vg_server_config cfg;
	vg_screen_testing testing;
	vg_pixbuf *frame;         /* shared with LibVNCServer as frameBuffer */
	pthread_rwlock_t frame_lock; /* written by the source; read by every send */
	uint64_t serial;          /* bumped by every write to the frame (under frame_lock) */
	uint64_t frame_ns;        /* when the frame last changed (under frame_lock) */
	GPtrArray *old_frames;    /* vg_pixbuf: frames before a resize */
	vg_segshare *share;       /* motion and segments of viewers in step */
	vg_monitor *monitor;      /* per-stage records; NULL: not kept */
	int varg_now;             /* Varg viewers connected (atomic) */
	uint8_t server_id[16];
	vg_serverkey *key;        /* holds the identity's slot; NULL: random */
	vg_beliefstore *beliefs;  /* NULL: beliefs die with the connection */
	vg_workers *workers;      /* the segment step's threads, for every viewer */
	pthread_mutex_t stats_lock;
	vg_screen_stats stats;
	pthread_mutex_t cursor_lock;
	uint64_t cursor_serial;   /* shapes set so far (under cursor_lock) */
	vg_cursor_shape cursor;   /* the last; its pixels in cursor_argb */
	uint32_t *cursor_argb;
};

int vg_screen_new(const vg_server_config *cfg, int32_t width, int32_t height, vg_screen **out)
{
	vg_screen *scr = g_new0(vg_screen, 1);
	const char *env;
	int err;

	scr->cfg = *cfg;
	if (!scr->cfg.beliefs_save_s)
		scr->cfg.beliefs_save_s = 60;
	scr->testing.race_fix = true;
	if ((env = g_getenv("VARG_TEST_SEND_DELAY_MS")))
		scr->testing.send_delay_ms = atoi(env);
	if ((env = g_getenv("VARG_TEST_PASS_DELAY_MS")))
		scr->testing.pass_delay_ms = atoi(env);
	/* Approximations on loopback, as if the link were this slow. */
	if ((env = g_getenv("VARG_TEST_LINK_RATE")))
		scr->testing.link_rate = g_ascii_strtoull(env, NULL, 10);
	if ((env = g_getenv("VARG_TEST_NO_RACE_FIX")) && *env == '1')
		scr->testing.race_fix = false;
	/* Shows what a slow stock client did to everyone before it had a
	 * frame of its own (tests/e2e/test_stress.sh). */
	if ((env = g_getenv("VARG_TEST_SHARED_FRAME")) && *env == '1')
		scr->testing.shared_read = true;
	pthread_rwlock_init(&scr->frame_lock, NULL);
	pthread_mutex_init(&scr->stats_lock, NULL);
	pthread_mutex_init(&scr->cursor_lock, NULL);
	scr->cursor_argb = g_new(uint32_t, VG_CURSOR_MAX_DIM * VG_CURSOR_MAX_DIM);
	scr->frame = vg_pixbuf_new(width, height);
	scr->old_frames = g_ptr_array_new_with_free_func((GDestroyNotify)vg_pixbuf_free);
	/* Testing aid: VARG_TEST_NO_MONITOR=1 measures the server without
	 * its monitor, VARG_TEST_NO_SHARE=1 without shared segmentation. */
	if ((err = vg_workers_new(scr->cfg.threads, &scr->workers))) {
		vg_error("cannot start %d threads for the viewers' updates", scr->cfg.threads);
		vg_screen_free(scr);
		return err;
	}
	if ((!((env = g_getenv("VARG_TEST_NO_SHARE")) && *env == '1') &&
	     vg_segshare_new(SHARE_SLOTS, &scr->share)) ||
	    (!((env = g_getenv("VARG_TEST_NO_MONITOR")) && *env == '1') &&
	     vg_monitor_new(MONITOR_RING, &scr->monitor))) {
		vg_error("cannot set up the shared segmentation or the monitor");
		vg_screen_free(scr);
		return VG_EINVAL;
	}
	*out = scr;
	return VG_OK;
}

/* The identity viewers file this server's segments under: a random key
 * kept beside the beliefs (vg_serverkey), stable across restarts and
 * ports. A server whose viewers keep nothing on disk, or that cannot keep
 * the key, takes a random one for this run. */
static void make_server_id(vg_screen *scr)
{
	const vg_server_config *cfg = &scr->cfg;
	g_autofree char *base = NULL;
	int err, replaced = 0;

	if (!cfg->no_persist) {
		base = cfg->beliefs_dir ? g_strdup(cfg->beliefs_dir) : vg_beliefstore_default_base_dir();
		err = vg_serverkey_open(base, scr->server_id, &replaced, &scr->key);
		if (!err) {
			if (replaced)
				vg_warn("%s was damaged: a new server identity (viewers start cold once)",
					vg_serverkey_path(scr->key));
			return;
		}
		vg_warn("cannot keep a server identity in %s (%s); viewers' caches stay cold across restarts",
			base, vg_strerror(err));
	}
	/* GLib's generator is seeded from /dev/urandom. */
	for (size_t i = 0; i < sizeof scr->server_id; i += 4) {
		guint32 r = g_random_int();

		memcpy(scr->server_id + i, &r, 4);
	}
}

void vg_screen_open_beliefs(vg_screen *scr)
{
	const vg_server_config *cfg = &scr->cfg;

	make_server_id(scr);
	if (!cfg->no_persist) {
		vg_beliefstore_config bc = { .base_dir = cfg->beliefs_dir,
					     .max_viewers = cfg->beliefs_viewers,
					     .max_file_bytes = cfg->beliefs_file_bytes };
		int err = vg_beliefstore_open(&bc, scr->server_id, &scr->beliefs);

		if (err)
			vg_warn("cannot keep beliefs about viewers' caches (%s); every viewer starts cold",
				vg_strerror(err));
	}
}

void vg_screen_free(vg_screen *scr)
{
	if (!scr)
		return;
	vg_beliefstore_free(scr->beliefs);
	vg_serverkey_free(scr->key);
	vg_segshare_free(scr->share);
	vg_monitor_free(scr->monitor);
	vg_workers_free(scr->workers);
	vg_pixbuf_free(scr->frame);
	g_ptr_array_free(scr->old_frames, TRUE);
	pthread_rwlock_destroy(&scr->frame_lock);
	pthread_mutex_destroy(&scr->stats_lock);
	pthread_mutex_destroy(&scr->cursor_lock);
	g_free(scr->cursor_argb);
	g_free(scr);
}

const vg_server_config *vg_screen_config(const vg_screen *scr)
{
	return &scr->cfg;
}

const vg_screen_testing *vg_screen_testing_aids(const vg_screen *scr)
{
	return &scr->testing;
}

const uint8_t *vg_screen_server_id(const vg_screen *scr)
{
	return scr->server_id;
}

vg_workers *vg_screen_workers(const vg_screen *scr)
{
	return scr->workers;
}

vg_beliefstore *vg_screen_beliefs(const vg_screen *scr)
{
	return scr->beliefs;
}

vg_segshare *vg_screen_share(const vg_screen *scr)
{
	return scr->share;
}

vg_monitor *vg_screen_monitor(const vg_screen *scr)
{
	return scr->monitor;
}

const vg_pixbuf *vg_screen_read_lock(vg_screen *scr)
{
	pthread_rwlock_rdlock(&scr->frame_lock);
	return scr->frame;
}

void vg_screen_read_unlock(vg_screen *scr)
{
	pthread_rwlock_unlock(&scr->frame_lock);
}

vg_pixbuf *vg_screen_write_lock(vg_screen *scr)
{
	pthread_rwlock_wrlock(&scr->frame_lock);
	/* The writer may change any pixel: results shared for the old
	 * serial never match a snapshot of the new one. */
	scr->serial++;
	return scr->frame;
}

void vg_screen_write_unlock(vg_screen *scr)
{
	scr->frame_ns = vg_time_ns();
	pthread_rwlock_unlock(&scr->frame_lock);
}

void vg_screen_replace_frame(vg_screen *scr, vg_pixbuf *frame)
{
	g_ptr_array_add(scr->old_frames, scr->frame);
	scr->frame = frame;
	scr->serial++;
	scr->frame_ns = vg_time_ns();
}

vg_pixbuf *vg_screen_frame(const vg_screen *scr)
{
	return scr->frame;
}

uint64_t vg_screen_serial(const vg_screen *scr)
{
	return scr->serial;
}

uint64_t vg_screen_frame_ns(const vg_screen *scr)
{
	return scr->frame_ns;
}

void vg_screen_varg_joined(vg_screen *scr)
{
	g_atomic_int_inc(&scr->varg_now);
}

void vg_screen_varg_left(vg_screen *scr)
{
	g_atomic_int_dec_and_test(&scr->varg_now);
}

int vg_screen_varg_count(vg_screen *scr)
{
	return g_atomic_int_get(&scr->varg_now);
}

vg_screen_stats *vg_screen_stats_lock(vg_screen *scr)
{
	pthread_mutex_lock(&scr->stats_lock);
	return &scr->stats;
}

void vg_screen_stats_unlock(vg_screen *scr)
{
	pthread_mutex_unlock(&scr->stats_lock);
}

int vg_screen_set_cursor(vg_screen *scr, const uint32_t *argb, int32_t width, int32_t height,
			 int32_t hot_x, int32_t hot_y)
{
	if (!vg_cursorlist_shape_valid(width, height, hot_x, hot_y))
		return VG_EINVAL;
	pthread_mutex_lock(&scr->cursor_lock);
	memcpy(scr->cursor_argb, argb, (size_t)width * (size_t)height * 4);
	scr->cursor = (vg_cursor_shape){ width, height, hot_x, hot_y, scr->cursor_argb };
	scr->cursor_serial++;
	pthread_mutex_unlock(&scr->cursor_lock);
	return VG_OK;
}

uint64_t vg_screen_cursor(vg_screen *scr, uint64_t since, uint32_t *argb, vg_cursor_shape *shape)
{
	uint64_t serial;

	pthread_mutex_lock(&scr->cursor_lock);
	serial = scr->cursor_serial;
	if (serial && serial != since) {
		*shape = scr->cursor;
		memcpy(argb, scr->cursor.argb, (size_t)shape->width * (size_t)shape->height * 4);
		shape->argb = argb;
	}
	pthread_mutex_unlock(&scr->cursor_lock);
	return serial;
}
