/* Movement estimation by row and column fingerprint survival. */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "segment2d/vg_motion.h"

/* Where GCC's vector extensions and per-function targets are at hand,
 * remembering a frame, eight pixels a multiply, uses AVX2 when the
 * processor has it: packages are built for any x86-64, whose SSE2 has
 * no 32-bit multiply of four lanes. */
#if defined(__GNUC__) && defined(__x86_64__)
#define VG_MOTION_AVX2 1
typedef uint32_t u32x8 __attribute__((vector_size(32)));
#endif

/* Votes of one direction: sweep events, see vote(). */
typedef struct {
	int32_t *v;
	size_t n, cap;
} vote_list;

/* A lookup table of one strip's (or band's) previous fingerprints: open
 * addressing, pos[i] < 0 marks a free slot. */
typedef struct {
	uint32_t *key;
	int32_t *pos;
	uint32_t mask;
	int32_t built;   /* the estimate number it was built for */
} fp_table;

struct vg_motion {
	int32_t width, height, strip, sample;
	int32_t nsx, nby;        /* row strips across, column bands down */
	uint32_t *rowfp;         /* [nsx][height] previous row fingerprints */
	uint32_t *colfp;         /* [nby][width] previous column fingerprints */
	uint32_t *line_fp;       /* [max(width, height)] one line's new fingerprints */
	int32_t *line_hits;      /* [nsx + nby] hits per strip, then per band */
	uint32_t *coef;          /* [strip] per-position multipliers */
	fp_table *rowtab, *coltab;
	uint8_t *seen;           /* sample already looked at this estimate */
	vote_list votes[2];      /* the rows' hits, the columns' */
	vg_motion_result found[2]; /* this estimate's row counts, column counts */
	int32_t round;
	bool primed;
	bool whole;              /* the last sample's frame is remembered whole */
	bool sampling;           /* this estimate has a previous frame to look in */
	bool avx2;               /* the processor has AVX2 */
};

int vg_motion_new(int32_t width, int32_t height, int32_t strip, int32_t sample,
		  vg_motion **out)
{
	vg_motion *m;
	uint32_t x = 0x6d2b79f5u, tab;
	int32_t i;

	*out = NULL;
	if (strip == 0)
		strip = VG_MOTION_STRIP;
	if (sample == 0)
		sample = 32;
	if (strip < 16 || strip > 1024 || sample < 1 || sample > 256)
		return VG_EINVAL;
	if (width < 1 || height < 1 || width > VG_MAX_DIM || height > VG_MAX_DIM)
		return VG_EINVAL;
	m = g_new0(vg_motion, 1);
	m->width = width;
	m->height = height;
	m->strip = strip;
	m->sample = sample;
#ifdef VG_MOTION_AVX2
	m->avx2 = __builtin_cpu_supports("avx2");
#endif
	m->nsx = (width + strip - 1) / strip;
	m->nby = (height + strip - 1) / strip;
	m->rowfp = g_new0(uint32_t, (size_t)m->nsx * height);
	m->colfp = g_new0(uint32_t, (size_t)m->nby * width);
	m->line_fp = g_new0(uint32_t, (size_t)MAX(width, height));
	m->line_hits = g_new0(int32_t, (size_t)(m->nsx + m->nby));
	m->coef = g_new(uint32_t, (size_t)strip);
	for (i = 0; i < strip; i++) {
		/* xorshift32: fixed odd multipliers, one per position. */
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		m->coef[i] = x | 1;
	}
	m->rowtab = g_new0(fp_table, (size_t)m->nsx);
	for (tab = 16; tab < 2u * (uint32_t)height; tab <<= 1)
		;
	for (i = 0; i < m->nsx; i++) {
		m->rowtab[i].key = g_new(uint32_t, tab);
		m->rowtab[i].pos = g_new(int32_t, tab);
		m->rowtab[i].mask = tab - 1;
		m->rowtab[i].built = -1;
	}
	m->coltab = g_new0(fp_table, (size_t)m->nby);
	for (tab = 16; tab < 2u * (uint32_t)width; tab <<= 1)
		;
	for (i = 0; i < m->nby; i++) {
		m->coltab[i].key = g_new(uint32_t, tab);
		m->coltab[i].pos = g_new(int32_t, tab);
		m->coltab[i].mask = tab - 1;
		m->coltab[i].built = -1;
	}
	m->seen = g_new0(uint8_t, (size_t)m->nsx * (height / sample + 1) +
				   (size_t)m->nby * (width / sample + 1));
	*out = m;
	return VG_OK;
}

