/*
 * plan — a job's tests as data: the ordered list of workloads the queue runs.
 *
 * A preset either has fixed tests (plan_from_tests) or makes a tests array
 * (the custom preset's request, seq-sweep's block sizes) that plan_parse
 * checks against the test object's descriptors (plan_test_fields: names,
 * types, units, limits, defaults) and expands: a field given as a list is a
 * sweep, one test per value, named after the point ("db T8", "RND4K Q8T1").
 * Either way the job is queued with its plan written out in full
 * (plan_json), so what ran is what was asked for even if a later version
 * changes a preset, and the run keeps it.
 *
 * A test's precondition and steady_state (steady.h) default to the job's
 * (def's); with steady state its duration is the round's (round_s).
 */
#ifndef STORBENCH_PLAN_H
#define STORBENCH_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "engine/workload.h"
#include "platform/fields.h"

#define PLAN_MAX_TESTS 64
#define PLAN_MAX_BLOCK (64U << 20)    /* bytes */
#define PLAN_MAX_BUFFERS (1ULL << 30) /* queue_depth × threads × block_size */

struct plan {
	struct workload *w;
	size_t n;
};

/*
 * Parses a tests array (a request's or a stored plan) into *out (caller:
 * plan_free). def gives the job-wide values a test does not set: file_size,
 * duration_s, ramp_s, data, precondition and steady (the other fields of
 * def are ignored).
 * Returns 0, -EINVAL with *e filled, or -ENOMEM.
 */
int plan_parse(json_t *tests, const struct workload *def, struct plan *out,
	       struct field_error *e);
/* The same for a plan the daemon stored itself: its tests may carry the
 * "sweep" object that marks a point (a request may not). */
int plan_parse_stored(json_t *tests, const struct workload *def,
		      struct plan *out, struct field_error *e);

/* A fixed test of a preset (CrystalDiskMark's sets): its name and shape. */
struct plan_test {
	const char *name; /* "SEQ1M Q8T1" */
	enum wl_pattern pattern;
	unsigned read_pct;   /* 100 read, 0 write */
	uint32_t block_size; /* bytes */
	unsigned queue_depth;
	unsigned threads;
};

/* Expands fixed tests t[0 … n) with the job-wide values in def (as
 * above). */
int plan_from_tests(const struct plan_test *t, size_t n,
		    const struct workload *def, struct plan *out);

/* The test object's descriptors (fields.h): validation, /profiles, the
 * OpenAPI document, the dashboard's custom-test rows. (plan_fields.c) */
/* What writes carry, by enum wl_data: "random", "zeros", "repeat", NULL. */
extern const char *const plan_data_names[];
/* By enum wl_pattern: "sequential", "random", NULL. */
extern const char *const plan_pattern_names[];
/* By enum wl_sync: "none", "dsync", "fdatasync", NULL. */
extern const char *const plan_sync_names[];

#define PLAN_N_TEST_FIELDS 14
extern const struct field plan_test_fields[PLAN_N_TEST_FIELDS];
extern const size_t plan_n_test_fields;

/* The plan in its explicit stored form: every field of every test. */
json_t *plan_json(const struct plan *p);

void plan_free(struct plan *p);

#endif
