/*
 * profiles — named presets from the tools storage people already trust. A
 * profile expands to an ordered plan of tests; the caller runs each test for
 * the job's iterations and keeps the best (CrystalDiskMark's rule).
 */
#ifndef STORBENCH_PROFILES_H
#define STORBENCH_PROFILES_H

#include <stddef.h>
#include <stdint.h>

#include "workload.h"

struct profile_test {
	const char *name;        /* "SEQ1M Q8T1" */
	enum wl_pattern pattern;
	unsigned read_pct;       /* 100 read, 0 write */
	uint32_t block_size;     /* bytes */
	unsigned queue_depth;
	unsigned threads;
};

enum profile_kind {
	PROFILE_TESTS,       /* a fixed list of tests (CrystalDiskMark sets) */
	PROFILE_CUSTOM,      /* the job's own tests */
	PROFILE_SEQ_SWEEP,   /* sequential read and write over block sizes */
	PROFILE_MAILBOX,     /* database + log streams, thread sweep, PASS/FAIL */
	PROFILE_FILE_CREATE, /* time to create and copy fixed-size files */
};

struct profile {
	const char *name;        /* "cdm-default" */
	enum profile_kind kind;
	const char *title;       /* "CrystalDiskMark 8 default" */
	const struct profile_test *tests; /* in run order */
	size_t n_tests;
	/* defaults for the job fields a request leaves out */
	uint64_t size;           /* bytes */
	int iterations;
	double duration_s;
	double interval_s;
};

/* The profile called name, or NULL. */
const struct profile *profile_find(const char *name);

/* The i-th built-in profile, or NULL past the end (for listing). */
const struct profile *profile_at(size_t i);

/* Largest block size among p's tests, bytes. */
uint32_t profile_max_block(const struct profile *p);

/* Fills w for test t of a job with this file size and duration. */
void profile_workload(const struct profile_test *t, uint64_t file_size,
		      double duration_s, struct workload *w);

#endif
