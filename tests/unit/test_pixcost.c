/* The choice between the literal methods and the pixel model: by the
 * figures learnt and the link's rate, with trials of the other coding. */
#include <glib.h>

#include "fingerprint/proto/vg_pixcost.h"

/* Figures worked by hand: literal 40 ns and 0.09 bytes a pixel, model
 * 30 ns and 0.02; the literal decoding is assumed 10 ns a pixel. The
 * model saves 0.07 bytes a pixel for 2 x 30 - (40 + 10) = 10 ns more
 * coding: it pays below 0.07e9 / 10 = 7 MB/s. */
static void learn_both(vg_pixcost *pc)
{
	int i;

	/* Each update moves the figures a quarter of the way from the
	 * assumed ones: 200 leave nothing of them. */
	for (i = 0; i < 200; i++) {
		vg_pixcost_learn(pc, VG_PIXCOST_LITERAL, 1000000, 40000000, 90000);
		vg_pixcost_learn(pc, VG_PIXCOST_MODEL, 1000000, 30000000, 20000);
	}
}

static void test_choice(void)
{
	vg_pixcost pc;

	vg_pixcost_init(&pc);
	learn_both(&pc);
	g_assert_true(pc.measured[VG_PIXCOST_LITERAL] && pc.measured[VG_PIXCOST_MODEL]);
	g_assert_cmpfloat_with_epsilon(pc.ns_px[VG_PIXCOST_MODEL], 30.0, 1e-9);
	g_assert_cmpfloat_with_epsilon(pc.bytes_px[VG_PIXCOST_LITERAL], 0.09, 1e-12);
	/* Slow links: the model; fast ones: the literal methods. */
	g_assert_cmpint(vg_pixcost_cheaper(&pc, 200000, VG_PIXCOST_LITERAL), ==, VG_PIXCOST_MODEL);
	g_assert_cmpint(vg_pixcost_cheaper(&pc, 2130000, VG_PIXCOST_LITERAL), ==, VG_PIXCOST_MODEL);
	g_assert_cmpint(vg_pixcost_cheaper(&pc, 80000000, VG_PIXCOST_MODEL), ==, VG_PIXCOST_LITERAL);
	/* Unknown rate: the caller's choice. */
	g_assert_cmpint(vg_pixcost_cheaper(&pc, 0, VG_PIXCOST_MODEL), ==, VG_PIXCOST_MODEL);
	g_assert_cmpint(vg_pixcost_cheaper(&pc, 0, VG_PIXCOST_LITERAL), ==, VG_PIXCOST_LITERAL);
	g_assert_cmpint(vg_pixcost_choose(&pc, 1 << 20, 0, VG_PIXCOST_MODEL), ==, VG_PIXCOST_MODEL);
}

/* A figure learnt moves the average a quarter of the way; small updates
 * are not learnt from; the coding not used follows the other's change. */
static void test_learning(void)
{
	vg_pixcost pc;

	vg_pixcost_init(&pc);
	g_assert_false(pc.measured[VG_PIXCOST_MODEL]);
	vg_pixcost_learn(&pc, VG_PIXCOST_MODEL, 1000, 1000000, 1000);
	g_assert_false(pc.measured[VG_PIXCOST_MODEL]);
	learn_both(&pc);
	vg_pixcost_learn(&pc, VG_PIXCOST_MODEL, 1000000, 70000000, 20000);
	g_assert_cmpfloat_with_epsilon(pc.ns_px[VG_PIXCOST_MODEL], 40.0, 1e-9);
	/* The literal methods, not used since, are taken to cost 40 / 30 as
	 * much too (53.3 ns): the model takes 2 x 40 - (53.3 + 10) = 16.7 ns
	 * more and pays below 4.2 MB/s. */
	g_assert_cmpint(vg_pixcost_cheaper(&pc, 4300000, VG_PIXCOST_MODEL), ==, VG_PIXCOST_LITERAL);
	g_assert_cmpint(vg_pixcost_cheaper(&pc, 4100000, VG_PIXCOST_LITERAL), ==, VG_PIXCOST_MODEL);
}

