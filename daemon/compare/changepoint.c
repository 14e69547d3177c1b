/*
 * changepoint — see changepoint.h.
 */
#include "changepoint.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: a small, well-mixed stream from a fixed seed (reproducible
 * orderings; their quality matters far less than being the same). */
static uint64_t next_u64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The weights of a segment of m values, made once for its permutations:
 * 1/k, 1/(m − k) and sqrt(k (m − k) / m) of each split k. */
struct weights {
	double *inv_left, *inv_right, *scale;
};

static void weigh(struct weights *w, size_t m)
{
	for (size_t k = CP_MIN_SEGMENT; k + CP_MIN_SEGMENT <= m; k++) {
		w->inv_left[k] = 1.0 / (double)k;
		w->inv_right[k] = 1.0 / (double)(m - k);
		w->scale[k] = sqrt((double)k * (double)(m - k) / (double)m);
	}
}

/* The largest T(k) of y[0..m) (changepoint.h) whose values sum to total,
 * its split into *at. */
static double max_stat(const double *y, size_t m, double total,
		       const struct weights *w, size_t *at)
{
	double left = 0, best = -1;
	size_t k;

	for (k = 0; k + 1 < CP_MIN_SEGMENT; k++)
		left += y[k];
	for (k = CP_MIN_SEGMENT; k + CP_MIN_SEGMENT <= m; k++) {
		double t;
		left += y[k - 1];
		t = fabs(left * w->inv_left[k] -
			 (total - left) * w->inv_right[k]) *
		    w->scale[k];
		if (t > best) {
			best = t;
			*at = k;
		}
	}
	return best;
}

/* A uniform index below n from the stream (Lemire's multiply-shift: no
 * division; its bias, under n / 2^64, is nothing next to 999 orderings). */
static size_t below(uint64_t *seed, size_t n)
{
	return (size_t)(((unsigned __int128)next_u64(seed) * n) >> 64);
}

/* The permutation test's p of y[0..m)'s largest statistic t (work: m
 * values of scratch). Stops counting once p cannot fall under CP_ALPHA. */
static double permutation_p(const double *y, size_t m, double total,
			    const struct weights *w, double t, double *work,
			    uint64_t seed)
{
	/* an ordering whose statistic is within rounding of t counts as
	 * extreme: equal values must not make a split look significant */
	const double tie = t * (1 - 1e-12);
	const int stop = (int)ceil(CP_ALPHA * (CP_PERMUTATIONS + 1));
	int extreme = 0, b;
	size_t at;

	memcpy(work, y, m * sizeof(*work));
	for (b = 0; b < CP_PERMUTATIONS && extreme < stop; b++) {
		for (size_t i = m - 1; i > 0; i--) { /* Fisher–Yates */
			size_t j = below(&seed, i + 1);
			double v = work[i];
			work[i] = work[j];
			work[j] = v;
		}
		extreme += max_stat(work, m, total, w, &at) >= tie;
	}
	if (extreme >= stop)
		return 1.0 * (1 + extreme) / (b + 1); /* ≥ CP_ALPHA: not kept */
	return (1.0 + extreme) / (CP_PERMUTATIONS + 1);
}

static int by_at(const void *a, const void *b)
{
	size_t x = ((const struct cp_point *)a)->at,
	       y = ((const struct cp_point *)b)->at;

	return (x > y) - (x < y);
}

int cp_find(const double *x, size_t n, struct cp_point *out, size_t max)
{
	/* segments still to search, as [lo, hi) pairs; each split adds two */
	size_t *todo = malloc(2 * (n + 1) * sizeof(*todo)), top = 0, found = 0;
	struct cp_point *all = calloc(n + 1, sizeof(*all));
	double *work = malloc(4 * (n + 1) * sizeof(*work));
	struct weights w = { 0 };
	size_t i, lo, hi, at = 0;

	if (!todo || !all || !work) {
		free(todo);
		free(all);
		free(work);
		return -ENOMEM;
	}
	w.inv_left = work + (n + 1);
	w.inv_right = work + 2 * (n + 1);
	w.scale = work + 3 * (n + 1);
	todo[top++] = 0;
	todo[top++] = n;
	while (top > 0) {
		double t, p, total = 0;
		hi = todo[--top];
		lo = todo[--top];
		if (hi - lo < 2 * CP_MIN_SEGMENT)
			continue;
		for (i = lo; i < hi; i++)
			total += x[i];
		weigh(&w, hi - lo);
		t = max_stat(x + lo, hi - lo, total, &w, &at);
		if (!(t > 0))
			continue; /* a flat segment */
		p = permutation_p(x + lo, hi - lo, total, &w, t, work,
				  0x5eed0000ULL ^ ((uint64_t)lo << 32) ^ hi);
		if (p >= CP_ALPHA)
			continue;
		all[found++] = (struct cp_point){ .at = lo + at, .p = p };
		todo[top++] = lo;
		todo[top++] = lo + at;
		todo[top++] = lo + at;
		todo[top++] = hi;
	}
	qsort(all, found, sizeof(*all), by_at);
	for (i = 0; i < found; i++) {
		struct cp_point *c = &all[i];
		c->lo = i > 0 ? all[i - 1].at : 0;
		c->hi = i + 1 < found ? all[i + 1].at : n;
		stats_summarize(x + c->lo, (int)(c->at - c->lo), &c->before);
		stats_summarize(x + c->at, (int)(c->hi - c->at), &c->after);
		if (stats_welch_test(&c->before, &c->after, &c->shift) < 0)
			memset(&c->shift, 0, sizeof(c->shift));
		if (i < max)
			out[i] = *c;
	}
	free(todo);
	free(all);
	free(work);
	return (int)(found < max ? found : max);
}
