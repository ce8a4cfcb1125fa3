/* varg-synth: a deterministic stand-in for a recorded Java TreeView session.
 *
 * Draws a clustered microarray heat map (red for induced, green for
 * repressed, black for unchanged, grey for missing values) with the gene
 * dendrogram to its left, the array dendrogram above it, gene names to its
 * right in a built-in 5x7 bitmap font, scroll bars and a status line, then
 * browses it: scrolls vertically by varying amounts, now and then
 * horizontally, and moves the row selection. Each frame is written as an
 * image into a directory with a timestamps.txt manifest that `varg-trace
 * import` reads. The same options give the same pixels on every host.
 */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_imgfile.h"
#include "common/vg_log.h"
#include "common/vg_pixbuf.h"

#define N_GENES 2000
#define N_ARRAYS 80
#define N_CLUSTERS 37
#define MISSING 127

#define COL_WINDOW VG_RGB(0xd4, 0xd0, 0xc8)
#define COL_TITLE VG_RGB(0x0a, 0x24, 0x6a)
#define COL_PANEL VG_RGB(0xff, 0xff, 0xff)
#define COL_INK VG_RGB(0x00, 0x00, 0x00)
#define COL_MISSING VG_RGB(0x90, 0x90, 0x90)
#define COL_SELECT VG_RGB(0xff, 0xff, 0x00)
#define COL_LABEL_SEL VG_RGB(0x31, 0x6a, 0xc5)
#define COL_TRACK VG_RGB(0xe8, 0xe6, 0xe0)
#define COL_THUMB VG_RGB(0xa0, 0x9c, 0x94)

/* --- A small deterministic generator (splitmix64). --------------------- */

static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A uniform integer in [lo, hi]. */
static int random_int(uint64_t *state, int lo, int hi)
{
	return lo + (int)(next_random(state) % (uint64_t)(hi - lo + 1));
}

/* --- The 5x7 font: rows top to bottom, bit 4 is the left column. -------- */

static const struct {
	char c;
	uint8_t rows[7];
} glyphs[] = {
	{ '0', { 0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e } },
	{ '1', { 0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e } },
	{ '2', { 0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f } },
	{ '3', { 0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e } },
	{ '4', { 0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02 } },
	{ '5', { 0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e } },
	{ '6', { 0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e } },
	{ '7', { 0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08 } },
	{ '8', { 0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e } },
	{ '9', { 0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c } },
	{ 'A', { 0x0e, 0x11, 0x11, 0x11, 0x1f, 0x11, 0x11 } },
	{ 'B', { 0x1e, 0x11, 0x11, 0x1e, 0x11, 0x11, 0x1e } },
	{ 'C', { 0x0e, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0e } },
	{ 'D', { 0x1c, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1c } },
	{ 'E', { 0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x1f } },
	{ 'F', { 0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x10 } },
	{ 'G', { 0x0e, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0f } },
	{ 'H', { 0x11, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11 } },
	{ 'I', { 0x0e, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0e } },
	{ 'J', { 0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0c } },
	{ 'K', { 0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11 } },
	{ 'L', { 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1f } },
	{ 'M', { 0x11, 0x1b, 0x15, 0x15, 0x11, 0x11, 0x11 } },
	{ 'N', { 0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11 } },
	{ 'O', { 0x0e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e } },
	{ 'P', { 0x1e, 0x11, 0x11, 0x1e, 0x10, 0x10, 0x10 } },
	{ 'Q', { 0x0e, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0d } },
	{ 'R', { 0x1e, 0x11, 0x11, 0x1e, 0x14, 0x12, 0x11 } },
	{ 'S', { 0x0f, 0x10, 0x10, 0x0e, 0x01, 0x01, 0x1e } },
	{ 'T', { 0x1f, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04 } },
	{ 'U', { 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e } },
	{ 'V', { 0x11, 0x11, 0x11, 0x11, 0x11, 0x0a, 0x04 } },
	{ 'W', { 0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0a } },
	{ 'X', { 0x11, 0x11, 0x0a, 0x04, 0x0a, 0x11, 0x11 } },
	{ 'Y', { 0x11, 0x11, 0x11, 0x0a, 0x04, 0x04, 0x04 } },
	{ 'Z', { 0x1f, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1f } },
	{ '-', { 0x00, 0x00, 0x00, 0x1f, 0x00, 0x00, 0x00 } },
	{ '.', { 0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x0c } },
	{ ',', { 0x00, 0x00, 0x00, 0x00, 0x0c, 0x04, 0x08 } },
	{ ':', { 0x00, 0x0c, 0x0c, 0x00, 0x0c, 0x0c, 0x00 } },
	{ '_', { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1f } },
	{ '/', { 0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00 } },
	{ '(', { 0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02 } },
	{ ')', { 0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08 } },
};

