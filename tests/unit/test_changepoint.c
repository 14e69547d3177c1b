/*
 * test_changepoint — the change-point search (compare/changepoint.h) on
 * generated series whose answer is known: a planted step of 15 % in 3 %
 * run-to-run noise is found at its run with an interval that holds it; a
 * series without a step, normal or with outliers, gives a change point in
 * at most 5 % of series (the method's rate is CP_ALPHA, 1 %); two steps
 * are both found; too short or flat series give none.
 */
#include "compare/changepoint.h"
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#define TEST_RANDOM_SEED 0x2545f4914f6cdd1dULL
#include "test_random.h"

#define NOISE 0.03 /* a run's figure: ±3 % */

/* n runs of level 1000, × (1 + step) from run at on (at ≥ n: no step). */
static void series(double *x, size_t n, size_t at, double step)
{
	for (size_t i = 0; i < n; i++)
		x[i] = 1000 * (i >= at ? 1 + step : 1) * (1 + NOISE * normal());
}

static void test_planted_step(void)
{
	enum { TRIALS = 200, N = 60, AT = 35 };
	double x[N];
	struct cp_point cp[8];
	int found = 0, exact = 0, one = 0, covered = 0;

	for (int t = 0; t < TRIALS; t++) {
		int k;
		series(x, N, AT, 0.15);
		k = cp_find(x, N, cp, 8);
		ASSERT_TRUE(k >= 0);
		for (int j = 0; j < k; j++) {
			double lo = 100 *
				    (cp[j].shift.delta - cp[j].shift.half) /
				    cp[j].before.mean,
			       hi = 100 *
				    (cp[j].shift.delta + cp[j].shift.half) /
				    cp[j].before.mean;
			if (cp[j].at + 2 < AT || cp[j].at > AT + 2)
				continue;
			found++;
			exact += cp[j].at == AT;
			covered += lo <= 15 && 15 <= hi;
			ASSERT_TRUE(cp[j].p < CP_ALPHA);
			break;
		}
		one += k == 1;
	}
	printf("  15 %% step in 3 %% noise, %d series of %d runs: found %d, at "
	       "its run %d, alone %d, interval holds 15 %% %d\n",
	       TRIALS, N, found, exact, one, covered);
	ASSERT_TRUE(found >= TRIALS * 99 / 100);
	ASSERT_TRUE(exact >= TRIALS * 95 / 100);
	ASSERT_TRUE(one >= TRIALS * 95 / 100);
	ASSERT_TRUE(covered >= TRIALS * 88 / 100); /* a 95 % interval */
}

/* The share of series without a step in which a change point is found:
 * normal noise, or normal noise with a 30 % slow run one time in ten. */
static double false_rate(size_t n, int outliers)
{
	enum { TRIALS = 1000 };
	double x[200];
	struct cp_point cp[8];
	int any = 0;

	for (int t = 0; t < TRIALS; t++) {
		series(x, n, n, 0);
		for (size_t i = 0; outliers && i < n; i++)
			if (uniform() < 0.1)
				x[i] *= 0.7;
		any += cp_find(x, n, cp, 8) > 0;
	}
	return (double)any / TRIALS;
}

static void test_no_step(void)
{
	static const size_t lens[] = { 8, 40, 200 };

	for (size_t i = 0; i < 3; i++)
		for (int o = 0; o < 2; o++) {
			double r = false_rate(lens[i], o);
			printf("  no step, %zu runs%s: a change point in "
			       "%.1f %% of series\n",
			       lens[i], o ? ", slow outliers" : "", 100 * r);
			ASSERT_TRUE(r <= 0.05);
		}
}

static void test_two_steps(void)
{
	double x[90];
	struct cp_point cp[8];
	int k;

	for (size_t i = 0; i < 90; i++)
		x[i] = 1000 *
		       (i < 30	 ? 1
			: i < 60 ? 0.8
				 : 1.1) *
		       (1 + NOISE * normal());
	k = cp_find(x, 90, cp, 8);
	ASSERT_EQ(k, 2);
	ASSERT_TRUE(cp[0].at >= 29 && cp[0].at <= 31);
	ASSERT_TRUE(cp[1].at >= 59 && cp[1].at <= 61);
	/* each shift is measured between its neighbours, not the whole */
	ASSERT_EQ(cp[0].lo, 0);
	ASSERT_EQ(cp[0].hi, cp[1].at);
	ASSERT_EQ(cp[1].lo, cp[0].at);
	ASSERT_EQ(cp[1].hi, 90);
	ASSERT_NEAR_REL(cp[0].shift.delta / cp[0].before.mean, -0.2, 0.1);
	ASSERT_NEAR_REL(cp[1].shift.delta / cp[1].before.mean, 0.375, 0.1);
}

static void test_edges(void)
{
	double x[10] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	double jump[3] = { 1, 1, 100 };
	struct cp_point cp[4];

	ASSERT_EQ(cp_find(x, 10, cp, 4), 0);   /* flat */
	ASSERT_EQ(cp_find(jump, 3, cp, 4), 0); /* too short to tell */
	ASSERT_EQ(cp_find(x, 0, cp, 4), 0);    /* empty */
	/* 4 runs: the smallest permutation p is 1 / 3 orderings' worth */
	x[2] = x[3] = 2;
	ASSERT_EQ(cp_find(x, 4, cp, 4), 0);
}

TEST_MAIN(test_planted_step, test_no_step, test_two_steps, test_edges)