void vg_motion_free(vg_motion *m)
{
	int32_t i;

	if (!m)
		return;
	for (i = 0; i < m->nsx; i++) {
		g_free(m->rowtab[i].key);
		g_free(m->rowtab[i].pos);
	}
	for (i = 0; i < m->nby; i++) {
		g_free(m->coltab[i].key);
		g_free(m->coltab[i].pos);
	}
	g_free(m->rowtab);
	g_free(m->coltab);
	g_free(m->rowfp);
	g_free(m->colfp);
	g_free(m->line_fp);
	g_free(m->line_hits);
	g_free(m->coef);
	g_free(m->seen);
	g_free(m->votes[0].v);
	g_free(m->votes[1].v);
	g_free(m);
}

void vg_motion_reset(vg_motion *m)
{
	m->primed = false;
}

const char *vg_motion_dir_name(vg_motion_dir dir)
{
	switch (dir) {
	case VG_MOTION_VERTICAL:
		return "vertical";
	case VG_MOTION_HORIZONTAL:
		return "horizontal";
	default:
		return "none";
	}
}

/* ---- fingerprints ------------------------------------------------------
 * A fingerprint is sum(pixel[i] * coef[i]) mod 2^32 over the piece: cheap,
 * vectorisable, and for lookups among a few thousand pieces collisions of
 * different content are rare enough not to sway a vote. */

static uint32_t row_fp(const vg_motion *m, const vg_pixbuf *f, int32_t s, int32_t y)
{
	const uint32_t *px = vg_pixbuf_row(f, y) + s * m->strip;
	const int32_t n = MIN(m->strip, f->width - s * m->strip);
	uint32_t h0 = 0, h1 = 0, h2 = 0, h3 = 0;
	int32_t i;

	/* Four independent sums keep the multiplier busy. */
	for (i = 0; i + 4 <= n; i += 4) {
		h0 += (px[i] & VG_PIXEL_MASK) * m->coef[i];
		h1 += (px[i + 1] & VG_PIXEL_MASK) * m->coef[i + 1];
		h2 += (px[i + 2] & VG_PIXEL_MASK) * m->coef[i + 2];
		h3 += (px[i + 3] & VG_PIXEL_MASK) * m->coef[i + 3];
	}
	for (; i < n; i++)
		h0 += (px[i] & VG_PIXEL_MASK) * m->coef[i];
	return h0 + h1 + h2 + h3;
}

static uint32_t col_fp(const vg_motion *m, const vg_pixbuf *f, int32_t b, int32_t x)
{
	const int32_t y0 = b * m->strip, n = MIN(m->strip, f->height - y0);
	uint32_t h = 0;
	int32_t j;

	for (j = 0; j < n; j++)
		h += (vg_pixbuf_row(f, y0 + j)[x] & VG_PIXEL_MASK) * m->coef[j];
	return h;
}

static bool row_uniform(const vg_motion *m, const vg_pixbuf *f, int32_t s, int32_t y)
{
	const uint32_t *px = vg_pixbuf_row(f, y) + s * m->strip;
	const int32_t n = MIN(m->strip, f->width - s * m->strip);
	int32_t i;

	for (i = 1; i < n; i++)
		if (((px[i] ^ px[0]) & VG_PIXEL_MASK) != 0)
			return false;
	return true;
}

static bool col_uniform(const vg_motion *m, const vg_pixbuf *f, int32_t b, int32_t x)
{
	const int32_t y0 = b * m->strip, n = MIN(m->strip, f->height - y0);
	const uint32_t c = vg_pixbuf_row(f, y0)[x];
	int32_t j;

	for (j = 1; j < n; j++)
		if (((vg_pixbuf_row(f, y0 + j)[x] ^ c) & VG_PIXEL_MASK) != 0)
			return false;
	return true;
}

/* Adds the n pixels px times c to acc: one row of a band's column sums. */
static void add_row(uint32_t *restrict acc, const uint32_t *restrict px, int32_t n, uint32_t c)
{
	int32_t x;

	for (x = 0; x < n; x++)
		acc[x] += (px[x] & VG_PIXEL_MASK) * c;
}