#define GLYPH_W 6 /* 5 columns and a space */

static const uint8_t *glyph(char c)
{
	size_t i;

	if (c >= 'a' && c <= 'z')
		c = (char)(c - 'a' + 'A');
	for (i = 0; i < G_N_ELEMENTS(glyphs); i++)
		if (glyphs[i].c == c)
			return glyphs[i].rows;
	return NULL; /* a space, or a character the font lacks */
}

/* --- Drawing, always clipped to a panel. ------------------------------- */

static void fill(vg_pixbuf *pb, vg_rect clip, int32_t x, int32_t y, int32_t w, int32_t h, uint32_t c)
{
	vg_pixbuf_fill(pb, vg_rect_intersect(clip, vg_rect_make(x, y, w, h)), c);
}

static void text(vg_pixbuf *pb, vg_rect clip, int32_t x, int32_t y, const char *s, uint32_t c)
{
	for (; *s; s++, x += GLYPH_W) {
		const uint8_t *g = glyph(*s);
		int gx, gy;

		if (!g)
			continue;
		for (gy = 0; gy < 7; gy++)
			for (gx = 0; gx < 5; gx++)
				if (g[gy] & (0x10 >> gx))
					fill(pb, clip, x + gx, y + gy, 1, 1, c);
	}
}

/* --- The data set. ----------------------------------------------------- */

typedef struct {
	int8_t value[N_GENES][N_ARRAYS]; /* -8..8 (log ratio in eighths) or MISSING */
	char name[N_GENES][12];
	char note[N_GENES][24];
	float gene_height[N_GENES];      /* jitter of dendrogram node heights */
} dataset;

static const char *const functions[] = {
	"CELL CYCLE", "RIBOSOME", "GLYCOLYSIS", "DNA REPAIR", "MITOCHONDRION", "HISTONE",
	"PROTEASOME", "TRNA SYNTH.", "STRESS", "MATING", "SPORULATION", "UNKNOWN",
};

/* Genes come in clusters that share a smooth expression profile, in the
 * order a hierarchical clustering would leave them, so neighbouring rows
 * look alike as they do in real clustered data. */
static void make_dataset(dataset *d, uint64_t seed)
{
	static const char chrom[] = "ABCDEFGHIJKLMNOP";
	float centre[N_ARRAYS];
	int g = 0, k, a;

	for (k = 0; k < N_CLUSTERS && g < N_GENES; k++) {
		int size = k == N_CLUSTERS - 1 ? N_GENES - g : random_int(&seed, 20, 90);
		float level = 0;
		int fn = random_int(&seed, 0, (int)G_N_ELEMENTS(functions) - 1);

		for (a = 0; a < N_ARRAYS; a++) {
			level += (float)random_int(&seed, -30, 30) / 10.0f;
			level *= 0.85f;
			centre[a] = level;
		}
		for (; size > 0 && g < N_GENES; size--, g++) {
			float gain = (float)random_int(&seed, 50, 150) / 100.0f;

			for (a = 0; a < N_ARRAYS; a++) {
				int v = (int)(centre[a] * gain + (float)random_int(&seed, -15, 15) / 10.0f);

				v = v < -8 ? -8 : v > 8 ? 8 : v;
				d->value[g][a] = random_int(&seed, 0, 199) == 0 ? MISSING : (int8_t)v;
			}
			g_snprintf(d->name[g], sizeof d->name[g], "Y%c%c%03d%c", chrom[random_int(&seed, 0, 15)],
				   random_int(&seed, 0, 1) ? 'L' : 'R', random_int(&seed, 1, 350),
				   random_int(&seed, 0, 1) ? 'W' : 'C');
			if (random_int(&seed, 0, 2) == 0)
				g_snprintf(d->note[g], sizeof d->note[g], "%s", functions[fn]);
			else
				d->note[g][0] = '\0';
			d->gene_height[g] = (float)random_int(&seed, 0, 100) / 100.0f;
		}
	}
}

static uint32_t heat_colour(int8_t v)
{
	if (v == MISSING)
		return COL_MISSING;
	if (v >= 0)
		return VG_RGB(v * 255 / 8, 0, 0);
	return VG_RGB(0, -v * 255 / 8, 0);
}

/* --- The view. ---------------------------------------------------------- */

typedef struct {
	int top;          /* first visible gene */
	int left;         /* first visible array */
	int sel, sel_n;   /* selected genes */
	int hover;        /* gene under the pointer, shown in the status line */
} view;

