#include <stdlib.h>
#include <string.h>

#include "common/vg_array.h"
#include "common/vg_error.h"
#include "common/vg_mem.h"
#include "common/vg_minmax.h"
#include "fingerprint/codec/vg_pixmodel.h"
#include "fingerprint/codec/vg_rangecoder.h"

/* Colour contexts: of ten, six, four and two neighbours, hashed into
 * 2^17, 2^17, 2^16 and 2^12 slots (fewer neighbours meet in fewer ways),
 * remembering up to 6, 5, 5 and 8 colours with counts that halve past
 * COUNT_MAX (so a context follows what the screen shows now). Ten
 * neighbours tell one glyph's stroke from another's where six cannot;
 * the widest context needs its sixth colour on text most, the narrowest
 * its many colours in few slots (doc/results.md, *The pixel model's
 * memory*: the tables take 7.9 MB). */
#define ORDERS 4
static const unsigned slot_bits[ORDERS] = { 17, 17, 16, 12 };
static const unsigned slot_k[ORDERS] = { 6, 5, 5, 8 };
/* The most colours a slot of any order holds. */
#define K 8
#define SLOTS(o) (1u << slot_bits[o])
/* A slot: slot_k colours, each a 24-bit colour with its count in the
 * top byte, so that one load gives both (4 bytes; 0: no colour, nor in
 * the entries after it: a slot whose first is 0 is empty). The context's
 * upper hash bits, its tag (another context in the slot resets it), are
 * kept apart, 2 bytes a slot in a table of tags for each order: whether
 * the widest context has seen a pixel's neighbours, asked at every run's
 * start, is mostly answered by its tag alone, from 256 KB that stay in
 * the processor's cache rather than 3 MB that do not. */
#define SLOT_BYTES(o) (4 * slot_k[o])
/* Slots a reset clears one by one; past this many since the last reset,
 * it clears the whole tables (a fuzzer's or a short connection's model
 * touches a few thousand of the 2^18 + 2^16 + 2^12 slots). */
#define TOUCHED_MAX 16384
#define COUNT_MAX 255
/* Colours the context-free list keeps (a heat map's scale has hundreds:
 * at 256, a fifth of the colours a TreeView session looked for in it
 * were not there), and its count limit; its counts summed by groups, so that a
 * cumulative count takes a few dozen additions, not a thousand. */
#define O0_MAX 1024
#define O0_TOTAL_MAX 30000
#define O0_GROUP 32
#define O0_GROUPS (O0_MAX / O0_GROUP)
#define O0_BUCKETS 2048
/* The list by nearness: a heat map's cells take their colours from a
 * scale, and a cell's colour lies near its left and upper neighbours'
 * on it more often than its count alone says. The list's colours are
 * also grouped by cells of the colour cube (NEAR_LEVELS a channel), and
 * a colour may be coded as its cell, weighted by the cell's counts and
 * by its nearness (channel differences summed, d) to the left and the
 * upper neighbour, 2^26 / (NEAR_SCALE + d)^2 for each, then as itself
 * among the cell's colours by its count (nearness within a cell, built
 * and measured, saved 0.2-0.3 % of the heat maps' bytes, for a walk of
 * the cell's colours at every coding). Whichever of the two codings has
 * lately cost less is used: on text, nearness says little, and the
 * plain list stays. */
#define NEAR_SHIFT 5
#define NEAR_LEVELS (256 >> NEAR_SHIFT)
#define CELLS (NEAR_LEVELS * NEAR_LEVELS * NEAR_LEVELS)
#define NEAR_SCALE 64
#define NEAR_DIST_MAX (3 * 255)
/* Cost averages forget a 32nd at each coding; while the plain list is
 * used, one coding in NEAR_SAMPLE weighs nearness too. The cells' scaled
 * weights sum below 2^14, with room for the escape and a unit for each
 * cell below VG_RC_MAX_TOTAL. */
#define NEAR_DECAY 5
#define NEAR_SAMPLE 4
#define NEAR_CELL_BITS 14
#define NEAR_ESC_MAX (1u << 15)
_Static_assert((1u << 26) / (NEAR_SCALE * NEAR_SCALE) <= UINT16_MAX, "a nearness weight fits 16 bits");
/* A neighbour outside what both ends know: no 24-bit colour. */
#define NONE 0x1000000u
/* The border around a block that its contexts reach into. */
#define BORDER_L 2
#define BORDER_R 1
#define BORDER_T 2
/* The shape model: which of six neighbours comes next, by 8 bits of
 * which neighbours agree and 4 steps of what the widest colour context
 * has seen. */
#define NEIGHBOURS 6
#define SHAPES 1024
#define SHAPE_INC 8
#define SHAPE_TOTAL_MAX 8000
/* Secondary escape estimation: start at one escape in five. */
#define SEE_START_ESC 2
#define SEE_START_HIT 8
#define SEE_INC 2
#define SEE_MAX 1024
#define SEE_ESC_MAX 30000
/* Prediction differences: their counts' step; totals stay below
 * VG_RC_MAX_TOTAL, as every total here does. */
#define RES_INC 24
#define RES_TOTAL_MAX (VG_RC_MAX_TOTAL - 2 * RES_INC)

enum { MODE_CONTEXT, MODE_PREDICT, MODES };

/* Flat areas and runs. Where the four nearest neighbours are one
 * colour, a pixel is first a yes or no: whether it is that colour too.
 * Where moreover the row above stays one colour for RUN_MIN pixels or
 * more (a stretch), the pixels that repeat the left neighbour are coded
 * as a run instead, stretch by stretch: a yes or no for each stretch
 * (does the run cover it whole), and where it stops, how far into its
 * last stretch it went. A run also starts where the two pixels to the
 * left are one colour below a stretch the widest context has never seen,
 * or has seen followed by that colour only (a heat map cell's first row),
 * and there the stretch may be shorter if it reaches the block's right
 * edge (the block cuts the cell, not a change of colour). So does one
 * after a single pixel of its colour where the stretch above begins over
 * that pixel (a grid's cell, its first pixel new) and the widest context
 * has never seen the neighbours: the cell's second pixel then costs a
 * run's yes rather than a probe of every context. Below a row that
 * repeated its own (a grid's, seldom a glyph's) such a cell's stretch
 * may be as short as two pixels. Each yes or no
 * has a 15-bit probability that moves a 64th of the way towards each
 * answer. */
#define BIT_BITS 15
#define BIT_ONE (1u << BIT_BITS)
#define BIT_RATE 6
#define RUN_MIN 8
/* Rows that repeat the row above: a zoomed heat map's cells, a pile of
 * reads, a tree's branches (30-44 % of the pixels the contexts coded on
 * the heat map, TreeView and IGV sessions lay in such rows). A row is
 * first a yes or no, by 9 bits (see repeat_context), where its
 * probability of yes is REPEAT_ASK or more: on text, where rows seldom
 * repeat, asking at every row cost more than the repeats saved. */
#define REPEAT_CTX 512
#define REPEAT_ASK (BIT_ONE / 4)
/* A flat pixel's yes or no by 8 bits: see flat_context. */
#define FLAT_CTX 256
/* A stretch's yes or no by 10 bits: see run_context. */
#define RUN_CTX 1024
/* How far a run goes into its last stretch: an Elias gamma code, its
 * unary part by 4 bits of context and the step, the bits below the top
 * one by the step and the bits above them (a block's width is below
 * 2^31, so a stretch has fewer than LEN_STEPS bits). */
#define LEN_CTX 16
#define LEN_STEPS 32
#define LEN_PREFIX 16

#define ENTRY_COLOUR(e) ((e) & 0xffffffu)
#define ENTRY_COUNT(e) ((e) >> 24)
#define ENTRY_ONE (1u << 24)
_Static_assert(COUNT_MAX <= 255, "a slot's counts fit a byte");

/* Residual frequencies of one colour channel, in 16 groups of 16 so that
 * a cumulative count takes 32 additions, not 256. */
typedef struct {
	uint16_t count[256];
	uint32_t group[16];
	uint32_t total;
} residuals;

/* What the model learns besides the colour contexts: some 42 KB, set
 * back to where a new model starts when coding starts (see freshen). */