#ifdef VG_MOTION_AVX2
/* add_row and row_fp, eight pixels at a time: the same sums mod 2^32. */
__attribute__((target("avx2")))
static void add_row_avx2(uint32_t *restrict acc, const uint32_t *restrict px, int32_t n,
			 uint32_t c)
{
	int32_t x;

	for (x = 0; x + 8 <= n; x += 8) {
		u32x8 a, p;

		memcpy(&a, acc + x, sizeof a);
		memcpy(&p, px + x, sizeof p);
		a += (p & VG_PIXEL_MASK) * c;
		memcpy(acc + x, &a, sizeof a);
	}
	for (; x < n; x++)
		acc[x] += (px[x] & VG_PIXEL_MASK) * c;
}

__attribute__((target("avx2")))
static uint32_t row_fp_avx2(const vg_motion *m, const vg_pixbuf *f, int32_t s, int32_t y)
{
	const uint32_t *px = vg_pixbuf_row(f, y) + s * m->strip;
	const int32_t n = MIN(m->strip, f->width - s * m->strip);
	u32x8 h = { 0 };
	uint32_t sum = 0;
	int32_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		u32x8 p, k;

		memcpy(&p, px + i, sizeof p);
		memcpy(&k, m->coef + i, sizeof k);
		h += (p & VG_PIXEL_MASK) * k;
	}
	for (; i < n; i++)
		sum += (px[i] & VG_PIXEL_MASK) * m->coef[i];
	return sum + h[0] + h[1] + h[2] + h[3] + h[4] + h[5] + h[6] + h[7];
}
#endif

/* Remembers the fingerprints of frame inside r, band by band, reading
 * each row once: its column sums, then while it is in cache, the row
 * fingerprints of its strips. A band's column sums take all its rows,
 * those of r and the rest. */
static void remember(vg_motion *m, const vg_pixbuf *f, vg_rect r)
{
	const int32_t s0 = r.x / m->strip, s1 = (r.x + r.w - 1) / m->strip;
	int32_t s, b, y;

	for (b = r.y / m->strip; b <= (r.y + r.h - 1) / m->strip; b++) {
		const int32_t y0 = b * m->strip, n = MIN(m->strip, f->height - y0);
		uint32_t *acc = m->colfp + (size_t)b * m->width + r.x;
		int32_t j;

		memset(acc, 0, (size_t)r.w * sizeof *acc);
		for (j = 0; j < n; j++) {
			const uint32_t *px = vg_pixbuf_row(f, y0 + j) + r.x;
			const bool in_r = y0 + j >= r.y && y0 + j < r.y + r.h;

			y = y0 + j;
			/* A branch a row, not a call through a pointer. */
#ifdef VG_MOTION_AVX2
			if (m->avx2) {
				add_row_avx2(acc, px, r.w, m->coef[j]);
				for (s = s0; s <= s1 && in_r; s++)
					m->rowfp[(size_t)s * m->height + y] = row_fp_avx2(m, f, s, y);
				continue;
			}
#endif
			add_row(acc, px, r.w, m->coef[j]);
			for (s = s0; s <= s1 && in_r; s++)
				m->rowfp[(size_t)s * m->height + y] = row_fp(m, f, s, y);
		}
	}
}

static uint32_t slot_of(uint32_t key)
{
	key ^= key >> 16;
	key *= 0x7feb352du;
	key ^= key >> 15;
	return key;
}

/* Builds t from the n previous fingerprints fp[] (once per estimate). */
static void table_build(fp_table *t, const uint32_t *fp, int32_t n, int32_t round)
{
	int32_t i;

	if (t->built == round)
		return;
	t->built = round;
	for (i = 0; i <= (int32_t)t->mask; i++)
		t->pos[i] = -1;
	for (i = 0; i < n; i++) {
		uint32_t k = slot_of(fp[i]) & t->mask;

		while (t->pos[k] >= 0 && t->key[k] != fp[i])
			k = (k + 1) & t->mask;
		if (t->pos[k] < 0) {
			t->key[k] = fp[i];
			t->pos[k] = i;
		}
	}
}

