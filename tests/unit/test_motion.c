/* Movement estimation: direction and offset for scrolls by every offset,
 * "none" for unrelated frames. */
#include <glib.h>

#include "common/vg_error.h"
#include "segment2d/vg_motion.h"
#include "tests/vg_testscene.h"

enum { W = 800, H = 600, MAXD = 200 };

static const char *const scene_name[] = { "heatmap", "text", "noise" };

/* Scrolls the kind's document by every offset 1..MAXD and back; the
 * estimate must name the direction every time and the offset nearly
 * always (repeated rows, such as the 6 rows of a heat map cell, may make
 * another offset just as plausible). */
static void scroll_all(vg_scene_kind kind, bool horizontal)
{
	vg_pixbuf *doc = horizontal ? vg_testscene_new(kind, W + MAXD, H, 31)
				    : vg_testscene_new(kind, W, H + MAXD, 31);
	vg_pixbuf base = vg_pixbuf_view(doc, vg_rect_make(0, 0, W, H));
	const vg_motion_dir want = horizontal ? VG_MOTION_HORIZONTAL : VG_MOTION_VERTICAL;
	vg_motion *m;
	vg_motion_result r;
	int32_t d, exact = 0;

	g_assert_cmpint(vg_motion_new(W, H, 0, 0, &m), ==, 0);
	vg_motion_estimate(m, &base, NULL, 0, &r);
	g_assert_cmpint(r.dir, ==, VG_MOTION_NONE);
	for (d = 1; d <= MAXD; d++) {
		vg_pixbuf f = vg_pixbuf_view(doc, horizontal ? vg_rect_make(d, 0, W, H)
							     : vg_rect_make(0, d, W, H));

		vg_motion_estimate(m, &f, NULL, 0, &r);
		if (r.dir != want)
			g_test_message("%s d=%d: %s rows %d/%d cols %d/%d", scene_name[kind], d,
				       vg_motion_dir_name(r.dir), r.row_hits, r.row_samples,
				       r.col_hits, r.col_samples);
		g_assert_cmpint(r.dir, ==, want);
		exact += r.offset == -d;
		/* And back again: the opposite move. */
		vg_motion_estimate(m, &base, NULL, 0, &r);
		g_assert_cmpint(r.dir, ==, want);
		exact += r.offset == d;
	}
	g_test_message("%s %s: direction right for all %d offsets both ways, offset exact in "
		       "%d of %d",
		       scene_name[kind], horizontal ? "horizontal" : "vertical", MAXD, exact,
		       2 * MAXD);
	g_assert_cmpint(exact, >=, 2 * MAXD * 9 / 10);
	vg_motion_free(m);
	vg_pixbuf_free(doc);
}

static void test_heatmap_vertical(void)
{
	scroll_all(VG_SCENE_HEATMAP, false);
}

static void test_heatmap_horizontal(void)
{
	scroll_all(VG_SCENE_HEATMAP, true);
}

static void test_text_vertical(void)
{
	scroll_all(VG_SCENE_TEXT, false);
}

static void test_text_horizontal(void)
{
	scroll_all(VG_SCENE_TEXT, true);
}

/* Frames that have nothing to do with each other: no motion. */
static void test_unrelated(void)
{
	static const int pairs[][4] = {
		/* kind, seed, kind, seed */
		{ VG_SCENE_HEATMAP, 1, VG_SCENE_TEXT, 1 },
		{ VG_SCENE_TEXT, 1, VG_SCENE_NOISE, 1 },
		{ VG_SCENE_TEXT, 1, VG_SCENE_TEXT, 2 },
		{ VG_SCENE_NOISE, 1, VG_SCENE_NOISE, 2 },
		{ VG_SCENE_HEATMAP, 1, VG_SCENE_NOISE, 3 },
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(pairs); i++) {
		vg_pixbuf *a = vg_testscene_new((vg_scene_kind)pairs[i][0], W, H, (uint32_t)pairs[i][1]);
		vg_pixbuf *b = vg_testscene_new((vg_scene_kind)pairs[i][2], W, H, (uint32_t)pairs[i][3]);
		vg_motion *m;
		vg_motion_result r;

		vg_motion_new(W, H, 0, 0, &m);
		vg_motion_estimate(m, a, NULL, 0, &r);
		vg_motion_estimate(m, b, NULL, 0, &r);
		g_test_message("%s -> %s: %s rows %d/%d cols %d/%d", scene_name[pairs[i][0]],
			       scene_name[pairs[i][2]], vg_motion_dir_name(r.dir), r.row_hits,
			       r.row_samples, r.col_hits, r.col_samples);
		g_assert_cmpint(r.dir, ==, VG_MOTION_NONE);
		/* Nothing changed: nothing to say. */
		vg_motion_estimate(m, b, NULL, 0, &r);
		g_assert_cmpint(r.dir, ==, VG_MOTION_NONE);
		g_assert_cmpint(r.row_samples + r.col_samples, ==, 0);
		vg_motion_free(m);
		vg_pixbuf_free(a);
		vg_pixbuf_free(b);
	}
}

/* A scroll inside a pane, the rest of the screen unchanged, reported
 * through the changed rectangle only. */
static void test_pane_scroll(void)
{
	vg_pixbuf *doc = vg_testscene_new(VG_SCENE_TEXT, 500, 900, 8);
	vg_pixbuf *scr = vg_testscene_new(VG_SCENE_HEATMAP, W, H, 9);
	vg_rect pane = vg_rect_make(200, 50, 500, 500);
	vg_pixbuf v;
	vg_motion *m;
	vg_motion_result r;

	v = vg_pixbuf_view(doc, vg_rect_make(0, 0, 500, 500));
	vg_pixbuf_copy(scr, pane.x, pane.y, &v);
	vg_motion_new(W, H, 0, 0, &m);
	vg_motion_estimate(m, scr, NULL, 0, &r);
	v = vg_pixbuf_view(doc, vg_rect_make(0, 77, 500, 500));
	vg_pixbuf_copy(scr, pane.x, pane.y, &v);
	vg_motion_estimate(m, scr, &pane, 1, &r);
	g_assert_cmpint(r.dir, ==, VG_MOTION_VERTICAL);
	g_assert_cmpint(r.offset, ==, -77);
	g_assert_cmpint(vg_motion_estimate(m, doc, NULL, 0, &r), ==, VG_EINVAL);
	vg_motion_free(m);
	vg_pixbuf_free(doc);
	vg_pixbuf_free(scr);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/motion/heatmap-vertical", test_heatmap_vertical);
	g_test_add_func("/motion/heatmap-horizontal", test_heatmap_horizontal);
	g_test_add_func("/motion/text-vertical", test_text_vertical);
	g_test_add_func("/motion/text-horizontal", test_text_horizontal);
	g_test_add_func("/motion/unrelated", test_unrelated);
	g_test_add_func("/motion/pane-scroll", test_pane_scroll);
	return g_test_run();
}