typedef struct {
	uint32_t o0_colour[O0_MAX];
	uint16_t o0_count[O0_MAX];
	unsigned o0_n;
	uint32_t o0_total;
	/* The list's colours by their hash: 1 + the first one's index in
	 * a bucket (0: none), 1 + the next one's in o0_next. */
	uint16_t o0_head[O0_BUCKETS];
	uint16_t o0_next[O0_MAX];
	uint16_t o0_group[O0_GROUPS]; /* each group's counts, summed */
	uint16_t o0_group_least[O0_GROUPS]; /* and the least of them */
	/* The list's colours by cell: 1 + the first one's place in a cell,
	 * 1 + the next one's in o0_cnext; each cell's counts summed, and
	 * which cells hold any. */
	uint16_t cell_head[CELLS];
	uint16_t o0_cnext[O0_MAX];
	uint16_t cell_sum[CELLS];
	uint64_t cell_used[CELLS / 64];
	/* What the plain list and the list by nearness would have cost
	 * lately, in 256ths of a bit, each average forgetting a 32nd at a
	 * coding. */
	uint32_t cost_plain, cost_near;
	uint32_t o0_weighed; /* uses of the plain list, to sample */
	uint16_t mode_count[MODES];
	uint16_t repeat[REPEAT_CTX];
	uint16_t flat[FLAT_CTX];
	uint16_t run[RUN_CTX];
	uint16_t len[LEN_CTX][LEN_STEPS];
	uint16_t len_bits[2][LEN_STEPS][LEN_PREFIX];
	/* By the pattern of equal neighbours alone: which neighbour's colour
	 * comes next (or none). Where the colour contexts know nothing (a
	 * heat map's cells, colours seen side by side for the first time),
	 * a cell's edge still continues the one above. */
	uint16_t shape[SHAPES][NEIGHBOURS + 1];
	residuals res[3];
	/* New colours: each channel's difference from a neighbour's, whose
	 * spread follows the screen's palette (a heat map's colours lie on
	 * a scale, so most channels barely move or stay at zero). */
	residuals fresh[3];
	/* Secondary escape estimation: how often contexts of each order,
	 * count, size and agreement with the left neighbour have escaped
	 * ([0]) or not ([1]). */
	uint16_t see[ORDERS][8][K][2][2];
} learnt;

struct vg_pixmodel {
	/* The four tables, one after the other, then their tags (in
	 * huge pages: vg_mem_alloc0_huge). */
	uint8_t *tables;
	uint8_t *ctx[ORDERS];  /* each order's table in tables */
	uint16_t *tag[ORDERS]; /* each order's tags, after the tables */
	learnt l;
	vg_rc_encoder enc;
	vg_rc_decoder dec;
	bool decoding;
	bool corrupt;
	uint16_t near[NEAR_DIST_MAX + 1]; /* a colour's weight by its distance */
	uint32_t *scratch;    /* the block's pixels with a border (see block_for) */
	size_t scratch_cap;
	vg_array *done;       /* vg_rect: the chunk's blocks coded so far */
	/* The pixels those blocks cover, a bit each (cover_words a row), so
	 * that block_for asks about a border pixel at once rather than
	 * walking every earlier block: a 4K update has thousands. */
	uint64_t *cover;
	int32_t cover_w, cover_h;
	size_t cover_words;
	/* The slots first used since the last reset, while they fit. */
	uint32_t *touched;    /* where each starts in tables */
	size_t n_touched;     /* TOUCHED_MAX + 1: too many, clear them all */
	/* l is still an earlier connection's, to be made initial again when
	 * coding starts: a connection that never codes with the model (most
	 * do not on text) does not pay for the copy. */
	bool stale;
};

static void residuals_init(residuals *r)
{
	int i;

	for (i = 0; i < 256; i++)
		r->count[i] = 1;
	for (i = 0; i < 16; i++)
		r->group[i] = 16;
	r->total = 256;
}

/* Sets l to where a new model starts. */
static void learnt_init(learnt *l)
{
	uint16_t *e = &l->see[0][0][0][0][0], *len = &l->len[0][0], *bits = &l->len_bits[0][0][0];
	size_t j;
	int i;

	memset(l, 0, sizeof *l);
	l->mode_count[0] = l->mode_count[1] = 1;
	for (i = 0; i < FLAT_CTX; i++)
		l->flat[i] = BIT_ONE - BIT_ONE / 64; /* screens are mostly flat */
	for (i = 0; i < REPEAT_CTX; i++)
		l->repeat[i] = BIT_ONE / 2;
	for (i = 0; i < RUN_CTX; i++)
		l->run[i] = BIT_ONE / 2;
	for (j = 0; j < sizeof l->len / sizeof *len; j++)
		len[j] = BIT_ONE / 2;
	for (j = 0; j < sizeof l->len_bits / sizeof *bits; j++)
		bits[j] = BIT_ONE / 2;
	for (j = 0; j < sizeof l->see / sizeof *e; j += 2) {
		e[j] = SEE_START_ESC;
		e[j + 1] = SEE_START_HIT;
	}
	for (i = 0; i <= NEIGHBOURS; i++)
		l->shape[0][i] = 1;
	for (i = 1; i < SHAPES; i++)
		memcpy(l->shape[i], l->shape[0], sizeof l->shape[0]);
	for (i = 0; i < 3; i++) {
		residuals_init(&l->res[i]);
		residuals_init(&l->fresh[i]);
	}
}

/* Sets everything the model learns to where a new model starts, the
 * colour contexts aside (empty already, or cleared by the caller). One
 * copy of the state prepared at vg_pixmodel_new, not its thousands of
 * counts set one by one: a reconnecting viewer, or a fuzzer resetting
 * before each input, pays a few microseconds. */
/* Sets (on) or clears the cover bits of r, which lies in the cover. */
static void cover_mark(vg_pixmodel *m, vg_rect r, bool on)
{
	int32_t y, x0 = r.x, x1 = r.x + r.w; /* [x0, x1) */

	for (y = r.y; y < r.y + r.h; y++) {
		uint64_t *row = m->cover + (size_t)y * m->cover_words;
		int32_t x = x0;

		while (x < x1) {
			int32_t bit = x & 63, n = VG_MIN(64 - bit, x1 - x);
			uint64_t mask = (n == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << n) - 1)) << bit;

			if (on)
				row[x >> 6] |= mask;
			else
				row[x >> 6] &= ~mask;
			x += n;
		}
	}
}

/* Whether (x, y) is a pixel of the chunk's earlier blocks. */
static inline bool covered(const vg_pixmodel *m, int32_t x, int32_t y)
{
	return x >= 0 && y >= 0 && x < m->cover_w && y < m->cover_h &&
	       (m->cover[(size_t)y * m->cover_words + (size_t)(x >> 6)] >> (x & 63) & 1);
}

/* Ends the chunk: no block is done, no pixel covered (cleared where the
 * blocks were, not over the whole frame). */
static void forget_done(vg_pixmodel *m)
{
	size_t i;

	if (m->cover)
		for (i = 0; i < m->done->len; i++)
			cover_mark(m, VG_ARRAY_AT(m->done, vg_rect, i), false);
	vg_array_set_len(m->done, 0);
}

/* A cover for a w x h frame, with the chunk's blocks so far marked. */
static void cover_fit(vg_pixmodel *m, int32_t w, int32_t h)
{
	size_t i;

	if (m->cover && w == m->cover_w && h == m->cover_h)
		return;
	free(m->cover);
	m->cover_words = ((size_t)w + 63) / 64;
	m->cover = VG_NEW0(uint64_t, m->cover_words * (size_t)h);
	m->cover_w = w;
	m->cover_h = h;
	for (i = 0; i < m->done->len; i++)
		cover_mark(m, VG_ARRAY_AT(m->done, vg_rect, i), true);
}

/* Notes that block r is coded. */
static void done_add(vg_pixmodel *m, vg_rect r)
{
	vg_array_append(m->done, &r, 1);
	cover_mark(m, r, true);
}

static void start(vg_pixmodel *m)
{
	m->stale = true;
	m->decoding = false;
	m->corrupt = false;
	forget_done(m);
	m->n_touched = 0;
}

/* Before the first block a connection codes: the learning starts over. */
static void freshen(vg_pixmodel *m)
{
	if (m->stale)
		learnt_init(&m->l);
	m->stale = false;
}

/* The four tables' bytes, their tags' included. */
static size_t tables_bytes(void)
{
	size_t n = 0;
	int i;

	for (i = 0; i < ORDERS; i++)
		n += (size_t)SLOTS(i) * (SLOT_BYTES(i) + sizeof(uint16_t));
	return n;
}

int vg_pixmodel_new(vg_pixmodel **out)
{
	vg_pixmodel *m = VG_NEW0(vg_pixmodel, 1);
	size_t n;
	int i;

	m->tables = vg_mem_alloc0_huge(tables_bytes());
	for (i = 0, n = 0; i < ORDERS; i++) {
		m->ctx[i] = m->tables + n;
		n += (size_t)SLOTS(i) * SLOT_BYTES(i);
	}
	for (i = 0; i < ORDERS; i++) {
		m->tag[i] = (uint16_t *)(void *)(m->tables + n);
		n += (size_t)SLOTS(i) * sizeof(uint16_t);
	}
	for (i = 0; i <= NEAR_DIST_MAX; i++)
		m->near[i] = (uint16_t)((UINT32_C(1) << 26) / (uint32_t)((NEAR_SCALE + i) * (NEAR_SCALE + i)));
	m->done = vg_array_new(sizeof(vg_rect));
	m->touched = VG_NEW(uint32_t, TOUCHED_MAX);
	start(m);
	*out = m;
	return VG_OK;
}

size_t vg_pixmodel_bytes(void)
{
	/* The model (l included), the touched list, the tables and tags. */
	return sizeof(vg_pixmodel) + TOUCHED_MAX * sizeof(uint32_t) + tables_bytes();
}

void vg_pixmodel_reset(vg_pixmodel *m)
{
	static const uint32_t empty;
	size_t i;

	/* A slot whose first colour is 0 is empty, whatever its tag (see
	 * holds): four bytes a slot, the tags left as they are. */
	if (m->n_touched > TOUCHED_MAX)
		memset(m->tables, 0, (size_t)((uint8_t *)m->tag[0] - m->tables));
	else
		for (i = 0; i < m->n_touched; i++)
			memcpy(m->tables + m->touched[i], &empty, 4);
	start(m);
}

