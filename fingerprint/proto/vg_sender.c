#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_reader.h"
#include "common/vg_time.h"
#include "fingerprint/codec/vg_approx.h"
#include "fingerprint/proto/vg_beliefs.h"
#include "fingerprint/proto/vg_history.h"
#include "fingerprint/proto/vg_pixcost.h"
#include "fingerprint/codec/vg_literal.h"
#include "fingerprint/codec/vg_pixmodel.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/proto/vg_sender.h"
#include "fingerprint/codec/vg_sha1.h"
#include "fingerprint/codec/vg_zstream.h"

/* One segment of an update as both ends remember it, so that the next
 * update may REPEAT it (doc/protocol.md). */
typedef vg_repeat_item list_item;

/* The pixel model's bytes a pixel before it has coded any: text's. */
#define MODEL_BYTES_PER_PIXEL 0.05

struct vg_sender {
	vg_sender_config cfg;
	vg_zout *zs;          /* the structure stream, from the viewer's hello on */
	vg_zout *zpix;        /* the pixel stream, likewise */
	vg_sha1 *sha1;
	vg_literal *lit;      /* codes literal segments */
	vg_writer plain;      /* an update's structure before compression, reused */
	vg_writer pix;        /* its coded literal pixels before compression */
	vg_writer checks;     /* its SHA-1 digests */
	vg_writer body;       /* the compressed structure, before its length */
	GArray *lit_rects;    /* vg_rect: the update's literal segments */
	vg_history *win;      /* the window: earlier updates' segments */
	GArray *cur;          /* list_item: the segments of the update being written */
	vg_history *cur_index; /* the same as a later REPEAT of this update may name
				* them: fingerprinted ones, not yet checked, unkeyed */
	vg_history *hist;     /* keyed literals sent to this cache, across sessions */
	GArray *cur_hist;     /* list_item: the update's keyed literals */
	uint64_t expect;      /* where the update's previous REPEAT ended */
	bool viewer_hello;        /* updates may be coded: the viewer's HELLO or its
				   capabilities announced ahead of it are known */
	bool viewer_named;        /* the VIEWER HELLO itself has arrived */
	bool ahead;               /* coding started from the announced capabilities */
	uint8_t ahead_window;     /* their zstd window log */
	uint8_t viewer_flags;
	uint8_t cache_id[16];
	uint64_t viewer_history;  /* digest of the viewer's saved history; 0: none */
	bool history_notice;      /* a restored history awaits its HISTORY message */
	bool updated;             /* an UPDATE was written: too late to restore */
	uint64_t believe_bytes;   /* budget: 80 % of the viewer's capacity */
	bool ping_pending;        /* a PING awaits its PONG */
	uint32_t ping_token;
	vg_beliefs *beliefs;      /* what the viewer's cache holds, we think */
	vg_approx *approx;        /* shrinks APPROX rectangles */
	vg_literal *approx_lit;   /* codes them: a message apart, never from the table */
	vg_literal *trial;        /* codes estimates (its counts are not the updates') */
	vg_pixmodel *pm;          /* the pixel model, from its first update */
	bool model_ok;            /* the model may code this viewer's pixels */
	bool by_model;            /* it codes this update's */
	vg_pixcost cost;          /* what each coding costs, to choose */
	uint64_t rate;            /* the link's, bytes/s; 0: unknown */
	uint64_t zpix_in, zpix_out; /* the pixel stream's bytes before and after zstd */
	/* An earlier connection's streams (of spare_level and pixel window
	 * spare_window) and pixel model, kept by vg_sender_reset for the
	 * next viewer: restarted, not made again. */
	vg_zout *spare_zs, *spare_zpix;
	int spare_level;
	unsigned spare_window;
	vg_pixmodel *spare_pm;
	char error[128];          /* why the last viewer message was refused */
	vg_sender_stats stats;
};

void vg_sender_config_init(vg_sender_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->zstd_level = VG_SENDER_ZSTD_LEVEL;
	cfg->zstd_window_log = VG_ZSTD_WINDOW_LOG_DEFAULT;
	cfg->fp_bits = VG_FP_BITS_DEFAULT;
	cfg->group_size = VG_GROUP_DEFAULT;
	cfg->pixmodel = true;
	cfg->indexed = true;
	cfg->repeat_within = true;
}

int vg_sender_new(const vg_sender_config *cfg, vg_sender **out)
{
	vg_sender *s;
	int err;

	if (cfg->zstd_level < 1 || cfg->zstd_level > 19 ||
	    cfg->zstd_window_log < VG_ZSTD_WINDOW_LOG_MIN ||
	    cfg->zstd_window_log > VG_ZSTD_WINDOW_LOG_MAX ||
	    cfg->fp_bits < VG_FP_BITS_MIN || cfg->fp_bits > VG_FP_BITS_MAX ||
	    cfg->group_size < 1 || cfg->group_size > 255)
		return VG_EINVAL;
	s = g_new0(vg_sender, 1);
	s->cfg = *cfg;
	/* The streams start when the viewer names its zstd window. */
	if ((err = vg_sha1_new(&s->sha1)) || (err = vg_literal_new(&s->lit)) ||
	    (err = vg_literal_new(&s->approx_lit)) || (err = vg_approx_new(&s->approx))) {
		vg_sha1_free(s->sha1);
		vg_literal_free(s->lit);
		vg_literal_free(s->approx_lit);
		g_free(s);
		return err;
	}
	vg_writer_init(&s->plain);
	vg_writer_init(&s->pix);
	vg_writer_init(&s->checks);
	vg_writer_init(&s->body);
	s->lit_rects = g_array_new(FALSE, FALSE, sizeof(vg_rect));
	s->win = vg_history_new(VG_REPEAT_WINDOW, true);
	s->cur = g_array_new(FALSE, FALSE, sizeof(list_item));
	s->cur_hist = g_array_new(FALSE, FALSE, sizeof(list_item));
	s->hist = vg_history_new(VG_HISTORY_MAX, true);
	s->cur_index = vg_history_new((size_t)1 << 31, true);
	s->beliefs = vg_beliefs_new();
	vg_pixcost_init(&s->cost);
	*out = s;
	return VG_OK;
}

