/*
 * ctrwarn — what a test's host and device counters (storage/probe/hostctr.h,
 * one per second in engine_samples.ctr) say about its numbers, as warnings
 * on the run, each once per test:
 *
 *   CTRWARN_RATES  the engine's and the device's byte rates far apart in
 *                  a direction the test does: served from a cache or
 *                  absorbed by a layer in between (engine ahead), or
 *                  amplified — read-ahead, read-modify-write, journalling,
 *                  a layer in between (device ahead);
 *   CTRWARN_CORE   one core saturated in most whole seconds: the CPU,
 *                  not the device, may be the limit;
 *   CTRWARN_DIRTY  dirty + write-back memory climbing through a buffered
 *                  write test: write-back into memory was measured.
 *
 * The limits are ctrwarn_limits (ctrwarn.c), documented in docs/api.md
 * ("Warnings from the counters"). A short sample is not judged where it
 * would mislead: rates over less than a second of device counters, a core
 * over seconds shorter than one (a few ticks of CPU accounting).
 */
#ifndef STORBENCH_CTRWARN_H
#define STORBENCH_CTRWARN_H

#include <stdint.h>

#include "archive/archive.h"

#define CTRWARN_RATES 2u
#define CTRWARN_CORE 4u
#define CTRWARN_DIRTY 8u

/*
 * Checks one iteration of test w (direct: direct I/O in effect) from its
 * seconds smp (counts and counters; nothing without smp->ctr) and writes
 * each warning whose bit is not in given on run run_id. Returns the bits of
 * the warnings written now (a failed write is logged by the archive and
 * counts as given: the test is not judged again).
 */
unsigned ctrwarn_check(struct archive *a, int64_t run_id,
		       const struct workload *w, int direct,
		       const struct engine_samples *smp, unsigned given);

#endif