/* Position of key in t, or -1. Among equal fingerprints the first wins. */
static int32_t table_find(const fp_table *t, uint32_t key)
{
	uint32_t k = slot_of(key) & t->mask;

	while (t->pos[k] >= 0) {
		if (t->key[k] == key)
			return t->pos[k];
		k = (k + 1) & t->mask;
	}
	return -1;
}

/* A hit says the sample at pos was somewhere in the old run of equal
 * fingerprints old[at..at+run) (a table lookup returns the first of them:
 * the six equal rows of a heat map cell, say), so it votes for the offsets
 * [pos-at-run+1, pos-at]. Votes are kept as sweep events: the offset
 * times two for a start, plus one for the end of an interval. */
static void vote(vote_list *l, const uint32_t *old, int32_t len, int32_t pos, int32_t at,
		 int32_t *line_hits)
{
	int32_t run = 1;

	(*line_hits)++;

	while (at + run < len && run < 256 && old[at + run] == old[at])
		run++;
	if (l->n + 2 > l->cap) {
		l->cap = l->cap ? 2 * l->cap : 512;
		l->v = g_renew(int32_t, l->v, l->cap);
	}
	l->v[l->n++] = 2 * (pos - at - run + 1);
	l->v[l->n++] = 2 * (pos - at) + 1;
}

static int int32_cmp(const void *pa, const void *pb)
{
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;

	return (a > b) - (a < b);
}

enum { MAX_CANDIDATES = 64 };

/* Collects into cand (at most MAX_CANDIDATES) the offsets that lie inside
 * the most vote intervals of l; returns their count. */
static size_t best_offsets(vote_list *l, int32_t *cand)
{
	int32_t *v = l->v, depth = 0, best_depth = 0;
	size_t i, n = l->n, nc = 0;

	/* No votes: votes may not even be allocated yet (an estimator that
	 * took its state from another never voted). */
	if (n == 0)
		return 0;
	/* Starts sort before ends at the same offset (2d < 2d + 1). */
	qsort(v, n, sizeof *v, int32_cmp);
	for (i = 0; i < n; i++) {
		depth += (v[i] & 1) == 0 ? 1 : -1;
		best_depth = MAX(best_depth, depth);
	}
	depth = 0;
	for (i = 0; i + 1 < n && nc < MAX_CANDIDATES; i++) {
		int32_t from, to, d;

		depth += (v[i] & 1) == 0 ? 1 : -1;
		if (depth != best_depth)
			continue;
		/* Between this event and the next the depth is constant: a
		 * start at 2a includes a, an end at 2b + 1 includes b. */
		from = (v[i] & 1) == 0 ? v[i] / 2 : (v[i] - 1) / 2 + 1;
		to = (v[i + 1] & 1) == 0 ? v[i + 1] / 2 - 1 : (v[i + 1] - 1) / 2;
		for (d = from; d <= to && nc < MAX_CANDIDATES; d++)
			cand[nc++] = d;
	}
	return nc;
}

/* Picks among several equally voted offsets by looking at every row of
 * the strip (or column of the band) with the most hits, not just the
 * samples: the offset under which most new fingerprints equal the old
 * ones wins, the first on a tie. */
static int32_t verify(vg_motion *m, const vg_pixbuf *f, bool rows, const int32_t *cand,
		      size_t nc)
{
	const int32_t len = rows ? m->height : m->width;
	const int32_t nlines = rows ? m->nsx : m->nby;
	const int32_t *hits = rows ? m->line_hits : m->line_hits + m->nsx;
	uint32_t *now = m->line_fp;
	const uint32_t *old;
	int32_t line = 0, i, best = cand[0];
	size_t c, best_ok = 0;

	for (i = 1; i < nlines; i++)
		if (hits[i] > hits[line])
			line = i;
	if (rows) {
		for (i = 0; i < len; i++)
			now[i] = row_fp(m, f, line, i);
		old = m->rowfp + (size_t)line * len;
	} else {
		const int32_t y0 = line * m->strip, n = MIN(m->strip, f->height - y0);
		int32_t j, x;

		memset(now, 0, (size_t)len * sizeof *now);
		for (j = 0; j < n; j++) {
			const uint32_t *px = vg_pixbuf_row(f, y0 + j);
			for (x = 0; x < len; x++)
				now[x] += (px[x] & VG_PIXEL_MASK) * m->coef[j];
		}
		old = m->colfp + (size_t)line * len;
	}
	for (c = 0; c < nc; c++) {
		int32_t lo = MAX(0, cand[c]), hi = MIN(len, len + cand[c]);
		size_t ok = 0;

		for (i = lo; i < hi; i++)
			ok += now[i] == old[i - cand[c]];
		if (ok > best_ok) {
			best_ok = ok;
			best = cand[c];
		}
	}
	return best;
}

