/*
 * test_stats — the comparison statistics against values computed
 * independently: Student's t table quantiles, closed forms of the
 * incomplete beta function, and the two worked examples of Welch's t-test
 * on Wikipedia ("Welch's t-test", Examples), whose t, df and p agree with
 * R's t.test(x, y) (var.equal = FALSE).
 */
#include "stats.h"
#include "test.h"

#include <math.h>

static const double a1[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
			     21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
static const double a2[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
			     24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };
static const double b1[] = { 17.2, 20.9, 22.6, 18.1, 21.7,
			     21.4, 23.5, 24.2, 14.7, 21.8 };
static const double b2[] = { 21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5,
			     20.7, 23.4, 21.8, 20.7, 21.7, 21.5, 22.5,
			     23.6, 21.5, 22.5, 23.5, 21.5, 21.8 };

static void test_betai_closed_forms(void)
{
	/* I_x(1, 1) = x; I_x(a, 1) = x^a; I_x(1, b) = 1 − (1 − x)^b;
	 * I_0.5(a, a) = 0.5 */
	for (double x = 0.05; x < 1; x += 0.1) {
		ASSERT_NEAR_REL(stats_betai(1, 1, x), x, 1e-12);
		ASSERT_NEAR_REL(stats_betai(3.5, 1, x), pow(x, 3.5), 1e-10);
		ASSERT_NEAR_REL(stats_betai(1, 2.5, x), 1 - pow(1 - x, 2.5),
				1e-10);
	}
	for (double a = 0.5; a < 40; a *= 2)
		ASSERT_NEAR_REL(stats_betai(a, a, 0.5), 0.5, 1e-10);
	ASSERT_TRUE(stats_betai(2, 3, 0) == 0 && stats_betai(2, 3, 1) == 1);
}

static void test_t_table(void)
{
	/* two-sided 5 % and 1 % critical values of Student's t */
	ASSERT_NEAR_REL(stats_t_two_sided(12.706, 1), 0.05, 1e-3);
	ASSERT_NEAR_REL(stats_t_two_sided(2.228, 10), 0.05, 1e-3);
	ASSERT_NEAR_REL(stats_t_two_sided(-2.228, 10), 0.05, 1e-3);
	ASSERT_NEAR_REL(stats_t_two_sided(2.042, 30), 0.05, 1e-3);
	ASSERT_NEAR_REL(stats_t_two_sided(3.169, 10), 0.01, 1e-3);
	ASSERT_NEAR_REL(stats_t_two_sided(0, 7), 1.0, 1e-12);
	/* df = 1 is the Cauchy distribution: p = 1 − 2 atan(t) / π */
	ASSERT_NEAR_REL(stats_t_two_sided(3, 1), 1 - 2 * atan(3) / M_PI, 1e-10);
}

static void test_summary(void)
{
	struct stats_summary s;
	const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };

	stats_summarize(v, 8, &s);
	ASSERT_EQ(s.n, 8);
	ASSERT_NEAR_REL(s.mean, 5, 1e-12);
	ASSERT_NEAR_REL(s.sd, sqrt(32.0 / 7), 1e-12);
	stats_summarize(v, 1, &s);
	ASSERT_TRUE(s.n == 1 && s.mean == 2 && s.sd == 0);
}

static void test_welch_examples(void)
{
	struct stats_summary x, y;
	double t, df, p;

	stats_summarize(a1, 15, &x);
	stats_summarize(a2, 15, &y);
	ASSERT_EQ(stats_welch(&x, &y, &t, &df, &p), 0);
	ASSERT_NEAR_REL(t, -2.4553, 1e-3);
	ASSERT_NEAR_REL(df, 24.988, 1e-3);
	ASSERT_NEAR_REL(p, 0.02135, 5e-3);

	stats_summarize(b1, 10, &x);
	stats_summarize(b2, 20, &y);
	ASSERT_EQ(stats_welch(&x, &y, &t, &df, &p), 0);
	ASSERT_NEAR_REL(t, -1.5650, 1e-3);
	ASSERT_NEAR_REL(df, 9.9049, 1e-3);
	ASSERT_NEAR_REL(p, 0.1489, 5e-3);
	/* symmetric */
	ASSERT_EQ(stats_welch(&y, &x, &t, &df, &p), 0);
	ASSERT_NEAR_REL(t, 1.5650, 1e-3);
}

static void test_welch_edges(void)
{
	struct stats_summary x = { .n = 3, .mean = 10, .sd = 0 };
	struct stats_summary y = { .n = 3, .mean = 10, .sd = 0 };
	double t, df, p;

	ASSERT_EQ(stats_welch(&x, &y, &t, &df, &p), 0);
	ASSERT_TRUE(p == 1 && t == 0);
	y.mean = 11;
	ASSERT_EQ(stats_welch(&x, &y, &t, &df, &p), 0);
	ASSERT_TRUE(p == 0 && isinf(t) && t < 0);
	y.n = 1;
	ASSERT_EQ(stats_welch(&x, &y, &t, &df, &p), -1);
}

TEST_MAIN(test_betai_closed_forms, test_t_table, test_summary,
	  test_welch_examples, test_welch_edges)
