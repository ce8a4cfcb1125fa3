/* The measuring pipeline of varg-trace ratio: runs every frame update of a
 * trace through the server's Varg pipeline (pipeline/vg_pipeline.h: differ
 * -> movement estimation -> moves -> segmenter -> vg_sender), then the
 * viewer's vg_receiver, in-process, and through LibVNCServer's own
 * encoders, and prints the paper's tables (8, 9, 12) and Formula 1 over
 * the WAN profiles of Table 7. doc/json.md describes the numbers;
 * doc/varg-trace.1 the options.
 *
 * One update is one frame record whose pixels really changed: a differ,
 * given the record's rectangles as damage, reports the changed rectangles,
 * which the stock encodings send. Each Varg variant's pipeline is given
 * the record's rectangles as the server's is given LibVNCServer's damage,
 * and its own differ (against what its viewer was sent) finds the same
 * changed rectangles. Repairs go as the server sends them: in a further
 * update of their own, with the repairs as the pipeline's todo. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/vg_cursor.h"
#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "common/vg_writer.h"
#include "fingerprint/proto/vg_cursorlist.h"
#include "fingerprint/proto/vg_proto.h"
#include "fingerprint/proto/vg_receiver.h"
#include "fingerprint/proto/vg_sender.h"
#include "pipeline/vg_pipeline.h"
#include "segment2d/vg_differ.h"
#include "fingerprint/codec/vg_zstream.h"
#include "traces/vg_ratio.h"
#include "traces/vg_stockenc.h"
#include "traces/vg_trace.h"
#include "traces/vg_wanmodel.h"

/* RFB framing the server writes around Varg bodies (server/vg_server.c):
 * a FramebufferUpdate header once per update, and per rectangle a 12-byte
 * header and the 4-byte body length. */
#define FBU_HEADER 4
#define RECT_HEADER 12
#define BODY_LENGTH 4

/* --- One segmenter variant: pipeline, sender and receiver ------------- */

struct vg_ratio_variant {
	char name[32];
	bool motion;              /* run movement estimation */
	vg_sender *sender;
	vg_pipeline *pipe;        /* differ to sender, as the server's per viewer */
	vg_receiver *receiver;
	vg_pixbuf *view;          /* what the viewer shows */
	vg_writer out, reply;
	GArray *again;            /* vg_rect: a repair update's damage */
	vg_region *repair;        /* asked for again by the receiver */
	bool hello_sent;
	double dec_ms;            /* the receiver's time in the current update */
	vg_ratio_totals t;
};

static void variant_free(vg_ratio_variant *v)
{
	if (!v)
		return;
	vg_pipeline_free(v->pipe);
	vg_sender_free(v->sender);
	vg_receiver_free(v->receiver);
	vg_pixbuf_free(v->view);
	vg_writer_clear(&v->out);
	vg_writer_clear(&v->reply);
	if (v->again)
		g_array_free(v->again, TRUE);
	vg_region_free(v->repair);
	if (v->t.upd_bytes)
		g_array_free(v->t.upd_bytes, TRUE);
	if (v->t.upd_ms)
		g_array_free(v->t.upd_ms, TRUE);
	if (v->t.seg_ms)
		g_array_free(v->t.seg_ms, TRUE);
	if (v->t.diff_ms)
		g_array_free(v->t.diff_ms, TRUE);
	if (v->t.enc_ms)
		g_array_free(v->t.enc_ms, TRUE);
	if (v->t.sha1_ms)
		g_array_free(v->t.sha1_ms, TRUE);
	if (v->t.dec_ms)
		g_array_free(v->t.dec_ms, TRUE);
	g_free(v);
}