void vg_pixmodel_free(vg_pixmodel *m)
{
	if (!m)
		return;
	free(m->tables);
	free(m->scratch);
	free(m->cover);
	vg_array_free(m->done);
	free(m->touched);
	free(m);
}

/* Half of vg_seghash_fmix (one multiply, not two): four a pixel, and the
 * slot's index and tag need only their bits spread, not a hash that names
 * content. */
static inline uint64_t mix(uint64_t h)
{
	h ^= h >> 31;
	h *= UINT64_C(0x9e3779b97f4a7c15);
	h ^= h >> 29;
	return h;
}

/* One coding step, the same at both ends: the encoder codes the symbol at
 * [cum, cum + freq) of total; the decoder finds which one it is. */
static inline void put(vg_pixmodel *m, uint32_t cum, uint32_t freq, uint32_t total)
{
	vg_rc_encode(&m->enc, cum, freq, total);
}

static inline uint32_t peek(vg_pixmodel *m, uint32_t total)
{
	uint32_t f = vg_rc_decode_freq(&m->dec, total);

	if (f >= total) {
		m->corrupt = true;
		return 0;
	}
	return f;
}

static inline bool excluded(const uint32_t *excl, unsigned n, uint32_t c)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (excl[i] == c)
			return true;
	return false;
}

static inline bool skipped(const uint64_t *skip, unsigned i)
{
	return skip[i / 64] >> (i % 64) & 1;
}

/* One coding step among n counted symbols, those marked in skip left out,
 * with an escape of frequency esc at the top of total (the counts not
 * skipped, plus esc). The encoder codes symbol *i (n: the escape); the
 * decoder finds it. True unless the escape. */
static bool code_among(vg_pixmodel *m, const uint16_t *count, unsigned n, const uint64_t *skip,
		       uint32_t total, uint32_t esc, unsigned *i)
{
	uint32_t cum = 0, f;
	unsigned k;

	if (!m->decoding) {
		if (*i >= n) {
			put(m, total - esc, esc, total);
			return false;
		}
		for (k = 0; k < *i; k++)
			if (!skipped(skip, k))
				cum += count[k];
		put(m, cum, count[*i], total);
		return true;
	}
	f = peek(m, total);
	if (f < total - esc)
		for (k = 0; k < n; k++) {
			if (skipped(skip, k))
				continue;
			if (f < cum + count[k]) {
				vg_rc_decode(&m->dec, cum, count[k]);
				*i = k;
				return true;
			}
			cum += count[k];
		}
	vg_rc_decode(&m->dec, total - esc, esc);
	*i = n;
	return false;
}

/* Codes *c (decodes into it) among a context's colours not excluded, or
 * escapes, adding them to the exclusions; the escape takes the share that
 * contexts like this one (see) have escaped lately. True when found. */
static bool code_in_list(vg_pixmodel *m, const uint32_t *colour, const uint16_t *count,
			 unsigned n, uint16_t *see, uint32_t *excl, unsigned *n_excl, uint32_t *c)
{
	uint64_t skip = 0;
	uint32_t total = 0, esc;
	unsigned i, at = n, offered = 0;
	bool hit;

	for (i = 0; i < n; i++) {
		if (excluded(excl, *n_excl, colour[i])) {
			skip |= UINT64_C(1) << i;
			continue;
		}
		total += count[i];
		offered++;
		if (colour[i] == *c && at == n)
			at = i;
	}
	if (offered == 0)
		return false;
	esc = VG_MIN(VG_MAX(total * see[0] / see[1], 1u), SEE_ESC_MAX);
	total += esc;
	hit = code_among(m, count, n, &skip, total, esc, &at);
	if (hit)
		*c = colour[at];
	see[hit] = (uint16_t)(see[hit] + SEE_INC);
	if (see[hit] > SEE_MAX) {
		see[0] = (uint16_t)((see[0] + 1) / 2);
		see[1] = (uint16_t)((see[1] + 1) / 2);
	}
	if (hit)
		return true;
	for (i = 0; i < n; i++)
		if (!skipped(&skip, i))
			excl[(*n_excl)++] = colour[i];
	return false;
}

static inline int channel(uint32_t c, int ch)
{
	return (int)((c >> (16 - 8 * ch)) & 0xff);
}

static void code_residual(vg_pixmodel *m, residuals *r, int *v)
{
	uint32_t cum = 0, f;
	int g, i;

	if (!m->decoding) {
		for (g = 0; g < *v / 16; g++)
			cum += r->group[g];
		for (i = g * 16; i < *v; i++)
			cum += r->count[i];
		put(m, cum, r->count[*v], r->total);
	} else {
		f = peek(m, r->total);
		for (g = 0; g < 15 && f >= cum + r->group[g]; g++)
			cum += r->group[g];
		for (i = g * 16; i < g * 16 + 15 && f >= cum + r->count[i]; i++)
			cum += r->count[i];
		if (f >= cum + r->count[i])
			m->corrupt = true;
		vg_rc_decode(&m->dec, cum, r->count[i]);
		*v = i;
	}
	r->count[*v] += RES_INC;
	r->group[*v / 16] += RES_INC;
	r->total += RES_INC;
	if (r->total > RES_TOTAL_MAX) {
		r->total = 0;
		memset(r->group, 0, sizeof r->group);
		for (i = 0; i < 256; i++) {
			r->count[i] = (uint16_t)((r->count[i] + 1) / 2);
			r->group[i / 16] += r->count[i];
			r->total += r->count[i];
		}
	}
}

/* A colour no list predicted: each channel as its difference from the
 * neighbour's, pred. */
static void code_raw(vg_pixmodel *m, uint32_t pred, uint32_t *c)
{
	uint32_t out = 0;
	int ch;

	for (ch = 0; ch < 3; ch++) {
		int p = channel(pred, ch), v = m->decoding ? 0 : (channel(*c, ch) - p) & 0xff;

		code_residual(m, &m->l.fresh[ch], &v);
		out |= (uint32_t)((p + v) & 0xff) << (16 - 8 * ch);
	}
	*c = out;
}

/* A pixel's context of one order: its slot, where its table keeps the
 * tag of the context the slot holds, and the pixel's context's tag. */
typedef struct {
	uint8_t *s;
	uint16_t *kept;
	uint16_t tag;
} slot_ref;

/* Colour i of slot s, with its count (see SLOT_BYTES). */
static inline uint32_t entry(const uint8_t *s, unsigned i)
{
	uint32_t e;

	memcpy(&e, s + 4 * i, 4);
	return e;
}

static inline void set_entry(uint8_t *s, unsigned i, uint32_t e)
{
	memcpy(s + 4 * i, &e, 4);
}

/* Whether r's slot holds r's context: both loads at once, where the
 * slot is needed whatever the answer. */
static inline bool holds(const slot_ref *r)
{
	return (*r->kept == r->tag) & (entry(r->s, 0) != 0);
}

/* Copies the colours and counts of s, a slot of up to k colours that
 * holds a context, out into colour and count; returns how many it has. */
static inline unsigned unpack(const uint8_t *s, unsigned k, uint32_t colour[K], uint16_t count[K])
{
	unsigned n;
	uint32_t e;

	for (n = 0; n < k && (e = entry(s, n)) != 0; n++) {
		colour[n] = ENTRY_COLOUR(e);
		count[n] = (uint16_t)ENTRY_COUNT(e);
	}
	return n;
}

/* Slot r of order o learns that its context came before colour c. */
static void learn_slot(vg_pixmodel *m, unsigned o, const slot_ref *r, uint32_t c)
{
	unsigned i, j, low = 0, k = slot_k[o];
	uint8_t *s = r->s;
	uint32_t e;

	if (!holds(r)) {
		/* A slot once used never empties again: each is noted once. */
		if (entry(s, 0) == 0 && m->n_touched < TOUCHED_MAX)
			m->touched[m->n_touched++] = (uint32_t)(s - m->tables);
		else if (entry(s, 0) == 0)
			m->n_touched = TOUCHED_MAX + 1;
		*r->kept = r->tag;
		set_entry(s, 0, c | ENTRY_ONE);
		for (i = 1; i < k; i++)
			set_entry(s, i, 0);
		return;
	}
	for (i = 0; i < k && (e = entry(s, i)) != 0; i++)
		if (ENTRY_COLOUR(e) == c) {
			if (ENTRY_COUNT(e) < COUNT_MAX) {
				set_entry(s, i, e + ENTRY_ONE);
				return;
			}
			/* Past COUNT_MAX: every count halves, this one's
			 * from COUNT_MAX + 1. */
			for (j = 0; j < k && (e = entry(s, j)) != 0; j++)
				set_entry(s, j, ENTRY_COLOUR(e) | (ENTRY_COUNT(e) + (j == i) + 1) / 2 << 24);
			return;
		}
	if (i < k) {
		set_entry(s, i, c | ENTRY_ONE);
		return;
	}
	for (i = 1; i < k; i++)
		if (ENTRY_COUNT(entry(s, i)) <= ENTRY_COUNT(entry(s, low)))
			low = i;
	set_entry(s, low, c | ENTRY_ONE);
}

