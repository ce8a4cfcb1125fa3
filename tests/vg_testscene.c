/* Deterministic synthetic screens: heat map with dendrogram and labels,
 * text, noise. */
#include <glib.h>
#include <string.h>

#include "tests/vg_testscene.h"

#define WHITE 0xffffffu
#define BLACK 0x000000u

uint64_t vg_testscene_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int32_t rand_range(uint64_t *st, int32_t lo, int32_t hi)
{
	return lo + (int32_t)(vg_testscene_rand(st) % (uint64_t)(hi - lo + 1));
}

static void put(vg_pixbuf *pb, int32_t x, int32_t y, uint32_t c)
{
	if (x >= 0 && y >= 0 && x < pb->width && y < pb->height)
		vg_pixbuf_row(pb, y)[x] = c;
}

static void hline(vg_pixbuf *pb, int32_t x0, int32_t x1, int32_t y, uint32_t c)
{
	int32_t x;

	for (x = MIN(x0, x1); x <= MAX(x0, x1); x++)
		put(pb, x, y, c);
}

static void vline(vg_pixbuf *pb, int32_t x, int32_t y0, int32_t y1, uint32_t c)
{
	int32_t y;

	for (y = MIN(y0, y1); y <= MAX(y0, y1); y++)
		put(pb, x, y, c);
}

/* A glyph of gw x gh bits for character ch, the same for every seed: a
 * pseudo-font with a blank right column and bottom row. */
static void draw_glyph(vg_pixbuf *pb, int32_t x, int32_t y, int ch, int32_t gw, int32_t gh,
		       uint32_t colour)
{
	uint64_t st = 0x5eed0000u + (uint64_t)ch * 7919u + (uint64_t)gw * 131u;
	int32_t i, j;

	for (j = 0; j < gh - 1; j++) {
		uint64_t bits = vg_testscene_rand(&st);
		for (i = 0; i < gw - 1; i++)
			if (((bits >> (2 * i)) & 3u) != 0 && ((bits >> (2 * i + 20)) & 1u) != 0)
				put(pb, x + i, y + j, colour);
	}
}

/* ---- heat map --------------------------------------------------------- */

enum { CELL_W = 12, CELL_H = 6, TREE_W = 120, LABEL_W = 150 };

static uint32_t expression_colour(double v)
{
	/* 16 levels each way, as viewers quantise their contrast scale. */
	int level = (int)(v * 16.0);

	if (level > 15)
		level = 15;
	if (level < -15)
		level = -15;
	if (level >= 0)
		return VG_RGB(level * 17, 0, 0);
	return VG_RGB(0, -level * 17, 0);
}

