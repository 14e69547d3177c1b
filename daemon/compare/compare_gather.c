/*
 * compare_gather — every run of every side of a comparison gathered into
 * its test entries (compare_int.h): each run is read in brief with its
 * tests' stored summaries (archive_reader: one indexed row per test,
 * holding each iteration's values), or, when those do not say all compare
 * reads (an interleaved job's rounds, another tool's numbers, a preset's
 * own metrics or summary rows, a measurement not made), as
 * GET /api/v1/runs/{id} shows it (runview_json); both give the same values
 * in the same order, so a side's figures are the same either way.
 *
 * Its tests' iterations are gathered per test key ("test", "rw") and side,
 * one list per metric of [value, run, round]; a run whose preset adds a
 * summary of rows (preset.h: mailbox-db's thread counts) adds those rows
 * too (one value per run). What metrics a test has is its kind's: I/O
 * tests are read by MB/s, IOPS and latency and must be like for like; a
 * preset may name its own iteration metrics (file-create's seconds) and
 * its rows'. Each side also gets the workload shape it ran, its series and
 * its sweep point.
 */
#include "compare_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "archive/archive.h"
#include "presets/preset.h"

/* I/O tests: a metric's value in an iteration is at its key, but p99
 * latency, which is in the iteration's latency summary. */
const struct metric compare_io_metrics[COMPARE_IO_METRICS] = {
	{ "mb_s", "10^6 B/s", 1, "more", "less", "MB/s", 0 },
	{ "iops", "I/O/s", 1, "more", "fewer", "IOPS", 0 },
	{ "lat_mean_us", "µs", 0, "higher", "lower", "µs mean latency", 1 },
	{ "lat_p99_us", "µs", 0, "higher", "lower", "µs p99 latency", 1 },
};

/* The index of kind k in ks (added when new); 0 (io) when ks is full. */
static int kind_index(struct kinds *ks, const struct kind *k)
{
	for (size_t i = 0; i < ks->n; i++)
		if (strcmp(ks->k[i].name, k->name) == 0)
			return (int)i;
	if (ks->n == MAX_KINDS)
		return 0;
	ks->k[ks->n] = *k;
	return (int)ks->n++;
}

/* The test entry of key in acc, made with n_sides empty value sets. */
static json_t *entry(struct cval_sets *vs, json_t *acc, json_t *order,
		     const char *test, const char *rw, const struct kinds *ks,
		     int k, const char *pattern, size_t n_sides)
{
	char key[160];
	json_t *e, *sides;
	size_t nm = ks->k[k].nm;
	const struct metric *m = ks->k[k].m;

	snprintf(key, sizeof(key), "%s\x1f%s", test, rw);
	if ((e = json_object_get(acc, key)))
		return e;
	sides = json_array();
	for (size_t s = 0; s < n_sides; s++) {
		json_t *vals = json_object();
		for (size_t i = 0; i < nm; i++)
			json_object_set_new(vals, m[i].key,
					    json_integer(compare_vals_new(vs)));
		json_object_set_new(vals, "present", json_false());
		json_object_set_new(vals, "series", json_object());
		json_object_set_new(vals, "verdicts", json_array());
		json_object_set_new(vals, "errors", json_array());
		json_array_append_new(sides, vals);
	}
	e = json_pack("{s:s, s:s, s:i, s:s, s:o}", "test", test, "rw", rw,
		      "kind", (int)k, "pattern", pattern ? pattern : "",
		      "sides", sides);
	json_object_set_new(acc, key, e);
	json_array_append_new(order, json_string(key));
	return e;
}

/* Appends value v (when a number) of metric key, measured by run id in
 * round `round` of job `job` (0: not a round of an interleaved job), to a
 * side's values. */
static void add_value(struct cval_sets *vs, json_t *vals, const char *key,
		      json_t *v, json_int_t id, json_int_t job,
		      json_int_t round)
{
	if (json_is_number(v))
		compare_vals_add(vs, vals, key, json_number_value(v), id, job,
				 round);
}