/* Frees everything s holds, not s itself. */
static void release(vg_sender *s)
{
	vg_zout_free(s->zs);
	vg_zout_free(s->zpix);
	vg_sha1_free(s->sha1);
	vg_literal_free(s->lit);
	vg_writer_clear(&s->plain);
	vg_writer_clear(&s->pix);
	vg_writer_clear(&s->checks);
	vg_writer_clear(&s->body);
	g_array_free(s->lit_rects, TRUE);
	vg_history_free(s->win);
	g_array_free(s->cur, TRUE);
	g_array_free(s->cur_hist, TRUE);
	vg_history_free(s->hist);
	vg_history_free(s->cur_index);
	vg_beliefs_free(s->beliefs);
	vg_approx_free(s->approx);
	vg_literal_free(s->approx_lit);
	vg_literal_free(s->trial);
	vg_pixmodel_free(s->pm);
	vg_zout_free(s->spare_zs);
	vg_zout_free(s->spare_zpix);
	vg_pixmodel_free(s->spare_pm);
}

void vg_sender_free(vg_sender *s)
{
	if (!s)
		return;
	release(s);
	g_free(s);
}

int vg_sender_reset(vg_sender *s, const vg_sender_config *cfg)
{
	vg_sender *n;
	int err;

	if ((err = vg_sender_new(cfg, &n)))
		return err;
	/* The streams and the model this connection used, or the spares it
	 * did not take up, wait for the next viewer. */
	if (s->zs) {
		vg_zout_free(s->spare_zs);
		vg_zout_free(s->spare_zpix);
		s->spare_zs = s->zs;
		s->spare_zpix = s->zpix;
		s->spare_level = s->cfg.zstd_level;
		s->spare_window = s->stats.zstd_window_log;
		s->zs = s->zpix = NULL;
	}
	if (s->pm) {
		vg_pixmodel_free(s->spare_pm);
		s->spare_pm = s->pm;
		s->pm = NULL;
	}
	n->spare_zs = s->spare_zs;
	n->spare_zpix = s->spare_zpix;
	n->spare_level = s->spare_level;
	n->spare_window = s->spare_window;
	n->spare_pm = s->spare_pm;
	s->spare_zs = s->spare_zpix = NULL;
	s->spare_pm = NULL;
	release(s);
	*s = *n;
	g_free(n);
	return VG_OK;
}

void vg_sender_hello(vg_sender *s, vg_writer *out)
{
	size_t start = out->len;

	vg_writer_u8(out, VG_MSG_HELLO);
	vg_writer_u8(out, VG_PROTO_VERSION);
	vg_writer_bytes(out, s->cfg.server_id, sizeof s->cfg.server_id);
	vg_writer_u8(out, (uint8_t)s->cfg.fp_bits);
	vg_writer_u8(out, (uint8_t)s->cfg.group_size);
	vg_writer_u8(out, (s->cfg.no_persist ? VG_HELLO_NO_PERSIST : 0) |
			  (s->ahead ? VG_HELLO_AHEAD : 0));
	/* The viewer starts with an empty window and history too. */
	vg_history_clear(s->win);
	vg_history_clear(s->hist);
	s->stats.body_bytes += out->len - start;
}

/* The viewer now holds hash under its key: the latest put wins there too. */
static void believe(vg_sender *s, uint64_t key, uint64_t hash, uint64_t bytes)
{
	vg_beliefs_put(s->beliefs, key, hash, (uint32_t)bytes);
}

static bool is_believed(const vg_sender *s, uint64_t key, uint64_t hash)
{
	return vg_beliefs_holds(s->beliefs, key, hash);
}

/* True when b continues the run that a ends. */
static bool continues(const vg_segdesc *a, const vg_segdesc *b)
{
	if (a->orient != b->orient)
		return false;
	if (a->orient == VG_ORIENT_ROWS)
		return a->rect.x == b->rect.x && a->rect.w == b->rect.w &&
		       b->rect.y == a->rect.y + a->rect.h;
	return a->rect.y == b->rect.y && a->rect.h == b->rect.h &&
	       b->rect.x == a->rect.x + a->rect.w;
}

/* Ends the current group: its SHA-1 after its last fingerprint. */
static int close_group(vg_sender *s, vg_writer *w, unsigned *in_group)
{
	uint8_t digest[VG_SHA1_LEN];
	uint64_t t0 = vg_time_ns();
	int err;

	if (*in_group == 0)
		return VG_OK;
	if ((err = vg_sha1_final(s->sha1, digest)))
		return err;
	/* The digest travels in the update's uncompressed check list: zstd
	 * cannot shrink it, and inside the stream it would only push earlier
	 * fingerprints out of the window. */
	vg_writer_uleb(w, VG_OP_CHECK);
	vg_writer_bytes(&s->checks, digest, sizeof digest);
	*in_group = 0;
	s->stats.checks++;
	s->stats.sha1_ns += vg_time_ns() - t0;
	return VG_OK;
}

