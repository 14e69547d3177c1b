/*
 * test_steady — the SNIA PTS steady-state arithmetic (daemon/jobs/steady.c)
 * against values worked out by hand, and the steady_state descriptors'
 * defaults (the PTS's).
 */
#include "jobs/steady.h"
#include "test.h"

#include <math.h>

static struct wl_steady pts(void)
{
	struct wl_steady s;

	steady_defaults(&s);
	return s;
}

static void test_defaults_are_the_pts(void)
{
	struct wl_steady s = pts();

	ASSERT_EQ(s.on, 1);
	ASSERT_EQ(s.metric, STEADY_IOPS);
	ASSERT_NEAR_REL(s.round_s, 60, 1e-12);
	ASSERT_EQ(s.window, 5);
	ASSERT_EQ(s.max_rounds, 25);
	ASSERT_NEAR_REL(s.range_pct, 20, 1e-12);
	ASSERT_NEAR_REL(s.slope_pct, 10, 1e-12);
}

/* y = 100, 110, 90, 105, 95: mean 100, range 20 (20 %); x − x̄ = −2 … 2,
 * Σ(x − x̄)(y − ȳ) = −2·0 −1·10 + 0 + 1·5 + 2·(−5) = −15, Σ(x − x̄)² = 10,
 * slope −1.5 per round, excursion 1.5 × 4 = 6 (6 %). */
static void test_window_by_hand(void)
{
	const double y[] = { 100, 110, 90, 105, 95 };
	struct wl_steady s = pts();
	struct steady_window w;

	ASSERT_EQ(steady_judge(y, 1, 5, &s, &w), 1);
	ASSERT_NEAR_REL(w.mean, 100, 1e-12);
	ASSERT_NEAR_REL(w.min, 90, 1e-12);
	ASSERT_NEAR_REL(w.max, 110, 1e-12);
	ASSERT_NEAR_REL(w.range, 20, 1e-12);
	ASSERT_NEAR_REL(w.range_pct, 20, 1e-12);
	ASSERT_NEAR_REL(w.slope, -1.5, 1e-12);
	ASSERT_NEAR_REL(w.excursion, 6, 1e-12);
	ASSERT_NEAR_REL(w.excursion_pct, 6, 1e-12);
	ASSERT_EQ(w.range_ok, 1);
	ASSERT_EQ(w.slope_ok, 1);
	/* a limit just under the figure fails it */
	s.range_pct = 19.9;
	ASSERT_EQ(steady_judge(y, 1, 5, &s, &w), 0);
	ASSERT_EQ(w.range_ok, 0);
	ASSERT_EQ(w.slope_ok, 1);
	s.range_pct = 20;
	s.slope_pct = 5.9;
	ASSERT_EQ(steady_judge(y, 1, 5, &s, &w), 0);
	ASSERT_EQ(w.slope_ok, 0);
}

/* A rising line 10, 20, 30, 40, 50: mean 30, range 40 (133 %), slope 10,
 * excursion 40 (133 %); not steady. The series' later flat rounds are. */
static void test_series_settles(void)
{
	const double y[] = { 10, 20, 30, 40, 50, 50, 50, 50, 50, 51 };
	struct wl_steady s = pts();
	struct steady_window w;

	ASSERT_EQ(steady_check(y, 5, &s, &w), 0);
	ASSERT_EQ(w.first, 1);
	ASSERT_EQ(w.last, 5);
	ASSERT_NEAR_REL(w.slope, 10, 1e-12);
	ASSERT_NEAR_REL(w.range_pct, 400.0 / 3, 1e-12);
	ASSERT_NEAR_REL(w.excursion_pct, 400.0 / 3, 1e-12);
	/* fewer rounds than the window: never steady */
	ASSERT_EQ(steady_check(y + 5, 4, &s, &w), 0);
	/* rounds 6 … 10: 50, 50, 50, 50, 51: mean 50.2, range 1, slope:
	 * Σ(x − x̄)(y − ȳ) = 2 × 0.8 + (−0.2) × (−2 −1 +0 +1) = 2.0, / 10 =
	 * 0.2 per round, excursion 0.8 */
	ASSERT_EQ(steady_check(y, 10, &s, &w), 1);
	ASSERT_EQ(w.first, 6);
	ASSERT_EQ(w.last, 10);
	ASSERT_NEAR_REL(w.mean, 50.2, 1e-12);
	ASSERT_NEAR_REL(w.slope, 0.2, 1e-12);
	ASSERT_NEAR_REL(w.excursion, 0.8, 1e-12);
	ASSERT_NEAR_REL(steady_mean(y, 6, 10), 50.2, 1e-12);
}

/* Limits of 0: only a flat, constant window passes; a zero mean never. */
static void test_zero_limits_and_zero_mean(void)
{
	const double flat[] = { 7, 7, 7 }, zero[] = { 0, 0, 0 },
		     near[] = { 7, 7, 7.001 };
	struct wl_steady s = pts();
	struct steady_window w;

	s.window = 3;
	s.range_pct = 0;
	s.slope_pct = 0;
	ASSERT_EQ(steady_check(flat, 3, &s, &w), 1);
	ASSERT_EQ(steady_check(near, 3, &s, &w), 0);
	ASSERT_EQ(steady_check(zero, 3, &s, &w), 0);
	ASSERT_TRUE(isnan(w.range_pct));
}

static void test_record_words(void)
{
	const double y[] = { 100, 131, 100, 131, 100 };
	struct wl_steady s = pts();
	struct steady_window w;
	double res[3] = { 1, 2, 3 };
	char buf[400];
	json_t *o;

	ASSERT_EQ(steady_check(y, 5, &s, &w), 0);
	steady_words(&s, &w, 25, buf, sizeof(buf));
	ASSERT_TRUE(strstr(buf, "not steady after 25 rounds") != NULL);
	ASSERT_TRUE(strstr(buf, "(limit 20 %)") != NULL);
	o = steady_record_json(&s, &w, 25, 0, res);
	ASSERT_TRUE(json_is_false(json_object_get(o, "reached")));
	ASSERT_TRUE(json_is_null(json_object_get(o, "reached_round")));
	ASSERT_EQ(json_integer_value(json_object_get(
			  json_object_get(o, "measurement"), "first")),
		  1);
	json_decref(o);
}

TEST_MAIN(test_defaults_are_the_pts, test_window_by_hand, test_series_settles,
	  test_zero_limits_and_zero_mean, test_record_words)