typedef struct {
	vg_rect title, gtree, atree, heat, labels, vbar, hbar, status;
	int cell_w, cell_h, rows, cols;
} layout;

static layout make_layout(int32_t w, int32_t h)
{
	layout l;
	int32_t tree_w = w * 13 / 100, label_w = w * 24 / 100, body_y = 18 + h * 8 / 100;
	int32_t heat_x = 4 + tree_w, heat_w, body_h = h - body_y - 16 - 14;

	l.cell_w = 10;
	l.cell_h = 10;
	heat_w = w - heat_x - label_w - 18;
	l.cols = MAX(1, heat_w / l.cell_w);
	l.rows = MAX(1, body_h / l.cell_h);
	heat_w = l.cols * l.cell_w;
	l.title = vg_rect_make(0, 0, w, 18);
	l.gtree = vg_rect_make(4, body_y, tree_w, l.rows * l.cell_h);
	l.atree = vg_rect_make(heat_x, 20, heat_w, body_y - 22);
	l.heat = vg_rect_make(heat_x, body_y, heat_w, l.rows * l.cell_h);
	l.labels = vg_rect_make(heat_x + heat_w + 2, body_y, w - (heat_x + heat_w + 2) - 18, l.rows * l.cell_h);
	l.vbar = vg_rect_make(w - 16, body_y, 14, l.rows * l.cell_h);
	l.hbar = vg_rect_make(heat_x, body_y + l.rows * l.cell_h + 2, heat_w, 12);
	l.status = vg_rect_make(0, h - 14, w, 14);
	return l;
}

/* The gene dendrogram is a balanced binary tree over the ordered genes; a
 * node covering up to 2^k genes sits at depth k, jittered per node. Only
 * subtrees that reach the visible rows are drawn; a node's row position is
 * the middle of the genes it covers. Returns the node's level and sets its
 * position. */
static int gene_tree(vg_pixbuf *pb, const layout *l, const dataset *d, const view *v, int lo, int hi,
		     int32_t *nx, int32_t *ny)
{
	int32_t x0 = l->gtree.x, span = l->gtree.w - 4;
	int32_t xa, xb, ya, yb;
	int level = 0, mid = (lo + hi) / 2;

	*ny = l->gtree.y + (int32_t)((lo + hi) * l->cell_h / 2 - v->top * l->cell_h);
	if (hi - lo == 1) {
		*nx = x0 + span;
		return 0;
	}
	if (hi <= v->top || lo >= v->top + l->rows) {
		while ((1 << level) < hi - lo)
			level++;
	} else {
		int la = gene_tree(pb, l, d, v, lo, mid, &xa, &ya);
		int lb = gene_tree(pb, l, d, v, mid, hi, &xb, &yb);

		level = MAX(la, lb) + 1;
	}
	*nx = x0 + span - (int32_t)((float)span * ((float)level + d->gene_height[mid]) / 12.0f);
	if (hi > v->top && lo < v->top + l->rows) {
		fill(pb, l->gtree, *nx, ya, MAX(xa - *nx, 1), 1, COL_INK);
		fill(pb, l->gtree, *nx, yb, MAX(xb - *nx, 1), 1, COL_INK);
		fill(pb, l->gtree, *nx, MIN(ya, yb), 1, ABS(yb - ya) + 1, COL_INK);
	}
	return level;
}

/* The array dendrogram: the same over the visible columns, drawn down. */
static int array_tree(vg_pixbuf *pb, const layout *l, const view *v, int lo, int hi, int32_t *nx)
{
	int32_t y1 = l->atree.y + l->atree.h - 1, span = l->atree.h - 2;
	int la, lb, level, mid;
	int32_t xa, xb, ya, yb, yn;

	*nx = l->atree.x + (int32_t)((lo + hi) * l->cell_w / 2 - v->left * l->cell_w);
	if (hi - lo == 1)
		return 0;
	mid = (lo + hi) / 2;
	la = array_tree(pb, l, v, lo, mid, &xa);
	lb = array_tree(pb, l, v, mid, hi, &xb);
	level = MAX(la, lb) + 1;
	ya = y1 - span * la / 8;
	yb = y1 - span * lb / 8;
	yn = y1 - span * level / 8;
	fill(pb, l->atree, xa, yn, 1, ya - yn + 1, COL_INK);
	fill(pb, l->atree, xb, yn, 1, yb - yn + 1, COL_INK);
	fill(pb, l->atree, MIN(xa, xb), yn, ABS(xb - xa) + 1, 1, COL_INK);
	return level;
}