static uint64_t seg_len(const vg_segdesc *d)
{
	return d->orient == VG_ORIENT_ROWS ? (uint64_t)d->rect.h : (uint64_t)d->rect.w;
}

static uint64_t seg_bytes(const vg_segdesc *d)
{
	return (uint64_t)d->rect.w * (uint64_t)d->rect.h * 4;
}

/* True when d may travel as a fingerprint: the viewer is believed to hold
 * it, and it is not asked for as pixels. */
static bool fingerprintable(vg_sender *s, const vg_segdesc *d, const vg_region *literal_only)
{
	return s->believe_bytes > 0 && seg_bytes(d) <= VG_MAX_CACHED_SEGMENT &&
	       is_believed(s, vg_fp_key(d->hash, s->cfg.fp_bits), d->hash) &&
	       !(literal_only && vg_region_touches(literal_only, d->rect));
}

/* Item at of what REPEAT points into: the window, the history, then
 * the update so far (unless this sender does not repeat within one). */
static const list_item *item_at(const vg_sender *s, size_t at)
{
	size_t w = vg_history_len(s->win), h = vg_history_len(s->hist);

	if (at < w)
		return vg_history_at(s->win, at);
	if (at < w + h)
		return vg_history_at(s->hist, at - w);
	at -= w + h;
	return s->cfg.repeat_within && at < vg_history_len(s->cur_index)
		       ? vg_history_at(s->cur_index, at)
		       : NULL;
}

static bool same_item(const vg_sender *s, size_t at, const vg_segdesc *d)
{
	const list_item *it = item_at(s, at);

	return it && it->keyed && it->len == seg_len(d) && it->hash == d->hash;
}

/* How many of segs[0 .. max) repeat the items from index at on, in order, each
 * one fingerprintable. */
static size_t match_len(vg_sender *s, size_t at, const vg_segdesc *segs, size_t max,
			const vg_region *literal_only)
{
	size_t m = 0;

	while (m < max && same_item(s, at + m, &segs[m]) &&
	       (m == 0 || fingerprintable(s, &segs[m], literal_only)))
		m++;
	return m;
}

/* A REPEAT's offset field for offset at: near where the previous REPEAT
 * ended, or counted back from the newest item. The viewer counts the
 * update's items so far whether or not this sender names them. */
static uint64_t offset_code(const vg_sender *s, size_t at)
{
	return vg_recent_encode(at, s->expect, vg_history_len(s->win), vg_history_len(s->hist),
				vg_history_len(s->cur_index));
}

static size_t offset_cost(const vg_sender *s, size_t at)
{
	return vg_writer_uleb_size(offset_code(s, at));
}

/* The longest REPEAT for segs[0 .. max), segs[0] fingerprintable: carrying
 * on where the last REPEAT ended, from the newest item of its key in the
 * window, in the history, or in the update so far. Returns its count
 * (0: none) and offset. */
static size_t find_repeat(vg_sender *s, const vg_segdesc *segs, size_t max,
			  const vg_region *literal_only, size_t *offset)
{
	uint64_t key = vg_fp_key(segs[0].hash, s->cfg.fp_bits);
	size_t w = vg_history_len(s->win), wh = w + vg_history_len(s->hist);
	size_t at[4], best = 0, len, h, k;

	at[0] = (size_t)s->expect;
	at[1] = vg_history_find(s->win, key, &h) ? h : at[0];
	at[2] = vg_history_find(s->hist, key, &h) ? w + h : at[0];
	at[3] = s->cfg.repeat_within && vg_history_find(s->cur_index, key, &h) ? wh + h : at[0];
	*offset = at[0];
	for (k = 0; k < 4 && best < max; k++) {
		if ((k > 0 && at[k] == at[0]) || (k > 1 && at[k] == at[1]) ||
		    (k > 2 && at[k] == at[2]))
			continue;
		len = match_len(s, at[k], segs, max, literal_only);
		if (len > best || (len > 0 && len == best &&
				   offset_cost(s, at[k]) < offset_cost(s, *offset))) {
			best = len;
			*offset = at[k];
		}
	}
	return best;
}

/* Appends an item to the update's list; checked says whether the viewer
 * knows its content for sure by the time the next item comes (a literal,
 * a repeat), which a fingerprint's awaits its group's check. */
static void add_item(vg_sender *s, uint64_t key, uint64_t hash, uint64_t len, bool keyed,
		     bool checked)
{
	list_item it = { .key = key, .hash = hash, .len = (uint32_t)len, .keyed = keyed };

	g_array_append_val(s->cur, it);
	it.keyed = keyed && checked;
	vg_history_append(s->cur_index, &it, 1);
}

/* Counts a segment the viewer draws from its cache. */
static void from_cache(vg_sender *s, const vg_segdesc *d, bool checked)
{
	s->stats.fingerprint_segments++;
	s->stats.fingerprinted_bytes += seg_bytes(d);
	add_item(s, vg_fp_key(d->hash, s->cfg.fp_bits), d->hash, seg_len(d), true, checked);
}

/* Hashes a FINGERPRINTed segment into its group. */
static int fingerprinted(vg_sender *s, const vg_pixbuf *frame, const vg_segdesc *d)
{
	uint64_t t0 = vg_time_ns();
	int err = vg_sha1_update_rect(s->sha1, frame, d->rect);

	s->stats.sha1_ns += vg_time_ns() - t0;
	if (err)
		return err;
	from_cache(s, d, false);
	return VG_OK;
}

