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
	{"SEQ1M Q8T1", WL_SEQUENTIAL, 100, 1 * MiB, 8, 1},
	{"SEQ1M Q1T1", WL_SEQUENTIAL, 100, 1 * MiB, 1, 1},
	{"RND4K Q32T1", WL_RANDOM, 100, 4 * KiB, 32, 1},
	{"RND4K Q1T1", WL_RANDOM, 100, 4 * KiB, 1, 1},
	{"SEQ1M Q8T1", WL_SEQUENTIAL, 0, 1 * MiB, 8, 1},
	{"SEQ1M Q1T1", WL_SEQUENTIAL, 0, 1 * MiB, 1, 1},
	{"RND4K Q32T1", WL_RANDOM, 0, 4 * KiB, 32, 1},
	{"RND4K Q1T1", WL_RANDOM, 0, 4 * KiB, 1, 1},
};

static const struct plan_test cdm_peak[] = {
	{"SEQ1M Q8T1", WL_SEQUENTIAL, 100, 1 * MiB, 8, 1},
	{"RND4K Q32T16", WL_RANDOM, 100, 4 * KiB, 32, 16},
	{"SEQ1M Q8T1", WL_SEQUENTIAL, 0, 1 * MiB, 8, 1},
	{"RND4K Q32T16", WL_RANDOM, 0, 4 * KiB, 32, 16},
};

static const struct plan_test cdm_realworld[] = {
	{"SEQ1M Q1T1", WL_SEQUENTIAL, 100, 1 * MiB, 1, 1},
	{"RND4K Q1T1", WL_RANDOM, 100, 4 * KiB, 1, 1},
	{"SEQ1M Q1T1", WL_SEQUENTIAL, 0, 1 * MiB, 1, 1},
	{"RND4K Q1T1", WL_RANDOM, 0, 4 * KiB, 1, 1},
};

/* CrystalDiskMark 3: each test read, then written */
static const struct plan_test cdm3[] = {
	{"Seq", WL_SEQUENTIAL, 100, 1 * MiB, 1, 1},
	{"Seq", WL_SEQUENTIAL, 0, 1 * MiB, 1, 1},
	{"512K", WL_RANDOM, 100, 512 * KiB, 1, 1},
	{"512K", WL_RANDOM, 0, 512 * KiB, 1, 1},
	{"4K", WL_RANDOM, 100, 4 * KiB, 1, 1},
	{"4K", WL_RANDOM, 0, 4 * KiB, 1, 1},
	{"4K QD32", WL_RANDOM, 100, 4 * KiB, 32, 1},
	{"4K QD32", WL_RANDOM, 0, 4 * KiB, 32, 1},
};

#define CDM_SET(var, nm, ttl, list)                                         \
	const struct preset var = {                                         \
		.version = PRESET_VERSION,                                  \
		.name = nm,                                                 \
		.title = ttl,                                               \
		.kind = "tests",                                            \
		.flags = PRESET_RAW_DEVICE,                                 \
		.defaults = {.size = 1ULL << 30, .iterations = 5,           \
			     .duration_s = 5},                              \
		.tests = list,                                              \
		.n_tests = sizeof(list) / sizeof((list)[0]),                \
		.run = planrun_run,                                         \
		.view = "tiles",                                            \
	}

CDM_SET(preset_cdm_default, "cdm-default", "CrystalDiskMark 8 default",
	cdm_default);
CDM_SET(preset_cdm_peak, "cdm-peak", "CrystalDiskMark 8 Peak Performance",
	cdm_peak);
CDM_SET(preset_cdm_realworld, "cdm-realworld",
	"CrystalDiskMark 8 Real World Performance", cdm_realworld);
CDM_SET(preset_cdm3, "cdm3", "CrystalDiskMark 3 (Seq, 512K, 4K, 4K QD32)",
	cdm3);
