/*
 * test_stats — the comparison statistics against values computed
 * independently: Student's t table quantiles, closed forms of the
 * incomplete beta function, and the two worked examples of Welch's t-test
 * on Wikipedia ("Welch's t-test", Examples), whose t, df and p agree with
 * R's t.test(x, y) (var.equal = FALSE). Then the run-level tests on
 * synthetic run sets whose right answer is known: runs drawn from one
 * distribution (an A/A comparison) must be called significant about 5 % of
 * the time, a true shift found most of the time — and the old test, which
 * took one run's iterations as independent samples, is shown to call
 * about half of the A/A comparisons significant.
 */
#include "compare/stats.h"
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

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

static void test_t_quantile(void)
{
	/* Student's t table, two-sided 5 % */
	ASSERT_NEAR_REL(stats_t_quantile(0.05, 1), 12.706, 1e-3);
	ASSERT_NEAR_REL(stats_t_quantile(0.05, 4), 2.776, 1e-3);
	ASSERT_NEAR_REL(stats_t_quantile(0.05, 30), 2.042, 1e-3);
	ASSERT_NEAR_REL(stats_t_quantile(0.01, 10), 3.169, 1e-3);
	ASSERT_NEAR_REL(stats_t_quantile(0.05, 1e6), 1.960, 1e-3);
}

static void test_paired_example(void)
{
	/* differences 1 2 1 2 1: mean 1.4, sd sqrt(0.3), t = 5.715, df 4,
	 * p = 0.00462 (R: t.test(b, a, paired = TRUE)) */
	const double a[] = { 10, 12, 9, 11, 13 };
	const double b[] = { 11, 14, 10, 13, 14 };
	struct stats_test st;

	ASSERT_EQ(stats_paired(a, b, 5, &st), 0);
	ASSERT_NEAR_REL(st.delta, 1.4, 1e-12);
	ASSERT_NEAR_REL(st.se, sqrt(0.3 / 5), 1e-12);
	ASSERT_NEAR_REL(st.t, 5.7155, 1e-4);
	ASSERT_TRUE(st.df == 4);
	ASSERT_NEAR_REL(st.p, 0.004617, 5e-3);
	ASSERT_NEAR_REL(st.half, 2.7764 * sqrt(0.3 / 5), 1e-3);
	/* the interval excludes 0 exactly when p < 0.05 */
	ASSERT_TRUE(st.delta - st.half > 0);
	ASSERT_EQ(stats_paired(a, b, 1, &st), -1);
}

static void test_noise_test(void)
{
	/* one run a side, 10 % apart, against a 5 % run-to-run sd with 10 df:
	 * se = 0.05 × 100 × sqrt(2) = 7.07, t = 1.414 — not significant */
	struct stats_summary a = { .n = 1, .mean = 100 },
			     b = { .n = 1, .mean = 110 };
	struct stats_test st;

	ASSERT_EQ(stats_noise_test(&a, &b, 0.05, 10, &st), 0);
	ASSERT_NEAR_REL(st.se, 5 * sqrt(2), 1e-12);
	ASSERT_NEAR_REL(st.t, 10 / (5 * sqrt(2)), 1e-12);
	ASSERT_TRUE(st.p > 0.05 && st.half > 10);
	b.mean = 130; /* 30 %: well outside */
	ASSERT_EQ(stats_noise_test(&a, &b, 0.05, 10, &st), 0);
	ASSERT_TRUE(st.p < 0.01 && st.half < 30);
	ASSERT_EQ(stats_noise_test(&a, &b, 0.05, 0, &st), -1);
}

/* --- synthetic run sets --- */

#define TEST_RANDOM_SEED 0x9E3779B97F4A7C15ULL
#include "test_random.h"

#define TRIALS 4000
#define RUN_SD 0.05  /* a run's figure: ±5 % (file placement, device state) */
#define ITER_SD 0.01 /* an iteration inside a run: ±1 % */

/* A run of `its` iterations with true mean mu: its iterations into v. */
static void one_run(double mu, int its, double *v)
{
	double run = mu * (1 + RUN_SD * normal());

	for (int i = 0; i < its; i++)
		v[i] = run * (1 + ITER_SD * normal());
}

/* The share of TRIALS comparisons of `runs` runs a side (3 iterations
 * each; b shifted by shift) that Welch's test over the runs' figures calls
 * significant. */
