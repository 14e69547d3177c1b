/*
 * test_histogram — the latency histogram against exact answers: bucket
 * geometry, nearest-rank percentiles computed by sorting, merging, mean and
 * standard deviation.
 */
#include "engine/histogram.h"
#include "test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define N 200000

static uint64_t values[N];
static struct hist h_all, h_part[4], h_merged;

/* splitmix64: a fixed stream, so a failure can be replayed */
static uint64_t next_u64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Log-uniform over 1 ns … 100 s, plus a few exact small values. */
static void make_values(void)
{
	uint64_t s = 42;

	for (int i = 0; i < N; i++) {
		double u = (double)(next_u64(&s) >> 11) / 9007199254740992.0;
		values[i] = (uint64_t)exp(u * log(1e11));
		if (values[i] == 0)
			values[i] = 1;
	}
}

static void test_geometry(void)
{
	uint64_t lo, hi, plo = 0, phi = 0;

	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		hist_bucket_range(i, &lo, &hi);
		ASSERT_TRUE(hi > lo);
		if (i > 0)
			ASSERT_U64_EQ(lo, phi); /* buckets tile the axis */
		if (lo >= 2 * HIST_SUB)
			ASSERT_TRUE((double)(hi - lo) / (double)lo <=
				    1.0 / 128);
		ASSERT_EQ(hist_index(lo), i);
		ASSERT_EQ(hist_index(hi - 1), i);
		plo = lo;
		phi = hi;
	}
	ASSERT_TRUE(plo > 0);
	ASSERT_TRUE(phi >= (1ULL << HIST_MAX_BITS)); /* covers 100 s */
	ASSERT_EQ(hist_index(0), 0);
	ASSERT_EQ(hist_index(255), 255);
	ASSERT_EQ(hist_index(UINT64_MAX), HIST_BUCKETS - 1);
}

static void test_percentiles_against_sorting(void)
{
	static uint64_t sorted[N];
	const double ps[] = { 0.1, 1, 10, 50, 90, 99, 99.9, 99.99, 100 };

	hist_init(&h_all);
	for (int i = 0; i < N; i++)
		hist_add(&h_all, values[i]);
	memcpy(sorted, values, sizeof(sorted));
	qsort(sorted, N, sizeof(sorted[0]), cmp_u64);
	ASSERT_U64_EQ(h_all.count, N);
	ASSERT_U64_EQ(h_all.min_ns, sorted[0]);
	ASSERT_U64_EQ(h_all.max_ns, sorted[N - 1]);
	for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		/* nearest rank: the ceil(p/100 · N)-th smallest value */
		size_t rank = (size_t)ceil(ps[k] / 100.0 * N);
		double exact = (double)sorted[rank - 1];
		double got = hist_percentile(&h_all, ps[k]);
		ASSERT_NEAR_REL(got, exact, 0.01);
	}
	ASSERT_TRUE(hist_percentile(&h_all, 100) == (double)sorted[N - 1]);
}

static void test_small_values_exact(void)
{
	struct hist h;

	hist_init(&h);
	for (uint64_t v = 1; v <= 200; v++)
		hist_add(&h, v);
	ASSERT_TRUE(hist_percentile(&h, 50) == 100.0);
	ASSERT_TRUE(hist_percentile(&h, 0.5) == 1.0);
	ASSERT_TRUE(hist_percentile(&h, 100) == 200.0);
}

static void test_merge_equals_one_histogram(void)
{
	for (int k = 0; k < 4; k++)
		hist_init(&h_part[k]);
	for (int i = 0; i < N; i++)
		hist_add(&h_part[i % 4], values[i]);
	hist_init(&h_merged);
	for (int k = 0; k < 4; k++)
		hist_merge(&h_merged, &h_part[k]);
	ASSERT_U64_EQ(h_merged.count, h_all.count);
	ASSERT_U64_EQ(h_merged.min_ns, h_all.min_ns);
	ASSERT_U64_EQ(h_merged.max_ns, h_all.max_ns);
	ASSERT_EQ(
		memcmp(h_merged.buckets, h_all.buckets, sizeof(h_all.buckets)),
		0);
	ASSERT_NEAR_REL(h_merged.sum_ns, h_all.sum_ns, 1e-12);
	ASSERT_TRUE(hist_percentile(&h_merged, 99) ==
		    hist_percentile(&h_all, 99));
}

static void test_mean_and_stdev(void)
{
	double sum = 0, sq = 0, mean, sd;

	for (int i = 0; i < N; i++)
		sum += (double)values[i];
	mean = sum / N;
	for (int i = 0; i < N; i++)
		sq += ((double)values[i] - mean) * ((double)values[i] - mean);
	sd = sqrt(sq / N);
	ASSERT_NEAR_REL(hist_mean(&h_all), mean, 1e-9);
	ASSERT_NEAR_REL(hist_stdev(&h_all), sd, 1e-6);

	struct hist h;
	hist_init(&h);
	for (int i = 0; i < 1000; i++)
		hist_add(&h, 100000 + (i % 2 ? 1000 : -1000)); /* 100 ± 1 µs */
	ASSERT_NEAR_REL(hist_mean(&h), 100000.0, 1e-12);
	ASSERT_NEAR_REL(hist_stdev(&h), 1000.0, 1e-6);
}

static void test_empty(void)
{
	struct hist h;

	hist_init(&h);
	ASSERT_TRUE(hist_percentile(&h, 99) == 0.0);
	ASSERT_TRUE(hist_mean(&h) == 0.0);
	ASSERT_TRUE(hist_stdev(&h) == 0.0);
	ASSERT_U64_EQ(h.count, 0);
}

static void test_setup(void)
{
	make_values();
	ASSERT_TRUE(values[0] > 0);
}

/* The storage form gives back the same histogram; damaged bytes are refused. */
static void test_encode_roundtrip(void)
{
	struct hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	unsigned char *buf;
	size_t need, small;
	uint64_t x = 88172645463325252ULL;

	ASSERT_TRUE(a && b);
	hist_init(a);
	small = hist_encode(a, NULL, 0); /* empty: the header alone */
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		hist_add(a, x % 5000000 + 1);
	}
	need = hist_encode(a, NULL, 0);
	ASSERT_TRUE(need > small && need < sizeof(a->buckets) / 2);
	buf = malloc(need);
	ASSERT_TRUE(buf != NULL);
	ASSERT_EQ(hist_encode(a, buf, need), need);
	ASSERT_EQ(hist_decode(b, buf, need), 0);
	ASSERT_TRUE(memcmp(a, b, sizeof(*a)) == 0);
	ASSERT_EQ(hist_decode(b, buf, need - 1), -EINVAL); /* cut short */
	buf[need - 1] ^= 1;				   /* a count off */
	ASSERT_EQ(hist_decode(b, buf, need), -EINVAL);
	ASSERT_U64_EQ(b->count, 0);
	buf[0] = 9; /* unknown format */
	ASSERT_EQ(hist_decode(b, buf, need), -EINVAL);
	ASSERT_EQ(hist_decode(b, NULL, 0), -EINVAL);
	free(buf);
	free(a);
	free(b);
}

TEST_MAIN(test_setup, test_geometry, test_percentiles_against_sorting,
	  test_small_values_exact, test_merge_equals_one_histogram,
	  test_mean_and_stdev, test_empty, test_encode_roundtrip)