/* Writes the item for segs[0] of a run that goes on to segs[max - 1]: a
 * REPEAT of the previous update's list, a fingerprint if the viewer holds
 * the segment, else pixels. *used receives how many segments it covers. */
static int put_item(vg_sender *s, vg_writer *w, const vg_pixbuf *frame, const vg_segdesc *segs,
		    size_t max, const vg_region *literal_only, unsigned *in_group, size_t *used)
{
	const vg_segdesc *d = &segs[0];
	vg_rect r = d->rect;
	uint64_t len = seg_len(d), bytes = seg_bytes(d);
	uint64_t key = vg_fp_key(d->hash, s->cfg.fp_bits);
	size_t count, offset, m;
	int err;

	*used = 1;
	/* A full group is closed before the next item, never after a run's
	 * last segment, so that a check always sits inside a run or at the
	 * end of the update, where the viewer expects items. */
	if (*in_group == s->cfg.group_size && (err = close_group(s, w, in_group)))
		return err;
	if (fingerprintable(s, d, literal_only)) {
		/* A REPEAT names content the viewer drew and verified
		 * before: it needs no SHA-1 and joins no group. */
		count = find_repeat(s, segs, max, literal_only, &offset);
		if (count > 0) {
			vg_writer_uleb(w, (uint64_t)count * 4 + VG_OP_REPEAT);
			vg_writer_uleb(w, offset_code(s, offset));
			s->expect = offset + count;
			for (m = 0; m < count; m++)
				from_cache(s, &segs[m], true);
			s->stats.repeats++;
			s->stats.repeated_segments += count;
			*used = count;
			return VG_OK;
		}
		vg_writer_uleb(w, len * 4 + VG_OP_FINGERPRINT);
		vg_writer_uint_be(w, (s->cfg.fp_bits + 7) / 8, key);
		if ((err = fingerprinted(s, frame, d)))
			return err;
		++*in_group;
		return VG_OK;
	}
	vg_writer_uleb(w, len * 4 + VG_OP_LITERAL);
	g_array_append_val(s->lit_rects, r);
	s->stats.literal_segments++;
	s->stats.literal_bytes += (uint64_t)r.w * (uint64_t)r.h * 3;
	add_item(s, key, d->hash, len, bytes <= VG_MAX_CACHED_SEGMENT, true);
	if (s->believe_bytes > 0 && bytes <= VG_MAX_CACHED_SEGMENT) {
		believe(s, key, d->hash, bytes);
		g_array_append_val(s->cur_hist, g_array_index(s->cur, list_item, s->cur->len - 1));
	}
	return VG_OK;
}

/* The pixel model, from the spare one of an earlier connection or new. */
static int start_model(vg_sender *s)
{
	if (s->pm)
		return VG_OK;
	if (s->spare_pm) {
		vg_pixmodel_reset(s->spare_pm);
		s->pm = s->spare_pm;
		s->spare_pm = NULL;
		return VG_OK;
	}
	return vg_pixmodel_new(&s->pm);
}

/* The coding chosen by the link's rate while that is unknown. */
static vg_pixcost_coding unknown_rate_coding(const vg_sender *s)
{
	return s->cfg.pixmodel ? VG_PIXCOST_MODEL : VG_PIXCOST_LITERAL;
}

/* Whether the pixel model codes this update's pixels: always or never as
 * configured, else whichever coding the link makes sooner. */
static bool choose_model(vg_sender *s, uint64_t pixels)
{
	if (!s->model_ok || pixels == 0)
		return false;
	if (!s->cfg.pixmodel_by_rate)
		return true;
	return vg_pixcost_choose(&s->cost, pixels, s->rate, unknown_rate_coding(s)) ==
	       VG_PIXCOST_MODEL;
}

/* Whether the next update's pixels would go by the model, but for a trial. */
static bool expect_model(const vg_sender *s)
{
	if (!s->model_ok)
		return false;
	return !s->cfg.pixmodel_by_rate ||
	       vg_pixcost_cheaper(&s->cost, s->rate, unknown_rate_coding(s)) == VG_PIXCOST_MODEL;
}

/* Codes the update's literal segments into s->pix: by the pixel model
 * (its chunk travels as it is) or by the literal methods (for the pixel
 * stream), as choose_model says. Sets *pixels and *ns to what was coded
 * and the time it took. */
static int code_literals(vg_sender *s, const vg_pixbuf *frame, uint64_t *pixels, uint64_t *ns)
{
	const vg_rect *rects = (const vg_rect *)(void *)s->lit_rects->data;
	uint64_t t0;
	size_t i;
	int err;

	*pixels = 0;
	for (i = 0; i < s->lit_rects->len; i++)
		*pixels += (uint64_t)rects[i].w * (uint64_t)rects[i].h;
	s->by_model = choose_model(s, *pixels);
	if (*pixels)
		s->stats.literal_updates++;
	/* Started apart from the timing: clearing its tables is once. */
	if (s->by_model && (err = start_model(s)))
		return err;
	t0 = vg_time_ns();
	if (!s->by_model) {
		err = vg_literal_encode_list(s->lit, frame, rects, s->lit_rects->len, &s->pix);
		s->stats.literal_coded_bytes += s->pix.len;
		*ns = vg_time_ns() - t0;
		return err;
	}
	err = vg_pixmodel_encode(s->pm, frame, rects, s->lit_rects->len, &s->pix);
	s->stats.literal_coded_bytes += s->pix.len;
	*ns = vg_time_ns() - t0;
	s->stats.model_ns += *ns;
	s->stats.model_updates++;
	return err;
}