static inline unsigned o0_bucket(uint32_t c)
{
	return (unsigned)(mix(c) >> 20) & (O0_BUCKETS - 1);
}

/* Where colour c sits in the context-free list, or o0_n: its bucket's
 * chain, a quarter of a colour long on average, so that a colour not
 * in the list (every new one, most exclusions) is not looked for
 * among all of them. */
static unsigned o0_find(vg_pixmodel *m, uint32_t c)
{
	unsigned i;

	for (i = m->l.o0_head[o0_bucket(c)]; i; i = m->l.o0_next[i - 1])
		if (m->l.o0_colour[i - 1] == c)
			return i - 1;
	return m->l.o0_n;
}

/* The cell of the colour cube that colour c lies in. */
static inline unsigned cell_of(uint32_t c)
{
	return (c >> (16 + NEAR_SHIFT) & (NEAR_LEVELS - 1)) * NEAR_LEVELS * NEAR_LEVELS +
	       (c >> (8 + NEAR_SHIFT) & (NEAR_LEVELS - 1)) * NEAR_LEVELS + (c >> NEAR_SHIFT & (NEAR_LEVELS - 1));
}

/* 0 for 0, else 1 + the position of the highest bit. */
static inline unsigned bit_length(uint32_t v)
{
	return v == 0 ? 0 : 32u - (unsigned)__builtin_clz(v);
}

static inline unsigned bit_length64(uint64_t v)
{
	return v == 0 ? 0 : 64u - (unsigned)__builtin_clzll(v);
}

/* log2(x) in 256ths, for x of 1 or more: exact at powers of two,
 * straight between them (a code length to compare, not to code). */
static inline uint32_t lg256(uint32_t x)
{
	unsigned n = bit_length(x) - 1;

	return n * 256 + ((x << (31 - n)) >> 23 & 0xff);
}

/* How far a sum of weights is shifted down to fit in bits bits. */
static inline unsigned scale_for(uint64_t sum, unsigned bits)
{
	unsigned n = bit_length64(sum);

	return n > bits ? n - bits : 0;
}

/* The list by nearness to colours a and b, for one coding: each cell's
 * weight (its counts by its nearness, below 2^43), scaled (cells whose
 * colours are all left out: 0), their sum, and the escape's frequency. */
typedef struct {
	uint32_t a, b;
	uint32_t cell[CELLS];
	uint32_t total, esc;
} nearness;

/* How far each of a channel's NEAR_LEVELS levels lies from colour a's
 * value, at the level's middle, for each channel: a cell's distance is
 * the sum of its three levels'. */
static void level_distances(uint32_t a, unsigned d[3][NEAR_LEVELS])
{
	int ch, v;

	for (ch = 0; ch < 3; ch++)
		for (v = 0; v < NEAR_LEVELS; v++)
			d[ch][v] = (unsigned)abs((v << NEAR_SHIFT | 1 << (NEAR_SHIFT - 1)) - channel(a, ch));
}

/* Fills nr's cells from the cells' counts (the excluded colours' taken
 * off); the escape takes the share the plain list gives it, esc against
 * offered. A cell weighs as its middle colour: each channel's level
 * times 2^NEAR_SHIFT, plus half of that. */
static void near_cells(const vg_pixmodel *m, nearness *nr, uint32_t offered, uint32_t esc)
{
	uint64_t raw[CELLS], sum = 0, bits;
	unsigned da[3][NEAR_LEVELS], db[3][NEAR_LEVELS], w, k, s, r, g, b;

	level_distances(nr->a, da);
	level_distances(nr->b, db);
	for (w = 0; w < CELLS / 64; w++)
		for (bits = m->l.cell_used[w]; bits; bits &= bits - 1) {
			k = w * 64 + (unsigned)__builtin_ctzll(bits);
			r = k / (NEAR_LEVELS * NEAR_LEVELS), g = k / NEAR_LEVELS % NEAR_LEVELS, b = k % NEAR_LEVELS;
			raw[k] = (uint64_t)m->l.cell_sum[k] *
				 (uint32_t)(m->near[da[0][r] + da[1][g] + da[2][b]] * m->near[db[0][r] + db[1][g] + db[2][b]]);
			sum += raw[k];
		}
	s = scale_for(sum, NEAR_CELL_BITS);
	nr->total = 0;
	for (w = 0; w < CELLS / 64; w++)
		for (bits = m->l.cell_used[w]; bits; bits &= bits - 1) {
			k = w * 64 + (unsigned)__builtin_ctzll(bits);
			nr->cell[k] = m->l.cell_sum[k] ? (uint32_t)(raw[k] >> s) + 1 : 0;
			nr->total += nr->cell[k];
		}
	nr->esc = (uint32_t)VG_MIN(VG_MAX((uint64_t)esc * nr->total / offered, UINT64_C(1)), NEAR_ESC_MAX);
}

/* Codes place *i of the list (o0_n: the escape) by nearness, as its cell
 * then, by its count, its place among the cell's colours not skipped
 * (in the cell's order; their counts sum to the cell's, the excluded
 * colours' taken off); the decoder finds it. */
static void code_near(vg_pixmodel *m, const nearness *nr, const uint64_t *skip, unsigned *i)
{
	uint32_t total = nr->total + nr->esc, cum = 0, f = 0;
	unsigned w, k, c = CELLS, j;
	uint64_t bits;
	bool found = false;

	if (!m->decoding && *i == m->l.o0_n) {
		put(m, nr->total, nr->esc, total);
		return;
	}
	if (!m->decoding) {
		c = cell_of(m->l.o0_colour[*i]);
	} else {
		f = peek(m, total);
		if (f >= nr->total) {
			vg_rc_decode(&m->dec, nr->total, nr->esc);
			*i = m->l.o0_n;
			return;
		}
	}
	/* The cells in order, up to c (the decoder: the one f falls in). */
	for (w = 0; w < CELLS / 64 && !found; w++)
		for (bits = m->l.cell_used[w]; bits; bits &= bits - 1) {
			k = w * 64 + (unsigned)__builtin_ctzll(bits);
			if ((found = m->decoding ? f < cum + nr->cell[k] : k == c)) {
				c = k;
				break;
			}
			cum += nr->cell[k];
		}
	if (!found || nr->cell[c] == 0) {
		m->corrupt = true;
		*i = m->l.o0_n;
		return;
	}
	if (m->decoding) {
		vg_rc_decode(&m->dec, cum, nr->cell[c]);
		f = peek(m, m->l.cell_sum[c]);
	} else {
		put(m, cum, nr->cell[c], total);
	}
	cum = 0;
	for (j = m->l.cell_head[c]; j; j = m->l.o0_cnext[j - 1]) {
		if (skipped(skip, j - 1))
			continue;
		if (m->decoding ? f < cum + m->l.o0_count[j - 1] : j - 1 == *i)
			break;
		cum += m->l.o0_count[j - 1];
	}
	if (!j) {
		m->corrupt = true;
		*i = m->l.o0_n;
		return;
	}
	if (m->decoding) {
		vg_rc_decode(&m->dec, cum, m->l.o0_count[j - 1]);
		*i = j - 1;
	} else {
		put(m, cum, m->l.o0_count[*i], m->l.cell_sum[c]);
	}
}

/* What coding place i (o0_n: the escape) by nearness costs, in 256ths
 * of a bit. */
static uint32_t near_cost(const vg_pixmodel *m, const nearness *nr, unsigned i)
{
	unsigned c;

	if (i == m->l.o0_n)
		return lg256(nr->total + nr->esc) - lg256(nr->esc);
	c = cell_of(m->l.o0_colour[i]);
	return lg256(nr->total + nr->esc) - lg256(nr->cell[c]) + lg256(m->l.cell_sum[c]) -
	       lg256(m->l.o0_count[i]);
}

/* Codes place *i of the list (o0_n: the escape) by the counts of the
 * places not skipped (left: each group's), total theirs plus esc. */
static void code_plain(vg_pixmodel *m, const uint64_t *skip, const uint32_t *left, uint32_t total, uint32_t esc,
		       unsigned *i)
{
	uint32_t cum = 0, f;
	unsigned k, g, n = m->l.o0_n;

	if (!m->decoding) {
		if (*i == n) {
			put(m, total - esc, esc, total);
			return;
		}
		for (g = 0; g < *i / O0_GROUP; g++)
			cum += left[g];
		for (k = g * O0_GROUP; k < *i; k++)
			if (!skipped(skip, k))
				cum += m->l.o0_count[k];
		put(m, cum, m->l.o0_count[*i], total);
		return;
	}
	f = peek(m, total);
	*i = n;
	if (f >= total - esc) {
		vg_rc_decode(&m->dec, total - esc, esc);
		return;
	}
	/* f lies below the sum of every group's count left, which the
	 * bounds only restate. */
	for (g = 0; g < O0_GROUPS - 1 && f >= cum + left[g]; g++)
		cum += left[g];
	for (k = g * O0_GROUP; k < n && (skipped(skip, k) || f >= cum + m->l.o0_count[k]); k++)
		if (!skipped(skip, k))
			cum += m->l.o0_count[k];
	if (k == n) {
		m->corrupt = true;
		return;
	}
	vg_rc_decode(&m->dec, cum, m->l.o0_count[k]);
	*i = k;
}