static int32_t best_offset(vg_motion *m, const vg_pixbuf *f, bool rows)
{
	int32_t cand[MAX_CANDIDATES];
	size_t nc = best_offsets(&m->votes[rows ? 0 : 1], cand);

	if (nc == 0)
		return 0; /* no hits: the move is not known */
	if (nc == 1)
		return cand[0];
	return verify(m, f, rows, cand, nc);
}

/* The k-th sampled row or column: one in every sample, at a jittered
 * place inside its block of sample lines. Regular sampling would see
 * periodic content (12 px heat map cells, 14 px text lines) always in the
 * same phase, and could not tell apart the offsets a period allows. */
static int32_t sample_at(const vg_motion *m, int32_t k)
{
	uint32_t j = (uint32_t)k * 0x9e3779b1u;

	return k * m->sample + (int32_t)((j >> 16) % (uint32_t)m->sample);
}

/* Looks the sampled rows and columns of frame inside r up among the
 * previous fingerprints (rows when rows is true, else columns), and
 * records a vote for each hit. */
static void sample_rect(vg_motion *m, const vg_pixbuf *f, vg_rect r, bool rows)
{
	vg_motion_result *res = &m->found[rows ? 0 : 1];
	const int32_t rows_per_strip = m->height / m->sample + 1;
	const int32_t cols_per_band = m->width / m->sample + 1;
	uint8_t *seen_rows = m->seen, *seen_cols = m->seen + (size_t)m->nsx * rows_per_strip;
	int32_t s, b, x, y;

	if (rows) {
		for (s = r.x / m->strip; s <= (r.x + r.w - 1) / m->strip; s++) {
			const uint32_t *old = m->rowfp + (size_t)s * m->height;

			int32_t k;

			for (k = r.y / m->sample; (y = sample_at(m, k)) < r.y + r.h; k++) {
				uint8_t *seen = &seen_rows[(size_t)s * rows_per_strip + k];
				uint32_t fp;
				int32_t at;

				if (y < r.y || y >= m->height || *seen)
					continue;
				*seen = 1;
				fp = row_fp(m, f, s, y);
				if (row_uniform(m, f, s, y))
					continue;
				if (fp == old[y]) {
					res->row_same++;
					continue;
				}
				res->row_samples++;
				table_build(&m->rowtab[s], old, m->height, m->round);
				at = table_find(&m->rowtab[s], fp);
				if (at >= 0) {
					res->row_hits++;
					vote(&m->votes[0], old, m->height, y, at, &m->line_hits[s]);
				}
			}
		}
		return;
	}
	for (b = r.y / m->strip; b <= (r.y + r.h - 1) / m->strip; b++) {
		const uint32_t *old = m->colfp + (size_t)b * m->width;

		int32_t k;

		for (k = r.x / m->sample; (x = sample_at(m, k)) < r.x + r.w; k++) {
			uint8_t *seen = &seen_cols[(size_t)b * cols_per_band + k];
			uint32_t fp;
			int32_t at;

			if (x < r.x || x >= m->width || *seen)
				continue;
			*seen = 1;
			fp = col_fp(m, f, b, x);
			if (col_uniform(m, f, b, x))
				continue;
			if (fp == old[x]) {
				res->col_same++;
				continue;
			}
			res->col_samples++;
			table_build(&m->coltab[b], old, m->width, m->round);
			at = table_find(&m->coltab[b], fp);
			if (at >= 0) {
				res->col_hits++;
				vote(&m->votes[1], old, m->width, x, at, &m->line_hits[m->nsx + b]);
			}
		}
	}
}

/* Whether survival rate a (parts per 1000) clearly beats b: at least 25 %,
 * 15 points more and twice as much. */
static bool beats(int32_t a, int32_t b)
{
	return a >= 250 && a >= b + 150 && a >= 2 * b;
}