/* Names run's series (compare_series_key: its target made the same way)
 * among a side's, once. */
static void add_series(json_t *vals, const char *series, json_t *run)
{
	json_t *all = json_object_get(vals, "series");

	if (!json_object_get(all, series))
		json_object_set_new(all, series,
				    json_pack("{s:O?, s:O?}", "target",
					      json_object_get(run, "target"),
					      "profile",
					      json_object_get(run, "profile")));
}

/* What ran, into a side of test entry e: its shape (like for like needs
 * the same on every side; several in one side are "mixed") and the
 * entry's sweep point (sweep: {group, field, value} or NULL), once. The
 * back-end is a condition (compare_cond.c), not the shape: group_by=engine
 * compares it. */
static void describe(json_t *e, json_t *vals, const char *pattern,
		     json_int_t bs, json_int_t qd, json_int_t threads,
		     json_t *sweep)
{
	json_t *had = json_object_get(vals, "shape");
	/* "unknown block size": an import whose file does not say */
	char shape[160], blocks[40] = "unknown block size";

	if (bs > 0)
		snprintf(blocks, sizeof(blocks), "%lld B blocks",
			 (long long)bs);
	snprintf(shape, sizeof(shape), "%s, %s, QD%lld, T%lld",
		 pattern ? pattern : "?", blocks, (long long)qd,
		 (long long)threads);
	if (!had)
		json_object_set_new(vals, "shape", json_string(shape));
	else if (strcmp(json_string_value(had), shape))
		json_object_set_new(vals, "shape",
				    json_string("mixed within the side"));
	if (json_is_object(sweep) && !json_object_get(e, "sweep"))
		json_object_set_new(
			e, "sweep",
			json_pack("{s:O?, s:O?, s:O?}", "group",
				  json_object_get(sweep, "group"), "field",
				  json_object_get(sweep, "field"), "value",
				  json_object_get(sweep, "value")));
}

void compare_gather(struct cval_sets *vs, json_t *acc, json_t *order,
		    json_t *run, size_t s, size_t n_sides, struct kinds *ks)
{
	const struct preset *p =
		preset_find(json_string_value(json_object_get(run, "profile")));
	struct kind io = { "io", compare_io_metrics,
			   FIELDS_N(compare_io_metrics), 1, NULL };
	struct kind own;
	json_t *t, *row,
		*il = json_object_get(json_object_get(run, "spec"),
				      "interleave");
	json_int_t id = json_integer_value(json_object_get(run, "id"));
	int imported = compare_run_foreign(run);
	char series[1024];
	size_t i, j;
	int k;

	compare_series_key(run, series, sizeof(series));
	if (p && p->metrics) {
		own = (struct kind){ p->compare_kind, p->metrics, p->n_metrics,
				     0, NULL };
		k = kind_index(ks, &own);
	} else {
		k = kind_index(ks, &io);
	}

	json_array_foreach(json_object_get(run, "tests"), i, t)
	{
		json_t *e = entry(
			vs, acc, order,
			json_string_value(json_object_get(t, "test")),
			json_string_value(json_object_get(t, "rw")), ks, k,
			json_string_value(json_object_get(t, "pattern")),
			n_sides);
		json_t *vals = json_array_get(json_object_get(e, "sides"), s),
		       *it;
		json_t *sweep = json_object_get(t, "sweep");
		json_object_set_new(vals, "present", json_true());
		if (!imported)
			add_series(vals, series, run);
		describe(e, vals,
			 json_string_value(json_object_get(t, "pattern")),
			 json_integer_value(json_object_get(t, "block_size")),
			 json_integer_value(json_object_get(t, "queue_depth")),
			 json_integer_value(json_object_get(t, "threads")),
			 sweep);
		json_array_foreach(json_object_get(t, "iterations"), j, it)
		{
			json_t *err = json_object_get(it, "error");
			/* an interleaved job's iteration n is its round n */
			json_int_t job =
				il ? json_integer_value(
					     json_object_get(il, "job"))
				   : 0;
			json_int_t round = json_integer_value(
				json_object_get(it, "iteration"));
			if (json_is_string(err)) {
				json_array_append(
					json_object_get(vals, "errors"), err);
				continue;
			}
			for (size_t m = 0; m < ks->k[k].nm; m++)
				add_value(vs, vals, ks->k[k].m[m].key,
					  compare_value_of(it, &ks->k[k].m[m]),
					  id, job, job ? round : 0);
		}
	}
	if (!p || !p->summary || !p->rows)
		return;
	/* the preset's summary: a row each, one value per run */
	own = (struct kind){ p->rows->kind, p->rows->metrics,
			     p->rows->n_metrics, 0, p->rows };
	k = kind_index(ks, &own);
	json_array_foreach(json_object_get(run, p->summary_key), i, row)
	{
		char name[64];
		json_t *e, *vals;
		p->rows->row_name(row, name, sizeof(name));
		e = entry(vs, acc, order, name, p->rows->kind, ks, k, NULL,
			  n_sides);
		vals = json_array_get(json_object_get(e, "sides"), s);
		json_object_set_new(vals, "present", json_true());
		for (size_t m = 0; m < p->rows->n_metrics; m++)
			add_value(vs, vals, p->rows->metrics[m].key,
				  json_object_get(row, p->rows->metrics[m].key),
				  id, 0, 0);
		if (p->rows->verdict_key)
			json_array_append(
				json_object_get(vals, "verdicts"),
				json_object_get(row, p->rows->verdict_key));
	}
}