/* A run's rectangle: four differences from the previous run's (x from
 * its right edge), which are 0 or small when the runs are the columns of
 * one changed area. */
static void put_run(vg_writer *w, vg_rect run, vg_rect *prev)
{
	vg_writer_uleb(w, vg_zigzag_encode((int64_t)run.x - ((int64_t)prev->x + prev->w)));
	vg_writer_uleb(w, vg_zigzag_encode((int64_t)run.y - prev->y));
	vg_writer_uleb(w, vg_zigzag_encode((int64_t)run.w - prev->w));
	vg_writer_uleb(w, vg_zigzag_encode((int64_t)run.h - prev->h));
	*prev = run;
}

int vg_sender_update(vg_sender *s, const vg_pixbuf *frame, const vg_segdesc *segs,
		     size_t n, const vg_region *literal_only, vg_writer *out)
{
	return vg_sender_update_moves(s, frame, NULL, 0, segs, n, literal_only, out);
}

int vg_sender_update_moves(vg_sender *s, const vg_pixbuf *frame, const vg_move *moves,
			   size_t n_moves, const vg_segdesc *segs, size_t n,
			   const vg_region *literal_only, vg_writer *out)
{
	vg_writer *w = &s->plain;
	size_t i, runs = n_moves, start = out->len;
	vg_rect prev = { 0, 0, 0, 0 };
	unsigned in_group = 0;
	uint64_t t0, lit_pixels, lit_ns, pix_wire = 0;
	int err;

	if (!s->viewer_hello)
		return VG_EINVAL;
	for (i = 0; i < n_moves; i++)
		if (!vg_pixbuf_holds(frame, moves[i].rect) ||
		    !vg_rect_contains(vg_pixbuf_rect(frame), vg_move_source(&moves[i])))
			return VG_ERANGE;
	for (i = 0; i < n; i++) {
		if (!vg_pixbuf_holds(frame, segs[i].rect) ||
		    segs[i].orient > VG_ORIENT_COLS)
			return VG_ERANGE;
		if (i == 0 || !continues(&segs[i - 1], &segs[i]))
			runs++;
	}
	if ((err = vg_sha1_reset(s->sha1)))
		return err;
	/* A restored history not announced is not the viewer's: forget it. */
	if (s->history_notice) {
		s->history_notice = false;
		vg_history_clear(s->hist);
		s->stats.history_restored = 0;
	}
	s->updated = true;

	vg_writer_reset(w);
	vg_writer_reset(&s->pix);
	vg_writer_reset(&s->checks);
	g_array_set_size(s->lit_rects, 0);
	g_array_set_size(s->cur, 0);
	vg_history_clear(s->cur_index);
	g_array_set_size(s->cur_hist, 0);
	s->expect = 0;
	vg_writer_uleb(w, runs);
	/* Moves first: they read the picture before any segment is drawn. */
	for (i = 0; i < n_moves; i++) {
		put_run(w, moves[i].rect, &prev);
		vg_writer_u8(w, VG_RUN_MOVE);
		vg_writer_uleb(w, vg_zigzag_encode(moves[i].dx));
		vg_writer_uleb(w, vg_zigzag_encode(moves[i].dy));
	}
	for (i = 0; i < n;) {
		size_t j = i + 1, k, used;
		vg_rect run = segs[i].rect;

		while (j < n && continues(&segs[j - 1], &segs[j]))
			run = vg_rect_bounds(run, segs[j++].rect);
		put_run(w, run, &prev);
		vg_writer_u8(w, segs[i].orient);
		vg_writer_uleb(w, j - i);
		for (k = i; k < j; k += used)
			if ((err = put_item(s, w, frame, &segs[k], j - k, literal_only, &in_group,
					    &used)))
				return err;
		i = j;
	}
	/* Groups never span updates: an idle screen leaves nothing unchecked. */
	if ((err = close_group(s, w, &in_group)))
		return err;
	/* The literal segments are coded together: by the pixel model, or so
	 * that one choice of literal method holds for the whole update. */
	if ((err = code_literals(s, frame, &lit_pixels, &lit_ns)))
		return err;

	/* kind, the digests and how the pixels go, the structure chunk with
	 * its length, then the pixel chunk (none when nothing travels as
	 * pixels). */
	vg_writer_u8(out, VG_MSG_UPDATE);
	vg_writer_uleb(out, s->checks.len / VG_SHA1_LEN * 2 + (s->by_model ? VG_UPDATE_MODEL : 0));
	vg_writer_bytes(out, s->checks.data, s->checks.len);
	t0 = vg_time_ns();
	if ((err = vg_zout_put(s->zs, w->data, w->len, &s->body)))
		goto out;
	vg_writer_uleb(out, s->body.len);
	vg_writer_bytes(out, s->body.data, s->body.len);
	if (s->pix.len && s->by_model) {
		vg_writer_bytes(out, s->pix.data, s->pix.len);
		pix_wire = s->pix.len;
	} else if (s->pix.len) {
		size_t before = out->len;
		uint64_t t1 = vg_time_ns();

		err = vg_zout_put(s->zpix, s->pix.data, s->pix.len, out);
		pix_wire = out->len - before;
		lit_ns += vg_time_ns() - t1;
		s->zpix_in += s->pix.len;
		s->zpix_out += pix_wire;
	}
	s->stats.literal_wire_bytes += pix_wire;
out:
	s->stats.zlib_ns += vg_time_ns() - t0;
	vg_writer_reset(&s->body);
	if (err) {
		out->len = start;
		return err;
	}
	vg_pixcost_learn(&s->cost, s->by_model ? VG_PIXCOST_MODEL : VG_PIXCOST_LITERAL, lit_pixels,
			 lit_ns, pix_wire);
	vg_history_append(s->win, (const list_item *)(const void *)s->cur->data, s->cur->len);
	vg_history_append(s->hist, (const list_item *)(const void *)s->cur_hist->data,
			  s->cur_hist->len);
	s->stats.updates++;
	s->stats.segments += n;
	s->stats.plain_bytes += w->len + s->pix.len + s->checks.len;
	s->stats.body_bytes += out->len - start;
	return VG_OK;
}