/* First the survival rates of the samples that changed: a direction wins
 * when at least one of its samples was found elsewhere and its rate beats
 * the other's. Small moves of periodic content (a 1 px move of 12 px heat
 * map cells) leave most samples of the moving direction unchanged in
 * place and hardly any changed, so if that is undecided, the rates are
 * taken again counting unchanged samples as survivors. */
static void decide(vg_motion *m, const vg_pixbuf *f, vg_motion_result *out)
{
	int32_t rr = out->row_samples ? 1000 * out->row_hits / out->row_samples : 0;
	int32_t cr = out->col_samples ? 1000 * out->col_hits / out->col_samples : 0;
	int32_t rn = out->row_samples + out->row_same, cn = out->col_samples + out->col_same;

	if (out->row_samples + out->col_samples == 0)
		return;
	if (!(out->row_hits >= 1 && beats(rr, cr)) && !(out->col_hits >= 1 && beats(cr, rr))) {
		rr = rn ? 1000 * (out->row_hits + out->row_same) / rn : 0;
		cr = cn ? 1000 * (out->col_hits + out->col_same) / cn : 0;
	}
	if (beats(rr, cr)) {
		out->dir = VG_MOTION_VERTICAL;
		out->offset = best_offset(m, f, true);
	} else if (beats(cr, rr)) {
		out->dir = VG_MOTION_HORIZONTAL;
		out->offset = best_offset(m, f, false);
	}
}

/* The rectangles this estimate samples and remembers: the caller's, or
 * the whole frame (in *all) when it gave none or nothing was remembered
 * before. */
static const vg_rect *changed_or_all(const vg_motion *m, const vg_rect *changed, size_t *n,
				     vg_rect *all)
{
	*all = vg_rect_make(0, 0, m->width, m->height);
	if (m->whole || !changed) {
		*n = 1;
		return all;
	}
	return changed;
}

int vg_motion_sample_begin(vg_motion *m, const vg_pixbuf *frame, const vg_rect *changed,
			   size_t n_changed)
{
	m->whole = false;
	m->sampling = false;
	memset(m->found, 0, sizeof m->found);
	if (frame->width != m->width || frame->height != m->height)
		return VG_EINVAL;
	if (!changed && n_changed > 0)
		return VG_EINVAL;
	/* Nothing remembered yet, or no list: the whole frame. */
	m->whole = !changed || !m->primed;
	m->sampling = m->primed;
	if (m->sampling) {
		memset(m->seen, 0, (size_t)m->nsx * (m->height / m->sample + 1) +
					   (size_t)m->nby * (m->width / m->sample + 1));
		m->round++;
		m->votes[0].n = m->votes[1].n = 0;
		memset(m->line_hits, 0, (size_t)(m->nsx + m->nby) * sizeof *m->line_hits);
	}
	m->primed = true;
	return VG_OK;
}

void vg_motion_sample_lines(vg_motion *m, const vg_pixbuf *frame, const vg_rect *changed,
			    size_t n_changed, bool rows)
{
	vg_rect all;
	size_t i;

	if (!m->sampling)
		return;
	changed = changed_or_all(m, changed, &n_changed, &all);
	for (i = 0; i < n_changed; i++) {
		vg_rect r = vg_rect_intersect(changed[i], all);

		if (!vg_rect_is_empty(r))
			sample_rect(m, frame, r, rows);
	}
}

void vg_motion_sample_end(vg_motion *m, const vg_pixbuf *frame, vg_motion_result *out)
{
	memset(out, 0, sizeof *out);
	if (!m->sampling)
		return;
	out->row_samples = m->found[0].row_samples;
	out->row_hits = m->found[0].row_hits;
	out->row_same = m->found[0].row_same;
	out->col_samples = m->found[1].col_samples;
	out->col_hits = m->found[1].col_hits;
	out->col_same = m->found[1].col_same;
	decide(m, frame, out);
}

int vg_motion_sample(vg_motion *m, const vg_pixbuf *frame, const vg_rect *changed,
		     size_t n_changed, vg_motion_result *out)
{
	int err = vg_motion_sample_begin(m, frame, changed, n_changed);

	memset(out, 0, sizeof *out);
	if (err)
		return err;
	vg_motion_sample_lines(m, frame, changed, n_changed, true);
	vg_motion_sample_lines(m, frame, changed, n_changed, false);
	vg_motion_sample_end(m, frame, out);
	return VG_OK;
}

