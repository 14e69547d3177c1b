/*
 * histogram — latency histogram, log-linear in the HDR style.
 *
 * Values are nanoseconds. Below 256 ns every value has its own bucket; above,
 * each power of two is cut into 128 equal buckets, so a bucket is at most
 * 1/128 of its lower edge wide and a value reported as its bucket's midpoint
 * is within 0.4 % of the truth — inside the 1 % the measurement rules ask for,
 * from 1 ns to 100 s (2^37 ns; larger values land in the last bucket, max is
 * still exact). Count, sum, sum of squares, min and max are kept exactly.
 *
 * 4096 buckets × 8 bytes = 32 KiB per histogram: one per engine thread and
 * test, merged after the test (hist_merge), so the I/O loop touches only its
 * own memory. Not thread-safe; a histogram belongs to one thread at a time.
 */
#ifndef STORBENCH_HISTOGRAM_H
#define STORBENCH_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS 7
#define HIST_SUB (1U << HIST_SUB_BITS) /* buckets per power of two */
#define HIST_MAX_BITS 37	       /* 2^37 ns ≈ 137 s */
#define HIST_BUCKETS                                                           \
	(2 * HIST_SUB + (HIST_MAX_BITS - HIST_SUB_BITS - 1) * HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t min_ns; /* UINT64_MAX while empty */
	uint64_t max_ns;
	double sum_ns;
	double sum_sq_ns; /* for the standard deviation */
	uint64_t buckets[HIST_BUCKETS];
};

/* Empties h. */
void hist_init(struct hist *h);

/* Records one value (nanoseconds). */
static inline void hist_add(struct hist *h, uint64_t ns);

/* Adds b into a (threads of a test, iterations of a run). */
void hist_merge(struct hist *a, const struct hist *b);

/*
 * The nearest-rank percentile p (0 < p ≤ 100) in nanoseconds: the smallest
 * recorded value v such that at least p % of the values are ≤ v, as its
 * bucket's midpoint, clamped to [min, max]. 0 for an empty histogram.
 */
double hist_percentile(const struct hist *h, double p);

/* Mean and population standard deviation, nanoseconds; 0 when empty. */
double hist_mean(const struct hist *h);
double hist_stdev(const struct hist *h);

/* What the archive keeps of a histogram, in microseconds. */
struct lat_summary {
	double mean, stdev, min, p50, p90, p99, p999, p9999, max;
};

/* Fills *s from h (all zeros for an empty histogram). */
void hist_summary(const struct hist *h, struct lat_summary *s);

/*
 * A compact, portable copy of h for storage: a header (format version,
 * count, min, max, sum, sum of squares) and the non-empty buckets as
 * (index, count) pairs, little-endian. A 4 KiB random test fills a few
 * hundred buckets: a few KiB instead of 32. hist_encode returns the bytes
 * needed; it writes them only when len is at least that. hist_decode
 * returns 0 or -EINVAL for bytes that are not an encoded histogram.
 */
size_t hist_encode(const struct hist *h, void *buf, size_t len);
int hist_decode(struct hist *h, const void *buf, size_t len);

/* Bucket index of a value, and the range [lo, hi) a bucket covers. */
unsigned hist_index(uint64_t ns);
void hist_bucket_range(unsigned index, uint64_t *lo, uint64_t *hi);

static inline void hist_add(struct hist *h, uint64_t ns)
{
	h->buckets[hist_index(ns)]++;
	h->count++;
	h->sum_ns += (double)ns;
	h->sum_sq_ns += (double)ns * (double)ns;
	if (ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

#endif
