/* Shared segmentation between viewers in step (see vg_segshare.h). */
#include <pthread.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_time.h"
#include "server/vg_segshare.h"

typedef enum {
	SLOT_FREE = 0,
	SLOT_PENDING,             /* claimed: its viewer computes the result */
	SLOT_READY,
} slot_state;

/* The key fields (serial, rects, n_changed, before) are written when the
 * slot is claimed, under the lock, and stay as they are until it is free
 * again; the result fields are written by the claimer alone while the slot
 * is pending, and read by others only once it is ready. */
struct vg_segshare_slot {
	slot_state state;
	uint64_t used;            /* last claim or hit, for least recently used */
	uint64_t serial;
	GArray *rects;            /* vg_rect */
	size_t n_changed;
	uint8_t *before, *after;  /* estimator states */
	size_t before_len, after_len, before_cap, after_cap;
	vg_motion_dir dir;
	GArray *segs;             /* vg_segdesc */
};

struct vg_segshare {
	pthread_mutex_t lock;
	pthread_cond_t ready;     /* a pending slot became ready or free */
	unsigned n_slots;
	struct vg_segshare_slot *slots;
	uint64_t tick;
	vg_segshare_stats stats;
};

int vg_segshare_new(unsigned slots, vg_segshare **out)
{
	vg_segshare *sh;
	unsigned i;

	*out = NULL;
	if (slots < 1 || slots > 64)
		return VG_EINVAL;
	sh = g_new0(vg_segshare, 1);
	pthread_mutex_init(&sh->lock, NULL);
	pthread_cond_init(&sh->ready, NULL);
	sh->n_slots = slots;
	sh->slots = g_new0(struct vg_segshare_slot, slots);
	for (i = 0; i < slots; i++) {
		sh->slots[i].rects = g_array_new(FALSE, FALSE, sizeof(vg_rect));
		sh->slots[i].segs = g_array_new(FALSE, FALSE, sizeof(vg_segdesc));
	}
	*out = sh;
	return VG_OK;
}

void vg_segshare_free(vg_segshare *sh)
{
	unsigned i;

	if (!sh)
		return;
	for (i = 0; i < sh->n_slots; i++) {
		g_array_free(sh->slots[i].rects, TRUE);
		g_array_free(sh->slots[i].segs, TRUE);
		g_free(sh->slots[i].before);
		g_free(sh->slots[i].after);
	}
	g_free(sh->slots);
	pthread_mutex_destroy(&sh->lock);
	pthread_cond_destroy(&sh->ready);
	g_free(sh);
}

/* Grows *buf to hold len bytes (buffers are reused between results). */
static void reserve(uint8_t **buf, size_t *cap, size_t len)
{
	if (*cap < len) {
		*buf = g_realloc(*buf, len);
		*cap = len;
	}
}

/* Whether slot holds (or is computing) the result for in and motion. */
static bool slot_matches(const struct vg_segshare_slot *slot, const vg_segshare_input *in,
			 const vg_motion *motion)
{
	return slot->state != SLOT_FREE && slot->serial == in->serial &&
	       slot->n_changed == in->n_changed && slot->rects->len == in->n_rects &&
	       (in->n_rects == 0 ||
		memcmp(slot->rects->data, in->rects, in->n_rects * sizeof *in->rects) == 0) &&
	       vg_motion_state_equal(motion, slot->before, slot->before_len);
}

int vg_segshare_lookup(vg_segshare *sh, const vg_segshare_input *in, vg_motion *motion,
			vg_motion_dir *dir, GArray *segs, vg_segshare_claim **claim)
{
	struct vg_segshare_slot *slot, *pick = NULL;
	uint64_t t0;
	unsigned i;

	*claim = NULL;
	/* Unprimed, the estimator reads the whole frame, not only the
	 * pixels this viewer copied for its rectangles. */
	if (!vg_motion_is_primed(motion)) {
		pthread_mutex_lock(&sh->lock);
		sh->stats.unshared++;
		pthread_mutex_unlock(&sh->lock);
		return VG_ENOENT;
	}
	pthread_mutex_lock(&sh->lock);
	for (;;) {
		slot = NULL;
		for (i = 0; i < sh->n_slots && !slot; i++)
			if (slot_matches(&sh->slots[i], in, motion))
				slot = &sh->slots[i];
		if (!slot || slot->state != SLOT_PENDING)
			break;
		/* Someone computes this very result now: waiting costs no CPU,
		 * computing it too would cost the whole estimate. */
		t0 = vg_time_ns();
		sh->stats.waits++;
		pthread_cond_wait(&sh->ready, &sh->lock);
		sh->stats.wait_ns += vg_time_ns() - t0;
	}
	if (slot) {
		int err = vg_motion_state_load(motion, slot->after, slot->after_len);

		/* Same size as before, which matched: cannot fail. */
		g_assert(err == VG_OK);
		*dir = slot->dir;
		g_array_set_size(segs, 0);
		g_array_append_vals(segs, slot->segs->data, slot->segs->len);
		slot->used = ++sh->tick;
		sh->stats.hits++;
		pthread_mutex_unlock(&sh->lock);
		return VG_OK;
	}
	for (i = 0; i < sh->n_slots; i++) {
		slot = &sh->slots[i];
		if (slot->state == SLOT_PENDING)
			continue;
		if (!pick || slot->state == SLOT_FREE ||
		    (pick->state == SLOT_READY && slot->used < pick->used))
			pick = slot;
		if (pick->state == SLOT_FREE)
			break;
	}
	if (!pick) {
		sh->stats.unshared++;
		pthread_mutex_unlock(&sh->lock);
		return VG_ENOENT;
	}
	if (pick->state == SLOT_READY)
		sh->stats.evictions++;
	pick->state = SLOT_PENDING;
	pick->used = ++sh->tick;
	pick->serial = in->serial;
	pick->n_changed = in->n_changed;
	g_array_set_size(pick->rects, 0);
	g_array_append_vals(pick->rects, in->rects, (guint)in->n_rects);
	pick->before_len = vg_motion_state_size(motion);
	reserve(&pick->before, &pick->before_cap, pick->before_len);
	vg_motion_state_save(motion, pick->before);
	sh->stats.misses++;
	pthread_mutex_unlock(&sh->lock);
	*claim = pick;
	return VG_ENOENT;
}

void vg_segshare_publish(vg_segshare *sh, vg_segshare_claim *claim, const vg_motion *motion,
			 vg_motion_dir dir, const vg_segdesc *segs, size_t n_segs)
{
	/* Pending: nobody else touches the result fields (see the slot). */
	claim->after_len = vg_motion_state_size(motion);
	reserve(&claim->after, &claim->after_cap, claim->after_len);
	vg_motion_state_save(motion, claim->after);
	claim->dir = dir;
	g_array_set_size(claim->segs, 0);
	g_array_append_vals(claim->segs, segs, (guint)n_segs);
	pthread_mutex_lock(&sh->lock);
	claim->state = SLOT_READY;
	pthread_cond_broadcast(&sh->ready);
	pthread_mutex_unlock(&sh->lock);
}

void vg_segshare_abandon(vg_segshare *sh, vg_segshare_claim *claim)
{
	if (!claim)
		return;
	pthread_mutex_lock(&sh->lock);
	claim->state = SLOT_FREE;
	pthread_cond_broadcast(&sh->ready);
	pthread_mutex_unlock(&sh->lock);
}

void vg_segshare_get_stats(vg_segshare *sh, vg_segshare_stats *st)
{
	pthread_mutex_lock(&sh->lock);
	*st = sh->stats;
	pthread_mutex_unlock(&sh->lock);
}