static void scroll_bar(vg_pixbuf *pb, vg_rect bar, bool vertical, int first, int shown, int total)
{
	int32_t len = vertical ? bar.h : bar.w;
	int32_t pos = (int32_t)((int64_t)len * first / total);
	int32_t size = MAX((int32_t)((int64_t)len * shown / total), 8);

	fill(pb, bar, bar.x, bar.y, bar.w, bar.h, COL_TRACK);
	if (vertical)
		fill(pb, bar, bar.x + 1, bar.y + pos, bar.w - 2, size, COL_THUMB);
	else
		fill(pb, bar, bar.x + pos, bar.y + 1, size, bar.h - 2, COL_THUMB);
}

static void draw(vg_pixbuf *pb, const layout *l, const dataset *d, const view *v)
{
	vg_rect all = vg_pixbuf_rect(pb);
	char line[160];
	int r, c;
	int32_t x, y;

	fill(pb, all, 0, 0, pb->width, pb->height, COL_WINDOW);
	fill(pb, all, l->title.x, l->title.y, l->title.w, l->title.h, COL_TITLE);
	text(pb, l->title, 6, 5, "JAVA TREEVIEW - YEAST_CELLCYCLE.CDT (2000 GENES, 80 ARRAYS)", COL_PANEL);
	fill(pb, all, l->gtree.x, l->gtree.y, l->gtree.w, l->gtree.h, COL_PANEL);
	fill(pb, all, l->atree.x, l->atree.y, l->atree.w, l->atree.h, COL_PANEL);
	fill(pb, all, l->labels.x, l->labels.y, l->labels.w, l->labels.h, COL_PANEL);
	gene_tree(pb, l, d, v, 0, N_GENES, &x, &y);
	array_tree(pb, l, v, 0, N_ARRAYS, &y);

	for (r = 0; r < l->rows && v->top + r < N_GENES; r++) {
		int g = v->top + r;
		int32_t ry = l->heat.y + r * l->cell_h;
		bool selected = g >= v->sel && g < v->sel + v->sel_n;

		for (c = 0; c < l->cols && v->left + c < N_ARRAYS; c++)
			fill(pb, l->heat, l->heat.x + c * l->cell_w, ry, l->cell_w, l->cell_h,
			     heat_colour(d->value[g][v->left + c]));
		if (selected)
			fill(pb, l->labels, l->labels.x, ry, l->labels.w, l->cell_h, COL_LABEL_SEL);
		g_snprintf(line, sizeof line, "%-9s %s", d->name[g], d->note[g]);
		text(pb, l->labels, l->labels.x + 3, ry + 2, line, selected ? COL_PANEL : COL_INK);
	}
	/* The selection's outline over the heat map. */
	if (v->sel + v->sel_n > v->top && v->sel < v->top + l->rows) {
		int32_t sy = l->heat.y + (v->sel - v->top) * l->cell_h, sh = v->sel_n * l->cell_h;

		fill(pb, l->heat, l->heat.x, sy, l->heat.w, 1, COL_SELECT);
		fill(pb, l->heat, l->heat.x, sy + sh - 1, l->heat.w, 1, COL_SELECT);
		fill(pb, l->heat, l->heat.x, sy, 1, sh, COL_SELECT);
		fill(pb, l->heat, l->heat.x + l->heat.w - 1, sy, 1, sh, COL_SELECT);
	}
	scroll_bar(pb, l->vbar, true, v->top, l->rows, N_GENES);
	scroll_bar(pb, l->hbar, false, v->left, l->cols, N_ARRAYS);
	g_snprintf(line, sizeof line, "GENES %d-%d OF %d   ARRAYS %d-%d   SELECTED %s (%d)   POINTER %s",
		   v->top + 1, MIN(v->top + l->rows, N_GENES), N_GENES, v->left + 1,
		   MIN(v->left + l->cols, N_ARRAYS), d->name[v->sel], v->sel_n, d->name[v->hover]);
	text(pb, l->status, 4, l->status.y + 4, line, COL_INK);
}

/* One user action: mostly vertical scrolls of varying length, sometimes a
 * horizontal scroll, a new selection or just the pointer moving. Returns
 * the milliseconds it takes. */