/* New content: the model's bytes a pixel go up by half (0.02 to 0.03),
 * and so, taken, do the literal methods' (0.09 to 0.135): the model pays
 * below 10.5 MB/s (0.105 bytes saved for 10 ns), not only below 6. */
static void test_follows(void)
{
	vg_pixcost pc;

	vg_pixcost_init(&pc);
	learn_both(&pc);
	g_assert_cmpint(vg_pixcost_cheaper(&pc, 8000000, VG_PIXCOST_MODEL), ==, VG_PIXCOST_LITERAL);
	vg_pixcost_learn(&pc, VG_PIXCOST_MODEL, 1000000, 30000000, 60000);
	g_assert_cmpint(vg_pixcost_cheaper(&pc, 8000000, VG_PIXCOST_LITERAL), ==, VG_PIXCOST_MODEL);
	g_assert_cmpint(vg_pixcost_cheaper(&pc, 11000000, VG_PIXCOST_MODEL), ==, VG_PIXCOST_LITERAL);
	/* Learnt again, the literal methods start from 0.135. */
	vg_pixcost_learn(&pc, VG_PIXCOST_LITERAL, 1000000, 40000000, 135000);
	g_assert_cmpfloat_with_epsilon(pc.bytes_px[VG_PIXCOST_LITERAL], 0.135, 1e-9);
}

/* The other coding is tried after 16 large updates coded the same way,
 * then after 32, 64...; small updates do not count, a trial due waits for
 * an update of at most 65,536 pixels, and a flip starts over at 16. At
 * 3 MB/s: literal 40 + 30 + 10 = 80 ns a pixel, the model 2 x 30 + 6.7 =
 * 66.7, close enough to try. */
static void test_trials(void)
{
	vg_pixcost pc;
	int i, n, trial_at[3], trials = 0;

	vg_pixcost_init(&pc);
	learn_both(&pc);
	for (n = 1; n <= 1 + 16 + 32 + 64 && trials < 3; n++) {
		g_assert_cmpint(vg_pixcost_choose(&pc, 1000, 3000000, VG_PIXCOST_LITERAL), ==,
				VG_PIXCOST_MODEL);
		if (vg_pixcost_choose(&pc, 1 << 16, 3000000, VG_PIXCOST_LITERAL) == VG_PIXCOST_LITERAL)
			trial_at[trials++] = n;
	}
	g_assert_cmpint(trials, ==, 3);
	g_assert_cmpint(trial_at[0], ==, 1 + 16);
	g_assert_cmpint(trial_at[1], ==, 1 + 16 + 32);
	g_assert_cmpint(trial_at[2], ==, 1 + 16 + 32 + 64);
	/* The link gets fast (literal 51.1 ns, model 60.25): the literal
	 * methods at once, the model due after 16 large updates again, and
	 * tried on the first that is small enough. */
	for (i = 0; i <= 20; i++)
		g_assert_cmpint(vg_pixcost_choose(&pc, 1 << 20, 80000000, VG_PIXCOST_LITERAL), ==,
				VG_PIXCOST_LITERAL);
	g_assert_cmpint(vg_pixcost_choose(&pc, 1 << 16, 80000000, VG_PIXCOST_LITERAL), ==,
			VG_PIXCOST_MODEL);
	g_assert_cmpint(vg_pixcost_choose(&pc, 1 << 16, 80000000, VG_PIXCOST_LITERAL), ==,
			VG_PIXCOST_LITERAL);
}

/* A coding far behind is never tried: at 200 kB/s the literal methods
 * take 500 ns a pixel, the model 160. */
static void test_no_far_trials(void)
{
	vg_pixcost pc;
	int n;

	vg_pixcost_init(&pc);
	learn_both(&pc);
	for (n = 0; n < 2000; n++)
		g_assert_cmpint(vg_pixcost_choose(&pc, 1 << 20, 200000, VG_PIXCOST_LITERAL), ==,
				VG_PIXCOST_MODEL);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/pixcost/choice", test_choice);
	g_test_add_func("/pixcost/learning", test_learning);
	g_test_add_func("/pixcost/follows", test_follows);
	g_test_add_func("/pixcost/trials", test_trials);
	g_test_add_func("/pixcost/no-far-trials", test_no_far_trials);
	return g_test_run();
}