static int variant_new(const char *name, const vg_segparams *params, bool motion,
		       const vg_ratio_options *o, int32_t w, int32_t h, vg_ratio_variant **out)
{
	vg_ratio_variant *v = g_new0(vg_ratio_variant, 1);
	vg_sender_config scfg;
	vg_receiver_config rcfg;
	vg_pipeline_config pcfg;
	int err;

	g_strlcpy(v->name, name, sizeof v->name);
	v->motion = motion && params->method == VG_SEGMETHOD_VARG;
	vg_writer_init(&v->out);
	vg_writer_init(&v->reply);
	v->again = g_array_new(FALSE, FALSE, sizeof(vg_rect));
	v->t.upd_bytes = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	v->t.upd_ms = g_array_new(FALSE, FALSE, sizeof(double));
	v->t.seg_ms = g_array_new(FALSE, FALSE, sizeof(double));
	v->t.diff_ms = g_array_new(FALSE, FALSE, sizeof(double));
	v->t.enc_ms = g_array_new(FALSE, FALSE, sizeof(double));
	v->t.sha1_ms = g_array_new(FALSE, FALSE, sizeof(double));
	v->t.dec_ms = g_array_new(FALSE, FALSE, sizeof(double));
	vg_sender_config_init(&scfg);
	scfg.zstd_level = o->zstd_level;
	scfg.pixmodel = !o->no_pixmodel;
	scfg.indexed = !o->no_indexed;
	scfg.repeat_within = !o->no_repeat_within;
	/* Both ends keep the window asked for, as a server configured for it
	 * would. */
	scfg.zstd_window_log = o->zstd_window_log;
	if (o->fp_bits)
		scfg.fp_bits = o->fp_bits;
	if (o->group_size)
		scfg.group_size = o->group_size;
	scfg.no_persist = true;
	vg_receiver_config_init(&rcfg);
	rcfg.cache_dir = NULL;    /* in memory: every run starts cold */
	rcfg.cache_capacity = o->cache_size;
	rcfg.zstd_window_log = o->zstd_window_log;
	vg_pipeline_config_init(&pcfg);
	pcfg.params = *params;
	pcfg.motion = v->motion;
	pcfg.moves = !o->no_moves;
	pcfg.trust_damage = o->trace_damage;
	pcfg.workers = o->workers;
	v->repair = vg_region_new();
	if ((err = vg_sender_new(&scfg, &v->sender)) ||
	    (err = vg_pipeline_new(&pcfg, w, h, v->sender, &v->pipe)) ||
	    (err = vg_receiver_new(&rcfg, &v->receiver)))
		goto out;
	v->view = vg_pixbuf_new(w, h);
out:
	if (err) {
		variant_free(v);
		return err;
	}
	*out = v;
	return VG_OK;
}

/* Passes the viewer's replies (RFB message 200 + u16 length + body each)
 * back to the sender, as the server's input thread would. */
static int feed_replies(vg_ratio_variant *v)
{
	size_t at = 0;

	while (at + 3 <= v->reply.len) {
		const uint8_t *p = v->reply.data + at;
		size_t len = (size_t)p[1] << 8 | p[2];
		int err;

		if (p[0] != VG_CLIENT_MSG || at + 3 + len > v->reply.len)
			return VG_EPROTO;
		if ((err = vg_sender_handle(v->sender, p + 3, len, v->view->width, v->view->height,
					    v->repair)))
			return err;
		at += 3 + len;
	}
	if (at != v->reply.len)
		return VG_EPROTO;
	vg_writer_reset(&v->reply);
	return VG_OK;
}

/* Hands one body (what names it in an error) to the receiver, then its
 * replies to the sender. */
static int deliver(vg_ratio_variant *v, const uint8_t *body, size_t len, const char *what)
{
	uint64_t t0 = vg_time_ns();
	int err = vg_receiver_handle(v->receiver, body, len, v->view, &v->reply);

	v->dec_ms += vg_time_ms_since(t0, vg_time_ns());

	if (err) {
		vg_error("%s: the receiver refused %s: %s", v->name, what,
			 vg_receiver_error_text(v->receiver));
		return err;
	}
	return feed_replies(v);
}

/* One pass as the server's for damage[0..n) of frame: the pipeline, with
 * the repairs pending (as pixels), coded as one UPDATE whose wire bytes
 * go to *wire, and delivered. What the update covered is repaired; what
 * the viewer asks for now waits for the next pass. Stage times add to
 * *stage_ms: differ, movement and segments, sender. */
static int code_pass(vg_ratio_variant *v, const vg_pixbuf *frame, const vg_rect *damage,
		     size_t n, size_t *wire, double stage_ms[3])
{
	const vg_pipeline_times *t = vg_pipeline_last_times(v->pipe);
	size_t i;
	int err;

	vg_writer_reset(&v->out);
	if (!(err = vg_pipeline_begin(v->pipe, frame, damage, n, v->repair)) &&
	    !(err = vg_pipeline_segment(v->pipe, frame, NULL)))
		err = vg_pipeline_send(v->pipe, frame, v->repair, &v->out);
	stage_ms[0] += (double)t->differ_ns / 1e6;
	stage_ms[1] += (double)(t->motion_ns + t->segmenter_ns) / 1e6;
	stage_ms[2] += (double)t->sender_ns / 1e6;
	v->t.gap_segments += t->gap_segments;
	if (err)
		return err;
	*wire += RECT_HEADER + BODY_LENGTH + v->out.len;
	v->t.rect_bytes += BODY_LENGTH + v->out.len;
	for (i = 0; i < n; i++)
		vg_region_subtract(v->repair, damage[i]);
	return deliver(v, v->out.data, v->out.len, "an update");
}

