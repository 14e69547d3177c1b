/*
 * histogram — see histogram.h for the layout and the error bound.
 *
 * Index of v ≥ 2·SUB: e = msb(v) − SUB_BITS (the shift that leaves v with
 * SUB_BITS+1 significant bits), sub = v >> e in [SUB, 2·SUB), and
 * index = 2·SUB + (e − 1)·SUB + (sub − SUB). Below 2·SUB, index = v.
 */
#include "histogram.h"

#include <math.h>
#include <string.h>

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

unsigned hist_index(uint64_t ns)
{
	unsigned msb, e;

	if (ns < 2 * HIST_SUB)
		return (unsigned)ns;
	if (ns >= (1ULL << HIST_MAX_BITS))
		return HIST_BUCKETS - 1;
	msb = 63U - (unsigned)__builtin_clzll(ns);
	e = msb - HIST_SUB_BITS;
	return 2 * HIST_SUB + (e - 1) * HIST_SUB +
	       (unsigned)((ns >> e) - HIST_SUB);
}

void hist_bucket_range(unsigned index, uint64_t *lo, uint64_t *hi)
{
	unsigned e, sub;

	if (index < 2 * HIST_SUB) {
		*lo = index;
		*hi = (uint64_t)index + 1;
		return;
	}
	e = (index - 2 * HIST_SUB) / HIST_SUB + 1;
	sub = (index - 2 * HIST_SUB) % HIST_SUB + HIST_SUB;
	*lo = (uint64_t)sub << e;
	*hi = (uint64_t)(sub + 1) << e;
}

void hist_merge(struct hist *a, const struct hist *b)
{
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		a->buckets[i] += b->buckets[i];
	a->count += b->count;
	a->sum_ns += b->sum_ns;
	a->sum_sq_ns += b->sum_sq_ns;
	if (b->min_ns < a->min_ns)
		a->min_ns = b->min_ns;
	if (b->max_ns > a->max_ns)
		a->max_ns = b->max_ns;
}

double hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0, lo, hi;
	double mid;

	if (h->count == 0)
		return 0.0;
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen < rank)
			continue;
		hist_bucket_range(i, &lo, &hi);
		mid = hi - lo == 1 ? (double)lo : ((double)lo + (double)hi) / 2;
		if (mid < (double)h->min_ns)
			mid = (double)h->min_ns;
		if (mid > (double)h->max_ns)
			mid = (double)h->max_ns;
		return mid;
	}
	return (double)h->max_ns;
}

void hist_summary(const struct hist *h, struct lat_summary *s)
{
	s->mean = hist_mean(h) / 1e3;
	s->stdev = hist_stdev(h) / 1e3;
	s->min = h->count ? (double)h->min_ns / 1e3 : 0.0;
	s->max = (double)h->max_ns / 1e3;
	s->p50 = hist_percentile(h, 50) / 1e3;
	s->p90 = hist_percentile(h, 90) / 1e3;
	s->p99 = hist_percentile(h, 99) / 1e3;
	s->p999 = hist_percentile(h, 99.9) / 1e3;
	s->p9999 = hist_percentile(h, 99.99) / 1e3;
}

double hist_mean(const struct hist *h)
{
	return h->count ? h->sum_ns / (double)h->count : 0.0;
}

double hist_stdev(const struct hist *h)
{
	double m, v;

	if (h->count == 0)
		return 0.0;
	m = hist_mean(h);
	v = h->sum_sq_ns / (double)h->count - m * m;
	return v > 0 ? sqrt(v) : 0.0;
}