static double welch_over_runs(int runs, double shift)
{
	int hits = 0;

	for (int t = 0; t < TRIALS; t++) {
		double fa[16], fb[16], it[3];
		struct stats_summary a, b;
		struct stats_test st;
		for (int r = 0; r < runs; r++) {
			one_run(1000, 3, it);
			fa[r] = (it[0] + it[1] + it[2]) / 3;
			one_run(1000 * (1 + shift), 3, it);
			fb[r] = (it[0] + it[1] + it[2]) / 3;
		}
		stats_summarize(fa, runs, &a);
		stats_summarize(fb, runs, &b);
		if (stats_welch_test(&a, &b, &st) == 0 && st.p < 0.05)
			hits++;
	}
	return (double)hits / TRIALS;
}

static void test_runs_aa_and_shift(void)
{
	double fp = welch_over_runs(3, 0), power = welch_over_runs(5, 0.15);

	printf("  Welch over runs: A/A significant %.1f %% (3 runs a side); "
	       "15 %% shift found %.1f %% (5 runs a side)\n",
	       fp * 100, power * 100);
	/* 4000 trials: the binomial sd of a 5 % rate is 0.34 %; Welch's
	 * degrees of freedom make it a little conservative at 3 + 3 (about
	 * 3.5 %), never liberal */
	ASSERT_TRUE(fp > 0.02 && fp < 0.065);
	ASSERT_TRUE(power > 0.9);
}

static void test_iterations_as_samples_is_wrong(void)
{
	/* the old test: one run a side, its 3 iterations as the sample */
	int hits = 0;

	for (int t = 0; t < TRIALS; t++) {
		double a[3], b[3];
		struct stats_summary x, y;
		struct stats_test st;
		one_run(1000, 3, a);
		one_run(1000, 3, b);
		stats_summarize(a, 3, &x);
		stats_summarize(b, 3, &y);
		if (stats_welch_test(&x, &y, &st) == 0 && st.p < 0.05)
			hits++;
	}
	printf("  Welch over one run's iterations: A/A significant %.1f %%\n",
	       100.0 * hits / TRIALS);
	ASSERT_TRUE((double)hits / TRIALS > 0.3);
}

/* The share of TRIALS interleaved jobs of `rounds` rounds (host drift of
 * ±10 % per round hitting both sides, ±3 % each side's own) that the
 * paired test calls significant; b shifted by shift. */
static double paired_rounds(int rounds, double shift)
{
	int hits = 0;

	for (int t = 0; t < TRIALS; t++) {
		double a[16], b[16];
		struct stats_test st;
		for (int r = 0; r < rounds; r++) {
			double drift = 1 + 0.10 * normal();
			a[r] = 1000 * drift * (1 + 0.03 * normal());
			b[r] = 1000 * (1 + shift) * drift *
			       (1 + 0.03 * normal());
		}
		if (stats_paired(a, b, rounds, &st) == 0 && st.p < 0.05)
			hits++;
	}
	return (double)hits / TRIALS;
}

static void test_paired_aa_and_shift(void)
{
	double fp = paired_rounds(5, 0), power = paired_rounds(5, 0.10);

	printf("  paired over 5 rounds: A/A significant %.1f %%; 10 %% shift "
	       "found %.1f %%\n",
	       fp * 100, power * 100);
	ASSERT_TRUE(fp > 0.035 && fp < 0.065);
	ASSERT_TRUE(power > 0.8);
}

static void test_noise_aa(void)
{
	/* a series of 6 runs gives the noise; then single runs are compared */
	int hits = 0;

	for (int t = 0; t < TRIALS; t++) {
		double fig[6], it[3], ss = 0, mean = 0;
		struct stats_summary a, b;
		struct stats_test st;
		for (int r = 0; r < 6; r++) {
			one_run(1000, 3, it);
			fig[r] = (it[0] + it[1] + it[2]) / 3;
			mean += fig[r] / 6;
		}
		for (int r = 0; r < 6; r++)
			ss += (fig[r] / mean - 1) * (fig[r] / mean - 1);
		one_run(1000, 3, it);
		a = (struct stats_summary){ 1, (it[0] + it[1] + it[2]) / 3, 0 };
		one_run(1000, 3, it);
		b = (struct stats_summary){ 1, (it[0] + it[1] + it[2]) / 3, 0 };
		if (stats_noise_test(&a, &b, sqrt(ss / 5), 5, &st) == 0 &&
		    st.p < 0.05)
			hits++;
	}
	printf("  one run a side against 6 runs' noise: A/A significant "
	       "%.1f %%\n",
	       100.0 * hits / TRIALS);
	ASSERT_TRUE((double)hits / TRIALS > 0.03 &&
		    (double)hits / TRIALS < 0.07);
}

TEST_MAIN(test_betai_closed_forms, test_t_table, test_summary,
	  test_welch_examples, test_welch_edges, test_t_quantile,
	  test_paired_example, test_noise_test, test_runs_aa_and_shift,
	  test_iterations_as_samples_is_wrong, test_paired_aa_and_shift,
	  test_noise_aa)