void vg_motion_cut(const vg_motion *m, const vg_rect *changed, size_t n_changed, int n_parts,
		   int32_t *cuts)
{
	vg_rect all;

	changed = changed_or_all(m, changed, &n_changed, &all);
	vg_rects_cut_stripes(changed, n_changed, false, m->strip, m->nby, n_parts, cuts);
}

void vg_motion_remember(vg_motion *m, const vg_pixbuf *frame, const vg_rect *changed,
			size_t n_changed, int32_t band0, int32_t band1)
{
	/* Whole bands: band0 and band1 are those of vg_motion_cut(), so
	 * the product cannot overflow. */
	const vg_rect rows = vg_rect_intersect(
		vg_rect_make(0, 0, m->width, m->height),
		vg_rect_make(0, band0 * m->strip, m->width, (band1 - band0) * m->strip));
	vg_rect all;
	size_t i;

	if (frame->width != m->width || frame->height != m->height)
		return;
	changed = changed_or_all(m, changed, &n_changed, &all);
	for (i = 0; i < n_changed; i++) {
		vg_rect r = vg_rect_intersect(changed[i], rows);
		if (!vg_rect_is_empty(r))
			remember(m, frame, r);
	}
}

int vg_motion_estimate(vg_motion *m, const vg_pixbuf *frame, const vg_rect *changed,
		       size_t n_changed, vg_motion_result *out)
{
	int err = vg_motion_sample(m, frame, changed, n_changed, out);

	if (err == 0)
		vg_motion_remember(m, frame, changed, n_changed, 0, m->nby);
	return err;
}

/* ---- the remembered frame, for sharing between estimators ---------------
 * Layout: width, height, strip, sample, primed (one uint32_t each), then
 * rowfp and colfp. The lookup tables are rebuilt from these on the next
 * estimate (round moves on), so they need not travel. */

enum { STATE_HEADER = 5 };

size_t vg_motion_state_size(const vg_motion *m)
{
	return (STATE_HEADER + (size_t)m->nsx * (size_t)m->height +
		(size_t)m->nby * (size_t)m->width) * sizeof(uint32_t);
}

void vg_motion_state_save(const vg_motion *m, void *buf)
{
	uint32_t *w = buf;
	const size_t nrow = (size_t)m->nsx * (size_t)m->height;

	w[0] = (uint32_t)m->width;
	w[1] = (uint32_t)m->height;
	w[2] = (uint32_t)m->strip;
	w[3] = (uint32_t)m->sample;
	w[4] = m->primed;
	memcpy(w + STATE_HEADER, m->rowfp, nrow * sizeof *w);
	memcpy(w + STATE_HEADER + nrow, m->colfp, (size_t)m->nby * (size_t)m->width * sizeof *w);
}

bool vg_motion_state_equal(const vg_motion *m, const void *buf, size_t len)
{
	const uint32_t *w = buf;
	const size_t nrow = (size_t)m->nsx * (size_t)m->height;

	if (len != vg_motion_state_size(m))
		return false;
	if (w[0] != (uint32_t)m->width || w[1] != (uint32_t)m->height ||
	    w[2] != (uint32_t)m->strip || w[3] != (uint32_t)m->sample || w[4] != m->primed)
		return false;
	return memcmp(w + STATE_HEADER, m->rowfp, nrow * sizeof *w) == 0 &&
	       memcmp(w + STATE_HEADER + nrow, m->colfp,
		      (size_t)m->nby * (size_t)m->width * sizeof *w) == 0;
}

int vg_motion_state_load(vg_motion *m, const void *buf, size_t len)
{
	const uint32_t *w = buf;
	const size_t nrow = (size_t)m->nsx * (size_t)m->height;

	if (len != vg_motion_state_size(m) || w[0] != (uint32_t)m->width ||
	    w[1] != (uint32_t)m->height || w[2] != (uint32_t)m->strip ||
	    w[3] != (uint32_t)m->sample || w[4] > 1)
		return VG_EINVAL;
	m->primed = w[4] != 0;
	memcpy(m->rowfp, w + STATE_HEADER, nrow * sizeof *w);
	memcpy(m->colfp, w + STATE_HEADER + nrow, (size_t)m->nby * (size_t)m->width * sizeof *w);
	return VG_OK;
}

bool vg_motion_is_primed(const vg_motion *m)
{
	return m->primed;
}
