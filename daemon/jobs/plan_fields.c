/*
 * plan_fields — the test object's descriptors (plan_test_fields, fields.h):
 * one table that validates a test of a request or of a stored plan
 * (plan.c), lists the test's fields in GET /api/v1/profiles and the
 * dashboard's custom-test rows, and writes the OpenAPI document's
 * TestRequest; with the names of the test's enums (plan_pattern_names,
 * plan_sync_names, plan_data_names), by their enum's order.
 */
#include "plan.h"

#include "steady.h"

#define MAX_IO_SIZE (64ULL << 40)

const char *const plan_pattern_names[] = { "sequential", "random", NULL };
const char *const plan_sync_names[] = { "none", "dsync", "fdatasync", NULL };
const char *const plan_data_names[] = { "random", "zeros", "repeat", NULL };

/* The test object (docs/api.md, "Custom tests"); a field with FIELD_SWEEP
 * may be a list (a sweep). duration_s, ramp_s and data default to the
 * job's. */
const struct field plan_test_fields[PLAN_N_TEST_FIELDS] = {
	{ .name = "pattern",
	  .type = FIELD_ENUM,
	  .choices = plan_pattern_names,
	  .def = "\"random\"",
	  .help = "how offsets are chosen: sequential (each thread walks its "
		  "own equal region of the file, wrapping at its end) or "
		  "random "
		  "(uniform block-aligned offsets over the whole file, with "
		  "repeats)" },
	{ .name = "read_pct",
	  .type = FIELD_INT,
	  .unit = "%",
	  .min = 0,
	  .max = 100,
	  .def = "100",
	  .flags = FIELD_SWEEP,
	  .help = "the share of reads: each I/O is a read with this "
		  "probability (100 read only, 0 write only, between: a mix)" },
	{ .name = "block_size",
	  .type = FIELD_BYTES,
	  .unit = "B",
	  .min = 512,
	  .max = PLAN_MAX_BLOCK,
	  .step = 512,
	  .def = "4096",
	  .flags = FIELD_SWEEP,
	  .help = "bytes per I/O, a multiple of 512; each thread's region of "
		  "the file must hold one block" },
	{ .name = "queue_depth",
	  .type = FIELD_INT,
	  .unit = "I/Os",
	  .min = 1,
	  .max = WL_MAX_QUEUE_DEPTH,
	  .def = "1",
	  .flags = FIELD_SWEEP,
	  .help = "I/Os in flight per thread (QD)" },
	{ .name = "threads",
	  .type = FIELD_INT,
	  .min = 1,
	  .max = WL_MAX_THREADS,
	  .def = "1",
	  .flags = FIELD_SWEEP,
	  .unit = "threads",
	  .help = "engine threads, each with its own queue (T); queue_depth × "
		  "threads × block_size at most 1 GiB, and queue_depth × "
		  "threads at most 4096 with psync, 512 on an SMB target" },
	{ .name = "duration_s",
	  .type = FIELD_NUMBER,
	  .unit = "s",
	  .min = 0.5,
	  .max = 3600,
	  .def_text = "the job's duration_s",
	  .flags = FIELD_SWEEP,
	  .help = "the measured window of each iteration" },
	{ .name = "io_size",
	  .type = FIELD_BYTES,
	  .unit = "B",
	  .min = 0,
	  .max = (double)MAX_IO_SIZE,
	  .def = "0",
	  .flags = FIELD_SWEEP,
	  .help = "size-based: the iteration ends after exactly this much I/O, "
		  "a multiple of threads × block_size; 0 = time-based" },
	{ .name = "ramp_s",
	  .type = FIELD_NUMBER,
	  .unit = "s",
	  .min = 0,
	  .max = 3600,
	  .def_text = "the job's ramp_s (time-based tests only)",
	  .flags = FIELD_SWEEP,
	  .help = "I/O before the measured window, counted nowhere" },
	{ .name = "sync",
	  .type = FIELD_ENUM,
	  .choices = plan_sync_names,
	  .def = "\"none\"",
	  .help = "for tests that write (read_pct < 100): none; dsync (the "
		  "file opened O_DSYNC); fdatasync (once every sync_every "
		  "completed writes per thread)" },
	{ .name = "sync_every",
	  .type = FIELD_INT,
	  .unit = "writes",
	  .min = 1,
	  .max = 1000000,
	  .def = "1",
	  .flags = FIELD_SWEEP,
	  .help = "writes per fdatasync, per thread (sync \"fdatasync\" "
		  "only)" },
	{ .name = "data",
	  .type = FIELD_ENUM,
	  .choices = plan_data_names,
	  .def_text = "the job's data",
	  .help = "what writes carry: random (incompressible, never repeated), "
		  "zeros, or repeat (one 4 KiB block)" },
	{ .name = "name",
	  .type = FIELD_STRING,
	  .unit = "B",
	  .min = 1,
	  .max = 31,
	  .flags = FIELD_CLEAN,
	  .def_text = "CrystalDiskMark style from the fields: \"RND4K Q32T1\", "
		      "a mix adds its read share (\"RND8K Q16T2 R70\")",
	  .help = "the test's name in results and comparisons, unique with its "
		  "direction in the job; a sweep's points are named after it "
		  "with the value (\"scale T4\")" },
	STEADY_PRECONDITION_FIELD("the job's precondition (\"none\")"),
	STEADY_STATE_FIELD("the job's steady_state (null)"),
};
const size_t plan_n_test_fields = FIELDS_N(plan_test_fields);
_Static_assert(FIELDS_N(plan_test_fields) == PLAN_N_TEST_FIELDS,
	       "PLAN_N_TEST_FIELDS counts plan_test_fields");
