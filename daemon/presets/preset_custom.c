/*
 * preset_custom — the job's own tests: the request's `tests` array, each
 * test a workload (plan_test_fields: pattern, read share, block size, queue
 * depth, threads, duration or size, ramp, sync, data), any numeric field a
 * list for a sweep (a thread or queue-depth sweep gets a scaling
 * efficiency). Run like a fixed set: one test file of the job's size.
 */
#include "preset.h"

#include "planrun.h"

const struct preset preset_custom = {
	.version = PRESET_VERSION,
	.name = "custom",
	.title = "Custom: the job's own tests",
	.kind = "custom",
	.flags = PRESET_TESTS | PRESET_RAW_DEVICE | PRESET_INTERLEAVE |
		 PRESET_STEADY,
	.defaults = { .size = 1ULL << 30, .iterations = 5, .duration_s = 5 },
	.run = planrun_run,
	.view = "sweep",
};