void vg_sender_set_rate(vg_sender *s, uint64_t rate)
{
	s->rate = rate;
}

void vg_sender_get_pixcost(const vg_sender *s, vg_pixcost *out)
{
	*out = s->cost;
}

bool vg_sender_takes_moves(const vg_sender *s)
{
	return s->viewer_hello;
}

bool vg_sender_takes_approx(const vg_sender *s)
{
	return s->viewer_hello && !(s->viewer_flags & VG_VHELLO_EXACT);
}

bool vg_sender_is_miss(const vg_sender *s, const vg_segdesc *d)
{
	return !(s->believe_bytes > 0 && seg_bytes(d) <= VG_MAX_CACHED_SEGMENT &&
		 is_believed(s, vg_fp_key(d->hash, s->cfg.fp_bits), d->hash));
}

int vg_sender_estimate(vg_sender *s, const vg_pixbuf *frame, const vg_rect *rects, size_t n,
		       uint64_t *wire_bytes)
{
	double ratio = 0.5, per_pixel = MODEL_BYTES_PER_PIXEL;
	uint64_t pixels = 0;
	size_t i;
	int err;

	*wire_bytes = 0;
	/* The pixel model cannot try a coding without learning from it: its
	 * bytes a pixel so far stand for what these would cost. */
	if (expect_model(s)) {
		for (i = 0; i < n; i++) {
			if (!vg_pixbuf_holds(frame, rects[i]))
				return VG_ERANGE;
			pixels += (uint64_t)rects[i].w * (uint64_t)rects[i].h;
		}
		if (s->cost.measured[VG_PIXCOST_MODEL])
			per_pixel = s->cost.bytes_px[VG_PIXCOST_MODEL];
		*wire_bytes = (uint64_t)((double)pixels * per_pixel) + 1;
		return VG_OK;
	}
	if (!s->trial) {
		if ((err = vg_literal_new(&s->trial)))
			return err;
		vg_literal_set_indexed(s->trial, s->cfg.indexed);
	}
	vg_writer_reset(&s->pix);
	if ((err = vg_literal_encode_list(s->trial, frame, rects, n, &s->pix)))
		return err;
	if (s->zpix_in > 0)
		ratio = (double)s->zpix_out / (double)s->zpix_in;
	*wire_bytes = (uint64_t)((double)s->pix.len * ratio) + 1;
	vg_writer_reset(&s->pix);
	return VG_OK;
}

int vg_sender_approx(vg_sender *s, const vg_pixbuf *frame, const vg_rect *rects, size_t n,
		     unsigned factor, vg_writer *out)
{
	size_t start = out->len, i;
	uint64_t t0;
	int err;

	if (!vg_sender_takes_approx(s))
		return VG_EPROTO;
	vg_writer_reset(&s->pix);
	vg_writer_u8(out, VG_MSG_APPROX);
	if ((err = vg_approx_encode(s->approx, s->approx_lit, frame, rects, n, factor, out, &s->pix))) {
		out->len = start;
		return err;
	}
	t0 = vg_time_ns();
	err = vg_zout_put(s->zpix, s->pix.data, s->pix.len, out);
	s->stats.zlib_ns += vg_time_ns() - t0;
	vg_writer_reset(&s->pix);
	if (err) {
		out->len = start;
		return err;
	}
	s->stats.approx_messages++;
	for (i = 0; i < n; i++)
		s->stats.approx_pixels += (uint64_t)rects[i].w * (uint64_t)rects[i].h;
	s->stats.approx_bytes += out->len - start;
	s->stats.body_bytes += out->len - start;
	return VG_OK;
}

static int handle_repair(vg_sender *s, vg_reader *r, int32_t fbw, int32_t fbh, vg_region *repair)
{
	vg_rect frame = vg_rect_make(0, 0, fbw, fbh);
	uint64_t count, i;

	if (vg_reader_uleb(r, &count) || count == 0 || count > VG_MAX_REPAIR_RECTS)
		return VG_EPROTO;
	for (i = 0; i < count; i++) {
		vg_rect rect;

		if (vg_reader_rect(r, &rect) || vg_rect_is_empty(rect) ||
		    !vg_rect_contains(frame, rect))
			return VG_EPROTO;
		if (repair)
			vg_region_add(repair, rect);
		s->stats.repairs++;
	}
	return vg_reader_remaining(r) ? VG_EPROTO : VG_OK;
}

/* Refuses a viewer message, saying why for vg_sender_error_text. */
static int refuse(vg_sender *s, int err, const char *why)
{
	snprintf(s->error, sizeof s->error, "%s", why);
	return err;
}

/* Starts both streams for the viewer's zstd window log: the pixel
 * stream's window is the smaller of the viewer's and ours. */
