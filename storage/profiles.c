/*
 * profiles — the built-in presets (see profiles.h).
 *
 * cdm-default is CrystalDiskMark 8's default set. CrystalDiskMark runs every
 * read test, then every write test ("All"), on one test file of the chosen
 * size; its names say the block size (SEQ1M = 1 MiB sequential, RND4K = 4 KiB
 * random), the queue depth (Q) and the threads (T).
 */
#include "profiles.h"

#include <stdio.h>
#include <string.h>

#define KiB 1024U
#define MiB (1024U * 1024U)

static const struct profile_test cdm_default[] = {
	{"SEQ1M Q8T1", WL_SEQUENTIAL, 100, 1 * MiB, 8, 1},
	{"SEQ1M Q1T1", WL_SEQUENTIAL, 100, 1 * MiB, 1, 1},
	{"RND4K Q32T1", WL_RANDOM, 100, 4 * KiB, 32, 1},
	{"RND4K Q1T1", WL_RANDOM, 100, 4 * KiB, 1, 1},
	{"SEQ1M Q8T1", WL_SEQUENTIAL, 0, 1 * MiB, 8, 1},
	{"SEQ1M Q1T1", WL_SEQUENTIAL, 0, 1 * MiB, 1, 1},
	{"RND4K Q32T1", WL_RANDOM, 0, 4 * KiB, 32, 1},
	{"RND4K Q1T1", WL_RANDOM, 0, 4 * KiB, 1, 1},
};

static const struct profile profiles[] = {
	{
		.name = "cdm-default",
		.title = "CrystalDiskMark 8 default",
		.tests = cdm_default,
		.n_tests = sizeof(cdm_default) / sizeof(cdm_default[0]),
		.size = 1ULL << 30,
		.iterations = 5,
		.duration_s = 5,
		.interval_s = 0,
	},
};

const struct profile *profile_at(size_t i)
{
	return i < sizeof(profiles) / sizeof(profiles[0]) ? &profiles[i]
							  : NULL;
}

const struct profile *profile_find(const char *name)
{
	const struct profile *p;

	for (size_t i = 0; (p = profile_at(i)) != NULL; i++)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

uint32_t profile_max_block(const struct profile *p)
{
	uint32_t m = 0;

	for (size_t i = 0; i < p->n_tests; i++)
		if (p->tests[i].block_size > m)
			m = p->tests[i].block_size;
	return m;
}

void profile_workload(const struct profile_test *t, uint64_t file_size,
		      double duration_s, struct workload *w)
{
	memset(w, 0, sizeof(*w));
	snprintf(w->name, sizeof(w->name), "%s", t->name);
	w->pattern = t->pattern;
	w->read_pct = t->read_pct;
	w->block_size = t->block_size;
	w->queue_depth = t->queue_depth;
	w->threads = t->threads;
	w->file_size = file_size;
	w->duration_s = duration_s;
}
