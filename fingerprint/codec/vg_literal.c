/* The coding half of vg_literal.h; the decoding half is vg_literal_dec.c. */
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_mem.h"
#include "common/vg_minmax.h"
#include "fingerprint/codec/vg_literal.h"
#include "fingerprint/codec/vg_literalpriv.h"

/* Open-addressed colour table: twice the largest palette, so that a probe
 * always ends. A slot is in use when its stamp is the current one, which
 * spares clearing the table for every block. */
#define SLOTS 512

/* Packed indices are used for palettes of up to this many colours (4 bits
 * an index); larger ones only with runs. */
#define VG_LIT_PACKED_MAX 16

/* The encoder's map from colour to slot of the shared table, likewise
 * open-addressed, at most a third full; EMPTY is no 24-bit colour. */
#define MAP_BITS 14
#define MAP_SLOTS (1u << MAP_BITS)
#define EMPTY 0xffffffffu

struct vg_literal {
	uint32_t key[SLOTS];
	uint32_t stamp[SLOTS];
	uint8_t index[SLOTS];
	uint32_t now;
	uint32_t colours[VG_LIT_PALETTE_MAX];
	unsigned n_colours;
	uint8_t *plan;        /* per block of a list: its method */
	size_t plan_cap;
	vg_literal_stats stats;
	/* The shared table of VG_LIT_INDEXED: the map from colour to slot. */
	bool indexed;
	unsigned table_filled;                /* slots 0 .. table_filled - 1 hold colours */
	uint32_t map_key[MAP_SLOTS];
	uint16_t map_slot[MAP_SLOTS];
	uint16_t remap[VG_LIT_PALETTE_MAX];   /* block palette index -> slot */
};

int vg_literal_new(vg_literal **out)
{
	*out = VG_NEW0(vg_literal, 1);
	return VG_OK;
}

void vg_literal_set_indexed(vg_literal *lc, bool on)
{
	lc->indexed = on;
	lc->table_filled = 0;
	memset(lc->map_key, 0xff, sizeof lc->map_key);
}

void vg_literal_free(vg_literal *lc)
{
	if (lc)
		free(lc->plan);
	free(lc);
}

void vg_literal_get_stats(const vg_literal *lc, vg_literal_stats *st)
{
	*st = lc->stats;
}

const char *vg_lit_method_name(unsigned method)
{
	static const char *const names[VG_LIT_METHODS] = { "raw", "predict", "palette",
							   "palette-rle", "indexed" };

	return method < VG_LIT_METHODS ? names[method] : "?";
}

static unsigned slot_of(uint32_t c)
{
	return (c * 0x9e3779b1u) >> 23; /* 9 bits: 0..511 */
}

/* The palette index of c, adding it if there is room; -1 when the
 * palette is full and c is not in it. */
static int colour_index(vg_literal *lc, uint32_t c)
{
	unsigned s = slot_of(c);

	while (lc->stamp[s] == lc->now) {
		if (lc->key[s] == c)
			return lc->index[s];
		s = (s + 1) & (SLOTS - 1);
	}
	if (lc->n_colours == VG_LIT_PALETTE_MAX)
		return -1;
	lc->stamp[s] = lc->now;
	lc->key[s] = c;
	lc->index[s] = (uint8_t)lc->n_colours;
	lc->colours[lc->n_colours] = c;
	return (int)lc->n_colours++;
}

static void new_palette(vg_literal *lc)
{
	if (++lc->now == 0) {
		/* Stamps wrapped: clear them once every 2^32 blocks. */
		memset(lc->stamp, 0, sizeof lc->stamp);
		lc->now = 1;
	}
	lc->n_colours = 0;
}

/* The cost of one run in VG_LIT_PALETTE_RLE: its index byte, and the
 * length beyond 1 when it is longer. */
static size_t run_cost(uint64_t len)
{
	return len == 1 ? 1 : 1 + vg_writer_uleb_size(len - 2);
}

/* What one measuring pass finds out about a block. */
typedef struct {
	uint64_t same;     /* pixels equal to the one before, in raster order */
	bool palette_ok;   /* at most VG_LIT_PALETTE_MAX colours */
	size_t rle_bytes;  /* run bytes of VG_LIT_PALETTE_RLE */
} measure;