/* One update through one variant: the HELLO first if not yet sent, then
 * the update of damage[0..n); then, as the server does on the viewer's
 * REPAIR, further updates of what the viewer asked for again (each
 * counted as a FramebufferUpdate of its own). */
static int variant_update(vg_ratio_variant *v, const vg_pixbuf *frame, const vg_rect *damage,
			  size_t n)
{
	size_t wire = FBU_HEADER;
	uint64_t sha1_before;
	double ms[3] = { 0, 0, 0 }, sha1_ms;
	vg_sender_stats st;
	int err, round;

	vg_sender_get_stats(v->sender, &st);
	sha1_before = st.sha1_ns;
	v->dec_ms = 0;
	if (!v->hello_sent) {
		/* As live: the HELLO goes alone, in its own FramebufferUpdate,
		 * and the server waits for the viewer's answer (its cache size
		 * and identity) before it codes the first update. */
		vg_writer_reset(&v->out);
		vg_sender_hello(v->sender, &v->out);
		wire += FBU_HEADER + RECT_HEADER + BODY_LENGTH + v->out.len;
		v->t.rect_bytes += BODY_LENGTH + v->out.len;
		if ((err = deliver(v, v->out.data, v->out.len, "the hello")))
			return err;
		v->hello_sent = true;
	}
	if ((err = code_pass(v, frame, damage, n, &wire, ms)))
		return err;
	for (round = 0; !vg_region_is_empty(v->repair); round++) {
		const vg_rect *rr;
		size_t nr;

		if (round == 4) {
			vg_error("%s: repairs do not converge", v->name);
			return VG_EPROTO;
		}
		rr = vg_region_rects(v->repair, &nr);
		v->t.repair_rects += nr;
		/* The region changes as the pass repairs it: its own copy. */
		g_array_set_size(v->again, 0);
		g_array_append_vals(v->again, rr, (guint)nr);
		wire += FBU_HEADER;
		if ((err = code_pass(v, frame, (const vg_rect *)(void *)v->again->data, nr, &wire, ms)))
			return err;
	}
	v->t.wire_bytes += wire;
	/* A wrong update that a later one paints over would pass a check of
	 * the last frame alone. */
	if (!vg_pixbuf_equal(v->view, frame))
		v->t.inexact_updates++;
	vg_sender_get_stats(v->sender, &st);
	sha1_ms = (double)(st.sha1_ns - sha1_before) / 1e6;

	g_array_append_val(v->t.upd_bytes, (uint64_t){ wire });
	g_array_append_val(v->t.diff_ms, ms[0]);
	g_array_append_val(v->t.seg_ms, ms[1]);
	g_array_append_val(v->t.enc_ms, ms[2]);
	g_array_append_val(v->t.sha1_ms, sha1_ms);
	g_array_append_val(v->t.dec_ms, v->dec_ms);
	g_array_append_val(v->t.upd_ms, (double){ ms[0] + ms[1] + ms[2] });
	return VG_OK;
}

static void variant_finish(vg_ratio_variant *v, const vg_pixbuf *last)
{
	vg_sender_get_stats(v->sender, &v->t.sender);
	vg_receiver_get_stats(v->receiver, &v->t.receiver);
	v->t.exact = v->t.inexact_updates == 0 && vg_pixbuf_equal(v->view, last);
}

const vg_ratio_totals *vg_ratio_variant_totals(const vg_ratio_variant *v)
{
	return &v->t;
}

const char *vg_ratio_variant_name(const vg_ratio_variant *v)
{
	return v->name;
}

/* --- The run ----------------------------------------------------------- */

void vg_ratio_options_init(vg_ratio_options *o)
{
	memset(o, 0, sizeof *o);
	vg_segparams_init(&o->params, VG_SEGMETHOD_VARG);
	o->zlib_level = 6;
	o->zstd_level = VG_SENDER_ZSTD_LEVEL;
	o->zstd_window_log = VG_ZSTD_WINDOW_LOG_DEFAULT;
	o->stock = true;
	o->variants = true;
	vg_stockenc_config_init(&o->stock_cfg);
}

