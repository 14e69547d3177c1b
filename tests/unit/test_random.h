/*
 * test_random.h — random numbers for the unit tests that simulate (run
 * sets, series of runs): xorshift64 uniform on (0, 1) and N(0, 1) by Box–
 * Muller. Each file has its own stream, seeded by TEST_RANDOM_SEED
 * (defined before including this), so its figures are the same every run.
 */
#ifndef STORBENCH_TEST_RANDOM_H
#define STORBENCH_TEST_RANDOM_H

#include <math.h>
#include <stdint.h>

#ifndef TEST_RANDOM_SEED
#error "define TEST_RANDOM_SEED before including test_random.h"
#endif

static uint64_t rng = TEST_RANDOM_SEED;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((rng >> 11) + 0.5) / 9007199254740992.0;
}

/* N(0, 1), Box–Muller */
static double normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

#endif