/* Builds the palette (first appearance order) and counts the runs. */
static void measure_block(vg_literal *lc, const vg_pixbuf *f, vg_rect r, measure *m)
{
	uint32_t prev = 0;
	uint64_t run = 0;
	int32_t x, y;

	new_palette(lc);
	m->palette_ok = true;
	m->rle_bytes = 0;
	m->same = 0;
	for (y = r.y; y < r.y + r.h; y++) {
		const uint32_t *row = vg_pixbuf_row(f, y) + r.x;

		for (x = 0; x < r.w; x++) {
			uint32_t c = row[x] & 0xffffff;

			if (run > 0 && c == prev) {
				run++;
				m->same++;
				continue;
			}
			if (run > 0)
				m->rle_bytes += run_cost(run);
			prev = c;
			run = 1;
			if (m->palette_ok && colour_index(lc, c) < 0)
				m->palette_ok = false;
		}
	}
	m->rle_bytes += run_cost(run);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Renumbers the block palette in colour order: two blocks of the same
 * colours then index them alike, whichever came first in each. */
static void sort_palette(vg_literal *lc)
{
	unsigned i;

	qsort(lc->colours, lc->n_colours, sizeof lc->colours[0], cmp_u32);
	for (i = 0; i < lc->n_colours; i++) {
		unsigned s = slot_of(lc->colours[i]);

		while (lc->key[s] != lc->colours[i])
			s = (s + 1) & (SLOTS - 1);
		lc->index[s] = (uint8_t)i;
	}
}

static void put_palette(vg_literal *lc, vg_writer *w)
{
	uint8_t *p;
	unsigned i;

	/* Only small palettes: one new colour renumbers every colour above
	 * it, and large ones keep their indices steadier in order of
	 * appearance (doc/results.md). */
	if (lc->n_colours <= VG_LIT_PACKED_MAX)
		sort_palette(lc);
	p = vg_writer_reserve(w, 1 + 3 * (size_t)lc->n_colours);
	*p++ = (uint8_t)(lc->n_colours - 1);
	for (i = 0; i < lc->n_colours; i++) {
		uint32_t c = lc->colours[i];

		*p++ = (uint8_t)c;
		*p++ = (uint8_t)(c >> 8);
		*p++ = (uint8_t)(c >> 16);
	}
}

static void put_packed(vg_literal *lc, const vg_pixbuf *f, vg_rect r, vg_writer *w)
{
	unsigned bits = index_bits(lc->n_colours);
	size_t row_bytes = ((size_t)r.w * bits + 7) / 8;
	uint8_t *p;
	int32_t x, y;

	if (lc->n_colours == 1)
		return; /* a solid block needs no indices */
	p = vg_writer_reserve(w, row_bytes * (size_t)r.h);
	memset(p, 0, row_bytes * (size_t)r.h);
	for (y = r.y; y < r.y + r.h; y++, p += row_bytes) {
		const uint32_t *row = vg_pixbuf_row(f, y) + r.x;
		unsigned at = 0;

		for (x = 0; x < r.w; x++, at += bits) {
			unsigned i = (unsigned)colour_index(lc, row[x] & 0xffffff);

			p[at / 8] |= (uint8_t)(i << (8 - bits - at % 8));
		}
	}
}

static void put_run(vg_writer *w, unsigned index, uint64_t len)
{
	if (len == 1) {
		vg_writer_u8(w, (uint8_t)index);
		return;
	}
	vg_writer_u8(w, (uint8_t)(index | 0x80));
	vg_writer_uleb(w, len - 2);
}

static void put_runs(vg_literal *lc, const vg_pixbuf *f, vg_rect r, vg_writer *w)
{
	uint32_t prev = 0;
	uint64_t run = 0;
	int32_t x, y;

	for (y = r.y; y < r.y + r.h; y++) {
		const uint32_t *row = vg_pixbuf_row(f, y) + r.x;

		for (x = 0; x < r.w; x++) {
			uint32_t c = row[x] & 0xffffff;

			if (run > 0 && c == prev) {
				run++;
				continue;
			}
			if (run > 0)
				put_run(w, (unsigned)colour_index(lc, prev), run);
			prev = c;
			run = 1;
		}
	}
	put_run(w, (unsigned)colour_index(lc, prev), run);
}

static unsigned map_home(uint32_t c)
{
	return (c * 0x9e3779b1u) >> (32 - MAP_BITS);
}

/* The map position of c, or of the empty position where it would go. */
static unsigned map_find(const vg_literal *lc, uint32_t c)
{
	unsigned s = map_home(c);

	while (lc->map_key[s] != EMPTY && lc->map_key[s] != c)
		s = (s + 1) & (MAP_SLOTS - 1);
	return s;
}

/* Whether the block just measured can go to the table: the colours it
 * lacks fit its free slots, and the block codes in no more than plain
 * bytes would take (what every caller may count on), slots counted at
 * two bytes once the one-byte ones may be gone. The table only grows: a
 * colour keeps its slot, and so its bytes, for the connection's life. */
static bool table_takes(const vg_literal *lc, vg_rect r)
{
	uint64_t px = (uint64_t)r.w * (uint64_t)r.h, most;
	unsigned i, fresh = 0;

	for (i = 0; i < lc->n_colours; i++)
		if (lc->map_key[map_find(lc, lc->colours[i])] == EMPTY)
			fresh++;
	if (fresh > VG_LIT_TABLE_SIZE - lc->table_filled)
		return false;
	most = 2 + 3 * (uint64_t)fresh +
	       (lc->table_filled + fresh > VG_LIT_SHORT_SLOTS ? 2 : 1) * px;
	return most <= 3 * px;
}

/* Gives every colour of the block just measured its slot (lc->remap),
 * filling free slots for new ones, and writes the fills. */
static void put_table_fills(vg_literal *lc, vg_writer *w)
{
	uint32_t fresh[VG_LIT_PALETTE_MAX];
	unsigned i, n_fresh = 0;

	for (i = 0; i < lc->n_colours; i++) {
		unsigned m = map_find(lc, lc->colours[i]);

		if (lc->map_key[m] == EMPTY) {
			lc->map_key[m] = lc->colours[i];
			lc->map_slot[m] = (uint16_t)lc->table_filled++;
			fresh[n_fresh++] = lc->colours[i];
		}
		lc->remap[i] = lc->map_slot[m];
	}
	vg_writer_uleb(w, n_fresh);
	for (i = 0; i < n_fresh; i++) {
		uint8_t *p = vg_writer_reserve(w, 3);

		p[0] = (uint8_t)fresh[i];
		p[1] = (uint8_t)(fresh[i] >> 8);
		p[2] = (uint8_t)(fresh[i] >> 16);
	}
}

/* A slot as one byte below VG_LIT_SHORT_SLOTS, else as two. */
static uint8_t *put_slot(uint8_t *p, unsigned slot)
{
	if (slot < VG_LIT_SHORT_SLOTS) {
		*p++ = (uint8_t)slot;
		return p;
	}
	slot -= VG_LIT_SHORT_SLOTS;
	*p++ = (uint8_t)(VG_LIT_SHORT_SLOTS + (slot >> 8));
	*p++ = (uint8_t)slot;
	return p;
}

/* The slot of each pixel's colour, row by row. */
static void put_indexed(vg_literal *lc, const vg_pixbuf *f, vg_rect r, vg_writer *w)
{
	size_t start, most = 2 * (size_t)r.w * (size_t)r.h;
	uint8_t *p, *q;
	int32_t x, y;

	put_table_fills(lc, w);
	start = w->len;
	p = q = vg_writer_reserve(w, most);
	for (y = r.y; y < r.y + r.h; y++) {
		const uint32_t *row = vg_pixbuf_row(f, y) + r.x;
		uint32_t prev = row[0] & 0xffffff;
		unsigned slot = lc->remap[colour_index(lc, prev)];

		for (x = 0; x < r.w; x++) {
			uint32_t c = row[x] & 0xffffff;

			if (c != prev) {
				prev = c;
				slot = lc->remap[colour_index(lc, c)];
			}
			q = put_slot(q, slot);
		}
	}
	w->len = start + (size_t)(q - p);
}

/* Writes 3 bytes a pixel: the residuals of green, then of blue and red
 * minus green's (neighbouring channels move together on anti-aliased and
 * smooth content). */
static void put_predicted(const vg_pixbuf *f, vg_rect r, uint8_t *p)
{
	int32_t x, y;

	for (y = r.y; y < r.y + r.h; y++) {
		const uint32_t *row = vg_pixbuf_row(f, y) + r.x;
		const uint32_t *up = y > r.y ? vg_pixbuf_row(f, y - 1) + r.x : NULL;

		for (x = 0; x < r.w; x++, p += 3) {
			uint32_t v = row[x];
			uint8_t g = (uint8_t)((int)(v >> 8 & 0xff) - predict(row, up, x, 8));
			uint8_t b = (uint8_t)((int)(v & 0xff) - predict(row, up, x, 0));
			uint8_t rd = (uint8_t)((int)(v >> 16 & 0xff) - predict(row, up, x, 16));

			p[0] = g;
			p[1] = (uint8_t)(b - g);
			p[2] = (uint8_t)(rd - g);
		}
	}
}

static void put_raw(const vg_pixbuf *f, vg_rect r, uint8_t *p)
{
	int32_t x, y;

	for (y = r.y; y < r.y + r.h; y++) {
		const uint32_t *row = vg_pixbuf_row(f, y) + r.x;

		for (x = 0; x < r.w; x++, p += 3) {
			uint32_t v = row[x];

			p[0] = (uint8_t)v;
			p[1] = (uint8_t)(v >> 8);
			p[2] = (uint8_t)(v >> 16);
		}
	}
}

static void count(vg_literal *lc, vg_lit_method m, size_t bytes, vg_rect r)
{
	lc->stats.blocks[m]++;
	lc->stats.bytes[m] += bytes;
	lc->stats.pixels[m] += (uint64_t)r.w * (uint64_t)r.h;
}

/* Writes the block with method m; a palette method needs the block's
 * palette, built by measure_block(). */
static void put_block(vg_literal *lc, const vg_pixbuf *f, vg_rect r, vg_lit_method m,
		      vg_writer *w)
{
	size_t start = w->len, n = (size_t)r.w * (size_t)r.h * 3;
	uint8_t *p;

	switch (m) {
	case VG_LIT_PALETTE:
	case VG_LIT_PALETTE_RLE:
		vg_writer_u8(w, (uint8_t)m);
		put_palette(lc, w);
		if (m == VG_LIT_PALETTE)
			put_packed(lc, f, r, w);
		else
			put_runs(lc, f, r, w);
		break;
	case VG_LIT_INDEXED:
		vg_writer_u8(w, (uint8_t)m);
		put_indexed(lc, f, r, w);
		break;
	case VG_LIT_PREDICT:
		p = vg_writer_reserve(w, 1 + n);
		p[0] = VG_LIT_PREDICT;
		put_predicted(f, r, p + 1);
		break;
	case VG_LIT_RAW:
	default:
		p = vg_writer_reserve(w, 1 + n);
		p[0] = VG_LIT_RAW;
		put_raw(f, r, p + 1);
		m = VG_LIT_RAW;
		break;
	}
	count(lc, m, w->len - start, r);
}

/* The palette coding measure_block() found worth it for the block just
 * measured, or VG_LIT_RAW when none is. */
static vg_lit_method palette_choice(const vg_literal *lc, const measure *m, vg_rect r)
{
	size_t plain = (size_t)r.w * (size_t)r.h * 3;
	size_t packed = SIZE_MAX, rle = SIZE_MAX, pal;

	if (!m->palette_ok)
		return VG_LIT_RAW;
	pal = 1 + 3 * (size_t)lc->n_colours;
	if (lc->n_colours <= VG_LIT_PACKED_MAX)
		packed = pal + (lc->n_colours == 1 ? 0
				: ((size_t)r.w * index_bits(lc->n_colours) + 7) / 8 * (size_t)r.h);
	if (lc->n_colours <= VG_LIT_RLE_PALETTE_MAX)
		rle = pal + m->rle_bytes;
	/* A palette's indices depend on the block's other colours, so the
	 * same pixels in two blocks may code differently and zlib loses the
	 * match: a palette must win by a wide margin. */
	if (packed <= rle && packed * 4 < plain)
		return VG_LIT_PALETTE;
	if (rle < packed && rle * 4 < plain)
		return VG_LIT_PALETTE_RLE;
	return VG_LIT_RAW;
}

/* A block plan's flag: its colours may go to the shared table. */
#define PLAN_TABLE 0x80

/* Run-coded blocks up to this wide may go to the shared table. */
#define TABLE_RLE_WIDTH 64

/* Whether a block, coded so far with c, would gain from the shared table:
 * the same colours then code to the same bytes in every block and update,
 * where plain bytes take three times the room and a block's own palette
 * gives a colour whichever index it met first. Runs stay runs when they
 * are long, or when the block is wide: rows of a wide block are runs of
 * cells that repeat row after row (a heat map), whose tokens compress
 * better than a byte a pixel; a narrow block cuts its runs at every row
 * end (doc/results.md). */
static bool wants_table(const vg_literal *lc, const measure *m, vg_lit_method c, vg_rect r)
{
	uint64_t px = (uint64_t)r.w * (uint64_t)r.h;

	if (!lc->indexed || !m->palette_ok)
		return false;
	return c == VG_LIT_RAW || (c == VG_LIT_PALETTE_RLE && r.w <= TABLE_RLE_WIDTH &&
				   (uint64_t)m->rle_bytes * 8 >= px);
}

int vg_literal_encode_list(vg_literal *lc, const vg_pixbuf *frame, const vg_rect *rects,
			   size_t n, vg_writer *out)
{
	uint64_t rich = 0, many_px = 0, same = 0;
	vg_lit_method many;
	size_t i;
	measure m;

	for (i = 0; i < n; i++)
		if (!vg_pixbuf_holds(frame, rects[i]))
			return VG_ERANGE;
	if (n > lc->plan_cap) {
		lc->plan_cap = VG_MAX(n, 2 * lc->plan_cap);
		lc->plan = VG_RENEW(uint8_t, lc->plan, lc->plan_cap);
	}
	for (i = 0; i < n; i++) {
		uint64_t px = (uint64_t)rects[i].w * (uint64_t)rects[i].h;
		vg_lit_method c;

		measure_block(lc, frame, rects[i], &m);
		c = palette_choice(lc, &m, rects[i]);
		lc->plan[i] = (uint8_t)(c | (wants_table(lc, &m, c, rects[i]) ? PLAN_TABLE : 0));
		if (c == VG_LIT_RAW) {
			rich += m.palette_ok ? VG_MIN(lc->n_colours, px) : px;
			many_px += px;
			same += m.same;
		}
	}
	/* Screen content (text, lines, flat areas) repeats its left neighbour
	 * on most pixels and has few colours, and codes best as plain bytes
	 * (or table slots); smooth, many-coloured content codes best as
	 * residuals. */
	many = same * 5 < many_px * 2 && rich * 4 > many_px ? VG_LIT_PREDICT : VG_LIT_RAW;
	for (i = 0; i < n; i++) {
		vg_lit_method c = (vg_lit_method)(lc->plan[i] & ~PLAN_TABLE);

		if (c == VG_LIT_RAW)
			c = many;
		if (c == VG_LIT_PREDICT) {
			put_block(lc, frame, rects[i], c, out);
			continue;
		}
		if ((lc->plan[i] & PLAN_TABLE) || c != VG_LIT_RAW)
			measure_block(lc, frame, rects[i], &m);
		/* A full table leaves the block as it was planned. */
		if ((lc->plan[i] & PLAN_TABLE) && table_takes(lc, rects[i]))
			c = VG_LIT_INDEXED;
		put_block(lc, frame, rects[i], c, out);
	}
	return VG_OK;
}

int vg_literal_encode(vg_literal *lc, const vg_pixbuf *frame, vg_rect rect, vg_writer *out)
{
	return vg_literal_encode_list(lc, frame, &rect, 1, out);
}

int vg_literal_encode_as(vg_literal *lc, const vg_pixbuf *frame, vg_rect rect,
			 vg_lit_method method, vg_writer *out)
{
	measure m;

	if (!vg_pixbuf_holds(frame, rect))
		return VG_ERANGE;
	if (method >= VG_LIT_METHODS)
		return VG_EINVAL;
	if (method == VG_LIT_INDEXED && !lc->indexed)
		return VG_EINVAL;
	if (method == VG_LIT_PALETTE || method == VG_LIT_PALETTE_RLE || method == VG_LIT_INDEXED) {
		measure_block(lc, frame, rect, &m);
		if (!m.palette_ok ||
		    (method == VG_LIT_PALETTE_RLE && lc->n_colours > VG_LIT_RLE_PALETTE_MAX) ||
		    (method == VG_LIT_INDEXED && !table_takes(lc, rect)))
			return VG_EINVAL;
	}
	put_block(lc, frame, rect, method, out);
	return VG_OK;
}