static int start_streams(vg_sender *s, unsigned log)
{
	unsigned window = MIN(log, s->cfg.zstd_window_log);
	int err;

	if (s->spare_zs && s->spare_level == s->cfg.zstd_level && s->spare_window == window &&
	    (err = vg_zout_reset(s->spare_zs)) == VG_OK && (err = vg_zout_reset(s->spare_zpix)) == VG_OK) {
		s->zs = s->spare_zs;
		s->zpix = s->spare_zpix;
		s->spare_zs = s->spare_zpix = NULL;
		s->stats.zstd_window_log = window;
		return VG_OK;
	}
	vg_zout_free(s->spare_zs);
	vg_zout_free(s->spare_zpix);
	s->spare_zs = s->spare_zpix = NULL;
	/* The structure stream is a few KB an update: a small window. */
	if ((err = vg_zout_new(VG_CODER_ZSTD, s->cfg.zstd_level, VG_ZSTD_WINDOW_LOG_MIN, &s->zs)))
		return err;
	if ((err = vg_zout_new(VG_CODER_ZSTD, s->cfg.zstd_level, window, &s->zpix))) {
		vg_zout_free(s->zs);
		s->zs = NULL;
		return err;
	}
	s->stats.zstd_window_log = window;
	return VG_OK;
}

/* Believe only the most recent 80 % of what the viewer keeps: its
 * eviction works by whole containers and may run a little ahead of ours. */
static void set_capacity(vg_sender *s, uint64_t capacity)
{
	s->believe_bytes = capacity / 5 * 4;
	vg_beliefs_set_budget(s->beliefs, s->believe_bytes);
}

/* Coding may start: the streams, the literal coders and the belief budget
 * follow what the viewer keeps. The pixel model may code literal pixels
 * when this sender uses it and the viewer decodes the same revision of it
 * (a lean viewer decodes none). An update that
 * goes by the model leaves the literal methods' colour table as it was
 * at both ends, so the two may take turns. */
static int take_viewer(vg_sender *s, unsigned window_log, uint64_t capacity)
{
	int err;

	s->model_ok = (s->cfg.pixmodel || s->cfg.pixmodel_by_rate) &&
		      vg_sender_viewer_model(s) == VG_PIXMODEL_REVISION;
	if ((err = start_streams(s, window_log)))
		return err;
	/* Started now when it codes from the first update on; when the rate
	 * decides, at its first update (a LAN viewer may never need it). */
	if (s->model_ok && s->cfg.pixmodel && (err = start_model(s)))
		return err;
	s->viewer_hello = true;
	/* The colour table is kept unless every update goes by the model. */
	vg_literal_set_indexed(s->lit, s->cfg.indexed && !(s->model_ok && !s->cfg.pixmodel_by_rate));
	set_capacity(s, capacity);
	return VG_OK;
}

static bool window_ok(unsigned log)
{
	return log >= VG_ZSTD_WINDOW_LOG_MIN && log <= VG_ZSTD_WINDOW_LOG_MAX;
}

int vg_sender_assume_viewer(vg_sender *s, uint8_t flags, unsigned window_log, unsigned capacity_log)
{
	int err;

	if (s->viewer_hello || (flags & ~VG_CAPS_VHELLO_FLAGS) || capacity_log > 63 ||
	    !window_ok(window_log))
		return VG_EPROTO;
	s->viewer_flags = flags;
	if ((err = take_viewer(s, window_log, capacity_log ? UINT64_C(1) << capacity_log : 0)))
		return err;
	s->ahead = true;
	s->ahead_window = (uint8_t)window_log;
	return VG_OK;
}

/* The fields of a VIEWER HELLO after its kind. */
typedef struct {
	uint8_t version, flags, window_log;
	uint64_t capacity, digest;
} viewer_hello;

static int read_viewer_hello(vg_sender *s, vg_reader *r, viewer_hello *h)
{
	char why[96];

	if (vg_reader_u8(r, &h->version))
		return refuse(s, VG_EPROTO, "viewer hello: truncated");
	/* Another version's fields may differ: refuse before reading them. */
	if (h->version != VG_PROTO_VERSION) {
		snprintf(why, sizeof why, "viewer speaks protocol version %u.%u, this server %u.%u",
			 VG_PROTO_MAJOR(h->version), VG_PROTO_MINOR(h->version),
			 VG_PROTO_MAJOR(VG_PROTO_VERSION), VG_PROTO_MINOR(VG_PROTO_VERSION));
		return refuse(s, VG_ENOTSUP, why);
	}
	if (vg_reader_bytes(r, s->cache_id, sizeof s->cache_id) ||
	    vg_reader_u64be(r, &h->capacity) || vg_reader_u8(r, &h->flags) ||
	    vg_reader_u64be(r, &h->digest) || vg_reader_u8(r, &h->window_log))
		return refuse(s, VG_EPROTO, "viewer hello: truncated");
	if (vg_reader_remaining(r))
		return refuse(s, VG_EPROTO, "viewer hello: bytes left over");
	if (!window_ok(h->window_log))
		return refuse(s, VG_EPROTO, "viewer hello: zstd window out of range");
	return VG_OK;
}

