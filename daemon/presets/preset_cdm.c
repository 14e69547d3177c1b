/*
 * preset_cdm — CrystalDiskMark's sets: cdm-default (CrystalDiskMark 8's
 * default), cdm-peak ("Peak Performance"), cdm-realworld ("Real World
 * Performance") and cdm3 (CrystalDiskMark 3). Each is a fixed list of tests
 * run on one test file of the job's size (planrun), read tests then write
 * tests as CrystalDiskMark's "All" does, N iterations each with the best one
 * as the headline. The names say the block size (SEQ1M = 1 MiB sequential,
 * RND4K = 4 KiB random), the queue depth (Q) and the threads (T).
 */
#include "preset.h"

#include "planrun.h"

#define KiB 1024U
#define MiB (1024U * 1024U)

static const struct plan_test cdm_default[] = {
	{ "SEQ1M Q8T1", WL_SEQUENTIAL, 100, 1 * MiB, 8, 1 },
	{ "SEQ1M Q1T1", WL_SEQUENTIAL, 100, 1 * MiB, 1, 1 },
	{ "RND4K Q32T1", WL_RANDOM, 100, 4 * KiB, 32, 1 },
	{ "RND4K Q1T1", WL_RANDOM, 100, 4 * KiB, 1, 1 },
	{ "SEQ1M Q8T1", WL_SEQUENTIAL, 0, 1 * MiB, 8, 1 },
	{ "SEQ1M Q1T1", WL_SEQUENTIAL, 0, 1 * MiB, 1, 1 },
	{ "RND4K Q32T1", WL_RANDOM, 0, 4 * KiB, 32, 1 },
	{ "RND4K Q1T1", WL_RANDOM, 0, 4 * KiB, 1, 1 },
};

static const struct plan_test cdm_peak[] = {
	{ "SEQ1M Q8T1", WL_SEQUENTIAL, 100, 1 * MiB, 8, 1 },
	{ "RND4K Q32T16", WL_RANDOM, 100, 4 * KiB, 32, 16 },
	{ "SEQ1M Q8T1", WL_SEQUENTIAL, 0, 1 * MiB, 8, 1 },
	{ "RND4K Q32T16", WL_RANDOM, 0, 4 * KiB, 32, 16 },
};

static const struct plan_test cdm_realworld[] = {
	{ "SEQ1M Q1T1", WL_SEQUENTIAL, 100, 1 * MiB, 1, 1 },
	{ "RND4K Q1T1", WL_RANDOM, 100, 4 * KiB, 1, 1 },
	{ "SEQ1M Q1T1", WL_SEQUENTIAL, 0, 1 * MiB, 1, 1 },
	{ "RND4K Q1T1", WL_RANDOM, 0, 4 * KiB, 1, 1 },
};

/* CrystalDiskMark 3: each test read, then written */
static const struct plan_test cdm3[] = {
	{ "Seq", WL_SEQUENTIAL, 100, 1 * MiB, 1, 1 },
	{ "Seq", WL_SEQUENTIAL, 0, 1 * MiB, 1, 1 },
	{ "512K", WL_RANDOM, 100, 512 * KiB, 1, 1 },
	{ "512K", WL_RANDOM, 0, 512 * KiB, 1, 1 },
	{ "4K", WL_RANDOM, 100, 4 * KiB, 1, 1 },
	{ "4K", WL_RANDOM, 0, 4 * KiB, 1, 1 },
	{ "4K QD32", WL_RANDOM, 100, 4 * KiB, 32, 1 },
	{ "4K QD32", WL_RANDOM, 0, 4 * KiB, 32, 1 },
};

const struct preset preset_cdm_default = {
	.version = PRESET_VERSION,
	.name = "cdm-default",
	.title = "CrystalDiskMark 8 default",
	.kind = "tests",
	.flags = PRESET_RAW_DEVICE | PRESET_INTERLEAVE | PRESET_STEADY,
	.defaults = { .size = 1ULL << 30, .iterations = 5, .duration_s = 5 },
	.tests = cdm_default,
	.n_tests = sizeof(cdm_default) / sizeof(cdm_default[0]),
	.run = planrun_run,
	.view = "tiles",
};

const struct preset preset_cdm_peak = {
	.version = PRESET_VERSION,
	.name = "cdm-peak",
	.title = "CrystalDiskMark 8 Peak Performance",
	.kind = "tests",
	.flags = PRESET_RAW_DEVICE | PRESET_INTERLEAVE | PRESET_STEADY,
	.defaults = { .size = 1ULL << 30, .iterations = 5, .duration_s = 5 },
	.tests = cdm_peak,
	.n_tests = sizeof(cdm_peak) / sizeof(cdm_peak[0]),
	.run = planrun_run,
	.view = "tiles",
};

const struct preset preset_cdm_realworld = {
	.version = PRESET_VERSION,
	.name = "cdm-realworld",
	.title = "CrystalDiskMark 8 Real World Performance",
	.kind = "tests",
	.flags = PRESET_RAW_DEVICE | PRESET_INTERLEAVE | PRESET_STEADY,
	.defaults = { .size = 1ULL << 30, .iterations = 5, .duration_s = 5 },
	.tests = cdm_realworld,
	.n_tests = sizeof(cdm_realworld) / sizeof(cdm_realworld[0]),
	.run = planrun_run,
	.view = "tiles",
};

const struct preset preset_cdm3 = {
	.version = PRESET_VERSION,
	.name = "cdm3",
	.title = "CrystalDiskMark 3 (Seq, 512K, 4K, 4K QD32)",
	.kind = "tests",
	.flags = PRESET_RAW_DEVICE | PRESET_INTERLEAVE | PRESET_STEADY,
	.defaults = { .size = 1ULL << 30, .iterations = 5, .duration_s = 5 },
	.tests = cdm3,
	.n_tests = sizeof(cdm3) / sizeof(cdm3[0]),
	.run = planrun_run,
	.view = "tiles",
};
