/*
 * test_result.c — the arithmetic that turns counts into figures.
 *
 * Expected values are worked out by hand from the definitions in result.h
 * (MB/s = bytes / s / 10^6, MiB/s = bytes / s / 2^20, IOPS = ios / s, mean
 * latency = lat_sum_ns / ios / 10^3 µs), never read back from the code.
 */
#include "engine/result.h"
#include "test.h"

#include <stdint.h>

#define REL 1e-12

static void test_finish_math(void)
{
	/* 1000 I/Os of 4 KiB in 2 s, 250 µs each */
	struct result r = {
		.ios = 1000,
		.bytes = 1000ULL * 4096,
		.lat_sum_ns = 1000ULL * 250000,
		.window_ns = 2000000000ULL,
	};

	result_finish(&r);
	ASSERT_NEAR_REL(r.seconds, 2.0, REL);
	ASSERT_NEAR_REL(r.mb_s, 2.048, REL);	 /* 4096000 / 2 / 1e6 */
	ASSERT_NEAR_REL(r.mib_s, 1.953125, REL); /* 4096000 / 2 / 2^20 */
	ASSERT_NEAR_REL(r.iops, 500.0, REL);
	ASSERT_NEAR_REL(r.lat_mean_us, 250.0, REL);
	/* counts are left alone */
	ASSERT_U64_EQ(r.ios, 1000);
	ASSERT_U64_EQ(r.bytes, 4096000);
}

static void test_finish_odd_window(void)
{
	/* 3 GiB in 1.5 s: 2147.483648 MB/s, 2048 MiB/s */
	struct result r = {
		.ios = 3072,
		.bytes = 3ULL << 30,
		.lat_sum_ns = 3072ULL * 1234567,
		.window_ns = 1500000000ULL,
	};

	result_finish(&r);
	ASSERT_NEAR_REL(r.seconds, 1.5, REL);
	ASSERT_NEAR_REL(r.mb_s, 2147.483648, REL);
	ASSERT_NEAR_REL(r.mib_s, 2048.0, REL);
	ASSERT_NEAR_REL(r.iops, 2048.0, REL);
	ASSERT_NEAR_REL(r.lat_mean_us, 1234.567, REL);
}

static void test_finish_zero(void)
{
	struct result r = { 0 };

	/* stale derived values must be overwritten, not kept */
	r.mb_s = r.mib_s = r.iops = r.lat_mean_us = r.seconds = 42.0;
	result_finish(&r);
	ASSERT_TRUE(r.seconds == 0.0);
	ASSERT_TRUE(r.mb_s == 0.0);
	ASSERT_TRUE(r.mib_s == 0.0);
	ASSERT_TRUE(r.iops == 0.0);
	ASSERT_TRUE(r.lat_mean_us == 0.0);

	/* counts but no window: no division by zero, throughput zero */
	r = (struct result){ .ios = 10, .bytes = 40960, .lat_sum_ns = 5000 };
	result_finish(&r);
	ASSERT_TRUE(r.seconds == 0.0);
	ASSERT_TRUE(r.mb_s == 0.0);
	ASSERT_TRUE(r.mib_s == 0.0);
	ASSERT_TRUE(r.iops == 0.0);
	ASSERT_TRUE(!isnan(r.lat_mean_us) && !isinf(r.lat_mean_us));

	/* a window but no I/O: zero figures, no NaN latency */
	r = (struct result){ .window_ns = 1000000000ULL };
	result_finish(&r);
	ASSERT_NEAR_REL(r.seconds, 1.0, REL);
	ASSERT_TRUE(r.mb_s == 0.0 && r.iops == 0.0);
	ASSERT_TRUE(r.lat_mean_us == 0.0);
}

/* For I/Os of one block size, MB/s = IOPS × block size / 10^6. */
static void test_fixed_block_identity(void)
{
	static const uint32_t bs[] = { 512, 4096, 65536, 1U << 20 };
	static const uint64_t ios[] = { 1, 7, 123457, 99999989 };
	static const uint64_t win[] = { 1, 333333333, 1000000000, 7123456789 };

	for (size_t i = 0; i < 4; i++)
		for (size_t j = 0; j < 4; j++)
			for (size_t k = 0; k < 4; k++) {
				struct result r = {
					.ios = ios[j],
					.bytes = ios[j] * bs[i],
					.lat_sum_ns = ios[j] * 1000,
					.window_ns = win[k],
				};
				result_finish(&r);
				ASSERT_NEAR_REL(r.mb_s, r.iops * bs[i] / 1e6,
						1e-9);
				ASSERT_NEAR_REL(r.mib_s * 1048576.0,
						r.mb_s * 1e6, 1e-9);
				ASSERT_NEAR_REL(r.lat_mean_us, 1.0, REL);
			}
}