/* The variants of Table 12, the main pipeline (o->params) first. */
static int make_variants(const vg_ratio_options *o, int32_t w, int32_t h, GPtrArray *out)
{
	vg_segparams p;
	vg_ratio_variant *v;
	int err, m;

	if ((err = variant_new(vg_segmethod_name(o->params.method), &o->params, !o->no_motion, o, w,
			       h, &v)))
		return err;
	g_ptr_array_add(out, v);
	if (!o->variants)
		return VG_OK;
	if (o->params.method == VG_SEGMETHOD_VARG) {
		if ((err = variant_new("varg-nomotion", &o->params, false, o, w, h, &v)))
			return err;
		g_ptr_array_add(out, v);
		p = o->params;
		p.similar_run = 0;
		if ((err = variant_new("varg-nosimilar", &p, true, o, w, h, &v)))
			return err;
		g_ptr_array_add(out, v);
	}
	for (m = VG_SEGMETHOD_VARG; m <= VG_SEGMETHOD_KARPRABIN; m++) {
		if (m == (int)o->params.method)
			continue;
		vg_segparams_init(&p, (vg_segmethod)m);
		if (m != VG_SEGMETHOD_STATIC && m != VG_SEGMETHOD_KARPRABIN) {
			p.column_width = o->params.column_width;
			p.anchor_bits = o->params.anchor_bits;
			p.min_height = o->params.min_height;
			p.similar_run = o->params.similar_run;
		}
		if ((err = variant_new(vg_segmethod_name((vg_segmethod)m), &p, true, o, w, h, &v)))
			return err;
		g_ptr_array_add(out, v);
	}
	return VG_OK;
}

static void show_progress(const vg_ratio_options *o, uint64_t done, uint64_t total, uint64_t frames)
{
	int i, width = 40, fill;

	if (!o->progress || total == 0)
		return;
	fill = (int)((double)done / (double)total * width);
	fputc('\r', stderr);
	fputc('[', stderr);
	for (i = 0; i < width; i++)
		fputc(i < fill ? '#' : '.', stderr);
	fprintf(stderr, "] %3d%% frame %" G_GUINT64_FORMAT, (int)(100.0 * (double)done / (double)total),
		frames);
	fflush(stderr);
}

void vg_ratio_result_clear(vg_ratio_result *r)
{
	int k;

	if (r->variants)
		g_ptr_array_free(r->variants, TRUE);
	if (r->diff_ms)
		g_array_free(r->diff_ms, TRUE);
	if (r->raw_upd)
		g_array_free(r->raw_upd, TRUE);
	for (k = 0; k < VG_STOCKENC_COUNT; k++) {
		if (r->stock_bytes[k])
			g_array_free(r->stock_bytes[k], TRUE);
		if (r->stock_ms[k])
			g_array_free(r->stock_ms[k], TRUE);
	}
	memset(r, 0, sizeof *r);
}

/* What a cursor record costs as a CURSOR rectangle (a shape the list
 * holds: its place) and as RFB's rich cursor (every pixel, and a mask of a
 * bit a pixel), each with its 12-byte rectangle header. A shape CURSOR
 * cannot carry goes as a rich cursor both ways, as the server sends it. */
static void count_cursor(vg_ratio_result *res, vg_cursorlist *list, const vg_trace_cursor *c)
{
	vg_cursor_shape shape = { c->width, c->height, c->hot_x, c->hot_y, c->pixels };
	uint64_t rich = vg_cursor_rich_bytes(c->width, c->height);
	vg_writer w;

	vg_writer_init(&w);
	res->cursors++;
	res->rich_cursor_bytes += rich;
	res->cursor_bytes += vg_cursorlist_encode(list, &shape, &w) ? rich : 12 + 4 + w.len;
	vg_writer_clear(&w);
}