/* Codes *c among the context-free list's colours not excluded, or
 * escapes (its frequency: how many there are), by their counts or by
 * their nearness to a and b (a: NONE, by their counts). Its colours are
 * too many to check each against the exclusions: the excluded ones are
 * looked up instead, and taken off their group's sum and their cell's. */
static bool code_o0(vg_pixmodel *m, const uint32_t *excl, unsigned n_excl, uint32_t a, uint32_t b, uint32_t *c)
{
	uint64_t skip[O0_MAX / 64] = { 0 };
	uint32_t left[O0_GROUPS], total = m->l.o0_total, esc = m->l.o0_n, cost;
	uint16_t out[1 + ORDERS * K + NEIGHBOURS];
	unsigned i, k, g, n = m->l.o0_n, n_out = 0, at;
	/* Where the plain list is used, nearness is weighed at one coding
	 * in NEAR_SAMPLE only: weighing takes a walk of the cells. */
	bool by_near = a != NONE && m->l.cost_near < m->l.cost_plain;
	bool weigh = by_near || (a != NONE && m->l.o0_weighed++ % NEAR_SAMPLE == 0);
	nearness nr;

	for (g = 0; g < O0_GROUPS; g++)
		left[g] = m->l.o0_group[g];
	for (k = 0; k < n_excl; k++) {
		i = o0_find(m, excl[k]);
		if (i < n && !skipped(skip, i)) {
			skip[i / 64] |= UINT64_C(1) << (i % 64);
			total -= m->l.o0_count[i];
			left[i / O0_GROUP] -= m->l.o0_count[i];
			esc--;
			if (weigh) {
				out[n_out++] = (uint16_t)i;
				m->l.cell_sum[cell_of(m->l.o0_colour[i])] -= m->l.o0_count[i];
			}
		}
	}
	at = n;
	nr.total = nr.esc = 0;
	if (esc > 0) {
		total += esc;
		if (weigh) {
			nr.a = a;
			nr.b = b;
			near_cells(m, &nr, total - esc, esc);
		}
		if (!m->decoding && (at = o0_find(m, *c)) < n && skipped(skip, at))
			at = n;
		if (by_near)
			code_near(m, &nr, skip, &at);
		else
			code_plain(m, skip, left, total, esc, &at);
		if (weigh && !m->corrupt) {
			cost = lg256(total) - lg256(at == n ? esc : m->l.o0_count[at]);
			m->l.cost_plain = m->l.cost_plain - (m->l.cost_plain >> NEAR_DECAY) + cost;
			cost = near_cost(m, &nr, at);
			m->l.cost_near = m->l.cost_near - (m->l.cost_near >> NEAR_DECAY) + cost;
		}
	}
	for (k = 0; k < n_out; k++)
		m->l.cell_sum[cell_of(m->l.o0_colour[out[k]])] += m->l.o0_count[out[k]];
	if (at >= n)
		return false;
	*c = m->l.o0_colour[at];
	return true;
}

/* The least count among group g's places. */
static uint16_t group_least(const learnt *l, unsigned g)
{
	const uint16_t *count = &l->o0_count[g * O0_GROUP];
	uint16_t least = count[0];
	unsigned i;

	for (i = 1; i < O0_GROUP; i++)
		least = VG_MIN(least, count[i]);
	return least;
}

/* The place a new colour takes in a full list: the least counted, the
 * last of equals, found by the groups' least counts (a walk of the whole
 * list made every new colour of a full list cost a microsecond). */
static unsigned o0_least(const learnt *l)
{
	uint16_t least = UINT16_MAX;
	unsigned g, i;

	for (g = 0; g < O0_GROUPS; g++)
		least = VG_MIN(least, l->o0_group_least[g]);
	for (g = O0_GROUPS - 1; l->o0_group_least[g] != least; g--)
		;
	for (i = g * O0_GROUP + O0_GROUP - 1; l->o0_count[i] != least; i--)
		;
	return i;
}

/* Adds delta to cell k's counts. */
static void cell_add(learnt *l, unsigned k, int delta)
{
	l->cell_sum[k] = (uint16_t)(l->cell_sum[k] + delta);
	if (l->cell_sum[k])
		l->cell_used[k / 64] |= UINT64_C(1) << (k % 64);
	else
		l->cell_used[k / 64] &= ~(UINT64_C(1) << (k % 64));
}

static void learn_o0(vg_pixmodel *m, uint32_t c)
{
	learnt *l = &m->l;
	unsigned i = o0_find(m, c), cell = cell_of(c);
	uint16_t *p;

	if (i == l->o0_n) {
		if (l->o0_n < O0_MAX) {
			l->o0_n++;
		} else {
			i = o0_least(l);
			l->o0_total -= l->o0_count[i];
			l->o0_group[i / O0_GROUP] = (uint16_t)(l->o0_group[i / O0_GROUP] - l->o0_count[i]);
			cell_add(l, cell_of(l->o0_colour[i]), -(int)l->o0_count[i]);
			/* Out of its bucket's chain and its cell's. */
			for (p = &l->o0_head[o0_bucket(l->o0_colour[i])]; *p != i + 1; p = &l->o0_next[*p - 1])
				;
			*p = l->o0_next[i];
			for (p = &l->cell_head[cell_of(l->o0_colour[i])]; *p != i + 1; p = &l->o0_cnext[*p - 1])
				;
			*p = l->o0_cnext[i];
		}
		l->o0_colour[i] = c;
		l->o0_count[i] = 0;
		p = &l->o0_head[o0_bucket(c)];
		l->o0_next[i] = *p;
		*p = (uint16_t)(i + 1);
		l->o0_cnext[i] = l->cell_head[cell];
		l->cell_head[cell] = (uint16_t)(i + 1);
	}
	/* A place that held its group's least count (a new colour's held
	 * 0) may raise it. */
	if (l->o0_count[i]++ <= l->o0_group_least[i / O0_GROUP])
		l->o0_group_least[i / O0_GROUP] = group_least(l, i / O0_GROUP);
	l->o0_group[i / O0_GROUP]++;
	cell_add(l, cell, 1);
	if (++l->o0_total > O0_TOTAL_MAX) {
		l->o0_total = 0;
		memset(l->o0_group, 0, sizeof l->o0_group);
		memset(l->cell_sum, 0, sizeof l->cell_sum);
		memset(l->cell_used, 0, sizeof l->cell_used);
		/* Halving keeps the order of counts, so the least of each. */
		for (i = 0; i < O0_GROUPS; i++)
			l->o0_group_least[i] = (uint16_t)((l->o0_group_least[i] + 1) / 2);
		for (i = 0; i < l->o0_n; i++) {
			l->o0_count[i] = (uint16_t)((l->o0_count[i] + 1) / 2);
			l->o0_group[i / O0_GROUP] = (uint16_t)(l->o0_group[i / O0_GROUP] + l->o0_count[i]);
			l->o0_total += l->o0_count[i];
			cell_add(l, cell_of(l->o0_colour[i]), l->o0_count[i]);
		}
	}
}

/* Which neighbours agree: the shape model's context. */
static unsigned shape_of(const uint32_t nb[NEIGHBOURS])
{
	/* nb: W, N, NE, NW, WW, NN */
	return (unsigned)(nb[0] == nb[1]) | (unsigned)(nb[0] == nb[3]) << 1 |
	       (unsigned)(nb[1] == nb[3]) << 2 | (unsigned)(nb[1] == nb[2]) << 3 |
	       (unsigned)(nb[0] == nb[2]) << 4 | (unsigned)(nb[0] == nb[4]) << 5 |
	       (unsigned)(nb[1] == nb[5]) << 6 | (unsigned)(nb[0] == NONE || nb[1] == NONE) << 7;
}

/* Whether neighbour k may be named: present, not excluded, and not the
 * same colour as an earlier one. */
static bool nameable(const uint32_t nb[NEIGHBOURS], int k, const uint32_t *excl, unsigned n_excl)
{
	int j;

	if (nb[k] == NONE || excluded(excl, n_excl, nb[k]))
		return false;
	for (j = 0; j < k; j++)
		if (nb[j] == nb[k])
			return false;
	return true;
}

/* Codes *c as one of the neighbours' colours, by the shape of the
 * neighbourhood, or escapes (the neighbours join the exclusions). */
static bool code_shape(vg_pixmodel *m, const uint32_t nb[NEIGHBOURS], unsigned age,
		       uint32_t *excl, unsigned *n_excl, uint32_t *c)
{
	uint16_t *cnt = m->l.shape[shape_of(nb) | age << 8];
	uint64_t skip = 0;
	uint32_t total = cnt[NEIGHBOURS];
	unsigned k, hit = NEIGHBOURS;

	for (k = 0; k < NEIGHBOURS; k++) {
		if (!nameable(nb, (int)k, excl, *n_excl)) {
			skip |= UINT64_C(1) << k;
			continue;
		}
		total += cnt[k];
		if (nb[k] == *c && hit == NEIGHBOURS && !m->decoding)
			hit = k;
	}
	if (total == cnt[NEIGHBOURS])
		return false;
	if (code_among(m, cnt, NEIGHBOURS, &skip, total, cnt[NEIGHBOURS], &hit))
		*c = nb[hit];
	cnt[hit] = (uint16_t)(cnt[hit] + SHAPE_INC);
	total = 0;
	for (k = 0; k <= NEIGHBOURS; k++)
		total += cnt[k];
	if (total > SHAPE_TOTAL_MAX)
		for (k = 0; k <= NEIGHBOURS; k++)
			cnt[k] = (uint16_t)((cnt[k] + 1) / 2);
	if (hit < NEIGHBOURS)
		return true;
	for (k = 0; k < NEIGHBOURS; k++)
		if (!skipped(&skip, k))
			excl[(*n_excl)++] = nb[k];
	return false;
}

