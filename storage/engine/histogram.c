/*
 * histogram — see histogram.h for the layout and the error bound.
 *
 * Index of v ≥ 2·SUB: e = msb(v) − SUB_BITS (the shift that leaves v with
 * SUB_BITS+1 significant bits), sub = v >> e in [SUB, 2·SUB), and
 * index = 2·SUB + (e − 1)·SUB + (sub − SUB). Below 2·SUB, index = v.
 */
#include "histogram.h"

#include <errno.h>

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

/* --- storage form (see histogram.h) --- */

#define HIST_FORMAT 1U
#define HIST_HEADER (4 + 8 * 5)
#define HIST_PAIR (2 + 8)

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static uint64_t dbits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static double bitsd(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

size_t hist_encode(const struct hist *h, void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t need = HIST_HEADER;

	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		need += h->buckets[i] ? HIST_PAIR : 0;
	if (len < need)
		return need;
	put_le(p, HIST_FORMAT, 4);
	put_le(p + 4, h->count, 8);
	put_le(p + 12, h->min_ns, 8);
	put_le(p + 20, h->max_ns, 8);
	put_le(p + 28, dbits(h->sum_ns), 8);
	put_le(p + 36, dbits(h->sum_sq_ns), 8);
	p += HIST_HEADER;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		put_le(p, i, 2);
		put_le(p + 2, h->buckets[i], 8);
		p += HIST_PAIR;
	}
	return need;
}

int hist_decode(struct hist *h, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t total = 0;

	hist_init(h);
	if (!buf || len < HIST_HEADER || (len - HIST_HEADER) % HIST_PAIR ||
	    get_le(p, 4) != HIST_FORMAT)
		return -EINVAL;
	h->count = get_le(p + 4, 8);
	h->min_ns = get_le(p + 12, 8);
	h->max_ns = get_le(p + 20, 8);
	h->sum_ns = bitsd(get_le(p + 28, 8));
	h->sum_sq_ns = bitsd(get_le(p + 36, 8));
	for (p += HIST_HEADER; p < (const unsigned char *)buf + len;
	     p += HIST_PAIR) {
		uint64_t i = get_le(p, 2);
		if (i >= HIST_BUCKETS)
			goto bad;
		h->buckets[i] += get_le(p + 2, 8);
		total += get_le(p + 2, 8);
	}
	if (total == h->count)
		return 0;
bad:
	hist_init(h);
	return -EINVAL;
}