int vg_ratio_run(const char *path, const vg_ratio_options *o, vg_ratio_result *res)
{
	vg_trace_reader *rd = NULL;
	vg_differ *differ = NULL;
	vg_stockenc *stock = NULL;
	vg_cursorlist *cursors = NULL;
	vg_pixbuf *fb = NULL;
	vg_trace_record rec;
	GStatBuf st;
	uint64_t file_size = 0, last_progress = 0;
	int32_t w, h;
	int err, k;
	guint i;

	memset(res, 0, sizeof *res);
	res->variants = g_ptr_array_new_with_free_func((GDestroyNotify)variant_free);
	res->diff_ms = g_array_new(FALSE, FALSE, sizeof(double));
	res->raw_upd = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	for (k = 0; k < VG_STOCKENC_COUNT; k++) {
		res->stock_bytes[k] = g_array_new(FALSE, FALSE, sizeof(uint64_t));
		res->stock_ms[k] = g_array_new(FALSE, FALSE, sizeof(double));
	}
	if ((err = vg_trace_reader_open(path, &rd))) {
		vg_error("%s: %s", path, vg_strerror(err));
		goto out;
	}
	if (g_stat(path, &st) == 0)
		file_size = (uint64_t)st.st_size;
	w = vg_trace_reader_width(rd);
	h = vg_trace_reader_height(rd);
	res->width = w;
	res->height = h;
	fb = vg_pixbuf_new(w, h);
	if (!fb) {
		err = VG_ERANGE;
		vg_error("%s: %dx%d frames are too large", path, w, h);
		goto out;
	}
	if ((err = vg_differ_new(w, h, 0, &differ)) || (err = vg_cursorlist_new(&cursors)) ||
	    (err = make_variants(o, w, h, res->variants))) {
		vg_error("cannot set up the pipeline: %s", vg_strerror(err));
		goto out;
	}
	if (o->stock && (err = vg_stockenc_new(&o->stock_cfg, fb, &stock))) {
		vg_error("cannot set up LibVNCServer's encoders: %s", vg_strerror(err));
		goto out;
	}

	while ((err = vg_trace_reader_next(rd, &rec, fb)) == 1) {
		const vg_rect *changed;
		size_t n_changed, j;
		uint64_t t0, area = 0;
		double diff_ms;

		if (rec.kind == VG_TRACE_CURSOR)
			count_cursor(res, cursors, &rec.cursor);
		if (rec.kind != VG_TRACE_FRAME)
			continue;
		res->frames++;
		t0 = vg_time_ns();
		if ((err = vg_differ_update(differ, fb, rec.rects, rec.n_rects, &changed, &n_changed)))
			goto out;
		diff_ms = vg_time_ms_since(t0, vg_time_ns());
		for (j = 0; j < n_changed; j++)
			area += (uint64_t)vg_rect_area(changed[j]);
		if (area == 0)
			continue;
		if (o->trace_damage) {
			/* The stock encoders send the record's rectangles too. */
			changed = rec.rects;
			n_changed = rec.n_rects;
		}
		res->updates++;
		res->diff_bytes += area * 4;
		g_array_append_val(res->diff_ms, diff_ms);
		g_array_append_val(res->raw_upd, (uint64_t){ area * 4 });
		for (i = 0; i < res->variants->len; i++) {
			vg_ratio_variant *v = g_ptr_array_index(res->variants, i);

			if ((err = variant_update(v, fb, rec.rects, rec.n_rects))) {
				vg_error("frame %" G_GUINT64_FORMAT ": %s: %s", rec.index, v->name,
					 vg_strerror(err));
				goto out;
			}
		}
		if (stock) {
			vg_stockenc_result sr;

			if ((err = vg_stockenc_update(stock, changed, n_changed, &sr))) {
				vg_error("frame %" G_GUINT64_FORMAT ": LibVNCServer's encoders failed",
					 rec.index);
				goto out;
			}
			for (k = 0; k < VG_STOCKENC_COUNT; k++) {
				double ms = (double)sr.ns[k] / 1e6;

				res->stock_total[k] += sr.bytes[k];
				res->stock_ns[k] += sr.ns[k];
				g_array_append_val(res->stock_bytes[k], sr.bytes[k]);
				g_array_append_val(res->stock_ms[k], ms);
			}
		}
		if (vg_time_ns() - last_progress > 100000000u) {
			last_progress = vg_time_ns();
			show_progress(o, vg_trace_reader_offset(rd), file_size, res->frames);
		}
	}
	if (err < 0) {
		vg_error("%s: %s", path, vg_trace_reader_error_text(rd));
		goto out;
	}
	err = VG_OK;
	show_progress(o, file_size, file_size, res->frames);
	if (o->progress)
		fputc('\n', stderr);
	res->raw_bytes = res->frames * (uint64_t)w * (uint64_t)h * 4;
	for (i = 0; i < res->variants->len; i++)
		variant_finish(g_ptr_array_index(res->variants, i), fb);
out:
	if (err && o->progress)
		fputc('\n', stderr);
	vg_stockenc_free(stock);
	vg_cursorlist_free(cursors);
	vg_differ_free(differ);
	vg_pixbuf_free(fb);
	vg_trace_reader_free(rd);
	return err;
}