/* How much the widest context has seen, in four steps (0: nothing): the
 * shape model trusts the neighbours more where it has seen little. */
static unsigned age_of(const slot_ref *r)
{
	unsigned t = 0, i;
	uint32_t e;

	if (holds(r))
		for (i = 0; i < slot_k[0] && (e = entry(r->s, i)) != 0; i++)
			t += ENTRY_COUNT(e);
	return t == 0 ? 0 : t < 4 ? 1 : t < 16 ? 2 : 3;
}

/* The escape estimate for a context of order o with n colours and
 * counts. */
static uint16_t *see_of(vg_pixmodel *m, unsigned o, const uint32_t *colour, const uint16_t *count,
			unsigned n, const uint32_t nb[NEIGHBOURS])
{
	unsigned t = 0, i, top = 0, b;

	for (i = 0; i < n; i++) {
		t += count[i];
		if (count[i] > count[top])
			top = i;
	}
	b = t < 2 ? t : t < 4 ? 2 : t < 8 ? 3 : t < 16 ? 4 : t < 64 ? 5 : t < 256 ? 6 : 7;
	return m->l.see[o][b][n - 1][colour[top] == nb[0]];
}

/* Moves the probability *p / BIT_ONE of a yes towards the answer. */
static inline void learn_bit(uint16_t *p, bool yes)
{
	if (yes)
		*p = (uint16_t)(*p + ((BIT_ONE - *p) >> BIT_RATE));
	else
		*p = (uint16_t)(*p - (*p >> BIT_RATE));
}

/* Codes *yes (decodes into it), of probability *p / BIT_ONE, and moves *p
 * towards the answer. */
static inline void code_bit(vg_pixmodel *m, uint16_t *p, bool *yes)
{
	/* code_among() of two symbols, without its walk or a division:
	 * most runs and their lengths are a few of these. */
	if (m->decoding) {
		int bit = vg_rc_decode_bit(&m->dec, *p, BIT_BITS);

		if (bit < 0)
			m->corrupt = true;
		*yes = bit > 0;
	} else {
		vg_rc_encode_bit(&m->enc, *p, BIT_BITS, *yes);
	}
	learn_bit(p, *yes);
}

/* What a row said of repeating its row above: nothing (its row above
 * was not whole), nothing but the row above repeated the one above it,
 * yes, no (asked, or learnt once the row was coded). */
enum { REPEAT_UNASKED, REPEAT_UNASKED_SAME, REPEAT_YES, REPEAT_NO };

/* Whether the w pixels of a row are all known to both ends (the row
 * above a block's first is its border: what the chunk coded before). */
static inline bool whole(const uint32_t *row, int32_t w)
{
	int32_t x;

	for (x = 0; x < w; x++)
		if (row[x] == NONE)
			return false;
	return true;
}

/* What the rows before said, after one more said now: now in the low
 * two bits, then how many rows just before it said the same (up to 7: a
 * heat map's cells are as many rows high). */
static inline unsigned said(unsigned before, unsigned now)
{
	unsigned streak = (before & 3) == now ? VG_MIN((before >> 2 & 7) + 1, 7u) : 0;

	return now | streak << 2;
}

/* Which probability a row's repeat takes: what the rows before said
 * (before, see said), how often the row above changes colour (0, 1, 2,
 * 3 or more), and whether the block on the left repeated its row there
 * (absent, yes, no). */
static inline unsigned repeat_context(const uint32_t *row, const uint32_t *up, const uint32_t *up2, int32_t w,
				      unsigned before)
{
	unsigned left = row[-1] == NONE ? 0 : row[-1] == up[-1] && row[-2] == up[-2] ? 1 : 2, changes = 0;
	int32_t x;

	for (x = 1; x < w && changes < 3; x++)
		changes += up[x] != up[x - 1];
	if ((before & 3) == REPEAT_UNASKED && memcmp(up, up2, (size_t)w * sizeof *up) == 0)
		before |= REPEAT_UNASKED_SAME;
	return before | changes << 5 | left << 7;
}

/* Which probability a flat pixel's yes or no takes. */
static inline unsigned flat_context(uint64_t W, uint64_t WW, uint64_t NN, uint64_t NWW, uint64_t NNW,
				    uint64_t NNE, unsigned run)
{
	/* The run's length in powers of two: 0, 1, 2-3, 4-7, ..., 64 and more. */
	unsigned len = VG_MIN(7u, bit_length(run));

	return (unsigned)(WW == W) | (unsigned)(NN == W) << 1 | (unsigned)(NWW == W) << 2 |
	       (unsigned)(NNW == W) << 3 | (unsigned)(NNE == W) << 4 | len << 5;
}

/* Whether decoding has gone wrong: an encoder's stream is never read
 * past its end (it finishes with the decoder's four bytes of lookahead),
 * so a decoder that has is reading damage and stops at the next row
 * rather than decode a whole block from nothing. */
static inline bool halted(const vg_pixmodel *m)
{
	return m->corrupt || (m->decoding && m->dec.overrun);
}

/* Which probability a stretch [x, e) of colour c's run takes: whether
 * the row above is c over it, just before it and just past it, whether
 * the stretch ends the row, whether it is the run's first, its length in
 * powers of two, whether two rows up is the colour of the stretch above
 * and whether the stretch above began before x. */
static inline unsigned run_context(uint32_t c, const uint32_t *up, int32_t x, int32_t e, int32_t w,
				   bool first)
{
	const uint32_t *up2 = up - (w + BORDER_L + BORDER_R);

	return (unsigned)(up[x] == c) | (unsigned)(up[x - 1] == c) << 1 | (unsigned)(up[e] == c) << 2 |
	       (unsigned)(e == w) << 3 | (unsigned)first << 4 |
	       VG_MIN(bit_length((uint32_t)(e - x - 1)), 7u) << 5 | (unsigned)(up2[x] == up[x]) << 8 |
	       (unsigned)(up[x - 1] == up[x]) << 9;
}

/* Codes *k, below n (2 or more): how many pixels of its last stretch a
 * run covers; ctx's lowest bit says whether the row above is the run's
 * colour. */
static void code_length(vg_pixmodel *m, unsigned ctx, uint32_t n, uint32_t *k)
{
	uint16_t *p = m->l.len[ctx];
	unsigned top = bit_length(n - 1), step = 0, len = bit_length(*k), b;
	uint32_t v = 1;
	bool stop = true;

	/* How many bits k has, in unary; the last step is implied. */
	while (step < top) {
		stop = len == step;
		code_bit(m, &p[step], &stop);
		if (stop)
			break;
		step++;
	}
	if (step == 0) {
		*k = 0;
		return;
	}
	/* The bits below the top one, each by those above it. */
	for (b = step - 1; b-- > 0;) {
		bool one = *k >> b & 1;

		code_bit(m, &m->l.len_bits[ctx & 1][step][VG_MIN(v, LEN_PREFIX - 1u)], &one);
		v = v * 2 + one;
	}
	*k = v;
	if (*k >= n)
		m->corrupt = true;
}

/* The end of the stretch of the row above that starts at x: the first
 * pixel past x of another colour, or w. */
static inline int32_t stretch_end(const uint32_t *up, int32_t x, int32_t w)
{
	int32_t e = x + 1;

	while (e < w && up[e] == up[x])
		e++;
	return e;
}

/* Codes (or decodes) the run of colour c that starts at x of row: the
 * stretches of the row above under it, the first ending at e (the
 * caller found it), then where it stops. Returns where it stops: w, or
 * the first pixel that is not c. */
static int32_t code_run(vg_pixmodel *m, uint32_t *row, const uint32_t *up, int32_t x, int32_t e,
			int32_t w, uint32_t c, bool *stopped)
{
	bool first = true;

	*stopped = false;
	for (;; e = stretch_end(up, x, w)) {
		int32_t i;
		uint32_t k = 0;
		bool all;

		if (!first && e - x < RUN_MIN)
			return x;
		if (!m->decoding)
			while (x + (int32_t)k < e && row[x + (int32_t)k] == c)
				k++;
		all = x + (int32_t)k == e;
		code_bit(m, &m->l.run[run_context(c, up, x, e, w, first)], &all);
		if (!all && e - x > 1)
			code_length(m, (unsigned)(up[x] == c) | VG_MIN(bit_length((uint32_t)(e - x - 1)), 7u) << 1,
				    (uint32_t)(e - x), &k);
		if (all)
			k = (uint32_t)(e - x);
		if (m->corrupt)
			return x;
		for (i = 0; i < (int32_t)k; i++)
			row[x + i] = c;
		x += (int32_t)k;
		if (!all || x == w) {
			*stopped = !all;
			return x;
		}
		first = false;
	}
}

/* What the widest context, in slot r, says of colour c: it
 * has never seen its neighbours (UNSEEN), saw c only after them (ONLY_C),
 * c most (SEEN_C), or another colour most. */