static void test_add(void)
{
	struct result a = {
		.ios = 10,
		.bytes = 40960,
		.lat_sum_ns = 1000,
		.window_ns = 5,
		.mb_s = 123.0,
		.iops = 7.0,
	};
	const struct result b = {
		.ios = 5,
		.bytes = 20480,
		.lat_sum_ns = 700,
		.window_ns = 9,
		.mb_s = 999.0,
	};
	const struct result c = {
		.ios = 1,
		.bytes = 4096,
		.lat_sum_ns = 3,
		.window_ns = 2,
	};

	result_add(&a, &b);
	ASSERT_U64_EQ(a.ios, 15);
	ASSERT_U64_EQ(a.bytes, 61440);
	ASSERT_U64_EQ(a.lat_sum_ns, 1700);
	ASSERT_U64_EQ(a.window_ns, 9); /* the longest thread window */
	ASSERT_TRUE(a.mb_s == 123.0);  /* derived fields untouched */
	ASSERT_TRUE(a.iops == 7.0);
	result_add(&a, &c);
	ASSERT_U64_EQ(a.ios, 16);
	ASSERT_U64_EQ(a.bytes, 65536);
	ASSERT_U64_EQ(a.lat_sum_ns, 1703);
	ASSERT_U64_EQ(a.window_ns, 9); /* a shorter window does not shrink it */
	/* b is an input only */
	ASSERT_U64_EQ(b.ios, 5);

	/* summing threads then finishing: figures over the combined counts */
	{
		struct result t = { 0 };
		const struct result t1 = { .ios = 100,
					   .bytes = 409600,
					   .lat_sum_ns = 100000,
					   .window_ns = 1000000000ULL };
		const struct result t2 = { .ios = 300,
					   .bytes = 1228800,
					   .lat_sum_ns = 900000,
					   .window_ns = 1000000000ULL };
		result_add(&t, &t1);
		result_add(&t, &t2);
		result_finish(&t);
		ASSERT_NEAR_REL(t.iops, 400.0, REL);
		ASSERT_NEAR_REL(t.mb_s, 1.6384, REL);
		ASSERT_NEAR_REL(t.lat_mean_us, 2.5, REL); /* 1e6 ns / 400 */
	}
}

static void set_mb(struct result *r, const double *mb, int n)
{
	for (int i = 0; i < n; i++) {
		r[i] = (struct result){ 0 };
		r[i].mb_s = mb[i];
		/* iops ordered the other way: best must follow MB/s only */
		r[i].iops = 1000.0 - mb[i];
	}
}

static void test_best(void)
{
	struct result r[5] = { { 0 } };

	ASSERT_EQ(result_best(r, 0), -1);
	ASSERT_EQ(result_best(NULL, 0), -1);

	set_mb(r, (const double[]){ 7.5 }, 1);
	ASSERT_EQ(result_best(r, 1), 0);

	set_mb(r, (const double[]){ 1.0, 3.0, 2.0 }, 3);
	ASSERT_EQ(result_best(r, 3), 1);

	set_mb(r, (const double[]){ 9.0, 3.0, 2.0 }, 3);
	ASSERT_EQ(result_best(r, 3), 0);

	set_mb(r, (const double[]){ 1.0, 3.0, 2.0, 4.0, 3.9 }, 5);
	ASSERT_EQ(result_best(r, 5), 3);
	ASSERT_EQ(result_best(r, 3), 1); /* only the first n count */

	/* a tie: the first one */
	set_mb(r, (const double[]){ 3.0, 5.0, 4.0, 5.0, 1.0 }, 5);
	ASSERT_EQ(result_best(r, 5), 1);
	set_mb(r, (const double[]){ 0.0, 0.0, 0.0 }, 3);
	ASSERT_EQ(result_best(r, 3), 0);
}

TEST_MAIN(test_finish_math, test_finish_odd_window, test_finish_zero,
	  test_fixed_block_identity, test_add, test_best)