static int act(view *v, const layout *l, uint64_t *seed)
{
	static const int steps[] = { 1, 1, 2, 3, 3, 5, 8, 10, 13, 20, 35 };
	int choice = random_int(seed, 0, 99);
	int max_top = MAX(0, N_GENES - l->rows), max_left = MAX(0, N_ARRAYS - l->cols);

	if (choice < 55) {
		int step = steps[random_int(seed, 0, (int)G_N_ELEMENTS(steps) - 1)];

		v->top += random_int(seed, 0, 4) == 0 ? -step : step;
		v->top = CLAMP(v->top, 0, max_top);
		v->hover = CLAMP(v->hover + step, 0, N_GENES - 1);
		return random_int(seed, 40, 120);
	}
	if (choice < 65 && max_left > 0) {
		v->left += random_int(seed, 0, 1) ? 4 : -4;
		v->left = CLAMP(v->left, 0, max_left);
		return random_int(seed, 80, 200);
	}
	if (choice < 90) {
		if (random_int(seed, 0, 2) == 0)
			v->sel = CLAMP(v->sel + random_int(seed, -3, 3), 0, N_GENES - 1);
		else
			v->sel = CLAMP(v->top + random_int(seed, 0, l->rows - 1), 0, N_GENES - 1);
		v->sel_n = MIN(random_int(seed, 1, 12), N_GENES - v->sel);
		return random_int(seed, 150, 600);
	}
	v->hover = CLAMP(v->top + random_int(seed, 0, l->rows - 1), 0, N_GENES - 1);
	return random_int(seed, 30, 90);
}

int main(int argc, char **argv)
{
	g_autofree char *dir = NULL, *format = NULL, *manifest_path = NULL;
	int width = 1024, height = 768, frames = 80;
	gint64 seed_opt = 1;
	GOptionEntry entries[] = {
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &dir, "Directory for the frames (required; created)", "DIR" },
		{ "width", 'W', 0, G_OPTION_ARG_INT, &width, "Frame width (default 1024)", "N" },
		{ "height", 'H', 0, G_OPTION_ARG_INT, &height, "Frame height (default 768)", "N" },
		{ "frames", 'n', 0, G_OPTION_ARG_INT, &frames, "Number of frames (default 80)", "N" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format, "png (default) or ppm", "FMT" },
		{ "seed", 's', 0, G_OPTION_ARG_INT64, &seed_opt, "Seed of the data and the browsing (default 1)", "N" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionContext *ctx = g_option_context_new("- draw a browsed heat map as image frames");
	GError *error = NULL;
	dataset *d = NULL;
	vg_pixbuf *pb = NULL;
	FILE *manifest = NULL;
	uint64_t seed;
	layout l;
	view v = { 0, 0, 5, 3, 0 };
	int status = 1, i, err;
	long t_ms = 0;
	bool ppm;

	vg_log_set_prefix("varg-synth");
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
		vg_error("%s (try --help)", error->message);
		g_error_free(error);
		g_option_context_free(ctx);
		return 2;
	}
	g_option_context_free(ctx);
	if (!dir || argc > 1 || width < 1 || height < 1 || width > VG_MAX_DIM || height > VG_MAX_DIM ||
	    frames < 1 || (format && strcmp(format, "png") != 0 && strcmp(format, "ppm") != 0)) {
		vg_error("needs -o DIR, sizes 1..%d, --frames >= 1, --format png|ppm (try --help)", VG_MAX_DIM);
		return 2;
	}
	ppm = format && strcmp(format, "ppm") == 0;
	if (g_mkdir_with_parents(dir, 0777) != 0) {
		vg_error("%s: %s", dir, g_strerror(errno));
		return 1;
	}
	manifest_path = g_build_filename(dir, "timestamps.txt", NULL);
	manifest = fopen(manifest_path, "w");
	if (!manifest) {
		vg_error("%s: %s", manifest_path, g_strerror(errno));
		return 1;
	}
	seed = (uint64_t)seed_opt;
	d = g_new0(dataset, 1);
	make_dataset(d, seed);
	l = make_layout(width, height);
	pb = vg_pixbuf_new(width, height);
	for (i = 0; i < frames; i++) {
		g_autofree char *name = g_strdup_printf("frame-%04d.%s", i, ppm ? "ppm" : "png");
		g_autofree char *path = g_build_filename(dir, name, NULL);

		draw(pb, &l, d, &v);
		err = ppm ? vg_ppm_write(path, pb) : vg_png_write(path, pb);
		if (err) {
			vg_error("%s: %s", path, vg_strerror(err));
			goto out;
		}
		fprintf(manifest, "%s %ld\n", name, t_ms);
		t_ms += act(&v, &l, &seed);
	}
	status = 0;
out:
	if (fclose(manifest) != 0 && status == 0) {
		vg_error("%s: %s", manifest_path, g_strerror(errno));
		status = 1;
	}
	vg_pixbuf_free(pb);
	g_free(d);
	return status;
}
