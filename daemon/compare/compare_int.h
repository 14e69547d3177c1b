/*
 * compare_int — what the files of compare share (compare.c judges and
 * answers, compare_gather.c gathers the sides' runs, compare_stats.c picks
 * each metric's test, compare_cond.c warns of differing conditions,
 * compare_words.c writes the sentences): the findings a verdict sums up,
 * the sentences, and the test entries every side's runs are gathered into.
 */
#ifndef STORBENCH_COMPARE_INT_H
#define STORBENCH_COMPARE_INT_H

#include <stddef.h>

#include <jansson.h>

#include "compare.h"
#include "presets/preset.h"

/* The metrics of an I/O test, in archive_sum_metrics' order: MB/s, IOPS,
 * mean and p99 latency (µs), with their units and words
 * (compare_gather.c). */
#define COMPARE_IO_METRICS 4
extern const struct metric compare_io_metrics[COMPARE_IO_METRICS];

/* A significant (or, with too few iterations, a raw) difference: its size
 * and its sentence. */
struct finding {
	double abs_pct;
	char text[256];
};

/* "1,043 IOPS fewer (−12.4 %) on RND4K Q32T1 read" from metric m and its
 * delta object vs; rw left out for a summary row (row). */
void compare_phrase(const struct metric *m, json_t *vs, const char *test,
		    const char *rw, int row, char *buf, size_t len);

/* Side s's verdict against the baseline from its counts and findings (f:
 * significant, raw: untested; both sorted here): {side, text, better,
 * worse, within_noise, untested, not_like_for_like}. A new reference.
 * said: the first side whose verdict gave the reason it cannot tell, for
 * imported runs [0] and for single runs [1] (0: none yet), read and set
 * here, so that a reason is written once and later sides point to it. */
json_t *compare_verdict(const struct compare_side *sides, size_t s, int better,
			int worse, int noise, int untested, int unlike,
			int imported, size_t said[2], struct finding *f,
			size_t nf, struct finding *raw, size_t nr);

/* --- like for like (compare_cond.c) --- */

/* Adds run's conditions to side (condition -> value -> [run ids]). */
void compare_conditions_add(json_t *side, json_t *run);

/* Appends run (runview_json's, or archive_reader_run's brief) to a side's
 * runs as compare lists it ({id, imported, state, profile, target,
 * labels, fs_type, engine}), to warnings that it did not finish, and to
 * imports (an object: tool and best of N -> the runs) that it was
 * imported. Returns whether it was imported. */
int compare_run_listed(json_t *runs, json_t *warnings, json_t *imports,
		       json_t *run);
/* One warning per tool and best of N in imports (compare_run_listed's),
 * naming its runs: each number is a best of N. */
void compare_imports_warn(json_t *imports, json_t *warnings);
/* Is run another tool's numbers (imported from CrystalDiskMark, fio,
 * DiskSpd)? A storbench run restored from its own document (import format
 * "storbench") is not: it has every iteration, as measured. */
int compare_run_foreign(json_t *run);

/* A warning in warnings for each condition the sides cond[0..n) differ in
 * (or a side mixes), but grouped_by, naming every side's values and
 * runs. */
void compare_conditions_warn(json_t *cond, const struct compare_side *sides,
			     size_t n, const char *grouped_by,
			     json_t *warnings);

/* --- which test judges a difference (compare_stats.c) --- */

/* The run-to-run noise of the targets compared: the archive, and the
 * series read so far (series key -> their runs, as runview_json gives
 * them). */
/* One value a side holds of a metric: measured by run, in round `round`
 * of interleaved job `job` (job 0: not a round). */
struct cval {
	double v;
	int64_t run, job, round;
};

/* A side's values of one metric, in the order gathered. */
struct cvals {
	struct cval *x;
	size_t n, cap;
};

/* Every value set of a comparison. A side's object (an entry's "sides"
 * member) names its sets by index: {metric key: index}. Plain C arrays, as
 * a side of thousands of runs holds hundreds of thousands of values. */
struct cval_sets {
	struct cvals *set;
	size_t n, cap;
};