enum { UNSEEN, ONLY_C, SEEN_C, SEEN_OTHER };

static unsigned widest_on(const slot_ref *r, uint32_t c)
{
	const uint8_t *s = r->s;
	unsigned i;
	uint32_t e, top;

	/* The tag first: it mostly decides alone, and is often in the
	 * cache where the slot is not. */
	if (*r->kept != r->tag || entry(s, 0) == 0)
		return UNSEEN;
	top = entry(s, 0);
	if (entry(s, 1) == 0)
		return ENTRY_COLOUR(top) == c ? ONLY_C : SEEN_OTHER;
	for (i = 1; i < slot_k[0] && (e = entry(s, i)) != 0; i++)
		if (ENTRY_COUNT(e) > ENTRY_COUNT(top))
			top = e;
	return ENTRY_COLOUR(top) == c ? SEEN_C : SEEN_OTHER;
}

/* The slots the ten neighbours name for each order. True. */
static inline bool hash_slots(vg_pixmodel *m, slot_ref at_order[ORDERS], uint64_t W, uint64_t WW, uint64_t NWW,
			      uint64_t NW, uint64_t N, uint64_t NE, uint64_t NNWW, uint64_t NNW, uint64_t NN,
			      uint64_t NNE)
{
	uint64_t hash[ORDERS];
	unsigned o;

	hash[3] = mix(W * UINT64_C(0x100000001b3) ^ N << 25);
	hash[2] = mix(hash[3] ^ NW * UINT64_C(0xff51afd7ed558ccd) ^ NE << 27);
	hash[1] = mix(hash[2] ^ WW * UINT64_C(0xc4ceb9fe1a85ec53) ^ NN << 29);
	hash[0] = mix(hash[1] ^ NWW * UINT64_C(0x9e3779b97f4a7c15) ^ NNW << 23 ^
		      NNE * UINT64_C(0xd6e8feb86659fd93) ^ NNWW << 31);
	for (o = 0; o < ORDERS; o++) {
		size_t i = (size_t)(hash[o] & (SLOTS(o) - 1));

		at_order[o] = (slot_ref){ m->ctx[o] + i * SLOT_BYTES(o), m->tag[o] + i, (uint16_t)(hash[o] >> 48) };
	}
	return true;
}

/* Starts the loads of the four slots of the pixel whose neighbours are
 * these. */
static inline void prefetch_next(vg_pixmodel *m, uint64_t W, uint64_t WW, uint64_t NWW, uint64_t NW, uint64_t N,
				 uint64_t NE, uint64_t NNWW, uint64_t NNW, uint64_t NN, uint64_t NNE)
{
	slot_ref at_order[ORDERS];
	unsigned o;

	hash_slots(m, at_order, W, WW, NWW, NW, N, NE, NNWW, NNW, NN, NNE);
	for (o = 0; o < ORDERS; o++) {
		__builtin_prefetch(at_order[o].s);
		__builtin_prefetch(at_order[o].kept);
	}
}

/* Codes (or decodes) every pixel of a w x h block in px: rows that
 * repeat the row above, runs and flat pixels first, then each other
 * pixel's contexts. Rows are w + 3 apart; a pixel's neighbours reach two
 * columns left, one right and two rows up, into block_for's border. */
static void code_contexts(vg_pixmodel *m, uint32_t *px, int32_t w, int32_t h)
{
	int32_t x, y, st = w + BORDER_L + BORDER_R;
	unsigned before = REPEAT_UNASKED;
	uint16_t *repeat;

	for (y = 0; y < h && !halted(m); y++) {
		uint32_t *row = px + (ptrdiff_t)y * st;
		const uint32_t *up = row - st, *up2 = up - st;
		/* Whether the row above repeated its own: a grid's cells are
		 * then below, and a cell's run may start over a short stretch. */
		bool above_repeated = (before & 3) == REPEAT_YES;

		/* One yes or no for a row as its row above, where a row
		 * would otherwise cost a context's probe at each edge; asked
		 * only where repeats are likely enough to pay for it (text
		 * rarely repeats a row), learnt from every row. */
		repeat = y > 0 || whole(up, w) ? &m->l.repeat[repeat_context(row, up, up2, w, before)] : NULL;
		if (repeat && *repeat >= REPEAT_ASK) {
			bool same = !m->decoding && memcmp(row, up, (size_t)w * sizeof *row) == 0;

			code_bit(m, repeat, &same);
			before = said(before, same ? REPEAT_YES : REPEAT_NO);
			if (same) {
				if (m->decoding)
					memcpy(row, up, (size_t)w * sizeof *row);
				continue;
			}
			repeat = NULL;
		} else if (!repeat)
			before = said(before, REPEAT_UNASKED);
		/* The ten neighbours move along the row with the pixel: three
		 * loads a pixel, not ten (each load is checked under the
		 * sanitizers and its checks traced by the fuzzer, which made
		 * them most of a fuzzed pixel's cost); all ten after a run. */
		uint64_t W = 0, WW = 0, NWW = 0, NW = 0, N = 0, NE = 0, NNWW = 0, NNW = 0, NN = 0, NNE = 0;
		/* The pixel after a run: to the contexts at once, without the
		 * run's colour if the run stopped at it. */
		bool after_run = false, stopped = false;
		unsigned run = 0;
		/* Where the stretch of the row above under the last pixel that
		 * asked ends: every pixel before it is in that stretch, whose
		 * end is not looked for again (a long flat row would be walked
		 * once a pixel). */
		int32_t up_end = 0;

		for (x = 0; x < w; x++) {
			slot_ref at_order[ORDERS];
			/* The run's or flat colour, each list's colours, the
			 * neighbours: at most one of each colour, so never more. */
			uint32_t excl[1 + ORDERS * K + NEIGHBOURS], nb[NEIGHBOURS];
			uint32_t c;
			unsigned n_excl = 0, o, says;
			int32_t se, min_stretch;
			bool found = false, flat, pair, cell, hashed = false;

			if (x == 0 || after_run) {
				W = row[x - 1], WW = row[x - 2];
				NWW = up[x - 2], NW = up[x - 1], N = up[x], NE = up[x + 1];
				NNWW = up2[x - 2], NNW = up2[x - 1], NN = up2[x], NNE = up2[x + 1];
			} else {
				WW = W;
				W = row[x - 1];
				NWW = NW;
				NW = N;
				N = NE;
				NE = up[x + 1];
				NNWW = NNW;
				NNW = NN;
				NN = NNE;
				NNE = up2[x + 1];
			}
			flat = W == N && W == NW && W == NE && W != NONE;
			/* A run of W may also start after two pixels of W, or after
			 * one where the upper row's stretch begins under it: a grid's
			 * cell, its first pixel new, the rest most likely its colour. */
			pair = W == WW && W != NONE;
			cell = !flat && !pair && W != NONE && NW == N && NWW != NW;
			min_stretch = cell && above_repeated ? 2 : RUN_MIN;

			if (after_run) {
				after_run = false;
				if (stopped)
					excl[n_excl++] = (uint32_t)W;
			} else if ((flat || pair || cell) &&
				   (se = (x < up_end ? up_end : (up_end = stretch_end(up, x, w))) - x,
				    se >= min_stretch || (!flat && pair && se >= 2 && x + se == w)) &&
				   (hashed = hash_slots(m, at_order, W, WW, NWW, NW, N, NE, NNWW, NNW, NN, NNE),
				    says = widest_on(&at_order[0], (uint32_t)W),
				    says == UNSEEN || (!cell && (says == ONLY_C || (flat && says == SEEN_C))))) {
				int32_t end = code_run(m, row, up, x, x + se, w, (uint32_t)W, &stopped);

				if (m->corrupt)
					return;
				/* The contexts learn from the pixels they code,
				 * not from runs and flat pixels, which they would
				 * predict well but slowly. */
				x = end - 1;
				after_run = true;
				run = 0;
				continue;
			} else if (flat) {
				bool same = !m->decoding && row[x] == W;

				code_bit(m, &m->l.flat[flat_context(W, WW, NN, NWW, NNW, NNE, run)], &same);
				if (m->corrupt)
					return;
				if (same) {
					row[x] = (uint32_t)W;
					run++;
					continue;
				}
				excl[n_excl++] = (uint32_t)W;
			}
			run = 0;
			if (!hashed)
				hash_slots(m, at_order, W, WW, NWW, NW, N, NE, NNWW, NNW, NN, NNE);
			/* All four slots are read and written: start their loads
			 * together (a second prefetch of the line where a slot
			 * ends saved no time). */
			for (o = 0; o < ORDERS; o++) {
				__builtin_prefetch(at_order[o].s);
				__builtin_prefetch(at_order[o].kept);
			}
			/* The encoder knows the next pixel's neighbours: start
			 * its slots' loads while this pixel is coded. */
			if (!m->decoding && x + 1 < w)
				prefetch_next(m, row[x], W, NW, N, NE, up[x + 2], NNW, NN, NNE, up2[x + 2]);
			c = m->decoding ? 0 : row[x];
			nb[0] = (uint32_t)W, nb[1] = (uint32_t)N, nb[2] = (uint32_t)NE;
			nb[3] = (uint32_t)NW, nb[4] = (uint32_t)WW, nb[5] = (uint32_t)NN;
			for (o = 0; o < ORDERS && !found; o++) {
				uint32_t colour[K];
				uint16_t count[K];
				unsigned n;

				if (!holds(&at_order[o]))
					continue;
				n = unpack(at_order[o].s, slot_k[o], colour, count);
				found = code_in_list(m, colour, count, n, see_of(m, o, colour, count, n, nb),
						     excl, &n_excl, &c);
			}
			if (!found)
				found = code_shape(m, nb, age_of(&at_order[0]), excl, &n_excl, &c);
			if (!found) {
				/* The list by nearness to the left and upper
				 * neighbours, or to the one of them there is. */
				uint32_t near_a = nb[0] != NONE ? nb[0] : nb[1], near_b = nb[1] != NONE ? nb[1] : near_a;

				if (!code_o0(m, excl, n_excl, near_a, near_b, &c))
					code_raw(m, near_a != NONE ? near_a : 0, &c);
			}
			if (m->corrupt)
				return;
			row[x] = c;
			for (o = 0; o < ORDERS; o++)
				learn_slot(m, o, &at_order[o], c);
			learn_o0(m, c);
		}
		if (repeat) {
			bool same = memcmp(row, up, (size_t)w * sizeof *row) == 0;

			learn_bit(repeat, same);
			before = said(before, same ? REPEAT_YES : REPEAT_NO);
		}
	}
}

