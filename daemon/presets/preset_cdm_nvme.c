/*
 * preset_cdm_nvme — cdm-nvme, CrystalDiskMark 8's "NVMe SSD" settings:
 * SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16 and RND4K Q1T1, every read test
 * then every write test, on one test file of the job's size (planrun), N
 * iterations each with the best one as the headline — CrystalDiskMark's
 * names and semantics, deeper queues than its default set, for drives that
 * need them to reach their rated speed.
 */
#include "preset.h"

#include "planrun.h"

#define KiB 1024U
#define MiB (1024U * 1024U)

static const struct plan_test tests[] = {
	{ "SEQ1M Q8T1", WL_SEQUENTIAL, 100, 1 * MiB, 8, 1 },
	{ "SEQ128K Q32T1", WL_SEQUENTIAL, 100, 128 * KiB, 32, 1 },
	{ "RND4K Q32T16", WL_RANDOM, 100, 4 * KiB, 32, 16 },
	{ "RND4K Q1T1", WL_RANDOM, 100, 4 * KiB, 1, 1 },
	{ "SEQ1M Q8T1", WL_SEQUENTIAL, 0, 1 * MiB, 8, 1 },
	{ "SEQ128K Q32T1", WL_SEQUENTIAL, 0, 128 * KiB, 32, 1 },
	{ "RND4K Q32T16", WL_RANDOM, 0, 4 * KiB, 32, 16 },
	{ "RND4K Q1T1", WL_RANDOM, 0, 4 * KiB, 1, 1 },
};

const struct preset preset_cdm_nvme = {
	.version = PRESET_VERSION,
	.name = "cdm-nvme",
	.title = "CrystalDiskMark 8 NVMe SSD",
	.kind = "tests",
	.flags = PRESET_RAW_DEVICE | PRESET_INTERLEAVE | PRESET_STEADY,
	.defaults = { .size = 1ULL << 30, .iterations = 5, .duration_s = 5 },
	.tests = tests,
	.n_tests = sizeof(tests) / sizeof(tests[0]),
	.run = planrun_run,
	.view = "tiles",
};