/* A new empty set: its index, or -1 (no memory). */
long compare_vals_new(struct cval_sets *vs);
/* Appends a value to side's set of key (nothing when it has none). */
void compare_vals_add(struct cval_sets *vs, json_t *side, const char *key,
		      double v, int64_t run, int64_t job, int64_t round);
/* Side's set of key, or NULL. */
const struct cvals *compare_vals_of(const struct cval_sets *vs, json_t *side,
				    const char *key);
void compare_vals_free(struct cval_sets *vs);

struct compare_noise {
	struct archive *a;
	json_t *series;
	struct cval_sets *values; /* the sides' values (compare.c) */
};

/* A noise estimate: the pooled relative standard deviation of a run's
 * figure (a fraction of the mean) with df degrees of freedom, from runs
 * repeated runs in series distinct series. */
struct compare_noise_est {
	double rel_sd, df;
	int runs, series;
};

/* The key of the series run belongs to: runs of the same target and
 * profile with the same size, iterations, duration, direct I/O request and
 * back-end. */
void compare_series_key(json_t *run, char *buf, size_t len);

/* An iteration's value of metric m: at its key, but p99 latency, which is
 * in the iteration's latency summary. */
json_t *compare_value_of(json_t *it, const struct metric *m);

/*
 * Side xv against the baseline bv for metric m of test (test, rw): each
 * side's values are bv[m->key], an array of [value, run id, round key or
 * null], and its series (bv["series"]: series key -> {target, profile}).
 * The test, in this order:
 *   paired  every value of both sides is a round of an interleaved job and
 *           ≥ 2 rounds match: the paired t-test over the rounds;
 *   runs    ≥ 2 runs per side: Welch's t-test over the runs' figures (the
 *           mean of each run's iterations);
 *   noise   otherwise, when ≥ 3 earlier runs of the sides' targets (same
 *           series) give a run-to-run spread: the difference against it;
 *   else    "cannot tell", and what would tell.
 * Returns {delta, delta_pct, better, test, n, t, df, p, ci_pct [lo, hi],
 * noise_band_pct, verdict, how[, noise]}; a new reference.
 */
json_t *compare_versus(struct compare_noise *nc, const struct metric *m,
		       json_t *bv, json_t *xv, const char *test,
		       const char *rw);

/* The rules' "tests": which test is used when, and why (docs/api.md). */
json_t *compare_tests_doc(void);

/* --- the sides' runs gathered (compare_gather.c) --- */

/* What a test entry is, and so how it is read and shown. */
struct kind {
	const char *name; /* compare's "kind": "io" … */
	const struct metric *m;
	size_t nm;
	int io;				/* I/O: headline by pattern, like for
					   like by workload shape */
	const struct preset_rows *rows; /* a preset's summary rows */
};

/* The kinds a comparison met; an entry's "kind" is an index into k. */
#define MAX_KINDS 16
struct kinds {
	struct kind k[MAX_KINDS];
	size_t n;
};

struct archive_test_sum;

/* Does run (archive_reader_run's brief) have to be read in full: a round
 * of an interleaved job, another tool's numbers, or a preset whose own
 * metrics or summary rows compare reads? */
int compare_needs_full(json_t *run);

/*
 * Gathers run (as runview_json gives it) into side s (of n_sides) of acc:
 * its tests' entries (acc: "test\x1frw" -> {test, rw, kind, pattern,
 * sides, sweep}, each new key appended to order, the kind added to ks),
 * each side's shape, series, errors and verdicts, and every iteration's
 * values of the kind's metrics into vs; a preset's summary rows as entries
 * of their own, a value per run.
 */
void compare_gather(struct cval_sets *vs, json_t *acc, json_t *order,
		    json_t *run, size_t s, size_t n_sides, struct kinds *ks);

/* Gathers run (its brief) into side s of acc from its tests' summaries
 * t[0..nt) (none with errors), as compare_gather does from the run in
 * full: the same entries, shapes, sweeps and values, in the same order. */
void compare_gather_sums(struct cval_sets *vs, json_t *acc, json_t *order,
			 json_t *run, const struct archive_test_sum *t,
			 size_t nt, size_t s, size_t n_sides, struct kinds *ks);

#endif