int vg_sender_handle(vg_sender *s, const uint8_t *body, size_t len,
		     int32_t fb_width, int32_t fb_height, vg_region *repair)
{
	viewer_hello h;
	vg_reader r;
	uint8_t kind;
	int err;

	vg_reader_init(&r, body, len);
	if (vg_reader_u8(&r, &kind))
		return refuse(s, VG_EPROTO, "empty viewer message");
	switch (kind) {
	case VG_VMSG_HELLO:
		if (s->viewer_named)
			return refuse(s, VG_EPROTO, "second viewer hello");
		if ((err = read_viewer_hello(s, &r, &h)))
			return err;
		/* Coded ahead: it must say what the capabilities said (its
		 * identity and capacity are new); the saved history is not
		 * restored (vg_sender_load_beliefs). */
		if (s->ahead) {
			if ((h.flags & ~VG_VHELLO_EPHEMERAL) != s->viewer_flags ||
			    h.window_log != s->ahead_window)
				return refuse(s, VG_EPROTO,
					      "viewer hello: not what its capabilities announced");
			s->viewer_flags = h.flags;
			s->viewer_named = true;
			set_capacity(s, h.capacity);
			return VG_OK;
		}
		s->viewer_flags = h.flags;
		s->viewer_history = h.digest;
		if ((err = take_viewer(s, h.window_log, h.capacity)))
			return refuse(s, err, "cannot start the coders");
		s->viewer_named = true;
		return VG_OK;
	case VG_VMSG_REPAIR:
		if (!s->viewer_named)
			return refuse(s, VG_EPROTO, "repair before the viewer hello");
		if ((err = handle_repair(s, &r, fb_width, fb_height, repair)))
			return refuse(s, err, "repair: malformed or outside the framebuffer");
		return VG_OK;
	case VG_VMSG_PING:
		/* A second PING before the PONG went out replaces the first:
		 * the viewer measures only its latest. */
		if (!s->viewer_named)
			return refuse(s, VG_EPROTO, "ping before the viewer hello");
		if (vg_reader_u32be(&r, &s->ping_token) || vg_reader_remaining(&r))
			return refuse(s, VG_EPROTO, "ping: not 5 bytes");
		s->ping_pending = true;
		return VG_OK;
	default:
		return refuse(s, VG_EPROTO, "unknown viewer message kind");
	}
}

const char *vg_sender_error_text(const vg_sender *s)
{
	return s->error[0] ? s->error : "no error";
}

bool vg_sender_take_ping(vg_sender *s, uint32_t *token)
{
	if (!s->ping_pending)
		return false;
	s->ping_pending = false;
	*token = s->ping_token;
	return true;
}

void vg_sender_pong(uint32_t token, vg_writer *out)
{
	vg_writer_u8(out, VG_MSG_PONG);
	vg_writer_u32be(out, token);
}

unsigned vg_sender_viewer_model(const vg_sender *s)
{
	return s->viewer_flags & VG_VHELLO_LEAN ? 0 : VG_VHELLO_MODEL(s->viewer_flags);
}

bool vg_sender_has_viewer_hello(const vg_sender *s)
{
	return s->viewer_hello;
}

bool vg_sender_viewer_named(const vg_sender *s)
{
	return s->viewer_named;
}

bool vg_sender_coded_ahead(const vg_sender *s)
{
	return s->ahead;
}

void vg_sender_get_stats(const vg_sender *s, vg_sender_stats *st)
{
	vg_literal_stats lit;

	*st = s->stats;
	st->beliefs = vg_beliefs_count(s->beliefs);
	vg_literal_get_stats(s->lit, &lit);
	memcpy(st->literal_pixels, lit.pixels, sizeof st->literal_pixels);
}

bool vg_sender_persistent_id(const vg_sender *s, uint8_t cache_id[16])
{
	static const uint8_t none[16];

	/* A viewer without a persistent cache, or told by us not to keep
	 * one, names a fresh identity per connection: nothing to remember. */
	if (!s->viewer_named || s->cfg.no_persist || (s->viewer_flags & VG_VHELLO_EPHEMERAL) ||
	    s->believe_bytes == 0 || memcmp(s->cache_id, none, sizeof none) == 0)
		return false;
	memcpy(cache_id, s->cache_id, sizeof s->cache_id);
	return true;
}

static void tag_of(const vg_sender *s, vg_beliefs_tag *tag)
{
	memcpy(tag->server_id, s->cfg.server_id, sizeof tag->server_id);
	memcpy(tag->cache_id, s->cache_id, sizeof tag->cache_id);
	tag->fp_bits = s->cfg.fp_bits;
}

void vg_sender_save_beliefs(const vg_sender *s, size_t max_bytes, vg_writer *out)
{
	vg_beliefs_tag tag;

	tag_of(s, &tag);
	vg_beliefs_save(s->beliefs, &tag, max_bytes, s->hist, out);
}

int vg_sender_load_beliefs(vg_sender *s, const uint8_t *data, size_t len)
{
	vg_beliefs_tag tag;
	vg_history *saved;
	int err;

	if (!s->viewer_named)
		return VG_EPROTO;
	tag_of(s, &tag);
	saved = vg_history_new(VG_HISTORY_MAX, true);
	if ((err = vg_beliefs_load(s->beliefs, &tag, data, len, saved))) {
		vg_history_free(saved);
		return err;
	}
	s->stats.beliefs_loaded = vg_beliefs_count(s->beliefs);
	/* The history comes back only if the viewer saved the very same one
	 * (and no update has gone out yet, nor was coded ahead of its
	 * HELLO); else both ends start empty. */
	if (!s->updated && !s->ahead && s->viewer_history != 0 &&
	    vg_history_digest(saved, s->cfg.fp_bits) == s->viewer_history) {
		vg_history_swap(s->hist, saved);
		s->history_notice = true;
		s->stats.history_restored = vg_history_len(s->hist);
	}
	vg_history_free(saved);
	return VG_OK;
}

bool vg_sender_take_history(vg_sender *s, vg_writer *out)
{
	if (!s->history_notice)
		return false;
	s->history_notice = false;
	vg_writer_u8(out, VG_MSG_HISTORY);
	vg_writer_u64be(out, s->viewer_history);
	return true;
}
