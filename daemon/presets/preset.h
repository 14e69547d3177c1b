/*
 * preset — what a preset is: one `const struct preset` per preset, one file
 * each (preset_<name>.c), listed once in the registry (presets.c). The queue,
 * the archive's readers, compare, the API and the dashboard ask the table;
 * none of them names a preset.
 *
 * A table gives:
 *   - name, title, kind and defaults (size, iterations, duration, interval):
 *     GET /api/v1/profiles and the job's defaults;
 *   - its fixed tests (CrystalDiskMark's sets), or none;
 *   - its options as a field-descriptor table (fields.h): validation, the
 *     unknown-field refusal, /profiles, the OpenAPI document, the
 *     dashboard's typed form — and a check hook for what descriptors cannot
 *     say (fields that depend on each other, directories, room);
 *   - its runner (planrun_run for a plan of tests on one test file);
 *   - what it adds to a run (a summary: mailbox verdicts), how compare reads
 *     its results (metrics), and the chart the run page draws (view).
 *
 * Adding a preset: a new preset_<name>.c with its table, and one line in
 * presets.c.
 */
#ifndef STORBENCH_PRESET_H
#define STORBENCH_PRESET_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "jobs/plan.h"
#include "platform/fields.h"

#define PRESET_VERSION 1

struct job_run;
struct job_spec;

enum {
	PRESET_TESTS = 1 << 0,	    /* the request carries `tests` (custom) */
	PRESET_RAW_DEVICE = 1 << 1, /* a raw block device may be the target
				       (the plan's test file is the device) */
	PRESET_OWN_ROOM = 1 << 2,   /* the preset checks the room its files
				       need (its check hook), not the job's
				       size on the target */
	PRESET_INTERLEAVE = 1 << 3, /* a plan of tests (planrun): one job may
				       run it on several targets in
				       alternating rounds (compare_with) */
	PRESET_STEADY = 1 << 4,	    /* the job's precondition and
				       steady_state apply to its tests
				       (planrun); others refuse them */
	PRESET_OWN_ROUNDS = 1 << 5, /* the preset times its own rounds
				       (snia-iops: options.steady_state);
				       the job's iterations and duration_s
				       are refused */
};

/* A measure compare reads, and how it words a difference. */
struct metric {
	const char *key; /* in the iteration or summary row */
	const char *unit;
	int higher;		 /* higher is better */
	const char *more, *less; /* the users' words for a delta */
	const char *what;	 /* "MB/s", "IOPS", … before more/less */
	int digits;		 /* decimals in sentences */
};

/* A column of the summary's table on the run page (and maybe a line of its
 * chart). */
struct preset_column {
	const char *key;   /* in the summary row */
	const char *title; /* "DB read mean (ms)" */
	int digits;	   /* decimals shown */
	int axis;	   /* 0: table only; 1: the chart's left axis; 2: its
			      right axis */
	const char *limit; /* the option holding its threshold, drawn dashed
			      ("thresholds.db_read_mean_ms"), or NULL */
};

/* How compare reads a preset's summary rows (one value per run each), and
 * how the run page draws them. */
struct preset_rows {
	const char *title;		/* the run page's card: "Mailbox
					   database" */
	const char *x;			/* the row field along the chart's x
					   axis ("threads") */
	const char *y_title, *y2_title; /* the chart's axes: "IOPS", "ms" */
	const struct preset_column *columns;
	size_t n_columns;
	const char *kind; /* compare's "kind" of these rows */
	const struct metric *metrics;
	size_t n_metrics;
	const char *verdict_key;  /* a row's verdict ("PASS"), or NULL */
	const char *reasons_key;  /* the verdict's reasons (sentences), or
				     NULL */
	const char *verdicts_key; /* compare's per-side list of them */
	/* The row's test name ("Mailbox T8") into buf. */
	void (*row_name)(json_t *row, char *buf, size_t len);
};

/*
 * What a preset's check hook gets: the request and the job being built.
 * The hook may set tests (a tests array to parse into the plan) and change
 * options (the normalized options, defaults filled) or s->target. On a
 * refusal it fills e and returns -EINVAL.
 */
struct preset_req {
	json_t *root;	     /* the request as sent */
	json_t *options;     /* the options, normalized (may be changed) */
	json_t *tests;	     /* out: the tests to plan (new reference) */
	struct job_spec *s;  /* target, size, duration …, as parsed */
	const char *scratch; /* the default target */
	const void *session; /* the target's back-end session (smb), or
				NULL, for checks on the server */
	struct field_error *e;
};

struct preset {
	unsigned version;  /* PRESET_VERSION */
	const char *name;  /* "cdm-default" */
	const char *title; /* "CrystalDiskMark 8 default" */
	const char *kind;  /* what /profiles lists as its kind: "tests"
			      for a fixed set, else the preset's own */
	unsigned flags;	   /* PRESET_* */
	struct {
		uint64_t size; /* bytes */
		int iterations;
		double duration_s;
		double interval_s;
	} defaults;
	const struct plan_test *tests; /* in run order, or NULL */
	size_t n_tests;
	const struct field *options; /* NULL: takes no options */
	size_t n_options;

	/* Checks what descriptors cannot; may set req->tests. NULL: none. */
	int (*check)(struct preset_req *req);
	/* The option a refusal of the preset's own tests names instead of
	 * tests[i].field (the plan, or a back-end's limit on queue slots);
	 * NULL: "profile". */
	const char *plan_field;
	const char *slots_field;
	/* Runs the job; 0, -ECANCELED or a negative errno with jr->error. */
	int (*run)(struct job_run *jr);

	/* The run's summary: added to GET /api/v1/runs/{id} as
	 * run[summary_key] = summary(run's tests, its options). NULL: none. */
	const char *summary_key;
	json_t *(*summary)(json_t *tests, json_t *options);
	const struct preset_rows *rows; /* how compare reads the summary */

	/* How compare reads the iterations: metrics (NULL: IOPS, MB/s, mean
	 * and p99 latency) and the kind it calls them ("io"). */
	const struct metric *metrics;
	size_t n_metrics;
	const char *compare_kind;
	/* The run page's chart: "tiles" (CrystalDiskMark's), "sweep" (a line
	 * over the swept field), "rows" (the summary's table and chart),
	 * "methods" (seconds per method and size), "bars" (one bar per test) */
	const char *view;
};

/* The registry (presets.c): the preset called name, or NULL. */
const struct preset *preset_find(const char *name);
/* The i-th preset, or NULL past the end; preset_at(0) is the default. */
const struct preset *preset_at(size_t i);
/* Checks a table (version, name, title, kind, runner, view). 0 or -EINVAL. */
int preset_validate(const struct preset *p);

/* Largest block size among p's fixed tests, bytes (0: none). */
uint32_t preset_max_block(const struct preset *p);

#endif
