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

/* CrystalDiskMark 8's "Peak Performance" and "Real World Performance" */
static const struct profile_test cdm_peak[] = {
	{"SEQ1M Q8T1", WL_SEQUENTIAL, 100, 1 * MiB, 8, 1},
	{"RND4K Q32T16", WL_RANDOM, 100, 4 * KiB, 32, 16},
	{"SEQ1M Q8T1", WL_SEQUENTIAL, 0, 1 * MiB, 8, 1},
	{"RND4K Q32T16", WL_RANDOM, 0, 4 * KiB, 32, 16},
};

static const struct profile_test cdm_realworld[] = {
	{"SEQ1M Q1T1", WL_SEQUENTIAL, 100, 1 * MiB, 1, 1},
	{"RND4K Q1T1", WL_RANDOM, 100, 4 * KiB, 1, 1},
	{"SEQ1M Q1T1", WL_SEQUENTIAL, 0, 1 * MiB, 1, 1},
	{"RND4K Q1T1", WL_RANDOM, 0, 4 * KiB, 1, 1},
};

/* CrystalDiskMark 3: each test read, then written */
static const struct profile_test cdm3[] = {
	{"Seq", WL_SEQUENTIAL, 100, 1 * MiB, 1, 1},
	{"Seq", WL_SEQUENTIAL, 0, 1 * MiB, 1, 1},
	{"512K", WL_RANDOM, 100, 512 * KiB, 1, 1},
	{"512K", WL_RANDOM, 0, 512 * KiB, 1, 1},
	{"4K", WL_RANDOM, 100, 4 * KiB, 1, 1},
	{"4K", WL_RANDOM, 0, 4 * KiB, 1, 1},
	{"4K QD32", WL_RANDOM, 100, 4 * KiB, 32, 1},
	{"4K QD32", WL_RANDOM, 0, 4 * KiB, 32, 1},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct profile profiles[] = {
	{
		.name = "cdm-default",
		.kind = PROFILE_TESTS,
		.title = "CrystalDiskMark 8 default",
		.tests = cdm_default,
		.n_tests = N(cdm_default),
		.size = 1ULL << 30,
		.iterations = 5,
		.duration_s = 5,
	},
	{
		.name = "cdm-peak",
		.kind = PROFILE_TESTS,
		.title = "CrystalDiskMark 8 Peak Performance",
		.tests = cdm_peak,
		.n_tests = N(cdm_peak),
		.size = 1ULL << 30,
		.iterations = 5,
		.duration_s = 5,
	},
	{
		.name = "cdm-realworld",
		.kind = PROFILE_TESTS,
		.title = "CrystalDiskMark 8 Real World Performance",
		.tests = cdm_realworld,
		.n_tests = N(cdm_realworld),
		.size = 1ULL << 30,
		.iterations = 5,
		.duration_s = 5,
	},
	{
		.name = "cdm3",
		.kind = PROFILE_TESTS,
		.title = "CrystalDiskMark 3 (Seq, 512K, 4K, 4K QD32)",
		.tests = cdm3,
		.n_tests = N(cdm3),
		.size = 1ULL << 30,
		.iterations = 5,
		.duration_s = 5,
	},
	{
		.name = "seq-sweep",
		.kind = PROFILE_SEQ_SWEEP,
		.title = "Sequential read and write against block size",
		.size = 1ULL << 30,
		.iterations = 3,
		.duration_s = 5,
	},
	{
		.name = "mailbox-db",
		.kind = PROFILE_MAILBOX,
		.title = "Mailbox database (Jetstress style): database and log "
			 "streams, thread sweep, PASS/FAIL on latency",
		.size = 1ULL << 30,
		.iterations = 1,
		.duration_s = 30,
	},
	{
		.name = "file-create",
		.kind = PROFILE_FILE_CREATE,
		.title = "Time to create and copy fixed-size files",
		.size = 1ULL << 30,
		.iterations = 1,
		.duration_s = 5,
	},
	{
		.name = "custom",
		.kind = PROFILE_CUSTOM,
		.title = "Custom: the job's own tests",
		.size = 1ULL << 30,
		.iterations = 5,
		.duration_s = 5,
	},
};

const struct profile *profile_at(size_t i)
{
	return i < N(profiles) ? &profiles[i] : NULL;
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