static void render_heatmap(vg_pixbuf *pb, uint64_t *st)
{
	const int32_t heat_x0 = TREE_W, heat_x1 = MAX(heat_x0, pb->width - LABEL_W);
	const int32_t n_cond = (heat_x1 - heat_x0) / CELL_W + 1;
	const int32_t n_genes = pb->height / CELL_H + 1;
	double *profile = g_new(double, (size_t)n_cond);
	int32_t gene = 0, cluster_no = 0, prev_mid = -1;

	vg_pixbuf_fill(pb, vg_pixbuf_rect(pb), WHITE);
	while (gene < n_genes) {
		int32_t size = rand_range(st, 3, 40), g, c, first_y, last_y, join_x;

		for (c = 0; c < n_cond; c++)
			profile[c] = (double)rand_range(st, -1000, 1000) / 1000.0;
		for (g = gene; g < gene + size && g < n_genes; g++) {
			int32_t y0 = g * CELL_H, x, y, k;
			char label[12];

			for (c = 0; c < n_cond; c++) {
				double noise = (double)rand_range(st, -250, 250) / 1000.0;
				uint32_t colour = expression_colour(profile[c] + noise);

				if (rand_range(st, 0, 60) == 0)
					colour = VG_RGB(128, 128, 128); /* missing value */
				for (y = y0; y < y0 + CELL_H; y++)
					for (x = heat_x0 + c * CELL_W;
					     x < MIN(heat_x1, heat_x0 + (c + 1) * CELL_W); x++)
						put(pb, x, y, colour);
			}
			/* A leaf of the dendrogram and the gene's label. */
			hline(pb, TREE_W - 4 - (size % 7), TREE_W - 2, y0 + CELL_H / 2, BLACK);
			g_snprintf(label, sizeof label, "Y%c%c%03d%c", 'A' + g % 16, 'L' + g % 2,
				   (g * 37) % 1000, 'W' + g % 3);
			for (k = 0; label[k]; k++)
				draw_glyph(pb, heat_x1 + 6 + 6 * k, y0 + 1, label[k], 6, 6, BLACK);
		}
		/* The cluster's bracket, and a join to the previous cluster. */
		first_y = gene * CELL_H + CELL_H / 2;
		last_y = (MIN(gene + size, n_genes) - 1) * CELL_H + CELL_H / 2;
		join_x = TREE_W - 4 - (size % 7) - rand_range(st, 2, 30);
		vline(pb, join_x, first_y, last_y, BLACK);
		hline(pb, join_x, TREE_W - 4 - (size % 7), first_y, BLACK);
		hline(pb, join_x, TREE_W - 4 - (size % 7), last_y, BLACK);
		if (prev_mid >= 0) {
			int32_t up_x = 8 + (cluster_no * 13) % 40;
			vline(pb, up_x, prev_mid, (first_y + last_y) / 2, BLACK);
			hline(pb, up_x, join_x, (first_y + last_y) / 2, BLACK);
		}
		prev_mid = (first_y + last_y) / 2;
		cluster_no++;
		gene += size;
	}
	g_free(profile);
}

/* ---- text ------------------------------------------------------------- */

static void render_text(vg_pixbuf *pb, uint64_t *st)
{
	static const uint32_t colours[] = { BLACK, BLACK, BLACK, BLACK, BLACK, BLACK,
					    0x0000a0u, 0xa00000u, 0x006000u };
	int32_t y;

	vg_pixbuf_fill(pb, vg_pixbuf_rect(pb), WHITE);
	for (y = 4; y + 14 <= pb->height; y += 14) {
		int32_t x = 20 + 14 * rand_range(st, 0, 3);
		int32_t end = pb->width - 20 - rand_range(st, 0, pb->width / 3);

		if (rand_range(st, 0, 9) == 0)
			continue; /* paragraph break */
		while (x < end) {
			int32_t len = rand_range(st, 1, 9), k;
			uint32_t c = colours[rand_range(st, 0, G_N_ELEMENTS(colours) - 1)];

			for (k = 0; k < len && x < end; k++, x += 7)
				draw_glyph(pb, x, y + 2, 'a' + rand_range(st, 0, 25), 7, 10, c);
			x += 7;
		}
	}
}

vg_pixbuf *vg_testscene_new(vg_scene_kind kind, int32_t width, int32_t height, uint32_t seed)
{
	vg_pixbuf *pb = vg_pixbuf_new(width, height);
	uint64_t st = 0x7465737473636e65ull ^ ((uint64_t)seed << 8) ^ (uint64_t)kind;
	int32_t x, y;

	g_assert_nonnull(pb);
	switch (kind) {
	case VG_SCENE_HEATMAP:
		render_heatmap(pb, &st);
		break;
	case VG_SCENE_TEXT:
		render_text(pb, &st);
		break;
	case VG_SCENE_NOISE:
		for (y = 0; y < height; y++)
			for (x = 0; x < width; x++)
				vg_pixbuf_row(pb, y)[x] = (uint32_t)vg_testscene_rand(&st) & VG_PIXEL_MASK;
		break;
	}
	return pb;
}

vg_pixbuf *vg_testscene_frame(const vg_pixbuf *doc, int32_t x, int32_t y, int32_t w, int32_t h)
{
	vg_pixbuf *f = vg_pixbuf_new(w, h);
	vg_pixbuf view;

	g_assert_nonnull(f);
	g_assert_true(vg_rect_contains(vg_pixbuf_rect(doc), vg_rect_make(x, y, w, h)));
	view = vg_pixbuf_view(doc, vg_rect_make(x, y, w, h));
	vg_pixbuf_copy(f, 0, 0, &view);
	return f;
}