int compare_needs_full(json_t *run)
{
	const struct preset *p =
		preset_find(json_string_value(json_object_get(run, "profile")));

	return json_is_true(json_object_get(run, "interleaved")) ||
	       json_is_true(json_object_get(run, "imported")) ||
	       (p && (p->metrics || (p->summary && p->rows)));
}

void compare_gather_sums(struct cval_sets *vs, json_t *acc, json_t *order,
			 json_t *run, const struct archive_test_sum *t,
			 size_t nt, size_t s, size_t n_sides, struct kinds *ks)
{
	struct kind io = { "io", compare_io_metrics,
			   FIELDS_N(compare_io_metrics), 1, NULL };
	json_int_t id = json_integer_value(json_object_get(run, "id"));
	int col[FIELDS_N(compare_io_metrics)];
	char series[1024];
	int k = kind_index(ks, &io);

	compare_series_key(run, series, sizeof(series));
	for (size_t m = 0; m < FIELDS_N(compare_io_metrics); m++) {
		col[m] = -1;
		for (int c = 0; c < ARCHIVE_SUM_METRICS; c++)
			if (strcmp(archive_sum_metrics[c],
				   compare_io_metrics[m].key) == 0)
				col[m] = c;
	}
	for (size_t i = 0; i < nt; i++) {
		json_t *e = entry(vs, acc, order, t[i].test, t[i].rw, ks, k,
				  t[i].pattern, n_sides);
		json_t *vals = json_array_get(json_object_get(e, "sides"), s);
		/* the sweep's text is parsed only for the entry's first run */
		json_t *sweep = t[i].sweep_json && !json_object_get(e, "sweep")
					? json_loads(t[i].sweep_json, 0, NULL)
					: NULL;
		json_object_set_new(vals, "present", json_true());
		add_series(vals, series, run);
		describe(e, vals, t[i].pattern, t[i].block_size,
			 t[i].queue_depth, t[i].threads, sweep);
		json_decref(sweep);
		for (size_t j = 0; j < t[i].n_vals; j++) {
			const double *v = &t[i].vals[j * ARCHIVE_SUM_METRICS];
			for (size_t m = 0; m < FIELDS_N(compare_io_metrics);
			     m++)
				if (col[m] >= 0 && !isnan(v[col[m]]))
					compare_vals_add(
						vs, vals,
						compare_io_metrics[m].key,
						v[col[m]], id, 0, 0);
		}
	}
}