/* The median edge detector of LOCO-I: a good guess at smooth content. */
static inline int med(int a, int b, int c)
{
	int lo = VG_MIN(a, b), hi = VG_MAX(a, b);

	return c >= hi ? lo : c <= lo ? hi : a + b - c;
}

/* Codes (or decodes) a block as each channel's difference from its
 * median prediction. */
static void code_predicted(vg_pixmodel *m, uint32_t *px, int32_t w, int32_t h)
{
	int32_t x, y, st = w + BORDER_L + BORDER_R;
	int ch;

	for (y = 0; y < h && !halted(m); y++)
		for (x = 0; x < w; x++) {
			uint32_t *p = &px[(ptrdiff_t)y * st + x], c = 0;

			for (ch = 0; ch < 3; ch++) {
				int a = x > 0 ? channel(p[-1], ch) : 0;
				int b = y > 0 ? channel(p[-st], ch) : a;
				int cc = x > 0 && y > 0 ? channel(p[-st - 1], ch) : b;
				int pred = x == 0 ? b : y == 0 ? a : med(a, b, cc);
				int v = m->decoding ? 0 : (channel(*p, ch) - pred) & 0xff;

				code_residual(m, &m->l.res[ch], &v);
				c |= (uint32_t)((pred + v) & 0xff) << (16 - 8 * ch);
			}
			*p = c;
		}
}

/* Codes the block's mode, as its frequency so far. */
static void code_mode(vg_pixmodel *m, int *mode)
{
	static const uint64_t none;
	uint32_t total = 0;
	unsigned i = (unsigned)*mode;
	int k;

	for (k = 0; k < MODES; k++)
		total += m->l.mode_count[k];
	/* No escape: peek keeps the decoder's find below total. */
	code_among(m, m->l.mode_count, MODES, &none, total, 0, &i);
	if (i >= MODES)
		i = 0;
	*mode = (int)i;
	if (++m->l.mode_count[*mode] > COUNT_MAX)
		for (k = 0; k < MODES; k++)
			m->l.mode_count[k] = (uint16_t)((m->l.mode_count[k] + 1) / 2);
}

/* Whether most of a block's pixels differ from all four neighbours
 * above and to the left: a photograph or a gradient, which prediction
 * codes better than contexts (these would mostly escape to raw colours). */
static bool noisy(const uint32_t *px, int32_t w, int32_t h)
{
	size_t fresh = 0, n = (size_t)w * (size_t)h;
	int32_t x, y, st = w + BORDER_L + BORDER_R;

	if (n < 256)
		return false;
	for (y = 1; y < h; y++)
		for (x = 1; x < w - 1; x++) {
			const uint32_t *p = &px[(ptrdiff_t)y * st + x];

			fresh += *p != p[-1] && *p != p[-st] && *p != p[-st - 1] && *p != p[-st + 1];
		}
	return fresh * 2 > n;
}

/* The buffer block r is coded in: its pixels, with a border of two rows
 * above, two columns left and one right, where the pixels of the chunk's
 * earlier blocks show (both ends hold them exactly: src is the frame
 * being coded, or the viewer's) and NONE elsewhere. Returns where the
 * block itself starts. */
static uint32_t *block_for(vg_pixmodel *m, const vg_pixbuf *src, vg_rect r)
{
	int32_t st = r.w + BORDER_L + BORDER_R, y, x;
	size_t n = (size_t)st * (size_t)(r.h + BORDER_T), i;
	vg_rect outer = vg_rect_make(r.x - BORDER_L, r.y - BORDER_T, st, r.h + BORDER_T);
	uint32_t *base;

	if (n > m->scratch_cap) {
		free(m->scratch);
		m->scratch = VG_NEW(uint32_t, n);
		m->scratch_cap = n;
	}
	base = m->scratch;
	/* The border only: the block itself is filled by its coder. */
	for (i = 0; i < (size_t)st * BORDER_T; i++)
		base[i] = NONE;
	for (y = 0; y < r.h; y++) {
		uint32_t *row = base + (size_t)(BORDER_T + y) * (size_t)st;

		for (x = 0; x < BORDER_L; x++)
			row[x] = NONE;
		row[st - 1] = NONE;
	}
	/* Where the border lies over earlier blocks, their pixels. */
	for (y = 0; y < BORDER_T; y++)
		for (x = 0; x < st; x++)
			if (covered(m, outer.x + x, outer.y + y))
				base[(size_t)y * (size_t)st + (size_t)x] =
					vg_pixbuf_row(src, outer.y + y)[outer.x + x] & 0xffffff;
	for (y = BORDER_T; y < outer.h; y++) {
		uint32_t *row = base + (size_t)y * (size_t)st;
		const uint32_t *from = vg_pixbuf_row(src, outer.y + y);

		for (x = 0; x < BORDER_L; x++)
			if (covered(m, outer.x + x, outer.y + y))
				row[x] = from[outer.x + x] & 0xffffff;
		if (covered(m, outer.x + st - 1, outer.y + y))
			row[st - 1] = from[outer.x + st - 1] & 0xffffff;
	}
	return base + (size_t)BORDER_T * (size_t)st + BORDER_L;
}

int vg_pixmodel_encode(vg_pixmodel *m, const vg_pixbuf *frame, const vg_rect *rects, size_t n,
		       vg_writer *out)
{
	size_t i;
	int32_t y;

	for (i = 0; i < n; i++)
		if (!vg_pixbuf_holds(frame, rects[i]))
			return VG_ERANGE;
	freshen(m);
	m->decoding = false;
	forget_done(m);
	cover_fit(m, frame->width, frame->height);
	vg_rc_encoder_init(&m->enc, out);
	for (i = 0; i < n; i++) {
		vg_rect r = rects[i];
		uint32_t *px = block_for(m, frame, r);
		int32_t x, st = r.w + BORDER_L + BORDER_R;
		int mode;

		for (y = 0; y < r.h; y++)
			for (x = 0; x < r.w; x++)
				px[(ptrdiff_t)y * st + x] = vg_pixbuf_row(frame, r.y + y)[r.x + x] & 0xffffff;
		mode = noisy(px, r.w, r.h) ? MODE_PREDICT : MODE_CONTEXT;
		code_mode(m, &mode);
		if (mode == MODE_PREDICT)
			code_predicted(m, px, r.w, r.h);
		else
			code_contexts(m, px, r.w, r.h);
		done_add(m, r);
	}
	vg_rc_encoder_finish(&m->enc);
	return VG_OK;
}

void vg_pixmodel_decode_begin(vg_pixmodel *m, const uint8_t *in, size_t len)
{
	freshen(m);
	m->decoding = true;
	m->corrupt = false;
	forget_done(m);
	vg_rc_decoder_init(&m->dec, in, len);
}

int vg_pixmodel_decode_rect(vg_pixmodel *m, vg_pixbuf *fb, vg_rect r)
{
	uint32_t *px;
	int mode = 0;
	int32_t y;

	if (!vg_pixbuf_holds(fb, r))
		return VG_ERANGE;
	if (!m->decoding)
		return VG_EINVAL;
	if (halted(m))
		return VG_ECORRUPT;
	cover_fit(m, fb->width, fb->height);
	px = block_for(m, fb, r);
	code_mode(m, &mode);
	if (mode == MODE_PREDICT)
		code_predicted(m, px, r.w, r.h);
	else
		code_contexts(m, px, r.w, r.h);
	if (halted(m))
		return VG_ECORRUPT;
	for (y = 0; y < r.h; y++)
		memcpy(vg_pixbuf_row(fb, r.y + y) + r.x, px + (ptrdiff_t)y * (r.w + BORDER_L + BORDER_R),
		       (size_t)r.w * 4);
	done_add(m, r);
	return VG_OK;
}

int vg_pixmodel_decode_end(vg_pixmodel *m)
{
	return m->corrupt || m->dec.overrun ? VG_ECORRUPT : VG_OK;
}
