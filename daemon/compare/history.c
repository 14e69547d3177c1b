/*
 * history — see history.h. A point's interval is the 95 % confidence
 * interval of its run's mean over its iterations (Student's t with n − 1
 * degrees of freedom; none for a run of one iteration, as an import of
 * one figure is); a change point's shift is changepoint.h's, also as a
 * share of the level before it.
 */
#include "history.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "compare_int.h"

#define MAX_CHANGE_POINTS 100

static const struct metric *metric_of(const char *key)
{
	for (size_t i = 0; i < COMPARE_IO_METRICS; i++)
		if (strcmp(compare_io_metrics[i].key, key) == 0)
			return &compare_io_metrics[i];
	return NULL;
}

static json_t *interval(double lo, double hi)
{
	return json_pack("[f, f]", lo, hi);
}

/* A run's point: {run_id, started_at, hostname, labels, value, n, sd, ci}. */
static json_t *point(json_t *row)
{
	json_t *sd = json_object_get(row, "sd");
	double mean = json_number_value(json_object_get(row, "mean"));
	json_int_t n = json_integer_value(json_object_get(row, "n"));
	json_t *p = json_pack("{s:O, s:O, s:O, s:O, s:f, s:I, s:O}", "run_id",
			      json_object_get(row, "run_id"), "started_at",
			      json_object_get(row, "started_at"), "hostname",
			      json_object_get(row, "hostname"), "labels",
			      json_object_get(row, "labels"), "value", mean,
			      "n", n, "sd", sd ? sd : json_null());

	if (p && n >= 2 && json_is_number(sd)) {
		double h = stats_t_quantile(0.05, (double)(n - 1)) *
			   json_number_value(sd) / sqrt((double)n);
		json_object_set_new(p, "ci", interval(mean - h, mean + h));
	} else if (p) {
		json_object_set_new(p, "ci", json_null());
	}
	return p;
}

static json_int_t run_at(json_t *rows, size_t i)
{
	return json_integer_value(
		json_object_get(json_array_get(rows, i), "run_id"));
}

/* A segment of the series: {runs, mean, sd, first_run_id, last_run_id}. */
static json_t *segment(json_t *rows, size_t lo, size_t hi,
		       const struct stats_summary *s)
{
	return json_pack("{s:i, s:f, s:f, s:I, s:I}", "runs", s->n, "mean",
			 s->mean, "sd", s->sd, "first_run_id", run_at(rows, lo),
			 "last_run_id", run_at(rows, hi - 1));
}

/* What changed from the last run before c to the first after it
 * (compare_changed), as the compare of the two lists it. */
static json_t *changed_at(struct archive *a, json_t *rows,
			  const struct cp_point *c)
{
	int64_t before = run_at(rows, c->at - 1), after = run_at(rows, c->at);
	struct compare_side sides[2] = { { "before", &before, 1 },
					 { "after", &after, 1 } };
	json_t *out = NULL;

	return compare_changed(a, sides, 2, &out) == 0 ? out : json_array();
}

static json_t *change_point(struct archive *a, json_t *rows,
			    const struct cp_point *c)
{
	const struct stats_test *d = &c->shift;
	double base = c->before.mean;
	char url[96];
	json_t *o;

	snprintf(url, sizeof(url), "/api/v1/compare?runs=%lld,%lld",
		 (long long)run_at(rows, c->at - 1),
		 (long long)run_at(rows, c->at));
	o = json_pack(
		"{s:I, s:I, s:I, s:O, s:f, s:o, s:o, s:f, s:o, s:s}", "index",
		(json_int_t)c->at, "run_id", run_at(rows, c->at),
		"before_run_id", run_at(rows, c->at - 1), "started_at",
		json_object_get(json_array_get(rows, c->at), "started_at"), "p",
		c->p, "before", segment(rows, c->lo, c->at, &c->before),
		"after", segment(rows, c->at, c->hi, &c->after), "shift",
		d->delta, "ci",
		interval(d->delta - d->half, d->delta + d->half), "compare",
		url);
	if (o)
		json_object_set_new(o, "changed", changed_at(a, rows, c));
	if (o && base != 0)
		json_object_set_new(o, "shift_pct",
				    json_real(100 * d->delta / base));
	if (o && base != 0)
		json_object_set_new(
			o, "ci_pct",
			interval(100 * (d->delta - d->half) / base,
				 100 * (d->delta + d->half) / base));
	return o;
}

/* The change points of rows' means into out's change_points. */
static int find_changes(struct archive *a, json_t *rows, json_t *out)
{
	size_t n = json_array_size(rows), i;
	double *x = malloc((n + 1) * sizeof(*x));
	struct cp_point *cp = calloc(MAX_CHANGE_POINTS, sizeof(*cp));
	json_t *list = json_array(), *row;
	int k, rc = 0;

	if (!x || !cp || !list) {
		rc = -ENOMEM;
		goto out;
	}
	json_array_foreach(rows, i, row) x[i] =
		json_number_value(json_object_get(row, "mean"));
	if ((k = cp_find(x, n, cp, MAX_CHANGE_POINTS)) < 0) {
		rc = k;
		goto out;
	}
	for (int j = 0; j < k; j++)
		if (json_array_append_new(list, change_point(a, rows, &cp[j])) <
		    0)
			rc = -ENOMEM;
	json_object_set(out, "change_points", list);
out:
	json_decref(list);
	free(x);
	free(cp);
	return rc;
}

int history_json(struct archive *a, const struct archive_history_q *q,
		 json_t **out, char *err, size_t err_len)
{
	struct archive_history_q w = *q;
	const struct metric *m;
	json_t *rows = NULL, *points, *o, *row;
	size_t i;
	int rc;

	if (!w.metric)
		w.metric = "mb_s";
	if (!(m = metric_of(w.metric)))
		return -EINVAL;
	rc = archive_history(a, &w, &rows);
	/* the headline of a random test is its IOPS */
	if (rc == 0 && !q->metric && json_array_size(rows) > 0 &&
	    strcmp(json_string_value(
			   json_object_get(json_array_get(rows, 0), "pattern"))
			   ?: "",
		   "sequential") != 0) {
		json_decref(rows);
		w.metric = "iops";
		m = metric_of(w.metric);
		rc = archive_history(a, &w, &rows);
	}
	if (rc < 0)
		return rc;
	if (json_array_size(rows) == 0) {
		snprintf(err, err_len,
			 "no done run of target %.200s with profile "
			 "%.64s%s%.64s "
			 "has test %.80s %s with %s",
			 w.target, w.profile, w.host ? " on host " : "",
			 w.host ? w.host : "", w.test, w.rw, m->what);
		json_decref(rows);
		return -ENOENT;
	}
	points = json_array();
	json_array_foreach(rows, i, row)
		json_array_append_new(points, point(row));
	o = json_pack(
		"{s:s, s:s, s:s, s:s, s:s?, s:s, s:s, s:b, s:{s:s, s:f, s:i, "
		"s:i}, s:o}",
		"target", w.target, "profile", w.profile, "test", w.test, "rw",
		w.rw, "host", w.host, "metric", w.metric, "unit", m->unit,
		"higher_is_better", m->higher, "method", "name",
		"binary segmentation: CUSUM mean-shift statistic, permutation "
		"test",
		"alpha", CP_ALPHA, "permutations", CP_PERMUTATIONS,
		"min_runs_each_side", CP_MIN_SEGMENT, "points", points);
	if (!o || (rc = find_changes(a, rows, o)) < 0) {
		json_decref(o);
		json_decref(rows);
		return o ? rc : -ENOMEM;
	}
	json_decref(rows);
	*out = o;
	return 0;
}
